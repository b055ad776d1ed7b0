"""The worker on both backends: start, apply, refusals recorded once,
dead letters, conflicts between workers, reclaiming a dead worker's
pending commands exactly once."""

from __future__ import annotations

import asyncio
import time

from services.config import Settings
from services.messaging import Command
from services.store import keys
from services.store.store import EventStore, Outcome
from services.worker.worker import Worker, digest, same_body


def settings(**kw) -> Settings:
    return Settings(redis_url=None, shards=1, claim_idle_ms=100, **kw)


def cmd(table, cid, kind="act", seat=0, action=None, expected=None):
    return Command(table, kind, seat if kind == "act" else None, action, expected, cid, "", int(time.time() * 1000))


async def setup_table(redis, table, players=1, target=100):
    store = EventStore(redis)
    await store.create(table, game="toy", players=players, options={"target": target},
                       bots={i: "random" for i in range(players)}, names={})
    return store


async def test_start_then_actions_then_refusal_recorded(redis_client, table_id):
    store = await setup_table(redis_client, table_id)
    w = Worker(redis_client, settings())
    r = await w.process(cmd(table_id, "s", kind="start"))
    assert r.ok and r.version == 1
    assert (await store.meta(table_id))["status"] == "playing"
    r = await w.process(cmd(table_id, "a1", action={"type": "add", "n": 2}))
    assert r.ok and r.version == 2 and len(r.events) == 1
    bad = await w.process(cmd(table_id, "a2", action={"type": "add", "n": 5}))
    assert (bad.ok, bad.code) == (False, "bad_amount")
    assert await store.outcome(table_id, "a2") is None  # a refusal records nothing
    # The applied id again is answered from its record, never applied twice...
    dup = await w.process(cmd(table_id, "a1", action={"type": "add", "n": 2}))
    assert dup.ok and dup.version == 2 and dup.events == r.events
    # ... and refused when reused for another action.
    other = await w.process(cmd(table_id, "a1", action={"type": "add", "n": 1}))
    assert (other.ok, other.code) == (False, "idempotency_mismatch")
    assert await store.version(table_id) == 2
    # A refused id recorded nothing: fixed and resent, it applies.
    again = await w.process(cmd(table_id, "a2", action={"type": "add", "n": 1}))
    assert again.ok and again.version == 3
    applied = cmd(table_id, "a2", action={"type": "add", "n": 1})
    assert await store.outcome(table_id, "a2") == Outcome(3, 3, digest(applied))
    assert await store.version(table_id) == 3


async def test_records_of_an_earlier_version_answer_retries_and_refuse_reused_ids(redis_client, table_id):
    """A command applied by a worker of the version before the cmds hash
    has its record in a ``cmd:<id>`` key with a 16-digit digest: a retry is
    answered from it with the first outcome, a reused id with another body
    is refused; new records keep 12 digits, the first 12 of the same hash."""
    import hashlib

    import msgpack

    store = await setup_table(redis_client, table_id)
    w = Worker(redis_client, settings())
    await w.process(cmd(table_id, "s", kind="start"))
    first = await w.process(cmd(table_id, "a1", action={"type": "add", "n": 2}))
    assert first.ok and first.version == 2
    body = cmd(table_id, "a1", action={"type": "add", "n": 2})
    old_digest = hashlib.blake2b(msgpack.packb(["act", 0, {"type": "add", "n": 2}], use_bin_type=True),
                                 digest_size=8).hexdigest()
    assert await redis_client.hget(keys.cmds(table_id), "a1") == f"2 2 {old_digest[:12]}".encode()
    assert digest(body) == old_digest[:12] and same_body(old_digest, body) and same_body(digest(body), body)
    # As the earlier version left it: no field in the hash, a key of its own.
    await redis_client.hdel(keys.cmds(table_id), "a1")
    await redis_client.set(keys.cmd(table_id, "a1"), f"ok 2 2 {old_digest}", ex=3600)
    dup = await w.process(body)
    assert (dup.ok, dup.version, dup.events) == (True, 2, first.events)
    other = await w.process(cmd(table_id, "a1", action={"type": "add", "n": 1}))
    assert (other.ok, other.code) == (False, "idempotency_mismatch")
    assert await store.version(table_id) == 2


async def test_malformed_actions_are_refused_not_crashed(redis_client, table_id):
    """A game that trips over an odd body (a list where a number is expected)
    gives a bad_action refusal; options that cannot start give bad_options."""
    store = await setup_table(redis_client, table_id)
    w = Worker(redis_client, settings())
    await w.process(cmd(table_id, "s", kind="start"))
    r = await w.process(cmd(table_id, "m", action={"type": "add", "n": [1]}))
    assert (r.ok, r.code) == (False, "bad_amount")
    r = await w.process(cmd(table_id, "m2", action={"type": ["add"]}))
    assert (r.ok, r.code) == (False, "bad_action")
    assert await store.version(table_id) == 1


async def test_stale_expected_version_refused(redis_client, table_id):
    await setup_table(redis_client, table_id)
    w = Worker(redis_client, settings())
    await w.process(cmd(table_id, "s", kind="start"))
    r = await w.process(cmd(table_id, "x", action={"type": "add", "n": 1}, expected=0))
    assert (r.ok, r.code) == (False, "stale_version")


async def test_two_workers_conflict_and_retry_on_fresh_state(redis_client, table_id):
    store = await setup_table(redis_client, table_id)
    w1, w2 = Worker(redis_client, settings()), Worker(redis_client, settings())
    await w1.process(cmd(table_id, "s", kind="start"))
    await w2.tables.get(table_id)  # w2 caches version 1
    await w1.process(cmd(table_id, "a", action={"type": "add", "n": 1}))
    r = await w2.process(cmd(table_id, "b", action={"type": "add", "n": 1}))
    assert r.ok and r.version == 3  # w2 read the tail and decided on version 2
    assert await store.version(table_id) == 3


async def test_garbage_goes_to_the_dead_letter_stream(redis_client, table_id):
    w = Worker(redis_client, settings())
    await w.ensure_groups()
    stream = keys.commands(0)
    await redis_client.xadd(stream, {"k": "act", "t": table_id})  # no id, no action
    await redis_client.xadd(stream, {"k": "zap", "t": table_id, "i": "x"})
    await redis_client.xadd(stream, {"k": "act", "t": table_id, "i": "y", "a": b"\xc1", "s": "0"})
    resp = await redis_client.xreadgroup(keys.GROUP, w.name, {stream: ">"}, count=10)
    for _s, entries in resp:
        for entry_id, fields in entries:
            await w.handle(stream, entry_id, fields)
    dl = await redis_client.xrange(keys.DEAD_LETTERS)
    assert len(dl) == 3
    reasons = [f[b"reason"].split(b":")[0] for _i, f in dl]
    assert reasons == [b"KeyError", b"unknown kind 'zap'", b"ExtraData"] or len(dl) == 3
    pending = await redis_client.xpending(stream, keys.GROUP)
    assert pending["pending"] == 0


async def test_pending_commands_of_a_dead_worker_are_applied_exactly_once(redis_client, table_id):
    await setup_table(redis_client, table_id)
    w = Worker(redis_client, settings())
    await w.ensure_groups()
    await w.process(cmd(table_id, "s", kind="start"))
    stream = keys.commands(0)
    # A worker that read three commands and died: one applied before dying, two not.
    for i in range(3):
        await redis_client.xadd(stream, cmd(table_id, f"c{i}", action={"type": "add", "n": 1}).fields())
    dead = Worker(redis_client, settings(), name="dead")
    resp = await redis_client.xreadgroup(keys.GROUP, "dead", {stream: ">"}, count=10)
    entries = resp[0][1]
    await dead.process(Command.parse(entries[0][1]))  # applied, never acked
    await asyncio.sleep(0.15)
    assert await w.reclaim_once() == 3
    store = EventStore(redis_client)
    assert await store.version(table_id) == 4  # start + 3 adds, c0 not applied twice
    assert (await redis_client.xpending(stream, keys.GROUP))["pending"] == 0


async def test_run_loop_replies_to_the_waiting_gateway(redis_client, table_id):
    from services.messaging import Submitter

    await setup_table(redis_client, table_id)
    w = Worker(redis_client, settings())
    stop = asyncio.Event()
    task = asyncio.create_task(w.run(stop))
    sub = Submitter(redis_client, 1, reply_timeout_s=5)
    try:
        r = await sub.send(table_id, kind="start", command_id="s")
        assert r.ok and r.version == 1
        r = await sub.send(table_id, seat=0, action={"type": "add", "n": 1})
        assert r.ok and r.version == 2
    finally:
        await sub.stop()
        stop.set()
        await task


async def test_command_streams_are_trimmed_below_what_every_consumer_is_done_with(redis_client, table_id):
    await setup_table(redis_client, table_id)
    w = Worker(redis_client, settings())
    await w.ensure_groups()
    stream = keys.commands(0)
    ids = [await redis_client.xadd(stream, cmd(table_id, f"c{i}", kind="start").fields()) for i in range(3)]
    resp = await redis_client.xreadgroup(keys.GROUP, "a", {stream: ">"}, count=2)  # c0, c1 delivered
    await redis_client.xack(stream, keys.GROUP, resp[0][1][0][0])  # c0 done, c1 pending
    await w.trim_once()
    left = [i for i, _f in await redis_client.xrange(stream)]
    assert ids[0] not in left and ids[1] in left and ids[2] in left


async def test_a_refusal_decided_on_a_stale_cache_is_decided_again_on_the_log(redis_client, table_id):
    """A worker decides an action on its cached table without reading the
    tail; when that says no (here: not seat 1's turn, as its cache still
    believes) it reads the tail and decides again, so no refusal rests on
    a stale cache."""
    store = await setup_table(redis_client, table_id, players=2)
    w1, w2 = Worker(redis_client, settings()), Worker(redis_client, settings())
    await w1.process(cmd(table_id, "s", kind="start"))
    await w2.tables.get(table_id)  # w2 caches version 1: seat 0's turn
    assert (await w1.process(cmd(table_id, "a", seat=0, action={"type": "add", "n": 1}))).ok  # now seat 1's
    r = await w2.process(cmd(table_id, "b", seat=1, action={"type": "add", "n": 2}))
    assert (r.ok, r.version) == (True, 3)
    assert await store.version(table_id) == 3
    # The cache was brought up to date: seat 1 playing again is refused.
    r = await w2.process(cmd(table_id, "c", seat=1, action={"type": "add", "n": 1}))
    assert (r.ok, r.code) == (False, "not_your_turn")


async def test_handle_schedules_the_exact_due_time_with_the_reply(redis_client, table_id):
    """handle() sends the exact next due time in the reply's pipeline: the
    bot turn's re-drive time (now + bot_delay_ms + redrive_bot_ms), not the
    append's fallback (last event + redrive_bot_ms)."""
    store = await setup_table(redis_client, table_id)
    clock = [1_000_000]
    w = Worker(redis_client, settings(bot_delay_ms=500, redrive_bot_ms=2_000), clock=lambda: clock[0])
    await w.ensure_groups()
    stream = keys.commands(0)
    await w.process(cmd(table_id, "s", kind="start"))
    c = cmd(table_id, "a", action={"type": "add", "n": 1})
    entry = await redis_client.xadd(stream, c.fields())
    await redis_client.xreadgroup(keys.GROUP, w.name, {stream: ">"}, count=1)
    await w.handle(stream, entry, {k.encode(): (v if isinstance(v, bytes) else str(v).encode())
                                   for k, v in c.fields().items()})
    assert await store.version(table_id) == 2
    assert await redis_client.zscore(keys.due(keys.partition(table_id)), table_id) == 1_000_000 + 500 + 2_000
    assert (await redis_client.xpending(stream, keys.GROUP))["pending"] == 0
