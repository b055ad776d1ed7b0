"""Redis bytes of a table's command records: one key per command (before)
against one hash per table (after) (issue 22, "Command records fit the
table").

Starts a ``redis-server`` of its own (a free port, nothing on disk; never
the Redis at 6379), plays ``--games`` all-bot 4-player Mau Mau games
(``--strategy`` bots) through the embedded service (gateway, worker and
in-process bots over that server; no archive, so the finished tables stay),
then measures each finished table's command records with ``MEMORY USAGE
… SAMPLES 0`` (every element counted):

* ``hash``: the table's ``tapis:{p}:T:cmds`` hash as the service wrote it
  (its encoding in the ``enc`` column: ``listpack`` while it holds at most
  ``hash-max-listpack-entries`` fields, 512 by default, of at most 64
  bytes);
* ``hashtable``: the same fields and values copied into a hash of a key of
  the same length with ``hash-max-listpack-entries 0``, i.e. what the hash
  costs once it is no longer a listpack (a game of more than 512 commands,
  or a server configured lower);
* ``keys``: the records as the versions before kept them, replayed as one
  string key per command, ``tapis:{p}:T:cmd:<id>`` = ``ok <first> <last>
  <digest>`` with a TTL (``EX 86400``), the digest at its former 16 hex
  digits (the hash keeps 12; each legacy value is padded to the length it
  had), summed over the keys; the keys are removed after they are
  measured.

Prints one line per game (commands, events, the three sizes, hash / keys)
and the totals and means; with ``--keys-left`` also every key the finished
tables leave by kind (meta, events, snap, cmds) and their bytes.

Usage::

    python loadtests/command_records.py --games 30
    python loadtests/command_records.py --games 10 --strategy random --keys-left
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))

from services.store import keys  # noqa: E402

#: Length of a record's digest in the keys of the versions before the hash.
LEGACY_DIGEST = 16


async def play(url: str, games: int, strategy: str, timeout_s: float) -> list[str]:
    """Play ``games`` all-bot 4-player Mau Mau tables to their end through
    the embedded service on ``url``; returns the finished table ids."""
    import httpx

    from services.config import Settings
    from services.serve import build_serve_app

    settings = Settings(redis_url=url, shards=2, rate_limits=False, archive_url="none", finished_retention_s=0)
    app = build_serve_app(settings)
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://tapis") as client:
            ids = []
            for _ in range(games):
                r = await client.post("/tables", json={"game": "maumau", "players": 4,
                                                       "bots": {str(i): strategy for i in range(4)}})
                r.raise_for_status()
                ids.append(r.json()["id"])
            deadline = time.monotonic() + timeout_s
            pending = set(ids)
            while pending and time.monotonic() < deadline:
                for t in list(pending):
                    if (await client.get(f"/tables/{t}")).json()["status"] == "finished":
                        pending.discard(t)
                await asyncio.sleep(0.2)
            if pending:
                raise SystemExit(f"{len(pending)} games did not finish in {timeout_s:.0f} s")
    return ids


async def measure(url: str, ids: list[str]) -> list[dict[str, Any]]:
    """Per table: commands, events and the three sizes (see module doc)."""
    from redis.asyncio import Redis

    r = Redis.from_url(url)
    rows = []
    try:
        entries = (await r.config_get("hash-max-listpack-entries"))["hash-max-listpack-entries"]
        for t in ids:
            key = keys.cmds(t)
            records = await r.hgetall(key)
            hash_b = await r.memory_usage(key, samples=0)
            enc = (await r.object("encoding", key)).decode()
            await r.config_set("hash-max-listpack-entries", 0)
            twin = key[:-1] + "h"  # a key of the same length
            try:
                await r.hset(twin, mapping=records)
                table_b = await r.memory_usage(twin, samples=0)
            finally:
                await r.config_set("hash-max-listpack-entries", entries)
                await r.delete(twin)
            legacy = []
            async with r.pipeline(transaction=False) as pipe:
                for field, value in records.items():
                    first, last, dig = value.decode().split(" ")
                    k = keys.cmd(t, field.decode())
                    legacy.append(k)
                    pipe.set(k, f"ok {first} {last} {dig.ljust(LEGACY_DIGEST, '0')}", ex=86_400)
                await pipe.execute()
            async with r.pipeline(transaction=False) as pipe:
                for k in legacy:
                    pipe.memory_usage(k, samples=0)
                keys_b = sum(await pipe.execute())
            await r.delete(*legacy)
            rows.append({"table": t, "commands": len(records), "events": int(await r.hget(keys.meta(t), "version")),
                         "hash": hash_b, "enc": enc, "hashtable": table_b, "keys": keys_b})
    finally:
        await r.aclose()
    return rows


async def keys_left(url: str, ids: list[str]) -> dict[str, tuple[int, int]]:
    """Every key of the tables ``ids`` by kind (the key name's last part):
    kind -> (count, bytes)."""
    from redis.asyncio import Redis

    r = Redis.from_url(url)
    count: Counter[str] = Counter()
    size: Counter[str] = Counter()
    try:
        for t in ids:
            async for k in r.scan_iter(match=f"tapis:{{p{keys.partition(t)}}}:{t}:*"):
                kind = k.decode().split(":", 3)[3].split(":")[0]
                count[kind] += 1
                size[kind] += await r.memory_usage(k, samples=0)
    finally:
        await r.aclose()
    return {k: (count[k], size[k]) for k in sorted(count)}


def report(rows: list[dict[str, Any]]) -> None:
    """Print the per-game lines, totals and means."""
    print(f"{'game':>4} {'table':<12} {'cmds':>5} {'events':>6} {'keys B':>8} {'hash B':>7} {'enc':<9} "
          f"{'hashtable B':>11} {'hash/keys':>9}")
    for i, row in enumerate(rows, 1):
        print(f"{i:>4} {row['table']:<12} {row['commands']:>5} {row['events']:>6} {row['keys']:>8,} "
              f"{row['hash']:>7,} {row['enc']:<9} {row['hashtable']:>11,} {row['hash'] / row['keys']:>9.2f}")
    n = len(rows)
    tot = {k: sum(row[k] for row in rows) for k in ("commands", "events", "keys", "hash", "hashtable")}
    print(f"{'all':>4} {n:<12} {tot['commands']:>5} {tot['events']:>6} {tot['keys']:>8,} {tot['hash']:>7,} "
          f"{'':<9} {tot['hashtable']:>11,} {tot['hash'] / tot['keys']:>9.2f}")
    print(f"\nper game (mean of {n}): {tot['commands'] / n:.1f} commands; one key per command "
          f"{tot['keys'] / n / 1024:.2f} KiB ({tot['keys'] / tot['commands']:.0f} B a command); one hash "
          f"{tot['hash'] / n / 1024:.2f} KiB ({tot['hash'] / tot['commands']:.0f} B a command, "
          f"{tot['hash'] / tot['keys']:.0%} of the keys'); the same hash as a hashtable "
          f"{tot['hashtable'] / n / 1024:.2f} KiB ({tot['hashtable'] / tot['keys']:.0%})")
    encodings = Counter(row["enc"] for row in rows)
    print("hash encodings: " + ", ".join(f"{k} {v}" for k, v in sorted(encodings.items())))


def main(argv: list[str] | None = None) -> int:
    """Run the games on a private Redis and print the comparison."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=30, help="all-bot 4-player Mau Mau games (default 30)")
    ap.add_argument("--strategy", default="heuristic", help="the bots' strategy (default heuristic)")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds for the games to finish")
    ap.add_argument("--keys-left", action="store_true", help="also list the finished tables' keys by kind")
    args = ap.parse_args(argv)
    from loadtests.archive_bench import private_redis

    with private_redis() as url:
        from redis import Redis

        version = Redis.from_url(url).info("server")["redis_version"]
        print(f"redis-server {version} at {url}; {args.games} all-bot 4-player Mau Mau games "
              f"({args.strategy} bots)\n")
        t0 = time.monotonic()
        ids = asyncio.run(play(url, args.games, args.strategy, args.timeout))
        print(f"played in {time.monotonic() - t0:.1f} s\n")
        report(asyncio.run(measure(url, ids)))
        if args.keys_left:
            print("\nkeys the finished tables leave (no archive, no retention), by kind:")
            for kind, (count, size) in asyncio.run(keys_left(url, ids)).items():
                print(f"  {kind:<7} {count:>5} keys {size:>9,} B  ({size / len(ids) / 1024:.2f} KiB a game)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
