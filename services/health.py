"""Loop heartbeats and what counts as a transient Redis fault.

Every long-running loop (a worker's shard loops, reclaimer and sweeper, a
gateway's reply listener) calls :meth:`Heartbeats.beat` each time it
completes an iteration; health endpoints report the age of every beat and
a watchdog turns a loop that stopped beating into a process exit, so a
supervisor restarts what cannot recover by itself.
"""

from __future__ import annotations

import time

from redis.exceptions import BusyLoadingError, ConnectionError, ReadOnlyError, TimeoutError

from services import metrics

#: Redis errors that say "not now" rather than "never": a command that hit
#: one is retried, not dead-lettered.
TRANSIENT = (ConnectionError, TimeoutError, BusyLoadingError, ReadOnlyError, OSError)


def is_transient(exc: BaseException) -> bool:
    """True for an error a retry may cure (connection lost or refused,
    timeout, Redis loading its data or read-only after a failover, a
    Cluster that is down or resharding, the archive's database down)."""
    if isinstance(exc, TRANSIENT):
        return True
    name = exc.__class__.__name__
    # ArchiveUnavailable: the archive's database is down (a read of a table
    # no longer in Redis); named here so this module needs no SQLAlchemy.
    return name in {"ClusterDownError", "TryAgainError", "MasterDownError", "ClusterError", "MovedError", "AskError",
                    "ArchiveUnavailable"}


class Heartbeats:
    """The last beat of each named loop (monotonic seconds), mirrored in
    the gauge ``tapis_loop_heartbeat_timestamp_seconds{loop}`` (Unix time)."""

    def __init__(self) -> None:
        self._last: dict[str, float] = {}

    def beat(self, loop: str) -> None:
        """Record that ``loop`` just completed an iteration."""
        self._last[loop] = time.monotonic()
        metrics.LOOP_HEARTBEAT.labels(loop).set(time.time())

    def ages(self) -> dict[str, float]:
        """Seconds since each loop's last beat."""
        now = time.monotonic()
        return {name: round(now - t, 3) for name, t in sorted(self._last.items())}

    def stalled(self, names: list[str] | None, limit_s: float) -> list[str]:
        """The loops (of ``names``, or all) whose last beat is older than
        ``limit_s`` seconds."""
        ages = self.ages()
        return [n for n in (names if names is not None else list(ages)) if ages.get(n, 0.0) > limit_s]

    def report(self, limit_s: float) -> tuple[bool, dict[str, float]]:
        """``(healthy, ages)``: healthy when no loop is older than ``limit_s``."""
        return not self.stalled(None, limit_s), self.ages()


def serve_metrics(port: int, host: str, heartbeats: Heartbeats, limit_s: float):
    """Serve ``/metrics`` (Prometheus text) and ``/healthz`` (JSON: the
    age of each loop's last beat; 503 when one is older than ``limit_s``)
    on ``host:port`` from a daemon thread.  Returns the server."""
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path.split("?", 1)[0] == "/healthz":
                ok, ages = heartbeats.report(limit_s)
                body = json.dumps({"status": "ok" if ok else "loop_stalled", "loops": ages}).encode()
                self._send(200 if ok else 503, "application/json", body)
            else:
                self._send(200, CONTENT_TYPE_LATEST, generate_latest())

        def _send(self, status: int, ctype: str, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
