"""The archiver: moves finished tables out of Redis into the archive
(docs/architecture.md, "The archive"; issue 22).

It runs inside the workers' sweeper.  A finished table stays in its
partition's due set (out of the waiting set) until ``archive_after_s``
after its last event; the sweeper claims it with a lease like any due
table, so two workers never archive one table at once and a dead one's
claim runs out.  Then, in this order:

1. read the meta and the whole log (the events' bytes as stored);
2. build the record (:func:`services.archive.model.build_record`: folds the
   log, so a log that does not end the game is never archived) and write it
   (:meth:`Archive.put`: one transaction; an existing row with the same
   digest is taken as written — the retry of an archiver that died);
3. read it back and verify the event count and the digest of the log;
4. only then remove the table's keys from Redis (one script, only while
   the table is still at the archived version) and its lobby entries.

A SIGKILL between any two steps leaves the table in Redis and due: the
next claim starts again at 1 and step 2 writes nothing twice.  A database
error leaves it in Redis and due again ``archive_retry_s`` later; the
unarchived sets (:func:`services.store.keys.unarchived`) let the exporter
say how far behind the archive is.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from services import metrics
from services.archive.db import Archive, ArchiveConflict, ArchiveUnavailable
from services.archive.model import build_record
from services.store.store import EventStore
from services.store.tables import Table, Tables

log = logging.getLogger("tapis.archiver")

#: A table whose archive row conflicts with its log is looked at again
#: this long later (an operator must decide: both copies are kept).
CONFLICT_RETRY_MS = 3_600_000


class Archiver:
    """Archives the finished tables the sweeper hands it (see module doc).

    ``after_ms``: how long after its last event a finished table is
    archived; ``retry_ms``: how long after a failed attempt it is tried
    again; ``now_ms``: the clock (ms since the epoch)."""

    def __init__(self, store: EventStore, tables: Tables, archive: Archive, *, after_ms: int, retry_ms: int,
                 now_ms: Callable[[], int]) -> None:
        self.store = store
        self.tables = tables
        self.archive = archive
        self.after_ms = after_ms
        self.retry_ms = retry_ms
        self.now_ms = now_ms
        self._schema_ready = False

    async def redrive(self, t: Table) -> str:
        """The sweeper's step for a finished table ``t`` (in Redis): archive
        it when ``after_ms`` has passed since its end, else make it due
        then.  Returns ``finished`` (not yet), ``archived``, ``archive_error``
        (left in Redis, due again later) or ``gone``."""
        due = t.last_ts + self.after_ms
        if self.now_ms() < due:
            await self.store.schedule_archive(t.id, t.version, due)
            return "finished"
        return await self.archive_now(t.id)

    async def archive_now(self, table: str) -> str:
        """Archive ``table`` now (steps 1-4 of the module doc), whatever
        its age.  Returns ``archived``, ``archive_error`` or ``gone``; never
        raises for a database error (it is counted and retried later)."""
        t0 = time.perf_counter()
        meta = await self.store.meta(table)
        if meta is None:
            return "gone"
        raw = await self.store.read_raw(table)
        version = int(meta.get("version", 0))
        try:
            if len(raw) != version:
                raise ValueError(f"the log holds {len(raw)} events, the meta says version {version}")
            rec = build_record(table, meta, raw)
        except Exception as exc:  # noqa: BLE001 - a damaged or unfinished log is reported, never archived
            return await self._failed(table, version, "invalid", self.retry_ms, exc)
        try:
            if not self._schema_ready:  # the first archive write of this process migrates the schema
                await self.archive.ensure_schema()
                self._schema_ready = True
            await self.archive.put(rec)
            if not await self.archive.verify(table, rec.digest, len(raw)):
                return await self._failed(table, version, "mismatch", self.retry_ms, None)
        except ArchiveConflict as exc:
            return await self._failed(table, version, "conflict", CONFLICT_RETRY_MS, exc)
        except ArchiveUnavailable as exc:
            return await self._failed(table, version, "unavailable", self.retry_ms, exc)
        dropped = await self.store.drop_archived(table, version, rec.summary.game)
        if dropped == 0:  # appended since: cannot happen to a finished game; keep it and say so
            return await self._failed(table, version, "mismatch", self.retry_ms, None)
        self.tables.drop(table)
        metrics.GAMES_ARCHIVED.labels(rec.summary.game).inc()
        metrics.ARCHIVE_LATENCY.observe(time.perf_counter() - t0)
        return "archived"

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
        for table, _ended in await self.store.unarchived():
            done += await self.archive_now(table) == "archived"
        return done
