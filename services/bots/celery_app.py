"""The Celery app of the bot workers (``tapis bots``).

Broker: ``TAPIS_BROKER_URL``, else ``TAPIS_REDIS_URL`` (neither: Celery's
in-memory transport; ``tapis bots`` refuses to start without a URL).  The task is thin
(Celery's advice): it runs :func:`services.bots.turn.take_turn` on a
per-process event loop with its own Redis client and table cache.

Reliability settings (Celery's guidance for tasks that must run, each a
``TAPIS_*`` setting): acknowledge late (``TAPIS_BOT_ACKS_LATE``), requeue a
task whose worker process died (``TAPIS_BOT_REJECT_ON_WORKER_LOST``), a
broker visibility timeout longer than any bot turn
(``TAPIS_BOT_VISIBILITY_TIMEOUT_S``), one task reserved at a time
(``TAPIS_BOT_PREFETCH``), and retries with exponential backoff on Redis
errors (``TAPIS_BOT_TASK_RETRIES``).  Whatever Celery loses anyway (a
killed worker holding delayed tasks, a message never delivered), the
workers' sweeper enqueues again after ``TAPIS_REDRIVE_BOT_MS``.
"""

from __future__ import annotations

import asyncio
import threading

from celery import Celery
from redis.exceptions import BusyLoadingError, ConnectionError, ReadOnlyError, TimeoutError

from services.config import get_settings

_settings = get_settings()
# No URL named: Celery's in-memory transport (nothing leaves the process),
# never a Redis nobody named; `tapis bots` refuses to start without one.
app = Celery("tapis", broker=_settings.broker_url or _settings.redis_url or "memory://")
app.conf.update(
    task_default_queue="bots",
    task_ignore_result=True,
    task_acks_late=_settings.bot_acks_late,
    task_reject_on_worker_lost=_settings.bot_reject_on_worker_lost,
    worker_prefetch_multiplier=_settings.bot_prefetch,
    broker_transport_options={"visibility_timeout": _settings.bot_visibility_timeout_s},
    broker_connection_retry_on_startup=True,
    broker_connection_max_retries=None,
    task_serializer="json",
    accept_content=["json"],
)

_local = threading.local()


def _runtime():
    rt = getattr(_local, "rt", None)
    if rt is None:
        from services.messaging import Submitter
        from services.runtime import make_redis
        from services.store.store import EventStore
        from services.store.tables import Tables

        settings = get_settings()
        loop = asyncio.new_event_loop()
        redis = make_redis(settings)
        store = EventStore(redis)
        rt = (loop, Tables(store, capacity=settings.cache_tables), Submitter(redis, settings.shards))
        _local.rt = rt
    return rt


@app.task(name="tapis.bots.take_turn", autoretry_for=(ConnectionError, TimeoutError, BusyLoadingError, ReadOnlyError),
          retry_backoff=True, retry_backoff_max=30, retry_jitter=True, max_retries=_settings.bot_task_retries)
def take_turn_task(table: str, seat: int, version: int) -> str:
    """Celery task: one bot move (see :func:`services.bots.turn.take_turn`);
    retried with backoff when Redis is unreachable."""
    from services.bots.turn import take_turn

    loop, tables, submitter = _runtime()
    return loop.run_until_complete(take_turn(tables, submitter, table, seat, version))
