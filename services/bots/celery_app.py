"""The Celery app of the bot workers (``tapis bots``).

Broker: ``TAPIS_BROKER_URL``, else ``TAPIS_REDIS_URL``.  The task is thin
(Celery's advice): it runs :func:`services.bots.turn.take_turn` on a
per-process event loop with its own Redis client and table cache.
"""

from __future__ import annotations

import asyncio
import threading

from celery import Celery

from services.config import get_settings

_settings = get_settings()
app = Celery("tapis", broker=_settings.broker_url or _settings.redis_url or "redis://127.0.0.1:6379/0")
app.conf.update(
    task_default_queue="bots",
    task_ignore_result=True,
    task_acks_late=True,
    worker_prefetch_multiplier=4,
    broker_connection_retry_on_startup=True,
    task_serializer="json",
    accept_content=["json"],
)

_local = threading.local()


def _runtime():
    rt = getattr(_local, "rt", None)
    if rt is None:
        from services.gateway.submit import Submitter
        from services.runtime import make_redis
        from services.store.store import EventStore
        from services.store.tables import Tables

        settings = get_settings()
        loop = asyncio.new_event_loop()
        redis = make_redis(settings)
        store = EventStore(redis, command_ttl_s=settings.command_ttl_s)
        rt = (loop, Tables(store, capacity=settings.cache_tables), Submitter(redis, settings.shards))
        _local.rt = rt
    return rt


@app.task(name="tapis.bots.take_turn")
def take_turn_task(table: str, seat: int, version: int) -> str:
    """Celery task: one bot move (see :func:`services.bots.turn.take_turn`)."""
    from services.bots.turn import take_turn

    loop, tables, submitter = _runtime()
    return loop.run_until_complete(take_turn(tables, submitter, table, seat, version))
