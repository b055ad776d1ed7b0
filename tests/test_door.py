"""The gateway's door on a real HTTP server (uvicorn, raw sockets): bodies
counted as they arrive whatever the transfer encoding, headers bounded,
slow bodies timed out (issue 12)."""

from __future__ import annotations

import json
import socket
import time

import pytest


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


# -- the request head: bounded in time (slowloris), in size, before the body --
def _server(http: str = "auto", **settings_kw):
    """A ``tapis serve`` (embedded store) on a real uvicorn, configured as
    the CLI does, with uvicorn's ``http`` protocol: (port, server)."""
    import threading

    import httpx
    import uvicorn

    from services.config import Settings
    from services.gateway.server import uvicorn_config
    from services.serve import build_serve_app

    settings = Settings(redis_url=None, **settings_kw)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn_config(build_serve_app(settings), settings, host="127.0.0.1", port=port,
                                        log_level="warning", http=http))
    threading.Thread(target=srv.run, daemon=True).start()
    for _ in range(200):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.05)
    return port, srv


@pytest.fixture(scope="module", params=["httptools", "h11"])
def head_server(request):
    """A ``tapis serve`` whose request heads must arrive within 1 s, on
    each of uvicorn's HTTP/1.1 protocols."""
    port, srv = _server(request.param, header_timeout_s=1.0, body_timeout_s=1.0)
    yield port
    srv.should_exit = True


def _read_until_closed(sock: socket.socket, limit: float) -> tuple[bytes, float]:
    """Everything the server sends until it closes the connection, and the
    seconds it took (fails after ``limit`` s: the server held it open)."""
    t0 = time.monotonic()
    sock.settimeout(limit)
    data = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        except TimeoutError:
            pytest.fail(f"the connection was still open after {limit} s (got {data!r})")
        if not chunk:
            break
        data += chunk
    return data, time.monotonic() - t0


def _problem(data: bytes) -> tuple[int, dict]:
    head, body = data.split(b"\r\n\r\n", 1)
    assert b"application/problem+json" in head
    return int(head.split(b" ", 2)[1]), json.loads(body)


def test_a_silent_connection_is_closed_after_the_head_timeout(head_server):
    with socket.create_connection(("127.0.0.1", head_server)) as sock:
        data, took = _read_until_closed(sock, 5)
    assert data == b"" and 0.5 < took < 3  # nothing asked, nothing answered


@pytest.mark.parametrize("partial", [
    b"GET /gam",  # half a request line
    b"GET /games HTTP/1.1\r\nhost: t\r\nx-slow: a",  # headers without their end
    b"POST /tables HTTP/1.1\r\nhost: t\r\ncontent-length: 10\r\n",
], ids=["request-line", "header", "before-blank-line"])
def test_a_partial_request_head_gets_408_and_the_connection_is_closed(head_server, partial):
    with socket.create_connection(("127.0.0.1", head_server)) as sock:
        sock.sendall(partial)
        data, took = _read_until_closed(sock, 5)
    assert took < 3
    status, problem = _problem(data)
    assert (status, problem["code"]) == (408, "request_timeout")


def test_a_head_trickled_byte_by_byte_is_still_bounded(head_server):
    head = b"GET /games HTTP/1.1\r\nhost: t\r\n" + b"x-a: b\r\n" * 100
    t0 = time.monotonic()
    with socket.create_connection(("127.0.0.1", head_server)) as sock:
        try:
            for i in range(len(head)):
                sock.sendall(head[i:i + 1])
                time.sleep(0.05)
                if time.monotonic() - t0 > 5:
                    pytest.fail("the trickled head was never cut off")
        except (BrokenPipeError, ConnectionResetError):
            pass
        data, _ = _read_until_closed(sock, 5)
    assert time.monotonic() - t0 < 4
    assert data == b"" or _problem(data)[0] == 408


def test_an_endless_head_is_cut_off_by_its_size_before_the_timeout(head_server):
    with socket.create_connection(("127.0.0.1", head_server)) as sock:
        try:
            sock.sendall(b"GET /games HTTP/1.1\r\nhost: t\r\nx-pad: " + b"a" * 40_000)
        except (BrokenPipeError, ConnectionResetError):
            pass
        data, took = _read_until_closed(sock, 5)
    assert took < 0.9  # not the 1 s timeout
    status = int(data.split(b" ", 2)[1])
    assert status == 431 or status == 400  # h11 refuses heads over 16 KiB itself (400, plain text)
    if status == 431:
        assert _problem(data)[1]["code"] == "headers_too_large"


def test_a_slow_but_complete_request_is_served_and_keep_alive_works(head_server):
    with socket.create_connection(("127.0.0.1", head_server), timeout=5) as sock:
        for part in (b"GET /ga", b"mes HTTP/1.1\r\nho", b"st: t\r\n", b"\r\n"):
            sock.sendall(part)
            time.sleep(0.2)
        assert _response(sock)[0] == 200
        # the same connection again, the head sent slowly (under 1 s)
        time.sleep(0.3)
        for part in (b"GET /games HTTP/1.1\r\n", b"host: t\r\n\r\n"):
            sock.sendall(part)
            time.sleep(0.3)
        assert _response(sock)[0] == 200
        # then a partial head on the kept-alive connection: 408, closed
        sock.sendall(b"GET /games HTTP/1.1\r\n")
        data, took = _read_until_closed(sock, 5)
    assert took < 3 and _problem(data)[1]["code"] == "request_timeout"


def test_an_idle_kept_alive_connection_is_closed_without_an_answer(head_server):
    with socket.create_connection(("127.0.0.1", head_server), timeout=5) as sock:
        sock.sendall(b"GET /games HTTP/1.1\r\nhost: t\r\n\r\n")
        assert _response(sock)[0] == 200
        data, took = _read_until_closed(sock, 5)
    assert data == b"" and took < 3


def test_a_slow_request_answer_is_not_cut_by_the_head_timeout(head_server):
    # the head is complete: only the body timeout (1 s here) applies, and a
    # stream lives on for longer than the head timeout
    port = head_server
    body = b'{"game": "maumau", "players": 2}'
    created = json.loads(_http(port, b"POST /tables HTTP/1.1\r\nhost: t\r\ncontent-type: application/json\r\n"
                                     b"content-length: %d\r\n\r\n%s" % (len(body), body))[1])
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(b"GET /tables/%s/stream HTTP/1.1\r\nhost: t\r\n\r\n" % created["id"].encode())
        time.sleep(2.5)  # more than the head timeout
        sock.settimeout(0.5)
        got = sock.recv(65536)
    assert got.startswith(b"HTTP/1.1 200")


def _response(sock: socket.socket) -> tuple[int, bytes]:
    data = b""
    while b"\r\n\r\n" not in data or len(data) < data.find(b"\r\n\r\n") + 4 + _length(data):
        chunk = sock.recv(65536)
        assert chunk, f"closed before a whole response: {data!r}"
        data += chunk
    return int(data.split(b" ", 2)[1]), data.split(b"\r\n\r\n", 1)[1]


def _http(port: int, request: bytes) -> tuple[int, bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(request)
        return _response(sock)


def test_large_headers_get_431_before_a_large_content_length(live_server):
    port, _ = live_server
    head = (b"POST /tables HTTP/1.1\r\nhost: t\r\ncontent-type: application/json\r\ncontent-length: 70000\r\n"
            b"x-pad: " + b"a" * 17_000 + b"\r\n\r\n")
    status, body = _http(port, head)
    assert (status, json.loads(body)["code"]) == (431, "headers_too_large")
    # content-length first and the headers after: the same answer
    head = (b"POST /tables HTTP/1.1\r\nhost: t\r\nx-pad: " + b"a" * 17_000 +
            b"\r\ncontent-length: 70000\r\ncontent-type: application/json\r\n\r\n")
    status, body = _http(port, head)
    assert (status, json.loads(body)["code"]) == (431, "headers_too_large")


@pytest.mark.parametrize("target", [b"/games?pad=" + b"a" * 17_000, b"/tables/" + b"a" * 17_000],
                         ids=["query", "path"])
def test_the_request_line_counts_toward_the_head_limit(live_server, target):
    port, _ = live_server
    status, body = _http(port, b"GET " + target + b" HTTP/1.1\r\nhost: t\r\n\r\n")
    assert (status, json.loads(body)["code"]) == (431, "headers_too_large")


def test_a_head_just_under_the_limit_is_served(live_server):
    port, _ = live_server
    status, _ = _http(port, b"GET /games?pad=" + b"a" * 15_000 + b" HTTP/1.1\r\nhost: t\r\n\r\n")
    assert status == 200


# -- no redirect built from the Host header ------------------------------------
@pytest.mark.parametrize("method,path", [("POST", "/tables/"), ("GET", "/games/"), ("GET", "/tables/")])
async def test_a_trailing_slash_gets_404_not_a_redirect_to_the_host_header(service, method, path):
    r = await service.request(method, path, json={"game": "maumau", "players": 2} if method == "POST" else None,
                              headers={"host": "evil.example"})
    assert (r.status_code, r.json()["code"]) == (404, "not_found")
    assert "location" not in r.headers
    assert r.headers["content-type"].startswith("application/problem+json")


# -- X-Forwarded-For: only from the proxies named --------------------------------
def _create(port: int, forwarded_for: str) -> int:
    import httpx

    r = httpx.post(f"http://127.0.0.1:{port}/tables", json={"game": "maumau", "players": 2},
                   headers={"x-forwarded-for": forwarded_for}, timeout=10)
    return r.status_code


def test_behind_a_trusted_proxy_each_forwarded_client_has_its_own_limit():
    port, srv = _server(forwarded_allow_ips="127.0.0.1", rate_create="2/minute")
    try:
        assert [_create(port, "203.0.113.1") for _ in range(3)] == [201, 201, 429]
        assert _create(port, "203.0.113.2") == 201  # another player, another limit
        # the proxy appends the peer it saw: the last address is the client
        assert _create(port, "198.51.100.9, 203.0.113.1") == 429
    finally:
        srv.should_exit = True


def test_without_trusted_proxies_x_forwarded_for_is_ignored():
    port, srv = _server(rate_create="2/minute")  # default: no proxy trusted
    try:
        assert [_create(port, f"203.0.113.{i}") for i in range(1, 4)] == [201, 201, 429]
    finally:
        srv.should_exit = True


def test_an_untrusted_peer_cannot_name_the_client():
    port, srv = _server(forwarded_allow_ips="192.0.2.1", rate_create="2/minute")  # not the test's 127.0.0.1
    try:
        assert [_create(port, f"203.0.113.{i}") for i in range(1, 4)] == [201, 201, 429]
    finally:
        srv.should_exit = True


async def test_the_openapi_description_names_the_door_errors_on_every_route(service):
    spec = (await service.get("/openapi.json")).json()
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            assert {"408", "431"} <= set(op["responses"]), (method, path)
            assert "request line" in op["responses"]["431"]["description"]
