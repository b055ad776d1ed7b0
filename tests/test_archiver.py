"""The archiver (issue 22, services/worker/archiver.py): a finished table
leaves Redis for the archive ``archive_after_s`` after its end, and every
read of it answers the same bytes before and after.  On fakeredis and a
real Redis, with a SQLite archive (tests/test_archive.py runs the
archive's own contract on PostgreSQL too)."""

from __future__ import annotations

import asyncio
import contextlib

import httpx
import pytest

from services import metrics
from services.archive.db import Archive, ArchiveUnavailable
from services.config import Settings
from services.gateway.app import create_app
from services.store import keys
from services.store.store import EventStore
from services.store.tables import Tables
from services.worker.worker import Worker
from tests.test_decide_in_gateway import Recorder, auth

AFTER_S = 300


def settings(url: str | None, **kw) -> Settings:
    return Settings(redis_url=None, shards=2, rate_limits=False, decide_in_gateway=True, archive_url=url,
                    archive_after_s=AFTER_S, **kw)


@contextlib.asynccontextmanager
async def gateway(redis, url: str | None):
    """A gateway alone over ``redis`` reading the archive at ``url``."""
    app = create_app(settings(url), redis, bots=Recorder())
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://tapis") as client:
            yield client


@pytest.fixture
def url(tmp_path) -> str:
    u = f"sqlite:///{tmp_path / 'archive.db'}"
    Archive(u).migrate()
    return u


async def finished_toy_table(gw: httpx.AsyncClient, target: int = 5) -> tuple[str, list[str], int]:
    """A toy table of two people played to the end through the gateway:
    (table id, seat tokens, time of its last event in ms)."""
    r = await gw.post("/tables", json={"game": "toy", "players": 2, "options": {"target": target},
                                       "turn_seconds": None})
    table = r.json()["id"]
    tokens = [(await gw.post(f"/tables/{table}/join", json={"name": f"p{i}"})).json()["token"] for i in range(2)]
    last_ts = 0
    for i in range(target):
        seat = i % 2
        for _ in range(50):  # the start is a command: wait until it is in the log
            view = (await gw.get(f"/tables/{table}/view", headers=auth(tokens[seat]))).json()
            if view["legal_actions"]:
                break
            await asyncio.sleep(0.01)
        r = await gw.post(f"/tables/{table}/actions", headers=auth(tokens[seat]),
                          json={"action": {"type": "add", "n": 1}, "command_id": f"c{i}"})
        assert r.status_code == 200, r.text
        last_ts = r.json()["events"][-1]["ts"]
    assert (await gw.get(f"/tables/{table}")).json()["status"] == "finished"
    return table, tokens, last_ts


async def reads(gw: httpx.AsyncClient, table: str, tokens: list[str]) -> dict[str, bytes]:
    """Every read of a table a client can make, as bytes."""
    out: dict[str, bytes] = {}
    out["info"] = (await gw.get(f"/tables/{table}")).content
    for who, headers in [("spectator", {})] + [(f"seat{i}", auth(t)) for i, t in enumerate(tokens)]:
        out[f"view:{who}"] = (await gw.get(f"/tables/{table}/view", headers=headers)).content
        for after in (0, 1, 3):
            out[f"events:{who}:{after}"] = (await gw.get(f"/tables/{table}/events?after={after}",
                                                         headers=headers)).content
    return out


async def table_keys(redis, table: str) -> list[bytes]:
    """Every Redis key that names ``table`` or holds it in a sorted set."""
    names = [k async for k in redis.scan_iter(match=f"*{table}*")]
    for k in [k async for k in redis.scan_iter(match="tapis:*")]:
        if await redis.type(k) in (b"zset", "zset") and await redis.zscore(k, table) is not None:
            names.append(k)
    return sorted(names)


async def test_a_finished_table_moves_to_the_archive_and_reads_the_same_bytes(redis_client, url):
    async with gateway(redis_client, url) as gw:
        table, tokens, last_ts = await finished_toy_table(gw)
        before = await reads(gw, table, tokens)
        part = keys.partition(table)
        # Due for the archiver at its end + archive_after_s, and no longer "waiting" on a turn.
        assert await redis_client.zscore(keys.due(part), table) == last_ts + AFTER_S * 1000
        assert await redis_client.zscore(keys.waiting(part), table) is None
        assert await redis_client.zscore(keys.unarchived(part), table) == last_ts

        early = Worker(redis_client, settings(url), bots=Recorder(), clock=lambda: last_ts + AFTER_S * 1000 - 1)
        assert await early.sweep_once(now_ms=last_ts + AFTER_S * 1000 - 1) == 0
        archived = metrics.GAMES_ARCHIVED.labels("toy")._value.get()
        worker = Worker(redis_client, settings(url), bots=Recorder(), clock=lambda: last_ts + AFTER_S * 1000)
        assert await worker.sweep_once(now_ms=last_ts + AFTER_S * 1000) == 1
        assert metrics.GAMES_ARCHIVED.labels("toy")._value.get() == archived + 1
        assert await table_keys(redis_client, table) == []  # nothing of it left in Redis

        assert await reads(gw, table, tokens) == before  # this gateway had it cached
    async with gateway(redis_client, url) as fresh:  # another reads it from the archive
        assert await reads(fresh, table, tokens) == before
        rec = await Archive(url).get(table)
        assert rec is not None and rec.summary.events == 1 + 5  # the deal and five adds (the toy game has no end event)
        assert [s.name for s in rec.summary.seats] == ["p0", "p1"]


async def test_an_archived_table_refuses_actions_and_stays_out_of_redis(redis_client, url):
    async with gateway(redis_client, url) as gw:
        table, tokens, last_ts = await finished_toy_table(gw, target=3)
        worker = Worker(redis_client, settings(url), bots=Recorder(), clock=lambda: last_ts + AFTER_S * 1000)
        assert await worker.sweep_once(now_ms=last_ts + AFTER_S * 1000) == 1
    async with gateway(redis_client, url) as fresh:
        r = await fresh.post(f"/tables/{table}/actions", headers=auth(tokens[0]),
                             json={"action": {"type": "add", "n": 1}, "command_id": "late"})
        assert r.status_code == 409 and r.json()["code"] == "game_over"
        r = await fresh.post(f"/tables/{table}/leave", headers=auth(tokens[1]))
        assert r.status_code == 409, r.text
        r = await fresh.post(f"/tables/{table}/actions", headers=auth("not-a-token"),
                             json={"action": {"type": "add", "n": 1}})
        assert r.status_code == 403
        r = await fresh.post(f"/tables/{table}/join", json={"name": "late"})
        assert (r.status_code, r.json()["code"]) == (409, "table_full")  # as before it left Redis
    assert await table_keys(redis_client, table) == []


async def test_with_the_database_down_the_table_stays_in_redis_and_is_archived_later(redis_client, url):
    async with gateway(redis_client, url) as gw:
        table, tokens, last_ts = await finished_toy_table(gw, target=3)
        before = await reads(gw, table, tokens)
    now = last_ts + AFTER_S * 1000
    down = "postgresql://tapis@127.0.0.1:1/none"  # nothing listens on port 1
    errors = metrics.ARCHIVE_ERRORS.labels("unavailable")._value.get()
    worker = Worker(redis_client, settings(down, archive_retry_s=30), bots=Recorder(), clock=lambda: now)
    assert await worker.redrive(table) == "archive_error"
    assert metrics.ARCHIVE_ERRORS.labels("unavailable")._value.get() == errors + 1
    part = keys.partition(table)
    assert await redis_client.zscore(keys.due(part), table) == now + 30_000  # tried again later
    assert await redis_client.exists(keys.meta(table), keys.events(table)) == 2
    worker = Worker(redis_client, settings(url), bots=Recorder(), clock=lambda: now + 30_000)
    assert await worker.sweep_once(now_ms=now + 30_000) == 1
    assert await table_keys(redis_client, table) == []
    async with gateway(redis_client, url) as fresh:
        assert await reads(fresh, table, tokens) == before


async def test_an_archiver_that_died_before_removing_the_keys_writes_nothing_twice(redis_client, url, monkeypatch):
    async with gateway(redis_client, url) as gw:
        table, _tokens, last_ts = await finished_toy_table(gw, target=3)
    now = last_ts + AFTER_S * 1000
    worker = Worker(redis_client, settings(url), bots=Recorder(), clock=lambda: now)

    async def killed(*_a, **_k):
        raise SystemExit("SIGKILL between the write and the removal")

    monkeypatch.setattr(worker.store, "drop_archived_many", killed)
    with pytest.raises(SystemExit):
        await worker.redrive(table)
    assert await Archive(url).count() == 1
    assert await redis_client.exists(keys.meta(table)) == 1  # still in Redis, still due
    monkeypatch.undo()
    again = Worker(redis_client, settings(url), bots=Recorder(), clock=lambda: now + 20_000)
    assert await again.redrive(table) == "archived"
    assert await Archive(url).count() == 1
    assert await table_keys(redis_client, table) == []


async def test_two_workers_sweeping_together_archive_a_table_once(redis_client, url):
    async with gateway(redis_client, url) as gw:
        tables = [await finished_toy_table(gw, target=2) for _ in range(3)]
    now = max(t[2] for t in tables) + AFTER_S * 1000
    a = Worker(redis_client, settings(url), bots=Recorder(), clock=lambda: now)
    b = Worker(redis_client, settings(url), bots=Recorder(), clock=lambda: now)
    counts = await asyncio.gather(a.sweep_once(now_ms=now), b.sweep_once(now_ms=now))
    assert sum(counts) == 3  # each table claimed by one of them
    assert await Archive(url).count() == 3
    for table, _tokens, _ts in tables:
        assert await table_keys(redis_client, table) == []


async def test_without_an_archive_a_finished_table_keeps_its_retention(redis_client):
    async with gateway(redis_client, None) as gw:
        table, _tokens, _last_ts = await finished_toy_table(gw, target=2)
    part = keys.partition(table)
    assert await redis_client.zscore(keys.due(part), table) is None
    assert await redis_client.zscore(keys.unarchived(part), table) is None
    assert 0 < await redis_client.ttl(keys.events(table)) <= 7 * 86_400


def test_archive_unavailable_is_what_a_closed_port_raises(url):
    with pytest.raises(ArchiveUnavailable):
        asyncio.run(Archive("postgresql://tapis@127.0.0.1:1/none").count())


async def test_a_gateway_that_cached_the_table_reads_it_from_the_archive_once_it_left_redis(redis_client, url):
    """Found by a break-it review: a gateway whose cache held the table (its
    last view) kept serving that copy after another process archived it —
    ``/events`` empty, ``/replay`` refused or failing.  A cached table idle
    for ``archive_after_s`` is looked up in Redis again, and a read of its
    events that finds the log gone reads the archive."""
    app = create_app(settings(url).model_copy(update={"archive_after_s": 0}), redis_client, bots=Recorder())
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://tapis") as gw:
            table, tokens, last_ts = await finished_toy_table(gw, target=3)
            assert (await gw.get(f"/tables/{table}/view")).status_code == 200  # cached by this gateway
            before = (await gw.get(f"/tables/{table}/events")).content
            worker = Worker(redis_client, settings(url), bots=Recorder(), clock=lambda: last_ts + AFTER_S * 1000)
            assert await worker.redrive(table) == "archived"
            assert (await gw.get(f"/tables/{table}/events")).content == before  # no /tables/T call first
            r = await gw.get(f"/tables/{table}/replay")
            assert r.status_code == 200 and r.json()["version"] == 4
            # a copy cached while the game was still on, behind the log, is not served either
            t = app.state.ctx.tables
            cached = t.peek(table)
            assert cached is not None and cached.archived


async def test_a_read_that_finds_the_log_gone_reads_the_archive(redis_client, url):
    """The race between a table's read and its events' read: the events of
    a table archived in between come from the archive."""
    async with gateway(redis_client, url) as gw:
        table, _tokens, last_ts = await finished_toy_table(gw, target=3)
    store = EventStore.from_settings(redis_client, settings(url))
    tables = Tables(store, archive=Archive(url), archive_after_ms=AFTER_S * 1000)
    live = await tables.get(table)
    assert live is not None and not live.archived and live.version == 4
    worker = Worker(redis_client, settings(url), bots=Recorder(), clock=lambda: last_ts + AFTER_S * 1000)
    assert await worker.redrive(table) == "archived"
    events = await tables.read(live, after=1)
    assert [e.type for e in events] == ["Added", "Added", "Added"]


# -- batches -------------------------------------------------------------------

def spy_put_many(worker: Worker) -> list[list[str]]:
    """The table ids of each ``put_many`` (one transaction each) of ``worker``'s archiver."""
    calls: list[list[str]] = []
    real = worker.archiver.archive.put_many

    async def put_many(batch, *args, **kw):
        calls.append(sorted(g.summary.table for g in batch))
        return await real(batch, *args, **kw)

    worker.archiver.archive.put_many = put_many
    return calls


async def test_a_sweep_archives_its_finished_tables_in_one_batch(redis_client, url):
    async with gateway(redis_client, url) as gw:
        tables = [await finished_toy_table(gw, target=2 + i % 2) for i in range(4)]
    now = max(t[2] for t in tables) + AFTER_S * 1000
    worker = Worker(redis_client, settings(url), bots=Recorder(), clock=lambda: now)
    calls = spy_put_many(worker)
    assert await worker.sweep_once(now_ms=now) == 4
    assert calls == [sorted(t[0] for t in tables)]  # one transaction for the four
    assert await Archive(url).count() == 4
    for table, _tokens, _ts in tables:
        assert await table_keys(redis_client, table) == []


async def test_a_conflicting_table_stays_in_redis_and_the_rest_of_its_batch_is_archived(redis_client, url):
    from services.archive.model import build_record
    from services.worker.archiver import CONFLICT_RETRY_MS

    async with gateway(redis_client, url) as gw:
        tables = [await finished_toy_table(gw, target=2 + i) for i in range(3)]
    clash = tables[1][0]
    other = tables[0][0]  # another table's log, archived under the id of the second
    meta = {k.decode(): v.decode() for k, v in (await redis_client.hgetall(keys.meta(other))).items()}
    raw = [f[b"e"] for _id, f in await redis_client.xrange(keys.events(other))]
    assert await Archive(url).put(build_record(clash, meta, raw)) == "written"
    now = max(t[2] for t in tables) + AFTER_S * 1000
    conflicts = metrics.ARCHIVE_ERRORS.labels("conflict")._value.get()
    worker = Worker(redis_client, settings(url), bots=Recorder(), clock=lambda: now)
    calls = spy_put_many(worker)
    assert await worker.sweep_once(now_ms=now) == 3
    assert len(calls) == 1
    assert metrics.ARCHIVE_ERRORS.labels("conflict")._value.get() == conflicts + 1
    assert await table_keys(redis_client, tables[0][0]) == []
    assert await table_keys(redis_client, tables[2][0]) == []
    part = keys.partition(clash)
    assert await redis_client.exists(keys.meta(clash), keys.events(clash)) == 2  # both copies kept
    assert await redis_client.zscore(keys.due(part), clash) == now + CONFLICT_RETRY_MS
    assert await Archive(url).count() == 3


async def test_with_the_database_down_a_whole_batch_stays_in_redis_and_is_archived_later(redis_client, url):
    async with gateway(redis_client, url) as gw:
        tables = [await finished_toy_table(gw, target=2) for _ in range(3)]
    now = max(t[2] for t in tables) + AFTER_S * 1000
    down = "postgresql://tapis@127.0.0.1:1/none"
    errors = metrics.ARCHIVE_ERRORS.labels("unavailable")._value.get()
    worker = Worker(redis_client, settings(down, archive_retry_s=30), bots=Recorder(), clock=lambda: now)
    assert await worker.sweep_once(now_ms=now) == 3
    assert metrics.ARCHIVE_ERRORS.labels("unavailable")._value.get() == errors + 3
    for table, _tokens, _ts in tables:
        assert await redis_client.zscore(keys.due(keys.partition(table)), table) == now + 30_000
        assert await redis_client.exists(keys.meta(table), keys.events(table)) == 2
    assert await worker.sweep_once(now_ms=now + 29_999) == 0  # not before
    again = Worker(redis_client, settings(url), bots=Recorder(), clock=lambda: now + 30_000)
    calls = spy_put_many(again)
    assert await again.sweep_once(now_ms=now + 30_000) == 3
    assert len(calls) == 1 and await Archive(url).count() == 3
    for table, _tokens, _ts in tables:
        assert await table_keys(redis_client, table) == []


async def test_a_batch_killed_between_the_write_and_the_drops_writes_nothing_twice(redis_client, url, monkeypatch):
    class Killed(Exception):
        pass

    async with gateway(redis_client, url) as gw:
        tables = [await finished_toy_table(gw, target=2) for _ in range(3)]
    now = max(t[2] for t in tables) + AFTER_S * 1000
    worker = Worker(redis_client, settings(url), bots=Recorder(), clock=lambda: now)

    async def killed(*_a, **_k):
        raise Killed("the process dies between put_many and the drops")

    monkeypatch.setattr(worker.store, "drop_archived_many", killed)
    assert await worker.sweep_once(now_ms=now) == 3  # each re-drive failed: logged, its lease runs out
    assert await Archive(url).count() == 3
    for table, _tokens, _ts in tables:
        assert await redis_client.exists(keys.meta(table), keys.events(table)) == 2  # all still in Redis
    later = now + worker.settings.sweep_lease_ms
    again = Worker(redis_client, settings(url), bots=Recorder(), clock=lambda: later)
    outcomes: list[list[str]] = []
    real = again.archiver.archive.put_many

    async def put_many(batch, *args, **kw):
        outcomes.append(await real(batch, *args, **kw))
        return outcomes[-1]

    again.archiver.archive.put_many = put_many
    assert await again.sweep_once(now_ms=later) == 3  # the leases ran out: claimed again
    assert outcomes == [["exists"] * 3]
    assert await Archive(url).count() == 3
    for table, _tokens, _ts in tables:
        assert await table_keys(redis_client, table) == []


async def test_archive_soon_puts_concurrent_calls_in_batches_of_at_most_batch_max(redis_client, url):
    async with gateway(redis_client, url) as gw:
        tables = [(await finished_toy_table(gw, target=2))[0] for _ in range(5)]
    worker = Worker(redis_client, settings(url), bots=Recorder())
    worker.archiver.batch_max = 2
    calls = spy_put_many(worker)
    outcomes = await asyncio.gather(*(worker.archiver.archive_soon(t) for t in [*tables, tables[0], "nosuch"]))
    assert outcomes == ["archived"] * 5 + ["archived", "gone"]  # the same table twice: one outcome for both
    assert sorted(len(c) for c in calls) == [1, 2, 2]
    assert sorted(t for c in calls for t in c) == sorted(tables)
    assert await Archive(url).count() == 5


async def test_a_sweep_waits_for_its_slow_re_drives_before_writing_the_batch(redis_client, url):
    """The re-drives of one sweep reach the archiver 20 ms apart (well over its 2 ms linger):
    still one batch, as the sweep tells the archiver how many re-drives to wait for."""
    async with gateway(redis_client, url) as gw:
        tables = [await finished_toy_table(gw, target=2) for _ in range(3)]
    now = max(t[2] for t in tables) + AFTER_S * 1000
    worker = Worker(redis_client, settings(url), bots=Recorder(), clock=lambda: now)
    calls = spy_put_many(worker)
    real_get, order = worker.tables.get, sorted(t[0] for t in tables)

    async def slow_get(table_id, **kw):
        await asyncio.sleep(0.02 * order.index(table_id))
        return await real_get(table_id, **kw)

    worker.tables.get = slow_get
    assert await worker.sweep_once(now_ms=now) == 3
    assert calls == [order]
    assert worker.archiver._expected == 0


async def test_a_row_the_database_rejects_keeps_only_its_own_table_back(redis_client, url, monkeypatch):
    """A review's finding: a batch the database refuses for one row's sake
    (``ArchiveRejected``: a value it cannot store) is tried table by table,
    so the others are archived and only that table stays in Redis, counted
    ``invalid`` and retried later."""
    from services.archive.db import ArchiveRejected

    async with gateway(redis_client, url) as gw:
        tables = [await finished_toy_table(gw, target=2 + i) for i in range(3)]
    bad = tables[1][0]
    now = max(t[2] for t in tables) + AFTER_S * 1000
    worker = Worker(redis_client, settings(url), bots=Recorder(), clock=lambda: now)
    real = worker.archiver.archive.put_many
    batches: list[list[str]] = []

    async def picky(records, *args, **kwargs):
        ids = [r.summary.table for r in records]
        batches.append(ids)
        if bad in ids:
            raise ArchiveRejected("DataError: a value the database cannot store")
        return await real(records, *args, **kwargs)

    monkeypatch.setattr(worker.archiver.archive, "put_many", picky)
    invalid = metrics.ARCHIVE_ERRORS.labels("invalid")._value.get()
    assert await worker.sweep_once(now_ms=now) == 3
    assert sorted(map(len, batches)) == [1, 1, 1, 3]  # the batch, then each table alone
    assert metrics.ARCHIVE_ERRORS.labels("invalid")._value.get() == invalid + 1
    assert await table_keys(redis_client, tables[0][0]) == [] and await table_keys(redis_client, tables[2][0]) == []
    assert await redis_client.exists(keys.meta(bad)) == 1
    assert await redis_client.zscore(keys.due(keys.partition(bad)), bad) == now + 30_000
    assert await Archive(url).count() == 2
