"""End-to-end chaos (CI size): tables keep finishing and no acknowledged
action is lost or applied twice while processes and Redis are killed.

The harness is :mod:`tests.e2e.chaos_lib` (workload, nemesis, checker;
the same one ``loadtests/chaos.py`` runs at full size).  It starts its
own ``redis-server`` (append-only file, ``appendfsync always``) on a free
port in 18100-18199 — not the Redis at 6379 — then a gateway, two
workers and ``tapis bots``.

Workload: 30 all-bot tables (Mau Mau to 30 points, 3-4 seats; Mauw, 2-3
seats; random and heuristic bots) created over 28 s, and 3 Mau Mau tables
where a client thread plays seat 0 over HTTP with command ids, resending
the same id until it gets a definite answer.  Bots pause 100 ms before a
move (``TAPIS_BOT_DELAY_MS``) so that tables are in play when faults hit.

Faults (:func:`chaos_lib.ci_schedule`, 3-31 s): SIGKILL worker 0; worker 1
started with ``TAPIS_CHAOS_KILL_AFTER_APPEND=5`` kills itself between an
append and the bot enqueue; SIGKILL the bot worker; Redis SHUTDOWN and
restart from its AOF (down 1 s); SIGKILL the gateway (restarted on the
same port); SIGKILL worker 1; Redis SIGKILL and restart (down 0.5 s);
SIGKILL worker 0.  Every killed process is restarted.

Checks (the checker's verdict): every table finishes within 120 s of the
last fault; each acknowledged action is in its table's log exactly once;
every command id's events are one contiguous run; versions are 1..N;
replaying the log gives what the gateway serves and the stored status;
no dead letters; nothing left pending or due.  Takes about 45-60 s.
"""

from __future__ import annotations

from collections import Counter

import pytest

from tests.e2e import chaos_lib, procs

pytestmark = pytest.mark.skipif(not procs.redis_server_installed(),
                                reason=f"no redis-server at {procs.REDIS_SERVER}")


@pytest.mark.timeout(300)
def test_tables_finish_and_no_acknowledged_action_is_lost_or_doubled_under_faults(tmp_path):
    cfg = chaos_lib.ChaosConfig()  # CI size (see module doc)
    planned = Counter(f.kind for f in cfg.schedule)
    assert cfg.tables >= 20 and planned["kill_worker"] + planned["hook_kill_worker"] >= 3
    assert planned["hook_kill_worker"] >= 1 and planned["kill_bots"] >= 1
    assert planned["restart_redis"] >= 1 and planned["kill_gateway"] >= 1

    lines: list[str] = []
    verdict = chaos_lib.run(cfg, tmp_path, say=lines.append)
    report = "\n".join(lines) + "\n\n" + verdict.summary()
    (tmp_path / "summary.txt").write_text(report)
    print(report)

    assert verdict.ok, (f"{report}\n\nstuck tables explained:\n{verdict.diagnostics_text}\n"
                        f"(logs of every process in {tmp_path / 'logs'})")
    # The run was what it claims to be.
    injected = Counter(r.fault.kind for r in verdict.faults)
    assert injected == planned, verdict.summary()
    assert verdict.tables >= cfg.tables + cfg.human_tables
    assert set(verdict.by_game) == {"maumau", "mauw"}
    assert verdict.acked >= 20, f"the people's clients had only {verdict.acked} actions acknowledged"
    hit = [r for r in verdict.faults if r.in_play > 0]
    assert len(hit) >= len(verdict.faults) - 1, f"faults that found no table in play: {verdict.summary()}"
    assert verdict.time_to_finish_s is not None and verdict.time_to_finish_s <= cfg.bound_s
