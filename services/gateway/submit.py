"""Submitting commands and awaiting the worker's reply.

Each gateway (and each bot runner) has an id and one reply stream
``tapis:replies:<id>``; one listener task reads it (XREAD BLOCK) and
resolves the future of each waiting request by command id.  This needs a
single Redis connection however many requests wait.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid

from redis.asyncio import Redis

from services.health import Heartbeats
from services.store import keys
from services.worker.commands import Command, Reply

log = logging.getLogger("tapis.gateway")


class ReplyTimeout(Exception):
    """No reply in time (the command may still be applied later: retry
    with the same command id to learn its outcome)."""


class Submitter:
    """Puts commands on the shard streams and waits for replies."""

    def __init__(self, redis: Redis, shards: int, *, reply_timeout_s: float = 10.0, listener_redis: Redis | None = None,
                 heartbeats: Heartbeats | None = None):
        self.redis = redis
        self.heartbeats = heartbeats or Heartbeats()
        self.listener_redis = listener_redis or redis
        self.shards = shards
        self.reply_timeout_s = reply_timeout_s
        self.id = uuid.uuid4().hex[:12]
        self.stream = keys.replies(self.id)
        self._waiting: dict[str, asyncio.Future[Reply]] = {}
        self._task: asyncio.Task | None = None
        self._stopping = False

    async def start(self) -> None:
        """Start the reply listener."""
        if self._task is None:
            self._task = asyncio.create_task(self._listen())

    async def stop(self) -> None:
        """Stop the listener and delete this submitter's reply stream."""
        if self._task is not None:
            # Let the blocking XREAD return (≤ 1 s) rather than cancel it:
            # a cancelled blocking read can leave the client waiting.
            self._stopping = True
            try:
                await asyncio.wait_for(asyncio.shield(self._task), 3)
            except (asyncio.TimeoutError, Exception):
                self._task.cancel()
                await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
            self._stopping = False
        try:
            await self.redis.delete(self.stream)
        except Exception:
            pass

    async def _listen(self) -> None:
        last = "0-0"
        while not self._stopping:
            try:
                resp = await self.listener_redis.xread({self.stream: last}, count=500, block=500)
                self.heartbeats.beat("replies")
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 -- Redis away: back off, never die
                log.warning("reply listener failed (%s); retrying", exc.__class__.__name__)
                await asyncio.sleep(0.5)
                continue
            for _s, entries in resp or ():
                for entry_id, fields in entries:
                    last = entry_id
                    try:
                        reply = Reply.unpack(fields[b"m"])
                    except Exception:
                        log.warning("bad reply entry %s", entry_id)
                        continue
                    fut = self._waiting.pop(reply.id, None)
                    if fut is not None and not fut.done():
                        fut.set_result(reply)
            if resp:
                # replies are consumed once; trim what was read
                try:
                    await self.redis.xtrim(self.stream, minid=last, approximate=True)
                except Exception as exc:  # noqa: BLE001 -- trimmed next time
                    log.warning("trimming replies failed (%s)", exc.__class__.__name__)

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
        """Submit one command; with ``wait`` return the worker's reply.

        Raises :class:`ReplyTimeout` when no reply comes in time."""
        cid = command_id or uuid.uuid4().hex
        cmd = Command(table, kind, seat, action, expected, cid, self.id if wait else "", int(time.time() * 1000))
        fut: asyncio.Future[Reply] | None = None
        if wait:
            await self.start()
            fut = asyncio.get_running_loop().create_future()
            # Two requests with the same command id share one reply.
            prev = self._waiting.get(cid)
            if prev is not None and not prev.done():
                fut = prev
            else:
                self._waiting[cid] = fut
        await self.redis.xadd(keys.commands(keys.shard_of(table, self.shards)), cmd.fields())
        if fut is None:
            return None
        try:
            return await asyncio.wait_for(asyncio.shield(fut), self.reply_timeout_s)
        except asyncio.TimeoutError:
            self._waiting.pop(cid, None)
            raise ReplyTimeout(cid) from None
