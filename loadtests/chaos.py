"""Chaos run at full size: the harness of ``tests/e2e/chaos_lib.py``
(workload, nemesis, checker) with hundreds of tables and a fault every
few seconds (docs/reliability.md).

It starts its own ``redis-server`` (append-only file, ``appendfsync
always``, a free port in 18100-18199; never the Redis at 6379), a
gateway, two workers and ``tapis bots``; creates ``--tables`` all-bot
tables (Mau Mau to 30 points and Mauw, random and heuristic bots) spread
over the run, and ``--human-tables`` Mau Mau tables whose seat 0 a client
thread plays over HTTP with command ids; injects a fault every
``--kill-every`` seconds for ``--duration`` seconds (worker SIGKILLs,
every other one through ``TAPIS_CHAOS_KILL_AFTER_APPEND``, the bot worker,
the gateway) with ``--redis-restarts`` Redis restarts from the AOF
(alternately SHUTDOWN and SIGKILL); then checks that every table finishes
within ``--bound`` seconds of the last fault and that no acknowledged
action is lost or applied twice, and prints tables finished / stuck /
actions lost / duplicated, the faults and the time to finish.

With ``--archive`` (issue 22) finished tables are archived 2 s after their
end into a PostgreSQL cluster the run starts for itself (tests/pg_cluster.py:
initdb + pg_ctl in a temporary directory; never the machine's server), the
cycle of faults adds worker SIGKILLs timed when a table is being archived and
PostgreSQL restarts (``pg_ctl stop -m immediate``, down 4 s), and the checker
wants every table archived exactly once, its archived log identical to the
Redis log recorded before, and the same ``/events`` before and after.

Usage::

    python loadtests/chaos.py                          # 250 tables, a fault every 10 s for 180 s, 2 Redis restarts
    python loadtests/chaos.py --redrive-bot-ms 2000    # the CI test's re-drive delay: storms at this size
    python loadtests/chaos.py --tables 40 --duration 40 --kill-every 5 --redis-restarts 1
    python loadtests/chaos.py --archive                # and archive into a throwaway PostgreSQL
    python loadtests/chaos.py --work-dir /tmp/chaos --json /tmp/chaos/summary.json

Exit status 0 when every check passed, 1 otherwise.  The processes'
logs stay in ``--work-dir`` (a new temporary directory by default).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.e2e import chaos_lib, procs


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tables", type=int, default=250, help="all-bot tables (half Mau Mau, half Mauw)")
    p.add_argument("--human-tables", type=int, default=10, help="Mau Mau tables whose seat 0 is played over HTTP")
    p.add_argument("--duration", type=float, default=180.0, help="seconds of faults (and of table creation)")
    p.add_argument("--kill-every", type=float, default=10.0, help="seconds between faults")
    p.add_argument("--redis-restarts", type=int, default=2, help="Redis restarts among the faults")
    p.add_argument("--hook-after", type=int, default=5,
                   help="TAPIS_CHAOS_KILL_AFTER_APPEND of the workers killed through the hook")
    p.add_argument("--bound", type=float, default=600.0, help="every table must finish this long after the last fault")
    p.add_argument("--redrive-bot-ms", type=int, default=10_000,
                   help="TAPIS_REDRIVE_BOT_MS (the production default; the harness's 2000 ms re-drive storms at this "
                        "size when bots fall behind: docs/reliability.md)")
    p.add_argument("--bot-delay-ms", type=int, default=100, help="TAPIS_BOT_DELAY_MS (keeps tables in play)")
    p.add_argument("--env", action="append", default=[], metavar="TAPIS_X=VALUE",
                   help="a setting for every role, over the harness's (e.g. TAPIS_REDRIVE_BOT_MS=10000); repeatable")
    p.add_argument("--archive", action="store_true",
                   help="archive finished tables into a throwaway PostgreSQL cluster (restarted among the faults)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--work-dir", type=Path, default=None, help="logs and Redis data (default: a new temp dir)")
    p.add_argument("--json", type=Path, default=None, help="also write the summary as JSON here")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not procs.redis_server_installed():
        print(f"no redis-server at {procs.REDIS_SERVER} (set TAPIS_E2E_REDIS_SERVER)", file=sys.stderr)
        return 2
    if args.archive:
        from tests.pg_cluster import postgres_cluster_missing

        if why := postgres_cluster_missing():
            print(f"--archive: no throwaway PostgreSQL cluster here: {why}", file=sys.stderr)
            return 2
    work = args.work_dir or Path(tempfile.mkdtemp(prefix="tapis-chaos-"))
    work.mkdir(parents=True, exist_ok=True)
    schedule = chaos_lib.full_schedule(args.duration, args.kill_every, args.redis_restarts, args.hook_after,
                                       archive=args.archive)
    cfg = chaos_lib.ChaosConfig(
        tables=args.tables, human_tables=args.human_tables, create_over_s=args.duration,
        human_start_over_s=args.duration * 0.8, bot_delay_ms=args.bot_delay_ms, schedule=schedule,
        bound_s=args.bound, seed=args.seed, archive=args.archive,
        env={"TAPIS_REDRIVE_BOT_MS": str(args.redrive_bot_ms), **dict(kv.split("=", 1) for kv in args.env)},
    )
    t0 = time.time()

    def say(msg: str) -> None:
        print(f"[{time.time() - t0:7.1f}] {msg}", flush=True)

    say(f"{args.tables} all-bot + {args.human_tables} person tables, {len(schedule)} faults over "
        f"{args.duration:.0f} s ({', '.join(f.label() + f'@{f.at_s:g}' for f in schedule)}); work dir {work}")
    v = chaos_lib.run(cfg, work, say=say)
    print()
    print(v.summary())
    if v.diagnostics_text:
        print("\nstuck tables explained:\n" + v.diagnostics_text)
    if args.json:
        out = {
            "ok": v.ok, "tables": v.tables, "finished": v.finished, "stuck": v.stuck, "acked": v.acked,
            "lost": v.lost, "duplicated": v.duplicated, "refused_but_applied": v.refused_but_applied,
            "log_errors": v.log_errors, "replay_mismatches": v.replay_mismatches, "dead_letters": v.dead_letters,
            "leftovers": v.leftovers, "archive": v.archive, "archive_problems": v.archive_problems,
            "unexpected_exits": v.unexpected_exits, "known_exits": v.known_exits,
            "faults": [{**dataclasses.asdict(r.fault), "started": round(r.started, 1), "ended": round(r.ended, 1),
                        "ok": r.ok, "detail": r.detail, "in_play": r.in_play} for r in v.faults],
            "time_to_finish_s": v.time_to_finish_s, "bound_s": v.bound_s, "elapsed_s": round(v.elapsed_s, 1),
            "events": v.events, "bot_moves": v.bot_moves, "by_game": dict(v.by_game), "client": v.workload,
            "timeline": v.timeline,
            "settings": {**chaos_lib.FAST_SETTINGS, **(chaos_lib.ARCHIVE_SETTINGS if args.archive else {}), **cfg.env,
                         "TAPIS_BOT_DELAY_MS": str(cfg.bot_delay_ms)},
            "args": {k: str(x) for k, x in vars(args).items()}, "work_dir": str(work),
        }
        args.json.write_text(json.dumps(out, indent=2))
    print(f"\nlogs: {work / 'logs'}")
    return 0 if v.ok else 1


if __name__ == "__main__":
    sys.exit(main())
