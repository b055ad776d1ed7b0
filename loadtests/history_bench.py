"""History paging: `GET /history?player=<name>` over 10,000 archived games
(issue 22, "Done when": p99 <= 50 ms a page).

Fills an archive with ``--games`` finished 4-player Mau Mau games: a
handful of real games played by bots (:func:`shared.engine.play`), each
archived record reused with its own table id, players and times (names
drawn from a pool of ``--names`` with Zipf weights, so a few players have
thousands of games and most a few dozen; about half the seats are people,
the others bots of two strategies).  The rows are bulk-inserted in the
shape :meth:`Archive.put` writes (checked: a sample is read back and
verified with :meth:`Archive.verify`).

Then pages through the whole history of ``--players`` players (the 5
busiest and random others), ``--limit`` games a page, following ``next``,
``--rounds`` times, timing each page two ways side by side, in alternating
order:

* ``api``: ``GET /history?player=…&limit=…&cursor=…`` on the gateway's
  ASGI app (``create_app``, every middleware, httpx's ASGITransport);
* ``db``: the same page straight from the database layer the route calls
  (:meth:`Archive.search`), so ``api / db`` is the HTTP layer's cost.

Both must return the same tables page after page.  The slowest pages are
the garbage collector's full passes over the process's ~90,000 objects
(FastAPI, pydantic, SQLAlchemy, the games: 40-90 ms each here), which the
API path's allocations trigger; ``--gc-freeze`` calls :func:`gc.freeze`
once warm, as a gateway could after its start, to measure without them.
PostgreSQL runs in a
throwaway database made on ``--server`` (default
``postgresql://postgres@127.0.0.1:5432/``, or ``TAPIS_BENCH_POSTGRES_URL``)
and dropped at the end; SQLite in a temporary file.

Usage::

    python loadtests/history_bench.py [--games 10000] [--backend postgresql|sqlite|both]
        [--players 40] [--rounds 3] [--limit 50] [--names 2000] [--gc-freeze]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx
import sqlalchemy as sa

from services.archive.db import Archive, games, pack_log, seats
from services.archive.model import ArchivedGame, SeatRecord, build_record
from shared.engine import play
from shared.events import Event, encode
from shared.games import get_game
from tests.archive_fixtures import own_database

SERVER_URL = os.environ.get("TAPIS_BENCH_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/")
#: 2026-06-01T00:00:00Z: the first game's end; the others follow.
BASE_MS = 1_780_272_000_000
TARGET_P99_MS = 50.0


def base_games(n: int, seed: int) -> list[ArchivedGame]:
    """``n`` real 4-player Mau Mau games played to the end by bots,
    stamped 1 s apart and archived by :func:`build_record`."""
    game = get_game("maumau")
    out = []
    for i in range(n):
        rng = random.Random(seed * 1000 + i)
        played = play(game, ["heuristic", "random", "heuristic", "random"], rng)
        events = [Event(e.type, e.data, e.seat, ts=BASE_MS + v * 1000, cmd=f"b{e.seat}.{v}")
                  for v, e in enumerate(played.events)]
        meta = {"game": "maumau", "players": "4", "options": "{}", "version": str(len(events)),
                "status": "finished", "created": str(BASE_MS - 5000)}
        for s in range(4):
            meta[f"seat:{s}"] = "bot:heuristic" if s % 2 == 0 else "bot:random"
            meta[f"name:{s}"] = f"bot {s}"
        out.append(build_record(f"base{i}", meta, [encode(e) for e in events]))
    return out


def zipf_pool(names: int) -> tuple[list[str], list[float]]:
    """``names`` player names and their Zipf weights (1/rank)."""
    return [f"player{i:05d}" for i in range(names)], [1 / (i + 1) for i in range(names)]


def variants(bases: list[ArchivedGame], n: int, names: int, seed: int) -> Iterator[tuple[ArchivedGame, bytes]]:
    """``n`` records made from ``bases``: each with its own table id, end
    time (7 s apart on average), seat names (a person from the pool with
    probability 1/2, else a bot) and the matching meta; with the log's blob."""
    rng = random.Random(seed)
    pool, weights = zipf_pool(names)
    blobs = [pack_log(b.log) for b in bases]
    ended = BASE_MS
    for i in range(n):
        k = rng.randrange(len(bases))
        b = bases[k]
        s = b.summary
        ended += rng.randrange(1, 14_000)
        shift = ended - s.ended_ms
        table = f"{i:06d}{rng.getrandbits(40):010x}"
        seat_records, meta = [], dict(b.meta)
        people = rng.choices(pool, weights, k=4)
        for r in s.seats:
            if rng.random() < 0.5:
                name, kind, strategy = people[r.seat], "person", None
                meta[f"seat:{r.seat}"] = "tok:" + uuid.UUID(int=rng.getrandbits(128)).hex * 2
            else:
                strategy = rng.choice(["heuristic", "random"])
                name, kind = f"{strategy} bot {r.seat}", "bot"
                meta[f"seat:{r.seat}"] = f"bot:{strategy}"
            meta[f"name:{r.seat}"] = name
            seat_records.append(SeatRecord(r.seat, name, kind, strategy, r.place, r.score))
        summary = replace(s, table=table, created_ms=s.created_ms + shift, started_ms=s.started_ms + shift,
                          ended_ms=ended, seats=tuple(seat_records))
        yield replace(b, summary=summary, meta=meta), blobs[k]


def rows(rec: ArchivedGame, blob: bytes) -> tuple[dict, list[dict]]:
    """The ``games`` row and ``seats`` rows of ``rec``, as :meth:`Archive.put` writes them."""
    s = rec.summary

    def js(obj):
        return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)

    game = {"table_id": s.table, "game": s.game, "players": s.players, "options": js(s.options),
            "created_ms": s.created_ms, "started_ms": s.started_ms, "ended_ms": s.ended_ms, "events": s.events,
            "winners": js(list(s.winners)), "result": None if s.result is None else js(s.result),
            "meta": js(rec.meta), "digest": rec.digest, "log": blob, "archived_ms": s.ended_ms + 300_000}
    seat_rows = [{"table_id": s.table, "seat": r.seat, "ended_ms": s.ended_ms, "name": r.name, "kind": r.kind,
                  "strategy": r.strategy, "place": r.place, "score": r.score} for r in s.seats]
    return game, seat_rows


def fill(archive: Archive, n: int, names: int, seed: int) -> tuple[float, list[ArchivedGame]]:
    """Bulk-insert ``n`` games (1,000 a transaction); returns the seconds it
    took and a sample of the records written."""
    t0 = time.perf_counter()
    bases = base_games(6, seed)
    sample: list[ArchivedGame] = []
    batch_games: list[dict] = []
    batch_seats: list[dict] = []

    def flush() -> None:
        with archive.engine.begin() as conn:
            conn.execute(games.insert(), batch_games)
            conn.execute(seats.insert(), batch_seats)
        batch_games.clear()
        batch_seats.clear()

    for i, (rec, blob) in enumerate(variants(bases, n, names, seed)):
        g, s = rows(rec, blob)
        batch_games.append(g)
        batch_seats.extend(s)
        if i % 997 == 0:
            sample.append(rec)
        if len(batch_games) == 1000:
            flush()
    if batch_games:
        flush()
    with archive.engine.begin() as conn:
        if archive.dialect == "postgresql":
            conn.execute(sa.text("ANALYZE games"))
            conn.execute(sa.text("ANALYZE seats"))
        else:
            conn.execute(sa.text("ANALYZE"))
    return time.perf_counter() - t0, sample


@dataclass
class Timings:
    api: list[float]
    db: list[float]
    games: int = 0
    players: int = 0


async def page_through(url: str, players: list[str], limit: int, *, rounds: int = 1,
                       gc_freeze: bool = False) -> Timings:
    """Every page of each player's history, ``rounds`` times, through the
    API and straight from the database, in alternating order; both must
    agree.  ``gc_freeze``: once warm, move every object so far out of the
    garbage collector's reach (:func:`gc.freeze`), as a gateway could after
    its start."""
    from fakeredis import FakeServer
    from fakeredis.aioredis import FakeRedis

    from services.config import Settings
    from services.gateway.app import create_app

    settings = Settings(redis_url=None, archive_url=url, rate_limits=False)
    app = create_app(settings, FakeRedis(server=FakeServer()))
    peer = Archive(url)
    out = Timings([], [])
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://tapis") as client:

            async def api(name: str, cursor: str | None) -> tuple[list[str], str | None]:
                params = {"player": name, "limit": str(limit)}
                if cursor:
                    params["cursor"] = cursor
                r = await client.get("/history", params=params)
                r.raise_for_status()
                body = r.json()
                return [x["table"] for x in body["items"]], body["next"]

            async def db(name: str, cursor: str | None) -> tuple[list[str], str | None]:
                page = await peer.search(player=name, limit=limit, cursor=cursor)
                return [s.table for s in page.items], page.next

            for name in players[:3]:  # warm both paths (connections, caches, the first import)
                await api(name, None)
                await db(name, None)
            if gc_freeze:
                gc.collect()
                gc.freeze()
            flip = False
            for name in players * rounds:
                cursor: str | None = None
                while True:
                    got = {}
                    for which in (("api", "db") if flip else ("db", "api")):
                        t0 = time.perf_counter()
                        got[which] = await (api if which == "api" else db)(name, cursor)
                        getattr(out, which).append((time.perf_counter() - t0) * 1000)
                    flip = not flip
                    if got["api"] != got["db"]:
                        raise AssertionError(f"{name}: the API and the database disagree at cursor {cursor}")
                    out.games += len(got["api"][0])
                    cursor = got["api"][1]
                    if cursor is None:
                        break
                out.players += 1
    await peer.close()
    if gc_freeze:
        gc.unfreeze()
    return out


def machine_busy_s() -> float:
    """Seconds of CPU the whole machine spent busy since boot (``/proc/stat``:
    all but idle and iowait, every core)."""
    with open("/proc/stat") as f:
        ticks = [int(x) for x in f.readline().split()[1:]]
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def run(url: str, label: str, args: argparse.Namespace) -> bool:
    archive = Archive(url)
    archive.migrate()
    secs, sample = fill(archive, args.games, args.names, args.seed)
    bad = [r.summary.table for r in sample
           if not asyncio.run(archive.verify(r.summary.table, r.digest, r.summary.events))]
    if bad:
        raise AssertionError(f"rows not as Archive.put writes them: {bad}")
    count = asyncio.run(archive.count())
    with archive.engine.connect() as conn:
        games_of = sa.select(seats.c.name, sa.func.count(sa.distinct(seats.c.table_id)))
        per: dict[str, int] = dict(conn.execute(games_of.where(seats.c.kind == "person").group_by(seats.c.name)).all())
    asyncio.run(archive.close())
    busiest = sorted(per, key=lambda n: -per[n])
    rng = random.Random(args.seed)
    players = busiest[:5] + rng.sample(busiest[5:], min(len(busiest) - 5, args.players - 5))
    busy0, mine0, wall0 = machine_busy_s(), time.process_time(), time.perf_counter()
    t = asyncio.run(page_through(url, players, args.limit, rounds=args.rounds, gc_freeze=args.gc_freeze))
    wall = time.perf_counter() - wall0
    mine, busy = time.process_time() - mine0, machine_busy_s() - busy0
    median = statistics.median(per.values())
    print(f"\n{label}: {count:,} games archived in {secs:.1f} s ({count / secs:,.0f} games/s, bulk insert);"
          f" {len(per):,} players, the busiest with {per[busiest[0]]:,} games, the median {median:.0f}")
    print(f"paged {len(players)} players' whole histories {args.rounds} times ({t.games:,} games, {len(t.api):,} pages"
          f" of up to {args.limit}; the 5 busiest: {', '.join(f'{per[n]:,}' for n in busiest[:5])} games)"
          + ("; gc.freeze() once warm" if args.gc_freeze else ""))
    print(f"{'per page (ms)':<28}{'p50':>8}{'p90':>8}{'p99':>8}{'max':>8}")
    for name, xs in (("GET /history (ASGI app)", t.api), ("Archive.search (database)", t.db)):
        print(f"{name:<28}{pct(xs, 50):>8.2f}{pct(xs, 90):>8.2f}{pct(xs, 99):>8.2f}{max(xs):>8.2f}")
    print(f"{'api / db':<28}{pct(t.api, 50) / pct(t.db, 50):>8.2f}{pct(t.api, 90) / pct(t.db, 90):>8.2f}"
          f"{pct(t.api, 99) / pct(t.db, 99):>8.2f}")
    print(f"while paging ({wall:.1f} s): this process used {mine / wall:.0%} of a core, everything else"
          f" (the database server included) {(busy - mine) / wall:.0%} of a core;"
          f" load average {os.getloadavg()[0]:.1f}")
    ok = pct(t.api, 99) <= TARGET_P99_MS
    print(f"target p99 <= {TARGET_P99_MS:.0f} ms through the API: {'met' if ok else 'MISSED'}")
    return ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--backend", choices=["postgresql", "sqlite", "both"], default="postgresql")
    ap.add_argument("--players", type=int, default=40, help="How many players' whole histories to page through.")
    ap.add_argument("--limit", type=int, default=50, help="Games a page.")
    ap.add_argument("--names", type=int, default=2000, help="Size of the players' name pool.")
    ap.add_argument("--server", default=SERVER_URL, help="PostgreSQL server to make the throwaway database on.")
    ap.add_argument("--rounds", type=int, default=3, help="Page through the players' histories this many times.")
    ap.add_argument("--gc-freeze", action="store_true",
                    help="gc.freeze() once warm: the collector's full passes skip the objects made at start-up.")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    ok = True
    if args.backend in ("postgresql", "both"):
        with own_database(args.server, prefix="tapis_bench") as url:
            ok &= run(url, "PostgreSQL (throwaway database)", args)
    if args.backend in ("sqlite", "both"):
        with tempfile.TemporaryDirectory(prefix="tapis-history-bench-") as d:
            ok &= run(f"sqlite:///{d}/archive.db", "SQLite (a temporary file)", args)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
