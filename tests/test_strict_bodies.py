"""Create, join and the lobby are as strict as actions: every game's
options refuse unknown keys and values of another type; `players` and a
join's `seat` are integers (not "3", not true); bot seats are canonical
decimal keys, so no two name one seat; the lobby refuses a game it does
not host, as create does."""

from __future__ import annotations

import pytest

from tests.test_gateway import create, join

GAMES = ["dix", "mauw", "maudix", "maudit_mot_dit", "maumau"]

#: Per game: one option given as a string where the game takes a number or a boolean.
LOOSE = {
    "dix": {"starting_tokens": "5"},
    "mauw": {"first_seat": "1"},
    "maudix": {"voleur": "true"},
    "maudit_mot_dit": {"trips": "2"},
    "maumau": {"hand_size": "5"},
}

#: Per game: valid options (by value: enum options as their JSON strings).
GOOD = {
    "dix": {"starting_tokens": 4, "numbers_on_currency": "discard"},
    "mauw": {"first_seat": 1, "chain_limit": None},
    "maudix": {"contracts": ["plis", "dames"], "voleur": False},
    "maudit_mot_dit": {"trips": 1, "curse_ends_turn": False},
    "maumau": {"hand_size": 7, "ace_power": "skip"},
}


def _problem(r, status: int, code: str) -> dict:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    body = r.json()
    assert body["code"] == code, body
    return body


@pytest.mark.parametrize("game", GAMES)
async def test_every_game_refuses_unknown_options(service, game):
    r = await service.post("/tables", json={"game": game, "players": 3, "options": {"zzz": 1}})
    body = _problem(r, 422, "bad_options")
    assert "zzz" in body["detail"] and "Extra inputs are not permitted" in body["detail"]


@pytest.mark.parametrize("game", GAMES)
async def test_every_game_refuses_options_of_another_type(service, game):
    r = await service.post("/tables", json={"game": game, "players": 3, "options": LOOSE[game]})
    body = _problem(r, 422, "bad_options")
    assert next(iter(LOOSE[game])) in body["detail"]


@pytest.mark.parametrize("game", GAMES)
async def test_every_game_takes_its_valid_options(service, game):
    r = await service.post("/tables", json={"game": game, "players": 3, "options": GOOD[game]})
    assert r.status_code == 201, r.text
    assert {k: r.json()["options"][k] for k in GOOD[game]} == GOOD[game]


@pytest.mark.parametrize("game", GAMES)
async def test_every_games_options_schema_forbids_other_keys(service, game):
    games = {g["name"]: g for g in (await service.get("/games")).json()}
    assert games[game]["options_schema"]["additionalProperties"] is False
    spec = (await service.get("/openapi.json")).json()
    assert spec["components"]["schemas"][f"CreateTable_{game}"]["properties"]["options"][
        "additionalProperties"] is False


@pytest.mark.parametrize("players", ["3", 3.0, True])
async def test_create_refuses_players_that_are_not_an_integer(service, players):
    r = await service.post("/tables", json={"game": "maumau", "players": players})
    body = _problem(r, 422, "invalid_request")
    assert ["body", "players"] in [e["loc"] for e in body["errors"]]


@pytest.mark.parametrize("bots", [{"01": "random"}, {" 1": "random"}, {"1 ": "random"}, {"+1": "random"},
                                  {"1.0": "random"}, {"-0": "random"}, {"00": "random"},
                                  {"1": "random", "01": "heuristic"}])
async def test_create_refuses_bot_seats_that_are_not_canonical_numbers(service, bots):
    r = await service.post("/tables", json={"game": "maumau", "players": 3, "bots": bots})
    body = _problem(r, 422, "invalid_request")
    bad = next(k for k in bots if k != "1")
    assert ["body", "bots", bad, "[key]"] in [e["loc"] for e in body["errors"]]


async def test_create_takes_canonical_bot_seats_and_refuses_one_beyond_the_table(service):
    r = await service.post("/tables", json={"game": "maumau", "players": 3, "bots": {"0": "random", "2": "heuristic"}})
    assert r.status_code == 201, r.text
    assert [s["kind"] for s in r.json()["seats"]] == ["bot", "free", "bot"]
    r = await service.post("/tables", json={"game": "maumau", "players": 3, "bots": {"3": "random"}})
    _problem(r, 422, "bad_seat")
    r = await service.post("/tables", json={"game": "maumau", "players": 3, "bots": {"10": "random"}})
    _problem(r, 422, "bad_seat")


@pytest.mark.parametrize("seat", [True, "0", "1", 1.0])
async def test_join_refuses_a_seat_that_is_not_an_integer(service, seat):
    t = await create(service, players=2)
    r = await service.post(f"/tables/{t['id']}/join", json={"seat": seat})
    body = _problem(r, 422, "invalid_request")
    assert ["body", "seat"] in [e["loc"] for e in body["errors"]]
    assert all(s["kind"] == "free" for s in (await service.get(f"/tables/{t['id']}")).json()["seats"])


async def test_join_takes_an_integer_seat(service):
    t = await create(service, players=2)
    assert (await join(service, t["id"], seat=1))["seat"] == 1


async def test_lobby_refuses_a_game_it_does_not_host(service):
    r = await service.get("/tables", params={"game": "nope"})
    body = _problem(r, 422, "unknown_game")
    assert "nope" in body["detail"]
    r = await service.get("/tables", params={"status": "nope"})
    body = _problem(r, 422, "invalid_request")
    assert ["query", "status"] in [e["loc"] for e in body["errors"]]
    await create(service, players=2)
    for params in ({"game": "toy"}, {"game": ""}, {}):
        r = await service.get("/tables", params=params)
        assert r.status_code == 200 and [t["game"] for t in r.json()] == ["toy"], params


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded"])
async def test_a_json_body_without_its_content_type_is_told_which_header_it_needs(service, content_type):
    t = await create(service)
    a = await join(service, t["id"])
    headers = {"Authorization": f"Bearer {a['token']}"}
    if content_type:
        headers["Content-Type"] = content_type
    for path, body in [("/tables", b'{"game": "toy", "players": 2}'),
                       (f"/tables/{t['id']}/actions", b'{"action": {"type": "add", "n": 1}}')]:
        r = await service.post(path, content=body, headers=headers)
        problem = _problem(r, 422, "invalid_request")
        assert "Content-Type: application/json" in problem["detail"], problem
    r = await service.post("/tables", json={"game": "toy", "players": 2, "options": "x"})  # JSON, but wrong
    assert _problem(r, 422, "invalid_request")["detail"] == "the request does not match the schema"
