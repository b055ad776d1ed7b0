"""Rate limits (issue 12): creates and joins per client address, actions
per seat; 429 problem+json with Retry-After; nothing done over a limit."""

from __future__ import annotations

import httpx
import pytest

from services.config import Settings
from services.serve import build_serve_app
from tests.test_gateway import auth


@pytest.fixture
async def limited(redis_client):
    """The service with small limits (in-memory counting: no Redis URL)."""
    settings = Settings(redis_url=None, shards=2, reply_timeout_s=5, rate_create="3/minute", rate_join="4/minute",
                        rate_action="2/minute")
    app = build_serve_app(settings, redis=redis_client)
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://tapis") as client:
            yield client


async def test_creates_over_the_limit_get_429_with_retry_after(limited):
    codes = [(await limited.post("/tables", json={"game": "toy", "players": 2})).status_code for _ in range(5)]
    assert codes == [201, 201, 201, 429, 429]
    r = await limited.post("/tables", json={"game": "toy", "players": 2})
    assert r.headers["content-type"].startswith("application/problem+json")
    body = r.json()
    assert body["code"] == "rate_limited"
    assert 1 <= int(r.headers["retry-after"]) <= 60 and body["retry_after"] == int(r.headers["retry-after"])
    assert len((await limited.get("/tables")).json()) == 3  # nothing was created over the limit


async def test_joins_and_actions_are_limited(limited):
    t = (await limited.post("/tables", json={"game": "toy", "players": 1, "options": {"target": 50}})).json()["id"]
    u = (await limited.post("/tables", json={"game": "toy", "players": 2})).json()["id"]
    a = (await limited.post(f"/tables/{t}/join")).json()
    assert [(await limited.post(f"/tables/{u}/join")).status_code for _ in range(4)] == [200, 200, 409, 429]
    url = f"/tables/{t}/actions"
    r1 = await limited.post(url, headers=auth(a["token"]), json={"action": {"type": "add", "n": 1}})
    r2 = await limited.post(url, headers=auth(a["token"]), json={"action": {"type": "add", "n": 1}})
    r3 = await limited.post(url, headers=auth(a["token"]), json={"action": {"type": "add", "n": 1}})
    assert [r1.status_code, r2.status_code, r3.status_code] == [200, 200, 429]
    assert r3.json()["code"] == "rate_limited"
    assert (await limited.get(f"/tables/{t}")).json()["version"] == 3  # start + two actions, not three


async def test_limits_can_be_turned_off(redis_client):
    app = build_serve_app(Settings(redis_url=None, rate_limits=False, rate_create="1/minute"), redis=redis_client)
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://tapis") as client:
            codes = {(await client.post("/tables", json={"game": "toy", "players": 2})).status_code for _ in range(5)}
    assert codes == {201}
