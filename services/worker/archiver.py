"""The archiver: moves finished tables out of Redis into the archive
(docs/architecture.md, "The archive"; issue 22).

It runs inside the workers' sweeper.  A finished table stays in its
partition's due set (out of the waiting set) until ``archive_after_s``
after its last event; the sweeper claims it with a lease like any due
table, so two workers never archive one table at once and a dead one's
claim runs out.  The finished tables of one sweep (its re-drives run
concurrently) are archived together: each joins the pending batch
(:meth:`Archiver.archive_soon`), which is archived when no table has
joined it for :data:`LINGER_S` (at most :data:`MAX_LINGER_S`, at most
:data:`BATCH_MAX` tables).  For a batch, in this order:

1. read every table's meta and whole log (the events' bytes as stored),
   one pipelined Redis round trip;
2. build each record (:func:`services.archive.model.build_record`: folds
   the log, so a log that does not end the game is never archived) and its
   blob (:func:`~services.archive.db.pack_log`), in a thread, and write
   them (:meth:`Archive.put_many`: one transaction for the batch; an
   existing row with the same digest is taken as written — the retry of an
   archiver that died; one with another digest is a conflict for that
   table alone);
3. read them back (one ``SELECT``) and verify each one's event count,
   digest and blob (:meth:`Archive.verify_many`);
4. only then remove each verified table's keys from Redis (one script a
   table, pipelined; only while the table is still at the archived
   version) and its lobby entries.

Each table is archived or not on its own.  A SIGKILL between any two steps
leaves the tables not yet removed in Redis and due: the next claim starts
again at 1 and step 2 writes nothing twice.  A database error leaves the
whole batch in Redis and due again ``archive_retry_s`` later; the
unarchived sets (:func:`services.store.keys.unarchived`) let the exporter
say how far behind the archive is.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from services import metrics
from services.archive.db import Archive, ArchiveConflict, ArchiveRejected, ArchiveUnavailable, pack_log
from services.archive.model import ArchivedGame, build_record
from services.store.store import EventStore
from services.store.tables import Table, Tables

log = logging.getLogger("tapis.archiver")
T = TypeVar("T")
#: The sweep slot of the running re-drive (see :meth:`Archiver.in_sweep`).
_SLOT: contextvars.ContextVar[list[bool] | None] = contextvars.ContextVar("archiver_sweep_slot", default=None)

#: A table whose archive row conflicts with its log is looked at again
#: this long later (an operator must decide: both copies are kept).
CONFLICT_RETRY_MS = 3_600_000
#: The most tables archived in one batch (one transaction).
BATCH_MAX = 200
#: A batch waits for every re-drive of a running sweep (:meth:`Archiver.sweep`)
#: to join it or end, then this long (s) for more tables after the last
#: one joined it, and at most :data:`MAX_LINGER_S` in all.
LINGER_S = 0.002
MAX_LINGER_S = 0.5
#: Batches archived at once by one archiver (the next one's reads and
#: records overlap the database time of the one before).
BATCHES_AT_ONCE = 2


class Archiver:
    """Archives the finished tables the sweeper hands it (see module doc).

    ``after_ms``: how long after its last event a finished table is
    archived; ``retry_ms``: how long after a failed attempt it is tried
    again; ``now_ms``: the clock (ms since the epoch); ``batch_max``: the
    most tables archived together; ``linger_s``: how long a batch waits
    for more tables after the last one joined it (at most ``max_linger_s``
    in all)."""

    def __init__(self, store: EventStore, tables: Tables, archive: Archive, *, after_ms: int, retry_ms: int,
                 now_ms: Callable[[], int], batch_max: int = BATCH_MAX, linger_s: float = LINGER_S,
                 max_linger_s: float = MAX_LINGER_S) -> None:
        self.store = store
        self.tables = tables
        self.archive = archive
        self.after_ms = after_ms
        self.retry_ms = retry_ms
        self.now_ms = now_ms
        self.batch_max = batch_max
        self.linger_s = linger_s
        self.max_linger_s = max_linger_s
        self._schema_ready = False
        #: Tables waiting for the next batch: table -> the futures of their callers.
        self._pending: dict[str, list[asyncio.Future[str]]] = {}
        self._collector: asyncio.Task[None] | None = None
        self._running: set[asyncio.Task[None]] = set()
        self._batches = asyncio.Semaphore(BATCHES_AT_ONCE)
        #: Re-drives of running sweeps that have neither joined a batch nor ended.
        self._expected = 0
        self._arrived = asyncio.Event()

    def sweep(self, n: int) -> None:
        """A sweep is about to run ``n`` re-drives, each through
        :meth:`in_sweep`: the pending batch waits for each of them to join
        it or end (at most ``max_linger_s``) rather than for a quiet
        ``linger_s``."""
        self._expected += n

    async def in_sweep(self, redrive: Awaitable[T]) -> T:
        """Run one re-drive of a sweep announced with :meth:`sweep`."""
        slot = [False]  # joined a batch: counted there
        token = _SLOT.set(slot)
        try:
            return await redrive
        finally:
            _SLOT.reset(token)
            if not slot[0]:
                self._left()

    def _left(self) -> None:
        self._expected -= 1
        self._arrived.set()

    async def redrive(self, t: Table) -> str:
        """The sweeper's step for a finished table ``t`` (in Redis): archive
        it when ``after_ms`` has passed since its end (with the other
        tables that reach this point meanwhile: :meth:`archive_soon`), else
        make it due then.  Returns ``finished`` (not yet), ``archived``,
        ``archive_error`` (left in Redis, due again later) or ``gone``."""
        due = t.last_ts + self.after_ms
        if self.now_ms() < due:
            await self.store.schedule_archive(t.id, t.version, due)
            return "finished"
        return await self.archive_soon(t.id)

    async def archive_soon(self, table: str) -> str:
        """Archive ``table`` in the next batch: it is put with the tables
        other tasks hand in until every re-drive of a running sweep has
        joined or ended and then none has come for ``linger_s`` (or
        ``max_linger_s`` has passed, or ``batch_max`` are waiting), and
        those are archived together (:meth:`archive_batch`).  Returns as
        :meth:`archive_now`; raises what the batch raised (not a database
        error: those are counted and retried later)."""
        fut: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._pending.setdefault(table, []).append(fut)
        slot = _SLOT.get()
        if slot is not None and not slot[0]:
            slot[0] = True
            self._left()
        if self._collector is None:
            self._collector = asyncio.create_task(self._collect())
        return await fut

    async def _collect(self) -> None:
        """Wait for the batch to fill (see :meth:`archive_soon`), then hand
        it to a task of its own; the next table starts the next batch."""
        loop = asyncio.get_running_loop()
        try:
            deadline = loop.time() + self.max_linger_s
            seen = 0
            while len(self._pending) < self.batch_max and loop.time() < deadline:
                if self._expected > 0:  # a sweep's re-drives still on their way: wait for the next
                    self._arrived.clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._arrived.wait(), deadline - loop.time())
                    continue
                if len(self._pending) == seen:
                    break
                seen = len(self._pending)
                await asyncio.sleep(self.linger_s)
        except asyncio.CancelledError:  # shutting down: the callers are told, their tables stay due
            self._collector = None
            pending, self._pending = self._pending, {}
            for futs in pending.values():
                for f in futs:
                    f.cancel()
            raise
        self._collector = None
        pending, self._pending = self._pending, {}
        if len(pending) > self.batch_max:  # the rest starts the next batch at once
            items = list(pending.items())
            pending = dict(items[:self.batch_max])
            self._pending = dict(items[self.batch_max:])
            self._collector = asyncio.create_task(self._collect())
        task = asyncio.create_task(self._run_batch(pending))
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    async def _run_batch(self, pending: dict[str, list[asyncio.Future[str]]]) -> None:
        try:
            async with self._batches:
                outcomes = await self.archive_batch(list(pending))
        except asyncio.CancelledError:
            for futs in pending.values():
                for f in futs:
                    f.cancel()
            raise
        except BaseException as exc:  # noqa: BLE001 - handed to every caller, raised where it awaits
            for futs in pending.values():
                for f in futs:
                    if not f.done():
                        f.set_exception(exc)
            return
        for table, futs in pending.items():
            for f in futs:
                if not f.done():
                    f.set_result(outcomes[table])

    async def archive_now(self, table: str) -> str:
        """Archive ``table`` now, alone (steps 1-4 of the module doc),
        whatever its age.  Returns ``archived``, ``archive_error`` or
        ``gone``; never raises for a database error (it is counted and
        retried later)."""
        return (await self.archive_batch([table]))[table]

    async def archive_batch(self, tables: list[str]) -> dict[str, str]:
        """Archive ``tables`` (distinct ids) now, together (steps 1-4 of the
        module doc, each step once for all of them: one Redis round trip
        reads them, one database transaction writes them, one ``SELECT``
        verifies them, one pipeline drops them).  Each table is archived or
        not on its own: table -> ``archived``, ``archive_error`` (left in
        Redis, due again later) or ``gone``.  Never raises for a database
        error (every table of the batch is left in Redis, counted and
        retried later)."""
        t0 = time.perf_counter()
        out: dict[str, str] = {}
        found = await self.store.read_many(tables)
        # the CPU of the batch (decode and fold, pack and compress) in a thread: the
        # worker's loop goes on serving commands meanwhile
        built = await asyncio.to_thread(_build_all, tables, found)
        todo: list[tuple[ArchivedGame, int]] = []  # (record, version)
        blobs: list[bytes] = []
        for table, (version, made) in zip(tables, built, strict=True):
            if made is None:
                out[table] = "gone"
            elif isinstance(made, Exception):
                out[table] = await self._failed(table, version, "invalid", self.retry_ms, made)
            else:
                todo.append((made[0], version))
                blobs.append(made[1])
        if not todo:
            return out
        try:
            if not self._schema_ready:  # the first archive write of this process migrates the schema
                await self.archive.ensure_schema()
                self._schema_ready = True
            written = await self.archive.put_many([rec for rec, _v in todo], blobs)
            stored = [(rec, v, blob) for (rec, v), blob, w in zip(todo, blobs, written, strict=True)
                      if w != "conflict"]
            ok = await self.archive.verify_many({rec.summary.table: (rec.digest, rec.summary.events, blob)
                                                 for rec, _v, blob in stored}) if stored else {}
        except ArchiveRejected as exc:
            if len(todo) > 1:  # one table's row may be the cause: each on its own, the others go through
                for rec, _v in todo:
                    out.update(await self.archive_batch([rec.summary.table]))
                return out
            rec, v = todo[0]
            out[rec.summary.table] = await self._failed(rec.summary.table, v, "invalid", self.retry_ms, exc)
            return out
        except ArchiveUnavailable as exc:  # the whole batch stays in Redis (one line a table, as the runbook greps)
            for rec, v in todo:
                out[rec.summary.table] = await self._failed(rec.summary.table, v, "unavailable", self.retry_ms, exc)
            return out
        for (rec, v), w in zip(todo, written, strict=True):
            if w == "conflict":
                clash = ArchiveConflict(f"table {rec.summary.table} is archived with another log")
                out[rec.summary.table] = await self._failed(rec.summary.table, v, "conflict", CONFLICT_RETRY_MS,
                                                            clash)
        verified = [(rec, v) for rec, v, _b in stored if ok[rec.summary.table]]
        for rec, v, _b in stored:
            if not ok[rec.summary.table]:
                out[rec.summary.table] = await self._failed(rec.summary.table, v, "mismatch", self.retry_ms, None)
        dropped = await self.store.drop_archived_many([(rec.summary.table, v, rec.summary.game)
                                                       for rec, v in verified])
        elapsed = time.perf_counter() - t0
        for (rec, v), d in zip(verified, dropped, strict=True):
            table = rec.summary.table
            if d == 0:  # appended since: cannot happen to a finished game; keep it and say so
                out[table] = await self._failed(table, v, "mismatch", self.retry_ms, None)
                continue
            self.tables.drop(table)
            metrics.GAMES_ARCHIVED.labels(rec.summary.game).inc()
            metrics.ARCHIVE_LATENCY.observe(elapsed)
            out[table] = "archived"
        return out

    async def _failed(self, table: str, version: int, reason: str, retry_ms: int, exc: BaseException | None) -> str:
        metrics.ARCHIVE_ERRORS.labels(reason).inc()
        level = logging.WARNING if reason == "unavailable" else logging.ERROR
        log.log(level, "archiving %s failed (%s: %s); it stays in Redis and is tried again in %d s", table, reason,
                exc.__class__.__name__ if exc else "verification", retry_ms // 1000)
        await self.store.schedule_archive(table, version, self.now_ms() + retry_ms)
        return "archive_error"

    async def flush(self) -> int:
        """Archive every finished table not archived yet, now (a graceful
        stop of the embedded ``tapis serve``, whose Redis is in memory).
        Returns how many were archived."""
        done = 0
        found = [table for table, _ended in await self.store.unarchived()]
        for i in range(0, len(found), self.batch_max):
            outcomes = await self.archive_batch(found[i:i + self.batch_max])
            done += sum(o == "archived" for o in outcomes.values())
        return done


def _build_all(tables: list[str], found: list[tuple[dict[str, str] | None, list[bytes]]],
               ) -> list[tuple[int, tuple[ArchivedGame, bytes] | Exception | None]]:
    """``(version, (record, blob) | the error | None: no table)`` of each
    table, from its meta and raw log (blocking: CPU only)."""
    out: list[tuple[int, tuple[ArchivedGame, bytes] | Exception | None]] = []
    for table, (meta, raw) in zip(tables, found, strict=True):
        if meta is None:
            out.append((0, None))
            continue
        version = int(meta.get("version", 0))
        try:
            if len(raw) != version:
                raise ValueError(f"the log holds {len(raw)} events, the meta says version {version}")
            rec = build_record(table, meta, raw)
            out.append((version, (rec, pack_log(rec.log))))
        except Exception as exc:  # noqa: BLE001 - a damaged or unfinished log is reported, never archived
            out.append((version, exc))
    return out
