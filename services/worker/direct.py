"""Deciding in the gateway's process (``TAPIS_DECIDE_IN_GATEWAY``).

:class:`DirectSubmitter` has the :class:`~services.messaging.Submitter`
interface the routes call, but instead of putting the command on a shard
stream and waiting for a worker's reply it runs the worker's own
:meth:`Worker.process <services.worker.worker.Worker.process>` here, on
the gateway's table cache: decide, append with the expected version and
the command id (one Lua script, which also puts the table in its
partition's due set), enqueue bot turns, schedule the exact next due
time.  No command stream, no reply stream, no second process on the
action's path.

What keeps this as safe as the stream path, with the log deciding:

* The append is the only write that matters and it is atomic: a stale
  cache (another gateway or a worker appended first) is a version
  conflict, reloaded and decided again; a command id already applied is
  answered from its record (a client's retry after a crash of this
  gateway gets the same outcome, never a second application).
* Everything after the append (bot turns, the exact due time, a
  snapshot) is what the sweeper of the workers re-drives from the due
  entry the append wrote, if this process dies before doing it.  The
  exact due time costs a call only when the append could not write it
  (:func:`~services.worker.worker.append_due`) and something is to be
  driven (a turn clock's deadline at a table that also seats a bot).
* Commands of one table are decided one at a time in this process (a
  lock per table), as a worker decides one shard's commands in order.

Workers still run: bot moves (Celery or in-process bots put them on the
shard streams), the sweeper, turn clocks.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid

from redis.asyncio import Redis

from services import metrics
from services.config import Settings
from services.health import is_transient
from services.messaging import Command, Reply
from services.store.tables import Tables
from services.worker.worker import BotScheduler, Worker

log = logging.getLogger("tapis.direct")

INTERNAL_ERROR = "internal_error"


class DirectSubmitter:
    """Decides commands in this process: ``send`` returns the
    :class:`Reply` a worker would have sent (same codes, same records).

    Raises what the store raises on a Redis error (the route answers 503;
    resending the same command id is safe)."""

    def __init__(self, redis: Redis, settings: Settings, tables: Tables, *, bots: BotScheduler | None = None) -> None:
        self.worker = Worker(redis, settings, bots=bots, tables=tables, name=f"direct-{uuid.uuid4().hex[:6]}")
        self.id = self.worker.name
        self._locks: dict[str, list] = {}  # table -> [lock, users]

    async def start(self) -> None:
        """Nothing to start (no reply listener)."""

    async def stop(self) -> None:
        """Nothing to stop."""

    async def send(
        self,
        table: str,
        *,
        kind: str = "act",
        seat: int | None = None,
        action: dict | None = None,
        expected: int | None = None,
        command_id: str | None = None,
        wait: bool = True,
    ) -> Reply | None:
        """Decide and append one command; returns its reply (also when
        ``wait`` is false: the caller may ignore it)."""
        cid = command_id or uuid.uuid4().hex
        cmd = Command(table, kind, seat, action, expected, cid, "", int(time.time() * 1000))
        entry = self._locks.get(table)
        if entry is None:
            entry = self._locks[table] = [asyncio.Lock(), 0]
        entry[1] += 1  # requests holding or awaiting this table's lock
        try:
            async with entry[0]:
                return await self._decide(cmd)
        finally:
            entry[1] -= 1
            if not entry[1]:
                del self._locks[table]

    async def _decide(self, cmd: Command) -> Reply:
        deferred: list[tuple[str, int, int | None, int]] = []
        try:
            reply = await self.worker.process(cmd, deferred=deferred)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if is_transient(exc):
                raise  # Redis away: 503, the client resends the same command id
            log.exception("command %s (%s) on %s failed: a bug", cmd.id, cmd.kind, cmd.table)
            metrics.DEAD_LETTERS.inc()
            return Reply(cmd.id, False, 0, INTERNAL_ERROR, "the command could not be processed")
        # The worker asks for no schedule when the append already wrote the
        # exact time (services.worker.worker.append_due).  None (the table
        # waits on a person without a clock) costs no call either: the
        # append's re-drive entry is rewritten by that person's next action
        # or, if none comes within the re-drive time, the sweeper finds
        # nothing to drive and removes it.
        if deferred and deferred[0][2] is not None:
            try:
                await self.worker.store.schedule(*deferred[0])
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("scheduling %s failed; the sweeper re-drives it", cmd.table, exc_info=True)
        self.worker.processed += 1
        return reply
