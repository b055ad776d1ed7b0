"""`GET /tables/{T}/replay` (docs/api.md, "Replay"): a finished game's
steps, each the view a seat (or the spectator) had after one move, equal
to the game's own view of the log folded up to that version, with that
move's events redacted for the seat; refused for a table in play, a seat
or a version the table does not have, and an unknown table; an archived
table replays the same bytes as before it left Redis. The page
``/replay/{T}`` is served like the others; tests/browser/test_replay.py
drives it."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from services.gateway.routes_replay import move_ends
from services.gateway.web import CSP
from services.store import keys
from services.store.store import EventStore
from shared.engine import fold
from shared.events import Event
from shared.games import get_game
from shared.presence import feed

#: The replay reads the store as any view does: fakeredis is enough.
fake = pytest.mark.parametrize("redis_client", ["fakeredis"], indirect=True)


async def finished_table(service, game: str, players: int, options: dict | None = None) -> tuple[str, list[Event]]:
    """An all-bot table of ``game`` played to its end: (id, its true log)."""
    r = await service.post("/tables", json={"game": game, "players": players, "options": options or {},
                                            "bots": {str(s): "random" for s in range(players)}})
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    for _ in range(1500):
        if (await service.get(f"/tables/{tid}")).json()["status"] == "finished":
            break
        await asyncio.sleep(0.02)
    else:
        raise AssertionError(f"{game} table {tid} did not finish")
    return tid, await EventStore(service.app.state.ctx.redis).read(tid)


def names_free(view: dict) -> dict:
    """A view without what the gateway adds to each seat (names, kinds): the game's own."""
    if isinstance(view.get("seats"), list):
        keep = ("name", "kind", "away", "left")
        return {**view, "seats": [{k: v for k, v in s.items() if k not in keep} for s in view["seats"]]}
    return view


def test_a_move_is_the_run_of_events_of_one_command():
    evs = [Event("A", cmd="start"), Event("B", cmd="start"), Event("C", cmd="b1.2"), Event("D", cmd=None),
           Event("E", cmd=None), Event("F", cmd="u0.x"), Event("G", cmd="u0.x")]
    assert move_ends(evs) == (2, 3, 4, 5, 7)
    assert move_ends([]) == ()


@fake
@pytest.mark.parametrize("game,players,options", [
    ("maumau", 3, {"hand_size": 3, "target_score": 20}),
    ("maudix", 3, {"contracts": ["association"]}),
    ("mauw", 2, {}),
])
async def test_every_step_is_the_games_view_of_the_log_folded_to_it(service, game, players, options):
    """Each step's view is `game.view(fold(events[:V]), seat)` (plus the
    seats' names), its events the seat's feed of that move; the steps are
    the ends of the commands, the result is given at the last one only."""
    tid, events = await finished_table(service, game, players, options)
    g = get_game(game)
    ends = move_ends(events)
    assert ends[-1] == len(events) and len(ends) < len(events)  # some moves append several events
    for seat in (None, 0, players - 1):
        prev = 0
        for version in ends:
            params = {"at": version} if seat is None else {"at": version, "seat": seat}
            r = await service.get(f"/tables/{tid}/replay", params=params)
            assert r.status_code == 200, r.text
            step = r.json()
            state = fold(g, events[:version])
            assert (step["version"], step["seat"], step["first"], step["last"]) == (version, seat, ends[0], len(events))
            assert step["steps"] == list(ends) and step["move"] == ends.index(version) + 1
            assert names_free(step["view"]["view"]) == g.view(state, seat)
            v = step["view"]
            assert v["version"] == version and v["seat"] == seat and v["legal_actions"] == [] == v["choices"]
            assert v["deadlines"] == {}
            assert v["awaiting"] == (sorted(g.awaiting(state)) if version < len(events) else [])
            assert step["events"] == [{**e.to_json(), "version": n}
                                      for n, e in feed(g, events[prev:version], seat, first_version=prev + 1)]
            assert step["result"] == (g.result(state).to_json() if version == len(events) else None)
            prev = version


@fake
async def test_a_version_inside_a_move_shows_the_end_of_that_move_and_none_is_the_last(service):
    tid, events = await finished_table(service, "maudix", 3, {"contracts": ["association"]})
    ends = move_ends(events)
    inside = next(v for v in range(1, len(events)) if v not in ends)
    after = next(v for v in ends if v > inside)
    step = (await service.get(f"/tables/{tid}/replay", params={"at": inside, "seat": 1})).json()
    assert step["version"] == after and step["view"]["version"] == after
    last = (await service.get(f"/tables/{tid}/replay")).json()
    assert last["version"] == len(events) and last["seat"] is None and last["result"] is not None
    assert last["view"]["status"] == "finished"
    info = (await service.get(f"/tables/{tid}")).json()
    assert last["result"] == info["result"]


@fake
async def test_the_spectators_steps_show_no_hand_and_a_seats_only_its_own(service):
    tid, events = await finished_table(service, "maumau", 3, {"hand_size": 3, "target_score": 20})
    g = get_game("maumau")
    prev = 0
    for version in move_ends(events):
        state = fold(g, events[:version])
        spectator = (await service.get(f"/tables/{tid}/replay", params={"at": version})).json()
        seat1 = (await service.get(f"/tables/{tid}/replay", params={"at": version, "seat": 1})).json()
        assert spectator["view"]["view"]["hand"] is None and "hands" not in spectator["view"]["view"]
        assert seat1["view"]["view"]["hand"] == state.hands[1]
        # A card hidden now may have been seen in this very move: the last card of a round, played, then
        # dealt again with the next round's cards.
        seen = {who: json.dumps([e.data for _v, e in feed(g, events[prev:version], who, first_version=prev + 1)])
                for who in (None, 1)}
        others = {c for s in (0, 2) for c in state.hands[s]} | set(state.talon)
        # no other seat's card anywhere in seat 1's step; no hand's card in the spectator's
        assert not [c for c in others if f'"{c}"' in json.dumps(seat1) and f'"{c}"' not in seen[1]]
        assert not [c for c in others | set(state.hands[1])
                    if f'"{c}"' in json.dumps(spectator) and f'"{c}"' not in seen[None]]
        prev = version


@fake
async def test_a_table_in_play_is_not_replayed(service):
    r = await service.post("/tables", json={"game": "toy", "players": 2, "bots": {"1": "first"}})
    tid = r.json()["id"]
    waiting = await service.get(f"/tables/{tid}/replay")
    assert waiting.status_code == 409 and waiting.json()["code"] == "not_finished"
    await service.post(f"/tables/{tid}/join", json={"name": "ana"})
    for _ in range(100):
        if (await service.get(f"/tables/{tid}")).json()["status"] == "playing":
            break
        await asyncio.sleep(0.02)
    playing = await service.get(f"/tables/{tid}/replay", params={"seat": 1, "at": 1})
    assert playing.status_code == 409 and playing.json()["code"] == "not_finished"
    assert playing.headers["content-type"] == "application/problem+json"
    # a bad query of a table in play is still 409: the table is checked first
    assert (await service.get(f"/tables/{tid}/replay", params={"seat": "x"})).status_code == 409


@fake
async def test_a_bad_seat_or_version_is_422_and_an_unknown_table_404(service):
    tid, events = await finished_table(service, "toy", 2, {"target": 6})
    for params, code in (({"seat": 2}, "bad_seat"), ({"seat": -1}, "bad_seat"), ({"at": 0}, "bad_version"),
                         ({"at": len(events) + 1}, "bad_version"), ({"at": -3}, "bad_version"),
                         ({"seat": "one"}, "invalid_request"), ({"at": "1.5"}, "invalid_request")):
        r = await service.get(f"/tables/{tid}/replay", params=params)
        assert (r.status_code, r.json()["code"]) == (422, code), params
    for missing in ("abcdef123456", "not..a..table"):
        r = await service.get(f"/tables/{missing}/replay", params={"seat": "x"})  # the table first, then the query
        assert (r.status_code, r.json()["code"]) == (404, "table_not_found")


@fake
async def test_a_whole_replay_is_quick(service):
    """Every step of a few-hundred-event game, for one seat: each answer is
    a fold of the log from its start, which costs well under a millisecond."""
    tid, events = await finished_table(service, "dix", 2)
    ends = move_ends(events)
    t0 = time.perf_counter()
    for version in ends:
        r = await service.get(f"/tables/{tid}/replay", params={"at": version, "seat": 0})
        assert r.status_code == 200
    per_step = (time.perf_counter() - t0) / len(ends)
    assert per_step < 0.05, per_step  # generous: a loaded shared machine


@fake
async def test_the_replay_page_is_html_with_the_self_only_policy(service):
    r = await service.get("/replay/abc123def456")
    assert r.status_code == 200 and r.headers["content-type"] == "text/html; charset=utf-8"
    assert r.headers["content-security-policy"] == CSP and r.headers["cache-control"] == "no-cache"
    assert '<script type="module" src="/static/replay.js"></script>' in r.text
    assert (await service.get("/replay/not..an id")).status_code == 404
    paths = (await service.get("/openapi.json")).json()["paths"]
    assert "/replay/{table}" not in paths and "/tables/{table}/replay" in paths


@fake
async def test_an_archived_table_replays_the_same_bytes(redis_client, tmp_path):
    """A table the archiver moved out of Redis replays, seat by seat and step
    by step, exactly as it did before it left."""
    import httpx

    from services.serve import build_serve_app
    from tests.test_archiver import gateway, settings

    url = f"sqlite:///{tmp_path / 'archive.db'}"
    app = build_serve_app(settings(url), redis=redis_client)
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://tapis") as live:
            live.app = app  # type: ignore[attr-defined]
            tid, events = await finished_table(live, "maumau", 3, {"hand_size": 3, "target_score": 20})
            asked = [{"at": v, **({} if seat is None else {"seat": seat})}
                     for seat in (None, 0, 2) for v in move_ends(events)]
            before = [(await live.get(f"/tables/{tid}/replay", params=p)).content for p in asked]
    # the embedded service archives its finished tables as it stops
    assert await redis_client.exists(keys.meta(tid), keys.events(tid)) == 0
    async with gateway(redis_client, url) as fresh:
        assert (await fresh.get(f"/tables/{tid}")).json()["status"] == "finished"
        after = [(await fresh.get(f"/tables/{tid}/replay", params=p)).content for p in asked]
    assert after == before
