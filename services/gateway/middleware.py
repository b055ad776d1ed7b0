"""Plain ASGI middlewares of the gateway (cheaper than Starlette's
``BaseHTTPMiddleware``, which costs an extra task group per request:
about half the gateway's CPU per action, docs/performance.md)."""

from __future__ import annotations

import asyncio
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


def head_size(scope) -> int:
    """The bytes of a request's head as sent: ``METHOD target HTTP/1.1``
    and each ``name: value`` line (CRLFs included)."""
    size = len(scope["method"]) + len(scope.get("raw_path") or scope["path"].encode()) + 12
    if scope.get("query_string"):
        size += 1 + len(scope["query_string"])
    for name, value in scope["headers"]:
        size += len(name) + len(value) + 4
    return size + 2


class BodyLimit:
    """Bound what one request may make the gateway hold, before any route
    reads it (docs/operations.md, "Limits"):

    * the head: 431 ``headers_too_large`` when the request line (method,
      path and query) and the headers are above ``max_header_bytes`` in
      all, checked before anything of the body;
    * body: counted as its bytes arrive, whatever the transfer encoding
      (``Content-Length`` or chunked): 413 ``body_too_large`` as soon as it
      exceeds ``max_bytes`` (or at once when ``Content-Length`` says so or
      is not a number); nothing of it is decoded or written;
    * slow clients: 408 ``request_timeout`` when the body does not arrive
      whole within ``body_timeout_s`` (a client that promises 1,000 bytes
      and sends 2).

    The body is read whole here (at most ``max_bytes``) and handed to the
    route; later ``receive`` calls (a disconnect) go to the server."""

    def __init__(self, app, max_bytes: int, max_header_bytes: int = 16_384, body_timeout_s: float = 10.0) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.max_header_bytes = max_header_bytes
        self.body_timeout_s = body_timeout_s

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        # The whole head first (request line and headers: 431), then the
        # body's announced length (413), whatever order they come in.
        size = head_size(scope)
        if size > self.max_header_bytes:
            resp = errors.problem(431, "headers_too_large",
                                  f"the request line and headers are limited to {self.max_header_bytes} bytes"
                                  " in all")
            return await resp(scope, receive, send)
        for name, value in scope["headers"]:
            if name == b"content-length" and (not value.isdigit() or int(value) > self.max_bytes):
                return await self._too_large(scope, receive, send)
        if scope["method"] in ("GET", "HEAD", "OPTIONS", "DELETE") and not any(
            name in (b"content-length", b"transfer-encoding") for name, _ in scope["headers"]
        ):
            return await self.app(scope, receive, send)  # no body (the SSE stream keeps its receive)
        chunks: list[bytes] = []
        total = 0
        try:
            async with asyncio.timeout(self.body_timeout_s):
                while True:
                    message = await receive()
                    if message["type"] != "http.request":  # the client left
                        return None
                    body = message.get("body", b"")
                    total += len(body)
                    if total > self.max_bytes:
                        return await self._too_large(scope, receive, send)
                    chunks.append(body)
                    if not message.get("more_body", False):
                        break
        except TimeoutError:
            resp = errors.problem(408, "request_timeout",
                                  f"the request body did not arrive within {self.body_timeout_s:g} s")
            return await resp(scope, receive, send)
        whole = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        sent = False

        async def replay():
            nonlocal sent
            if not sent:
                sent = True
                return whole
            return await receive()

        return await self.app(scope, replay, send)

    async def _too_large(self, scope, receive, send) -> None:
        resp = errors.problem(413, "body_too_large", f"request bodies are limited to {self.max_bytes} bytes")
        await resp(scope, receive, send)
