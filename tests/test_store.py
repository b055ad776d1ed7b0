"""Event store contract: one test class, run against fakeredis and the
real Redis at 127.0.0.1:6379 (docs/architecture.md, "Keys")."""

from __future__ import annotations

import asyncio

import pytest

from services.store import keys
from services.store.store import EventStore, Outcome, TableExists
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
