"""The driver's small HTTP/1.1 client (loadtests/fasthttp.py) against a
scripted asyncio server: keep-alive reuse, JSON both ways, statuses,
``Connection: close`` and a dead port."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from loadtests.fasthttp import FastClient


async def _server(replies: list[tuple[int, bytes, bool]]):
    """A server answering each request with the next (status, body, close)
    of ``replies``; returns (server, port, seen) where ``seen`` collects
    (connection number, request head + body)."""
    seen: list[tuple[int, bytes]] = []
    conns = [0]

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conns[0] += 1
        me = conns[0]
        while replies:
            head = await reader.readuntil(b"\r\n\r\n")
            n = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length:")), 0)
            body = await reader.readexactly(n) if n else b""
            seen.append((me, head + body))
            status, out, close = replies.pop(0)
            writer.write(b"HTTP/1.1 %d X\r\ncontent-type: application/json\r\ncontent-length: %d\r\n%s\r\n%s"
                         % (status, len(out), b"connection: close\r\n" if close else b"", out))
            await writer.drain()
            if close:
                break
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1], seen


async def test_keep_alive_json_and_statuses():
    server, port, seen = await _server([(200, b'{"a": 1}', False), (404, b'{"code": "nope"}', False),
                                        (201, b"[1, 2]", True), (200, b"{}", False)])
    async with server:
        c = FastClient(f"http://127.0.0.1:{port}")
        r = await c.request("POST", "/tables", json={"game": "maumau", "players": 4})
        assert (r.status_code, r.is_success, r.json()) == (200, True, {"a": 1})
        r = await c.request("GET", "/tables/x/view", headers={"Authorization": "Bearer t"})
        assert (r.status_code, r.is_success, r.json()) == (404, False, {"code": "nope"})
        r = await c.request("GET", "/x")
        assert (r.status_code, r.json()) == (201, [1, 2])
        r = await c.request("GET", "/y")  # the server closed the last one: a new connection
        assert r.json() == {}
        await c.aclose()
    assert [n for n, _ in seen] == [1, 1, 1, 2]
    head, _, body = seen[0][1].partition(b"\r\n\r\n")
    assert head.split(b"\r\n")[0] == b"POST /tables HTTP/1.1"
    assert f"Host: 127.0.0.1:{port}".encode() in head and b"Content-Type: application/json" in head
    assert json.loads(body) == {"game": "maumau", "players": 4}
    assert b"Authorization: Bearer t" in seen[1][1]


async def test_a_dead_port_is_an_httpx_connect_error():
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    server.close()
    await server.wait_closed()
    with pytest.raises(httpx.ConnectError):
        await FastClient(f"http://127.0.0.1:{port}").request("GET", "/")


def test_only_plain_http():
    with pytest.raises(ValueError):
        FastClient("https://example.org")
