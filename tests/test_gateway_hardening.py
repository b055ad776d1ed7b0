"""Regressions from a new user's attempts to break the API: service ids
that a client could squat, options that validate but cannot start a game,
bodies that cannot be stored, odd feed parameters, huge bodies, control
characters in names."""

from __future__ import annotations

import asyncio

import pytest

from tests.test_gateway import auth, create, join, wait_for


async def test_a_client_cannot_squat_the_start_command_id(service):
    r = await service.post("/tables", json={"game": "toy", "players": 2, "bots": {"1": "random"}})
    t = r.json()["id"]
    a = await join(service, t)
    info = (await service.get(f"/tables/{t}")).json()
    assert info["status"] == "playing"
    # Squatting a bot move id: scoped to the client's seat, so harmless.
    for v in range(1, 6):
        await service.post(f"/tables/{t}/actions", headers=auth(a["token"]),
                           json={"action": {"type": "fly"}, "command_id": f"b1.{v}"})
    async def done():
        return (await service.get(f"/tables/{t}")).json()["status"] == "finished"
    view = (await service.get(f"/tables/{t}/view", headers=auth(a["token"]))).json()
    while view["status"] != "finished":
        if view["awaiting"] == [a["seat"]]:
            await service.post(f"/tables/{t}/actions", headers=auth(a["token"]), json={"action": {"type": "add", "n": 2}})
        await asyncio.sleep(0.02)
        view = (await service.get(f"/tables/{t}/view", headers=auth(a["token"]))).json()
    await wait_for(done)


async def test_options_that_cannot_start_a_game_are_refused_at_create(service):
    r = await service.post("/tables", json={"game": "maumau", "players": 3,
                                            "options": {"hand_size": 15, "skat_deck": True, "decks": 1}})
    assert (r.status_code, r.json()["code"]) == (422, "bad_options")


async def test_a_reused_command_id_with_another_body_is_refused(service):
    t = await create(service, players=1, target=50)
    a = await join(service, t["id"])
    url = f"/tables/{t['id']}/actions"
    r1 = await service.post(url, headers=auth(a["token"]), json={"action": {"type": "add", "n": 1}, "command_id": "k"})
    r2 = await service.post(url, headers=auth(a["token"]), json={"action": {"type": "add", "n": 2}, "command_id": "k"})
    assert r1.status_code == 200
    assert (r2.status_code, r2.json()["code"]) == (422, "idempotency_mismatch")
    assert (await service.get(f"/tables/{t['id']}")).json()["version"] == 2


@pytest.mark.parametrize("raw", [b'{"type": "add", "n": 18446744073709551616}', b'{"type": "\\ud800"}',
                                 b'{"type": ["add"]}', b'{"type": {"x": 1}}'])
async def test_unstorable_or_odd_actions_get_a_4xx(service, raw):
    t = await create(service, players=1)
    a = await join(service, t["id"])
    r = await service.post(f"/tables/{t['id']}/actions", content=b'{"action": ' + raw + b"}",
                           headers={**auth(a["token"]), "content-type": "application/json"})
    assert r.status_code == 422 and r.headers["content-type"].startswith("application/problem+json")
    assert r.json()["code"] == "bad_action"


async def test_maumau_odd_types_are_bad_actions_not_crashes(service):
    r = await service.post("/tables", json={"game": "maumau", "players": 2})
    t = r.json()["id"]
    a = await join(service, t)
    b = await join(service, t)
    view = (await service.get(f"/tables/{t}/view", headers=auth(a["token"]))).json()
    on_turn = a["token"] if view["legal_actions"] else b["token"]
    for action in ({"type": ["draw"]}, {"type": "play", "card": ["7H"]}, {"type": "play", "card": "7H", "suit": ["H"]},
                   {"type": "play"}):
        r = await service.post(f"/tables/{t}/actions", headers=auth(on_turn), json={"action": action})
        assert (r.status_code, r.json()["code"]) == (422, "bad_action"), (action, r.text)
    assert (await service.get(f"/tables/{t}")).json()["version"] == 1


@pytest.mark.parametrize("params", [{"after": 18446744073709551616}, {"after": -1}, {"after": "x"}])
async def test_feed_parameters_are_bounded(service, params):
    t = await create(service)
    r = await service.get(f"/tables/{t['id']}/events", params=params)
    assert (r.status_code, r.json()["code"]) == (422, "invalid_request")


async def test_big_bodies_and_unknown_fields_are_refused(service):
    r = await service.post("/tables", json={"game": "toy", "players": 2, "pad": "x" * 100_000})
    assert (r.status_code, r.json()["code"]) == (413, "body_too_large")
    r = await service.post("/tables", json={"game": "toy", "players": 2, "pad": 1})
    assert (r.status_code, r.json()["code"]) == (422, "invalid_request")
    r = await service.post("/tables", content=b"[" * 20000, headers={"content-type": "application/json"})
    assert r.status_code in (400, 422) and r.json()["code"] in ("malformed_json", "invalid_request")


@pytest.mark.parametrize("name", ["\u0000x", "\u202eevil", "   ", "a\nb"])
async def test_names_must_be_printable(service, name):
    t = await create(service)
    r = await service.post(f"/tables/{t['id']}/join", json={"name": name})
    assert (r.status_code, r.json()["code"]) == (422, "invalid_request")


async def test_a_crashing_bot_strategy_does_not_stall_the_table(service, monkeypatch):
    from tests import toygame

    def boom(view, legal, rng):
        raise RuntimeError("strategy bug")

    monkeypatch.setitem(toygame.GAME.strategies, "first", boom)
    r = await service.post("/tables", json={"game": "toy", "players": 2, "options": {"target": 6},
                                            "bots": {"0": "first", "1": "first"}})
    t = r.json()["id"]
    async def done():
        return (await service.get(f"/tables/{t}")).json()["status"] == "finished"
    await wait_for(done)


async def test_the_table_and_the_seat_are_checked_before_the_body_and_query(service):
    """The seat check is a dependency of the routes: 404, then 401/403,
    then 422 `invalid_request` (docs/api.md, "Errors")."""
    t = await create(service)
    await join(service, t["id"])
    odd = {"nothing": 1}
    cases = [
        ("POST", "/tables/nope/actions", {}, odd, 404, "table_not_found"),
        ("POST", f"/tables/{t['id']}/actions", {}, odd, 401, "missing_token"),
        ("POST", f"/tables/{t['id']}/actions", auth("nope"), odd, 403, "bad_token"),
        ("GET", "/tables/nope/events?after=-1", {}, None, 404, "table_not_found"),
        ("GET", f"/tables/{t['id']}/events?after=-1", auth("nope"), None, 403, "bad_token"),
        ("GET", f"/tables/{t['id']}/events?after=-1", {}, None, 422, "invalid_request"),
    ]
    for method, url, headers, body, status, code in cases:
        r = await service.request(method, url, headers=headers, json=body)
        assert (r.status_code, r.json()["code"]) == (status, code), (method, url, r.text)


@pytest.mark.parametrize("bad", [{"turn_seconds": "2"}, {"turn_seconds": True}, {"turn_seconds": 2.0},
                                 {"turn_seconds": 0}, {"turn_seconds": 601}, {"stand_in": ""}])
async def test_turn_clock_fields_are_strict(service, bad):
    r = await service.post("/tables", json={"game": "toy", "players": 2, **bad})
    assert (r.status_code, r.json()["code"]) == (422, "invalid_request"), r.text


@pytest.mark.parametrize("bad", ["3", True, 2.0, -1])
async def test_expected_version_is_strictly_an_integer(service, bad):
    t = await create(service, players=1)
    a = await join(service, t["id"])
    r = await service.post(f"/tables/{t['id']}/actions", headers=auth(a["token"]),
                           json={"action": {"type": "add", "n": 1}, "expected_version": bad})
    assert (r.status_code, r.json()["code"]) == (422, "invalid_request")
    assert r.json()["errors"][0]["loc"][-1] == "expected_version"
    assert (await service.get(f"/tables/{t['id']}")).json()["version"] == 1


async def test_openapi_errors_are_problems_and_each_game_has_its_seat_range(service):
    spec = (await service.get("/openapi.json")).json()
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            for status, response in op["responses"].items():
                if status[0] in "45":
                    assert response["content"] == {"application/problem+json": {
                        "schema": {"$ref": "#/components/schemas/Problem"}}}, (method, path, status)
            if "requestBody" in op:
                assert "400" in op["responses"] and "413" in op["responses"]
    schemas = spec["components"]["schemas"]
    body = spec["paths"]["/tables"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert body["discriminator"]["propertyName"] == "game"
    from shared.games import get_game

    for name, ref in body["discriminator"]["mapping"].items():
        players = schemas[ref.rsplit("/", 1)[1]]["properties"]["players"]
        game = get_game(name)
        assert (players["minimum"], players["maximum"]) == (game.min_players, game.max_players)
    assert "HTTPValidationError" not in schemas
