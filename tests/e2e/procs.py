"""Real Tapis processes for the end-to-end tests: start, wait, stop.

Every process is started with :func:`subprocess.Popen` in its own session
(so its id is also its process-group id), logs to a file, and is stopped
by :meth:`Proc.stop` (SIGTERM, then SIGKILL after a grace period) — only
the processes these helpers started, by their id.

The tests use Redis database 14 and ports 18100-18199 (see the brief of
issue 2's end-to-end tests); nothing leaves the loopback interface.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import redis

REDIS_URL = os.environ.get("TAPIS_E2E_REDIS_URL", "")  # set by tests/conftest.py (its own Redis)
PORTS = range(18100, 18200)
HOST = "127.0.0.1"


def redis_available() -> bool:
    """True when the Redis server of :data:`REDIS_URL` answers a PING within 0.5 s."""
    if not REDIS_URL:
        return False
    try:
        return bool(redis.Redis.from_url(REDIS_URL, socket_connect_timeout=0.5).ping())
    except (redis.RedisError, OSError):
        return False


def free_port(taken: set[int] | None = None) -> int:
    """The first port of :data:`PORTS` that can be bound on 127.0.0.1 and is
    not in ``taken``.  Raises ``RuntimeError`` when none is free."""
    taken = taken or set()
    for port in PORTS:
        if port in taken:
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind((HOST, port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port in 18100-18199")


def tapis_command() -> list[str]:
    """argv prefix running the ``tapis`` console script of this interpreter
    (falls back to ``python -m services.cli``)."""
    script = Path(sys.executable).with_name("tapis")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "services.cli"]


def service_env(**overrides: str) -> dict[str, str]:
    """The environment for a Tapis process: this one without any inherited
    ``TAPIS_*`` variable (every role gets the Redis URL from its ``--redis``
    flag only, as the README shows), ``TAPIS_SHARDS=4``, unbuffered output,
    plus ``overrides``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TAPIS_")}
    env.update(TAPIS_SHARDS="4", PYTHONUNBUFFERED="1")
    env.update(overrides)
    return env


@dataclass
class Proc:
    """One started process with its log file."""

    name: str
    argv: list[str]
    log: Path
    popen: subprocess.Popen = field(repr=False)

    @property
    def pid(self) -> int:
        """The process id (also its process-group id)."""
        return self.popen.pid

    def alive(self) -> bool:
        """True while the process has not exited."""
        return self.popen.poll() is None

    def tail(self, lines: int = 40) -> str:
        """The last ``lines`` lines of the process's log (stdout + stderr)."""
        try:
            text = self.log.read_text(errors="replace")
        except OSError:
            return ""
        return f"--- {self.name} (pid {self.pid}) log tail ---\n" + "\n".join(text.splitlines()[-lines:])

    def log_text(self) -> str:
        """The whole log so far."""
        try:
            return self.log.read_text(errors="replace")
        except OSError:
            return ""

    def signal(self, sig: int) -> None:
        """Send ``sig`` to this process only (no-op once it has exited)."""
        if self.alive():
            os.kill(self.pid, sig)

    def stop(self, grace_s: float = 5.0) -> int | None:
        """SIGCONT + SIGTERM, wait up to ``grace_s``, then SIGKILL the
        process group this process leads.  Returns the exit code."""
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGCONT)
                os.kill(self.pid, signal.SIGTERM)
            try:
                self.popen.wait(grace_s)
            except subprocess.TimeoutExpired:
                pass
        # Whatever is left of the group we created (e.g. a stuck child).
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        try:
            return self.popen.wait(5)
        except subprocess.TimeoutExpired:  # pragma: no cover - cannot happen after SIGKILL
            return None


def spawn(name: str, args: list[str], log_dir: Path, env: dict[str, str] | None = None) -> Proc:
    """Start ``tapis <args>`` in a new session, stdout and stderr to
    ``log_dir/<name>.log``.  Returns the :class:`Proc` (not yet ready)."""
    return spawn_argv(name, tapis_command() + args, log_dir, env or service_env())


def spawn_argv(name: str, argv: list[str], log_dir: Path, env: dict[str, str] | None = None) -> Proc:
    """Start any program ``argv`` as :func:`spawn` starts ``tapis`` (own
    session, output appended to ``log_dir/<name>.log``)."""
    log = log_dir / f"{name}.log"
    with open(log, "ab") as fh:  # the child keeps its own copy of the descriptor
        popen = subprocess.Popen(argv, stdout=fh, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                 env=env if env is not None else service_env(), start_new_session=True)
    return Proc(name, argv, log, popen)


REDIS_SERVER = os.environ.get("TAPIS_E2E_REDIS_SERVER", "/usr/bin/redis-server")


def redis_server_installed() -> bool:
    """True when :data:`REDIS_SERVER` (a ``redis-server`` binary) exists."""
    return os.access(REDIS_SERVER, os.X_OK) or shutil.which(REDIS_SERVER) is not None


def spawn_redis(name: str, port: int, data_dir: Path, log_dir: Path) -> Proc:
    """Start a throwaway ``redis-server`` on ``127.0.0.1:port`` that keeps
    its data in ``data_dir`` as an append-only file fsynced on every write
    (``--appendonly yes --appendfsync always --save ""``): restarted with
    the same arguments it loads everything it acknowledged.  Not ready
    yet: wait for :func:`redis_ping`."""
    data_dir.mkdir(parents=True, exist_ok=True)
    argv = [REDIS_SERVER, "--port", str(port), "--bind", HOST, "--dir", str(data_dir),
            "--appendonly", "yes", "--appendfsync", "always", "--save", "", "--daemonize", "no",
            "--logfile", "", "--protected-mode", "yes"]
    return spawn_argv(name, argv, log_dir, dict(os.environ))


def redis_ping(url: str) -> bool:
    """True when the Redis at ``url`` answers PING and has loaded its data."""
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=0.5, socket_timeout=2)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except (redis.RedisError, OSError):
        return False


def wait_until(check: Callable[[], bool], timeout_s: float, what: str, procs: list[Proc] = (),
               interval_s: float = 0.05) -> None:
    """Poll ``check`` until it returns True.  Raises ``AssertionError``
    naming ``what`` (with the logs of ``procs``) on timeout or when one of
    ``procs`` exits meanwhile."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if check():
                return
        except (httpx.HTTPError, redis.RedisError, OSError):
            pass
        dead = [p for p in procs if not p.alive()]
        if dead:
            raise AssertionError(f"{what}: process exited (code {dead[0].popen.returncode})\n" + dead[0].tail())
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what}\n"
                                 + "\n".join(p.tail() for p in procs))
        time.sleep(interval_s)


def blocked_readers(r: redis.Redis) -> int:
    """How many connections to the e2e database are blocked in XREADGROUP
    right now (a consuming ``tapis worker`` holds one per shard).

    Consumer registration is no readiness signal: Redis 7.0 does not
    create a consumer for a blocking XREADGROUP that finds nothing."""
    db = r.connection_pool.connection_kwargs.get("db", 0)
    return sum(1 for c in r.client_list()
               if int(c.get("db", -1)) == db and c.get("cmd") == "xreadgroup" and "b" in c.get("flags", ""))


def wait_gateway(url: str, proc: Proc, timeout_s: float = 30) -> None:
    """Wait until ``GET url/readyz`` answers 200."""
    wait_until(lambda: httpx.get(f"{url}/readyz", timeout=1).status_code == 200, timeout_s,
               f"gateway {url}/readyz", [proc])


def scrape(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """A process's Prometheus metrics from ``http://127.0.0.1:<port>/metrics``
    as ``{(sample name, sorted labels): value}``."""
    from prometheus_client.parser import text_string_to_metric_families

    text = httpx.get(f"http://{HOST}:{port}/metrics", timeout=5).text
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def metric(samples: dict, name: str, **labels: str) -> float:
    """One sample of :func:`scrape`'s result (0.0 when absent)."""
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def run_tapis(args: list[str], timeout_s: float = 60) -> subprocess.CompletedProcess:
    """Run ``tapis <args>`` to completion (a one-shot command such as
    ``replay``) with :func:`service_env`; returns the completed process
    with text stdout/stderr."""
    return subprocess.run(tapis_command() + args, env=service_env(), capture_output=True, text=True,
                          timeout=timeout_s, stdin=subprocess.DEVNULL, check=False)


@contextlib.contextmanager
def stopping(procs: list[Proc]) -> Iterator[list[Proc]]:
    """Yield ``procs`` (a list the caller may append to) and stop every one
    of them on exit, also on failure."""
    try:
        yield procs
    finally:
        for p in reversed(procs):
            p.stop()
