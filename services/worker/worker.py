"""The command consumer (design.md §4).

A :class:`Worker` reads the sharded command streams through the consumer
group ``workers``; for each command it rebuilds the table (cache, then
snapshot + tail, then full replay), asks the game to ``decide``, appends
the events with the expected version (one Lua script), replies to the
waiting gateway, enqueues bot turns for awaited bot seats and XACKs.

* Version conflicts (another worker appended first) reload and decide
  again, at most ``conflict_retries`` times.
* A command whose id already has a recorded outcome is answered from the
  record, never applied twice (client retries, reclaimed commands).
* Commands left pending by a dead worker are reclaimed with XAUTOCLAIM
  once idle for ``claim_idle_ms``.
* An entry that cannot be decoded goes to the dead-letter stream
  ``tapis:deadletters`` with the reason; the loop never crashes on input.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import random
import socket
import time
import uuid
from typing import Any, Protocol

import msgpack
from redis.asyncio import Redis
from redis.exceptions import ResponseError

from services import metrics
from services.config import Settings
from services.store import keys
from services.store.store import EventStore, Outcome
from services.store.tables import Table, Tables
from services.worker.commands import Command, CommandDecodeError, Reply
from shared.engine import IllegalAction
from shared.events import Event, encode

log = logging.getLogger("tapis.worker")

STALE_VERSION = "stale_version"
NO_SUCH_TABLE = "table_not_found"
NOT_STARTED = "not_started"
BUSY = "too_many_conflicts"
MISMATCH = "idempotency_mismatch"


def digest(cmd: Command) -> str:
    """A short digest of what a command asks (kind, seat, action), kept in
    its outcome record so a reused id with another body is refused."""
    raw = msgpack.packb([cmd.kind, cmd.seat, cmd.action], use_bin_type=True)
    return hashlib.blake2b(raw, digest_size=8).hexdigest()


class BotScheduler(Protocol):
    """Where a worker sends "bot seat S is awaited at version V"."""

    async def schedule(self, table: str, seat: int, version: int, game: str, strategy: str) -> None: ...


class NoBots:
    """A scheduler that drops bot turns (tables without bots, tests)."""

    async def schedule(self, table: str, seat: int, version: int, game: str, strategy: str) -> None:
        return None


def _s(v) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def consumer_name() -> str:
    """A unique consumer name: host-pid-random."""
    return f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"


class Worker:
    """One worker process's command loop (see module doc)."""

    def __init__(
        self,
        redis: Redis,
        settings: Settings,
        *,
        bots: BotScheduler | None = None,
        tables: Tables | None = None,
        name: str | None = None,
        shards: list[int] | None = None,
    ) -> None:
        self.redis = redis
        self.settings = settings
        self.store = EventStore(redis, command_ttl_s=settings.command_ttl_s)
        self.tables = tables or Tables(self.store, capacity=settings.cache_tables)
        self.bots = bots or NoBots()
        self.name = name or consumer_name()
        self.shards = shards if shards is not None else list(range(settings.shards))
        self.processed = 0
        self._rng = random.SystemRandom()

    # -- setup ------------------------------------------------------------
    async def ensure_groups(self) -> None:
        """Create the consumer group on every command stream (idempotent)."""
        for shard in range(self.settings.shards):
            try:
                await self.redis.xgroup_create(keys.commands(shard), keys.GROUP, id="0", mkstream=True)
            except ResponseError as exc:
                if "BUSYGROUP" not in str(exc):
                    raise

    async def run(self, stop: asyncio.Event | None = None) -> None:
        """Consume until ``stop`` is set: one loop per shard plus the
        reclaimer."""
        stop = stop or asyncio.Event()
        await self.ensure_groups()
        loops = [asyncio.create_task(self._shard_loop(s, stop)) for s in self.shards]
        loops.append(asyncio.create_task(self._reclaim_loop(stop)))
        try:
            await stop.wait()
        finally:
            # The loops see ``stop`` when their blocking read returns (≤ 1 s);
            # cancel only what is still running after that.
            done, pending = await asyncio.wait(loops, timeout=3)
            for t in pending:
                t.cancel()
            await asyncio.gather(*loops, return_exceptions=True)

    async def _shard_loop(self, shard: int, stop: asyncio.Event) -> None:
        stream = keys.commands(shard)
        while not stop.is_set():
            try:
                resp = await self.redis.xreadgroup(keys.GROUP, self.name, {stream: ">"}, count=64, block=500)
            except asyncio.CancelledError:
                raise
            except Exception:  # connection blips: back off, never die
                log.exception("xreadgroup failed on %s", stream)
                await asyncio.sleep(0.5)
                continue
            for _stream, entries in resp or ():
                # Different tables' commands run concurrently (each waits on
                # Redis round trips); one table's stay in order.
                by_table: dict[bytes, list] = {}
                for entry_id, fields in entries:
                    by_table.setdefault(fields.get(b"t", b""), []).append((entry_id, fields))
                await asyncio.gather(*(self._handle_in_order(stream, items) for items in by_table.values()))

    async def _handle_in_order(self, stream: str, items: list) -> None:
        for entry_id, fields in items:
            await self.handle(stream, entry_id, fields)

    async def _reclaim_loop(self, stop: asyncio.Event) -> None:
        idle = self.settings.claim_idle_ms
        while not stop.is_set():
            try:
                await asyncio.wait_for(stop.wait(), max(idle / 2000, 0.05))
                return
            except asyncio.TimeoutError:
                pass
            try:
                await self.reclaim_once()
                await self.trim_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("reclaim failed")

    async def trim_once(self) -> None:
        """Drop command entries every consumer is done with: below both the
        group's last-delivered id and the oldest pending entry (XTRIM
        MINID), so the command streams do not grow for ever."""
        for shard in self.shards:
            stream = keys.commands(shard)
            groups = await self.redis.xinfo_groups(stream)
            group = next((g for g in groups if _s(g.get("name")) == keys.GROUP), None)
            if group is None:
                continue
            floor = _s(group.get("last-delivered-id", "0-0"))
            pending = await self.redis.xpending(stream, keys.GROUP)
            if pending.get("pending"):
                oldest = _s(pending["min"])
                floor = min(floor, oldest, key=lambda i: tuple(int(x) for x in i.split("-")))
            if floor != "0-0":
                await self.redis.xtrim(stream, minid=floor, approximate=False)

    async def reclaim_once(self) -> int:
        """Take over commands idle longer than ``claim_idle_ms`` on every
        shard and process them; returns how many."""
        n = 0
        for shard in self.shards:
            stream = keys.commands(shard)
            start = "0-0"
            while True:
                res = await self.redis.xautoclaim(
                    stream, keys.GROUP, self.name, min_idle_time=self.settings.claim_idle_ms, start_id=start, count=100
                )
                start, entries = res[0], res[1]
                for entry_id, fields in entries:
                    if fields is None:  # deleted meanwhile
                        await self.redis.xack(stream, keys.GROUP, entry_id)
                        continue
                    metrics.COMMANDS_RECLAIMED.inc()
                    n += 1
                    await self.handle(stream, entry_id, fields, reclaimed=True)
                if start in (b"0-0", "0-0") or not entries:
                    break
        return n

    # -- one command ------------------------------------------------------
    async def handle(self, stream: str, entry_id: Any, fields: dict[bytes, bytes], *, reclaimed: bool = False) -> None:
        """Process one stream entry, reply, XACK.  Never raises on bad input."""
        try:
            cmd = Command.parse(fields)
        except CommandDecodeError as exc:
            await self._dead_letter(stream, entry_id, fields, str(exc))
            return
        if cmd.ts:
            metrics.COMMAND_LAG.observe(max(0.0, time.time() - cmd.ts / 1000))
        try:
            reply = await self.process(cmd, reclaimed=reclaimed)
        except Exception as exc:  # a bug in a game must not kill the loop
            log.exception("command %s on %s failed", cmd.id, cmd.table)
            await self._dead_letter(stream, entry_id, fields, f"crash: {exc.__class__.__name__}")
            if cmd.reply_to:
                await self._reply(cmd, Reply(cmd.id, False, 0, "internal_error", "the command could not be processed"))
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            if cmd.reply_to:
                pipe.xadd(keys.replies(cmd.reply_to), {"m": reply.pack()}, maxlen=10_000, approximate=True)
            pipe.xack(stream, keys.GROUP, entry_id)
            await pipe.execute()
        self.processed += 1

    async def _reply(self, cmd: Command, reply: Reply) -> None:
        await self.redis.xadd(keys.replies(cmd.reply_to), {"m": reply.pack()}, maxlen=10_000, approximate=True)

    async def _dead_letter(self, stream: str, entry_id: Any, fields: dict[bytes, bytes], reason: str) -> None:
        metrics.DEAD_LETTERS.inc()
        log.warning("dead letter %s from %s: %s", entry_id, stream, reason)
        dl = {b"reason": reason.encode(), b"stream": stream.encode(), b"entry": str(entry_id).encode()}
        for k, v in fields.items():
            dl[b"f:" + (k if isinstance(k, bytes) else str(k).encode())] = v
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.xadd(keys.DEAD_LETTERS, dl, maxlen=100_000, approximate=True)
            pipe.xack(stream, keys.GROUP, entry_id)
            await pipe.execute()

    async def process(self, cmd: Command, *, reclaimed: bool = False) -> Reply:
        """Decide and append one command; returns the reply to send."""
        if reclaimed:
            out = await self.store.outcome(cmd.table, cmd.id)
            if out is not None:
                return await self._from_record(cmd, out)
        for _attempt in range(self.settings.conflict_retries):
            t0 = time.perf_counter()
            table = await self.tables.get(cmd.table, refresh_meta=cmd.kind == "start")
            if table is None:
                return Reply(cmd.id, False, 0, NO_SUCH_TABLE, "no such table")
            game = table.game.name
            try:
                events = self._decide(table, cmd)
            except IllegalAction as exc:
                # Already applied (a retry, a reclaimed command)?  Then the
                # record answers; else the refusal stands (nothing recorded:
                # nothing was applied).
                out = await self.store.outcome(cmd.table, cmd.id)
                if out is not None:
                    return await self._from_record(cmd, out)
                metrics.ACTIONS_REJECTED.labels(game, exc.code).inc()
                return Reply(cmd.id, False, 0, exc.code, exc.message)
            if not events:  # idempotent start of a started table
                return Reply(cmd.id, True, table.version)
            now = int(time.time() * 1000)
            events = [e.stamped(now, cmd.id) for e in events]
            from_version = table.version
            status = ""
            if cmd.kind == "start":
                status = "playing"
            res = await self.store.append(cmd.table, from_version, cmd.id, events, status=status, digest=digest(cmd))
            if res.status == "ok":
                self.tables.advance(table, from_version, events)
                metrics.APPLY_LATENCY.labels(game).observe(time.perf_counter() - t0)
                metrics.ACTIONS_APPLIED.labels(game).inc()
                await self._after_append(table, cmd, from_version)
                return Reply(cmd.id, True, res.version, events=[encode(e) for e in events])
            if res.status == "dup":
                assert res.outcome is not None
                return await self._from_record(cmd, res.outcome)
            if res.status == "missing":
                return Reply(cmd.id, False, 0, NO_SUCH_TABLE, "no such table")
            metrics.CONFLICTS.labels(game).inc()
            self.tables.drop(cmd.table)
        return Reply(cmd.id, False, 0, BUSY, "the table is too busy; try again")

    def _decide(self, table: Table, cmd: Command) -> list[Event]:
        """The game's decision, with malformed input turned into refusals:
        a game that trips over an odd action (a list where a string was
        expected) refuses it as ``bad_action`` instead of crashing."""
        try:
            return self._decide_raw(table, cmd)
        except IllegalAction:
            raise
        except (TypeError, KeyError, ValueError, AttributeError, IndexError) as exc:
            if cmd.kind == "start":
                raise IllegalAction("bad_options", "these options cannot start a game") from None
            log.warning("malformed action on %s (%s): %s", table.game.name, cmd.table, exc.__class__.__name__)
            raise IllegalAction("bad_action", "the action is malformed; send one of your legal_actions") from None

    def _decide_raw(self, table: Table, cmd: Command) -> list[Event]:
        game = table.game
        rng = random.Random(self._rng.getrandbits(64))
        if cmd.kind == "start":
            if table.started:
                return []
            if len(table.bots) + len(table.humans) < table.players:
                raise IllegalAction(NOT_STARTED, "the table still has free seats")
            return game.start(game.Options(**table.options), table.players, rng)
        if not table.started:
            raise IllegalAction(NOT_STARTED, "the game has not started: seats are still free")
        if cmd.expected is not None and cmd.expected != table.version:
            raise IllegalAction(STALE_VERSION, f"expected version {cmd.expected}, the table is at {table.version}")
        if cmd.seat is None or cmd.action is None:
            raise IllegalAction("bad_action", "an action needs a seat and a body")
        return game.decide(table.state, cmd.seat, cmd.action, rng)

    async def _after_append(self, table: Table, cmd: Command, from_version: int) -> None:
        game = table.game
        if cmd.kind == "start":
            metrics.TABLES_STARTED.labels(game.name).inc()
            await self.redis.hincrby(keys.STATS, f"active:{game.name}", 1)
        if game.result(table.state) is not None:
            await self.store.set_status(table.id, "finished")
            table.status = "finished"
            metrics.GAMES_FINISHED.labels(game.name).inc()
            await self.redis.hincrby(keys.STATS, f"active:{game.name}", -1)
        else:
            for seat in sorted(game.awaiting(table.state)):
                strategy = table.bots.get(seat)
                if strategy is not None:
                    await self.bots.schedule(table.id, seat, table.version, game.name, strategy)
        await self.tables.maybe_snapshot(table, self.settings.snapshot_every)

    async def _from_record(self, cmd: Command, out: Outcome) -> Reply:
        if out.digest and out.digest != digest(cmd):
            return Reply(cmd.id, False, 0, MISMATCH, "this command id was already used for another action")
        events = await self.store.read(cmd.table, after=out.first - 1, until=out.last)
        return Reply(cmd.id, True, out.last, events=[encode(e) for e in events])


__all__ = ["Worker", "BotScheduler", "NoBots", "consumer_name", "STALE_VERSION", "NO_SUCH_TABLE", "NOT_STARTED", "BUSY", "MISMATCH", "digest"]
