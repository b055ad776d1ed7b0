"""The headless load driver (loadtests/driver.py) at a CI size: against
an in-process service (gateway + worker on fakeredis, through httpx's
ASGI transport), and against a real uvicorn server on the real Redis
(database 13).  Sizes come from ``TAPIS_DRIVER_TEST_TABLES`` (default 5)
and ``TAPIS_DRIVER_TEST_ACTIONS`` (default 30 actions per table)."""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time

import httpx
import pytest

from loadtests import driver
from loadtests.driver import (
    Driver,
    DriverConfig,
    percentiles,
    to_markdown,
    write_report,
)

TABLES = int(os.environ.get("TAPIS_DRIVER_TEST_TABLES", "5"))
ACTIONS = int(os.environ.get("TAPIS_DRIVER_TEST_ACTIONS", "30"))
BENCH_REDIS_URL = os.environ.get("TAPIS_BENCH_REDIS_URL", "redis://127.0.0.1:6379/13")
UVICORN_PORT = 19190  # the load bench's port range is 19100-19199

REPORT_KEYS = {
    "config", "gateways", "setup_s", "elapsed_s", "actions_applied", "actions_per_s", "events_appended",
    "submit_ms", "view_ms", "setup_ms", "requests", "requests_per_s", "view_misses", "views_in_answers", "errors",
    "unexpected_errors", "games_started", "games_finished", "tables_abandoned", "driver_cpu_s", "driver_cpu_share",
}
SUMMARY_KEYS = {"count", "mean", "p50", "p95", "p99", "max"}


@pytest.fixture
async def asgi_service():
    """Gateway + one worker (no bots) over a private fakeredis, as an
    httpx AsyncClient factory on the ASGI app (lifespan running)."""
    from fakeredis import FakeServer
    from fakeredis.aioredis import FakeRedis

    from services.config import Settings
    from services.serve import build_serve_app

    redis = FakeRedis(server=FakeServer())
    # The driver is measured, not the rate limits (a fast run passes 20 actions a second a seat).
    app = build_serve_app(Settings(redis_url=None, shards=2, reply_timeout_s=5, rate_limits=False), bots="none",
                          redis=redis)
    clients: list[httpx.AsyncClient] = []

    def factory(n: int) -> list[httpx.AsyncClient]:
        made = [httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://tapis") for _ in range(n)]
        clients.extend(made)
        return made

    async with app.router.lifespan_context(app):
        try:
            yield factory
        finally:
            for c in clients:
                await c.aclose()
    await redis.aclose()


def check_shape(report: dict, tables: int) -> None:
    assert set(report) - {"client"} == REPORT_KEYS  # drive() names its client
    assert report["config"]["tables"] == tables
    for key in ("submit_ms", "view_ms", "setup_ms"):
        s = report[key]
        assert set(s) == SUMMARY_KEYS, key
        assert 0 < s["p50"] <= s["p95"] <= s["p99"] <= s["max"], (key, s)
    assert report["submit_ms"]["count"] == report["actions_applied"] == report["requests"]["submit"]
    assert report["view_ms"]["count"] == report["requests"]["view"]
    # every applied action appended at least one event
    assert report["events_appended"] >= report["actions_applied"]
    assert report["actions_per_s"] == pytest.approx(report["actions_applied"] / report["elapsed_s"], rel=0.01)
    json.dumps(report)  # JSON-ready


@pytest.mark.parametrize("post_view", [True, False])
async def test_driver_applies_the_action_budget_with_no_error(asgi_service, post_view):
    cfg = DriverConfig(tables=TABLES, players=4, duration_s=10, actions_per_table=ACTIONS, seed=1, post_view=post_view)
    report = await Driver(asgi_service(TABLES), cfg).run()
    check_shape(report, TABLES)
    assert report["errors"] == {}
    assert report["unexpected_errors"] == 0
    # the budget, not the 10 s bound, ended the run: every slot applied exactly its share
    assert report["actions_applied"] == TABLES * ACTIONS
    assert report["elapsed_s"] < 10
    assert report["games_started"] == TABLES
    assert report["requests"]["create"] == TABLES and report["requests"]["join"] == TABLES * 4
    # every view is followed by an action, or counted as a miss (seat not awaited, another seat chosen)
    # (post_view: some views come in an action's answer, no GET)
    assert report["requests"]["view"] + report["views_in_answers"] == report["actions_applied"] + report["view_misses"]
    assert (report["views_in_answers"] > 0) == post_view
    assert report["view_misses"] < report["actions_applied"]


@pytest.mark.parametrize("game,players,strategy", [("maudix", 3, None), ("maudix", 3, "heuristic"),
                                                   ("maudit_mot_dit", 3, None), ("maudit_mot_dit", 3, "random")])
async def test_driver_fills_choices(asgi_service, game, players, strategy):
    """The Maudix écart and Maudit Mot Dit's words come as `choices`: the driver fills them."""
    cfg = DriverConfig(tables=1, game=game, players=players, duration_s=20, actions_per_table=12, seed=2,
                       strategy=strategy)
    report = await Driver(asgi_service(1), cfg).run()
    assert report["actions_applied"] == 12
    # a random clue may still fall foul of a clue rule the schema cannot state
    assert set(report["errors"]) <= {"422 clue_same_family", "422 clue_same_family_as_earlier", "422 clue_repeated",
                                     "422 clue_not_french"}


async def test_finished_games_are_replaced_by_new_tables(asgi_service):
    # target_score 1 with 1-card hands: a random game takes 37 actions on
    # average (median 14); 150 actions per slot leave P(no game ends) < 1e-3
    cfg = DriverConfig(tables=3, players=2, duration_s=30, actions_per_table=150, seed=2,
                       options={"target_score": 1, "hand_size": 1})
    report = await Driver(asgi_service(3), cfg).run()
    check_shape(report, 3)
    assert report["unexpected_errors"] == 0 and report["errors"] == {}
    assert report["games_finished"] >= 1
    # a slot opens its next table when a game ends, while budget remains
    assert report["games_finished"] <= report["games_started"] <= 3 + report["games_finished"]
    assert report["requests"]["create"] == report["games_started"]
    assert report["actions_applied"] == 3 * 150


async def test_duration_bounds_the_run(asgi_service):
    cfg = DriverConfig(tables=2, players=3, duration_s=1.0, seed=3)  # no action budget
    t0 = time.perf_counter()
    report = await Driver(asgi_service(2), cfg).run()
    assert time.perf_counter() - t0 < 1.0 + report["setup_s"] + 3.0
    assert 1.0 <= report["elapsed_s"] < 4.0
    assert report["actions_applied"] > 0 and report["unexpected_errors"] == 0


async def test_stale_version_is_counted_and_recovered(asgi_service):
    """A 409 (someone else moved first) is counted, not fatal: the slot
    re-reads its view and goes on."""
    clients = asgi_service(1)
    cfg = DriverConfig(tables=1, players=2, duration_s=10, actions_per_table=10, seed=4)
    d = Driver(clients, cfg)
    real = clients[0].request
    spoiled = []

    async def request(method, url, **kw):
        if method == "POST" and "/actions" in url and not spoiled:
            spoiled.append(url)
            kw["json"] = {**kw["json"], "expected_version": kw["json"]["expected_version"] - 1}
        return await real(method, url, **kw)

    clients[0].request = request  # type: ignore[method-assign]
    report = await d.run()
    assert report["errors"] == {"409 stale_version": 1}
    assert report["unexpected_errors"] == 0
    assert report["actions_applied"] == 10 and report["requests"]["submit"] == 11


async def test_human_pace_thinks_before_each_action(asgi_service):
    cfg = DriverConfig(tables=2, players=4, duration_s=20, actions_per_table=5, seed=6, think_mean_s=0.01)
    report = await Driver(asgi_service(2), cfg).run()
    check_shape(report, 2)
    assert report["config"]["think_mean_s"] == 0.01
    assert report["actions_applied"] == 10 and report["errors"] == {}
    assert "human pace (think time exponential, mean 0.01 s, before each action)" in to_markdown(report)


def test_capacity_is_the_most_tables_within_the_bound():
    def step(tables: int, p99: float, unexpected: int = 0, applied: int = 100) -> dict:
        return {"config": {"tables": tables, "think_mean_s": 3.0}, "submit_ms": {"p50": 1.0, "p99": p99},
                "view_ms": {"p99": 2.0}, "unexpected_errors": unexpected, "actions_applied": applied,
                "actions_per_s": 10.0, "errors": {}, "driver_cpu_s": 0.1}

    ramp = [step(500, 20.0), step(1000, 99.9), step(2000, 100.1)]
    assert driver.capacity_of(ramp) == 1000
    assert driver.capacity_of(ramp, p99_ms=10) == 0
    assert driver.capacity_of([step(500, 20.0), step(1000, 50.0, unexpected=1)]) == 500
    assert driver.capacity_of([step(500, 20.0, applied=0)]) == 0
    md = driver.capacity_markdown({"p99_ms": 100.0, "steps": ramp, "capacity": 1000})
    assert "| 1,000 | 3 | 10.0 | 1.0 / 99.9 | 2.0 | 0 | 1.00 |" in md
    assert "Capacity: **1,000 tables** with submit→reply p99 ≤ 100 ms." in md


def test_percentiles_nearest_rank():
    s = percentiles([i / 1000 for i in range(1, 101)])  # 1..100 ms
    assert s == {"count": 100, "mean": 50.5, "p50": 50.0, "p95": 95.0, "p99": 99.0, "max": 100.0}
    assert percentiles([]) == {"count": 0, "mean": 0.0, "p50": 0.0, "p95": 0.0, "p99": 0.0, "max": 0.0}
    assert percentiles([0.002])["p99"] == 2.0


def test_report_is_written_as_json_and_markdown(tmp_path):
    report = {
        "config": {"tables": 2, "game": "maumau", "players": 4, "duration_s": 5.0, "actions_per_table": None,
                   "options": {}, "strategy": None, "seed": 0, "request_timeout_s": 30.0},
        "gateways": ["http://g"], "setup_s": 0.1, "elapsed_s": 5.0, "actions_applied": 500, "actions_per_s": 100.0,
        "events_appended": 520, "submit_ms": percentiles([0.01, 0.02]), "view_ms": percentiles([0.005]),
        "setup_ms": percentiles([0.001]), "requests": {"submit": 500, "view": 550}, "requests_per_s": 210.0,
        "view_misses": 50, "errors": {"409 stale_version": 2}, "unexpected_errors": 0, "games_started": 2,
        "games_finished": 0, "tables_abandoned": 0, "driver_cpu_s": 1.0, "driver_cpu_share": 0.2,
    }
    pj, pm = write_report(report, tmp_path / "sub" / "run1")
    assert pj.name == "run1.json" and pm.name == "run1.md"
    assert json.loads(pj.read_text()) == report
    md = pm.read_text()
    assert md == to_markdown(report) + "\n"
    assert "| applied actions/s | **100.0** (500 in 5.0 s) |" in md
    assert "| 409 stale_version | 2 |" in md
    assert "| submit→reply (POST round trip) p50 / p95 / p99 / max | 10.0 / 20.0 / **20.0** / 20.0 ms |" in md


def test_cli_exit_code_and_report_against_a_dead_url(tmp_path):
    """Nothing listening: every request is a transport error, the run
    stops at its bound and the command exits 1."""
    out = tmp_path / "dead"
    code = driver.main(["--url", "http://127.0.0.1:19199", "--tables", "2", "--duration", "0.5",
                        "--timeout", "1", "--out", str(out)])
    assert code == 1
    rep = json.loads((tmp_path / "dead.json").read_text())
    assert rep["actions_applied"] == 0 and rep["unexpected_errors"] > 0
    assert all(k.startswith("transport ") for k in rep["errors"])


def _real_redis_available() -> bool:
    import redis

    try:
        redis.Redis.from_url(BENCH_REDIS_URL, socket_connect_timeout=0.5).ping()
        return True
    except (redis.RedisError, OSError):
        return False


@pytest.fixture
def uvicorn_service():
    """The all-in-one service (gateway + worker, no bots) on real Redis
    (database 13, flushed before and after), served by uvicorn on a
    thread at 127.0.0.1:19190."""
    if not _real_redis_available():
        pytest.skip(f"no Redis at {BENCH_REDIS_URL}")
    import redis
    import uvicorn

    from services.config import Settings
    from services.serve import build_serve_app

    sync = redis.Redis.from_url(BENCH_REDIS_URL)
    sync.flushdb()
    app = build_serve_app(Settings(redis_url=BENCH_REDIS_URL, shards=2, reply_timeout_s=5, rate_limits=False),
                          bots="none")  # one client address drives every table
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=UVICORN_PORT, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{UVICORN_PORT}"
    try:
        for _ in range(200):
            try:
                if httpx.get(url + "/readyz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if not thread.is_alive():
                pytest.fail("uvicorn did not start (port taken?)")
            time.sleep(0.05)
        else:
            pytest.fail("the service did not become ready")
        yield url
    finally:
        server.should_exit = True
        thread.join(15)
        sync.flushdb()
        sync.close()


@pytest.mark.redis
def test_driver_over_real_http_and_redis(uvicorn_service):
    cfg = DriverConfig(tables=TABLES, players=4, duration_s=40, actions_per_table=ACTIONS, seed=5)  # ends at ACTIONS; time bound for a busy machine
    report = asyncio.run(driver.drive([uvicorn_service], cfg))
    check_shape(report, TABLES)
    assert report["client"] == "fast"
    assert report["gateways"] == [uvicorn_service]
    assert report["errors"] == {} and report["unexpected_errors"] == 0
    assert report["actions_applied"] == TABLES * ACTIONS
