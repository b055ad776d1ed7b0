"""Fixtures of the end-to-end tests: the distributed set-up as real
processes on the real Redis (database 14).

``live`` (module scope): one ``tapis gateway``, two ``tapis worker`` and one
``tapis bots --pool threads --concurrency 2`` process (each given Redis by
its ``--redis`` flag only), started after flushing database 14
and stopped (and the database flushed) when the module is done.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
import redis

from tests.e2e import procs
from tests.e2e.procs import Proc


@pytest.fixture(scope="session")
def redis_url() -> str:
    """The e2e database URL; skips the test when Redis does not answer."""
    if not procs.redis_available():
        pytest.skip(f"no Redis at {procs.REDIS_URL}")
    return procs.REDIS_URL


@pytest.fixture(scope="module")
def r(redis_url) -> redis.Redis:
    """A synchronous client on database 14, flushed at the start and the end of the module."""
    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    yield client
    client.flushdb()
    client.close()


@dataclass
class Live:
    """The running distributed set-up."""

    url: str
    redis: redis.Redis
    http: httpx.Client
    gateway: Proc
    workers: list[Proc]
    bots: Proc
    worker_metrics: list[int] = field(default_factory=list)
    bots_metrics: int = 0
    all: list[Proc] = field(default_factory=list)

    @property
    def gateway_port(self) -> int:
        """The gateway's port (its /metrics is there too)."""
        return int(self.url.rsplit(":", 1)[1])

    def logs(self) -> str:
        """Log tails of every process (for assertion messages)."""
        return "\n".join(p.tail() for p in self.all)

    def diagnose(self, table: str) -> str:
        """Why a table may be stuck: its spectator view (awaiting seats,
        version), its last events, the pending commands, and every bot or
        worker log line about it or reporting an error."""
        out = [f"--- table {table} ---"]
        try:
            v = self.http.get(f"/tables/{table}/view").json()
            out.append(f"view: status={v.get('status')} version={v.get('version')} awaiting={v.get('awaiting')}")
            out.append(f"view body: {str(v.get('view'))[:1500]}")
            evs = self.http.get(f"/tables/{table}/events", params={"after": max(0, v.get("version", 0) - 3)}).json()
            out.append(f"last events: {str(evs.get('events'))[:1500]}")
        except (httpx.HTTPError, ValueError) as exc:
            out.append(f"gateway: {exc!r}")
        pending = [self.redis.xpending(f"tapis:commands:{s}", "workers")["pending"] for s in range(4)]
        out.append(f"pending commands per shard: {pending}")
        for p in [self.bots, *self.workers, self.gateway]:
            lines = [ln for ln in p.log_text().splitlines()
                     if table in ln or "ERROR" in ln or "Traceback" in ln or "WARNING" in ln]
            out.append(f"--- {p.name} ({p.log}): {len(lines)} lines about it or errors ---")
            out += lines[-40:]
        return "\n".join(out)


def start_live(r: redis.Redis, log_dir: Path, started: list[Proc], *, workers: int = 2) -> Live:
    """Start gateway, ``workers`` workers and the bot runner; append each to
    ``started`` as soon as it exists (so the caller stops it on failure);
    return once all are ready (gateway /readyz, every worker a consumer of
    every shard, Celery worker ready)."""
    taken: set[int] = set()

    def port() -> int:
        p = procs.free_port(taken)
        taken.add(p)
        return p

    gw_port = port()
    url = f"http://{procs.HOST}:{gw_port}"
    env = procs.service_env()
    gw = procs.spawn("gateway", ["gateway", "--port", str(gw_port), "--redis", procs.REDIS_URL, "--log-level", "warning"],
                     log_dir, env)
    started.append(gw)
    ws, wports = [], []
    for i in range(workers):
        wports.append(port())
        w = procs.spawn(f"worker{i}", ["worker", "--redis", procs.REDIS_URL, "--metrics-port", str(wports[-1]),
                                       "--log-level", "warning"], log_dir, env)
        started.append(w)
        ws.append(w)
    bports = port()
    # One bot thread: Maudit Mot Dit's lexicon shares one Snowball stemmer
    # between threads, and two bot turns stemming at once corrupt it (an
    # IndexError kills the task and the table waits forever); see
    # test_known_bugs.py.  Concurrency 1 keeps strategy calls one at a time.
    bots = procs.spawn("bots", ["bots", "--redis", procs.REDIS_URL, "--pool", "threads", "--concurrency", "2",
                                "--metrics-port", str(bports), "--log-level", "info"], log_dir, env)
    started.append(bots)
    procs.wait_gateway(url, gw)
    procs.wait_until(lambda: procs.blocked_readers(r) >= 4 * workers, 30,
                     f"{workers} workers blocked reading the 4 shards", ws)
    procs.wait_until(lambda: " ready." in bots.log_text(), 30, "the Celery bot worker", [bots])
    return Live(url, r, httpx.Client(base_url=url, timeout=15), gw, ws, bots, wports, bports, list(started))


@pytest.fixture(scope="module")
def live(r, tmp_path_factory) -> Live:
    """Gateway + 2 workers + bots on database 14 (see module doc)."""
    log_dir = tmp_path_factory.mktemp("e2e-logs")
    with procs.stopping([]) as started:
        lv = start_live(r, log_dir, started)
        try:
            yield lv
        finally:
            lv.http.close()
