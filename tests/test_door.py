"""The gateway's door on a real HTTP server (uvicorn, raw sockets): bodies
counted as they arrive whatever the transfer encoding, headers bounded,
slow bodies timed out (issue 12)."""

from __future__ import annotations

import json
import socket
import time


def _request(port: int, head: bytes, body_parts=(), pause: float = 0.0,
             timeout: float = 10.0) -> tuple[int, dict, float]:
    """Send ``head`` then each body part (``pause`` s apart); returns the
    status, the problem body and the seconds until the answer."""
    t0 = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(head)
        try:
            for part in body_parts:
                sock.sendall(part)
                if pause:
                    time.sleep(pause)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered and closed before the rest
        data = b""
        while b"\r\n\r\n" not in data or len(data) < data.find(b"\r\n\r\n") + 4 + _length(data):
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    status = int(data.split(b" ", 2)[1])
    body = data.split(b"\r\n\r\n", 1)[1]
    return status, json.loads(body) if body else {}, time.monotonic() - t0


def _length(data: bytes) -> int:
    for line in data.split(b"\r\n\r\n", 1)[0].split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return int(line.split(b":")[1])
    return 0


def _chunks(total: int, size: int = 65536):
    sent = 0
    first = b'{"game": "maumau", "players": 2, "pad": "'
    yield b"%x\r\n%s\r\n" % (len(first), first)
    while sent < total:
        n = min(size, total - sent)
        yield b"%x\r\n%s\r\n" % (n, b"x" * n)
        sent += n
    yield b"0\r\n\r\n"


def test_a_chunked_30_mb_body_gets_413_before_it_is_read(live_server):
    port, _ = live_server
    head = (b"POST /tables HTTP/1.1\r\nhost: t\r\ncontent-type: application/json\r\n"
            b"transfer-encoding: chunked\r\n\r\n")
    used = _redis_memory(live_server[1])
    for _ in range(3):
        status, problem, _ = _request(port, head, _chunks(30_000_000))
        assert (status, problem["code"]) == (413, "body_too_large")
    if used is not None:  # real Redis: nothing of the bodies was written
        assert _redis_memory(live_server[1]) - used < 1_000_000


def _redis_memory(url: str | None) -> int | None:
    if url is None:
        return None
    import redis

    return redis.Redis.from_url(url).info("memory")["used_memory"]


def test_a_chunked_body_under_the_limit_is_served(live_server):
    port, _ = live_server
    body = json.dumps({"game": "maumau", "players": 2}).encode()
    head = (b"POST /tables HTTP/1.1\r\nhost: t\r\ncontent-type: application/json\r\n"
            b"transfer-encoding: chunked\r\n\r\n")
    status, created, _ = _request(port, head, [b"%x\r\n%s\r\n" % (len(body), body), b"0\r\n\r\n"])
    assert status == 201 and created["game"] == "maumau"


def test_a_body_that_never_arrives_whole_gets_408(live_server):
    port, _ = live_server
    head = b"POST /tables HTTP/1.1\r\nhost: t\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n"
    status, problem, took = _request(port, head, [b"{}"])
    assert (status, problem["code"]) == (408, "request_timeout")
    assert took < 5  # the timeout is 1 s


def test_headers_are_bounded(live_server):
    port, _ = live_server
    head = b"GET /games HTTP/1.1\r\nhost: t\r\nx-pad: " + b"a" * 200_000 + b"\r\n\r\n"
    status, problem, _ = _request(port, head)
    assert status == 431 or (status == 400 and not problem)  # the server's own parser may refuse it first
    if problem:
        assert problem["code"] == "headers_too_large"


async def _preflight(settings_kw: dict) -> tuple[int, dict]:
    import httpx

    from services.config import Settings
    from services.serve import build_serve_app

    app = build_serve_app(Settings(redis_url=None, **settings_kw))
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://tapis") as c:
            r = await c.options("/games", headers={"Origin": "https://play.example",
                                                   "Access-Control-Request-Method": "GET"})
            g = await c.get("/games", headers={"Origin": "https://play.example"})
            return r.status_code, {**g.headers}


async def test_cors_is_off_by_default_and_on_for_named_origins():
    status, headers = await _preflight({})
    assert status == 405 and "access-control-allow-origin" not in headers
    status, headers = await _preflight({"cors_origins": ["https://play.example"]})
    assert status == 200 and headers["access-control-allow-origin"] == "https://play.example"
    status, headers = await _preflight({"cors_origins": ["https://other.example"]})
    assert status == 400 and "access-control-allow-origin" not in headers


async def test_405_names_the_allowed_methods(service):
    r = await service.request("TRACE", "/games")
    assert (r.status_code, r.json()["code"]) == (405, "method_not_allowed")
    assert r.headers["allow"] == "GET"
    assert r.headers["content-type"].startswith("application/problem+json")
