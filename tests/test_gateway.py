"""The HTTP API end to end on the toy game (gateway + worker + in-process
bots over fakeredis and real Redis): tables, seats, views, actions,
errors, idempotency and concurrency."""

from __future__ import annotations

import asyncio

import pytest



async def create(client, players=2, bots=None, target=6):
    r = await client.post("/tables", json={"game": "toy", "players": players, "options": {"target": target},
                                           "bots": bots or {}})
    assert r.status_code == 201, r.text
    return r.json()


async def join(client, table, seat=None):
    r = await client.post(f"/tables/{table}/join", json={"seat": seat, "name": "ana"} if seat is not None else None)
    assert r.status_code == 200, r.text
    return r.json()


def auth(token):
    return {"Authorization": f"Bearer {token}"}


async def wait_for(pred, timeout=5.0):
    for _ in range(int(timeout / 0.02)):
        if await pred():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("condition not reached")


async def test_games_lists_options_schema_and_strategies(service):
    r = await service.get("/games")
    toy = next(g for g in r.json() if g["name"] == "toy")
    assert toy["strategies"] == ["first", "random"]
    assert toy["options_schema"]["properties"]["target"]["default"] == 10
    maumau = next(g for g in r.json() if g["name"] == "maumau")
    assert sorted(maumau["strategies"]) == ["heuristic", "pass", "random", "strong"]  # issue 15: strong


async def test_two_humans_play_to_the_end(service):
    t = await create(service)
    a = await join(service, t["id"])
    assert a["status"] == "waiting"
    b = await join(service, t["id"])
    assert (a["seat"], b["seat"], b["status"]) == (0, 1, "playing")
    tokens = {0: a["token"], 1: b["token"]}
    seat = 0
    while True:
        v = (await service.get(f"/tables/{t['id']}/view", headers=auth(tokens[seat]))).json()
        if v["status"] == "finished":
            break
        assert v["awaiting"] == [seat] and v["legal_actions"]
        r = await service.post(f"/tables/{t['id']}/actions", headers=auth(tokens[seat]),
                               json={"action": {"type": "add", "n": 2}, "expected_version": v["version"]})
        assert r.status_code == 200, r.text
        assert r.json()["version"] == v["version"] + 1
        assert r.json()["events"][0]["type"] == "Added"
        seat = 1 - seat
    info = (await service.get(f"/tables/{t['id']}")).json()
    assert info["status"] == "finished" and info["version"] == 4  # GameStarted + 3 × add 2
    assert sorted(info["result"]["places"]) in ([1, 2], [1, 1])


async def test_bots_play_a_whole_table(service):
    t = await create(service, players=3, bots={0: "random", 1: "random", 2: "first"}, target=20)
    async def finished():
        return (await service.get(f"/tables/{t['id']}")).json()["status"] == "finished"
    await wait_for(finished)


async def test_views_and_feeds_hide_other_seats_secrets(service):
    t = await create(service)
    a = await join(service, t["id"])
    b = await join(service, t["id"])
    va = (await service.get(f"/tables/{t['id']}/view", headers=auth(a["token"]))).json()
    vb = (await service.get(f"/tables/{t['id']}/view", headers=auth(b["token"]))).json()
    spec = (await service.get(f"/tables/{t['id']}/view")).json()
    sa, sb = va["view"]["secret"], vb["view"]["secret"]
    assert "secret" not in spec["view"] and spec["legal_actions"] == []
    feed_a = (await service.get(f"/tables/{t['id']}/events", headers=auth(a["token"]))).json()
    feed_s = (await service.get(f"/tables/{t['id']}/events")).json()
    assert feed_a["events"][0]["data"]["secrets"] == [sa, None]
    assert feed_s["events"][0]["data"]["secrets"] == [None, None]
    # Seat b's secret is nowhere in seat a's feed (every number of every event's data).
    numbers = [x for e in feed_a["events"] for x in _numbers(e["data"])]
    assert sb not in numbers and sa in numbers


def _numbers(obj) -> list[int]:
    """Every int inside a JSON-like value."""
    if isinstance(obj, bool):
        return []
    if isinstance(obj, int):
        return [obj]
    if isinstance(obj, dict):
        return [x for v in obj.values() for x in _numbers(v)]
    if isinstance(obj, list):
        return [x for v in obj for x in _numbers(v)]
    return []


@pytest.mark.parametrize(
    "headers,status,code",
    [({}, 401, "missing_token"), ({"Authorization": "Bearer nope"}, 403, "bad_token"),
     ({"Authorization": "Basic abc"}, 401, "missing_token")],
)
async def test_actions_need_a_valid_seat_token(service, headers, status, code):
    t = await create(service)
    await join(service, t["id"])
    await join(service, t["id"])
    r = await service.post(f"/tables/{t['id']}/actions", headers=headers, json={"action": {"type": "add", "n": 1}})
    assert (r.status_code, r.json()["code"]) == (status, code)
    assert r.headers["content-type"].startswith("application/problem+json")


async def test_bad_input_gets_a_stable_code_and_leaves_the_log_unchanged(service):
    t = await create(service)
    a = await join(service, t["id"])
    b = await join(service, t["id"])
    url = f"/tables/{t['id']}/actions"
    before = (await service.get(f"/tables/{t['id']}")).json()["version"]
    cases = [
        (auth(b["token"]), {"action": {"type": "add", "n": 1}}, 409, "not_your_turn"),
        (auth(a["token"]), {"action": {"type": "add", "n": 3}}, 422, "bad_amount"),
        (auth(a["token"]), {"action": {"type": "fly"}}, 422, "bad_action"),
        (auth(a["token"]), {"action": {"type": "add", "n": 1}, "expected_version": 0}, 409, "stale_version"),
        (auth(a["token"]), {"nothing": 1}, 422, "invalid_request"),
        (auth(a["token"]), {"action": {"type": "add", "n": 1}, "command_id": "bad id!"}, 422, "invalid_request"),
    ]
    for headers, body, status, code in cases:
        r = await service.post(url, headers=headers, json=body)
        assert (r.status_code, r.json()["code"]) == (status, code), (body, r.text)
    r = await service.post(url, headers={**auth(a["token"]), "content-type": "application/json"}, content=b"{not json")
    assert (r.status_code, r.json()["code"], r.json()["title"]) == (400, "malformed_json", "Malformed JSON")
    assert (await service.get(f"/tables/{t['id']}")).json()["version"] == before


@pytest.mark.parametrize(
    "body,code",
    [({"game": "chess", "players": 2}, "unknown_game"), ({"game": "toy", "players": 13}, "invalid_request"),
     ({"game": "toy", "players": 2, "options": {"target": 0}}, "bad_options"),
     ({"game": "toy", "players": 2, "bots": {"5": "random"}}, "bad_seat"),
     ({"game": "toy", "players": 2, "bots": {"1": "genius"}}, "unknown_strategy")],
)
async def test_create_refuses_bad_tables(service, body, code):
    r = await service.post("/tables", json=body)
    assert r.status_code == 422 and r.json()["code"] == code


async def test_unknown_table_and_full_table(service):
    for path in ["/tables/nope", "/tables/nope/view", "/tables/nope/events", "/tables/bad%20id"]:
        r = await service.get(path)
        assert (r.status_code, r.json()["code"]) == (404, "table_not_found"), path
    r = await service.post("/tables/nope/join")
    assert (r.status_code, r.json()["code"]) == (404, "table_not_found")
    t = await create(service, players=1)
    await join(service, t["id"])
    r = await service.post(f"/tables/{t['id']}/join")
    assert (r.status_code, r.json()["code"]) == (409, "table_full")


async def test_same_command_id_is_applied_once(service):
    t = await create(service, target=50)
    a = await join(service, t["id"])
    await join(service, t["id"])  # the second seat starts the game
    body = {"action": {"type": "add", "n": 1}, "command_id": "once-1"}
    r1 = await service.post(f"/tables/{t['id']}/actions", headers=auth(a["token"]), json=body)
    r2 = await service.post(f"/tables/{t['id']}/actions", headers=auth(a["token"]), json=body)
    assert r1.status_code == r2.status_code == 200
    assert r1.json() == r2.json()
    assert (await service.get(f"/tables/{t['id']}")).json()["version"] == 2


async def test_concurrent_actions_with_one_expected_version_apply_once(service):
    t = await create(service, players=1, target=500)
    a = await join(service, t["id"])
    url = f"/tables/{t['id']}/actions"
    rs = await asyncio.gather(*[
        service.post(url, headers=auth(a["token"]), json={"action": {"type": "add", "n": 1}, "expected_version": 1})
        for _ in range(20)
    ])
    codes = sorted(r.status_code for r in rs)
    assert codes.count(200) == 1 and codes.count(409) == 19
    assert all(r.json()["code"] == "stale_version" for r in rs if r.status_code == 409)
    feed = (await service.get(f"/tables/{t['id']}/events")).json()
    assert [e["version"] for e in feed["events"]] == [1, 2]


async def test_lobby_filters_and_health(service):
    t = await create(service)
    r = await service.get("/tables", params={"game": "toy", "status": "waiting"})
    assert t["id"] in [x["id"] for x in r.json()]
    r = await service.get("/tables", params={"status": "finished"})
    assert t["id"] not in [x["id"] for x in r.json()]
    health = (await service.get("/healthz")).json()
    assert health["status"] == "ok"
    assert {"shard:0", "reclaim", "sweep"} <= set(health["loops"])
    assert (await service.get("/readyz")).json() == {"status": "ready"}
    m = (await service.get("/metrics")).text
    assert "tapis_http_requests_total" in m


async def test_openapi_describes_every_route(service):
    spec = (await service.get("/openapi.json")).json()
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            assert op.get("description"), f"{method.upper()} {path} has no description"


async def test_a_seat_joined_through_another_gateway_is_recognised(service):
    """Gateways cache tables; a token unknown to the cache re-reads the seats."""
    t = await create(service, players=2)
    a = await join(service, t["id"])
    await service.get(f"/tables/{t['id']}/view", headers=auth(a["token"]))  # cached with seat 0 only
    from services.gateway.deps import hash_token

    ctx = service.app.state.ctx
    status, seat, _free = await ctx.store.join(t["id"], None, hash_token("other-gateway-token"), "bo")
    assert status == "ok"
    r = await service.get(f"/tables/{t['id']}/view", headers=auth("other-gateway-token"))
    assert r.status_code == 200 and r.json()["seat"] == seat


@pytest.mark.parametrize("how", ["query", "prefer"])
async def test_an_action_can_return_the_callers_new_view(service, how):
    """`?view=true` or `Prefer: return=representation`: the answer holds
    the caller's view after the action, as GET /view gives it (its own
    secret, no one else's); without, no `view` key."""
    t = await create(service, target=6)
    a, b = await join(service, t["id"]), await join(service, t["id"])
    tid = t["id"]
    v0 = (await service.get(f"/tables/{tid}/view", headers=auth(a["token"]))).json()
    query, headers = ("?view=true", auth(a["token"])) if how == "query" else (
        "", {**auth(a["token"]), "Prefer": "return=representation"})
    r = await service.post(f"/tables/{tid}/actions{query}", headers=headers,
                           json={"action": {"type": "add", "n": 2}, "expected_version": v0["version"]})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["version"] == v0["version"] + 1 == 2
    assert r.headers.get("preference-applied") == ("return=representation" if how == "prefer" else None)
    view = body["view"]
    assert (view["version"], view["seat"], view["awaiting"], view["legal_actions"]) == (2, 0, [1], [])
    assert view["view"]["count"] == 2 and view["view"]["secret"] == v0["view"]["secret"]
    assert view == (await service.get(f"/tables/{tid}/view", headers=auth(a["token"]))).json()
    # Seat 1 plays without asking: no view in the answer.
    r = await service.post(f"/tables/{tid}/actions", headers=auth(b["token"]),
                           json={"action": {"type": "add", "n": 1}, "expected_version": 2})
    assert r.status_code == 200 and set(r.json()) == {"version", "events"}
    # Seat 0 again, with the view: its turn, its legal actions.
    r = await service.post(f"/tables/{tid}/actions?view=true", headers=auth(a["token"]),
                           json={"action": {"type": "add", "n": 1}, "expected_version": 3})
    view = r.json()["view"]
    assert (view["version"], view["awaiting"], view["view"]["count"]) == (4, [1], 4)
