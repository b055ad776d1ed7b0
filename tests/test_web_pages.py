"""The web client's pages and static files as HTTP sees them (the browser
tests in tests/browser/ drive them in Chromium): served from the package,
with a self-only Content-Security-Policy and cache headers, out of the
OpenAPI description, and a table page only for ids that can be tables."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from services.gateway.web import CSP, WEB_DIR

#: The pages do not touch the store: fakeredis is enough.
fake = pytest.mark.parametrize("redis_client", ["fakeredis"], indirect=True)


@fake
async def test_the_lobby_and_a_table_page_are_html_with_a_self_only_policy(service):
    for path, script in (("/", "/static/lobby.js"), ("/play/abc123def456", "/static/play.js")):
        r = await service.get(path)
        assert r.status_code == 200
        assert r.headers["content-type"] == "text/html; charset=utf-8"
        assert r.headers["content-security-policy"] == CSP
        assert r.headers["cache-control"] == "no-cache"
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["referrer-policy"] == "no-referrer"
        assert f'<script type="module" src="{script}"></script>' in r.text
        # nothing from another origin: every src and href is this site's
        assert [u for u in re.findall(r'(?:src|href)="([^"]+)"', r.text)
                if not u.startswith(("/", "data:"))] == []
    assert "default-src 'self'" in CSP and "'unsafe-inline'" not in CSP
    head = await service.head("/")
    assert head.status_code == 200


@fake
async def test_static_files_carry_the_policy_and_an_hour_of_cache(service):
    r = await service.get("/static/games/maumau.js")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/javascript")
    assert r.headers["content-security-policy"] == CSP
    assert r.headers["cache-control"] == "public, max-age=3600, must-revalidate"
    assert r.text == (WEB_DIR / "games" / "maumau.js").read_text()
    missing = await service.get("/static/games/nope.js")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"
    escape = await service.get("/static/../web.py")
    assert escape.status_code == 404


@fake
async def test_a_page_for_an_id_that_cannot_be_a_table_is_404(service):
    r = await service.get("/play/not..an id")
    assert r.status_code == 404
    assert r.json()["code"] == "table_not_found"


@fake
async def test_pages_are_not_in_the_openapi_description(service):
    paths = (await service.get("/openapi.json")).json()["paths"]
    assert "/" not in paths and "/play/{table}" not in paths
    assert not [p for p in paths if p.startswith("/static")]


def test_every_game_has_a_module_and_every_module_file_ships():
    from shared.games import available

    hosted = set(available()) - {"toy"}  # toy: the tests' own game
    assert {p.stem for p in (WEB_DIR / "games").glob("*.js")} == hosted | {"generic"}
    pyproject = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()
    assert '"services.gateway" = ["web/*.html", "web/*.css", "web/*.js", "web/games/*.js"]' in pyproject
    assert {p.suffix for p in WEB_DIR.rglob("*") if p.is_file()} <= {".html", ".css", ".js"}
