"""Rebuilding a table's state: in-process cache → snapshot + tail → full
replay (docs/architecture.md, "The flow of one action", step 3).  Used by
workers, gateways and bot workers alike.  A table no longer in Redis is
read from the archive (``TAPIS_ARCHIVE_URL``) when there is one: the same
:class:`Table`, folded from the archived log, which it keeps
(:meth:`Tables.read` serves feeds from it).

A :class:`Table` is the projection of one table held in memory: its game,
meta, folded state and version.  :meth:`Tables.get` always reads the tail
of the log after the cached version (one XRANGE), so a cached state is
never stale when a decision is made on it.  :meth:`Tables.peek_started`
skips that read for a worker whose decision the append's expected
version verifies (``services.worker.worker``).
"""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from services import metrics
from services.store.store import EventStore
from shared import snapshot
from shared.engine import Game
from shared.events import Event, decode
from shared.games import get_game
from shared.presence import SEAT_LEFT, TABLE_EVENTS
from shared.presence import apply as apply_presence

if TYPE_CHECKING:
    from services.archive.db import Archive


@dataclass(slots=True)
class Table:
    """One table in memory.  ``bots``: seat -> strategy name; ``humans``:
    seat -> token hash (sha256 hex) for the joined human seats.

    Turn clock (meta): ``turn_ms`` (None: no clock), ``stand_in`` (the
    strategy that plays for an away seat).  Folded from the log beside
    the game's state: ``away`` (seats whose turn clock ran out and whose
    person has not come back), ``left`` (seats whose person left the
    started table: the stand-in plays them for good, their token is
    refused) and ``last_ts`` (ms of the last event)."""

    id: str
    game: Game
    players: int
    options: dict[str, Any]
    state: Any
    version: int
    snap_version: int = 0
    bots: dict[int, str] = field(default_factory=dict)
    humans: dict[int, str] = field(default_factory=dict)
    names: dict[int, str] = field(default_factory=dict)
    status: str = "waiting"
    created: int = 0
    turn_ms: int | None = None
    stand_in: str = "heuristic"
    away: frozenset[int] = frozenset()
    left: frozenset[int] = frozenset()
    last_ts: int = 0
    #: True for a table read from the archive (it left Redis): its state
    #: is final, its log is read from the archive (:meth:`Tables.read`).
    archived: bool = False

    @property
    def started(self) -> bool:
        """True once the opening events are in the log."""
        return self.version > 0

    @property
    def full(self) -> bool:
        """True when every seat is a bot's or a person's."""
        return len(self.bots) + len(self.humans) >= self.players

    def driver(self, seat: int) -> str | None:
        """The strategy that plays ``seat`` now: the bot's, the stand-in of
        an away person or of a seat left for good, or None (a person plays
        it)."""
        strategy = self.bots.get(seat)
        if strategy is None and (seat in self.away or seat in self.left):
            return self.stand_in
        return strategy

    def deadlines(self) -> dict[int, int]:
        """Seat -> deadline (ms since the epoch) of each seat the game
        waits for that a present person plays under a turn clock."""
        if self.turn_ms is None or self.state is None or self.version == 0:
            return {}
        deadline = self.last_ts + self.turn_ms
        return {s: deadline for s in self.game.to_act(self.state)
                if s in self.humans and s not in self.away and s not in self.left}


def parse_meta(table: str, meta: dict[str, str]) -> Table:
    """Build an (unstarted, state-less) :class:`Table` from a meta hash.

    Raises ``shared.games.UnknownGame`` for an unregistered game."""
    players = int(meta["players"])
    t = Table(
        id=table,
        game=get_game(meta["game"]),
        players=players,
        options=json.loads(meta.get("options") or "{}"),
        state=None,
        version=0,
        status=meta.get("status", "waiting"),
        created=int(meta.get("created", 0)),
        turn_ms=int(meta["turn_ms"]) if meta.get("turn_ms") else None,
        stand_in=meta.get("stand_in") or "heuristic",
    )
    for i in range(players):
        who = meta.get(f"seat:{i}")
        if who is None:
            continue
        if who.startswith("bot:"):
            t.bots[i] = who[4:]
        elif who.startswith("tok:"):
            t.humans[i] = who[4:]
        t.names[i] = meta.get(f"name:{i}", "")
    return t


#: How many archived tables' logs a :class:`Tables` keeps in memory.
ARCHIVED_LOGS = 64


def open_archive(settings: Any) -> Archive | None:
    """The archive ``settings.archive_url`` names (``postgresql://…``,
    ``sqlite:///…``), or None when it names none (unset, empty or
    ``none``)."""
    from services.config import archive_enabled

    if not archive_enabled(settings):
        return None
    from services.archive.db import Archive

    return Archive(settings.archive_url.strip())


class Tables:
    """LRU cache of :class:`Table` projections over an :class:`EventStore`,
    falling through to ``archive`` (an :class:`services.archive.db.Archive`,
    or None) for a table no longer in Redis."""

    @classmethod
    def from_settings(cls, store: EventStore, settings: Any, *, archive: Archive | None = None) -> Tables:
        """The cache ``settings`` describe (``cache_tables``, ``archive_after_s``)
        over ``store``, falling through to ``archive`` (default: the one
        ``settings.archive_url`` names, opened here)."""
        if archive is None:
            archive = open_archive(settings)
        return cls(store, capacity=settings.cache_tables, archive=archive,
                   archive_after_ms=settings.archive_after_s * 1000)

    def __init__(self, store: EventStore, *, capacity: int = 10_000, archive: Archive | None = None,
                 archive_after_ms: int = 0) -> None:
        """``archive_after_ms``: the archiver's ``TAPIS_ARCHIVE_AFTER_S``
        (ms): a cached table whose last event is older may have been
        archived by another process meanwhile, so :meth:`get` asks Redis
        whether it is still there (0: at every read)."""
        self.store = store
        self.capacity = capacity
        self.archive = archive
        self.archive_after_ms = archive_after_ms
        #: The logs of the archived tables read last (raw event bytes), so a
        #: feed's pages do not read the archive each; few: a log is ~10-40 KiB.
        self._logs: OrderedDict[str, tuple[bytes, ...]] = OrderedDict()
        self._cache: OrderedDict[str, Table] = OrderedDict()

    async def get(self, table: str, *, refresh_meta: bool = False) -> Table | None:
        """The table brought up to date with its log, or None if unknown.

        ``refresh_meta`` re-reads seats and status (joins change them)."""
        t0 = time.perf_counter()
        t = self._cache.get(table)
        if t is not None and t.archived:
            self._cache.move_to_end(table)
            return t  # archived: final, nothing in Redis to read
        source = "cache"
        retention = self.store.finished_retention_s
        if t is not None and t.started:
            idle_ms = time.time() * 1000 - t.last_ts
            if retention and idle_ms > retention * 1000 and t.game.is_over(t.state):
                refresh_meta = True  # past its retention its keys may be gone: ask Redis
            elif self.archive is not None and idle_ms >= self.archive_after_ms:
                # Old enough to have been archived by another process (this
                # copy may be behind: its last event is no later than the
                # table's): ask Redis, which no longer has it then.
                refresh_meta = True
        seats_before_start = False  # seats read from a meta of a table not started yet
        if t is None or refresh_meta or not t.started:
            meta = await self.store.meta(table)
            if meta is None:
                self._cache.pop(table, None)  # removed (expired or archived) since it was cached
                return await self._from_archive(table, t0)
            seats_before_start = int(meta.get("version", 0)) == 0
            fresh = parse_meta(table, meta)
            if t is None:
                t = fresh
                if int(meta.get("version", 0)) > 0:
                    source = await self._cold_load(t)
                else:
                    source = "replay"
            else:
                # Update seats and status in place: the state object stays
                # owned by this one Table (a worker may hold it mid-command).
                t.bots, t.humans, t.names, t.status = fresh.bots, fresh.humans, fresh.names, fresh.status
        before = t.version
        tail = await self.store.read(table, after=before)
        # While the read awaited, a worker in this process may have folded
        # some of these events already (advance): fold only the rest.
        tail = tail[t.version - before:]
        if tail:
            self._fold(t, tail)
            if source == "cache" and t.version > len(tail):
                source = "cache+tail"
        if seats_before_start and t.started:
            # The start came after the meta was read: a seat may have been
            # left and taken by someone else in between.  The seats are
            # final once the cards are dealt (only a SeatLeft, folded from
            # the log, changes one after that): read them again.
            meta = await self.store.meta(table)
            if meta is not None:
                fresh = parse_meta(table, meta)
                t.bots, t.humans, t.names, t.status = fresh.bots, fresh.humans, fresh.names, fresh.status
        self._remember(t)
        metrics.REBUILD_LATENCY.labels(source).observe(time.perf_counter() - t0)
        return t

    async def _from_archive(self, table: str, t0: float) -> Table | None:
        """The table rebuilt from its archived log, or None (no archive, or
        not archived).  Raises ``services.archive.db.ArchiveUnavailable``
        when the archive cannot be read."""
        if self.archive is None:
            return None
        rec = await self.archive.get(table)
        if rec is None:
            return None
        t = parse_meta(table, rec.meta)
        t.status = "finished"
        t.archived = True
        self._fold(t, [decode(raw) for raw in rec.log])
        self._remember(t)
        self._remember_log(table, rec.log)
        metrics.REBUILD_LATENCY.labels("archive").observe(time.perf_counter() - t0)
        return t

    async def read(self, t: Table, after: int = 0, until: int | None = None, count: int | None = None) -> list[Event]:
        """Events of ``t`` with versions ``after+1 .. until`` (inclusive; at
        most ``count``), in order: from the archived log of an archived
        table, else from the store (:meth:`EventStore.read`)."""
        if not t.archived:
            events = await self.store.read(t.id, after=after, until=until, count=count)
            if not events and after < t.version and self.archive is not None:
                # Archived (and removed from Redis) since ``t`` was read.
                fresh = await self.get(t.id, refresh_meta=True)
                if fresh is not None and fresh.archived:
                    return await self.read(fresh, after, until, count)
            return events
        log = self._logs.get(t.id)
        if log is None:
            rec = await self.archive.get(t.id) if self.archive is not None else None
            log = rec.log if rec is not None else ()
            self._remember_log(t.id, log)
        self._logs.move_to_end(t.id)
        hi = len(log) if until is None else min(until, len(log))
        if count is not None:
            hi = min(hi, after + count)
        return [decode(raw) for raw in log[after:hi]]

    def _remember_log(self, table: str, log: tuple[bytes, ...]) -> None:
        self._logs[table] = log
        self._logs.move_to_end(table)
        while len(self._logs) > ARCHIVED_LOGS:
            self._logs.popitem(last=False)

    async def _cold_load(self, t: Table) -> str:
        blob = await self.store.load_snapshot(t.id)
        if blob is not None:
            try:
                version, obj = snapshot.unpack(blob, loader=lambda o: o)
                t.state = t.game.restore(obj["game"])
                t.away = frozenset(obj["away"])
                t.left = frozenset(obj.get("left", ()))  # snapshots before issue 13 have none
                t.last_ts = int(obj["last_ts"])
                t.version = t.snap_version = version
                return "snapshot"
            except (snapshot.SnapshotError, KeyError, TypeError):
                t.state, t.version = None, 0  # fall back to a full replay
                t.away, t.left, t.last_ts = frozenset(), frozenset(), 0
        return "replay"

    def _fold(self, t: Table, events: list[Event]) -> None:
        evolve = t.game.evolve
        state = t.state
        for e in events:
            if e.type in TABLE_EVENTS:
                t.away = apply_presence(t.away, e)
                if e.type == SEAT_LEFT:
                    t.left = t.left | {e.data["seat"]}
            else:
                state = evolve(state, e)
        t.state = state
        t.version += len(events)
        if events:
            t.last_ts = events[-1].ts

    def advance(self, t: Table, from_version: int, events: list[Event]) -> None:
        """After an append of ``events`` at ``from_version``: fold them in
        unless another reader already did."""
        if t.version == from_version:
            self._fold(t, events)
        elif t.version < from_version + len(events):
            self._cache.pop(t.id, None)  # out of step: reload next time

    def peek_started(self, table: str) -> Table | None:
        """The cached table as it is (no Redis round trip) when it has
        started (its seats are final: only the log changes them) and is
        not over, else None.  It may be behind the log: a decision made on
        it must be verified, by the append's expected version or, for a
        refusal, by deciding again after :meth:`get`."""
        t = self._cache.get(table)
        if t is None or not t.started or t.game.is_over(t.state):
            return None
        return t

    def peek(self, table: str) -> Table | None:
        """The cached table as it is (no Redis round trip), or None."""
        return self._cache.get(table)

    def drop(self, table: str) -> None:
        """Forget a table (next :meth:`get` rebuilds it from the store)."""
        self._cache.pop(table, None)

    def _remember(self, t: Table) -> None:
        if self.capacity <= 0:
            return
        self._cache[t.id] = t
        self._cache.move_to_end(t.id)
        while len(self._cache) > self.capacity:
            self._cache.popitem(last=False)

    async def maybe_snapshot(self, t: Table, every: int) -> bool:
        """Write a snapshot when ``every`` events have passed since the last."""
        if t.version - t.snap_version < every or t.state is None:
            return False
        blob = snapshot.pack(t.version, table_snapshot(t), dumper=lambda o: o)
        await self.store.save_snapshot(t.id, blob)
        t.snap_version = t.version
        return True


def table_snapshot(t: Table) -> dict[str, Any]:
    """What a snapshot holds: ``{"game": the game's snapshot of the state,
    "away": sorted away seats, "left": sorted seats left for good,
    "last_ts": ms of the last event}``."""
    return {"game": t.game.snapshot(t.state), "away": sorted(t.away), "left": sorted(t.left), "last_ts": t.last_ts}
