"""Plain ASGI middlewares of the gateway (cheaper than Starlette's
``BaseHTTPMiddleware``, which costs an extra task group per request:
about half the gateway's CPU per action, docs/performance.md)."""

from __future__ import annotations

import time

from services import metrics
from services.gateway import errors


class RedMetrics:
    """RED metrics per route template: ``tapis_http_requests_total`` (a
    route that raises counts as 500) and
    ``tapis_http_request_duration_seconds`` (not for the SSE stream)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        t0 = time.perf_counter()
        status = 500

        async def send_wrapper(message):
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            path = getattr(scope.get("route"), "path", "unmatched")
            method = scope["method"]
            if path != "/tables/{table}/stream":
                metrics.HTTP_LATENCY.labels(method, path).observe(time.perf_counter() - t0)
            metrics.HTTP_REQUESTS.labels(method, path, str(status)).inc()


class BodyLimit:
    """413 ``body_too_large`` when ``content-length`` is not a number or
    exceeds ``max_bytes``."""

    def __init__(self, app, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            for name, value in scope["headers"]:
                if name == b"content-length":
                    if not value.isdigit() or int(value) > self.max_bytes:
                        resp = errors.problem(413, "body_too_large",
                                              f"request bodies are limited to {self.max_bytes} bytes")
                        return await resp(scope, receive, send)
                    break
        return await self.app(scope, receive, send)
