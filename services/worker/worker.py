"""The command consumer (docs/architecture.md, "The flow of one action").

A :class:`Worker` reads the sharded command streams through the consumer
group ``workers``; for each command it takes the table from its cache
(else snapshot + tail, else full replay), decides, appends the events with
the expected version (one Lua script that also puts the table in its due
set), enqueues bot turns, then schedules the table's exact next due time,
replies to the waiting gateway and XACKs in one pipelined round trip.

* An action's first decision is made on the cached table without reading
  its tail: the append's expected version checks it (another worker's
  append makes it a conflict: reload, decide again), and a refusal or a
  no-op made on it is decided again after reading the tail, so no outcome
  rests on a stale cache.

* Version conflicts (another worker appended first) reload and decide
  again, at most ``conflict_retries`` times.
* A command whose id already has a recorded outcome is answered from the
  record, never applied twice (client retries, reclaimed commands, a bot
  task delivered twice).
* Commands left pending by a dead worker are reclaimed with XAUTOCLAIM
  once idle for ``claim_idle_ms``; entries deleted before they were acked
  are reported in the dead-letter stream and counted.
* The sweeper (:meth:`Worker.sweep_once`) claims due tables with a lease
  and re-drives them (:meth:`Worker.redrive`): re-enqueue the bot turn,
  re-send the start, run out a turn clock.  Re-driving is idempotent: bot
  moves carry the command id ``b<seat>.<version>``, starts ``start`` and
  timeouts ``t.<version>``.
* Faults: a Redis error leaves the command pending for a retry (it is
  never dead-lettered); only an entry that cannot be decoded is.  An
  exception from a game on a well-formed action is a bug: logged with its
  traceback, dead-lettered with the reason, answered ``internal_error``.
  No loop ends on an exception; a loop that cannot complete an iteration
  for ``loop_stall_exit_s`` makes :meth:`Worker.run` return with
  :attr:`Worker.failed` set, and ``tapis worker`` exits non-zero.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import random
import signal
import socket
import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol, cast

import msgpack
from redis.asyncio import Redis
from redis.exceptions import ResponseError
from redis.typing import EncodableT, FieldT

from services import metrics
from services.config import Settings, archive_enabled
from services.health import Heartbeats, is_transient
from services.messaging import Command, CommandDecodeError, Reply
from services.store import keys
from services.store.store import EventStore, Outcome, StreamReads
from services.store.tables import Table, Tables, open_archive
from shared import presence
from shared.engine import BAD_ACTION, GAME_OVER, IllegalAction, same_shape
from shared.events import Event, encode

if TYPE_CHECKING:
    from services.archive.db import Archive
    from services.worker.archiver import Archiver

log = logging.getLogger("tapis.worker")

STALE_VERSION = "stale_version"
NO_SUCH_TABLE = "table_not_found"
NOT_STARTED = "not_started"
BUSY = "too_many_conflicts"
MISMATCH = "idempotency_mismatch"
NOT_A_BOT_SEAT = "not_a_bot_seat"
NOT_DUE = "not_due"
NOT_A_PERSON = "not_a_person"
SEAT_LEFT = "seat_left"
#: The longest wait between two re-drives of the same bot turn.
MAX_REDRIVE_BACKOFF_MS = 300_000


def digest(cmd: Command) -> str:
    """A short digest of what a command asks (kind, seat, action), kept in
    its outcome record so a reused id with another body is refused: 12 hex
    digits (48 bits of BLAKE2b; a reused id with another body passes for
    the same one with odds of 1 in 2**48), the first 12 of the 16 that
    earlier versions recorded (:func:`same_body`)."""
    return _digest16(cmd)[:12]


def _digest16(cmd: Command) -> str:
    raw = msgpack.packb([cmd.kind, cmd.seat, cmd.action], use_bin_type=True)
    return hashlib.blake2b(raw, digest_size=8).hexdigest()


def same_body(recorded: str, cmd: Command) -> bool:
    """Whether a record's digest is ``cmd``'s: :func:`digest`'s 12 digits,
    or the 16 of a record an earlier version wrote (a rolling upgrade)."""
    full = _digest16(cmd)
    return recorded in (full, full[:12])


class BotScheduler(Protocol):
    """Where a worker sends "bot seat S is awaited at version V"."""

    async def schedule(self, table: str, seat: int, version: int, game: str, strategy: str) -> None: ...


class NoBots:
    """A scheduler that drops bot turns (tables without bots, tests)."""

    async def schedule(self, table: str, seat: int, version: int, game: str, strategy: str) -> None:
        return None


def _s(v) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def _ms() -> int:
    return int(time.time() * 1000)


def consumer_name() -> str:
    """A unique consumer name: host-pid-random."""
    return f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"


def next_due(t: Table, now_ms: int, settings: Settings) -> int | None:
    """When the sweeper should next look at table ``t`` (ms since the
    epoch), or None when it waits on nothing the service drives: a bot or
    stand-in turn is re-driven ``bot_delay_ms + redrive_bot_ms`` after
    ``now_ms``; a clocked person's turn is due at its deadline."""
    if t.state is None or t.game.result(t.state) is not None:
        return None
    due: int | None = None
    if any(t.driver(s) is not None for s in t.game.to_act(t.state)):
        due = now_ms + settings.bot_delay_ms + settings.redrive_bot_ms
    deadlines = t.deadlines()
    if deadlines:
        first = min(deadlines.values())
        due = first if due is None else min(due, first)
    return due


def append_due(t: Table, kind: str, last_ts: int, redrive_ms: int) -> int:
    """The due time an append of a ``kind`` command on ``t`` writes (ms
    since the epoch), predicted before its events are folded, so that the
    exact schedule after it (:func:`next_due`) is most often the same and
    costs no call: on a table with a turn clock whose every seat is a
    present person's, a person's move, start or return gives the next
    person's deadline (``last_ts`` + the clock); otherwise the bot re-drive
    time (``last_ts + redrive_ms``).  Never later than what may have to be
    driven: a table where a bot or stand-in may be next gets the re-drive
    time, and a timeout or a leave hands turns to stand-ins."""
    if (t.turn_ms is not None and kind in ("act", "start", "back") and not t.bots and not t.away
            and not t.left):
        return last_ts + t.turn_ms
    return last_ts + redrive_ms


class Worker:
    """One worker process's command loops and sweeper (see module doc)."""

    def __init__(
        self,
        redis: Redis,
        settings: Settings,
        *,
        bots: BotScheduler | None = None,
        tables: Tables | None = None,
        name: str | None = None,
        shards: list[int] | None = None,
        heartbeats: Heartbeats | None = None,
        clock: Callable[[], int] | None = None,
        archive: Archive | None = None,
    ) -> None:
        """``clock``: ms since the epoch (default: the system clock; tests
        pass their own to run turn clocks out without waiting).
        ``archive``: where finished tables go (default: ``tables``' archive,
        else the one the settings name, opened here and closed by :meth:`run`)."""
        self.redis = redis
        self.now_ms = clock or _ms
        self.settings = settings
        self.store = EventStore.from_settings(redis, settings)
        archive = archive or (tables.archive if tables is not None else None)
        self._own_archive = archive is None and archive_enabled(settings)
        if self._own_archive:
            archive = open_archive(settings)
        self.tables = tables or Tables.from_settings(self.store, settings, archive=archive)
        #: Moves finished tables into the archive (None: no TAPIS_ARCHIVE_URL).
        self.archiver: Archiver | None = None
        if archive is not None:
            from services.worker.archiver import Archiver

            self.archiver = Archiver(self.store, self.tables, archive, after_ms=settings.archive_after_s * 1000,
                                     retry_ms=settings.archive_retry_s * 1000, now_ms=self.now_ms)
        self.bots = bots or NoBots()
        self.name = name or consumer_name()
        self.shards = shards if shards is not None else list(range(settings.shards))
        self.processed = 0
        self.failed = False
        self.heartbeats = heartbeats or Heartbeats()
        self._rng = random.SystemRandom()
        self._appends_awaiting_bots = 0

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
        """Consume until ``stop`` is set: one loop per shard, the
        reclaimer, the sweeper and a watchdog.  When a loop stalls longer
        than ``loop_stall_exit_s`` the watchdog sets :attr:`failed` and
        stops the rest."""
        stop = stop or asyncio.Event()
        await self._until_ok(self.ensure_groups, stop, "create the consumer groups")
        reclaim_s = max(self.settings.claim_idle_ms / 2000, 0.05)
        sweep_s = self.settings.sweep_interval_ms / 1000
        limit = self.settings.loop_stall_exit_s
        # A periodic loop beats once a period: its limit allows one period more.
        limits = {f"shard:{s}": limit for s in self.shards} | {"reclaim": limit + reclaim_s, "sweep": limit + sweep_s}
        for n in limits:
            self.heartbeats.beat(n)
        loops = [asyncio.create_task(self._shard_loop(s, stop)) for s in self.shards]
        loops.append(asyncio.create_task(self._every(stop, reclaim_s, "reclaim", self._reclaim_tick)))
        loops.append(asyncio.create_task(self._every(stop, sweep_s, "sweep", self._sweep_tick)))
        watchdog = asyncio.create_task(self._watchdog(stop, limits))
        try:
            await stop.wait()
        finally:
            # The loops see ``stop`` when their blocking read returns (≤ 1 s);
            # cancel only what is still running after that.
            watchdog.cancel()
            done, pending = await asyncio.wait(loops, timeout=3)
            for t in pending:
                t.cancel()
            await asyncio.gather(watchdog, *loops, return_exceptions=True)
            try:  # bounded: a hung Redis must not keep a failed worker from exiting
                await asyncio.wait_for(self.redis.zrem(keys.WORKERS, self.name), 2)
            except Exception:  # noqa: BLE001 -- leaving anyway; the entry ages out
                pass
            if self._own_archive and self.archiver is not None:
                await self.archiver.archive.close()

    async def _until_ok(self, step, stop: asyncio.Event, what: str) -> None:
        delay = 0.1
        while not stop.is_set():
            try:
                await step()
                return
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 -- Redis not there yet: wait for it
                log.warning("cannot %s yet (%s); retrying", what, exc.__class__.__name__)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 2.0)

    async def _watchdog(self, stop: asyncio.Event, limits: dict[str, float]) -> None:
        while not stop.is_set():
            await asyncio.sleep(min(1.0, min(limits.values()) / 4))
            ages = self.heartbeats.ages()
            stalled = [n for n, limit in limits.items() if ages.get(n, 0.0) > limit]
            if stalled:
                log.critical("loops %s made no progress for %.0f s or more: exiting for a restart", ", ".join(stalled),
                             self.settings.loop_stall_exit_s)
                self.failed = True
                stop.set()
                return

    async def _shard_loop(self, shard: int, stop: asyncio.Event) -> None:
        stream = keys.commands(shard)
        beat = f"shard:{shard}"
        delay = 0.1
        while not stop.is_set():
            try:
                resp = cast(StreamReads, await self.redis.xreadgroup(keys.GROUP, self.name, {stream: ">"}, count=64,
                                                                     block=500))
                for _stream, entries in resp or ():
                    # Different tables' commands run concurrently (each waits
                    # on Redis round trips); one table's stay in order.
                    by_table: dict[bytes, list] = {}
                    for entry_id, fields in entries:
                        by_table.setdefault(fields.get(b"t", b""), []).append((entry_id, fields))
                    await asyncio.gather(*(self._handle_in_order(stream, items) for items in by_table.values()))
                self.heartbeats.beat(beat)
                delay = 0.1
            except asyncio.CancelledError:
                raise
            except ResponseError as exc:
                if "NOGROUP" in str(exc):  # Redis came back without our group: make it again
                    log.warning("consumer group missing on %s; creating it", stream)
                    await self._until_ok(self.ensure_groups, stop, "create the consumer groups")
                    continue
                log.exception("reading %s failed", stream)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
            except Exception:
                log.warning("reading %s failed; backing off %.1f s", stream, delay, exc_info=True)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)

    async def _handle_in_order(self, stream: str, items: list) -> None:
        for entry_id, fields in items:
            await self.handle(stream, entry_id, fields)

    async def _every(self, stop: asyncio.Event, period_s: float, beat: str, tick) -> None:
        """Run ``tick`` every ``period_s`` until ``stop``; errors are logged
        and retried at the next period, never fatal."""
        while not stop.is_set():
            try:
                await asyncio.wait_for(stop.wait(), period_s)
                return
            except TimeoutError:
                pass
            try:
                await tick()
                self.heartbeats.beat(beat)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("%s failed; retrying in %.1f s", beat, period_s, exc_info=True)

    async def _reclaim_tick(self) -> None:
        await self.reclaim_once()
        await self.trim_once()

    async def _sweep_tick(self) -> None:
        await self.heartbeat()
        await self.sweep_once()

    async def heartbeat(self) -> None:
        """Record this worker as alive in ``tapis:workers`` (its score is
        the time in ms); entries older than an hour are pruned."""
        now = self.now_ms()
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zadd(keys.WORKERS, {self.name: now})
            pipe.zremrangebyscore(keys.WORKERS, "-inf", now - 3_600_000)
            await pipe.execute()

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
        shard and process them; returns how many.  Entries deleted from the
        stream before they were acked (Redis drops them from the pending
        list and names them in XAUTOCLAIM's third element) are reported in
        the dead-letter stream and counted."""
        n = 0
        for shard in self.shards:
            stream = keys.commands(shard)
            start = "0-0"
            while True:
                res = await self.redis.xautoclaim(
                    stream, keys.GROUP, self.name, min_idle_time=self.settings.claim_idle_ms, start_id=start, count=100
                )
                start, entries = res[0], res[1]
                for entry_id in res[2] if len(res) > 2 else ():
                    await self._report_lost(stream, entry_id)
                for entry_id, fields in entries:
                    if fields is None:  # deleted meanwhile (Redis < 7)
                        await self._report_lost(stream, entry_id)
                        await self.redis.xack(stream, keys.GROUP, entry_id)
                        continue
                    metrics.COMMANDS_RECLAIMED.inc()
                    n += 1
                    await self.handle(stream, entry_id, fields, reclaimed=True)
                if start in (b"0-0", "0-0") or not entries:
                    break
        return n

    async def _report_lost(self, stream: str, entry_id: Any) -> None:
        metrics.COMMANDS_LOST.inc()
        log.error("command %s of %s was deleted before it was acknowledged; its client got no reply", _s(entry_id),
                  stream)
        await self.redis.xadd(keys.DEAD_LETTERS, {b"reason": b"deleted before acknowledged", b"stream": stream.encode(),
                                                  b"entry": _s(entry_id).encode()}, maxlen=100_000, approximate=True)

    # -- one command ------------------------------------------------------
    async def handle(self, stream: str, entry_id: Any, fields: dict[bytes, bytes], *, reclaimed: bool = False) -> None:
        """Process one stream entry, reply, XACK.  Never raises on bad
        input; a Redis error leaves the entry pending (it raises, or is
        counted as deferred) so that it is retried."""
        try:
            cmd = Command.parse(fields)
        except CommandDecodeError as exc:
            await self._dead_letter(stream, entry_id, fields, str(exc))
            return
        if cmd.ts:
            metrics.COMMAND_LAG.observe(max(0.0, time.time() - cmd.ts / 1000))
        deferred: list[tuple[str, int, int | None, int]] = []
        try:
            reply = await self.process(cmd, reclaimed=reclaimed, deferred=deferred)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if is_transient(exc):
                metrics.COMMANDS_DEFERRED.inc()
                log.warning("command %s on %s deferred: %s (left pending for a retry)", cmd.id, cmd.table,
                            exc.__class__.__name__)
                return
            log.exception("command %s (%s) on %s failed: a bug", cmd.id, cmd.kind, cmd.table)
            await self._dead_letter(stream, entry_id, fields, f"crash: {exc.__class__.__name__}: {exc}"[:500])
            if cmd.reply_to:
                await self._reply(cmd, Reply(cmd.id, False, 0, "internal_error", "the command could not be processed"))
            return
        # One round trip: the table's exact next due time (the append put a
        # re-drive time there, so a crash before this changes nothing but
        # when the sweeper looks), the reply, the XACK.
        async with self.redis.pipeline(transaction=False) as pipe:
            scheduled = self.store.schedule_in(pipe, *deferred[0]) if deferred else False
            if cmd.reply_to:
                pipe.xadd(keys.replies(cmd.reply_to), {"m": replace(reply, table=cmd.table).pack()}, maxlen=10_000,
                          approximate=True)
            pipe.xack(stream, keys.GROUP, entry_id)
            results = await pipe.execute(raise_on_error=False)
        if deferred and (not scheduled or isinstance(results[0], Exception)):
            try:  # not in the pipeline (a Redis Cluster), or the script was not loaded
                await self.store.schedule(*deferred[0])
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("scheduling %s failed; the sweeper re-drives it", cmd.table, exc_info=True)
        for r in results[1:] if scheduled else results:
            if isinstance(r, Exception):
                raise r
        self.processed += 1

    async def _reply(self, cmd: Command, reply: Reply) -> None:
        await self.redis.xadd(keys.replies(cmd.reply_to), {"m": replace(reply, table=cmd.table).pack()}, maxlen=10_000,
                              approximate=True)

    async def _dead_letter(self, stream: str, entry_id: Any, fields: dict[bytes, bytes], reason: str) -> None:
        metrics.DEAD_LETTERS.inc()
        log.warning("dead letter %s from %s: %s", entry_id, stream, reason)
        dl: dict[FieldT, EncodableT] = {b"reason": reason.encode(), b"stream": stream.encode(),
                                        b"entry": str(entry_id).encode()}
        for k, v in fields.items():
            dl[b"f:" + (k if isinstance(k, bytes) else str(k).encode())] = v
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.xadd(keys.DEAD_LETTERS, dl, maxlen=100_000, approximate=True)
            pipe.xack(stream, keys.GROUP, entry_id)
            await pipe.execute()

    async def process(self, cmd: Command, *, reclaimed: bool = False,
                      deferred: list[tuple[str, int, int | None, int]] | None = None) -> Reply:
        """Decide and append one command; returns the reply to send.
        Raises on Redis errors and on game bugs (see :meth:`handle`).
        ``deferred``: where to put the exact schedule of the table
        (:meth:`EventStore.schedule`'s arguments) for the caller to send
        with the reply, instead of sending it here."""
        if reclaimed:
            out = await self.store.outcome(cmd.table, cmd.id)
            if out is not None:
                # The worker that applied it may have died before the bot
                # turns were enqueued: look at the table now.
                await self.redrive(cmd.table)
                return await self._from_record(cmd, out)
        # The first decision may be made on the cached table without reading
        # its tail: the append's expected version verifies it (a conflict
        # reloads); a refusal or a no-op is decided again on the log.
        unverified = cmd.kind in ("act", "bot", "timeout")
        attempt = 0
        while attempt < self.settings.conflict_retries:
            t0 = time.perf_counter()
            table = self.tables.peek_started(cmd.table) if unverified else None
            if table is None:
                unverified = False
                table = await self.tables.get(cmd.table, refresh_meta=cmd.kind in ("start", "back", "leave"))
            if table is None:
                return Reply(cmd.id, False, 0, NO_SUCH_TABLE, "no such table")
            game = table.game
            now = self.now_ms()
            try:
                try:
                    events = self._decide(table, cmd, now)
                except IllegalAction:
                    raise
                except Exception:
                    if not unverified:
                        raise  # a game's bug (see handle)
                    # Perhaps only a stale cache: decide again on the log.
                    unverified = False
                    continue
            except IllegalAction as exc:
                if unverified:
                    unverified = False
                    continue
                # Already applied (a retry, a reclaimed command)?  Then the
                # record answers; else the refusal stands (nothing recorded:
                # nothing was applied).
                out = await self.store.outcome(cmd.table, cmd.id)
                if out is not None:
                    metrics.COMMANDS_DUPLICATE.labels(cmd.kind).inc()
                    return await self._from_record(cmd, out)
                metrics.ACTIONS_REJECTED.labels(game.name, exc.code).inc()
                return Reply(cmd.id, False, 0, exc.code, exc.message)
            if not events:  # idempotent start of a started table, back while present
                if unverified:
                    unverified = False
                    continue
                return Reply(cmd.id, True, table.version)
            unverified = False
            attempt += 1
            events = [e.stamped(now, cmd.id) for e in events]
            from_version = table.version
            status = "playing" if cmd.kind == "start" else ""
            # A seat left: its token hash goes in the same step as the event.
            meta = {f"seat:{e.data['seat']}": f"bot:{e.data['strategy']}" for e in events
                    if e.type == presence.SEAT_LEFT}
            written = append_due(table, cmd.kind, now, self.store.redrive_ms)
            res = await self.store.append(cmd.table, from_version, cmd.id, events, status=status, digest=digest(cmd),
                                          meta=meta, due_ms=written)
            if res.status == "ok":
                self.tables.advance(table, from_version, events)
                metrics.APPLY_LATENCY.labels(game.name).observe(time.perf_counter() - t0)
                metrics.ACTIONS_APPLIED.labels(game.name).inc()
                await self._after_append(table, cmd, res.version, events, now, deferred, written)
                return Reply(cmd.id, True, res.version, events=[encode(e) for e in events])
            if res.status == "dup":
                assert res.outcome is not None
                metrics.COMMANDS_DUPLICATE.labels(cmd.kind).inc()
                return await self._from_record(cmd, res.outcome)
            if res.status == "missing":
                return Reply(cmd.id, False, 0, NO_SUCH_TABLE, "no such table")
            metrics.CONFLICTS.labels(game.name).inc()
            self.tables.drop(cmd.table)
        return Reply(cmd.id, False, 0, BUSY, "the table is too busy; try again")

    def _decide(self, table: Table, cmd: Command, now_ms: int) -> list[Event]:
        """The events of ``cmd`` on ``table``.  An exception from the game
        on an action that is not shaped like any of the seat's legal
        actions is a malformed action (``bad_action``); on a well-formed
        one it is a bug and propagates."""
        try:
            return self._decide_raw(table, cmd, now_ms)
        except IllegalAction:
            raise
        except Exception:
            if cmd.kind in ("act", "bot") and cmd.seat is not None and table.state is not None:
                legal = table.game.legal_actions(table.state, cmd.seat)
                if not same_shape(cmd.action, legal):
                    log.warning("malformed action on %s (%s)", table.game.name, cmd.table)
                    raise IllegalAction(BAD_ACTION, "the action is malformed; send one of your legal_actions") from None
            raise

    def _decide_raw(self, table: Table, cmd: Command, now_ms: int) -> list[Event]:
        game = table.game
        if cmd.kind == "start":
            if table.started:
                return []
            if not table.full:
                raise IllegalAction(NOT_STARTED, "the table still has free seats")
            rng = random.Random(self._rng.getrandbits(64))
            return game.start(game.Options(**table.options), table.players, rng)
        if not table.started:
            raise IllegalAction(NOT_STARTED, "the game has not started: seats are still free")
        if cmd.expected is not None and cmd.expected != table.version:
            raise IllegalAction(STALE_VERSION, f"expected version {cmd.expected}, the table is at {table.version}")
        if cmd.kind == "timeout":
            return self._timeouts(table, now_ms)
        if cmd.seat is None:
            raise IllegalAction(BAD_ACTION, "this command needs a seat")
        seat = cmd.seat
        if seat in table.left and cmd.kind in ("act", "back", "leave"):
            raise IllegalAction(SEAT_LEFT, "this seat was left: a bot plays it for good and its token is revoked")
        if cmd.kind == "leave":
            if seat not in table.humans:
                raise IllegalAction(NOT_A_PERSON, "only a person's seat can be left")
            if game.is_over(table.state):
                raise IllegalAction(GAME_OVER, "the game is over")
            return [presence.left(seat, table.stand_in)]
        if cmd.kind == "back":
            if seat not in table.humans:
                raise IllegalAction(NOT_A_PERSON, "only a person's seat can be taken back")
            if game.is_over(table.state):
                raise IllegalAction(GAME_OVER, "the game is over")
            return [presence.returned(seat)] if seat in table.away else []
        if cmd.action is None:
            raise IllegalAction(BAD_ACTION, "an action needs a body")
        if cmd.kind == "bot" and table.driver(seat) is None:
            raise IllegalAction(NOT_A_BOT_SEAT, "no bot plays this seat now")
        rng = random.Random(self._rng.getrandbits(64))
        events = game.decide(table.state, seat, cmd.action, rng)
        if cmd.kind == "act" and seat in table.away:
            return [presence.returned(seat), *events]
        return events

    def _timeouts(self, table: Table, now_ms: int) -> list[Event]:
        """``TurnTimedOut`` for every clocked seat whose deadline passed."""
        if table.game.result(table.state) is not None:
            raise IllegalAction("game_over", "the game is over")
        expired = sorted((s, d) for s, d in table.deadlines().items() if now_ms >= d)
        if not expired:
            raise IllegalAction(NOT_DUE, "no turn clock has run out")
        return [presence.timed_out(s, d) for s, d in expired]

    async def _after_append(self, table: Table, cmd: Command, version: int, events: list[Event], now: int,
                            deferred: list[tuple[str, int, int | None, int]] | None = None,
                            written: int | None = None) -> None:
        """Bookkeeping after an applied command: counters, status, bot
        turns, the table's exact next due time (put in ``deferred`` when
        given, for :meth:`handle` to send with the reply; nothing when it
        is ``written``, the time the append wrote), a snapshot.  Never raises:
        the command is applied whatever happens here, and the due entry the
        append wrote makes the sweeper finish what this could not."""
        game = table.game
        try:
            for e in events:
                if e.type == presence.TURN_TIMED_OUT:
                    metrics.TURN_TIMEOUTS.labels(game.name).inc()
                elif e.type == presence.SEAT_RETURNED:
                    metrics.SEATS_RETURNED.labels(game.name).inc()
                elif e.type == presence.SEAT_LEFT:
                    metrics.SEATS_LEFT.labels(game.name, "playing").inc()
            if cmd.kind == "start":
                metrics.TABLES_STARTED.labels(game.name).inc()
                await self.redis.hincrby(keys.STATS, f"active:{game.name}", 1)
                await self.store.reindex(table.id)  # the append made it "playing"
            if table.version < version:  # the cache dropped out of step: reload it
                table = await self.tables.get(table.id) or table
            if table.version != version:  # a later append exists: its worker schedules the table
                return
            if game.result(table.state) is not None:
                await self.store.set_status(table.id, "finished", table.last_ts)
                table.status = "finished"
                metrics.GAMES_FINISHED.labels(game.name).inc()
                await self.redis.hincrby(keys.STATS, f"active:{game.name}", -1)
                if not self.store.archiving:
                    await self.store.schedule(table.id, version, None, table.last_ts)
                else:  # due for the archiver
                    await self.store.schedule_archive(table.id, version,
                                                      table.last_ts + self.settings.archive_after_s * 1000)
            else:
                bots = self._bot_turns(table)
                if bots and self.settings.chaos_kill_after_append:
                    self._appends_awaiting_bots += 1
                    if self._appends_awaiting_bots == self.settings.chaos_kill_after_append:
                        log.critical("chaos hook: killing this worker between an append and its bot enqueue")
                        os.kill(os.getpid(), signal.SIGKILL)
                for seat, strategy in bots:
                    await self.bots.schedule(table.id, seat, version, game.name, strategy)
                exact = next_due(table, now, self.settings)
                due = (table.id, version, exact, table.last_ts)
                if exact is not None and exact == written:
                    pass  # the append wrote the exact time already
                elif deferred is None:
                    await self.store.schedule(*due)
                else:
                    deferred.append(due)
            await self.tables.maybe_snapshot(table, self.settings.snapshot_every)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.warning("after-append steps of %s on %s failed; the sweeper will finish them", cmd.id, table.id,
                        exc_info=True)

    @staticmethod
    def _bot_turns(table: Table) -> list[tuple[int, str]]:
        """(seat, strategy) of every bot turn to enqueue now: awaited bot
        seats and seats left for good (optional moves included) and away
        seats the game waits for."""
        state, game = table.state, table.game
        out = []
        required = game.to_act(state)
        for seat in sorted(game.awaiting(state)):
            strategy = table.bots.get(seat)
            if strategy is None and (seat in required or seat in table.left):
                strategy = table.driver(seat)
            if strategy is not None:
                out.append((seat, strategy))
        return out

    async def _from_record(self, cmd: Command, out: Outcome) -> Reply:
        if out.digest and not same_body(out.digest, cmd):
            return Reply(cmd.id, False, 0, MISMATCH, "this command id was already used for another action")
        events = await self.store.read(cmd.table, after=out.first - 1, until=out.last)
        return Reply(cmd.id, True, out.last, events=[encode(e) for e in events])

    # -- the sweeper ------------------------------------------------------
    async def sweep_once(self, now_ms: int | None = None) -> int:
        """Claim the due tables of every partition (with a lease of
        ``sweep_lease_ms``) and re-drive each; returns how many."""
        now = now_ms or self.now_ms()
        claimed = await self.store.claim_due_all(now, self.settings.sweep_lease_ms)
        if claimed:
            metrics.DUE_CLAIMED.inc(len(claimed))
            if self.archiver is None:
                results = await asyncio.gather(*(self.redrive(t) for t in claimed), return_exceptions=True)
            else:  # the finished ones among them are archived together (Archiver.sweep)
                self.archiver.sweep(len(claimed))
                results = await asyncio.gather(*(self.archiver.in_sweep(self.redrive(t)) for t in claimed),
                                               return_exceptions=True)
            for table, r in zip(claimed, results, strict=True):
                if isinstance(r, BaseException) and not isinstance(r, asyncio.CancelledError):
                    log.warning("re-driving %s failed (%s); its lease runs out and it is tried again", table,
                                r.__class__.__name__, exc_info=r if not is_transient(r) else None)
        return len(claimed)

    async def redrive(self, table_id: str) -> str:
        """Look at one table and do what it waits for: start it, enqueue
        its bot and stand-in turns again, run out expired turn clocks; then
        schedule its next due time.  Idempotent (see module doc).  Returns
        what was done: ``gone``, ``idle``, ``start``, ``finished``,
        ``archived``, ``archive_error``,
        ``timeout``, ``bot`` or ``waiting``."""
        t = await self.tables.get(table_id, refresh_meta=True)
        if t is None or t.archived:
            await self.store.unschedule(table_id)
            return "gone"
        if not t.started:
            if not t.full:
                await self.store.schedule(table_id, 0, None, 0)
                metrics.REDRIVEN.labels("idle").inc()
                return "idle"
            metrics.REDRIVEN.labels("start").inc()
            reply = await self.process(Command(table_id, "start", None, None, None, "start", "", self.now_ms()))
            if not reply.ok and reply.code != BUSY:
                log.error("table %s cannot start (%s: %s)", table_id, reply.code, reply.message)
                await self.store.schedule(table_id, 0, None, 0)
            return "start"
        if t.game.result(t.state) is not None:
            await self.store.set_status(table_id, "finished", t.last_ts)  # again: the first may have died half-way
            if self.archiver is not None:
                return await self.archiver.redrive(t)
            await self.store.schedule(table_id, t.version, None, t.last_ts)
            return "finished"
        now = self.now_ms()
        if any(now >= d for d in t.deadlines().values()):
            metrics.REDRIVEN.labels("timeout").inc()
            await self.process(Command(table_id, "timeout", None, None, t.version, f"t.{t.version}", "", now))
            return "timeout"
        version = t.version
        did = "waiting"
        for seat in sorted(t.game.to_act(t.state)):
            strategy = t.driver(seat)
            if strategy is not None:
                metrics.REDRIVEN.labels("bot").inc()
                await self.bots.schedule(table_id, seat, version, t.game.name, strategy)
                did = "bot"
        due = next_due(t, now, self.settings)
        if did == "waiting":
            metrics.REDRIVEN.labels("idle").inc()
        elif due is not None:
            # Back off: the next re-drive of this turn waits as long as the
            # turn has already waited (capped), so a slow bot queue is not
            # flooded with copies of the same turn.
            waited = max(0, now - t.last_ts)
            due = max(due, now + min(waited, MAX_REDRIVE_BACKOFF_MS))
        await self.store.schedule(table_id, version, due, t.last_ts)
        return did


__all__ = ["Worker", "BotScheduler", "NoBots", "consumer_name", "next_due", "STALE_VERSION", "NO_SUCH_TABLE",
           "NOT_STARTED", "BUSY", "MISMATCH", "NOT_A_BOT_SEAT", "NOT_DUE", "NOT_A_PERSON", "SEAT_LEFT", "digest",
           "same_body"]
