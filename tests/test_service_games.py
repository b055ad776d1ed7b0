"""Every registered game plays whole all-bot tables through the embedded
service (gateway + worker + in-process bots over fakeredis), and a
finished table's log replays to the result the API served."""

from __future__ import annotations

import asyncio

import pytest
from fakeredis import FakeServer
from fakeredis.aioredis import FakeRedis

from services.store.store import EventStore
from shared.engine import fold
from shared.games import get_game

CASES = [("maumau", 4, "heuristic"), ("maumau", 2, "random"), ("maudix", 3, "heuristic"), ("dix", 3, "heuristic"),
         ("dix", 1, "heuristic"), ("mauw", 4, "heuristic"), ("maudit_mot_dit", 3, "random")]


@pytest.fixture
async def embedded():
    import httpx

    from services.config import Settings
    from services.serve import build_serve_app

    redis = FakeRedis(server=FakeServer())
    app = build_serve_app(Settings(redis_url=None, shards=2, reply_timeout_s=10), redis=redis)
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://tapis") as client:
            yield client, redis


@pytest.mark.parametrize("game,players,strategy", CASES)
async def test_all_bot_table_finishes_and_replays(embedded, game, players, strategy):
    client, redis = embedded
    r = await client.post("/tables", json={"game": game, "players": players,
                                           "bots": {str(i): strategy for i in range(players)}})
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    for _ in range(1200):
        info = (await client.get(f"/tables/{tid}")).json()
        if info["status"] == "finished":
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError(f"{game} table did not finish: version {info['version']}")
    events = await EventStore(redis).read(tid)
    assert len(events) == info["version"]
    g = get_game(game)
    assert g.result(fold(g, events)).to_json() == info["result"]
    # The spectator feed holds exactly the log's versions, in order.
    feed = (await client.get(f"/tables/{tid}/events", params={"limit": 5000})).json()
    versions = [e["version"] for e in feed["events"]]
    assert versions == sorted(versions) and set(versions) <= set(range(1, info["version"] + 1))
