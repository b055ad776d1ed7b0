"""The seat view a client uses as it is (docs/api.md, "Views"), through the
real gateway (the in-process app on the embedded store): over random games
of every game, a random one of the caller's ``legal_actions``, or a random
valid filling of one of its ``choices``, is accepted when sent back; the
view's ``seats`` carry the people (name, kind, away); ``must_act`` is the
part of ``awaiting`` the game waits for."""

from __future__ import annotations

import os
import random

import pytest
from fakeredis import FakeServer
from fakeredis.aioredis import FakeRedis
from jsonschema import Draft202012Validator

from shared.choices import fill
from tests.test_client_actions import CLUE_RULES

#: (game, players, options) of the property; each game is played for at
#: most STEPS actions (a CI size; TAPIS_PROPERTY_GAMES games of each, slow).
CASES = [
    ("maumau", 3, {"target_score": 60}),
    ("maudix", 4, {"contracts": ["plis", "association"]}),
    ("dix", 3, {}),
    ("mauw", 2, {}),
    ("maudit_mot_dit", 4, {"trips": 1}),
]
STEPS = 60
MANY = int(os.environ.get("TAPIS_PROPERTY_GAMES", "0")) or 3
NAMES = ["Ana", "Bo", "Chloé", "Dov"]


@pytest.fixture
async def embedded():
    import httpx

    from services.config import Settings
    from services.serve import build_serve_app

    app = build_serve_app(Settings(redis_url=None, shards=2, reply_timeout_s=10, rate_limits=False),
                          redis=FakeRedis(server=FakeServer()))
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://tapis") as client:
            yield client


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def _people_table(client, game: str, players: int, options: dict) -> tuple[str, list[str]]:
    """A table of ``players`` people (no turn clock), all joined: its id and their tokens."""
    r = await client.post("/tables", json={"game": game, "players": players, "options": options,
                                           "turn_seconds": None})
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    tokens = []
    for seat in range(players):
        r = await client.post(f"/tables/{tid}/join", json={"seat": seat, "name": NAMES[seat]})
        assert r.status_code == 200, r.text
        tokens.append(r.json()["token"])
    return tid, tokens


async def _play(client, game: str, players: int, options: dict, seed: int) -> int:
    """Play up to STEPS random offered actions through the API; returns how many were sent."""
    rng = random.Random(seed)
    tid, tokens = await _people_table(client, game, players, options)
    sent = 0
    for _ in range(STEPS):
        spectator = (await client.get(f"/tables/{tid}/view")).json()
        if spectator["status"] == "finished":
            break
        assert spectator["legal_actions"] == [] and spectator["choices"] == []
        must, awaiting = spectator["must_act"], spectator["awaiting"]
        assert must and set(must) <= set(awaiting)
        seat = rng.choice(must if rng.random() < 0.8 else awaiting)
        r = await client.get(f"/tables/{tid}/view", headers=_auth(tokens[seat]))
        assert r.status_code == 200, r.text
        v = r.json()
        assert v["seat"] == seat and v["must_act"] == must and v["awaiting"] == awaiting
        seats = v["view"]["seats"]
        assert [(s["seat"], s["name"], s["kind"], s["away"]) for s in seats] == [
            (i, NAMES[i], "human", False) for i in range(players)]
        legal, choices = v["legal_actions"], v["choices"]
        assert legal or choices
        if legal and (not choices or rng.random() < 0.6):
            action = rng.choice(legal)
        else:
            choice = rng.choice(choices)
            action = fill(choice["schema"], rng)
            Draft202012Validator(choice["schema"]).validate(action)
        r = await client.post(f"/tables/{tid}/actions", headers=_auth(tokens[seat]),
                              json={"action": action, "expected_version": v["version"]})
        if r.status_code == 422 and action["type"] == "clue":
            assert r.json()["code"] in CLUE_RULES, r.text
            continue
        assert r.status_code == 200, (action, r.text)
        sent += 1
    return sent


@pytest.mark.parametrize("game,players,options", CASES)
async def test_an_offered_action_is_accepted_when_sent_back(embedded, game, players, options):
    assert await _play(embedded, game, players, options, seed=1) >= STEPS // 2


@pytest.mark.slow
@pytest.mark.parametrize("game,players,options", CASES)
async def test_offered_actions_are_accepted_over_more_games(embedded, game, players, options):
    for seed in range(10, 10 + MANY):
        assert await _play(embedded, game, players, options, seed=seed) >= STEPS // 2


async def test_seats_name_bots_by_strategy_and_the_maudix_ecart_is_a_choice(embedded):
    client = embedded
    r = await client.post("/tables", json={"game": "maudix", "players": 3, "bots": {"1": "heuristic", "2": "random"},
                                           "turn_seconds": None})
    tid = r.json()["id"]
    token = (await client.post(f"/tables/{tid}/join", json={"name": "Ana"})).json()["token"]
    v = (await client.get(f"/tables/{tid}/view", headers=_auth(token))).json()
    assert [{k: s[k] for k in ("seat", "name", "kind", "away", "left", "score")} for s in v["view"]["seats"]] == [
        {"seat": 0, "name": "Ana", "kind": "human", "away": False, "left": False, "score": 0},
        {"seat": 1, "name": "heuristic bot 1", "kind": "bot", "away": False, "left": False, "score": 0},
        {"seat": 2, "name": "random bot 2", "kind": "bot", "away": False, "left": False, "score": 0},
    ]
    assert v["view"]["phase"] == "ecart" and 0 in v["must_act"]
    assert v["legal_actions"] == [] and [c["type"] for c in v["choices"]] == ["ecart"]
    hand = v["view"]["hand"]
    assert v["choices"][0]["schema"]["properties"]["cards"]["items"] == {"enum": hand}
    spectator = (await client.get(f"/tables/{tid}/view")).json()
    assert [s["name"] for s in spectator["view"]["seats"]] == ["Ana", "heuristic bot 1", "random bot 2"]
    # cards: the public hand sizes (a sent écart is out of its giver's hand until the exchange)
    assert [s["cards"] for s in spectator["view"]["seats"]] == spectator["view"]["hand_sizes"]
    assert v["view"]["seats"][0]["cards"] == len(hand) == 18
