"""A small HTTP/1.1 keep-alive client for the load driver (issue 14).

httpx costs the driver about 0.75 ms of CPU per request, more than the
bare service it drives (docs/performance.md).  This client does the least
a load generator needs: requests written as one buffer on a kept-alive
connection (an ``asyncio.Protocol``), responses parsed by ``httptools``
(llhttp, the parser uvicorn uses), JSON bodies encoded and decoded with
``orjson`` when installed (else the standard library; the driver's
figures in docs/performance.md were taken with orjson).  No redirects,
cookies, proxies, TLS, chunked request bodies, compression nor HTTP/2.

It offers the part of ``httpx.AsyncClient`` the driver uses —
``request(method, url, headers=, json=)`` returning a response with
``status_code``, ``is_success``, ``content`` and ``json()``;
``base_url``; ``aclose()`` — and raises ``httpx``'s transport errors
(``ConnectError``, ``ReadError``, ``ReadTimeout``), so the driver runs on
either client."""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urlsplit

import httptools
import httpx

try:
    import orjson

    _dumps, _loads = orjson.dumps, orjson.loads
except ImportError:  # not a dependency of the project: the standard library then (slower)
    import json as _json

    def _dumps(obj: Any) -> bytes:
        return _json.dumps(obj, separators=(",", ":")).encode()

    _loads = _json.loads


class Response:
    """A received response: ``status_code``, ``headers`` (lower-case names,
    bytes values), ``content`` (bytes)."""

    __slots__ = ("_json", "content", "headers", "status_code")

    def __init__(self, status_code: int, headers: dict[bytes, bytes], content: bytes) -> None:
        self.status_code = status_code
        self.headers = headers
        self.content = content
        self._json: Any = None

    @property
    def is_success(self) -> bool:
        """A 2xx status."""
        return 200 <= self.status_code < 300

    def json(self) -> Any:
        """The body decoded as JSON (once; ``ValueError`` when it is not)."""
        if self._json is None:
            self._json = _loads(self.content)
        return self._json


class _Connection(asyncio.Protocol):
    """One kept-alive connection: one request at a time."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.parser = httptools.HttpResponseParser(self)
        self.waiter: asyncio.Future[Response] | None = None
        self.headers: dict[bytes, bytes] = {}
        self.body: list[bytes] = []
        self.closed = False
        self.keep_alive = True

    # asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError as exc:
            self._fail(httpx.RemoteProtocolError(f"bad response: {exc}"))

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._fail(httpx.ReadError(f"connection closed: {exc or 'by the server'}"))

    # httptools callbacks
    def on_message_begin(self) -> None:
        self.headers = {}
        self.body = []

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers[name.lower()] = value

    def on_body(self, body: bytes) -> None:
        self.body.append(body)

    def on_message_complete(self) -> None:
        self.keep_alive = self.parser.should_keep_alive()
        w, self.waiter = self.waiter, None
        if w is not None and not w.done():
            w.set_result(Response(self.parser.get_status_code(), self.headers, b"".join(self.body)))

    def _fail(self, exc: Exception) -> None:
        w, self.waiter = self.waiter, None
        if w is not None and not w.done():
            w.set_exception(exc)

    def close(self) -> None:
        """Close the connection now."""
        self.closed = True
        if self.transport is not None:
            self.transport.close()


class FastClient:
    """An HTTP/1.1 client of one server (``base_url``) keeping up to
    ``max_idle`` idle connections; each request has ``timeout`` seconds.
    A connection idle for ``idle_s`` or more is not reused (closed, and a
    new one opened): the server closes idle ones after its keep-alive
    timeout (the gateway's ``TAPIS_KEEPALIVE_TIMEOUT_S``, 5 s), and a
    request written as it does so would be lost."""

    def __init__(self, base_url: str, timeout: float = 30.0, max_idle: int = 2, idle_s: float = 4.0) -> None:
        u = urlsplit(base_url)
        if u.scheme != "http" or not u.hostname:
            raise ValueError(f"only http:// URLs: {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.host = u.hostname
        self.port = u.port or 80
        self.prefix = u.path.rstrip("/")
        self.timeout = timeout
        self.max_idle = max_idle
        self.idle_s = idle_s
        self._host_line = f"Host: {u.netloc}\r\n".encode()
        self._idle: list[tuple[float, _Connection]] = []

    async def _connect(self) -> _Connection:
        loop = asyncio.get_running_loop()
        try:
            _, conn = await loop.create_connection(_Connection, self.host, self.port)
        except OSError as exc:
            raise httpx.ConnectError(str(exc)) from exc
        return conn

    async def request(self, method: str, url: str, *, headers: dict[str, str] | None = None,
                      json: Any = None) -> Response:
        """Send one request (``json``: a body, encoded as JSON) and read
        its response."""
        head = [f"{method} {self.prefix}{url} HTTP/1.1\r\n".encode(), self._host_line]
        if headers:
            head += [f"{k}: {v}\r\n".encode() for k, v in headers.items()]
        if json is not None:
            body = _dumps(json)
            head.append(b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body))
            head.append(body)
        else:
            head.append(b"\r\n")
        loop = asyncio.get_running_loop()
        conn = None
        while self._idle:
            since, c = self._idle.pop()
            if not c.closed and loop.time() - since < self.idle_s:
                conn = c
                break
            c.close()
        if conn is None:
            try:
                async with asyncio.timeout(self.timeout):
                    conn = await self._connect()
            except TimeoutError:
                raise httpx.ConnectTimeout(f"no connection in {self.timeout:g} s") from None
        assert conn.transport is not None
        fut: asyncio.Future[Response] = loop.create_future()
        conn.waiter = fut
        conn.transport.write(b"".join(head))
        try:
            async with asyncio.timeout(self.timeout):
                r = await fut
        except TimeoutError:
            conn.close()
            raise httpx.ReadTimeout(f"no response in {self.timeout:g} s") from None
        except BaseException:
            conn.close()
            raise
        if conn.keep_alive and not conn.closed and len(self._idle) < self.max_idle:
            self._idle.append((loop.time(), conn))
        else:
            conn.close()
        return r

    async def aclose(self) -> None:
        """Close every idle connection."""
        for _, c in self._idle:
            c.close()
        self._idle.clear()
