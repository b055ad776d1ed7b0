"""Leaving a table (issue 13, part 2), on fakeredis and real Redis:
`POST /tables/{T}/leave` frees a seat before the start (the next to join
it gets a new token), hands it to the stand-in bot for good after the
start (a `SeatLeft` event; the bot moves at once when the seat is on
turn), is 409 `game_over` after the end; the old token is then refused
everywhere (view, actions, back, leave, SSE streams end), a leave racing a
join stays consistent, and nobody can leave another's seat."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from services import metrics
from services.gateway.deps import hash_token
from services.store import keys
from services.store.store import EventStore
from services.store.tables import Tables
from services.worker.worker import Worker
from shared.presence import SEAT_LEFT
from tests.test_liveness import RecordingBots, cmd, make_table, sample, settings


async def create(client, players=3, bots=None, target=30, turn_seconds=None, stand_in="first"):
    r = await client.post("/tables", json={"game": "toy", "players": players, "options": {"target": target},
                                           "bots": bots or {}, "turn_seconds": turn_seconds, "stand_in": stand_in})
    assert r.status_code == 201, r.text
    return r.json()["id"]


async def join(client, table, seat, name="Ann"):
    r = await client.post(f"/tables/{table}/join", json={"seat": seat, "name": name})
    assert r.status_code == 200, r.text
    return r.json()


def auth(token):
    return {"Authorization": f"Bearer {token}"}


async def wait_for(pred, within_s=10.0):
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        got = await pred()
        if got:
            return got
        await asyncio.sleep(0.02)
    raise AssertionError("condition not reached")


async def assert_refused_everywhere(client, table, token):
    """The old token gets 403 `bad_token` on every route that takes one."""
    h = auth(token)
    for method, path, body in (("GET", "view", None), ("POST", "actions", {"action": {"type": "add", "n": 1}}),
                               ("POST", "back", None), ("POST", "leave", None), ("GET", "events", None),
                               ("GET", "stream", None)):
        r = await client.request(method, f"/tables/{table}/{path}", headers=h, json=body)
        assert (r.status_code, r.json()["code"]) == (403, "bad_token"), (path, r.text)


def sse(body: str) -> list[dict]:
    """The messages of an SSE body (``event``, ``id``, ``data`` parsed)."""
    out = []
    for block in body.replace("\r\n", "\n").split("\n\n"):
        msg = {}
        for line in block.split("\n"):
            key, _, value = line.partition(":")
            if key in ("event", "id", "data"):
                msg[key] = value.strip()
        if msg:
            if "data" in msg:
                msg["data"] = json.loads(msg["data"])
            out.append(msg)
    return out


async def test_leave_before_the_start_frees_the_seat_and_the_next_join_gets_a_new_token(service):
    tid = await create(service, bots={"2": "first"})
    ann = await join(service, tid, 0)
    meta = keys.meta(tid)
    redis = service.app.state.ctx.store.redis
    before = sample(metrics.SEATS_LEFT, game="toy", when="waiting")
    r = await service.post(f"/tables/{tid}/leave", headers=auth(ann["token"]))
    assert r.status_code == 200, r.text
    assert r.json() == {"table": tid, "seat": 0, "status": "free", "strategy": None, "version": 0}
    assert sample(metrics.SEATS_LEFT, game="toy", when="waiting") == before + 1
    assert await redis.hget(meta, "seat:0") is None and await redis.hget(meta, "name:0") is None
    info = (await service.get(f"/tables/{tid}")).json()
    assert info["status"] == "waiting" and info["version"] == 0
    assert info["seats"][0] == {"seat": 0, "kind": "free", "name": None}
    lobby = (await service.get("/tables", params={"game": "toy", "status": "waiting"})).json()
    assert [t["seats"][0]["kind"] for t in lobby if t["id"] == tid] == ["free"]
    await assert_refused_everywhere(service, tid, ann["token"])

    bob = await join(service, tid, 0, name="Bob")
    assert bob["seat"] == 0 and bob["token"] != ann["token"]
    assert await redis.hget(meta, "seat:0") == f"tok:{hash_token(bob['token'])}".encode()
    assert await redis.hget(meta, "name:0") == b"Bob"
    await assert_refused_everywhere(service, tid, ann["token"])
    v = await service.get(f"/tables/{tid}/view", headers=auth(bob["token"]))
    assert (v.status_code, v.json()["seat"], v.json()["status"]) == (200, 0, "waiting")


async def test_leave_after_the_start_hands_the_seat_to_the_stand_in_at_once(service):
    """Seat 0 is on turn under a 60 s clock when its person leaves: the
    stand-in moves within seconds, not after the clock, and plays the seat
    until the game ends beside the bots."""
    tid = await create(service, bots={"1": "first", "2": "random"}, turn_seconds=60)
    ann = await join(service, tid, 0)
    assert ann["status"] == "playing"
    v = (await service.get(f"/tables/{tid}/view", headers=auth(ann["token"]))).json()
    assert v["awaiting"] == [0] and v["version"] == 1
    before = sample(metrics.SEATS_LEFT, game="toy", when="playing")
    t0 = time.time()
    r = await service.post(f"/tables/{tid}/leave", headers=auth(ann["token"]))
    assert r.status_code == 200, r.text
    assert r.json() == {"table": tid, "seat": 0, "status": "bot", "strategy": "first", "version": 2}
    assert sample(metrics.SEATS_LEFT, game="toy", when="playing") == before + 1
    store: EventStore = service.app.state.ctx.store
    left = (await store.read(tid, after=1, until=2))[0]
    assert (left.type, left.data, left.seat, left.cmd) == (SEAT_LEFT, {"seat": 0, "strategy": "first"}, 0, "l0")
    # The token hash went with the event.
    assert await store.seat_holder(tid, 0) == "bot:first"

    async def bot_moved():
        evs = await store.read(tid, after=2, until=3)
        return evs[0] if evs else None

    move = await wait_for(bot_moved, within_s=5)
    assert (move.type, move.seat, move.cmd) == ("Added", 0, "b0.2")
    assert move.ts - left.ts < 3_000 and time.time() - t0 < 5

    async def finished():
        info = (await service.get(f"/tables/{tid}")).json()
        return info if info["status"] == "finished" else None

    info = await wait_for(finished, within_s=30)
    assert info["seats"][0] == {"seat": 0, "kind": "bot", "name": "Ann", "strategy": "first", "left": True}
    evs = await store.read(tid)
    assert [e.type for e in evs].count(SEAT_LEFT) == 1
    assert all(e.cmd.startswith("b0.") for e in evs[2:] if e.seat == 0)  # only the bot played seat 0
    assert sum(e.data["n"] for e in evs if e.type == "Added") >= 30
    spectator = (await service.get(f"/tables/{tid}/view")).json()
    assert spectator["left"] == [0] and spectator["away"] == []
    await assert_refused_everywhere(service, tid, ann["token"])


async def test_leave_of_a_finished_table_is_game_over_and_keeps_the_token(service):
    tid = await create(service, players=2, bots={"1": "first"}, target=2)
    ann = await join(service, tid, 0)
    r = await service.post(f"/tables/{tid}/actions", headers=auth(ann["token"]),
                           json={"action": {"type": "add", "n": 2}})
    assert r.status_code == 200, r.text
    assert (await service.get(f"/tables/{tid}")).json()["status"] == "finished"
    r = await service.post(f"/tables/{tid}/leave", headers=auth(ann["token"]))
    assert (r.status_code, r.json()["code"]) == (409, "game_over")
    v = await service.get(f"/tables/{tid}/view", headers=auth(ann["token"]))
    assert (v.status_code, v.json()["status"], v.json()["seat"], v.json()["left"]) == (200, "finished", 0, [])


async def test_nobody_leaves_without_the_seats_token(service):
    tid = await create(service, players=4, bots={"3": "first"})
    ann = await join(service, tid, 0)
    bob = await join(service, tid, 1, name="Bob")
    store: EventStore = service.app.state.ctx.store
    meta_before = await store.meta(tid)
    for headers, status, code in (({}, 401, "missing_token"), (auth("not-a-token"), 403, "bad_token"),
                                  ({"Authorization": "Basic abc"}, 401, "missing_token")):
        r = await service.post(f"/tables/{tid}/leave", headers=headers)
        assert (r.status_code, r.json()["code"]) == (status, code)
    assert await store.meta(tid) == meta_before
    # Bob's token leaves Bob's seat, never Ann's.
    r = await service.post(f"/tables/{tid}/leave", headers=auth(bob["token"]))
    assert (r.status_code, r.json()["seat"]) == (200, 1)
    seats = (await service.get(f"/tables/{tid}")).json()["seats"]
    assert [s["kind"] for s in seats] == ["human", "free", "free", "bot"]
    assert (await service.get(f"/tables/{tid}/view", headers=auth(ann["token"]))).status_code == 200
    # Nor a seat of another table.
    other = await create(service, players=2, bots={"1": "first"})
    r = await service.post(f"/tables/{other}/leave", headers=auth(ann["token"]))
    assert (r.status_code, r.json()["code"]) == (403, "bad_token")


async def test_a_leave_racing_a_join_of_the_same_seat_leaves_one_consistent_state(service):
    redis = service.app.state.ctx.store.redis
    for _ in range(8):
        tid = await create(service, bots={"2": "first"})
        ann = await join(service, tid, 0)
        left, joined = await asyncio.gather(
            service.post(f"/tables/{tid}/leave", headers=auth(ann["token"])),
            service.post(f"/tables/{tid}/join", json={"seat": 0, "name": "Bob"}))
        assert left.status_code == 200 and left.json()["status"] == "free"
        holder = await redis.hget(keys.meta(tid), "seat:0")
        if joined.status_code == 200:  # the leave went first: Bob has the seat, with his own token
            assert holder == f"tok:{hash_token(joined.json()['token'])}".encode()
            assert await redis.hget(keys.meta(tid), "name:0") == b"Bob"
        else:  # the join went first: refused, then the leave freed the seat
            assert (joined.status_code, joined.json()["code"]) == (409, "seat_taken")
            assert holder is None and await redis.hget(keys.meta(tid), "name:0") is None
        await assert_refused_everywhere(service, tid, ann["token"])


async def test_a_leave_racing_the_join_that_fills_the_table(service):
    """Either the leave frees the seat first (no start) or the join fills
    the table first: then the game starts with every seat and the leave
    hands the seat to the stand-in. Never a started game with an empty
    seat."""
    store: EventStore = service.app.state.ctx.store
    for _ in range(6):
        tid = await create(service, players=2, bots={})
        ann = await join(service, tid, 0)
        left, joined = await asyncio.gather(
            service.post(f"/tables/{tid}/leave", headers=auth(ann["token"])),
            service.post(f"/tables/{tid}/join", json={"seat": 1, "name": "Bob"}))
        assert left.status_code == 200 and joined.status_code == 200, (left.text, joined.text)
        if left.json()["status"] == "free":
            assert await store.version(tid) == 0
            assert await store.seat_holder(tid, 0) is None
            assert joined.json()["status"] == "waiting"
        else:
            assert left.json()["status"] == "bot"
            evs = await store.read(tid)
            assert evs[0].type == "GameStarted" and evs[left.json()["version"] - 1].type == SEAT_LEFT
            assert await store.seat_holder(tid, 0) == "bot:first"
        assert await store.seat_holder(tid, 1) == f"tok:{hash_token(joined.json()['token'])}"
        await assert_refused_everywhere(service, tid, ann["token"])


async def test_an_old_tokens_action_through_a_gateway_that_missed_the_leave_is_refused(service):
    """A gateway whose cache has not seen the `SeatLeft` yet lets the
    action through; the worker refuses it and the gateway answers 403."""
    tid = await create(service, players=3, bots={"2": "first"})
    ann = await join(service, tid, 0)
    bob = await join(service, tid, 1, name="Bob")
    assert bob["status"] == "playing"
    h = auth(ann["token"])
    assert (await service.get(f"/tables/{tid}/view", headers=h)).status_code == 200  # cached here
    ctx = service.app.state.ctx
    reply = await ctx.submitter.send(tid, kind="leave", seat=0, command_id="l0")  # through "another gateway"
    assert reply.ok
    r = await service.post(f"/tables/{tid}/actions", headers=h, json={"action": {"type": "add", "n": 1}})
    assert (r.status_code, r.json()["code"]) == (403, "bad_token")
    assert [e.type for e in await ctx.store.read(tid, after=reply.version - 1, until=reply.version)] == [SEAT_LEFT]


async def _stream_body(client, table, token, **params):
    r = await client.get(f"/tables/{table}/stream", headers=auth(token), params=params)
    assert r.status_code == 200
    return r.text


async def test_a_seats_stream_ends_when_the_seat_is_left_after_the_start(service):
    """The stream shows the seat's own secret until the leave, then the
    `SeatLeft` event and `revoked`, and ends: nothing the bot sees after."""
    tid = await create(service, players=3, bots={"2": "first"})
    ann = await join(service, tid, 0)
    await join(service, tid, 1, name="Bob")  # people on seats 0 and 1: the table waits on Ann
    task = asyncio.create_task(_stream_body(service, tid, ann["token"]))
    await asyncio.sleep(0.5)
    assert not task.done()  # a live stream
    r = await service.post(f"/tables/{tid}/leave", headers=auth(ann["token"]))
    assert r.status_code == 200 and r.json()["version"] == 2
    t0 = time.monotonic()
    msgs = sse(await asyncio.wait_for(task, 5))
    assert time.monotonic() - t0 < 2.5  # within a poll period (at most 1 s) and change
    assert [m.get("event") for m in msgs] == ["event", "event", "revoked"]
    started, seat_left, revoked = msgs
    assert started["data"]["type"] == "GameStarted" and started["data"]["data"]["secrets"][0] is not None
    assert started["data"]["data"]["secrets"][1] is None
    assert seat_left["data"] == {"type": SEAT_LEFT, "data": {"seat": 0, "strategy": "first"}, "seat": 0,
                                 "ts": seat_left["data"]["ts"], "cmd": "l0", "version": 2}
    assert revoked == {"event": "revoked", "id": "2", "data": {"seat": 0, "reason": "seat_left"}}
    # Reconnecting with the old token is refused.
    r = await service.get(f"/tables/{tid}/stream", headers=auth(ann["token"]), params={"after": 2})
    assert (r.status_code, r.json()["code"]) == (403, "bad_token")


async def test_a_seats_stream_ends_when_the_seat_is_freed_before_the_start(service):
    """Freed before the start and taken by someone else who fills the
    table: the old stream never shows the new person's deal."""
    tid = await create(service, players=3, bots={"2": "first"})
    ann = await join(service, tid, 0)
    task = asyncio.create_task(_stream_body(service, tid, ann["token"]))
    await asyncio.sleep(0.3)
    assert not task.done()
    assert (await service.post(f"/tables/{tid}/leave", headers=auth(ann["token"]))).status_code == 200
    await join(service, tid, 0, name="Bob")
    await join(service, tid, 1, name="Cy")  # fills the table: dealt to Bob on seat 0
    msgs = sse(await asyncio.wait_for(task, 3))
    assert msgs == [{"event": "revoked", "id": "0", "data": {"seat": 0, "reason": "seat_left"}}]


async def test_the_worker_records_a_leave_once_and_refuses_the_left_seat(redis_client, table_id):
    """At the worker: `leave` appends `SeatLeft` and swaps the token hash
    for the stand-in in the same script; the bot is woken at once when
    the seat is on turn; `back`, `act` and another `leave` of the seat are
    refused `seat_left`; the same leave sent again is answered from its
    record; snapshots keep the left seats."""
    store = await make_table(redis_client, table_id, bots={1: "first"}, humans=(0,), turn_ms=60_000)
    bots = RecordingBots()
    w = Worker(redis_client, settings(snapshot_every=1), bots=bots)
    assert (await w.process(cmd(table_id, "start", kind="start", seat=None))).ok
    assert bots.turns == []  # seat 0 is a person's, on turn under its clock
    reply = await w.process(cmd(table_id, "l0", kind="leave", seat=0))
    assert (reply.ok, reply.version) == (True, 2)
    events = await store.read(table_id)
    assert (events[1].type, events[1].data, events[1].seat) == (SEAT_LEFT, {"seat": 0, "strategy": "first"}, 0)
    assert await store.seat_holder(table_id, 0) == "bot:first"
    assert bots.turns == [(table_id, 0, 2, "first")]
    for kind, cid, action in (("back", "r0.x", None), ("act", "u0.x", {"type": "add", "n": 1}),
                              ("leave", "l0.again", None)):
        r = await w.process(cmd(table_id, cid, kind=kind, seat=0, action=action))
        assert (r.ok, r.code) == (False, "seat_left"), kind
    again = await w.process(cmd(table_id, "l0", kind="leave", seat=0))
    assert (again.ok, again.version) == (True, 2)
    assert await store.version(table_id) == 2
    # A bot seat is not a person's: it cannot be left.
    r = await w.process(cmd(table_id, "l1", kind="leave", seat=1))
    assert (r.ok, r.code) == (False, "not_a_person")
    # A cold reader (from the snapshot) knows the seat was left.
    cold = await Tables(store).get(table_id)
    assert cold is not None and cold.left == frozenset({0}) and cold.driver(0) == "first"
    assert cold.deadlines() == {}


@pytest.mark.parametrize("free_seats", [1, 0])
async def test_the_leave_script_frees_only_a_held_seat_of_a_table_not_full(redis_client, table_id, free_seats):
    store = await make_table(redis_client, table_id, players=3, bots={2: "first"},
                             humans=(0,) if free_seats else (0, 1))
    assert await store.leave_waiting(table_id, 0, "hash1") == "not_yours"
    assert await store.leave_waiting("nosuchtable", 0, "hash0") == "missing"
    if free_seats:
        assert await store.leave_waiting(table_id, 0, "hash0") == "ok"
        assert await store.seat_holder(table_id, 0) is None
        assert await store.leave_waiting(table_id, 0, "hash0") == "not_yours"
    else:  # full: the start is under way, the seat stays until it is dealt
        assert await store.leave_waiting(table_id, 0, "hash0") == "full"
        assert await store.seat_holder(table_id, 0) == "tok:hash0"


async def test_an_away_seat_that_is_left_is_no_longer_away(redis_client, table_id):
    """A seat whose clock ran out, then left: `left`, not `away`, and no
    `back` brings it back."""
    store = await make_table(redis_client, table_id, bots={1: "first"}, humans=(0,), turn_ms=1_000)
    bots = RecordingBots()
    w = Worker(redis_client, settings(), bots=bots)
    assert (await w.process(cmd(table_id, "start", kind="start", seat=None))).ok
    events = await store.read(table_id)
    late = cmd(table_id, "t.1", kind="timeout", seat=None, expected=1)
    w.now_ms = lambda: events[0].ts + 1_000
    assert (await w.process(late)).ok
    t = await w.tables.get(table_id)
    assert t is not None and t.away == frozenset({0})
    assert (await w.process(cmd(table_id, "l0", kind="leave", seat=0))).ok
    t = await w.tables.get(table_id)
    assert (t.away, t.left, t.driver(0)) == (frozenset(), frozenset({0}), "first")
    assert [e.type for e in await store.read(table_id)] == ["GameStarted", "TurnTimedOut", SEAT_LEFT]
    r = await w.process(cmd(table_id, "r0.y", kind="back", seat=0))
    assert (r.ok, r.code) == (False, "seat_left")


GAMES = [("maumau", 3), ("maudix", 3), ("dix", 3), ("mauw", 3), ("maudit_mot_dit", 3)]


@pytest.mark.parametrize("game,players", GAMES)
async def test_in_every_game_a_left_seat_is_played_to_the_end(service, game, players):
    """Leave right after the deal: the stand-in plays the seat beside the
    bots until the game ends, and the old token reads nothing."""
    r = await service.post("/tables", json={"game": game, "players": players, "turn_seconds": 60, "stand_in": "random",
                                            "bots": {str(i): "random" for i in range(1, players)}})
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    ann = await join(service, tid, 0)
    r = await service.post(f"/tables/{tid}/leave", headers=auth(ann["token"]))
    assert r.status_code == 200, r.text
    assert (r.json()["status"], r.json()["strategy"]) == ("bot", "random")

    async def finished():
        info = (await service.get(f"/tables/{tid}")).json()
        return info if info["status"] == "finished" else None

    info = await wait_for(finished, within_s=120)
    assert info["seats"][0] == {"seat": 0, "kind": "bot", "name": "Ann", "strategy": "random", "left": True}
    assert info["result"] is not None
    store: EventStore = service.app.state.ctx.store
    evs = await store.read(tid)
    k = r.json()["version"] - 1
    assert (evs[k].type, evs[k].data) == (SEAT_LEFT, {"seat": 0, "strategy": "random"})
    # Only bots acted after the leave (no person is left), seat 0's bot among them.
    assert {(e.cmd or "")[:1] for e in evs[k + 1:]} == {"b"}
    assert any((e.cmd or "").startswith("b0.") for e in evs[k + 1:])
    await assert_refused_everywhere(service, tid, ann["token"])


async def test_a_reader_that_saw_the_seats_before_a_leave_and_the_start_reads_them_again(redis_client, table_id):
    """The meta is read, then the seat is left and taken by someone else
    who fills the table and it starts, then the log is read: the
    projection must hold the new person's token, never the old one (whose
    view would show the new person's cards)."""
    store = await make_table(redis_client, table_id, players=3, bots={2: "first"})
    assert (await store.join(table_id, 0, "hash-ann", "Ann"))[0] == "ok"
    tables = Tables(store)
    w = Worker(redis_client, settings(), bots=RecordingBots())
    read = store.read
    done = False

    async def read_after_a_leave_and_a_start(table, after=0, until=None, count=None):
        nonlocal done
        if not done:  # between this reader's meta read and its log read
            done = True
            assert await store.leave_waiting(table_id, 0, "hash-ann") == "ok"
            assert (await store.join(table_id, 0, "hash-bob", "Bob"))[0] == "ok"
            assert (await store.join(table_id, 1, "hash-cy", "Cy"))[0] == "ok"
            assert (await w.process(cmd(table_id, "start", kind="start", seat=None))).ok
        return await read(table, after=after, until=until, count=count)

    store.read = read_after_a_leave_and_a_start  # type: ignore[method-assign]
    t = await tables.get(table_id)
    assert t is not None and t.started
    assert (t.humans, t.bots, t.names) == ({0: "hash-bob", 1: "hash-cy"}, {2: "first"}, {0: "Bob", 1: "Cy", 2: "bot 2"})


def test_seat_left_is_a_table_event_every_reader_sees_and_no_game_folds():
    from shared import presence
    from shared.engine import fold
    from shared.events import Event
    from shared.games import get_game

    toy = get_game("toy")
    started = Event("GameStarted", {"players": 2, "target": 5, "secrets": [1111, 2222]})
    gone = presence.left(0, "first")
    assert (gone.type, gone.data, gone.seat) == (SEAT_LEFT, {"seat": 0, "strategy": "first"}, 0)
    assert SEAT_LEFT in presence.TABLE_EVENTS
    assert presence.apply(frozenset({0, 1}), gone) == frozenset({1})  # no longer away
    timed_out = presence.timed_out(0, 5)
    assert presence.left_after([started, timed_out, gone]) == frozenset({0})
    assert presence.away_after([started, timed_out, gone]) == frozenset()
    assert fold(toy, [started, gone]) == fold(toy, [started])
    for seat in (None, 0, 1):
        assert presence.feed(toy, [started, gone], seat)[1] == (2, gone)
    assert presence.feed(toy, [started, gone], 0, table_events=False)[1:] == []


@pytest.mark.redis
async def test_replay_checks_the_left_seats_of_a_snapshot(capsys, table_id):
    """`tapis replay` rebuilds the left seats from the log and finds them
    in the snapshot the worker wrote after the leave."""
    from redis.asyncio import Redis

    from services.config import Settings
    from services.replay import replay_table
    from tests.conftest import REAL_REDIS_URL, real_redis_available

    if not real_redis_available():
        pytest.skip("no Redis")
    redis = Redis.from_url(REAL_REDIS_URL)
    await redis.flushdb()
    try:
        await make_table(redis, table_id, bots={1: "first"}, humans=(0,))
        w = Worker(redis, settings(snapshot_every=1), bots=RecordingBots())
        assert (await w.process(cmd(table_id, "start", kind="start", seat=None))).ok
        assert (await w.process(cmd(table_id, "l0", kind="leave", seat=0))).ok
        capsys.readouterr()
        assert await replay_table(Settings(redis_url=REAL_REDIS_URL), table_id) == 0
        out = json.loads(capsys.readouterr().out)
        assert (out["version"], out["status"], out["snapshot"]) == (2, "playing",
                                                                    {"version": 2, "matches_replay": True})
        # A snapshot that lost the left seat is told apart.
        from shared import snapshot

        blob = await EventStore(redis).load_snapshot(table_id)
        v, obj = snapshot.unpack(blob, loader=lambda o: o)
        assert obj["left"] == [0]
        await EventStore(redis).save_snapshot(table_id, snapshot.pack(v, {**obj, "left": []}, dumper=lambda o: o))
        capsys.readouterr()
        assert await replay_table(Settings(redis_url=REAL_REDIS_URL), table_id) == 3
    finally:
        await redis.flushdb()
        await redis.aclose()


#: Bodies `/leave` and `/back` refuse (tester's report, item 3), each with
#: its status and code: not JSON is 400 before the token is looked at, any
#: JSON but an empty object is 422 `invalid_request`.
BAD_BODIES = [
    (b"not json", 400, "malformed_json"),
    (b"[]", 422, "invalid_request"),
    (b'"x"', 422, "invalid_request"),
    (b"null", 422, "invalid_request"),
    (b"1", 422, "invalid_request"),
    (b'{"seat": 1}', 422, "invalid_request"),
]


async def _post_raw(client, table, route, token, body: bytes, scheme="Bearer"):
    return await client.post(f"/tables/{table}/{route}", content=body,
                             headers={"Authorization": f"{scheme} {token}", "Content-Type": "application/json"})


@pytest.mark.parametrize("body,status,code", BAD_BODIES)
async def test_a_leave_with_a_body_that_is_not_an_empty_object_is_refused_and_the_seat_kept(service, body, status,
                                                                                          code):
    tid = await create(service, bots={"2": "first"})
    ann = await join(service, tid, 0)
    store: EventStore = service.app.state.ctx.store
    meta_before = await store.meta(tid)
    r = await _post_raw(service, tid, "leave", ann["token"], body)
    assert (r.status_code, r.json()["code"]) == (status, code), r.text
    assert await store.meta(tid) == meta_before
    seats = (await service.get(f"/tables/{tid}")).json()["seats"]
    assert seats[0] == {"seat": 0, "kind": "human", "name": "Ann", "away": False}
    # The seat is still Ann's: an empty object (lowercase scheme too) leaves it.
    r = await _post_raw(service, tid, "leave", ann["token"], b"{}", scheme="bearer")
    assert (r.status_code, r.json()["status"]) == (200, "free"), r.text


@pytest.mark.parametrize("body,status,code", BAD_BODIES)
async def test_a_leave_after_the_start_with_a_bad_body_appends_nothing(service, body, status, code):
    tid = await create(service, bots={"1": "first", "2": "first"})
    ann = await join(service, tid, 0)
    store: EventStore = service.app.state.ctx.store
    version = await store.version(tid)
    r = await _post_raw(service, tid, "leave", ann["token"], body)
    assert (r.status_code, r.json()["code"]) == (status, code), r.text
    assert await store.version(tid) == version
    assert SEAT_LEFT not in [e.type for e in await store.read(tid)]
    assert (await service.get(f"/tables/{tid}/view", headers=auth(ann["token"]))).json()["left"] == []


async def test_malformed_json_to_leave_is_400_before_the_token_is_checked(service):
    tid = await create(service, bots={"2": "first"})
    for headers in ({}, auth("not-a-token")):
        r = await service.post(f"/tables/{tid}/leave", content=b"not json",
                               headers={**headers, "Content-Type": "application/json"})
        assert (r.status_code, r.json()["code"]) == (400, "malformed_json")
        r = await service.post(f"/tables/{tid}/back", content=b"{",
                               headers={**headers, "Content-Type": "application/json"})
        assert (r.status_code, r.json()["code"]) == (400, "malformed_json")
    # A well-formed body with a bad token: the token first (403), then the schema.
    r = await service.post(f"/tables/{tid}/leave", json={"seat": 1}, headers=auth("not-a-token"))
    assert (r.status_code, r.json()["code"]) == (403, "bad_token")


@pytest.mark.parametrize("body,status,code", BAD_BODIES)
async def test_back_with_a_body_that_is_not_an_empty_object_is_refused(service, body, status, code):
    tid = await create(service, bots={"1": "first", "2": "first"})
    ann = await join(service, tid, 0)
    store: EventStore = service.app.state.ctx.store
    version = await store.version(tid)
    r = await _post_raw(service, tid, "back", ann["token"], body)
    assert (r.status_code, r.json()["code"]) == (status, code), r.text
    assert await store.version(tid) == version
    r = await _post_raw(service, tid, "back", ann["token"], b"{}", scheme="bearer")
    assert (r.status_code, r.json()["away"]) == (200, False), r.text


def test_the_openapi_declares_an_optional_empty_object_for_leave_and_back(service):
    spec = service.app.openapi()
    assert spec["components"]["schemas"]["NoFields"]["additionalProperties"] is False
    assert spec["components"]["schemas"]["NoFields"]["properties"] == {}
    for route in ("leave", "back"):
        op = spec["paths"][f"/tables/{{table}}/{route}"]["post"]
        body = op["requestBody"]
        assert body.get("required", False) is False
        schema = body["content"]["application/json"]["schema"]
        assert {"$ref": "#/components/schemas/NoFields"} in schema.get("anyOf", [schema])
        assert op["responses"]["400"]["description"].startswith("`malformed_json`")
        assert "invalid_request" in op["responses"]["422"]["description"]
