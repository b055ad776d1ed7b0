"""Archive bytes per finished game and history paging time (issue 22, "Done when").

Plays ``--games`` finished 4-player Mau Mau games with bots (a share
``--people`` of the seats held by people named from a pool of ``--names``,
their token hashes in the meta as the store keeps them), archives each with :meth:`Archive.put` and prints:

* the archive's bytes per game: on PostgreSQL ``pg_total_relation_size``
  of ``games`` and ``seats`` (rows, TOAST, indexes) over the games; on
  SQLite the file's used pages (WAL checkpointed) over the games; the
  compressed log alone for comparison;
* with ``--paging``: a player's whole history read page by page
  (``Archive.search(player=…, limit=50)``, keyset cursor) for ``--paging``
  random names: the time of each page, p50/p99/max.

PostgreSQL runs in a throwaway database made on the tests' server
(``TAPIS_TEST_POSTGRES_URL``, default ``postgresql://postgres@127.0.0.1:5432/``)
and dropped at the end.

Usage: ``python loadtests/archive_bytes.py [--games 1000] [--backend postgresql|sqlite|both] [--paging 200]``
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sqlalchemy as sa

from services.archive import Archive, ArchivedGame, build_record
from tests.archive_fixtures import finished_game, own_database

BASE_MS = 1_780_000_000_000


def make_games(n: int, names: int, share: float, seed: int = 1) -> list[ArchivedGame]:
    rng = random.Random(seed)
    pool = [f"player{i:04d}" for i in range(names)]
    out = []
    for i in range(n):
        bots = tuple(rng.choice(["random", "heuristic"]) for _ in range(4))
        people = {s: rng.choice(pool) for s in range(4) if rng.random() < share}
        g = finished_game(f"t{i:06d}{rng.getrandbits(24):06x}", seed=i, bots=bots, people=people,
                          end_ms=BASE_MS + i * 7_000 + rng.randrange(7_000))
        out.append(build_record(g.table, g.meta, g.log))
    return out


def used_bytes(archive: Archive) -> int:
    with archive.engine.connect() as conn:
        if archive.dialect == "postgresql":
            return int(conn.execute(sa.text(
                "SELECT pg_total_relation_size('games') + pg_total_relation_size('seats')")).scalar_one())
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        pages = conn.exec_driver_sql("PRAGMA page_count").scalar_one()
        free = conn.exec_driver_sql("PRAGMA freelist_count").scalar_one()
        size = conn.exec_driver_sql("PRAGMA page_size").scalar_one()
        return int((pages - free) * size)


async def measure(url: str, recs: list[ArchivedGame], paging: int) -> None:
    archive = Archive(url)
    await archive.ensure_schema()
    empty = used_bytes(archive)
    t0 = time.perf_counter()
    for rec in recs:
        await archive.put(rec)
    put_s = time.perf_counter() - t0
    if archive.dialect == "postgresql":
        with archive.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.exec_driver_sql("VACUUM ANALYZE games")
            conn.exec_driver_sql("VACUUM ANALYZE seats")
    n = len(recs)
    total = used_bytes(archive) - empty
    blob = sum(len(r) for r in _blobs(recs)) / n
    print(f"{archive.dialect}: {n} games, {total / n:,.0f} bytes a game ({total / n / 1024:.2f} KiB;"
          f" log blob alone {blob:,.0f}); put {n / put_s:,.0f} games/s (one at a time)")
    if paging:
        names = sorted({s.name for r in recs for s in r.summary.seats if s.kind == "person"})
        rng = random.Random(2)
        times = []
        games = 0
        for name in rng.sample(names, min(paging, len(names))):
            cursor = None
            while True:
                t = time.perf_counter()
                page = await archive.search(player=name, limit=50, cursor=cursor)
                times.append(time.perf_counter() - t)
                games += len(page.items)
                if (cursor := page.next) is None:
                    break
        times.sort()
        ms = [x * 1000 for x in times]
        print(f"  paging by player: {len(times)} pages ({games} games), p50 {statistics.median(ms):.1f} ms,"
              f" p99 {ms[int(len(ms) * 0.99) - 1]:.1f} ms, max {ms[-1]:.1f} ms")
    await archive.close()


def _blobs(recs: list[ArchivedGame]) -> list[bytes]:
    from services.archive.db import pack_log

    return [pack_log(r.log) for r in recs]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--names", type=int, default=300, help="Size of the pool of people's names.")
    ap.add_argument("--people", type=float, default=0.5, help="Share of the seats people hold (0: all bots).")
    ap.add_argument("--backend", choices=["postgresql", "sqlite", "both"], default="both")
    ap.add_argument("--paging", type=int, default=0, help="Players whose whole history is paged through.")
    args = ap.parse_args()
    t = time.perf_counter()
    recs = make_games(args.games, args.names, args.people)
    print(f"{len(recs)} games played in {time.perf_counter() - t:.1f} s,"
          f" {statistics.mean(r.summary.events for r in recs):.0f} events a game")
    if args.backend in ("sqlite", "both"):
        with tempfile.TemporaryDirectory() as d:
            asyncio.run(measure(f"sqlite:///{Path(d) / 'archive.db'}", recs, args.paging))
    if args.backend in ("postgresql", "both"):
        with own_database() as url:
            asyncio.run(measure(url, recs, args.paging))


if __name__ == "__main__":
    main()
