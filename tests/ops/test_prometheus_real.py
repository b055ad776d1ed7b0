"""A real Prometheus (Debian package) scrapes a running `tapis serve`
(embedded store) and a `tapis exporter` (real Redis, db 12) every second,
with the alert rules loaded; bots play a few games through the HTTP API,
a person plays one action; Prometheus' HTTP API must then report the
applied actions, latency quantiles, the stream gauges, and healthy rules.

Ports: 19200-19299 on 127.0.0.1.  Every process is started here and
stopped in a finalizer.  Size: TAPIS_OPS_PROM_GAMES all-bot games
(default 3); about 15 s at that size.
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import yaml

from services.store import keys
from tests.ops.conftest import DEPLOY, OPS_REDIS_URL, free_port

pytestmark = [pytest.mark.redis, pytest.mark.slow, pytest.mark.timeout(120)]

PROMETHEUS = shutil.which("prometheus")
GAMES = int(os.environ.get("TAPIS_OPS_PROM_GAMES", "3"))
DEADLINE_S = 60.0


class Procs:
    """Processes started by this test; all stopped by :meth:`stop_all`."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.procs: list[tuple[str, subprocess.Popen]] = []

    def start(self, name: str, args: list[str], env: dict[str, str] | None = None) -> subprocess.Popen:
        log = open(self.tmp / f"{name}.log", "wb")  # noqa: SIM115 -- closed with the process
        p = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             env=env, cwd=self.tmp)
        log.close()
        self.procs.append((name, p))
        return p

    def log(self, name: str) -> str:
        path = self.tmp / f"{name}.log"
        return path.read_text(errors="replace")[-3000:] if path.exists() else ""

    def stop_all(self) -> None:
        for _name, p in reversed(self.procs):
            if p.poll() is None:
                p.terminate()
        for _name, p in reversed(self.procs):
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=5)


@pytest.fixture
def procs(tmp_path):
    ps = Procs(tmp_path)
    try:
        yield ps
    finally:
        ps.stop_all()


@pytest.fixture
def seeded_redis(real_sync_redis):
    """db 12 with one command stream: 3 commands, 1 delivered and not
    acknowledged (so lag 2, pending 1), and 1 dead letter."""
    r = real_sync_redis
    stream = keys.commands(0)
    r.xgroup_create(stream, keys.GROUP, id="0", mkstream=True)
    for i in range(3):
        r.xadd(stream, {"k": "act", "i": f"c{i}"})
    r.xreadgroup(keys.GROUP, "ops-test-consumer", {stream: ">"}, count=1)
    r.xadd(keys.DEAD_LETTERS, {"reason": "ops test"})
    return r


def wait_until(what: str, pred, timeout: float = 20.0, every: float = 0.2):
    """Poll ``pred`` until it returns a truthy value; return that value."""
    end = time.monotonic() + timeout
    last_exc = None
    while time.monotonic() < end:
        try:
            v = pred()
            if v:
                return v
        except (httpx.HTTPError, KeyError, IndexError, ValueError) as exc:
            last_exc = exc
        time.sleep(every)
    raise AssertionError(f"timed out waiting for {what} (last error: {last_exc!r})")


def prom_query(base: str, expr: str) -> list[dict]:
    r = httpx.get(f"{base}/api/v1/query", params={"query": expr}, timeout=5)
    r.raise_for_status()
    body = r.json()
    assert body["status"] == "success", body
    return body["data"]["result"]


def scalar(base: str, expr: str) -> float | None:
    """The value of a one-sample query; None when empty or NaN."""
    res = prom_query(base, expr)
    if not res:
        return None
    v = float(res[0]["value"][1])
    return None if math.isnan(v) else v


def direct_sum(text: str, name: str) -> float:
    """Sum of a metric's samples in a /metrics text."""
    from prometheus_client.parser import text_string_to_metric_families

    return sum(s.value for f in text_string_to_metric_families(text) for s in f.samples if s.name == name)


@pytest.mark.skipif(PROMETHEUS is None, reason="no prometheus binary (Debian package prometheus)")
def test_real_prometheus_scrapes_serve_and_exporter(procs, seeded_redis, tmp_path):
    t_start = time.monotonic()
    serve_port = free_port()
    exporter_port = free_port(skip={serve_port})
    prom_port = free_port(skip={serve_port, exporter_port})

    env = {k: v for k, v in os.environ.items() if not k.startswith("TAPIS_")}
    env["TAPIS_SHARDS"] = "2"
    env["TAPIS_BOT_DELAY_MS"] = "25"
    procs.start("serve", [sys.executable, "-m", "services.cli", "serve", "--host", "127.0.0.1",
                          "--port", str(serve_port), "--log-level", "warning"], env=env)
    procs.start("exporter", [sys.executable, "-m", "services.cli", "exporter", "--redis", OPS_REDIS_URL,
                             "--host", "127.0.0.1", "--port", str(exporter_port), "--log-level", "warning"], env=env)

    rules = tmp_path / "alerts.yml"
    rules.write_text((DEPLOY / "prometheus" / "alerts.yml").read_text())
    config = {
        "global": {"scrape_interval": "1s", "scrape_timeout": "900ms", "evaluation_interval": "1s"},
        "rule_files": [str(rules)],
        "scrape_configs": [
            {"job_name": "tapis-gateway", "static_configs": [{"targets": [f"127.0.0.1:{serve_port}"]}]},
            {"job_name": "tapis-exporter", "static_configs": [{"targets": [f"127.0.0.1:{exporter_port}"]}]},
        ],
    }
    (tmp_path / "prometheus.yml").write_text(yaml.safe_dump(config))
    procs.start("prometheus", [PROMETHEUS, f"--config.file={tmp_path / 'prometheus.yml'}",
                               f"--storage.tsdb.path={tmp_path / 'tsdb'}",
                               f"--web.listen-address=127.0.0.1:{prom_port}", "--log.level=warn"])
    api = f"http://127.0.0.1:{serve_port}"
    prom = f"http://127.0.0.1:{prom_port}"

    try:
        wait_until("tapis serve", lambda: httpx.get(f"{api}/healthz", timeout=1).status_code == 200)
        wait_until("prometheus", lambda: httpx.get(f"{prom}/-/ready", timeout=1).status_code == 200)
        client = httpx.Client(base_url=api, timeout=10)

        wait_until("the first scrape of serve", lambda: scalar(prom, 'up{job="tapis-gateway"}') == 1)

        # a person plays beside a bot: the table's start and first action
        # create the latency series before the bot games run
        t = client.post("/tables", json={"game": "maumau", "players": 2, "bots": {"1": "random"}}).json()["id"]
        token = client.post(f"/tables/{t}/join").json()["token"]
        auth = {"Authorization": f"Bearer {token}"}

        def play_my_turn():
            view = wait_until("my turn", lambda: (v := client.get(f"/tables/{t}/view", headers=auth).json())
                              and 0 in v["awaiting"] and v)
            r = client.post(f"/tables/{t}/actions", headers=auth,
                            json={"action": view["legal_actions"][0], "expected_version": view["version"]})
            assert r.status_code == 200, r.text

        play_my_turn()
        wait_until("Prometheus to see the first reply",
                   lambda: scalar(prom, "sum(tapis_submit_reply_seconds_count)") == 1)

        # bots play whole games (slowed to a few seconds, so that several
        # scrapes see the counters move)
        tables = []
        for _ in range(GAMES):
            r = client.post("/tables", json={"game": "maumau", "players": 3,
                                             "bots": {"0": "random", "1": "heuristic", "2": "random"}})
            assert r.status_code == 201, r.text
            tables.append(r.json()["id"])
        play_my_turn()

        def all_finished():
            return all(client.get(f"/tables/{tid}").json()["status"] == "finished" for tid in tables)
        wait_until("the bot games to finish", all_finished, timeout=40, every=0.3)
        # the human table settles on seat 0's turn: nothing moves any more
        wait_until("my turn again", lambda: 0 in client.get(f"/tables/{t}/view", headers=auth).json()["awaiting"])
        applied = direct_sum(client.get("/metrics").text, "tapis_actions_applied_total")
        finished = direct_sum(client.get("/metrics").text, "tapis_games_finished_total")
        assert finished == GAMES
        assert direct_sum(client.get("/metrics").text, "tapis_submit_reply_seconds_count") == 2
        assert applied > 20 * GAMES  # a Mau Mau game is dozens of actions

        # Prometheus saw the same counters through its scrapes
        wait_until("Prometheus to scrape the final counters",
                   lambda: scalar(prom, "sum(tapis_actions_applied_total)") == applied)
        assert scalar(prom, 'sum(tapis_games_finished_total{game="maumau"})') == GAMES
        p99 = wait_until("apply p99", lambda: scalar(
            prom, "histogram_quantile(0.99, sum by (le) (rate(tapis_apply_duration_seconds_bucket[1m])))"))
        assert 0 < p99 < 10
        p50 = wait_until("submit->reply p50", lambda: scalar(
            prom, "histogram_quantile(0.5, sum by (le) (rate(tapis_submit_reply_seconds_bucket[1m])))"))
        assert 0 < p50 < 10
        http_rate = scalar(prom, 'sum(rate(tapis_http_requests_total{route="/tables/{table}"}[1m]))')
        assert http_rate and http_rate > 0

        # the exporter's view of the seeded Redis
        assert scalar(prom, 'tapis_consumer_group_lag{shard="0"}') == 2
        assert scalar(prom, 'tapis_consumer_group_pending{shard="0"}') == 1
        assert scalar(prom, "tapis_deadletter_stream_length") == 1
        assert scalar(prom, 'up{job="tapis-exporter"}') == 1

        # every alert rule evaluates without error on real series
        def rules_evaluated():
            groups = httpx.get(f"{prom}/api/v1/rules", timeout=5).json()["data"]["groups"]
            rs = [r for g in groups for r in g["rules"]]
            return rs if rs and all(r.get("lastEvaluation", "").startswith("20") and
                                    not r["lastEvaluation"].startswith("0001") for r in rs) else None
        rs = wait_until("a rule evaluation", rules_evaluated)
        assert len(rs) == 16
        bad = [(r["name"], r.get("lastError")) for r in rs if r["health"] != "ok"]
        assert not bad, bad
        # no worker job is scraped here: the absent() branch of TapisNoWorkerAlive is pending
        states = {r["name"]: r["state"] for r in rs}
        assert states["TapisNoWorkerAlive"] in ("pending", "firing")
        assert states["TapisHighErrorRatio"] == "inactive"
        # serve's loops beat, nothing waits in the due sets of db 12
        for name in ("TapisLoopStalled", "TapisTablesNotMoving", "TapisSweeperBehind", "TapisArchiveBehind",
                     "TapisArchiveErrors"):
            assert states[name] == "inactive", name
        assert scalar(prom, "tapis_tables_awaiting") == 0
        assert scalar(prom, "tapis_sweeper_overdue_seconds") == 0
        # the archive: nothing unarchived in db 12; serve exports every error reason from 0
        assert scalar(prom, "tapis_archive_backlog_tables") == 0
        assert scalar(prom, "tapis_archive_oldest_unarchived_seconds") == 0
        assert scalar(prom, 'count(tapis_archive_errors_total{job="tapis-gateway"} == 0)') == 4
    except BaseException:
        for name in ("serve", "exporter", "prometheus"):
            print(f"--- {name} log ---\n{procs.log(name)}")
        raise
    assert time.monotonic() - t_start < DEADLINE_S
