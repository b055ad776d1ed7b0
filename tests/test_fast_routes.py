"""The hot routes' fast paths (services/gateway/fast_routes.py): a view or
an action answered without FastAPI's per-request machinery must be
answered exactly as FastAPI answers it, refusals included, and be seen by
the metrics as any request.  Each request below goes to two gateways over
the same store: one with the fast paths, one without (FastAPI alone)."""

from __future__ import annotations

import asyncio
import contextlib
import time

import fastapi.routing
import httpx
import pytest
from prometheus_client import REGISTRY

from services.config import Settings
from services.gateway.app import create_app
from services.gateway.fast_routes import HotRoutes


@contextlib.asynccontextmanager
async def client(app):
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://tapis") as c:
            yield c


@contextlib.asynccontextmanager
async def two_gateways(redis):
    """(with fast paths, FastAPI alone) over ``redis``."""
    settings = Settings(redis_url=None, shards=2, rate_limits=False, decide_in_gateway=True)
    fast, plain = create_app(settings, redis), create_app(settings, redis)
    plain.user_middleware = [m for m in plain.user_middleware if m.cls is not HotRoutes]
    async with client(fast) as a, client(plain) as b:
        yield a, b


@pytest.fixture
def solved(monkeypatch):
    """How many times FastAPI solved a route's dependencies."""
    calls = []
    real = fastapi.routing.solve_dependencies

    async def counting(*args, **kwargs):
        calls.append(kwargs.get("dependant"))
        return await real(*args, **kwargs)

    monkeypatch.setattr(fastapi.routing, "solve_dependencies", counting)
    return calls


async def toy_table(c) -> tuple[str, str, str]:
    """A started 2-seat toy table of two people: (id, token of seat 0, of seat 1); seat 0 to act."""
    r = await c.post("/tables", json={"game": "toy", "players": 2, "options": {"target": 50}})
    assert r.status_code == 201, r.text
    table = r.json()["id"]
    t0 = (await c.post(f"/tables/{table}/join", json={"name": "Ada"})).json()["token"]
    t1 = (await c.post(f"/tables/{table}/join", json={"name": "Bob"})).json()["token"]
    return table, t0, t1


def answer(r: httpx.Response) -> tuple[int, str | None, object]:
    return r.status_code, r.headers.get("content-type"), r.json()


async def test_views_and_refusals_answered_as_fastapi_answers_them(redis_client, solved):
    async with two_gateways(redis_client) as (fast, plain):
        table, t0, t1 = await toy_table(fast)
        bearer = {"Authorization": f"Bearer {t0}"}
        views = [
            (f"/tables/{table}/view", bearer),
            (f"/tables/{table}/view", {"Authorization": f"Bearer {t1}"}),
            (f"/tables/{table}/view", {}),  # a spectator
            (f"/tables/{table}/view", {"Authorization": "Bearer nope"}),  # 403 bad_token
            (f"/tables/{table}/view", {"Authorization": f"Basic {t0}"}),  # 401: not a bearer token
            ("/tables/t-nosuchtable/view", bearer),  # 404
            ("/tables/no!such/view", {}),  # 404: not a table id
            (f"/tables/{table}/view?x=1", bearer),  # a query string: FastAPI's own path
        ]
        for path, headers in views:
            a, b = await fast.get(path, headers=headers), await plain.get(path, headers=headers)
            assert answer(a) == answer(b), path
        assert answer(await fast.get(f"/tables/{table}/view", headers=bearer))[0] == 200
        json_ct = {"Content-Type": "application/json"}
        act = f"/tables/{table}/actions"
        refusals = [
            (act, {**bearer, **json_ct}, b'{"action": {"type": "add", "n": 7}}'),  # 422: not a legal action
            (act, {**bearer, **json_ct}, b'{"action": {"type": "add", "n": 1}, "expected_version": 99}'),  # 409
            (act, {"Authorization": f"Bearer {t1}", **json_ct}, b'{"action": {"type": "add", "n": 1}}'),  # 409
            (act, json_ct, b'{"action": {"type": "add", "n": 1}}'),  # 401
            (act, {"Authorization": "Bearer nope", **json_ct}, b'{"action": {"type": "add", "n": 1}}'),  # 403
            ("/tables/t-nosuchtable/actions", {**bearer, **json_ct}, b'{"action": {"type": "add", "n": 1}}'),  # 404
            (act, {**bearer, **json_ct}, b'{"action": '),  # 400 malformed_json
            (act, json_ct, b'{"action": '),  # 400 before 401: the body is read first
            (act, {**bearer, **json_ct}, b'{"action": {"type": "add", "n": 1}, "expected_version": "1"}'),  # 422
            (act, json_ct, b'{"action": {"type": "add", "n": 1}, "extra": 1}'),  # 401 before the body's 422
            (act, {**bearer, **json_ct}, b'{"action": {"type": "add", "n": 1}, "extra": 1}'),  # 422
            (act, {**bearer, **json_ct}, b"null"),
            (act, {**bearer, **json_ct}, b"[]"),
            (act, {**bearer, "Content-Type": "text/plain"}, b'{"action": {"type": "add", "n": 7}}'),
            (act, {**bearer, "Content-Type": "application/json; charset=utf-8"},
             b'{"action": {"type": "add", "n": 7}}'),
            (act + "?view=1", {**bearer, **json_ct}, b'{"action": {"type": "add", "n": 7}}'),
            (act + "?view=maybe", {**bearer, **json_ct}, b'{"action": {"type": "add", "n": 7}}'),
            (act, {**bearer, **json_ct}, b'{"action": {"type": "add", "n": 1}, "command_id": "has space"}'),
            # deep nesting: FastAPI's 400 (not a 500 from a RecursionError, nor a
            # depth band where the fast path's shallower stack would still parse it)
            (act, json_ct, b"[" * 3000 + b"]" * 3000),
            (act, {**bearer, **json_ct}, b'{"action": {"type": "add", "n": ' + b"[" * 960 + b"]" * 960 + b"}}"),
            (act, {**bearer, **json_ct}, b'{"action": {"type": "add", "n": ' + b"[" * 100 + b"]" * 100 + b"}}"),
        ]
        # (a fast path that read the body and declined hands it on to FastAPI:
        # the malformed, null, extra-field cases would hang otherwise)
        for path, headers, body in refusals:
            a = await fast.post(path, headers=headers, content=body)
            b = await plain.post(path, headers=headers, content=body)
            assert answer(a) == answer(b), (path, body)
            assert a.status_code >= 400, (path, body, a.text)
        # nothing was applied: the table is still at its start
        assert (await fast.get(f"/tables/{table}/view", headers=bearer)).json()["version"] == 1


async def test_an_action_applied_by_the_fast_path_is_answered_alike_from_its_record(redis_client, solved):
    async with two_gateways(redis_client) as (fast, plain):
        table, t0, _t1 = await toy_table(fast)
        bearer = {"Authorization": f"Bearer {t0}"}
        body = {"action": {"type": "add", "n": 2}, "command_id": "c1", "expected_version": 1}
        solved.clear()
        first = await fast.post(f"/tables/{table}/actions?view=true", headers=bearer, json=body)
        view = await fast.get(f"/tables/{table}/view", headers=bearer)
        assert solved == []  # neither request went through FastAPI's dependency solving
        assert first.status_code == 200, first.text
        assert first.json()["version"] == 2
        assert [(e["type"], e["seat"], e["data"]) for e in first.json()["events"]] == [("Added", 0, {"n": 2})]
        assert first.json()["view"] == view.json()
        # the same command id through FastAPI alone: answered from the record, the same answer
        again = await plain.post(f"/tables/{table}/actions?view=true", headers=bearer, json=body)
        assert solved != []
        assert answer(again) == answer(first)
        assert answer(await plain.get(f"/tables/{table}/view", headers=bearer)) == answer(view)


async def test_the_metrics_see_fast_requests_under_their_route(redis_client):
    def served(route: str, method: str, status: str) -> float:
        return REGISTRY.get_sample_value(
            "tapis_http_requests_total", {"method": method, "route": route, "status": status}) or 0.0

    async with two_gateways(redis_client) as (fast, _plain):
        table, t0, _t1 = await toy_table(fast)
        bearer = {"Authorization": f"Bearer {t0}"}
        views, acts = served("/tables/{table}/view", "GET", "200"), served("/tables/{table}/actions", "POST", "409")
        await fast.get(f"/tables/{table}/view", headers=bearer)
        await fast.post(f"/tables/{table}/actions", headers=bearer,
                        json={"action": {"type": "add", "n": 1}, "expected_version": 7})
        assert served("/tables/{table}/view", "GET", "200") == views + 1
        assert served("/tables/{table}/actions", "POST", "409") == acts + 1


async def test_a_view_waits_on_a_stalled_store_only_so_long(redis_client, monkeypatch):
    """A read stalled in Redis (paused, saturated) answers 503 after
    TAPIS_STORE_READ_TIMEOUT_S, through the fast path and FastAPI's alike,
    instead of waiting out the Redis client's retries (a minute or more)."""
    settings = Settings(redis_url=None, shards=2, rate_limits=False, store_read_timeout_s=0.3)
    app = create_app(settings, redis_client)
    async with client(app) as c:
        table, t0, _t1 = await toy_table(c)
        tables = app.state.ctx.tables

        async def stalled(*_args, **_kwargs):
            await asyncio.sleep(60)

        monkeypatch.setattr(tables, "get", stalled)
        tables.drop(table)  # not cached: the view must read the log
        for path in [f"/tables/{table}/view", f"/tables/{table}/view?x=1", f"/tables/{table}"]:
            t = time.monotonic()
            r = await c.get(path, headers={"Authorization": f"Bearer {t0}"})
            assert (r.status_code, r.json()["code"]) == (503, "store_unavailable"), (path, r.text)
            assert time.monotonic() - t < 5, path
