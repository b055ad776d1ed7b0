"""The lobby's Finished tab (issue 22, item 4): the finished tables still in
the lobby first, then the archived games of `GET /history`, a page at a
time with More, each table once (one archived a moment ago is in both
lists), with its game, date, players and winners, and links to its replay
and its table page; in English and French; the lobby's own tables still
shown when the archive is down."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest

from services.archive.db import Archive
from services.archive.model import build_record
from services.store import keys
from tests.archived import played_record

pytestmark = pytest.mark.browser

#: 2026-12-01T00:00:00Z
DEC1 = 1_796_083_200_000
HOUR = 3_600_000


@dataclass
class Site:
    """The service under test, the live finished tables (newest first) and
    the archived games (newest first: table id -> winners' names)."""

    base: str
    live: list[str]
    archived: list[str]
    winners: dict[str, list[str]]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[Site]:
    """``tapis serve`` on a fakeredis server with a SQLite archive holding 26
    played Mau Mau games; two all-bot tables finished in the lobby (not
    archived: TAPIS_ARCHIVE_AFTER_S is an hour), the newer also written to
    the archive (as between the archiver's write and its removal from
    Redis)."""
    from fakeredis import FakeRedis, FakeServer
    from fakeredis.aioredis import FakeRedis as AsyncFakeRedis

    from services.config import Settings
    from services.demo import start_embedded

    url = f"sqlite:///{tmp_path_factory.mktemp('archive') / 'archive.db'}"
    archive = Archive(url)
    archive.migrate()
    recs = [played_record(f"h{i:02d}", "maumau", [("Ana", None), ("heuristic bot 1", "heuristic"), ("Bo", None)],
                          seed=i, ended_ms=DEC1 + i * HOUR) for i in range(26)]

    async def put(*rs):
        for r in rs:
            await archive.put(r)

    asyncio.run(put(*recs))
    server = FakeServer()
    settings = Settings(redis_url=None, bot_delay_ms=0, archive_url=url, archive_after_s=3600, rate_limits=False)
    base, srv = start_embedded(settings=settings, redis=AsyncFakeRedis(server=server))
    sync = FakeRedis(server=server)
    live = []
    with httpx.Client(base_url=base, timeout=30) as c:
        for _ in range(2):
            tid = c.post("/tables", json={"game": "maumau", "players": 2, "bots": {"0": "heuristic", "1": "random"},
                                          "options": {"hand_size": 1, "target_score": 1}}).json()["id"]
            for _ in range(600):
                if c.get(f"/tables/{tid}").json()["status"] == "finished":
                    break
                time.sleep(0.02)
            live.insert(0, tid)
            time.sleep(0.002)  # created in another ms: the lobby's order is the creation order
    meta = {k.decode(): v.decode() for k, v in sync.hgetall(keys.meta(live[0])).items()}
    log = [fields[b"e"] for _id, fields in sync.xrange(keys.events(live[0]))]
    both = build_record(live[0], meta, log)
    asyncio.run(put(both))
    winners = {}
    for r in [*recs, both]:
        names = [s.name for s in r.summary.seats]
        winners[r.summary.table] = [names[s] for s in r.summary.winners]
    archived = [r.summary.table for r in sorted([*recs, both], key=lambda r: r.summary.ended_ms, reverse=True)]
    yield Site(base, live, archived, winners)
    srv.should_exit = True
    for _ in range(200):
        try:
            httpx.get(base + "/healthz", timeout=0.5)
        except httpx.HTTPError:
            break
        time.sleep(0.05)


def finished_tab(tab, site: Site):
    page = tab.page
    page.goto(site.base + "/")
    page.wait_for_selector("#games li")
    page.click("#status-tabs [data-status=finished]")
    page.wait_for_selector("#tables li[data-source=history]")
    return page


def shown(page) -> list[dict]:
    return page.locator("#tables li[data-table]").evaluate_all("""els => els.map(e => ({
        table: e.dataset.table, source: e.dataset.source, text: e.querySelector('.what').textContent,
        winners: e.querySelector('.winners').textContent,
        links: [...e.querySelectorAll('a')].map(a => [a.getAttribute('href'), a.textContent])}))""")


def test_the_finished_tab_lists_the_lobbys_tables_then_the_history_each_once(site, browse):
    tab = browse()
    page = finished_tab(tab, site)
    first = shown(page)
    # the lobby's two, then the history's first page of 20 less the table already shown
    assert [x["table"] for x in first] == site.live + site.archived[1:20]
    assert [x["source"] for x in first] == ["lobby"] * 2 + ["history"] * 19
    assert page.locator("#more").is_visible()
    while page.locator("#more").is_visible():
        n = page.locator("#tables li[data-table]").count()
        page.click("#more")
        page.wait_for_function("n => document.querySelectorAll('#tables li[data-table]').length > n"
                               " || document.getElementById('more').hidden", arg=n)
    every = shown(page)
    assert [x["table"] for x in every] == site.live + site.archived[1:]  # each table once, newest first
    assert len(every) == 2 + 26
    for x in every:
        assert x["links"] == [[f"/replay/{x['table']}", "Replay"], [f"/play/{x['table']}", "Table"]]
        if x["table"] in site.winners:
            assert x["winners"] == "Won by " + ", ".join(site.winners[x["table"]])
        assert x["text"].startswith("Mau Mau · ")
    h = next(x for x in every if x["table"] == "h25")  # ended 2026-12-02 01:00 UTC
    assert "Ana, heuristic bot 1, Bo" in h["text"] and "2 Dec 2026" in h["text"]
    assert page.get_attribute("li[data-table=h25] time", "datetime") == "2026-12-02T01:00:00.000Z"
    assert tab.errors == []


def test_the_finished_tab_speaks_french(site, browse):
    tab = browse(locale="fr-FR")
    page = finished_tab(tab, site)
    h = next(x for x in shown(page) if x["table"] == "h25")
    assert h["winners"] == "Gagnée par " + ", ".join(site.winners["h25"])
    assert [text for _href, text in h["links"]] == ["Revoir", "Table"]
    assert "2 déc. 2026" in h["text"]
    assert page.text_content("#status-tabs [data-status=finished]") == "Terminées"
    assert tab.errors == []


def test_with_the_archive_down_the_lobbys_finished_tables_still_show(site, browse):
    tab = browse()
    page = tab.page
    page.route("**/history?*", lambda route: route.fulfill(
        status=503, content_type="application/problem+json",
        body='{"type": "urn:tapis:error:archive_unavailable", "title": "Archive unavailable", "status": 503, '
             '"detail": "the archive of finished games is unavailable; retry shortly", '
             '"code": "archive_unavailable"}'))
    page.goto(site.base + "/")
    page.wait_for_selector("#games li")
    page.click("#status-tabs [data-status=finished]")
    page.wait_for_function("() => document.getElementById('tables-error').textContent !== ''")
    assert [x["table"] for x in shown(page)] == site.live
    assert "archive of finished games is unavailable" in page.text_content("#tables-error")
    assert page.locator("#more").is_visible()  # More asks the history again
    page.unroute("**/history?*")
    page.click("#more")
    page.wait_for_selector("#tables li[data-source=history]")
    assert [x["table"] for x in shown(page)] == site.live + site.archived[1:20]
    assert page.text_content("#tables-error") == ""
    # the page's own console logs the failed request; nothing else went wrong
    assert [e for e in tab.errors if "503" not in e] == []
