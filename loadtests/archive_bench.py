"""Archiving rate against a plain COPY, and the bytes a game costs (issue 22, "Done when").

    python loadtests/archive_bench.py [--games 500] [--sweep 500] [--batch 200] [--strategy heuristic]
                                      [--url postgresql://postgres@127.0.0.1:5432/] [--json out.json]

One run, on its own servers only:

* a private ``redis-server`` on a free port (nothing on disk; never the
  Redis at 6379), stopped at the end;
* a throwaway PostgreSQL database ``tapis_bench_<hex>`` made on the server
  of ``--url`` (default the machine's, ``postgresql://postgres@127.0.0.1:5432/``)
  and dropped at the end (its connections closed); no other database is
  touched;
* a SQLite file in a temporary directory.

**Fill.** ``--games`` 4-player Mau Mau games are played by ``--strategy``
bots (:func:`shared.engine.play`, seeded) and written into Redis as the
service leaves a finished all-bot table: :meth:`EventStore.create` with
the gateway's meta (every option, ``stand_in``, the bots' names), one
:meth:`EventStore.append` per accepted command (the start, then
``b<seat>.<version>`` with the worker's digest of the command, so the
table's ``cmds`` hash holds what the worker records; the start's append
sets ``playing``), a snapshot each time 64 events have passed since the
last (the worker's ``snapshot_every``), then ``set_status(…, "finished",
last ts)`` (listed as not archived) and ``schedule_archive`` (due for the
archiver).  Only the CPU of the service is skipped, not one of its writes.
One game is filled and archived first (into an in-memory SQLite archive)
so that the scripts are loaded and the shared sets have existed before the
baseline of ``used_memory``.

**Rate.** (a) The real archiver as a worker's sweeper drives it: the
tables are handed to :meth:`Archiver.archive_soon` ``--sweep`` at a time
(default 500: one sweep claims up to 100 due tables a partition, and
``Worker.sweep_once`` gathers its claimed tables' re-drives), which
archives them in batches of ``--batch`` (the archiver's ``batch_max``,
default 200; one transaction a batch), on an :class:`Archive` as a worker
opens it (``Archive(url)``: pool of 5, ``pool_pre_ping``), its schema
migrated and its pool warmed first (a worker has done both long before).
(b) The peer: the very rows (a) wrote (read back from the archive's tables: log
already compressed, so the peer pays only the write),
written with one plain ``COPY … FROM STDIN`` (psycopg 3 ``cursor.copy``,
text format) per table into identical tables (the same SQLAlchemy
metadata) in the schema ``copy_peer`` of the same database, one
transaction.  For scale, also the same rows with one ``COPY`` pair and
one transaction per game (``copy_peer_1``), as an archiver writing one
game at a time with COPY would.  Printed: games/s of each, the ratio
archiver / COPY (target ≥ 0.5), the batches (transactions) and their
sizes, and where the archiver's time went: the sum over batches of each
step's time over the games (:data:`STEPS`), with the CPU of this process
and the machine's busy cores over the phase (``/proc/stat``: every
process, the servers included).

**Bytes.** Redis: ``used_memory`` before the fill, after it and after the
archiving, over the games; before archiving also each table key's
``MEMORY USAGE … SAMPLES 0`` by kind (meta, events, snap, cmds), the rest
being the tables' entries in the shared sets (lobby indexes, due, waiting,
unarchived).  Target: ≤ 1 KiB left per archived game.  Archive:
``pg_total_relation_size`` of ``games`` and ``seats`` (heap, TOAST,
indexes, free-space maps) over the games, and the same less the empty
tables' size (the growth a game costs); the COPY peer's tables alike; the
SQLite file (every record put with :meth:`Archive.put`, WAL checkpointed)
over the games; the mean raw and compressed log.  Target: ≤ 6 KiB a game.

``--json PATH`` also writes every figure as JSON (the smoke test reads it).
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import hashlib
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import msgpack

from services.archive import db as archive_db
from services.archive.db import Archive, games, seats
from services.archive.model import ArchivedGame
from services.store import keys
from services.store.store import EventStore
from services.store.tables import Tables
from services.worker import archiver as archiver_mod
from services.worker.archiver import Archiver
from shared import snapshot
from shared.engine import play
from shared.events import Event
from shared.games import get_game

SERVER_URL = os.environ.get("TAPIS_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/")
GAME = "maumau"
PLAYERS = 4
#: The worker's default ``snapshot_every``.
SNAPSHOT_EVERY = 64
#: The steps of :meth:`Archiver.archive_batch`, in order, as the split names
#: them.  ``read meta + log``: the one pipelined read of the batch's tables;
#: ``zstd``: the logs' blobs (:func:`pack_log`, by the archiver);
#: ``put_many: transaction`` what :meth:`Archive.put_many` does in its
#: thread (``Archive._put_many``: the digests checked, the rows made, the
#: transaction); ``put_many: rest`` the rest of ``put_many`` (waiting for
#: a thread of ``asyncio.to_thread``'s pool, the hand-offs).
STEPS = ("read meta + log", "build_record", "zstd", "put_many: transaction", "put_many: rest", "verify_many",
         "drop from Redis", "other")
KIND = ("meta", "events", "snap", "cmds")


# -- servers -----------------------------------------------------------------

@contextmanager
def private_redis() -> Iterator[str]:
    """A throwaway ``redis-server`` on a free port, nothing on disk: its URL."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("no redis-server on PATH")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    if port == 6379:
        raise SystemExit("refusing port 6379")
    workdir = tempfile.mkdtemp(prefix="tapis-archive-bench-")
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--dir", workdir], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(400):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2) as conn:
                    conn.sendall(b"PING\r\n")
                    if conn.recv(16).startswith(b"+PONG"):
                        break
            except OSError:
                pass
            time.sleep(0.025)
        else:
            raise SystemExit("redis-server did not start")
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(workdir, ignore_errors=True)


def throwaway_database(server_url: str):
    """``tapis_bench_<hex>`` on ``server_url``'s server, dropped at the end
    (tests/archive_fixtures.py ``own_database``)."""
    from tests.archive_fixtures import own_database

    return own_database(server_url, prefix="tapis_bench")


def psycopg_url(url: str) -> str:
    """``url`` as libpq takes it (no ``+driver``)."""
    from sqlalchemy.engine import make_url

    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


# -- the machine -------------------------------------------------------------

def busy_jiffies() -> tuple[int, int]:
    """(busy, total) jiffies of every CPU since boot (``/proc/stat``)."""
    try:
        with open("/proc/stat") as f:
            parts = [int(x) for x in f.readline().split()[1:]]
    except OSError:
        return 0, 0
    idle = parts[3] + (parts[4] if len(parts) > 4 else 0)
    return sum(parts) - idle, sum(parts)


class Meter:
    """Wall time, this process's CPU and the machine's busy cores over a phase."""

    def __enter__(self) -> Meter:
        self.cpu0, self.jiffies0, self.t0 = time.process_time(), busy_jiffies(), time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self.t0
        self.cpu = time.process_time() - self.cpu0
        b1, t1 = busy_jiffies()
        b0, t0 = self.jiffies0
        cores = os.cpu_count() or 1
        self.busy_cores = cores * (b1 - b0) / (t1 - t0) if t1 > t0 else float("nan")

    def text(self) -> str:
        return f"this process {self.cpu:.2f} s CPU, machine {self.busy_cores:.2f} of {os.cpu_count()} cores busy"


# -- the fill ----------------------------------------------------------------

def worker_digest(kind: str, seat: int | None, action: Any) -> str:
    """The worker's record digest of a command (services/worker/worker.py ``digest``)."""
    raw = msgpack.packb([kind, seat, action], use_bin_type=True)
    return hashlib.blake2b(raw, digest_size=8).hexdigest()[:12]


def played_game(seed: int, strategy: str) -> list[tuple[str, str, list[Event], Any]]:
    """A 4-player game played by ``strategy`` bots as the worker would apply
    it: ``(command id, digest, events, state after)`` per applied command."""
    game = get_game(GAME)
    steps: list[tuple[str, str, list[Event], Any]] = []
    actions: list[tuple[int, Any]] = []
    version = 0

    def on_decide(_state: Any, seat: int, action: Any, _events: list[Event]) -> None:
        actions.append((seat, action))

    def on_step(state: Any, events: list[Event]) -> None:
        nonlocal version
        if not steps:
            cmd, dig = "start", worker_digest("start", None, None)
        else:
            seat, action = actions[-1]
            cmd, dig = f"b{seat}.{version}", worker_digest("bot", seat, action)
        steps.append((cmd, dig, list(events), state))
        version += len(events)

    play(game, [strategy] * PLAYERS, random.Random(seed), on_decide=on_decide, on_step=on_step, feed=False)
    return steps


async def fill_one(store: EventStore, table: str, seed: int, strategy: str, end_ms: int, step_ms: int = 900) -> None:
    """Play one game and write it into Redis as the service leaves it (see module doc)."""
    game = get_game(GAME)
    steps = played_game(seed, strategy)
    bots = {s: strategy for s in range(PLAYERS)}
    await store.create(table, game=GAME, players=PLAYERS, options=game.Options().model_dump(mode="json"), bots=bots,
                       names={s: f"{strategy} bot {s}" for s in bots}, clock={"turn_ms": None, "stand_in": "heuristic"})
    version, snap_version = 0, 0
    first_ms = end_ms - (len(steps) - 1) * step_ms
    last_ts = first_ms
    for k, (cmd, dig, events, state) in enumerate(steps):
        if not events:
            continue
        last_ts = first_ms + k * step_ms
        stamped = [e.stamped(last_ts, cmd) for e in events]
        res = await store.append(table, version, cmd, stamped, status="playing" if cmd == "start" else "",
                                 digest=dig)
        if res.status != "ok":
            raise RuntimeError(f"append {cmd} of {table}: {res}")
        version = res.version
        if version - snap_version >= SNAPSHOT_EVERY:
            blob = snapshot.pack(version, {"game": game.snapshot(state), "away": [], "left": [], "last_ts": last_ts},
                                 dumper=lambda o: o)
            await store.save_snapshot(table, blob)
            snap_version = version
    await store.set_status(table, "finished", last_ts)
    await store.schedule_archive(table, version, last_ts)


async def fill(store: EventStore, tables: list[str], strategy: str, seed: int, base_ms: int) -> None:
    sem = asyncio.Semaphore(16)

    async def one(i: int, t: str) -> None:
        async with sem:
            await fill_one(store, t, seed + i, strategy, base_ms + i * 7_000)

    await asyncio.gather(*(one(i, t) for i, t in enumerate(tables)))


# -- Redis bytes -------------------------------------------------------------

def used_memory(url: str) -> int:
    """``used_memory`` less the clients' buffers (``mem_clients_normal``: a
    connection's query and reply buffers, tens of KiB that grow and shrink
    with the traffic, no game's), read on a connection of its own (the
    bench's pool closed)."""
    from redis import Redis

    r = Redis.from_url(url)
    try:
        info = r.info("memory")
        return int(info["used_memory"]) - int(info["mem_clients_normal"])
    finally:
        r.close()


async def bytes_by_kind(redis: Any, tables: list[str]) -> dict[str, tuple[int, int]]:
    """kind -> (keys, bytes) of the tables' own keys (``MEMORY USAGE … SAMPLES 0``)."""
    out: dict[str, list[int]] = {k: [0, 0] for k in KIND}
    for i in range(0, len(tables), 100):
        chunk = tables[i:i + 100]
        async with redis.pipeline(transaction=False) as pipe:
            for t in chunk:
                for kind in KIND:
                    pipe.memory_usage(getattr(keys, kind)(t), samples=0)
            sizes = await pipe.execute()
        for j, size in enumerate(sizes):
            if size is not None:
                kind = KIND[j % len(KIND)]
                out[kind][0] += 1
                out[kind][1] += int(size)
    return {k: (v[0], v[1]) for k, v in out.items()}


async def kind_drops(redis: Any, url: str, tables: list[str]) -> dict[str, float]:
    """kind -> bytes a game by which ``used_memory`` falls when the tables'
    keys of that kind are deleted, kind by kind (then the rest: their
    entries in the shared sets, by archiving them)."""
    out: dict[str, float] = {}
    await redis.connection_pool.disconnect()
    used_memory(url)
    prev = used_memory(url)
    for kind in KIND:
        await redis.delete(*(getattr(keys, kind)(t) for t in tables))
        await redis.connection_pool.disconnect()
        now = used_memory(url)
        out[kind] = (prev - now) / len(tables)
        prev = now
    return out


async def fields_per_game(redis: Any, tables: list[str]) -> float:
    async with redis.pipeline(transaction=False) as pipe:
        for t in tables:
            pipe.hlen(keys.cmds(t))
        counts = await pipe.execute()
    return statistics.fmean(counts)


async def keys_left(redis: Any, tables: list[str]) -> int:
    async with redis.pipeline(transaction=False) as pipe:
        for t in tables:
            pipe.exists(*(getattr(keys, kind)(t) for kind in KIND))
        return sum(await pipe.execute())


# -- the archiver, timed step by step ------------------------------------------

#: The step a task is in (a step that calls another wrapped method, e.g. the
#: drop's lobby reindex reading the meta, keeps the time as its own).
IN_STEP: contextvars.ContextVar[str | None] = contextvars.ContextVar("IN_STEP", default=None)


class Split:
    """Seconds spent in each step of :meth:`Archiver.archive_now`, summed over games."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.lock = threading.Lock()  # the database step is timed in the threads of asyncio.to_thread

    def wrap(self, step: str, fn: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def timed(*args: Any, **kw: Any) -> Any:
            inner = IN_STEP.get()
            token = IN_STEP.set(step)
            t0 = time.perf_counter()
            try:
                return await fn(*args, **kw)
            finally:
                IN_STEP.reset(token)
                if inner in (None, "archive_batch", "put_many"):  # not a call inside another step
                    self.seconds[step] += time.perf_counter() - t0
        return timed

    def wrap_sync(self, step: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kw: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*args, **kw)
            finally:
                dt = time.perf_counter() - t0
                with self.lock:
                    self.seconds[step] += dt
        return timed


@contextmanager
def instrumented(archiver: Archiver, split: Split, records: list[ArchivedGame],
                 batches: list[int]) -> Iterator[None]:
    """Time each step of ``archiver`` (see :data:`STEPS`), keep the records
    it builds and the size of each batch it writes (one transaction each)."""
    store, archive = archiver.store, archiver.archive
    real_build, real_pack = archiver_mod.build_record, archiver_mod.pack_log
    real_put_many = archive.put_many

    def build(*args: Any) -> ArchivedGame:
        rec = real_build(*args)
        records.append(rec)
        return rec

    async def put_many(batch: Any, *args: Any, **kw: Any) -> list[str]:
        batches.append(len(batch))
        return await real_put_many(batch, *args, **kw)

    patched: list[tuple[Any, str]] = [(store, "read_many"), (store, "drop_archived_many"), (archive, "verify_many"),
                                      (archive, "put_many"), (archive, "_put_many"), (archiver, "archive_batch")]
    store.read_many = split.wrap("read meta + log", store.read_many)  # type: ignore[method-assign]
    store.drop_archived_many = split.wrap("drop from Redis", store.drop_archived_many)  # type: ignore[method-assign]
    archive.verify_many = split.wrap("verify_many", archive.verify_many)  # type: ignore[method-assign]
    archive.put_many = split.wrap("put_many", put_many)  # type: ignore[method-assign]
    archive._put_many = split.wrap_sync("put_many: in its thread", archive._put_many)  # type: ignore[method-assign]
    archiver.archive_batch = split.wrap("archive_batch", archiver.archive_batch)  # type: ignore[method-assign]
    archiver_mod.build_record = split.wrap_sync("build_record", build)  # type: ignore[assignment]
    archiver_mod.pack_log = split.wrap_sync("zstd", real_pack)  # type: ignore[assignment]
    try:
        yield
    finally:
        archiver_mod.build_record = real_build  # type: ignore[assignment]
        archiver_mod.pack_log = real_pack  # type: ignore[assignment]
        for obj, name in patched:
            delattr(obj, name)


async def archive_all(archiver: Archiver, tables: list[str], sweep: int) -> list[str]:
    """Archive ``tables`` as the sweepers do: ``sweep`` tables at a time
    (what one sweep claims) handed to :meth:`Archiver.archive_soon`
    together (``asyncio.gather``, as ``Worker.sweep_once`` gathers its
    claimed tables), which archives them in batches of ``batch_max``."""
    out: list[str] = []
    for i in range(0, len(tables), sweep):
        out += await asyncio.gather(*(archiver.archive_soon(t) for t in tables[i:i + sweep]))
    return out


# -- the COPY peer -----------------------------------------------------------

PEER = "copy_peer"
PEER_1 = "copy_peer_1"


def make_peer_schemas(url: str) -> None:
    """The archive's tables (the same metadata) in the schemas ``copy_peer`` and ``copy_peer_1``."""
    import sqlalchemy as sa

    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    try:
        with engine.begin() as conn:
            for schema in (PEER, PEER_1):
                conn.exec_driver_sql(f"CREATE SCHEMA {schema}")
                archive_db.metadata.create_all(conn.execution_options(schema_translate_map={None: schema}))
    finally:
        engine.dispose()


GAME_COLUMNS = [c.name for c in games.c]
SEAT_COLUMNS = [c.name for c in seats.c]
LOG_COLUMN = GAME_COLUMNS.index("log")
Rows = tuple[list[tuple[Any, ...]], list[list[tuple[Any, ...]]]]


def archived_rows(url: str) -> Rows:
    """Every row of the archive's ``games`` and, by game, of ``seats``, as written."""
    import psycopg

    with psycopg.connect(psycopg_url(url), autocommit=True) as conn:
        game_rows = conn.execute(f"SELECT {', '.join(GAME_COLUMNS)} FROM public.games ORDER BY table_id").fetchall()
        by_table: dict[str, list[tuple[Any, ...]]] = defaultdict(list)
        for row in conn.execute(f"SELECT {', '.join(SEAT_COLUMNS)} FROM public.seats ORDER BY table_id, seat"):
            by_table[row[0]].append(row)
    return game_rows, [by_table[g[0]] for g in game_rows]


def copy_rows(url: str, schema: str, rows: Rows, per_game: bool) -> Meter:
    """COPY ``rows`` into ``schema``'s games and seats (one transaction, or
    one per game): the meter of the writes and commits (connection made before)."""
    import psycopg

    gsql = f"COPY {schema}.games ({', '.join(GAME_COLUMNS)}) FROM STDIN"
    ssql = f"COPY {schema}.seats ({', '.join(SEAT_COLUMNS)}) FROM STDIN"
    gtuples, stuples = rows
    batches = [(gtuples[i:i + 1], stuples[i]) for i in range(len(gtuples))] if per_game else \
        [(gtuples, [s for ss in stuples for s in ss])]
    with psycopg.connect(psycopg_url(url)) as conn:
        conn.execute("SELECT 1")
        conn.commit()
        with Meter() as m:
            for g_batch, s_batch in batches:
                with conn.cursor() as cur:
                    with cur.copy(gsql) as cp:
                        for t in g_batch:
                            cp.write_row(t)
                    with cur.copy(ssql) as cp:
                        for t in s_batch:
                            cp.write_row(t)
                conn.commit()
    return m


def relation_bytes(url: str, schema: str) -> int:
    import psycopg

    with psycopg.connect(psycopg_url(url), autocommit=True) as conn:
        row = conn.execute(f"SELECT pg_total_relation_size('{schema}.games') + pg_total_relation_size('{schema}.seats')"
                           ).fetchone()
    assert row is not None
    return int(row[0])


def relation_parts(url: str, schema: str) -> dict[str, int]:
    """Bytes of each part of ``schema``'s games and seats: heap, TOAST (with its index), each index."""
    import psycopg

    sql = """
    SELECT c.relname || ' heap',
           pg_relation_size(c.oid) + pg_relation_size(c.oid, 'fsm') + pg_relation_size(c.oid, 'vm')
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = %(s)s AND c.relname IN ('games', 'seats')
    UNION ALL
    SELECT c.relname || ' TOAST', pg_total_relation_size(c.reltoastrelid)
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = %(s)s AND c.relname IN ('games', 'seats') AND c.reltoastrelid <> 0
    UNION ALL
    SELECT i.relname, pg_relation_size(i.oid)
      FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = %(s)s AND c.relname IN ('games', 'seats')
    """
    with psycopg.connect(psycopg_url(url), autocommit=True) as conn:
        return {str(name): int(size) for name, size in conn.execute(sql, {"s": schema}).fetchall()}


def server_version(url: str) -> str:
    import psycopg

    with psycopg.connect(psycopg_url(url), autocommit=True) as conn:
        row = conn.execute("SHOW server_version").fetchone()
    return str(row[0]).split()[0] if row else "?"


# -- SQLite ------------------------------------------------------------------

def checkpointed_size(archive: Archive, path: Path) -> int:
    """The SQLite file's size once its WAL is checkpointed into it."""
    with archive.engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    return path.stat().st_size


async def sqlite_bytes(path: Path, records: list[ArchivedGame]) -> tuple[int, int, Meter]:
    """(empty file bytes, full file bytes, meter of the puts) of the records put into a SQLite archive."""
    archive = Archive(f"sqlite:///{path}")
    try:
        await archive.ensure_schema()
        empty = checkpointed_size(archive, path)
        with Meter() as m:
            for rec in records:
                await archive.put(rec)
        return empty, checkpointed_size(archive, path), m
    finally:
        await archive.close()


# -- the run -----------------------------------------------------------------

def commit() -> str:
    root = Path(__file__).resolve().parents[1]
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"
    return head + (" (with uncommitted changes)" if dirty else "")


async def run(args: argparse.Namespace, redis_url: str, pg_url: str, tmp: Path) -> dict[str, Any]:
    from redis.asyncio import Redis

    n = args.games
    out: dict[str, Any] = {"games": n, "sweep": args.sweep, "batch_max": args.batch, "strategy": args.strategy}
    redis = Redis.from_url(redis_url)
    store = EventStore(redis, archiving=True)
    base_ms = int(time.time() * 1000) - 86_400_000
    ts = uuid.uuid4().hex[:6]
    tables = [f"b{ts}{i:06d}" for i in range(n)]

    # warm-up: one game filled, measured and archived, so that the scripts are
    # loaded and every command used below has run once before the baseline
    warm_archive = Archive("sqlite://")
    await warm_archive.ensure_schema()
    warm = Archiver(store, Tables(store), warm_archive, after_ms=0, retry_ms=60_000,
                    now_ms=lambda: int(time.time() * 1000))
    await fill_one(store, f"w{ts}", args.seed - 1, args.strategy, base_ms)
    await bytes_by_kind(redis, [f"w{ts}"])
    await fields_per_game(redis, [f"w{ts}"])
    await redis.hget(keys.meta(f"w{ts}"), "version")
    assert await warm.archive_now(f"w{ts}") == "archived"
    await keys_left(redis, [f"w{ts}"])
    await warm_archive.close()
    await redis.connection_pool.disconnect()
    used_memory(redis_url)
    mem0 = used_memory(redis_url)

    with Meter() as m_fill:
        await fill(store, tables, args.strategy, args.seed, base_ms)
    await redis.connection_pool.disconnect()
    mem1 = used_memory(redis_url)
    kinds = await bytes_by_kind(redis, tables)
    out["fill"] = {"seconds": round(m_fill.wall, 2)}
    out["cmds_fields_per_game"] = round(await fields_per_game(redis, tables), 1)
    async with redis.pipeline(transaction=False) as pipe:
        for t in tables:
            pipe.hget(keys.meta(t), "version")
        out["events_per_game"] = round(statistics.fmean(int(v) for v in await pipe.execute()), 1)
    print(f"filled {n} finished games in {m_fill.wall:.1f} s ({out['events_per_game']} events, "
          f"{out['cmds_fields_per_game']} command records a game)\n", flush=True)

    # (a) the archiver
    archive = Archive(pg_url)
    await archive.ensure_schema()
    empty_pg = relation_bytes(pg_url, "public")
    empty_parts = relation_parts(pg_url, "public")
    await asyncio.gather(*(archive.count() for _ in range(4)))  # warm the pool, as a worker's is
    archiver = Archiver(store, Tables(store), archive, after_ms=0, retry_ms=60_000,
                        now_ms=lambda: int(time.time() * 1000), batch_max=args.batch)
    archiver._schema_ready = True  # migrated above, as a running worker's first archive did long ago
    split = Split()
    records: list[ArchivedGame] = []
    batches: list[int] = []
    with instrumented(archiver, split, records, batches), Meter() as m_arch:
        results = await archive_all(archiver, tables, args.sweep)
    await archive.close()
    bad = [r for r in results if r != "archived"]
    if bad:
        raise SystemExit(f"{len(bad)} tables not archived: {sorted(set(bad))}")
    await redis.connection_pool.disconnect()
    mem2 = used_memory(redis_url)
    left_keys = await keys_left(redis, tables)
    # by kind, exactly: a sample filled anew, its keys deleted kind by kind
    sample = [f"s{ts}{i:06d}" for i in range(min(n, args.kind_sample))]
    await fill(store, sample, args.strategy, args.seed + n, base_ms)
    drops = await kind_drops(redis, redis_url, sample)
    await redis.aclose()
    full_pg = relation_bytes(pg_url, "public")
    full_parts = relation_parts(pg_url, "public")

    # (b) the COPY peers, the same rows: read back from the archive's tables as written
    rows = await asyncio.to_thread(archived_rows, pg_url)
    make_peer_schemas(pg_url)
    empty_peer = relation_bytes(pg_url, PEER)
    m_copy = await asyncio.to_thread(copy_rows, pg_url, PEER, rows, False)
    full_peer = relation_bytes(pg_url, PEER)
    m_copy1 = await asyncio.to_thread(copy_rows, pg_url, PEER_1, rows, True)

    arch_rate, copy_rate, copy1_rate = n / m_arch.wall, n / m_copy.wall, n / m_copy1.wall
    out["postgresql"] = server_version(pg_url)
    out["rate"] = {
        "archiver_games_per_s": round(arch_rate, 1), "archiver_s": round(m_arch.wall, 3),
        "archiver_cpu_s": round(m_arch.cpu, 2), "archiver_busy_cores": round(m_arch.busy_cores, 2),
        "copy_games_per_s": round(copy_rate, 1), "copy_s": round(m_copy.wall, 3),
        "copy_cpu_s": round(m_copy.cpu, 2), "copy_busy_cores": round(m_copy.busy_cores, 2),
        "copy_per_game_games_per_s": round(copy1_rate, 1), "copy_per_game_s": round(m_copy1.wall, 3),
        "ratio": round(arch_rate / copy_rate, 4), "ratio_per_game_copy": round(arch_rate / copy1_rate, 4),
    }
    sec = split.seconds
    sec["put_many: transaction"] = sec["put_many: in its thread"]
    sec["put_many: rest"] = sec["put_many"] - sec["put_many: in its thread"]
    sec["other"] = sec["archive_batch"] - sum(sec[k] for k in ("read meta + log", "build_record", "zstd", "put_many",
                                                                "verify_many", "drop from Redis"))
    out["split_ms_per_game"] = {k: round(sec[k] / n * 1000, 3) for k in STEPS}
    out["archive_batch_ms_per_game"] = round(sec["archive_batch"] / n * 1000, 3)
    out["batches"] = batches

    # bytes
    kind_bytes = {k: v[1] / n for k, v in kinds.items()}
    filled = (mem1 - mem0) / n
    out["redis_bytes_per_game"] = {
        "before_archiving": round(filled, 1),
        **{k: round(v, 1) for k, v in kind_bytes.items()},
        "keys_memory_usage": round(sum(kind_bytes.values()), 1),
        **{f"{k}_used_memory": round(v, 1) for k, v in drops.items()},
        "kind_sample": len(sample),
        "shared_sets_and_rest": round(filled - sum(drops.values()), 1),
        "left_after_archiving": round((mem2 - mem0) / n, 1),
        "keys_left": left_keys,
    }
    sq_empty, sq_full, m_sq = await sqlite_bytes(tmp / "archive.db", records)
    out["archive_bytes_per_game"] = {
        "postgresql": round(full_pg / n, 1), "postgresql_growth": round((full_pg - empty_pg) / n, 1),
        "postgresql_empty_tables": empty_pg,
        "copy_peer": round(full_peer / n, 1), "copy_peer_growth": round((full_peer - empty_peer) / n, 1),
        "sqlite": round(sq_full / n, 1), "sqlite_growth": round((sq_full - sq_empty) / n, 1),
        "log_raw": round(statistics.fmean(sum(len(e) for e in r.log) for r in records), 1),
        "log_zstd": round(statistics.fmean(len(g[LOG_COLUMN]) for g in rows[0]), 1),
    }
    out["postgresql_parts_per_game"] = {k: round(v / n, 1) for k, v in sorted(full_parts.items())}
    out["postgresql_parts_growth_per_game"] = {k: round((v - empty_parts.get(k, 0)) / n, 1)
                                               for k, v in sorted(full_parts.items())}
    out["sqlite_put_games_per_s"] = round(n / m_sq.wall, 1)
    report(out, m_arch, m_copy, m_copy1, m_sq)
    return out


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT MET"


def report(out: dict[str, Any], m_arch: Meter, m_copy: Meter, m_copy1: Meter, m_sq: Meter) -> None:
    n, r = out["games"], out["rate"]
    print(f"rate (PostgreSQL {out['postgresql']}, {n} games):")
    sizes = out["batches"]
    print(f"  archiver       {r['archiver_games_per_s']:9.1f} games/s  ({r['archiver_s']:.2f} s, sweeps of "
          f"{out['sweep']}, {len(sizes)} batches = transactions (sizes {', '.join(map(str, sizes))}); "
          f"{m_arch.text()})")
    print(f"  COPY           {r['copy_games_per_s']:9.1f} games/s  ({r['copy_s']:.3f} s, one COPY a table, "
          f"one transaction; {m_copy.text()})")
    print(f"  COPY per game  {r['copy_per_game_games_per_s']:9.1f} games/s  ({r['copy_per_game_s']:.3f} s, "
          f"one transaction a game; {m_copy1.text()})")
    print(f"  ratio archiver/COPY {r['ratio']:.3f} (target >= 0.5: {verdict(r['ratio'] >= 0.5)}); "
          f"archiver/COPY per game {r['ratio_per_game_copy']:.3f}")
    split = out["split_ms_per_game"]
    total = sum(split.values())
    print(f"\narchiver's time by step (summed over batches, ms a game; up to {archiver_mod.BATCHES_AT_ONCE} "
          f"batches overlap):")
    for k, v in split.items():
        print(f"  {k:<16} {v:8.2f} ms  {v / total:6.1%}" if total else f"  {k:<16} {v:8.2f} ms")
    b = out["redis_bytes_per_game"]
    print(f"\nRedis bytes per game: before archiving {b['before_archiving']:,.0f} B (used_memory growth) "
          f"= meta {b['meta_used_memory']:,.0f} + events {b['events_used_memory']:,.0f} + snap "
          f"{b['snap_used_memory']:,.0f} + cmds {b['cmds_used_memory']:,.0f} ({out['cmds_fields_per_game']} fields) "
          f"+ the shared sets' entries and the rest {b['shared_sets_and_rest']:,.0f}")
    print(f"  (by kind: used_memory's fall as {b['kind_sample']} more games' keys are deleted kind by kind; "
          f"MEMORY USAGE ... SAMPLES 0 says meta {b['meta']:,.0f}, events {b['events']:,.0f}, snap {b['snap']:,.0f}, "
          f"cmds {b['cmds']:,.0f}, sum {b['keys_memory_usage']:,.0f})")
    print(f"  left after archiving {b['left_after_archiving']:,.1f} B a game "
          f"(target <= 1024: {verdict(b['left_after_archiving'] <= 1024)}); table keys left: {b['keys_left']}")
    a = out["archive_bytes_per_game"]
    print(f"\narchive bytes per game: PostgreSQL games+seats with indexes and TOAST {a['postgresql']:,.0f} B "
          f"(target <= 6144: {verdict(a['postgresql'] <= 6144)}), growth over the empty tables "
          f"{a['postgresql_growth']:,.0f} B; COPY peer's {a['copy_peer']:,.0f} B (growth {a['copy_peer_growth']:,.0f})")
    print("  PostgreSQL by part (B a game, growth over the empty tables): " + ", ".join(
        f"{k} {v:,.0f}" for k, v in out["postgresql_parts_growth_per_game"].items()))
    print(f"  SQLite file {a['sqlite']:,.0f} B (growth {a['sqlite_growth']:,.0f} B; put one at a time "
          f"{out['sqlite_put_games_per_s']:.1f} games/s, {m_sq.text()}); log raw {a['log_raw']:,.0f} B, "
          f"zstd {a['log_zstd']:,.0f} B")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=500, help="finished games to archive (default 500)")
    ap.add_argument("--sweep", type=int, default=500,
                    help="tables handed to the archiver together, as one sweep claims them (default 500: a sweep "
                         "claims up to 100 a partition)")
    ap.add_argument("--batch", type=int, default=archiver_mod.BATCH_MAX,
                    help=f"the archiver's batch_max (default {archiver_mod.BATCH_MAX}; 1: one table a transaction)")
    ap.add_argument("--strategy", default="heuristic", help="the bots' strategy (default heuristic)")
    ap.add_argument("--seed", type=int, default=22_000, help="seed of the first game")
    ap.add_argument("--url", default=SERVER_URL,
                    help=f"PostgreSQL server to make the throwaway database on (default {SERVER_URL})")
    ap.add_argument("--kind-sample", type=int, default=100,
                    help="games filled again to weigh the key kinds with used_memory (default 100, at most --games)")
    ap.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    args = ap.parse_args(argv)
    if args.games < 1 or args.sweep < 1 or args.batch < 1:
        ap.error("--games, --sweep and --batch must be at least 1")
    print(f"archive bench: {args.games} finished {PLAYERS}-player Mau Mau games ({args.strategy} bots), "
          f"commit {commit()}, {os.cpu_count()} cores", flush=True)
    with private_redis() as redis_url, throwaway_database(args.url) as pg_url, \
            tempfile.TemporaryDirectory(prefix="tapis-archive-bench-") as tmp:
        print(f"private redis {redis_url}; throwaway database {pg_url.rsplit('/', 1)[-1]}\n", flush=True)
        out = asyncio.run(run(args, redis_url, pg_url, Path(tmp)))
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
