"""The lobby index (issue 12): one index per game and status, newest
first, paged with a cursor, so that no flood of other tables hides one;
indexes repaired when found out of step; tables that never filled expire,
finished ones are removed after their retention."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from services.config import Settings
from services.serve import build_serve_app
from services.store import keys


async def _pages(client, **params) -> tuple[list[str], int]:
    """Every table id the lobby lists for ``params``, following `Link`
    headers; and how many pages it took."""
    ids: list[str] = []
    url, pages = "/tables", 0
    query: dict | None = params
    while url:
        r = await client.get(url, params=query)
        assert r.status_code == 200, r.text
        ids += [t["id"] for t in r.json()]
        pages += 1
        nxt = r.links.get("next")
        url, query = (nxt["url"].replace("http://tapis", ""), None) if nxt else ("", None)
    return ids, pages


async def _finished(service, t: str) -> None:
    for _ in range(300):
        if (await service.get(f"/tables/{t}")).json()["status"] == "finished":
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"{t} did not finish")


async def test_pages_reach_every_table_of_each_status(service):
    finished = []
    for _ in range(7):
        r = await service.post("/tables", json={"game": "toy", "players": 1, "bots": {"0": "first"},
                                                "options": {"target": 3}})
        finished.append(r.json()["id"])
    waiting = [(await service.post("/tables", json={"game": "toy", "players": 2})).json()["id"] for _ in range(25)]
    for t in finished:
        await _finished(service, t)
    ids, pages = await _pages(service, status="finished", limit=3)
    assert sorted(ids) == sorted(finished) and pages == 3
    ids, _ = await _pages(service, status="waiting", game="toy", limit=4)
    # Newest first, each once; tables created in the same millisecond come
    # in descending id order (the index's score is the creation time).
    created = {t: (await service.get(f"/tables/{t}")).json()["created"] for t in waiting}
    assert ids == sorted(waiting, key=lambda t: (created[t], t), reverse=True)
    assert [created[t] for t in ids] == sorted(created.values(), reverse=True)
    assert len(set(created.values())) > 1
    ids, _ = await _pages(service, limit=10)
    assert sorted(ids) == sorted(finished + waiting)
    assert (await service.get("/tables", params={"game": "maumau"})).json() == []


async def test_a_bad_cursor_is_refused(service):
    for cursor in ("x", "12", "1.a b", "9" * 20 + ".a"):
        r = await service.get("/tables", params={"cursor": cursor})
        assert (r.status_code, r.json()["code"]) == (422, "invalid_request"), cursor


async def test_an_index_out_of_step_is_repaired_by_its_reader(service):
    t = (await service.post("/tables", json={"game": "toy", "players": 2})).json()["id"]
    redis = service.app.state.ctx.redis
    # as if a process died between two writes: indexed as finished, not as waiting
    await redis.zrem(keys.lobby("toy", "waiting"), t)
    await redis.zadd(keys.lobby("toy", "finished"), {t: 1})
    assert (await service.get("/tables", params={"status": "finished", "game": "toy"})).json() == []
    assert [x["id"] for x in (await service.get("/tables", params={"status": "waiting", "game": "toy"})).json()] == [t]
    assert await redis.zscore(keys.lobby("toy", "finished"), t) is None


@pytest.fixture
async def short_lived(redis_client):
    settings = Settings(redis_url=None, shards=2, rate_limits=False, waiting_expiry_s=1, finished_retention_s=1)
    app = build_serve_app(settings, redis=redis_client)
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://tapis") as client:
            client.app = app  # type: ignore[attr-defined]
            yield client


async def test_unfilled_tables_expire_and_finished_ones_are_removed_after_retention(short_lived):
    c = short_lived
    waiting = (await c.post("/tables", json={"game": "toy", "players": 2})).json()["id"]
    full = (await c.post("/tables", json={"game": "toy", "players": 2})).json()["id"]
    done = (await c.post("/tables", json={"game": "toy", "players": 1, "bots": {"0": "first"},
                                          "options": {"target": 3}})).json()["id"]
    await c.post(f"/tables/{full}/join")
    await c.post(f"/tables/{full}/join")  # full: playing, no longer expires
    await _finished(c, done)
    await asyncio.sleep(1.5)
    assert (await c.get(f"/tables/{waiting}")).status_code == 404
    assert (await c.get(f"/tables/{done}")).status_code == 404
    assert (await c.get(f"/tables/{done}/events")).status_code == 404
    assert (await c.get(f"/tables/{full}")).json()["status"] == "playing"
    assert [t["id"] for t in (await c.get("/tables")).json()] == [full]
    redis = c.app.state.ctx.redis
    assert await redis.zscore(keys.lobby(), waiting) is None  # the reader took it out
    assert await redis.exists(keys.events(done)) == 0


def test_a_burst_of_1000_creates_is_limited_and_the_lobby_still_pages_to_every_table(live_server):
    port, _ = live_server
    base = f"http://127.0.0.1:{port}"
    created, codes = [], []
    t0 = time.monotonic()
    with httpx.Client(base_url=base, timeout=10) as client:
        for _ in range(1000):
            r = client.post("/tables", json={"game": "toy", "players": 2})
            codes.append(r.status_code)
            if r.status_code == 201:
                created.append(r.json()["id"])
        burst_s = time.monotonic() - t0
        assert set(codes) == {201, 429}
        assert len(created) == 100 or burst_s > 60  # 100 a minute from one address
        ids: list[str] = []
        url = "/tables?status=waiting&game=toy&limit=30"
        while url:
            r = client.get(url)
            ids += [t["id"] for t in r.json()]
            url = r.links.get("next", {}).get("url", "")
    assert set(created) <= set(ids) and len(ids) == len(set(ids))
