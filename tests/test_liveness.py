"""Every table moves on (issue 10), on both backends: the due sets written
by the append/create/join scripts, the sweeper and its leases, lost starts,
lost bot turns, the turn clock with its stand-in bot, duplicates counted,
game bugs told apart from malformed actions, Redis errors never
dead-lettered."""

from __future__ import annotations

import asyncio
import time

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from services import metrics
from services.bots.turn import take_turn
from services.config import Settings
from services.messaging import Command, Submitter
from services.store import keys
from services.store.store import EventStore
from services.store.tables import Tables
from services.worker.worker import Worker
from shared.engine import fold
from shared.presence import SEAT_RETURNED, TURN_TIMED_OUT


class Clock:
    """A settable clock in ms (starts at the real time)."""

    def __init__(self) -> None:
        self.ms = int(time.time() * 1000)

    def __call__(self) -> int:
        return self.ms

    def advance(self, ms: int) -> None:
        self.ms += ms


class RecordingBots:
    """A bot scheduler that records (table, seat, version, strategy)."""

    def __init__(self) -> None:
        self.turns: list[tuple[str, int, int, str]] = []

    async def schedule(self, table, seat, version, game, strategy):
        self.turns.append((table, seat, version, strategy))


def settings(**kw) -> Settings:
    base = dict(redis_url=None, shards=1, claim_idle_ms=100, redrive_bot_ms=1_000, redrive_start_ms=500,
                sweep_lease_ms=5_000)
    base.update(kw)
    return Settings(**base)


def cmd(table, cid, kind="act", seat=0, action=None, expected=None):
    return Command(table, kind, seat, action, expected, cid, "", int(time.time() * 1000))


def sample(metric, **labels) -> float:
    m = metric.labels(**labels) if labels else metric
    return m._value.get()


async def due_of(redis, table) -> float | None:
    return await redis.zscore(keys.due(keys.partition(table)), table)


async def make_table(redis, table, *, bots=None, humans=(), players=2, target=100, turn_ms=None):
    store = EventStore(redis)
    await store.create(table, game="toy", players=players, options={"target": target}, bots=bots or {}, names={},
                       clock={"turn_ms": turn_ms, "stand_in": "first"})
    for seat in humans:
        status, got, _free = await store.join(table, seat, f"hash{seat}", f"person {seat}")
        assert (status, got) == ("ok", seat)
    return store


async def test_all_bot_table_is_due_at_creation_and_the_sweeper_starts_it(redis_client, table_id):
    """A created all-bot table whose start never came (the gateway died
    right after creating it) is started by the sweeper."""
    await make_table(redis_client, table_id, bots={0: "first", 1: "first"})
    assert await due_of(redis_client, table_id) is not None
    bots = RecordingBots()
    clock = Clock()
    w = Worker(redis_client, settings(), bots=bots, clock=clock)
    assert await w.sweep_once() == 0  # not due yet
    clock.advance(6_000)
    assert await w.sweep_once() == 1
    assert await EventStore(redis_client).version(table_id) == 1
    assert bots.turns == [(table_id, 0, 1, "first")]
    # Now due for the bot turn's re-drive, not for the start.
    assert await due_of(redis_client, table_id) == clock.ms + 1_000


async def test_filling_the_last_seat_makes_the_table_due(redis_client, table_id):
    """A join that fills the table records it as due in the same script:
    a start lost between the join and the worker is re-sent."""
    store = await make_table(redis_client, table_id, bots={1: "first"})
    assert await due_of(redis_client, table_id) is None
    await store.join(table_id, 0, "h", "ann")
    assert await due_of(redis_client, table_id) is not None
    clock = Clock()
    clock.advance(60_000)
    w = Worker(redis_client, settings(), bots=RecordingBots(), clock=clock)
    assert await w.sweep_once() == 1
    assert await store.version(table_id) == 1
    # The person is on turn without a clock: nothing left to drive.
    assert await due_of(redis_client, table_id) is None


async def test_a_bot_turn_lost_between_append_and_enqueue_is_redriven(redis_client, table_id):
    """The worker died right after the append (no bot turn enqueued, no
    exact schedule): the due entry the append script wrote brings the
    sweeper back to the table, which enqueues the bot turn once."""
    store = await make_table(redis_client, table_id, bots={0: "first", 1: "first"})
    w = Worker(redis_client, settings(), bots=RecordingBots())
    assert (await w.process(cmd(table_id, "start", kind="start", seat=None))).ok
    # A move appended by "another worker" that died before its after-append steps:
    res = await store.append(table_id, 1, "b0.1", [_added(0)], digest="x")
    assert res.status == "ok"
    due = await due_of(redis_client, table_id)
    assert due is not None
    bots = RecordingBots()
    clock = Clock()
    sweeper = Worker(redis_client, settings(), bots=bots, clock=clock)
    clock.ms = int(due) - 1
    assert await sweeper.sweep_once() == 0
    clock.ms = int(due)
    before = sample(metrics.REDRIVEN, kind="bot")
    assert await sweeper.sweep_once() == 1
    assert bots.turns == [(table_id, 1, 2, "first")]
    assert sample(metrics.REDRIVEN, kind="bot") == before + 1


async def test_a_lease_keeps_a_second_sweeper_off_the_table(redis_client, table_id):
    await make_table(redis_client, table_id, bots={0: "first", 1: "first"})
    clock = Clock()
    clock.advance(6_000)
    a = Worker(redis_client, settings(), bots=RecordingBots(), clock=clock)
    b = Worker(redis_client, settings(), bots=RecordingBots(), clock=clock)
    store = EventStore(redis_client)
    assert await store.claim_due(keys.partition(table_id), clock.ms, 5_000) == [table_id]
    assert await b.sweep_once() == 0  # leased by the first claim
    clock.advance(5_001)  # the claimer died: its lease ran out
    assert await a.sweep_once() == 1
    assert await store.version(table_id) == 1


async def test_a_finished_table_leaves_the_due_sets(redis_client, table_id):
    await make_table(redis_client, table_id, bots={0: "first"}, players=1, target=1)
    w = Worker(redis_client, settings(), bots=RecordingBots())
    assert (await w.process(cmd(table_id, "start", kind="start", seat=None))).ok
    assert await due_of(redis_client, table_id) is not None
    r = await w.process(cmd(table_id, "b0.1", kind="bot", action={"type": "add", "n": 1}))
    assert r.ok
    part = keys.partition(table_id)
    assert await due_of(redis_client, table_id) is None
    assert await redis_client.zscore(keys.waiting(part), table_id) is None


async def test_turn_clock_stand_in_and_coming_back(redis_client, table_id):
    """Seat 0 is a person with a 2 s clock, seat 1 a bot.  The person's
    deadline is the last event's time + 2 s; past it the sweeper appends
    TurnTimedOut, the stand-in plays the seat (command kind bot), and the
    person's next action takes it back (SeatReturned before the move)."""
    store = await make_table(redis_client, table_id, bots={1: "first"}, humans=[0], turn_ms=2_000)
    clock = Clock()
    bots = RecordingBots()
    w = Worker(redis_client, settings(), bots=bots, clock=clock)
    tables = w.tables
    assert (await w.process(cmd(table_id, "start", kind="start", seat=None))).ok
    t = await tables.get(table_id)
    start_ts = t.last_ts
    assert t.deadlines() == {0: start_ts + 2_000}
    assert await due_of(redis_client, table_id) == start_ts + 2_000
    # Not yet: a timeout command is refused and nothing happens.
    refused = await w.process(cmd(table_id, "t.1", kind="timeout", seat=None, expected=1))
    assert (refused.ok, refused.code) == (False, "not_due")
    clock.ms = start_ts + 2_000
    before = sample(metrics.TURN_TIMEOUTS, game="toy")
    assert await w.sweep_once() == 1
    events = await store.read(table_id)
    assert [e.type for e in events] == ["GameStarted", TURN_TIMED_OUT]
    assert events[1].data == {"seat": 0, "deadline": start_ts + 2_000}
    assert sample(metrics.TURN_TIMEOUTS, game="toy") == before + 1
    t = await tables.get(table_id)
    assert t.away == frozenset({0}) and t.deadlines() == {}
    assert bots.turns == [(table_id, 0, 2, "first")]  # the stand-in of the away seat
    # The stand-in's move (a bot command) leaves the seat away.
    r = await w.process(cmd(table_id, "b0.2", kind="bot", seat=0, action={"type": "add", "n": 1}, expected=2))
    assert r.ok
    assert (await tables.get(table_id)).away == frozenset({0})
    # The bot seat 1 moves; seat 0 is awaited again, played by the stand-in.
    assert (await w.process(cmd(table_id, "b1.3", kind="bot", seat=1, action={"type": "add", "n": 1}))).ok
    assert bots.turns[-1] == (table_id, 0, 4, "first")
    # The person acts: the seat is theirs again, in the same command.
    r = await w.process(cmd(table_id, "u0.x", seat=0, action={"type": "add", "n": 2}))
    assert r.ok and r.version == 6
    events = await store.read(table_id)
    assert [e.type for e in events[-2:]] == [SEAT_RETURNED, "Added"]
    t = await tables.get(table_id)
    assert t.away == frozenset()
    # Replay equals live: the game's fold skips the table events.
    assert fold(t.game, events) == t.state


async def test_coming_back_without_acting(redis_client, table_id):
    await make_table(redis_client, table_id, bots={1: "first"}, humans=[0], turn_ms=2_000)
    clock = Clock()
    w = Worker(redis_client, settings(), bots=RecordingBots(), clock=clock)
    await w.process(cmd(table_id, "start", kind="start", seat=None))
    # Present: coming back changes nothing.
    r = await w.process(cmd(table_id, "r0.a", kind="back", seat=0))
    assert r.ok and r.version == 1 and r.events == []
    clock.advance(2_000)
    await w.sweep_once()
    r = await w.process(cmd(table_id, "r0.b", kind="back", seat=0))
    assert r.ok and r.version == 3
    t = await w.tables.get(table_id)
    assert t.away == frozenset()
    assert t.deadlines() == {0: t.last_ts + 2_000}
    # A bot seat cannot "come back"; a stand-in move for a present person is refused.
    r = await w.process(cmd(table_id, "r1.c", kind="back", seat=1))
    assert (r.ok, r.code) == (False, "not_a_person")
    r = await w.process(cmd(table_id, "b0.3", kind="bot", seat=0, action={"type": "add", "n": 1}))
    assert (r.ok, r.code) == (False, "not_a_bot_seat")


async def test_a_bot_task_delivered_twice_is_counted_as_duplicate(redis_client, table_id):
    """The same bot turn run twice: the move is applied once, the second
    run ends as ``duplicate`` (not ``stale``)."""
    await make_table(redis_client, table_id, bots={0: "first", 1: "first"})
    w = Worker(redis_client, settings(), bots=RecordingBots())
    await w.process(cmd(table_id, "start", kind="start", seat=None))
    store = EventStore(redis_client)
    submitter = Submitter(redis_client, 1)
    tables = Tables(store)
    assert await take_turn(tables, submitter, table_id, 0, 1) == "submitted"
    # The worker applies it (read the command off the stream by hand).
    entries = await redis_client.xrange(keys.commands(0))
    await w.ensure_groups()
    before = sample(metrics.COMMANDS_DUPLICATE, kind="bot")
    for entry_id, fields in entries:
        await w.handle(keys.commands(0), entry_id, fields)
        await w.handle(keys.commands(0), entry_id, fields)  # delivered twice
    assert await store.version(table_id) == 2
    assert sample(metrics.COMMANDS_DUPLICATE, kind="bot") == before + 1
    dup_before = sample(metrics.BOT_TURNS, game="toy", outcome="duplicate")
    assert await take_turn(tables, submitter, table_id, 0, 1) == "duplicate"
    assert sample(metrics.BOT_TURNS, game="toy", outcome="duplicate") == dup_before + 1


async def test_a_game_bug_is_dead_lettered_as_internal_error_not_bad_action(redis_client, table_id, monkeypatch):
    """An exception from the game on a well-formed action is a bug:
    dead-lettered with its reason, answered internal_error; a malformed
    action (not shaped like any legal action) is still bad_action."""
    from tests.toygame import GAME

    await make_table(redis_client, table_id, bots={0: "first"}, players=1)
    w = Worker(redis_client, settings(), bots=RecordingBots())
    await w.ensure_groups()
    await w.process(cmd(table_id, "start", kind="start", seat=None))

    def broken(state, seat, action, rng):
        raise TypeError("a bug, or a body the game did not expect")

    monkeypatch.setattr(GAME, "decide", broken)
    # Not shaped like a legal action (a string where a number goes): malformed.
    malformed = await w.process(cmd(table_id, "m", seat=0, action={"type": "add", "n": "1"}))
    assert (malformed.ok, malformed.code) == (False, "bad_action")
    assert await redis_client.xlen(keys.DEAD_LETTERS) == 0
    # Shaped like {"type": "add", "n": 1}: the game's exception is a bug.
    reply_stream = "test-bug"
    c = Command(table_id, "act", 0, {"type": "add", "n": 1}, None, "u0.bug", reply_stream, 0)
    entry = await redis_client.xadd(keys.commands(0), c.fields())
    await w.handle(keys.commands(0), entry, (await redis_client.xrange(keys.commands(0), entry, entry))[0][1])
    dead = await redis_client.xrange(keys.DEAD_LETTERS)
    assert len(dead) == 1 and dead[0][1][b"reason"].startswith(b"crash: TypeError")
    from services.messaging import Reply

    replies = await redis_client.xrange(keys.replies(reply_stream))
    reply = Reply.unpack(replies[-1][1][b"m"])
    assert (reply.ok, reply.code) == (False, "internal_error")
    assert (await redis_client.xpending(keys.commands(0), keys.GROUP))["pending"] == 0


async def test_a_redis_error_leaves_the_command_pending_not_dead_lettered(redis_client, table_id, monkeypatch):
    """Redis fails mid-command: nothing is dead-lettered or acked; the
    command stays pending and is applied once when reclaimed."""
    await make_table(redis_client, table_id, bots={0: "first"}, players=1)
    w = Worker(redis_client, settings(), bots=RecordingBots())
    await w.ensure_groups()
    await w.process(cmd(table_id, "start", kind="start", seat=None))
    c = Command(table_id, "bot", 0, {"type": "add", "n": 1}, 1, "b0.1", "", 0)
    await redis_client.xadd(keys.commands(0), c.fields())
    resp = await redis_client.xreadgroup(keys.GROUP, w.name, {keys.commands(0): ">"}, count=10)
    (entry_id, fields), = resp[0][1]
    real_append = w.store.append
    calls = 0

    async def failing_append(*args, **kw):
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RedisConnectionError("Redis went away")
        return await real_append(*args, **kw)

    monkeypatch.setattr(w.store, "append", failing_append)
    deferred = sample(metrics.COMMANDS_DEFERRED)
    await w.handle(keys.commands(0), entry_id, fields)
    assert sample(metrics.COMMANDS_DEFERRED) == deferred + 1
    assert await redis_client.xlen(keys.DEAD_LETTERS) == 0
    assert (await redis_client.xpending(keys.commands(0), keys.GROUP))["pending"] == 1
    await asyncio.sleep(0.15)
    assert await w.reclaim_once() == 1
    assert await EventStore(redis_client).version(table_id) == 2
    assert (await redis_client.xpending(keys.commands(0), keys.GROUP))["pending"] == 0


@pytest.mark.redis
async def test_pending_commands_deleted_before_ack_are_reported(table_id):
    """Case: a worker holding commands died and their entries were deleted
    (XDEL) or trimmed before anyone acked them.  Redis 7 drops them from
    the pending list and names them in XAUTOCLAIM's third element: each is
    counted and reported in the dead-letter stream, and a bot table still
    moves on through its due entry."""
    from redis.asyncio import Redis

    from tests.conftest import REAL_REDIS_URL, real_redis_available

    if not real_redis_available():
        pytest.skip("no Redis")
    r = Redis.from_url(REAL_REDIS_URL)
    await r.flushdb()
    try:
        await make_table(r, table_id, bots={0: "first", 1: "first"})
        w = Worker(r, settings(), bots=RecordingBots())
        await w.ensure_groups()
        await w.process(cmd(table_id, "start", kind="start", seat=None))
        ids = [await r.xadd(keys.commands(0), Command(table_id, "bot", 0, {"type": "add", "n": 1}, 1, f"b0.{i}", "",
                                                      0).fields()) for i in range(2)]
        await r.xreadgroup(keys.GROUP, "dead-worker", {keys.commands(0): ">"}, count=10)
        await r.xdel(keys.commands(0), *ids)
        lost = sample(metrics.COMMANDS_LOST)
        await asyncio.sleep(0.15)
        assert await w.reclaim_once() == 0
        assert sample(metrics.COMMANDS_LOST) == lost + 2
        dead = await r.xrange(keys.DEAD_LETTERS)
        assert [d[1][b"reason"] for d in dead] == [b"deleted before acknowledged"] * 2
        assert (await r.xpending(keys.commands(0), keys.GROUP))["pending"] == 0
        # The table still moves on: it is due for its bot turn.
        bots = RecordingBots()
        sweeper = Worker(r, settings(), bots=bots, clock=lambda: int(time.time() * 1000) + 60_000)
        await sweeper.sweep_once()
        assert bots.turns == [(table_id, 0, 1, "first")]
    finally:
        await r.flushdb()
        await r.aclose()


def _added(seat: int):
    from shared.events import Event

    return Event("Added", {"n": 1}, seat, int(time.time() * 1000), f"b{seat}.1")


async def test_an_applied_action_is_never_answered_internal_error(redis_client, table_id):
    """The append succeeded but the steps after it failed (the broker is
    down): the reply is still the applied outcome, and the table stays due
    so the sweeper enqueues the bot turn later."""
    await make_table(redis_client, table_id, bots={0: "first", 1: "first"})

    class BrokerDown:
        async def schedule(self, *args):
            raise OSError("broker unreachable")

    w = Worker(redis_client, settings(), bots=BrokerDown())
    r = await w.process(cmd(table_id, "start", kind="start", seat=None))
    assert r.ok and r.version == 1
    assert await due_of(redis_client, table_id) is not None
    bots = RecordingBots()
    later = Worker(redis_client, settings(), bots=bots, clock=lambda: int(time.time() * 1000) + 60_000)
    assert await later.sweep_once() == 1
    assert bots.turns == [(table_id, 0, 1, "first")]


def test_celery_reliability_settings_come_from_tapis_settings(monkeypatch):
    """Case: bot tasks sat in the broker's unacked hash for Celery's default
    hour.  The app acks late, requeues tasks of a dead worker process,
    reserves one task at a time and takes its visibility timeout from
    TAPIS_BOT_VISIBILITY_TIMEOUT_S."""
    import importlib

    import services.bots.celery_app as celery_app
    from services.config import get_settings

    monkeypatch.setenv("TAPIS_BOT_VISIBILITY_TIMEOUT_S", "45")
    monkeypatch.setenv("TAPIS_BOT_PREFETCH", "2")
    get_settings.cache_clear()
    try:
        mod = importlib.reload(celery_app)
        conf = mod.app.conf
        assert conf.task_acks_late is True
        assert conf.task_reject_on_worker_lost is True
        assert conf.worker_prefetch_multiplier == 2
        assert conf.broker_transport_options["visibility_timeout"] == 45
        assert mod.take_turn_task.max_retries == get_settings().bot_task_retries
    finally:
        monkeypatch.delenv("TAPIS_BOT_VISIBILITY_TIMEOUT_S")
        monkeypatch.delenv("TAPIS_BOT_PREFETCH")
        get_settings.cache_clear()
        importlib.reload(celery_app)


async def test_create_reports_an_unconfirmed_start_as_503_and_the_sweeper_starts_it():
    """Case: POST /tables answered 201 when the start failed, and a plain
    500 when no worker replied.  Now: 503 problem+json ``start_pending``
    naming the table, which a worker's sweeper starts later."""
    import httpx
    from fakeredis import FakeServer
    from fakeredis.aioredis import FakeRedis

    from services.gateway.app import create_app

    redis = FakeRedis(server=FakeServer())
    s = settings(reply_timeout_s=0.3, decide_in_gateway=False)
    app = create_app(s, redis)  # a gateway with no worker behind it (one that decides itself starts the table)
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            r = await client.post("/tables", json={"game": "toy", "players": 2, "bots": {"0": "first", "1": "first"}})
    assert r.status_code == 503
    assert r.headers["content-type"] == "application/problem+json"
    body = r.json()
    assert body["code"] == "start_pending"
    table = body["table"]
    store = EventStore(redis)
    assert await store.version(table) == 0
    w = Worker(redis, s, bots=RecordingBots(), clock=lambda: int(time.time() * 1000) + 60_000)
    await w.ensure_groups()
    assert await w.sweep_once() == 1
    assert await store.version(table) == 1
    await redis.aclose()


async def test_an_unexpected_exception_is_problem_json_not_plain_text(monkeypatch):
    import httpx
    from fakeredis import FakeServer
    from fakeredis.aioredis import FakeRedis

    from services.gateway import routes_tables
    from services.gateway.app import create_app

    def boom(*_a, **_k):
        raise RuntimeError("a bug")

    monkeypatch.setattr(routes_tables, "_info", boom)
    app = create_app(settings(), FakeRedis(server=FakeServer()))
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        r = await client.post("/tables", json={"game": "toy", "players": 2})
    assert r.status_code == 500
    assert r.headers["content-type"] == "application/problem+json"
    assert r.json()["code"] == "internal_error"
    assert "a bug" not in r.text


async def test_coming_back_after_the_game_ended_is_refused(redis_client, table_id):
    """Case: /back on a finished game appended a SeatReturned after the end
    and counted the game as finished twice."""
    await make_table(redis_client, table_id, bots={1: "first"}, humans=[0], players=2, target=1, turn_ms=2_000)
    w = Worker(redis_client, settings(), bots=RecordingBots())
    await w.process(cmd(table_id, "start", kind="start", seat=None))
    assert (await w.process(cmd(table_id, "u0.a", seat=0, action={"type": "add", "n": 1}))).ok
    version = await EventStore(redis_client).version(table_id)
    r = await w.process(cmd(table_id, "r0.x", kind="back", seat=0))
    assert (r.ok, r.code) == (False, "game_over")
    assert await EventStore(redis_client).version(table_id) == version


async def test_redriving_one_turn_backs_off(redis_client, table_id):
    """Case: the sweeper enqueued a copy of a slow bot turn every re-drive
    delay and flooded the bot queue.  Each re-drive of the same turn now
    waits as long as the turn has already waited."""
    await make_table(redis_client, table_id, bots={0: "first", 1: "first"})
    w = Worker(redis_client, settings(), bots=RecordingBots())
    await w.process(cmd(table_id, "start", kind="start", seat=None))
    start_ts = (await w.tables.get(table_id)).last_ts
    bots = RecordingBots()
    clock = Clock()
    sweeper = Worker(redis_client, settings(), bots=bots, clock=clock)
    clock.ms = start_ts + 1_000  # first re-drive: waited 1 s -> next in max(1 s, 1 s)
    assert await sweeper.sweep_once() == 1
    assert await due_of(redis_client, table_id) == clock.ms + 1_000
    clock.ms = start_ts + 2_000  # waited 2 s -> next in 2 s
    assert await sweeper.sweep_once() == 1
    assert await due_of(redis_client, table_id) == clock.ms + 2_000
    clock.ms = start_ts + 4_000
    assert await sweeper.sweep_once() == 1
    assert await due_of(redis_client, table_id) == clock.ms + 4_000
    assert len(bots.turns) == 3


async def test_two_tables_with_the_same_command_id_get_their_own_replies(redis_client):
    """Case (found by the chaos harness): client command ids are scoped to
    a seat, not a table; two tables' requests with the same id shared one
    reply.  Each now gets its own table's outcome."""
    import asyncio as aio

    from services.messaging import Submitter

    for t in ("ta", "tb"):
        await make_table(redis_client, t, bots={0: "first"}, players=1)
    w = Worker(redis_client, settings(), bots=RecordingBots())
    await w.ensure_groups()
    for t in ("ta", "tb"):
        await w.process(cmd(t, "start", kind="start", seat=None))
    sub = Submitter(redis_client, 1, reply_timeout_s=5)
    a = aio.create_task(sub.send("ta", seat=0, action={"type": "add", "n": 1}, expected=1, command_id="u0.same"))
    b = aio.create_task(sub.send("tb", seat=0, action={"type": "add", "n": 1}, expected=9, command_id="u0.same"))
    await aio.sleep(0.1)
    stop = aio.Event()
    runner = aio.create_task(w.run(stop))
    ra, rb = await aio.gather(a, b)
    stop.set()
    await runner
    await sub.stop()
    assert (ra.ok, ra.version) == (True, 2)
    assert (rb.ok, rb.code) == (False, "stale_version")


async def test_a_slow_periodic_loop_is_not_a_stalled_one(redis_client):
    """Case: a stall limit below the reclaimer's period made a healthy
    worker exit.  A periodic loop may be one period late."""
    import asyncio as aio

    w = Worker(redis_client, settings(loop_stall_exit_s=1.0, claim_idle_ms=4_000, sweep_interval_ms=200))
    stop = aio.Event()
    runner = aio.create_task(w.run(stop))
    await aio.sleep(2.5)
    stop.set()
    await runner
    assert w.failed is False


async def test_a_stalled_loop_makes_the_worker_fail_fast(redis_client, monkeypatch):
    """A shard loop that cannot complete a read makes run() return with
    ``failed`` set (and ``tapis worker`` exit 3), even if Redis hangs."""
    import asyncio as aio

    w = Worker(redis_client, settings(loop_stall_exit_s=1.0, claim_idle_ms=100))

    async def hang(*_a, **_k):
        await aio.sleep(3600)

    await w.ensure_groups()
    monkeypatch.setattr(w.redis, "xreadgroup", hang)
    monkeypatch.setattr(w.redis, "zrem", hang)
    t0 = time.monotonic()
    await aio.wait_for(w.run(), 15)
    assert w.failed is True
    assert time.monotonic() - t0 < 10


async def test_a_join_whose_start_is_not_confirmed_says_waiting():
    """Case: a join that filled the table with no worker running answered
    `playing` while the table was still waiting; it says `waiting`, and the
    sweeper starts the table later."""
    import httpx
    from fakeredis import FakeServer
    from fakeredis.aioredis import FakeRedis

    from services.gateway.app import create_app

    redis = FakeRedis(server=FakeServer())
    s = settings(reply_timeout_s=0.3, decide_in_gateway=False)  # a gateway that decides itself starts it
    await make_table(redis, "tj", bots={1: "first"})
    app = create_app(s, redis)
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            r = await client.post("/tables/tj/join", json={"seat": 0})
    assert r.status_code == 200 and r.json()["status"] == "waiting"
    w = Worker(redis, s, bots=RecordingBots(), clock=lambda: int(time.time() * 1000) + 60_000)
    await w.ensure_groups()
    assert await w.sweep_once() == 1
    assert await EventStore(redis).version("tj") == 1
    await redis.aclose()


async def test_a_table_that_moves_on_while_the_bot_thinks_is_not_refused(redis_client, table_id, monkeypatch):
    """The cached state is folded forward in place while a strategy thinks in
    its thread: the move is then neither checked against the newer state
    (a false "illegal action" warning) nor sent; the turn is a duplicate
    (this very turn played by a copy of the task) or stale."""
    import threading

    from tests.toygame import GAME

    await make_table(redis_client, table_id, bots={0: "first", 1: "first"}, players=2)
    w = Worker(redis_client, settings(), bots=RecordingBots())
    await w.ensure_groups()
    await w.process(cmd(table_id, "start", kind="start", seat=None))
    tables = Tables(EventStore(redis_client))
    submitter = Submitter(redis_client, 1)
    thinking, go = threading.Event(), threading.Event()

    def slow_first(view, legal, rng):
        thinking.set()
        assert go.wait(10)
        return legal[0]

    monkeypatch.setitem(GAME.strategies, "first", slow_first)
    refused = sample(metrics.BOT_TURNS, game="toy", outcome="refused")
    duplicate = sample(metrics.BOT_TURNS, game="toy", outcome="duplicate")
    turn = asyncio.create_task(take_turn(tables, submitter, table_id, 0, 1))
    assert await asyncio.to_thread(thinking.wait, 10)
    # A copy of the same task plays this turn meanwhile; the cache the first copy holds folds it in.
    done = await w.process(cmd(table_id, "b0.1", kind="bot", seat=0, action={"type": "add", "n": 2}, expected=1))
    assert done.ok and done.version == 2
    t = await tables.get(table_id)
    assert (t.version, t.state.count, t.state.turn) == (2, 2, 1)
    sent = await redis_client.xlen(keys.commands(0))
    go.set()
    assert await turn == "duplicate"
    assert sample(metrics.BOT_TURNS, game="toy", outcome="duplicate") == duplicate + 1
    assert sample(metrics.BOT_TURNS, game="toy", outcome="refused") == refused  # no false "illegal action"
    assert await redis_client.xlen(keys.commands(0)) == sent  # nothing sent
