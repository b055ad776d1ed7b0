"""Event store contract: one test class, run against fakeredis and the
real Redis at 127.0.0.1:6379 (docs/architecture.md, "Keys")."""

from __future__ import annotations

import asyncio

import pytest
from fakeredis.aioredis import FakeRedis

from services.store import keys
from services.store.store import EventStore, Outcome, TableExists, record_field
from services.store.tables import Tables
from shared import snapshot
from shared.events import Event


def ev(i: int) -> Event:
    return Event("Added", {"n": i}, 0, 1000 + i, "c")


class TestEventStore:
    async def test_create_then_append_with_expected_version(self, redis_client, table_id):
        store = EventStore(redis_client)
        await store.create(table_id, game="toy", players=2, options={"target": 5}, bots={1: "random"}, names={})
        meta = await store.meta(table_id)
        assert meta["version"] == "0" and meta["status"] == "waiting" and meta["seat:1"] == "bot:random"
        res = await store.append(table_id, 0, "cmd-1", [ev(1), ev(2)], status="playing", digest="ab12")
        assert (res.status, res.version) == ("ok", 2)
        assert await store.read(table_id) == [ev(1), ev(2)]
        assert await store.read(table_id, after=1) == [ev(2)]
        assert (await store.meta(table_id))["status"] == "playing"
        assert await store.outcome(table_id, "cmd-1") == Outcome(1, 2, "ab12")

    async def test_stale_expected_version_is_a_conflict_and_writes_nothing(self, redis_client, table_id):
        store = EventStore(redis_client)
        await store.create(table_id, game="toy", players=1, options={}, bots={}, names={})
        await store.append(table_id, 0, "a", [ev(1)])
        res = await store.append(table_id, 0, "b", [ev(9)])
        assert (res.status, res.version) == ("conflict", 1)
        assert await store.read(table_id) == [ev(1)]
        assert await store.outcome(table_id, "b") is None

    async def test_recorded_command_is_answered_from_its_record(self, redis_client, table_id):
        store = EventStore(redis_client)
        await store.create(table_id, game="toy", players=1, options={}, bots={}, names={})
        await store.append(table_id, 0, "a", [ev(1)])
        res = await store.append(table_id, 1, "a", [ev(2)])
        assert res.status == "dup" and res.outcome == Outcome(1, 1, "-")
        assert await store.version(table_id) == 1

    async def test_append_to_missing_table(self, redis_client, table_id):
        res = await EventStore(redis_client).append(table_id, 0, "a", [ev(1)])
        assert res.status == "missing"

    async def test_create_twice_refused(self, redis_client, table_id):
        store = EventStore(redis_client)
        await store.create(table_id, game="toy", players=1, options={}, bots={}, names={})
        with pytest.raises(TableExists):
            await store.create(table_id, game="toy", players=1, options={}, bots={}, names={})

    async def test_join_claims_seats_atomically(self, redis_client, table_id):
        store = EventStore(redis_client)
        await store.create(table_id, game="toy", players=3, options={}, bots={0: "random"}, names={})
        results = await asyncio.gather(*[store.join(table_id, None, f"h{i}", f"p{i}") for i in range(4)])
        oks = sorted(r[1] for r in results if r[0] == "ok")
        assert oks == [1, 2] and [r[0] for r in results].count("full") == 2
        assert (await store.join(table_id, 1, "h", "x"))[0] == "taken"
        assert (await store.join(table_id, 7, "h", "x"))[0] == "bad_seat"
        assert (await store.join("nope", None, "h", "x"))[0] == "missing"

    async def test_concurrent_appends_one_wins_no_gaps(self, redis_client, table_id):
        store = EventStore(redis_client)
        await store.create(table_id, game="toy", players=1, options={}, bots={}, names={})
        results = await asyncio.gather(*[store.append(table_id, 0, f"c{i}", [ev(i), ev(i)]) for i in range(20)])
        assert [r.status for r in results].count("ok") == 1
        assert await store.version(table_id) == 2
        ids = [i for i, _ in await redis_client.xrange(keys.events(table_id))]
        assert ids == [b"1-0", b"2-0"]

    async def test_snapshot_then_tail_rebuilds_the_same_state(self, redis_client, table_id):
        import random

        from tests.toygame import GAME

        store = EventStore(redis_client)
        await store.create(table_id, game="toy", players=2, options={"target": 50}, bots={}, names={})
        opening = GAME.start(GAME.Options(target=50), 2, random.Random(1))
        await store.append(table_id, 0, "s", opening)
        cache = Tables(store)
        t = await cache.get(table_id)
        for i in range(10):
            evs = GAME.decide(t.state, t.state.turn, {"type": "add", "n": 1 + i % 2}, random.Random(i))
            await store.append(table_id, t.version, f"c{i}", evs)
            t = await cache.get(table_id)
            if i == 4:
                assert await cache.maybe_snapshot(t, 5)
        cold = await Tables(store).get(table_id)
        assert cold.version == t.version == 11
        assert snapshot.dump(cold.state) == snapshot.dump(t.state)
        blob = await store.load_snapshot(table_id)
        assert snapshot.unpack(blob, loader=lambda o: o)[0] == 6

    # -- command records: one hash per table (issue 22) --------------------
    async def test_records_are_one_hash_per_table_and_a_retry_is_answered_from_it(self, redis_client, table_id):
        store = EventStore(redis_client)
        await store.create(table_id, game="toy", players=1, options={}, bots={0: "first"}, names={})
        assert (await store.append(table_id, 0, "start", [ev(1), ev(2)], status="playing", digest="d0")).version == 2
        assert (await store.append(table_id, 2, "b0.2", [ev(3)], digest="d1")).version == 3
        assert await redis_client.hgetall(keys.cmds(table_id)) == {b"start": b"1 2 d0", b"b0.2": b"3 3 d1"}
        # The same id again: answered from the hash with the versions of
        # its first application, whatever the expected version; nothing written.
        for expected in (0, 3):
            res = await store.append(table_id, expected, "start", [ev(9)], digest="d0")
            assert (res.status, res.outcome) == ("dup", Outcome(1, 2, "d0"))
        res = await store.append(table_id, 3, "b0.2", [ev(9)], digest="other")
        assert (res.status, res.outcome) == ("dup", Outcome(3, 3, "d1"))  # the caller compares the digests
        assert await store.version(table_id) == 3 and await store.read(table_id) == [ev(1), ev(2), ev(3)]
        assert await store.outcome(table_id, "b0.2") == Outcome(3, 3, "d1")
        assert await store.outcome(table_id, "b0.3") is None
        # No key per command any more.
        assert [k async for k in redis_client.scan_iter(match=f"*{table_id}:cmd:*")] == []

    async def test_a_legacy_record_key_is_still_answered(self, redis_client, table_id):
        """A command applied by a worker of an earlier version (rolling
        upgrade) has its record in a ``cmd:<id>`` key: the append and
        :meth:`outcome` answer from it and apply nothing."""
        store = EventStore(redis_client)
        await store.create(table_id, game="toy", players=1, options={}, bots={0: "first"}, names={})
        await store.append(table_id, 0, "start", [ev(1)], status="playing", digest="d0")
        await store.append(table_id, 1, "old", [ev(2), ev(3)], digest="x")  # as if applied by the old code:
        await redis_client.hdel(keys.cmds(table_id), "old")
        await redis_client.set(keys.cmd(table_id, "old"), "ok 2 3 0123456789abcdef", ex=3600)
        res = await store.append(table_id, 3, "old", [ev(4)], digest="x")
        assert (res.status, res.outcome) == ("dup", Outcome(2, 3, "0123456789abcdef"))
        assert await store.version(table_id) == 3
        assert await store.outcome(table_id, "old") == Outcome(2, 3, "0123456789abcdef")
        assert await redis_client.hexists(keys.cmds(table_id), "old") == 0  # read, not moved
        assert Outcome.parse(b"ok 2 3 0123456789abcdef") == Outcome.parse("2 3 0123456789abcdef")

    async def test_a_long_command_id_is_recorded_under_a_short_field(self, redis_client, table_id):
        """The gateway prefixes a client's id (up to 64 characters) with
        its seat: over 64 bytes the field is a hash of it, so that the
        hash stays a listpack."""
        store = EventStore(redis_client)
        await store.create(table_id, game="toy", players=1, options={}, bots={0: "first"}, names={})
        await store.append(table_id, 0, "start", [ev(1)], status="playing")
        long_id = "u0." + "x" * 64
        assert (await store.append(table_id, 1, long_id, [ev(2)], digest="d")).status == "ok"
        assert (await store.append(table_id, 2, long_id, [ev(3)], digest="d")).outcome == Outcome(2, 2, "d")
        assert await store.outcome(table_id, long_id) == Outcome(2, 2, "d")
        assert await store.outcome(table_id, "u0." + "x" * 63 + "y") is None
        fields = sorted(await redis_client.hkeys(keys.cmds(table_id)))
        assert fields[1] == b"start" and fields[0].startswith(b"#") and len(fields[0]) == 33
        assert record_field("u0.abc") == "u0.abc" and record_field(long_id) == fields[0].decode()
        if not isinstance(redis_client, FakeRedis):  # fakeredis has no encodings
            assert await redis_client.object("encoding", keys.cmds(table_id)) == b"listpack"

    async def test_the_first_record_gets_the_expiry_of_a_meta_that_has_one(self, redis_client, table_id):
        """Records are written from the start on; were a start ever
        appended to a table whose meta still expires (waiting for people),
        its records would go with it, never outlive it."""
        store = EventStore(redis_client, waiting_expiry_s=100)
        await store.create(table_id, game="toy", players=2, options={}, bots={}, names={})  # people: expires
        assert 0 < await redis_client.pttl(keys.meta(table_id)) <= 100_000
        await store.append(table_id, 0, "start", [ev(1)], status="playing")
        assert 0 < await redis_client.pttl(keys.cmds(table_id)) <= await redis_client.pttl(keys.meta(table_id)) + 50
        other = table_id + "b"
        await store.create(other, game="toy", players=1, options={}, bots={0: "first"}, names={})  # bots: kept
        await store.append(other, 0, "start", [ev(1)], status="playing")
        assert await redis_client.ttl(keys.cmds(other)) == -1

    async def test_a_finished_tables_records_expire_with_its_other_keys(self, redis_client, table_id):
        store = EventStore(redis_client, finished_retention_s=600)
        await store.create(table_id, game="toy", players=1, options={}, bots={0: "first"}, names={})
        await store.append(table_id, 0, "start", [ev(1)], status="playing")
        await store.save_snapshot(table_id, b"blob")
        await store.append(table_id, 1, "b0.1", [ev(2)])
        await store.set_status(table_id, "finished")
        for key in (keys.meta(table_id), keys.events(table_id), keys.snap(table_id), keys.cmds(table_id)):
            assert 590 <= await redis_client.ttl(key) <= 600, key


async def test_a_finished_game_leaves_exactly_its_meta_log_snapshot_and_records(redis_client):
    """A whole all-bot game through the service: the table's keys are
    exactly meta, events, snap and cmds (no key per command), every one
    expiring with the retention."""
    import httpx

    from services.config import Settings
    from services.serve import build_serve_app

    settings = Settings(redis_url=None, shards=2, rate_limits=False, finished_retention_s=3600, snapshot_every=4,
                        archive_url="none")
    app = build_serve_app(settings, redis=redis_client)
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://tapis") as client:
            r = await client.post("/tables", json={"game": "toy", "players": 2, "options": {"target": 15},
                                                   "bots": {"0": "first", "1": "first"}})
            tid = r.json()["id"]
            for _ in range(400):
                info = (await client.get(f"/tables/{tid}")).json()
                if info["status"] == "finished":
                    break
                await asyncio.sleep(0.025)
            assert info["status"] == "finished"
    table_keys = {k async for k in redis_client.scan_iter(match=f"tapis:*:{tid}:*")}
    assert table_keys == {k.encode() for k in (keys.meta(tid), keys.events(tid), keys.snap(tid), keys.cmds(tid))}
    records = await redis_client.hgetall(keys.cmds(tid))
    assert len(records) == info["version"] == 16  # the start (one event), then 15 moves of 1
    assert b"start" in records and all(k == b"start" or k.startswith(b"b") for k in records)
    for key in table_keys:
        assert 3500 < await redis_client.ttl(key) <= 3600, key
