"""Bots as Celery tasks on the Redis broker (Celery's own test worker):
the worker enqueues `tapis.bots.take_turn`, the task plays through the
command stream, an all-bot table finishes; a stale task is dropped."""

from __future__ import annotations

import asyncio

import pytest

from services.store import keys
from tests.conftest import REAL_REDIS_URL, real_redis_available

pytestmark = pytest.mark.redis


@pytest.fixture
def celery_worker_on_redis(monkeypatch):
    if not real_redis_available():
        pytest.skip("no Redis")
    from celery.contrib.testing.worker import start_worker

    from services.bots import celery_app as mod
    from services.config import get_settings

    monkeypatch.setenv("TAPIS_REDIS_URL", REAL_REDIS_URL)
    monkeypatch.setenv("TAPIS_SHARDS", "2")
    get_settings.cache_clear()
    mod._local.__dict__.clear()
    mod.app.conf.broker_url = REAL_REDIS_URL
    with start_worker(mod.app, pool="solo", perform_ping_check=False, queues=["bots"], shutdown_timeout=10):
        yield mod.app
    get_settings.cache_clear()
    mod._local.__dict__.clear()


async def test_celery_bots_finish_an_all_bot_table(celery_worker_on_redis):
    import httpx
    from redis.asyncio import Redis

    from services.config import Settings
    from services.serve import build_serve_app

    redis = Redis.from_url(REAL_REDIS_URL)
    await redis.flushdb()
    app = build_serve_app(Settings(redis_url=REAL_REDIS_URL, shards=2), redis=redis, bots="celery")
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c:
            r = await c.post("/tables", json={"game": "maumau", "players": 3,
                                              "bots": {"0": "heuristic", "1": "random", "2": "heuristic"}})
            tid = r.json()["id"]
            for _ in range(600):
                info = (await c.get(f"/tables/{tid}")).json()
                if info["status"] == "finished":
                    break
                await asyncio.sleep(0.05)
            assert info["status"] == "finished", info["version"]
            assert len(info["result"]["places"]) == 3
    await redis.aclose()


def test_a_stale_bot_task_is_dropped(celery_worker_on_redis):
    """A task for a version the table has left plays nothing."""
    import redis as sync_redis

    from services.bots.celery_app import take_turn_task

    r = sync_redis.Redis.from_url(REAL_REDIS_URL)
    r.flushdb()
    r.hset(keys.meta("old"), mapping={"game": "toy", "players": 1, "options": "{}", "version": 0,
                                      "status": "playing", "seat:0": "bot:random"})
    assert take_turn_task.apply(args=("old", 0, 7)).get() == "stale"
    assert take_turn_task.apply(args=("nope", 0, 1)).get() == "missing"
