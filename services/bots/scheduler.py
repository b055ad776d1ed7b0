"""Schedulers the worker calls when a bot seat is awaited.

* :class:`CeleryBots` enqueues the Celery task ``tapis.bots.take_turn``
  (the distributed set-up: ``tapis bots`` runs the Celery workers).
* :class:`InProcessBots` runs the same turn function on asyncio tasks in
  this process (the embedded ``tapis serve`` with no broker).
"""

from __future__ import annotations

import asyncio
import logging
import random

from services.bots.turn import take_turn
from services.messaging import Submitter
from services.store.tables import Tables

log = logging.getLogger("tapis.bots")


class CeleryBots:
    """Enqueue bot turns as Celery tasks."""

    def __init__(self, celery_app, *, delay_ms: int = 0) -> None:
        self.app = celery_app
        self.delay_ms = delay_ms

    async def schedule(self, table: str, seat: int, version: int, game: str, strategy: str) -> None:
        """Send ``tapis.bots.take_turn(table, seat, version)`` to the broker
        (after ``delay_ms``, so people can follow the bots' moves), from a
        thread: a broker that is down makes kombu retry, which must not
        block the worker's event loop.  Raises the broker's error."""
        await asyncio.to_thread(self.app.send_task, "tapis.bots.take_turn", args=(table, seat, version), queue="bots",
                                countdown=self.delay_ms / 1000 if self.delay_ms else None)


class InProcessBots:
    """Run bot turns on a pool of asyncio tasks in this process."""

    def __init__(self, tables: Tables, submitter: Submitter, *, concurrency: int = 8, delay_ms: int = 0) -> None:
        self.tables = tables
        self.submitter = submitter
        self.delay_ms = delay_ms
        self.queue: asyncio.Queue[tuple[str, int, int]] = asyncio.Queue()
        self._tasks = [asyncio.create_task(self._run()) for _ in range(concurrency)]
        self._rng = random.Random()

    async def schedule(self, table: str, seat: int, version: int, game: str, strategy: str) -> None:
        """Queue one bot turn."""
        self.queue.put_nowait((table, seat, version))

    async def _run(self) -> None:
        while True:
            table, seat, version = await self.queue.get()
            try:
                if self.delay_ms:
                    await asyncio.sleep(self.delay_ms / 1000)
                out = await take_turn(self.tables, self.submitter, table, seat, version, rng=self._rng)
                log.debug("bot turn %s seat %s v%s: %s", table, seat, version, out)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("bot turn failed on %s seat %s", table, seat)

    async def close(self) -> None:
        """Cancel the bot tasks."""
        for t in self._tasks:
            t.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
