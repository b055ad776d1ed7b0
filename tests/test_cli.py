"""The `tapis` command: demo on an embedded service, replay from real
Redis, clear errors for missing settings."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from services.cli import app
from tests.conftest import REAL_REDIS_URL, real_redis_available

runner = CliRunner()


def test_demo_embedded_plays_every_table_and_reports_throughput():
    res = runner.invoke(app, ["demo", "--game", "maumau", "--tables", "3", "--players", "3", "--embedded"])
    assert res.exit_code == 0, res.output
    assert "3/3 tables finished" in res.output
    assert "games/s" in res.output


def test_demo_without_a_server_says_how_to_start_one():
    res = runner.invoke(app, ["demo", "--url", "http://127.0.0.1:9", "--tables", "1"])
    assert res.exit_code == 1
    assert "tapis serve" in res.output


def test_demo_url_without_a_scheme_means_http():
    from services.demo import service_url

    assert service_url("localhost:8000") == "http://localhost:8000"
    assert service_url("https://tapis.example") == "https://tapis.example"


def test_demo_unknown_game_is_refused_with_the_code():
    res = runner.invoke(app, ["demo", "--game", "chess", "--tables", "1", "--embedded"])
    assert res.exit_code == 1
    assert "unknown_game" in res.output


@pytest.mark.parametrize("cmd", [["gateway"], ["worker"], ["replay", "abc"]])
def test_roles_that_need_redis_say_so(cmd, monkeypatch):
    monkeypatch.delenv("TAPIS_REDIS_URL", raising=False)
    res = runner.invoke(app, cmd)
    assert res.exit_code == 2
    assert "TAPIS_REDIS_URL" in res.output


@pytest.mark.redis
async def test_replay_prints_the_scores_the_service_computed(capsys):
    if not real_redis_available():
        pytest.skip("no Redis")
    import asyncio

    import httpx
    from redis.asyncio import Redis

    from services.config import Settings
    from services.replay import replay_table
    from services.serve import build_serve_app

    redis = Redis.from_url(REAL_REDIS_URL)
    await redis.flushdb()
    settings = Settings(redis_url=REAL_REDIS_URL, shards=2, snapshot_every=16)
    app_ = build_serve_app(settings, redis=redis)
    async with app_.router.lifespan_context(app_):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app_), base_url="http://t") as c:
            tid = (await c.post("/tables", json={"game": "maumau", "players": 3,
                                                  "bots": {"0": "heuristic", "1": "random", "2": "random"}})).json()["id"]
            for _ in range(600):
                info = (await c.get(f"/tables/{tid}")).json()
                if info["status"] == "finished":
                    break
                await asyncio.sleep(0.05)
    capsys.readouterr()
    code = await replay_table(settings, tid)
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["result"] == info["result"] and out["version"] == info["version"]
    assert out["snapshot"]["matches_replay"] is True
    await redis.flushdb()
    await redis.aclose()


def test_bots_exit_with_celerys_exit_code(monkeypatch):
    """Case: `tapis bots` exited 0 after Celery's "Unrecoverable error" (kombu
    dying on a Redis restart), so an on-failure supervisor never restarted
    it.  The real Celery command runs; its worker fails to start its
    blueprint, as after that error, and the exit code comes back."""
    from celery import bootsteps

    def fail(self, parent):
        raise AttributeError("'NoneType' object has no attribute 'hostname'")  # kombu's, on a Redis restart

    monkeypatch.setattr(bootsteps.Blueprint, "start", fail)
    res = runner.invoke(app, ["bots", "--redis", "redis://127.0.0.1:9/0", "--pool", "solo"])
    assert res.exit_code == 1, res.output


@pytest.mark.redis
async def test_export_writes_the_whole_log_as_json_lines(tmp_path):
    if not real_redis_available():
        pytest.skip("no Redis")
    import asyncio

    import httpx
    from redis.asyncio import Redis

    from services.config import Settings
    from services.serve import build_serve_app

    redis = Redis.from_url(REAL_REDIS_URL)
    await redis.flushdb()
    settings = Settings(redis_url=REAL_REDIS_URL, shards=2)
    app_ = build_serve_app(settings, redis=redis)
    async with app_.router.lifespan_context(app_):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app_), base_url="http://t") as c:
            tid = (await c.post("/tables", json={"game": "toy", "players": 1, "bots": {"0": "first"},
                                                  "options": {"target": 4}})).json()["id"]
            for _ in range(300):
                info = (await c.get(f"/tables/{tid}")).json()
                if info["status"] == "finished":
                    break
                await asyncio.sleep(0.05)
    out = tmp_path / "log.jsonl"
    res = await asyncio.to_thread(CliRunner().invoke, app, ["export", tid, "--redis", REAL_REDIS_URL, "-o", str(out)])
    assert res.exit_code == 0, res.output
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert lines[0]["table"] == tid and lines[0]["meta"]["game"] == "toy"
    assert [x["version"] for x in lines[1:]] == list(range(1, info["version"] + 1))
    assert lines[1]["type"] == "GameStarted" and "secrets" in lines[1]["data"]  # unredacted: the dealt secrets
    res = await asyncio.to_thread(CliRunner().invoke, app, ["export", "nope", "--redis", REAL_REDIS_URL])
    assert res.exit_code == 1
    await redis.flushdb()
    await redis.aclose()


@pytest.mark.parametrize("cmd", ["serve", "gateway"])
def test_serve_and_gateway_take_the_trusted_proxies(cmd):
    res = runner.invoke(app, [cmd, "--help"], env={"COLUMNS": "200"})
    assert res.exit_code == 0 and "--forwarded-allow-ips" in res.output


def test_the_server_trusts_x_forwarded_for_only_from_the_proxies_named(monkeypatch):
    from services.config import Settings
    from services.gateway.server import HeadTimeout, uvicorn_config

    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "*")  # uvicorn's own variable is not read
    cfg = uvicorn_config(None, Settings(redis_url=None), host="127.0.0.1", port=1)
    assert cfg.proxy_headers is False
    monkeypatch.setenv("TAPIS_FORWARDED_ALLOW_IPS", "10.0.0.5, 10.1.0.0/16")
    cfg = uvicorn_config(None, Settings(redis_url=None, header_timeout_s=3), host="127.0.0.1", port=1)
    assert cfg.proxy_headers is True and cfg.forwarded_allow_ips == "10.0.0.5,10.1.0.0/16"
    cfg = uvicorn_config(None, Settings(redis_url=None), host="127.0.0.1", port=1, forwarded_allow_ips="192.0.2.1")
    assert cfg.forwarded_allow_ips == "192.0.2.1"  # the flag wins over the setting
    assert issubclass(cfg.http, HeadTimeout) and cfg.http.header_timeout_s == 10.0
