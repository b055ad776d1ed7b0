"""The turn clock through the embedded service, in every game (issue 10):
a person at a table with ``turn_seconds=2`` stops acting; their view shows
the deadline; after it a ``TurnTimedOut`` event is in the log and the
stand-in bot plays the seat; coming back (or acting) takes the seat back
with a ``SeatReturned`` event; replay equals live; the spectator and the
other seats see no card of the away seat."""

from __future__ import annotations

import asyncio
import time

import pytest
from fakeredis import FakeServer
from fakeredis.aioredis import FakeRedis

from services.store.store import EventStore
from shared.engine import fold
from shared.games import get_game
from shared.presence import SEAT_RETURNED, TURN_TIMED_OUT, away_after

GAMES = [("maumau", 3), ("maudix", 3), ("dix", 3), ("mauw", 3), ("maudit_mot_dit", 3)]


@pytest.fixture
async def embedded():
    import httpx

    from services.config import Settings
    from services.serve import build_serve_app

    redis = FakeRedis(server=FakeServer())
    # A bot delay leaves the person a window to act while the stand-in waits.
    settings = Settings(redis_url=None, shards=2, reply_timeout_s=10, sweep_interval_ms=200, bot_delay_ms=400)
    app = build_serve_app(settings, redis=redis)
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://tapis") as client:
            yield client, redis


async def _poll(check, timeout_s: float, what: str):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        got = await check()
        if got:
            return got
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.mark.parametrize("game,players", GAMES)
async def test_an_idle_person_is_timed_out_played_for_and_comes_back(embedded, game, players):
    client, redis = embedded
    r = await client.post("/tables", json={"game": game, "players": players, "turn_seconds": 2, "stand_in": "random",
                                           "bots": {str(i): "random" for i in range(1, players)}})
    assert r.status_code == 201, r.text
    assert r.json()["turn_seconds"] == 2
    tid = r.json()["id"]
    token = (await client.post(f"/tables/{tid}/join", json={"seat": 0, "name": "Ann"})).json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    store = EventStore(redis)

    async def my_turn():
        v = (await client.get(f"/tables/{tid}/view", headers=auth)).json()
        return v if "0" in v["deadlines"] else None

    view = await _poll(my_turn, 60, "the person's turn")
    events = await store.read(tid)
    # The deadline is the last event's time + 2 s, the same for seat and spectator.
    assert view["deadlines"]["0"] == events[view["version"] - 1].ts + 2_000
    spectator = (await client.get(f"/tables/{tid}/view")).json()
    if spectator["version"] == view["version"]:
        assert spectator["deadlines"] == view["deadlines"]

    async def timed_out():
        evs = await store.read(tid)
        return [i for i, e in enumerate(evs) if e.type == TURN_TIMED_OUT] or None

    first = (await _poll(timed_out, 10, "TurnTimedOut"))[0]
    events = await store.read(tid)
    assert events[first].data["seat"] == 0 and events[first].seat == 0
    assert events[first].ts >= events[first].data["deadline"]

    async def stand_in_moved():
        evs = await store.read(tid)
        info = (await client.get(f"/tables/{tid}")).json()
        return info["status"] == "finished" or any(e.seat == 0 and (e.cmd or "").startswith("b0.")
                                                   for e in evs[first + 1:])

    await _poll(stand_in_moved, 20, "the stand-in bot playing seat 0")
    info = (await client.get(f"/tables/{tid}")).json()
    seat0 = info["seats"][0]
    assert seat0["kind"] == "human" and seat0["away"] is True
    away_view = (await client.get(f"/tables/{tid}/view", headers=auth)).json()
    assert away_view["away"] == [0] and away_view["view"]["seats"][0]["away"] is True
    # Feeds show the timeout as it is, to everyone.
    feed = (await client.get(f"/tables/{tid}/events", params={"after": first, "limit": 1})).json()["events"]
    assert feed[0]["type"] == TURN_TIMED_OUT and feed[0]["data"]["seat"] == 0

    if game == "maumau":
        _check_stand_in_moves_hide_the_hand(game, await store.read(tid), first)

    r = await client.post(f"/tables/{tid}/back", headers=auth)
    assert r.status_code == 200, r.text
    assert r.json()["away"] is False
    events = await store.read(tid)
    assert events[r.json()["version"] - 1].type == SEAT_RETURNED
    assert away_after(events) == frozenset()
    # Replay equals live.
    g = get_game(game)
    state = fold(g, events)
    served = (await client.get(f"/tables/{tid}/view")).json()
    if served["version"] == len(events):
        # The game's view, its seats given their people (back: not away any more).
        people = [{"name": "Ann", "kind": "human", "away": False, "left": False}] + [
            {"name": f"random bot {i}", "kind": "bot", "away": False, "left": False} for i in range(1, players)]
        game_view = g.view(state, None)
        assert served["view"] == {**game_view, "seats": [{**s, **p} for s, p in zip(game_view["seats"], people)]}
        assert served["away"] == []


def _check_stand_in_moves_hide_the_hand(game: str, events, first: int) -> None:
    """The timeout and every stand-in move, as a spectator and the other
    seats see them, name no card that seat 0 holds after that move."""
    from tests.invariants import strings_in

    def leaks(obj, bad: set[str]) -> list[str]:
        return sorted(bad.intersection(strings_in(obj)))

    g = get_game(game)
    state = fold(g, events[:first])
    checked = 0
    for e in events[first:]:
        state = fold(g, [e], state)
        if e.seat != 0:
            continue
        kept = set(state.hands[0]) - {state.discard[-1]}
        for seat in (None, 1, 2):
            seen = g.redact(e, seat) if e.type != TURN_TIMED_OUT else e
            if seen is not None:
                assert leaks(seen.to_json(), kept) == [], (e.type, seat)
        checked += 1
    assert checked >= 2  # the timeout and at least one stand-in move


async def test_the_persons_own_action_takes_the_seat_back(embedded):
    """Mau Mau, person at seat 0: once away, their next action is applied
    with a SeatReturned before it, in the same command."""
    client, redis = embedded
    r = await client.post("/tables", json={"game": "maumau", "players": 2, "turn_seconds": 1,
                                           "bots": {"1": "random"}, "options": {}})
    tid = r.json()["id"]
    token = (await client.post(f"/tables/{tid}/join", json={"seat": 0})).json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    store = EventStore(redis)

    async def away_and_my_turn():
        v = (await client.get(f"/tables/{tid}/view", headers=auth)).json()
        return v if v["away"] == [0] and v["legal_actions"] and v["status"] == "playing" else None

    v = await _poll(away_and_my_turn, 30, "seat 0 away with legal actions")
    r = await client.post(f"/tables/{tid}/actions", headers=auth,
                          json={"action": v["legal_actions"][0], "expected_version": v["version"]})
    if r.status_code == 409:  # the stand-in was faster; the next turn of ours then
        pytest.skip("the stand-in moved first (timing); covered in tests/test_liveness.py")
    assert r.status_code == 200, r.text
    types = [e["type"] for e in r.json()["events"]]
    assert types[0] == SEAT_RETURNED
    events = await store.read(tid)
    assert away_after(events) == frozenset()
