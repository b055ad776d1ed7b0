"""Fixtures for the operations tests: synchronous Redis clients on both
backends (fakeredis, and the real server's database 12, flushed), free
loopback ports in 19200-19299, and the paths of the deploy files."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
OPS_REDIS_URL = os.environ.get("TAPIS_OPS_REDIS_URL", "")  # set by tests/conftest.py (its own Redis)


def ops_redis_available() -> bool:
    """True when the real Redis of the ops tests answers a PING."""
    import redis

    if not OPS_REDIS_URL:
        return False
    try:
        return bool(redis.Redis.from_url(OPS_REDIS_URL, socket_connect_timeout=0.5).ping())
    except (redis.RedisError, OSError):
        return False


def free_port(lo: int = 19200, hi: int = 19299, *, skip: set[int] | frozenset[int] = frozenset()) -> int:
    """A loopback TCP port in ``[lo, hi]`` that nothing listens on now.
    Raises ``RuntimeError`` when the whole range is taken."""
    import random

    ports = list(range(lo, hi + 1))
    random.shuffle(ports)
    for port in ports:
        if port in skip:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {lo}-{hi}")


@pytest.fixture(params=["fakeredis", pytest.param("redis", marks=pytest.mark.redis)])
def sync_redis(request):
    """A synchronous client: fakeredis, or the real Redis (db 12, flushed
    before and after).  ``client.backend`` names which; ``client.async_twin()``
    returns an asyncio client on the same data."""
    if request.param == "fakeredis":
        from fakeredis import FakeRedis, FakeServer

        server = FakeServer()
        client = FakeRedis(server=server)

        def twin():
            from fakeredis.aioredis import FakeRedis as AsyncFakeRedis

            return AsyncFakeRedis(server=server)
    else:
        if not ops_redis_available():
            pytest.skip(f"no Redis at {OPS_REDIS_URL}")
        import redis

        client = redis.Redis.from_url(OPS_REDIS_URL)
        client.flushdb()

        def twin():
            from redis.asyncio import Redis

            return Redis.from_url(OPS_REDIS_URL)
    client.backend = request.param
    client.async_twin = twin
    try:
        yield client
    finally:
        if request.param != "fakeredis":
            client.flushdb()
        client.close()


@pytest.fixture
def real_sync_redis():
    """A synchronous client on the real Redis (db 12, flushed before and
    after); skips when there is none."""
    if not ops_redis_available():
        pytest.skip(f"no Redis at {OPS_REDIS_URL}")
    import redis

    client = redis.Redis.from_url(OPS_REDIS_URL)
    client.flushdb()
    try:
        yield client
    finally:
        client.flushdb()
        client.close()
