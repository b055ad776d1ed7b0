"""The gateway's plain ASGI middlewares (services/gateway/middleware.py,
first measured as the ``asgi-metrics`` patch of loadtests/patches.py, now
part of the service): RED metrics, 413 for big bodies, the same answers;
the patch is a no-op on the current app."""

from __future__ import annotations

import sys
from pathlib import Path

import httpx
from starlette.middleware.base import BaseHTTPMiddleware

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "loadtests"))

import patches


async def test_gateway_middlewares_are_plain_asgi_and_keep_the_behaviour():
    from fakeredis import FakeServer
    from fakeredis.aioredis import FakeRedis
    from prometheus_client import REGISTRY

    from services.config import Settings
    from services.gateway.app import create_app

    redis = FakeRedis(server=FakeServer())
    settings = Settings(redis_url=None, shards=1, max_body_bytes=2048)
    app = create_app(settings, redis)
    from services.gateway.middleware import BodyLimit, RedMetrics

    patches.patch_asgi_metrics(app)  # nothing left to replace
    assert not any(m.cls is BaseHTTPMiddleware for m in app.user_middleware)
    assert {m.cls for m in app.user_middleware} == {RedMetrics, BodyLimit}

    def count(status: str) -> float:
        return REGISTRY.get_sample_value("tapis_http_requests_total",
                                         {"method": "GET", "route": "/games", "status": status}) or 0.0

    before = count("200")
    transport = httpx.ASGITransport(app=app)
    async with app.router.lifespan_context(app), httpx.AsyncClient(transport=transport, base_url="http://t") as c:
        r = await c.get("/games")
        assert r.status_code == 200 and any(g["name"] == "maumau" for g in r.json())
        big = await c.post("/tables", content=b"{" + b" " * 4000 + b"}", headers={"content-type": "application/json"})
        assert big.status_code == 413 and big.json()["code"] == "body_too_large"
        ok = await c.post("/tables", json={"game": "maumau", "players": 2})
        assert ok.status_code == 201
        missing = await c.get("/tables/000000000000")
        assert missing.status_code == 404 and missing.json()["code"] == "table_not_found"
    assert count("200") == before + 1
    await redis.aclose()
