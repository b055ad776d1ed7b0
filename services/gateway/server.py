"""The gateway's HTTP server: uvicorn, configured from the settings
(docs/operations.md, "Limits at the door" and "Behind a proxy").

uvicorn bounds an idle keep-alive connection (``timeout_keep_alive``) but
not the time a client takes to send a request head: a connection that
sends nothing, half a request line or headers without their blank line is
held for ever (the gateway's own 408, ``TAPIS_BODY_TIMEOUT_S``, starts only
once the head is complete). The protocol classes here add that bound
(``TAPIS_HEADER_TIMEOUT_S``): a timer armed when the connection opens and
after each response, and disarmed when a request head is complete. When it
fires before a complete head, the connection is closed: with a 408
``request_timeout`` problem if part of a request arrived, without an answer
if nothing did (an idle connection)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from services.config import Settings
from services.gateway.errors import problem_body

try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # pragma: no cover - httptools is optional (uvicorn falls back to h11)
    HttpToolsProtocol = None  # type: ignore[assignment,misc]


def _problem_response(status: int, reason: str, code: str, detail: str) -> bytes:
    """A whole problem+json response that closes the connection, written
    by the protocol itself (no request reached the app)."""
    body = json.dumps(problem_body(status, code, detail)).encode()
    return (b"HTTP/1.1 %d %s\r\ncontent-type: application/problem+json\r\n"
            b"content-length: %d\r\nconnection: close\r\n\r\n%s" % (status, reason.encode(), len(body), body))


class HeadTimeout:
    """Mixin over a uvicorn HTTP protocol class: bound the time to receive
    a complete request head (``header_timeout_s``, a class attribute) and,
    as a backstop, its bytes (``max_head_bytes``: httptools itself keeps
    whatever head it is sent; the app's 431 only sees complete heads)."""

    header_timeout_s: float = 10.0
    max_head_bytes: int = 2 * 16_384
    _head_timer: asyncio.TimerHandle | None = None
    _head_started = False  # bytes of a request arrived since the timer was armed
    _head_bytes = 0  # how many

    # attributes of the uvicorn protocol this is mixed into
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    cycle: Any

    def _arm_head_timer(self) -> None:
        self._disarm_head_timer()
        self._head_started = False
        self._head_bytes = 0
        self._head_timer = self.loop.call_later(self.header_timeout_s, self._head_timed_out)

    def _disarm_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _in_request(self) -> bool:
        """A request whose head is complete is being answered."""
        return self.cycle is not None and not self.cycle.response_complete

    def _draining(self) -> bool:
        """The last response went out before its request's body was read:
        what arrives may be that body (not a head)."""
        return self.cycle is not None and self.cycle.response_complete and self.cycle.more_body

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self.transport.is_closing() or self._in_request():
            return
        if self._head_started and not self._draining():
            self.transport.write(_problem_response(
                408, "Request Timeout", "request_timeout",
                f"the request head did not arrive within {self.header_timeout_s:g} s"))
        self.transport.close()

    def connection_made(self, transport) -> None:
        super().connection_made(transport)  # type: ignore[misc]
        self._arm_head_timer()

    def connection_lost(self, exc) -> None:
        self._disarm_head_timer()
        super().connection_lost(exc)  # type: ignore[misc]

    def data_received(self, data: bytes) -> None:
        self._head_started = True
        super().data_received(data)  # type: ignore[misc]
        if self._in_request():  # the head is complete (this request's or a pipelined one's)
            self._disarm_head_timer()
        elif self._head_timer is not None and not self._draining():
            self._head_bytes += len(data)
            if self._head_bytes > self.max_head_bytes and not self.transport.is_closing():
                self._disarm_head_timer()
                self.transport.write(_problem_response(
                    431, "Request Header Fields Too Large", "headers_too_large",
                    f"the request line and headers are limited to {self.max_head_bytes // 2} bytes in all"))
                self.transport.close()

    def on_response_complete(self) -> None:
        if not self.transport.is_closing():
            # the next request's head has header_timeout_s (an idle
            # connection is closed earlier by uvicorn's keep-alive timeout)
            self._arm_head_timer()
        super().on_response_complete()  # type: ignore[misc]
        if self._in_request():  # a pipelined request was started
            self._disarm_head_timer()


class H11HeadTimeout(HeadTimeout, H11Protocol):
    """uvicorn's h11 protocol with the head timeout."""


if HttpToolsProtocol is not None:
    class HttpToolsHeadTimeout(HeadTimeout, HttpToolsProtocol):
        """uvicorn's httptools protocol with the head timeout."""


def protocol_class(header_timeout_s: float, max_header_bytes: int = 16_384, http: str = "auto") -> type:
    """The HTTP protocol class uvicorn would pick (``http`` "auto":
    httptools when installed, else h11; or "h11", "httptools") with the
    head timeout ``header_timeout_s``; a head still incomplete after twice
    ``max_header_bytes`` gets 431 and the connection is closed."""
    if http == "httptools" or (http == "auto" and HttpToolsProtocol is not None):
        base: type = HttpToolsHeadTimeout
    else:
        base = H11HeadTimeout
    return type(base.__name__, (base,), {"header_timeout_s": header_timeout_s,
                                         "max_head_bytes": 2 * max_header_bytes})


def uvicorn_config(app, settings: Settings, *, host: str, port: int, log_level: str = "info",
                   forwarded_allow_ips: str | None = None, http: str = "auto") -> uvicorn.Config:
    """The uvicorn configuration of a gateway (``tapis serve``, ``tapis
    gateway``): the head and keep-alive timeouts, and the proxies trusted
    with ``X-Forwarded-For`` (``forwarded_allow_ips``, default the setting;
    empty: none, the client is the TCP peer)."""
    trusted = settings.forwarded_allow_ips if forwarded_allow_ips is None else forwarded_allow_ips
    trusted = ",".join(part.strip() for part in trusted.split(",") if part.strip())
    return uvicorn.Config(
        app, host=host, port=port, log_level=log_level,
        http=protocol_class(settings.header_timeout_s, settings.max_header_bytes, http),
        timeout_keep_alive=settings.keepalive_timeout_s,  # type: ignore[arg-type]
        proxy_headers=bool(trusted),
        forwarded_allow_ips=trusted or None,
    )
