"""The archive database: finished games in PostgreSQL or SQLite (issue 22).

One schema, described once in :data:`metadata` (SQLAlchemy Core) and
created by the Alembic revisions shipped in ``migrations/``
(:meth:`Archive.migrate`, ``tapis archive migrate``):

* ``games``: one row a game, keyed by ``table_id``: ``game``, ``players``,
  ``options`` (JSON text), ``created_ms``/``started_ms``/``ended_ms`` (ms
  since the epoch), ``events`` (the log's length), ``winners`` and
  ``result`` (JSON text), ``meta`` (JSON text: the whole Redis meta hash,
  seat token hashes included: never shown by a summary), ``digest``
  (:func:`~services.archive.model.log_digest`), ``log`` (the blob, below)
  and ``archived_ms``;
* ``seats``: one row a seat (``name``, ``kind``, ``strategy``, ``place``,
  ``score``) with its game's ``ended_ms`` again, so that a player's or a
  strategy's history is one ordered index range (keyset paging).

The blob (:func:`pack_log`) is one format byte and one zstd frame (level
:data:`ZSTD_LEVEL`) of the log's events, which it gives back byte for
byte: as columns when it can (``0x01``: the msgpack array ``[types, data,
seats, ts deltas, cmds]``, a third smaller than the events' bytes
compressed as they are), else (``0x00``) the msgpack array of the events'
encoded bytes as they were in the Redis stream.

:class:`Archive` runs the blocking SQLAlchemy work in a thread
(``asyncio.to_thread``).  Every database error (server down or gone,
refused connection, locked file) is raised as :class:`ArchiveUnavailable`:
the caller tries again later.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import msgpack
import sqlalchemy as sa
import zstandard
from sqlalchemy import event
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Connection, Engine, make_url

from services.archive.model import ArchivedGame, GameSummary, HistoryPage, SeatRecord, log_digest

#: zstd level of the log blobs (19 saves ~5% more for ~10x the time).
ZSTD_LEVEL = 10
#: Alembic's version table in the archive's database.
VERSION_TABLE = "archive_version"
#: The key of the PostgreSQL advisory lock taken around a migration.
MIGRATION_LOCK = 0x7A_9153_2201
#: The most items :meth:`Archive.search` returns in one page.
MAX_PAGE = 1000
MIGRATIONS = Path(__file__).with_name("migrations")
_MIGRATING = threading.Lock()

metadata = sa.MetaData()

games = sa.Table(
    "games", metadata,
    sa.Column("table_id", sa.Text, primary_key=True),
    sa.Column("game", sa.Text, nullable=False),
    sa.Column("players", sa.Integer, nullable=False),
    sa.Column("options", sa.Text, nullable=False),
    sa.Column("created_ms", sa.BigInteger, nullable=False),
    sa.Column("started_ms", sa.BigInteger, nullable=False),
    sa.Column("ended_ms", sa.BigInteger, nullable=False),
    sa.Column("events", sa.Integer, nullable=False),
    sa.Column("winners", sa.Text, nullable=False),
    sa.Column("result", sa.Text, nullable=True),
    sa.Column("meta", sa.Text, nullable=False),
    sa.Column("digest", sa.Text, nullable=False),
    sa.Column("log", sa.LargeBinary, nullable=False),
    sa.Column("archived_ms", sa.BigInteger, nullable=False),
)
sa.Index("ix_games_ended", games.c.ended_ms, games.c.table_id)
sa.Index("ix_games_game_ended", games.c.game, games.c.ended_ms, games.c.table_id)

seats = sa.Table(
    "seats", metadata,
    sa.Column("table_id", sa.Text, sa.ForeignKey("games.table_id", ondelete="CASCADE"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("ended_ms", sa.BigInteger, nullable=False),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("strategy", sa.Text, nullable=True),
    sa.Column("place", sa.Integer, nullable=True),
    sa.Column("score", sa.Double, nullable=True),
)
sa.Index("ix_seats_name", seats.c.name, seats.c.ended_ms, seats.c.table_id)
sa.Index("ix_seats_strategy", seats.c.strategy, seats.c.ended_ms, seats.c.table_id)

#: The columns of a summary (no meta, no log).
_SUMMARY = [c for c in games.c if c.name not in ("meta", "log", "digest", "archived_ms")]

T = TypeVar("T")


class ArchiveUnavailable(Exception):
    """The archive's database could not be reached or failed (connection
    refused, server gone, file locked): nothing was written; try again
    later.  ``__cause__`` is the database's error."""


class ArchiveRejected(ArchiveUnavailable):
    """The database refused a statement (a value it cannot store, a schema
    not migrated): trying the same again will fail again until someone
    acts.  A kind of :class:`ArchiveUnavailable`, so a read that meets it
    answers 503 like an outage; the archiver tries a rejected batch's
    tables one by one, so one bad row keeps only its own table back."""


class ArchiveConflict(Exception):
    """:meth:`Archive.put` of a table already archived with another log
    (another digest or event count): nothing was written."""


# -- encoding ----------------------------------------------------------------

#: Blob formats (the first byte): the events' bytes as they are; as columns.
_PLAIN, _COLUMNS = b"\x00", b"\x01"
#: The keys of an event's envelope (shared.events.encode), in their order.
_ENVELOPE = ("t", "d", "s", "ts", "c")


def pack_log(log: Sequence[bytes]) -> bytes:
    """The blob of a log (the events' encoded bytes, in order): columns
    when :func:`unpack_log` gives every event back byte for byte from them,
    else the events' bytes as they are; zstd (:data:`ZSTD_LEVEL`)."""
    columns = _columns(log)
    body = msgpack.packb(list(log) if columns is None else columns, use_bin_type=True)
    return (_PLAIN if columns is None else _COLUMNS) + zstandard.ZstdCompressor(level=ZSTD_LEVEL).compress(body)


def unpack_log(blob: bytes) -> tuple[bytes, ...]:
    """The log of a blob made by :func:`pack_log`.  Raises ``ValueError`` on
    a damaged blob."""
    try:
        body = msgpack.unpackb(zstandard.ZstdDecompressor().decompress(blob[1:]), raw=False, strict_map_key=False)
        if blob[:1] == _COLUMNS:
            return _rows(body)
        if blob[:1] == _PLAIN and isinstance(body, list) and all(isinstance(x, bytes) for x in body):
            return tuple(body)
    except (zstandard.ZstdError, ValueError, TypeError) as exc:  # msgpack's errors are ValueErrors
        raise ValueError(f"damaged log blob: {exc}") from exc
    raise ValueError("damaged log blob: unknown format")


def _columns(log: Sequence[bytes]) -> list[list[Any]] | None:
    """``[types, data, seats, ts deltas, cmds]`` of the log's events, or
    None when an event is no envelope or would not come back the same."""
    cols: list[list[Any]] = [[], [], [], [], []]
    types, data, seats, stamps, cmds = cols
    last = 0
    try:
        for raw in log:
            e = msgpack.unpackb(raw, raw=False, strict_map_key=False)
            if type(e) is not dict or tuple(e) != _ENVELOPE or type(e["ts"]) is not int:
                return None
            types.append(e["t"])
            data.append(e["d"])
            seats.append(e["s"])
            stamps.append(e["ts"] - last)
            last = e["ts"]
            cmds.append(e["c"])
        same = _rows(cols) == tuple(log)
    except (ValueError, TypeError):  # not msgpack (or not UTF-8 text), or not packable again
        return None
    return cols if same else None


def _rows(cols: list[list[Any]]) -> tuple[bytes, ...]:
    """The events' bytes from :func:`_columns`' columns."""
    types, data, seats, stamps, cmds = cols
    out = []
    ts = 0
    for t, d, s, delta, c in zip(types, data, seats, stamps, cmds, strict=True):
        ts += delta
        out.append(msgpack.packb({"t": t, "d": d, "s": s, "ts": ts, "c": c}, use_bin_type=True))
    return tuple(out)


def _json(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


#: The most ids in one ``IN (…)`` list (SQLite's default limit of bound
#: parameters is 32,766; PostgreSQL's 65,535).
_IN_MAX = 500


def _held(conn: Connection, ids: list[str]) -> dict[str, tuple[str, int]]:
    """``table_id -> (digest, events)`` of those of ``ids`` archived already."""
    held: dict[str, tuple[str, int]] = {}
    for i in range(0, len(ids), _IN_MAX):
        query = sa.select(games.c.table_id, games.c.digest, games.c.events)
        for r in conn.execute(query.where(games.c.table_id.in_(ids[i:i + _IN_MAX]))):
            held[r.table_id] = (r.digest, r.events)
    return held


def _blob_has(blob: bytes, digest: str, events: int) -> bool:
    """True when ``blob`` decompresses to a log of ``events`` events with ``digest``."""
    try:
        log = unpack_log(blob)
    except ValueError:
        return False
    return len(log) == events and log_digest(log) == digest


def _game_row(g: ArchivedGame, blob: bytes, archived_ms: int) -> dict[str, Any]:
    """The ``games`` row of ``g`` with its log blob ``blob``."""
    s = g.summary
    return {
        "table_id": s.table, "game": s.game, "players": s.players, "options": _json(s.options),
        "created_ms": s.created_ms, "started_ms": s.started_ms, "ended_ms": s.ended_ms, "events": s.events,
        "winners": _json(list(s.winners)), "result": None if s.result is None else _json(s.result),
        "meta": _json(g.meta), "digest": g.digest, "log": blob, "archived_ms": archived_ms,
    }


def _seat_rows(g: ArchivedGame) -> list[dict[str, Any]]:
    """The ``seats`` rows of ``g``."""
    s = g.summary
    return [{"table_id": s.table, "seat": r.seat, "ended_ms": s.ended_ms, "name": r.name, "kind": r.kind,
             "strategy": r.strategy, "place": r.place, "score": r.score} for r in s.seats]


def encode_cursor(ended_ms: int, table: str) -> str:
    """The opaque cursor of a page that ends at ``(ended_ms, table)``."""
    return base64.urlsafe_b64encode(f"{ended_ms}:{table}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[int, str]:
    """``(ended_ms, table)`` of a cursor made by :func:`encode_cursor`.
    Raises ``ValueError`` on anything else."""
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        ms, table = text.split(":", 1)
        if not table or not ms.isdigit():
            raise ValueError
        return int(ms), table
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise ValueError(f"malformed cursor: {cursor!r}") from None


def _summary(row: Any, seat_rows: Sequence[Any]) -> GameSummary:
    return GameSummary(
        table=row.table_id, game=row.game, players=row.players, options=json.loads(row.options),
        created_ms=row.created_ms, started_ms=row.started_ms, ended_ms=row.ended_ms, events=row.events,
        seats=tuple(SeatRecord(s.seat, s.name, s.kind, s.strategy, s.place, s.score) for s in seat_rows),
        winners=tuple(json.loads(row.winners)), result=None if row.result is None else json.loads(row.result))


# -- engines -----------------------------------------------------------------

def make_engine(url: str, *, pool_size: int = 5) -> Engine:
    """A SQLAlchemy engine for ``postgresql://…`` (psycopg 3; ``postgres://``
    and ``postgresql+psycopg://`` too) or ``sqlite:///path`` (its directory
    created; WAL journal, foreign keys on, each transaction a ``BEGIN``, a
    write's ``BEGIN IMMEDIATE``; ``sqlite://`` alone: in memory).  Raises
    ``ValueError`` for another scheme, ``OSError`` when the SQLite file's
    directory cannot be created."""
    u = make_url(url)
    backend = u.get_backend_name()
    if backend in ("postgresql", "postgres"):
        u = u.set(drivername="postgresql+psycopg")
        args: dict[str, Any] = {} if "connect_timeout" in u.query else {"connect_timeout": 5}
        return sa.create_engine(u, pool_size=pool_size, max_overflow=pool_size, pool_pre_ping=True,
                                connect_args=args)
    if backend != "sqlite":
        raise ValueError(f"archive URL must be postgresql://… or sqlite:///path, not {u.drivername}://")
    if u.database in (None, "", ":memory:"):
        engine = sa.create_engine("sqlite://", poolclass=sa.StaticPool, connect_args={"check_same_thread": False})
    else:
        Path(u.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = sa.create_engine(u, pool_size=pool_size, connect_args={"timeout": 30})

    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # the "begin" hook below begins transactions, DDL included
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("archive_write") else "BEGIN")

    return engine


def _alembic_config(connection: Connection) -> Any:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("path_separator", "os")
    cfg.attributes["connection"] = connection
    return cfg


# -- the archive -------------------------------------------------------------

class Archive:
    """The archive of finished games at ``url`` (``postgresql://…`` or
    ``sqlite:///path``, see :func:`make_engine`; ``pool_size``: pooled
    connections, as many again on demand).  Async methods run in a thread
    and raise :class:`ArchiveUnavailable` on any database error."""

    def __init__(self, url: str, *, pool_size: int = 5) -> None:
        self.url = url
        self.engine = make_engine(url, pool_size=pool_size)
        self.dialect: str = self.engine.dialect.name

    @classmethod
    def from_url(cls, url: str) -> Archive:
        """``Archive(url)``."""
        return cls(url)

    def __repr__(self) -> str:
        return f"Archive({self.engine.url.render_as_string(hide_password=True)!r})"

    # -- plumbing --------------------------------------------------------
    def _guarded(self, fn: Callable[..., T], *args: Any) -> T:
        try:
            return fn(*args)
        except (sa_exc.OperationalError, sa_exc.InterfaceError, sa_exc.TimeoutError) as exc:
            raise ArchiveUnavailable(f"archive {self!r}: {exc.__class__.__name__}: {exc}".splitlines()[0]) from exc
        except sa_exc.DBAPIError as exc:  # the database refused what it was sent (a value, a missing schema)
            raise ArchiveRejected(f"archive {self!r}: {exc.__class__.__name__}: {exc}".splitlines()[0]) from exc

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.to_thread(self._guarded, fn, *args)

    @contextmanager
    def _tx(self, *, write: bool = False) -> Iterator[Connection]:
        with self.engine.connect() as conn:
            if write:
                conn.execution_options(archive_write=True)
            with conn.begin():
                yield conn

    # -- schema ----------------------------------------------------------
    def migrate(self) -> None:
        """Bring the schema to the newest revision (Alembic ``upgrade
        head``; nothing to do: nothing done).  On PostgreSQL under an
        advisory lock, so processes starting together migrate once.
        Blocking; raises :class:`ArchiveUnavailable`."""
        self._guarded(self._migrate)

    def _migrate(self) -> None:
        import logging

        logging.getLogger("alembic").setLevel(logging.WARNING)  # not its ten INFO lines at every start (import)
        from alembic import command

        # Alembic's context is process-wide: one migration at a time in a process
        with _MIGRATING, self._tx(write=True) as conn:
            if self.dialect == "postgresql":
                conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": MIGRATION_LOCK})
            command.upgrade(_alembic_config(conn), "head")

    def revision(self) -> str | None:
        """The schema revision the database is at (None: never migrated).
        Blocking; raises :class:`ArchiveUnavailable`."""
        return self._guarded(self._revision)

    def _revision(self) -> str | None:
        from alembic.migration import MigrationContext

        with self.engine.connect() as conn:
            return MigrationContext.configure(conn, opts={"version_table": VERSION_TABLE}).get_current_revision()

    async def ensure_schema(self) -> None:
        """:meth:`migrate` in a thread."""
        await asyncio.to_thread(self.migrate)

    # -- writes ----------------------------------------------------------
    async def put(self, game: ArchivedGame) -> str:
        """Store ``game`` (its row and its seats, one transaction):
        ``"written"``, or ``"exists"`` when that table is archived already
        with the same digest and event count (nothing written).  Raises
        :class:`ArchiveConflict` when it is archived with another log,
        ``ValueError`` when ``game.digest`` or its event count does not
        match its log, :class:`ArchiveUnavailable`."""
        [(outcome, held)] = await self._run(self._put_many, [game], None)
        if outcome == "conflict":
            raise ArchiveConflict(f"table {game.summary.table} is archived with another log"
                                  f" ({held[1]} events, digest {held[0]})")
        return str(outcome)

    async def put_many(self, batch: Sequence[ArchivedGame], blobs: Sequence[bytes] | None = None) -> list[str]:
        """Store many games in one transaction (rows and seats of those not
        archived yet: one ``SELECT`` of the ids already there, then one
        multi-row insert of the games and one of the seats).  Returns, in
        their order, each game's ``"written"``, ``"exists"`` (archived
        already with the same digest and event count: nothing written) or
        ``"conflict"`` (archived with another log, or another log under the
        same id earlier in ``batch``: nothing written for it); the others
        are written whatever one's outcome.  ``blobs``: each game's
        :func:`pack_log` (else made here).  A unique violation (another
        writer inserting one of the ids meanwhile) rolls the transaction
        back and the batch is tried once more, reading the ids again.
        Raises ``ValueError`` (nothing written) when a game's digest or
        event count does not match its log, :class:`ArchiveUnavailable`
        (nothing written)."""
        if blobs is not None and len(blobs) != len(batch):
            raise ValueError("one blob a game")
        found = await self._run(self._put_many, list(batch), None if blobs is None else list(blobs))
        return [outcome for outcome, _held in found]

    def _put_many(self, batch: list[ArchivedGame], blobs: list[bytes] | None) -> list[tuple[str, Any]]:
        """``(outcome, (digest, events) held or None)`` a game, see :meth:`put_many`."""
        for g in batch:
            s = g.summary
            if s.events != len(g.log) or g.digest != log_digest(g.log):
                raise ValueError(f"table {s.table}: digest or event count does not match the log")
        if blobs is None:
            blobs = [pack_log(g.log) for g in batch]
        now = int(time.time() * 1000)
        ids = list(dict.fromkeys(g.summary.table for g in batch))
        for attempt in (1, 2):
            try:
                with self._tx(write=True) as conn:
                    held = _held(conn, ids)
                    out: list[tuple[str, Any]] = []
                    game_rows: list[dict[str, Any]] = []
                    seat_rows: list[dict[str, Any]] = []
                    writing: dict[str, tuple[str, int]] = {}
                    for g, blob in zip(batch, blobs, strict=True):
                        s, mine = g.summary, (g.digest, g.summary.events)
                        there = held.get(s.table) or writing.get(s.table)
                        if there is not None:
                            out.append(("exists" if there == mine else "conflict", there))
                            continue
                        writing[s.table] = mine
                        out.append(("written", None))
                        game_rows.append(_game_row(g, blob, now))
                        seat_rows += _seat_rows(g)
                    if game_rows:
                        conn.execute(games.insert(), game_rows)
                        if seat_rows:
                            conn.execute(seats.insert(), seat_rows)
                    return out
            except sa_exc.IntegrityError:
                if attempt == 2:  # not another writer's row (a PostgreSQL race): let it surface
                    raise
        raise AssertionError("unreachable")

    # -- reads -----------------------------------------------------------
    async def verify(self, table: str, digest: str, events: int) -> bool:
        """True when ``table`` is archived with ``events`` events and its
        stored log, read back and decompressed, has ``digest``: what the
        archiver checks before it deletes the table from Redis.  False when
        absent, different or damaged.  Raises :class:`ArchiveUnavailable`."""
        found = await self.verify_many({table: (digest, events, None)})
        return found[table]

    async def verify_many(self, expected: dict[str, tuple[str, int, bytes | None]]) -> dict[str, bool]:
        """For each ``table: (digest, events, blob)``, True when the table is
        archived with that ``digest`` and event count and its stored log is
        that log, read back in one ``SELECT`` (a transaction of its own,
        after the write's commit: what it reads is committed).  The stored
        log is that log when the stored blob is, byte for byte, ``blob``:
        the :func:`pack_log` of the log the caller wrote (pack_log checks
        that its columns give the events back; msgpack and zstd are
        lossless), so nothing is decompressed; else (``blob`` None, or
        other bytes: a row an earlier attempt wrote) when the stored blob,
        decompressed, is a log of ``events`` events with ``digest``.  False
        when absent, different or damaged.  Raises
        :class:`ArchiveUnavailable`."""
        return await self._run(self._verify_many, expected)

    def _verify_many(self, expected: dict[str, tuple[str, int, bytes | None]]) -> dict[str, bool]:
        ids = list(expected)
        got: dict[str, Any] = {}
        with self._tx() as conn:
            for i in range(0, len(ids), _IN_MAX):
                query = sa.select(games.c.table_id, games.c.digest, games.c.events, games.c.log)
                for r in conn.execute(query.where(games.c.table_id.in_(ids[i:i + _IN_MAX]))):
                    got[r.table_id] = r
        out: dict[str, bool] = {}
        for table, (digest, events, blob) in expected.items():
            row = got.get(table)
            out[table] = row is not None and row.events == events and row.digest == digest and (
                bytes(row.log) == blob or _blob_has(bytes(row.log), digest, events))
        return out

    async def get(self, table: str) -> ArchivedGame | None:
        """The whole archived game (meta and decompressed log), or None.
        Raises :class:`ArchiveUnavailable`; ``ValueError`` on a damaged blob."""
        found = await self._run(self._read, sa.select(games).where(games.c.table_id == table))
        return found[0] if found else None

    async def summary(self, table: str) -> GameSummary | None:
        """The summary of an archived game (no log, no meta), or None.
        Raises :class:`ArchiveUnavailable`."""
        found = await self._run(self._read, sa.select(*_SUMMARY).where(games.c.table_id == table))
        return found[0] if found else None

    def _read(self, query: Any) -> list[Any]:
        """The games ``query`` selects, in its order: :class:`ArchivedGame`
        when it selects every column, else :class:`GameSummary`."""
        with self._tx() as conn:
            return _games(conn, query)

    async def search(self, *, game: str | None = None, player: str | None = None, strategy: str | None = None,
                     since_ms: int | None = None, until_ms: int | None = None, limit: int = 50,
                     cursor: str | None = None) -> HistoryPage:
        """Archived games, newest first (by ``ended_ms``, then table id,
        both descending), ``limit`` a page (1..:data:`MAX_PAGE`): of
        ``game``; with a seat named ``player`` (exact); with a bot seat of
        ``strategy``; ended in ``[since_ms, until_ms)`` (ms since the
        epoch).  ``cursor``: the ``next`` of the previous page.  Raises
        ``ValueError`` on a malformed cursor or limit,
        :class:`ArchiveUnavailable`."""
        if not 1 <= limit <= MAX_PAGE:
            raise ValueError(f"limit must be 1..{MAX_PAGE}")
        after = decode_cursor(cursor) if cursor else None
        keys = _page_keys(game, player, strategy, since_ms, until_ms, after, limit + 1)
        found = await self._run(self._search, keys)
        items = found[:limit]
        more = len(found) > limit
        return HistoryPage(items, encode_cursor(items[-1].ended_ms, items[-1].table) if more else None)

    def _search(self, keys: Any) -> list[GameSummary]:
        with self._tx() as conn:
            ids = [r.table_id for r in conn.execute(keys)]
            if not ids:
                return []
            found = _games(conn, sa.select(*_SUMMARY).where(games.c.table_id.in_(ids)))
        order = {t: i for i, t in enumerate(ids)}
        return sorted(found, key=lambda g: order[g.table])

    async def iter_games(self, *, game: str | None = None, since_ms: int | None = None,
                         until_ms: int | None = None, batch: int = 200) -> AsyncIterator[ArchivedGame]:
        """Every archived game (of ``game``, ended in ``[since_ms,
        until_ms)``), oldest first, read ``batch`` (at least 1) at a time
        (bulk export).  Raises :class:`ArchiveUnavailable`; ``ValueError``
        on a damaged blob or a batch below 1."""
        if batch < 1:
            raise ValueError("batch must be at least 1")
        after: tuple[int, str] | None = None
        while True:
            query = sa.select(games).order_by(games.c.ended_ms, games.c.table_id).limit(batch)
            query = query.where(*_filters(games, game, since_ms, until_ms))
            if after is not None:
                query = query.where(sa.tuple_(games.c.ended_ms, games.c.table_id) > sa.tuple_(*after))
            found: list[ArchivedGame] = await self._run(self._read, query)
            for g in found:
                yield g
            if len(found) < batch:
                return
            after = (found[-1].summary.ended_ms, found[-1].summary.table)

    async def count(self) -> int:
        """The number of archived games.  Raises :class:`ArchiveUnavailable`."""
        return await self._run(self._count)

    def _count(self) -> int:
        with self._tx() as conn:
            return int(conn.execute(sa.select(sa.func.count()).select_from(games)).scalar_one())

    async def close(self) -> None:
        """Close the pooled connections."""
        await asyncio.to_thread(self.engine.dispose)


def _games(conn: Connection, query: Any) -> list[Any]:
    """The games ``query`` selects on ``conn``, in its order, with their
    seats: :class:`ArchivedGame` when it selects the log, else
    :class:`GameSummary`."""
    rows = conn.execute(query).all()
    if not rows:
        return []
    by_table: dict[str, list[Any]] = {r.table_id: [] for r in rows}
    for s in conn.execute(sa.select(seats).where(seats.c.table_id.in_(list(by_table)))
                          .order_by(seats.c.table_id, seats.c.seat)):
        by_table[s.table_id].append(s)
    out: list[Any] = [_summary(r, by_table[r.table_id]) for r in rows]
    if rows and "log" in rows[0]._fields:
        out = [ArchivedGame(summary=summary, meta=json.loads(r.meta), log=unpack_log(r.log), digest=r.digest)
               for summary, r in zip(out, rows, strict=True)]
    return out


def _filters(t: Any, game: str | None, since_ms: int | None, until_ms: int | None) -> list[Any]:
    """The conditions on the ``game`` and ``ended_ms`` columns of ``t``."""
    out = []
    if game is not None and "game" in t.c:
        out.append(t.c.game == game)
    if since_ms is not None:
        out.append(t.c.ended_ms >= since_ms)
    if until_ms is not None:
        out.append(t.c.ended_ms < until_ms)
    return out


def _page_keys(game: str | None, player: str | None, strategy: str | None, since_ms: int | None,
               until_ms: int | None, after: tuple[int, str] | None, n: int) -> Any:
    """The query of the ``(ended_ms, table_id)`` of a page's games, newest
    first: a range of the seats' name or strategy index when one is asked
    for (distinct: a name may sit twice at one table), else of games'."""
    if player is None and strategy is None:
        t: Any = games
        query = sa.select(t.c.ended_ms, t.c.table_id)
    else:
        t = seats.alias("s")
        query = sa.select(t.c.ended_ms, t.c.table_id).distinct()
        query = query.where(t.c.name == player if player is not None else t.c.strategy == strategy)
        if player is not None and strategy is not None:
            other = seats.alias("o")
            query = query.where(sa.exists().where(other.c.table_id == t.c.table_id, other.c.strategy == strategy))
        if game is not None:
            query = query.where(sa.exists().where(games.c.table_id == t.c.table_id, games.c.game == game))
    query = query.where(*_filters(t, game, since_ms, until_ms))
    if after is not None:
        query = query.where(sa.tuple_(t.c.ended_ms, t.c.table_id) < sa.tuple_(*after))
    return query.order_by(t.c.ended_ms.desc(), t.c.table_id.desc()).limit(n)
