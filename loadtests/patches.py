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
from collections.abc import Callable

# -- gateway ------------------------------------------------------------------------

# Now part of the service: the names stay for the bench's options.
from services.gateway.middleware import BodyLimit as AsgiBodyLimit  # noqa: E402
from services.gateway.middleware import RedMetrics as AsgiMetrics  # noqa: E402


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
    """Handle a batch's entries concurrently across tables: now what
    ``Worker._shard_loop`` does itself, so nothing to patch."""


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
