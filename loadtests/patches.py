"""Candidate optimisations of the services, applied as monkeypatches so
that the service bench can measure them before anyone edits ``services/``
(see docs/performance.md, "Where the time goes").

The three below were measured here and are now part of the services
(services/gateway/middleware.py, ``Worker._shard_loop``, uvloop in
``tapis worker``); on the current code they change nothing and are kept
so the before/after figures of docs/performance.md can be re-run against
older commits.

Each patch is named; ``run_service_bench.py --gateway-patch NAME`` /
``--worker-patch NAME`` starts the processes through :func:`run_gateway`
/ :func:`run_worker`, which apply them.  Nothing here is imported by the
services themselves.

* ``asgi-metrics`` (gateway): the RED metrics and body-size middlewares
  of ``services/gateway/app.py`` are ``@app.middleware("http")``
  functions, i.e. Starlette's ``BaseHTTPMiddleware``, which runs every
  request in an extra anyio task group with memory streams.  The patch
  swaps them for plain ASGI middlewares doing the same.
* ``uvloop`` (worker): ``tapis worker`` runs on the default asyncio loop
  (the gateway already gets uvloop from uvicorn); the patch installs the
  uvloop policy.
* ``concurrent`` (worker): ``Worker._shard_loop`` handles the entries of
  a batch one after the other, each waiting for 3–4 Redis round trips;
  the patch handles the entries of different tables concurrently (the
  entries of one table stay in order).
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable

# -- gateway ------------------------------------------------------------------------

class AsgiMetrics:
    """Pure ASGI version of the gateway's ``red_metrics`` middleware: the
    same ``tapis_http_requests_total`` and
    ``tapis_http_request_duration_seconds`` observations."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        from services import metrics

        t0 = time.perf_counter()
        status = [500]

        async def send_wrapper(message):
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            route = scope.get("route")
            path = getattr(route, "path", "unmatched")
            method = scope["method"]
            if path != "/tables/{table}/stream":
                metrics.HTTP_LATENCY.labels(method, path).observe(time.perf_counter() - t0)
            metrics.HTTP_REQUESTS.labels(method, path, str(status[0])).inc()


class AsgiBodyLimit:
    """Pure ASGI version of the gateway's ``limit_body`` middleware: 413
    ``body_too_large`` when ``content-length`` is not a number or exceeds
    ``max_bytes``."""

    def __init__(self, app, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            for name, value in scope["headers"]:
                if name == b"content-length":
                    if not value.isdigit() or int(value) > self.max_bytes:
                        from services.gateway import errors

                        resp = errors.problem(413, "body_too_large",
                                              f"request bodies are limited to {self.max_bytes} bytes")
                        return await resp(scope, receive, send)
                    break
        return await self.app(scope, receive, send)


def patch_asgi_metrics(app) -> None:
    """Replace the app's ``@app.middleware("http")`` functions (Starlette
    ``BaseHTTPMiddleware``: ``red_metrics`` and, since the API hardening,
    ``limit_body``) with :class:`AsgiMetrics` and :class:`AsgiBodyLimit`,
    in the same order.  Must run before the app serves its first request
    (Starlette builds the middleware stack then).  Raises RuntimeError on
    a BaseHTTPMiddleware it does not know."""
    from starlette.middleware import Middleware
    from starlette.middleware.base import BaseHTTPMiddleware

    replaced = []
    for m in app.user_middleware:
        if m.cls is not BaseHTTPMiddleware:
            replaced.append(m)
            continue
        name = getattr(m.kwargs.get("dispatch"), "__name__", "?")
        if name == "red_metrics":
            replaced.append(Middleware(AsgiMetrics))
        elif name == "limit_body":
            replaced.append(Middleware(AsgiBodyLimit, max_bytes=app.state.ctx.settings.max_body_bytes))
        else:
            raise RuntimeError(f"unknown BaseHTTPMiddleware {name!r} on the gateway app")
    app.user_middleware = replaced


GATEWAY_PATCHES: dict[str, Callable] = {"asgi-metrics": patch_asgi_metrics}


def run_gateway(port: int, redis_url: str, patches: list[str], log_level: str = "warning") -> None:
    """Serve the gateway (as ``tapis gateway`` does) with ``patches``
    applied, on 127.0.0.1:``port``."""
    import uvicorn

    from services.config import Settings
    from services.gateway.app import create_app
    from services.runtime import make_redis

    settings = Settings(redis_url=redis_url)
    app = create_app(settings, make_redis(settings))
    for name in patches:
        GATEWAY_PATCHES[name](app)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level=log_level)


# -- worker -------------------------------------------------------------------------

def patch_uvloop() -> None:
    """Run the worker on uvloop."""
    import uvloop

    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())


def patch_concurrent() -> None:
    """Handle a batch's entries concurrently across tables (in order
    within a table)."""
    import logging

    from services.store import keys
    from services.worker.worker import Worker

    log = logging.getLogger("tapis.worker")

    async def _shard_loop(self: Worker, shard: int, stop: asyncio.Event) -> None:
        stream = keys.commands(shard)
        while not stop.is_set():
            try:
                resp = await self.redis.xreadgroup(keys.GROUP, self.name, {stream: ">"}, count=64, block=1000)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("xreadgroup failed on %s", stream)
                await asyncio.sleep(0.5)
                continue
            for _stream, entries in resp or ():
                by_table: dict[bytes, list] = {}
                for entry_id, fields in entries:
                    by_table.setdefault(fields.get(b"t", b""), []).append((entry_id, fields))

                async def run(items) -> None:
                    for entry_id, fields in items:
                        await self.handle(stream, entry_id, fields)

                await asyncio.gather(*(run(items) for items in by_table.values()))

    Worker._shard_loop = _shard_loop  # type: ignore[method-assign]


WORKER_PATCHES: dict[str, Callable[[], None]] = {"uvloop": patch_uvloop, "concurrent": patch_concurrent}


def run_worker(metrics_port: int, redis_url: str, patches: list[str], log_level: str = "warning") -> None:
    """Run ``tapis worker --bots none`` with ``patches`` applied and its
    /metrics on 127.0.0.1:``metrics_port`` (``tapis worker
    --metrics-port`` would bind every interface)."""
    from prometheus_client import start_http_server

    for name in patches:
        WORKER_PATCHES[name]()
    start_http_server(metrics_port, addr="127.0.0.1")
    from services.cli import app

    app(["worker", "--redis", redis_url, "--bots", "none", "--log-level", log_level])


if __name__ == "__main__":
    # python loadtests/patches.py gateway|worker PORT REDIS_URL [PATCH,...]
    role, port, url = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    names = [p for p in (sys.argv[4] if len(sys.argv) > 4 else "").split(",") if p]
    (run_gateway if role == "gateway" else run_worker)(port, url, names)
