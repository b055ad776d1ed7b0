"""The all-in-one app of ``tapis serve`` (and ``tapis demo --embedded``):
the gateway with in-process workers and bots around it.

Both :mod:`services.cli` and :mod:`services.demo` build it from here, so
neither imports the other.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os


def build_serve_app(settings, *, workers: int = 1, bots: str = "inprocess", redis=None):
    """The all-in-one app: gateway + ``workers`` in-process workers + bots
    (in-process, or Celery when ``bots == "celery"``, or none).  ``redis``:
    a client to use instead of the one the settings name (tests)."""
    from services.bots.scheduler import CeleryBots, InProcessBots
    from services.gateway.app import create_app
    from services.health import Heartbeats
    from services.messaging import Submitter
    from services.runtime import make_redis
    from services.store.store import EventStore
    from services.store.tables import Tables
    from services.worker.worker import BotScheduler, NoBots, Worker

    redis = redis if redis is not None else make_redis(settings)
    store = EventStore.from_settings(redis, settings)
    tables = Tables.from_settings(store, settings)
    heartbeats = Heartbeats()

    class Bots:
        """The lifespan's bot scheduler, for the gateway's own decisions
        (``decide_in_gateway``) as for the workers'."""

        target: BotScheduler = NoBots()

        async def schedule(self, table: str, seat: int, version: int, game: str, strategy: str) -> None:
            await self.target.schedule(table, seat, version, game, strategy)

    gateway_bots = Bots()

    @contextlib.asynccontextmanager
    async def run_workers(_app):
        stop = asyncio.Event()
        scheduler: BotScheduler = NoBots()
        bot_submitter = None
        if bots == "inprocess":
            bot_submitter = Submitter(redis, settings.shards)
            scheduler = InProcessBots(tables, bot_submitter, delay_ms=settings.bot_delay_ms)
        elif bots == "celery":
            from services.bots.celery_app import app as celery_app

            scheduler = CeleryBots(celery_app, delay_ms=settings.bot_delay_ms)
        gateway_bots.target = scheduler
        ws = [Worker(redis, settings, bots=scheduler, tables=tables if i == 0 else None, archive=tables.archive,
                     heartbeats=heartbeats,
                     name=f"serve-{os.getpid()}-{i}") for i in range(workers)]
        tasks = [asyncio.create_task(w.run(stop)) for w in ws]
        try:
            yield
        finally:
            stop.set()
            gateway_bots.target = NoBots()
            await asyncio.gather(*tasks, return_exceptions=True)
            archiver = ws[0].archiver
            if archiver is not None and settings.redis_url is None:
                # The embedded store is in memory: keep its finished games.
                log = logging.getLogger("tapis.serve")
                try:
                    n = await archiver.flush()
                    if n:
                        log.info("archived %d finished tables before stopping", n)
                except Exception:  # stopping anyway: say what is lost
                    log.exception("archiving the finished tables before stopping failed: those not archived are lost"
                                  " with the embedded store")
            if isinstance(scheduler, InProcessBots):
                await scheduler.close()

    return create_app(settings, redis, tables=tables, extra_lifespan=run_workers, heartbeats=heartbeats,
                      bots=gateway_bots)
