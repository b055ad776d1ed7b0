"""The service bench (loadtests/run_service_bench.py): its pure helpers,
and one tiny end-to-end run with real processes on the real Redis
(database 13), sized by ``TAPIS_SERVICE_BENCH_SECONDS`` (default 2 s of
play, 4 tables)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "loadtests"))

import run_service_bench as bench

SECONDS = float(os.environ.get("TAPIS_SERVICE_BENCH_SECONDS", "2"))
BENCH_REDIS_URL = os.environ.get("TAPIS_BENCH_REDIS_URL", "")  # set by tests/conftest.py (its own Redis)


def test_histogram_delta_counts_only_the_observations_between_scrapes():
    key = ("tapis_submit_reply_seconds", "")
    before = {key: {"sum": 1.0, "count": 10, "le:0.005": 4, "le:0.01": 10, "le:+Inf": 10}}
    # 100 more observations: 60 under 5 ms, 39 under 10 ms, 1 slow one
    after = {key: {"sum": 1.0 + 0.9, "count": 110, "le:0.005": 64, "le:0.01": 109, "le:+Inf": 110}}
    d = bench.histogram_delta(before, after)
    assert d == {"submit_reply": {"count": 100, "mean_ms": 9.0, "p50_le": 5.0, "p99_le": 10.0}}
    assert bench.histogram_delta(after, after) == {}


def test_fold_profile_shares_and_idle_samples(tmp_path):
    raw = tmp_path / "p.txt"
    raw.write_text(
        "process 1:main;run (/x/lib/python3.11/asyncio/runners.py:1);select (/x/lib/python3.11/selectors.py:468) 50\n"
        "process 1:main;handle (/work/main/services/worker/worker.py:10);decide (/work/main/shared/games/maumau/rules.py:5) 30\n"
        "process 1:main;handle (/work/main/services/worker/worker.py:10);execute (/s/site-packages/redis/client.py:9) 10\n"
        "process 1:main;EpollSelector.select (/x/lib/python3.11/selectors.py:468) 60\n"
    )
    p = bench.fold_profile(raw)
    assert p["samples"] == 90 and p["idle"] == 60  # the bare epoll wait is idle
    assert dict(p["self_by_area"]) == {"engine (shared/)": round(30 / 90, 3), "asyncio": round(50 / 90, 3),
                                       "redis-py": round(10 / 90, 3)}
    assert dict(p["inclusive_by_area"])["tapis worker"] == round(40 / 90, 3)
    assert p["top_self"][0] == ("select (selectors.py:468)", round(50 / 90, 3))
    assert ("handle (services/worker/worker.py:10)", round(40 / 90, 3)) in p["top_inclusive"]


def _step(tables: int, applied: int, elapsed: float, cpu: dict[str, float], views: int, p50: float, p99: float) -> dict:
    return {"config": {"tables": tables}, "actions_applied": applied, "actions_per_s": round(applied / elapsed, 1),
            "submit_ms": {"p50": p50, "p99": p99}, "processes_cpu_s": cpu,
            "requests": {"view": views, "submit": applied, "create": 9, "join": 36}}


def test_compare_with_the_bare_app_divides_per_applied_action():
    tapis = _step(50, 2000, 10.0, {"gateway0": 2.0, "worker0": 0.5, "worker1": 0.7, "redis-server": 0.2,
                                   "driver": 3.0}, views=2400, p50=60.0, p99=120.0)
    bare = _step(50, 4000, 10.0, {"bare0": 2.0, "redis-server": 0.4, "driver": 6.0}, views=4000, p50=30.0, p99=96.0)
    c = bench.compare(tapis, bare)
    assert c["tables"] == 50
    assert c["tapis"] == {"actions_per_s": 200.0, "submit_p50_ms": 60.0, "submit_p99_ms": 120.0,
                          "server_cpu_ms_per_action": 1.7, "front_cpu_ms_per_action": 1.0,
                          "workers_cpu_ms_per_action": 0.6, "redis_cpu_ms_per_action": 0.1,
                          "driver_cpu_ms_per_action": 1.5, "requests_per_action": 2.2}
    assert c["peer"] == {"actions_per_s": 400.0, "submit_p50_ms": 30.0, "submit_p99_ms": 96.0,
                         "server_cpu_ms_per_action": 0.6, "front_cpu_ms_per_action": 0.5,
                         "workers_cpu_ms_per_action": 0.0, "redis_cpu_ms_per_action": 0.1,
                         "driver_cpu_ms_per_action": 1.5, "requests_per_action": 2.0}
    assert c["ratio"] == {"actions_per_s": 0.5, "submit_p50_ms": 2.0, "submit_p99_ms": 1.25,
                          "server_cpu_ms_per_action": 2.833, "front_cpu_ms_per_action": 2.0,
                          "workers_cpu_ms_per_action": None, "redis_cpu_ms_per_action": 1.0,
                          "driver_cpu_ms_per_action": 1.0, "requests_per_action": 1.1}
    md = bench.compare_markdown([c])
    assert "| **server CPU ms per applied action** | 1.70 | 0.60 | 2.83× |" in md
    assert "| … workers | 0.60 | 0.00 | — |" in md


@pytest.mark.slow
@pytest.mark.redis
def test_tiny_service_bench_with_real_processes(tmp_path):
    import redis

    if not BENCH_REDIS_URL:
        pytest.skip("no Redis for the tests (install redis-server or set TAPIS_BENCH_REDIS_URL)")
    try:
        bench.flush_db(BENCH_REDIS_URL)
    except (redis.RedisError, OSError):
        pytest.skip(f"no Redis at {BENCH_REDIS_URL}")
    out = bench.run_bench(gateways=1, workers=1, tables=(4,), duration=SECONDS, redis_url=BENCH_REDIS_URL,
                          port_base=19120, shards=2, engine_games=2, logdir=tmp_path / "logs", peer="bare")
    (step,) = out["steps"]
    assert step["actions_applied"] > 0 and step["unexpected_errors"] == 0 and step["errors"] == {}
    assert set(step["processes_cpu_s"]) == {"gateway0", "worker0", "redis-server", "driver"}
    # The gateway applies most commands itself (services/worker/direct.py): the
    # worker process may spend less than one clock tick (0.01 s) in a short step.
    assert step["processes_cpu_s"]["gateway0"] > 0 and step["processes_cpu_s"]["worker0"] >= 0
    # the histograms were read from the processes' /metrics
    assert step["server"]["submit_reply"]["count"] == step["actions_applied"]
    # The worker also applies what the driver does not count as actions: one
    # command a table whose reply the driver, stopped at its deadline, no
    # longer awaited, and the start of each table the driver opened (those
    # opened during the step after a game ended; CI saw 3067 applies for
    # 3059 actions).
    applied = step["server"]["apply_duration"]["count"]
    assert step["actions_applied"] <= applied <= step["actions_applied"] + 4 + step["games_started"]
    assert step["redis_commands"]["evalsha"]["calls"] >= step["actions_applied"]
    eng = out["engine"]
    assert eng["games"] == 2 and eng["actions_per_cpu_s"] > eng["games_per_cpu_s"] > 0
    assert eng["decide_evolve_per_cpu_s"] > 0 and eng["rebuild_ms"] > 0 and 10 < eng["actions_per_game"] < 10_000
    md = bench.bench_markdown(out, "tiny")
    assert "| 4 | " in md and "ms per applied action" in md
    # the bare app, driven the same way right after, and both side by side
    (peer,) = out["peer"]["steps"]
    assert peer["actions_applied"] > 0 and peer["errors"] == {} and peer["view_misses"] == 0
    assert set(peer["processes_cpu_s"]) == {"bare0", "redis-server", "driver"}
    (c,) = out["comparison"]
    assert c["tables"] == 4 and c["tapis"] == bench.figures(step) and c["peer"] == bench.figures(peer)
    # (the workers may spend less than one clock tick in a short step: see above)
    assert c["tapis"]["workers_cpu_ms_per_action"] >= 0 and c["peer"]["workers_cpu_ms_per_action"] == 0
    for k, r in c["ratio"].items():
        if c["peer"][k]:
            assert r == round(c["tapis"][k] / c["peer"][k], 3), k
    assert c["ratio"]["server_cpu_ms_per_action"] > 0
    assert "### 4 tables: Tapis against the bare app" in md and "| figure | Tapis | bare app | Tapis / bare |" in md
    # every process was stopped and the bench database flushed
    assert redis.Redis.from_url(BENCH_REDIS_URL).dbsize() == 0
    for line in (tmp_path / "logs" / "gateway0.log").read_text().splitlines():
        assert "Traceback" not in line


@pytest.mark.redis
def test_gateway_cost_in_process_at_a_tiny_size():
    """loadtests/gateway_cost.py: both apps played, CPU per request of each
    route, the ratios computed from its own figures; the database flushed."""
    import asyncio

    import gateway_cost
    import redis

    if not BENCH_REDIS_URL:
        pytest.skip("no Redis for the tests (install redis-server or set TAPIS_BENCH_REDIS_URL)")
    res = asyncio.run(gateway_cost.run(BENCH_REDIS_URL, actions=6, rounds=2, profile="tapis-view"))
    assert res["actions_per_app"] == 6 and res["rounds"] == 2
    t, b = res["us_per_request"]["tapis"], res["us_per_request"]["bare"]
    assert t["requests"]["action"] <= 6 and b["requests"]["action"] == 6  # the bare app never refuses
    assert t["view"] > 0 and t["action"] > 0 and b["view"] > 0 and b["action"] > 0
    md = gateway_cost.markdown(res)
    assert f"| GET /tables/{{T}}/view | {t['view']:,.0f} | {b['view']:,.0f} | {t['view'] / b['view']:.2f}× |" in md
    assert res["profile"]["route"] == "tapis-view" and "Ordered by: cumulative time" in res["profile"]["text"]
    assert redis.Redis.from_url(BENCH_REDIS_URL).dbsize() == 0
