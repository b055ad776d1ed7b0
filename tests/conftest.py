"""Shared fixtures: the toy game, fakeredis and real-Redis clients."""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid

import pytest

from shared import snapshot
from shared.games import REGISTRY
from tests import toygame
from tests.archive_fixtures import archive_url  # noqa: F401 -- the archive's fixture (SQLite, PostgreSQL)

# `tapis serve` on its embedded store archives finished games to a SQLite
# file under $XDG_DATA_HOME (services.config.default_archive_url): the
# tests' servers write theirs in a directory of their own, never the user's.
os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="tapis-test-data-")
atexit.register(shutil.rmtree, os.environ["XDG_DATA_HOME"], True)

REGISTRY.setdefault("toy", "tests.toygame")
snapshot.allow(toygame.ToyState)



def _own_redis() -> str | None:
    """Start a throwaway ``redis-server`` for this test run, on a free port,
    keeping nothing on disk, stopped at exit; return its base URL.  The
    tests never touch a Redis they did not start (issue 12), unless told
    to: ``TAPIS_TEST_REDIS_URL`` names one (then the e2e, ops and bench
    tests' ``TAPIS_*_REDIS_URL`` should too).  None: ``redis-server`` is not
    installed, and the tests that need a real Redis skip."""
    if os.environ.get("TAPIS_TEST_REDIS_URL"):
        return None
    binary = shutil.which("redis-server")
    if binary is None:
        return None
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    workdir = tempfile.mkdtemp(prefix="tapis-test-redis-")
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--dir", workdir, "--databases", "16"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    atexit.register(lambda: (proc.terminate(), proc.wait(10), shutil.rmtree(workdir, ignore_errors=True)))
    for _ in range(200):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2) as conn:
                conn.sendall(b"PING\r\n")
                if conn.recv(16).startswith(b"+PONG"):
                    break
        except OSError:
            pass
        time.sleep(0.025)
    base = f"redis://127.0.0.1:{port}"
    for var, db in (("TAPIS_TEST_REDIS_URL", 15), ("TAPIS_E2E_REDIS_URL", 14), ("TAPIS_BENCH_REDIS_URL", 13),
                    ("TAPIS_OPS_REDIS_URL", 12)):
        os.environ.setdefault(var, f"{base}/{db}")
    return base


OWN_REDIS = _own_redis()
#: The tests' real Redis database: the throwaway server's db 15, or the one
#: TAPIS_TEST_REDIS_URL names; "" when neither exists (real-Redis tests skip).
REAL_REDIS_URL = os.environ.get("TAPIS_TEST_REDIS_URL", "")


def real_redis_available() -> bool:
    import redis

    if not REAL_REDIS_URL:
        return False

    try:
        redis.Redis.from_url(REAL_REDIS_URL, socket_connect_timeout=0.5).ping()
        return True
    except (redis.RedisError, OSError, ValueError):
        return False


@pytest.fixture
def table_id() -> str:
    return uuid.uuid4().hex[:12]


@pytest.fixture(params=["fakeredis", pytest.param("redis", marks=pytest.mark.redis)])
async def redis_client(request):
    """An asyncio Redis client: fakeredis, or the real server (db 15,
    flushed) — one contract, both backends."""
    if request.param == "fakeredis":
        from fakeredis import FakeServer
        from fakeredis.aioredis import FakeRedis

        client = FakeRedis(server=FakeServer())
    else:
        if not real_redis_available():
            pytest.skip(f"no Redis at {REAL_REDIS_URL}")
        from redis.asyncio import Redis

        client = Redis.from_url(REAL_REDIS_URL)
        await client.flushdb()
    yield client
    if request.param != "fakeredis":
        await client.flushdb()
    await client.aclose()


@pytest.fixture
async def service(redis_client):
    """The all-in-one service (gateway + worker + in-process bots) over
    ``redis_client``, as an httpx AsyncClient with its lifespan running."""
    import httpx

    from services.config import Settings
    from services.serve import build_serve_app

    # Rate limits off: tests play faster than people (tests/test_ratelimit.py
    # tests them).
    settings = Settings(redis_url=None, shards=2, reply_timeout_s=5, claim_idle_ms=200, rate_limits=False)
    app = build_serve_app(settings, redis=redis_client)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://tapis") as client:
            client.app = app  # type: ignore[attr-defined]
            yield client


@pytest.fixture(scope="module", params=["embedded", pytest.param("redis", marks=pytest.mark.redis)])
def live_server(request):
    """A ``tapis serve`` on a real HTTP server (uvicorn, a thread) on its own
    port, on the embedded store or on the tests' real Redis database:
    ``(port, redis_url or None)``.  Body timeout 1 s; a test module's
    ``LIVE_SERVER_SETTINGS`` (a dict) overrides more settings."""
    from services.config import Settings
    from services.demo import start_embedded

    url = None
    if request.param == "redis":
        if not real_redis_available():
            pytest.skip(f"no Redis at {REAL_REDIS_URL}")
        url = REAL_REDIS_URL
        import redis as redis_lib

        from services.gateway.ratelimit import KEY_PREFIX

        r = redis_lib.Redis.from_url(url)
        stale = list(r.scan_iter(KEY_PREFIX + "*", count=1000))
        if stale:  # another module's rate-limit windows (e.g. the lobby's burst) would throttle this one
            r.delete(*stale)
        r.close()

    settings = Settings(redis_url=url, body_timeout_s=1.0, max_header_bytes=16_384,
                        **getattr(request.module, "LIVE_SERVER_SETTINGS", {}))
    base, srv = start_embedded(settings=settings)
    port = int(base.rsplit(":", 1)[1])
    yield port, url
    srv.should_exit = True
