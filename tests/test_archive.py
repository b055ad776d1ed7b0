"""The archive of finished games (issue 22): the record of a finished table
(``build_record``), and one contract of :class:`services.archive.db.Archive`
run on both backends (SQLite in a temporary directory, PostgreSQL in a
database the test makes and drops), with games the bots really played."""

from __future__ import annotations

import asyncio
import json
import socket

import msgpack
import pytest
import sqlalchemy as sa
import zstandard
from typer.testing import CliRunner

from services.archive import (
    Archive,
    ArchiveConflict,
    ArchivedGame,
    ArchiveUnavailable,
    build_record,
)
from services.archive.db import (
    VERSION_TABLE,
    ZSTD_LEVEL,
    decode_cursor,
    encode_cursor,
    games,
    metadata,
    pack_log,
    unpack_log,
)
from services.archive.model import log_digest
from shared.events import decode
from tests.archive_fixtures import FinishedGame, finished_game

MINUTE = 60_000
BASE_MS = 1_780_000_000_000


def record(g: FinishedGame) -> ArchivedGame:
    return build_record(g.table, g.meta, g.log)


def _spec(i: int) -> dict:
    """Game i of the 25 below: two games end in each minute (a tie on
    ``ended_ms``, broken by the table id); every third is DIX; seat 0 is
    Ann's in every fourth, seat 1 Bob's in every third; seat 3 is the
    ``pass`` bot in every fifth; the bots of even games are random and
    heuristic, of odd ones heuristic."""
    game = "dix" if i % 3 == 2 else "maumau"
    bots = ["heuristic", "random", "heuristic", "random"] if i % 2 == 0 else ["heuristic"] * 4
    if i % 5 == 0:
        bots[3] = "pass"
    people = {}
    if i % 4 == 0:
        people[0] = "Ann"
    if i % 3 == 0:
        people[1] = "Bob"
    return {"game": game, "bots": tuple(bots), "people": people, "end_ms": BASE_MS + (i // 2) * MINUTE}


@pytest.fixture(scope="module")
def twenty_five() -> list[ArchivedGame]:
    """25 finished games (see :func:`_spec`), tables ``g00`` .. ``g24``."""
    return [record(finished_game(f"g{i:02d}", seed=i, **_spec(i))) for i in range(25)]


def bot_strategies(spec: dict) -> set[str]:
    """The strategies of the bot seats of a game of :func:`_spec`."""
    return {b for n, b in enumerate(spec["bots"]) if n not in spec["people"]}


def newest_first(recs: list[ArchivedGame]) -> list[str]:
    return [r.summary.table for r in sorted(recs, key=lambda r: (r.summary.ended_ms, r.summary.table),
                                            reverse=True)]


class TestBuildRecord:
    """``build_record``: the summary of a finished table read from its meta and its folded log."""

    def test_summary_of_a_finished_mau_mau_table(self):
        """Seats, names, places and scores are the result's; times are the log's and the meta's."""
        g = finished_game("mm1", 7, people={1: "Ann"}, end_ms=BASE_MS, step_ms=1000, created_ms=BASE_MS - 10**6)
        rec = record(g)
        s = rec.summary
        result = g.played.result
        assert (s.table, s.game, s.players) == ("mm1", "maumau", 4)
        assert s.options == json.loads(g.meta["options"]) == {
            "hand_size": 5, "skat_deck": False, "decks": None, "ace_power": "none", "seven_stack_cap": None,
            "target_score": 100}
        assert s.created_ms == BASE_MS - 10**6
        assert s.ended_ms == BASE_MS
        assert s.started_ms == decode(g.log[0]).ts == BASE_MS - 1000 * (g.played.steps)
        assert s.events == len(g.log) == len(g.played.events)
        assert [(r.seat, r.name, r.kind, r.strategy) for r in s.seats] == [
            (0, "bot 0", "bot", "random"), (1, "Ann", "person", None),
            (2, "bot 2", "bot", "random"), (3, "bot 3", "bot", "heuristic")]
        assert [r.place for r in s.seats] == list(result.places)
        assert [r.score for r in s.seats] == [float(x) for x in result.scores]
        assert s.winners == tuple(n for n, p in enumerate(result.places) if p == 1)
        assert s.result == json.loads(json.dumps(result.to_json()))
        assert rec.meta == g.meta and rec.log == tuple(g.log)
        assert rec.digest == log_digest(g.log)

    def test_shared_first_place_makes_several_winners(self):
        """DIX can end with a shared first place: every seat placed first is a winner."""
        for seed in range(40):
            g = finished_game("dx", seed, game="dix", bots=("random",) * 4)
            places = g.played.result.places
            if places.count(1) > 1:
                break
        else:
            pytest.fail("no shared first place in 40 DIX games")
        assert record(g).summary.winners == tuple(n for n, p in enumerate(places) if p == 1)

    def test_a_seat_left_after_the_start_stays_a_persons(self):
        """A seat left for good reads ``bot:<stand-in>`` in the meta, but a person held it."""
        g = finished_game("left1", 3, people={2: "Cleo"}, left={2: 10})
        assert g.meta["seat:2"] == "bot:heuristic"
        assert any(decode(raw).type == "SeatLeft" for raw in g.log)
        s = record(g).summary
        assert (s.seats[2].name, s.seats[2].kind, s.seats[2].strategy) == ("Cleo", "person", None)
        assert [r.place for r in s.seats] == list(g.played.result.places)  # the fold skips the table event
        assert s.events == len(g.played.events) + 1

    def test_a_log_that_does_not_end_the_game_is_refused(self):
        g = finished_game("open1", 1)
        with pytest.raises(ValueError, match="does not end the game"):
            build_record("open1", g.meta, g.log[:-1])
        with pytest.raises(ValueError, match="empty log"):
            build_record("open1", g.meta, [])

    def test_log_blob_gives_back_the_very_bytes(self):
        """Events as columns, and anything the columns would not give back
        the same (another envelope, a 32-bit float, no msgpack) as it is."""
        g = finished_game("blob1", 2)
        blob = pack_log(g.log)
        assert blob[:1] == b"\x01" and unpack_log(blob) == tuple(g.log)
        assert len(blob) < len(zstandard.ZstdCompressor(level=ZSTD_LEVEL).compress(b"".join(g.log))) * 0.8
        odd = [
            msgpack.packb({"t": "X", "d": {}, "s": None, "ts": 1, "c": None, "more": 1}),
            msgpack.packb({"d": {}, "t": "X", "s": None, "ts": 1, "c": None}),
            b"\x85\xa1t\xa1X\xa1d\x81\xa1x\xca\x3f\x80\x00\x00\xa1s\xc0\xa2ts\x01\xa1c\xc0",  # {"x": 1.0} as float32
            b"\xc1 not msgpack",
        ]
        for raw in odd:
            log = [*g.log[:3], raw]
            blob = pack_log(log)
            assert blob[:1] == b"\x00" and unpack_log(blob) == tuple(log)
        assert unpack_log(pack_log([])) == ()

    def test_a_damaged_blob_is_a_value_error(self):
        blob = pack_log(finished_game("blob2", 2).log)
        for bad in (b"", blob[:40], b"\x07" + blob[1:], b"\x00" + blob[1:], blob[:1] + b"\x28\xb5\x2f\xfdnot zstd"):
            with pytest.raises(ValueError, match="damaged log blob"):
                unpack_log(bad)

    def test_cursor_round_trip_and_malformed_cursors(self):
        assert decode_cursor(encode_cursor(BASE_MS, "t-1_x")) == (BASE_MS, "t-1_x")
        for bad in ("", "!!", "bm9jb2xvbg", encode_cursor(1, "x")[:-3] + "###"):
            with pytest.raises(ValueError, match="malformed cursor"):
                decode_cursor(bad)


@pytest.fixture
async def archive(archive_url):
    """A migrated, empty :class:`Archive` on each backend."""
    a = Archive.from_url(archive_url)
    await a.ensure_schema()
    yield a
    await a.close()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class TestArchiveContract:
    """What every archive backend does alike (SQLite and PostgreSQL)."""

    async def test_put_then_get_gives_back_the_same_game(self, archive):
        """The row holds the whole game: the log's bytes, the meta, the summary."""
        g = finished_game("rt1", 11, people={0: "Ann", 2: "Zoé"})
        rec = record(g)
        assert await archive.put(rec) == "written"
        got = await archive.get("rt1")
        assert got == rec
        assert got.log == tuple(g.log) and got.meta == g.meta
        assert log_digest(got.log) == rec.digest
        assert await archive.summary("rt1") == rec.summary
        assert await archive.count() == 1

    async def test_unknown_table(self, archive):
        assert await archive.get("nope") is None
        assert await archive.summary("nope") is None
        assert not await archive.verify("nope", "0" * 64, 1)

    async def test_put_twice_writes_once(self, archive):
        """A retry, or a second archiver, finds the same game there: ``exists``, nothing written."""
        rec = record(finished_game("twice", 5))
        assert await archive.put(rec) == "written"
        assert await archive.put(rec) == "exists"
        assert await archive.count() == 1

    async def test_two_archivers_at_once_write_once(self, archive, archive_url):
        other = Archive(archive_url)
        try:
            rec = record(finished_game("race", 6))
            outcomes = await asyncio.gather(archive.put(rec), other.put(rec))
            assert sorted(outcomes) == ["exists", "written"]
            assert await archive.count() == 1
        finally:
            await other.close()

    async def test_another_log_under_an_archived_table_is_a_conflict(self, archive):
        first = record(finished_game("clash", 1))
        second = record(finished_game("clash", 2))
        await archive.put(first)
        with pytest.raises(ArchiveConflict, match="clash"):
            await archive.put(second)
        assert await archive.get("clash") == first

    async def test_a_record_whose_digest_is_not_its_logs_is_refused(self, archive):
        from dataclasses import replace

        rec = record(finished_game("forged", 4))
        with pytest.raises(ValueError, match="digest"):
            await archive.put(replace(rec, digest="0" * 64))
        assert await archive.count() == 0

    async def test_verify_reads_the_log_back(self, archive):
        """True only for the stored event count and the digest of the stored log."""
        rec = record(finished_game("ver", 8))
        await archive.put(rec)
        assert await archive.verify("ver", rec.digest, rec.summary.events)
        assert not await archive.verify("ver", rec.digest, rec.summary.events - 1)
        assert not await archive.verify("ver", log_digest(rec.log[:-1]), rec.summary.events)

    async def test_verify_sees_a_damaged_blob(self, archive):
        from services.archive.db import games

        rec = record(finished_game("rot", 9))
        await archive.put(rec)
        with archive.engine.begin() as conn:
            conn.execute(games.update().where(games.c.table_id == "rot").values(log=pack_log(rec.log[:-1])))
        assert not await archive.verify("rot", rec.digest, rec.summary.events)

    async def test_put_many_writes_a_batch_in_one_transaction_and_says_what_each_became(self, archive):
        """Written, then exists; a conflicting one is skipped, not the batch; one commit a call."""
        commits: list[int] = []
        sa.event.listen(archive.engine, "commit", lambda _conn: commits.append(1))
        recs = [record(finished_game(f"pm{i}", 20 + i)) for i in range(3)]
        assert await archive.put_many(recs) == ["written", "written", "written"]
        assert len(commits) == 1
        assert await archive.put_many(recs) == ["exists", "exists", "exists"]  # a retry writes nothing
        clash = record(finished_game("pm1", 99))  # another log under an archived id
        new = record(finished_game("pm3", 23))
        assert await archive.put_many([recs[0], clash, new]) == ["exists", "conflict", "written"]
        assert len(commits) == 3
        assert await archive.count() == 4
        assert [await archive.get(f"pm{i}") for i in range(4)] == [*recs, new]

    async def test_put_many_with_one_id_twice_writes_it_once(self, archive):
        rec, other = record(finished_game("dup", 31)), record(finished_game("dup", 32))
        assert await archive.put_many([rec, rec]) == ["written", "exists"]
        assert await archive.put_many([record(finished_game("dup2", 33)), other]) == ["written", "conflict"]
        assert await archive.get("dup") == rec
        assert await archive.count() == 2

    async def test_put_many_refuses_a_forged_record_and_writes_nothing(self, archive):
        from dataclasses import replace

        good = record(finished_game("ok1", 34))
        forged = replace(record(finished_game("forged2", 35)), digest="0" * 64)
        with pytest.raises(ValueError, match="forged2"):
            await archive.put_many([good, forged])
        assert await archive.count() == 0

    async def test_two_archivers_putting_overlapping_batches_at_once_write_each_once(self, archive, archive_url):
        """Both read no row, both insert: the later one's unique violation rolls it back and it
        reads again (PostgreSQL); SQLite's writers queue (``BEGIN IMMEDIATE``)."""
        other = Archive(archive_url)
        try:
            recs = [record(finished_game(f"ov{i}", 40 + i)) for i in range(4)]
            a, b = await asyncio.gather(archive.put_many(recs[:3]), other.put_many(recs[1:]))
            assert a[0] == "written" and b[-1] == "written"
            for x, y in zip(a[1:], b[:2], strict=True):  # ov1 and ov2: written by one, found by the other
                assert sorted([x, y]) == ["exists", "written"]
            assert await archive.count() == 4
            assert [await archive.get(f"ov{i}") for i in range(4)] == recs
        finally:
            await other.close()

    async def test_a_unique_violation_is_retried_once_reading_the_ids_again(self, archive, monkeypatch):
        """Another writer's row lands between the batch's SELECT and its INSERT (made
        certain here: the first SELECT sees nothing): the batch is rolled back and
        tried again, and the others of the batch are written."""
        from services.archive import db

        theirs, mine = record(finished_game("uv0", 60)), record(finished_game("uv1", 61))
        assert await archive.put(theirs) == "written"
        real, calls = db._held, []

        def blind_once(conn, ids):
            calls.append(list(ids))
            return {} if len(calls) == 1 else real(conn, ids)

        monkeypatch.setattr(db, "_held", blind_once)
        assert await archive.put_many([theirs, mine]) == ["exists", "written"]
        assert calls == [["uv0", "uv1"], ["uv0", "uv1"]]
        assert await archive.count() == 2
        assert await archive.put_many([]) == []

    async def test_verify_many_by_the_written_blob_or_by_decompressing(self, archive):
        recs = [record(finished_game(f"vm{i}", 50 + i)) for i in range(3)]
        blobs = [pack_log(r.log) for r in recs]
        assert await archive.put_many(recs, blobs) == ["written"] * 3
        a, b, c = recs
        assert await archive.verify_many({
            "vm0": (a.digest, a.summary.events, blobs[0]),  # the very bytes written
            "vm1": (b.digest, b.summary.events, None),  # no blob: decompressed and digested
            "vm2": (c.digest, c.summary.events - 1, blobs[2]),  # another event count
            "absent": (a.digest, a.summary.events, blobs[0]),
        }) == {"vm0": True, "vm1": True, "vm2": False, "absent": False}
        with archive.engine.begin() as conn:  # vm0's blob replaced by its log less one event
            conn.execute(games.update().where(games.c.table_id == "vm0").values(log=pack_log(a.log[:-1])))
        assert await archive.verify_many({"vm0": (a.digest, a.summary.events, blobs[0])}) == {"vm0": False}
        assert await archive.verify_many({"vm0": (a.digest, a.summary.events, None)}) == {"vm0": False}
        # other bytes that hold the same log (another zstd level): decompressed, and true
        other_blob = b"\x00" + zstandard.ZstdCompressor(level=1).compress(msgpack.packb(list(b.log), use_bin_type=True))
        with archive.engine.begin() as conn:
            conn.execute(games.update().where(games.c.table_id == "vm1").values(log=other_blob))
        assert await archive.verify_many({"vm1": (b.digest, b.summary.events, blobs[1])}) == {"vm1": True}

    async def test_search_pages_newest_first_each_game_once(self, archive, twenty_five):
        """25 games by pages of 10: 10, 10, 5, newest first (ties by table id), none twice."""
        for rec in twenty_five:
            await archive.put(rec)
        seen: list[str] = []
        sizes = []
        cursor = None
        while True:
            page = await archive.search(limit=10, cursor=cursor)
            sizes.append(len(page.items))
            seen += [s.table for s in page.items]
            if page.next is None:
                break
            cursor = page.next
        assert sizes == [10, 10, 5]
        assert seen == newest_first(twenty_five)
        assert seen[:3] == ["g24", "g23", "g22"]  # g23 and g22 end in the same minute

    async def test_search_items_are_the_summaries(self, archive, twenty_five):
        for rec in twenty_five[:3]:
            await archive.put(rec)
        page = await archive.search()
        assert page.items == [r.summary for r in reversed(twenty_five[:3])]
        assert page.next is None

    async def test_search_filters(self, archive, twenty_five):
        """By game, player name, bot strategy and date range, alone and together, paged."""
        for rec in twenty_five:
            await archive.put(rec)

        async def tables(**filters) -> list[str]:
            out: list[str] = []
            cursor = None
            while True:
                page = await archive.search(limit=3, cursor=cursor, **filters)
                out += [s.table for s in page.items]
                if (cursor := page.next) is None:
                    return out

        def expect(keep) -> list[str]:
            return newest_first([r for i, r in enumerate(twenty_five) if keep(i, _spec(i))])

        assert await tables(game="dix") == expect(lambda i, s: s["game"] == "dix")
        assert await tables(game="maumau") == expect(lambda i, s: s["game"] == "maumau")
        assert await tables(player="Ann") == expect(lambda i, s: i % 4 == 0)
        assert await tables(player="Bob", game="dix") == expect(lambda i, s: i % 3 == 0 and s["game"] == "dix")
        assert await tables(player="bot 3") == expect(lambda i, s: True)
        assert await tables(player="ann") == []  # exact names
        assert await tables(strategy="pass") == expect(lambda i, s: i % 5 == 0)
        assert await tables(strategy="random", player="Ann") == expect(
            lambda i, s: i % 4 == 0 and "random" in bot_strategies(s))
        assert await tables(strategy="random", game="dix") == expect(
            lambda i, s: s["game"] == "dix" and "random" in bot_strategies(s))
        since, until = BASE_MS + 3 * MINUTE, BASE_MS + 7 * MINUTE
        assert await tables(since_ms=since, until_ms=until) == expect(lambda i, s: 6 <= i < 14)
        assert await tables(since_ms=since, until_ms=until, player="Ann") == ["g12", "g08"]
        assert await tables(since_ms=until) == expect(lambda i, s: i >= 14)
        assert await tables(until_ms=since) == expect(lambda i, s: i < 6)
        assert await tables(game="mauw") == []

    async def test_a_person_named_twice_at_one_table_is_one_item(self, archive):
        rec = record(finished_game("twins", 3, people={0: "Ann", 2: "Ann"}))
        await archive.put(rec)
        page = await archive.search(player="Ann")
        assert [s.table for s in page.items] == ["twins"]

    async def test_search_refuses_a_malformed_cursor_or_limit(self, archive):
        with pytest.raises(ValueError, match="malformed cursor"):
            await archive.search(cursor="not a cursor")
        with pytest.raises(ValueError, match="limit"):
            await archive.search(limit=0)

    async def test_iter_games_oldest_first_in_batches(self, archive, twenty_five):
        for rec in twenty_five:
            await archive.put(rec)
        got = [g async for g in archive.iter_games(batch=7)]
        assert got == sorted(twenty_five, key=lambda r: (r.summary.ended_ms, r.summary.table))
        dix = [g.summary.table async for g in archive.iter_games(game="dix", since_ms=BASE_MS + 4 * MINUTE, batch=2)]
        assert dix == list(reversed(newest_first(
            [r for i, r in enumerate(twenty_five) if _spec(i)["game"] == "dix" and i >= 8])))
        assert [g async for g in archive.iter_games(until_ms=BASE_MS)] == []

    async def test_migrate_twice_changes_nothing(self, archive):
        rec = record(finished_game("kept", 12))
        await archive.put(rec)
        archive.migrate()
        await archive.ensure_schema()
        assert await archive.get("kept") == rec
        with archive.engine.connect() as conn:
            assert conn.execute(sa.text(f"SELECT version_num FROM {VERSION_TABLE}")).scalars().all() == ["0001"]

    async def test_processes_starting_together_migrate_once(self, archive_url):
        """Several archives migrating one new database at once: each ends at the head, none fails."""
        archives = [Archive(archive_url) for _ in range(4)]
        try:
            await asyncio.gather(*(a.ensure_schema() for a in archives))
            assert {a.revision() for a in archives} == {"0001"}
            assert await archives[0].count() == 0
        finally:
            for a in archives:
                await a.close()

    def test_migrations_build_the_schema_of_the_metadata(self, archive):
        """The Alembic revisions and ``services.archive.db.metadata`` describe one schema."""
        from alembic.autogenerate import compare_metadata
        from alembic.migration import MigrationContext

        with archive.engine.connect() as conn:
            ctx = MigrationContext.configure(conn, opts={"version_table": VERSION_TABLE})
            assert compare_metadata(ctx, metadata) == []

    async def test_a_database_down_is_unavailable(self, archive_url, tmp_path):
        """No server (or no file to open): every call raises ArchiveUnavailable, which callers retry."""
        if archive_url.startswith("sqlite"):
            (tmp_path / "a-directory.db").mkdir()
            down = Archive(f"sqlite:///{tmp_path / 'a-directory.db'}")
        else:
            down = Archive(f"postgresql://postgres@127.0.0.1:{_closed_port()}/tapis_nowhere")
        rec = record(finished_game("down", 1))
        with pytest.raises(ArchiveUnavailable) as err:
            await down.put(rec)
        assert err.value.__cause__ is not None
        for call in (down.get("down"), down.summary("down"), down.search(), down.count(),
                     down.verify("down", rec.digest, 1), down.ensure_schema()):
            with pytest.raises(ArchiveUnavailable):
                await call
        with pytest.raises(ArchiveUnavailable):
            [g async for g in down.iter_games()]
        await down.close()


def test_in_memory_sqlite():
    async def run() -> None:
        a = Archive("sqlite://")
        await a.ensure_schema()
        rec = record(finished_game("mem", 1))
        assert await a.put(rec) == "written"
        assert await a.get("mem") == rec
        await a.close()

    asyncio.run(run())


def test_other_schemes_are_refused():
    with pytest.raises(ValueError, match="postgresql"):
        Archive("mysql://root@localhost/tapis")


class TestMigrateCommand:
    """``tapis archive migrate``."""

    def test_migrates_the_url_given(self, tmp_path, monkeypatch):
        from services.cli import app

        monkeypatch.delenv("TAPIS_ARCHIVE_URL", raising=False)
        url = f"sqlite:///{tmp_path / 'a' / 'archive.db'}"
        for _ in range(2):
            res = CliRunner().invoke(app, ["archive", "migrate", "--url", url])
            assert res.exit_code == 0, res.output
        assert "0001" in res.output
        assert asyncio.run(Archive(url).count()) == 0

    def test_reads_the_setting(self, tmp_path, monkeypatch):
        from services.cli import app

        monkeypatch.setenv("TAPIS_ARCHIVE_URL", f"sqlite:///{tmp_path / 'b.db'}")
        res = CliRunner().invoke(app, ["archive", "migrate"])
        assert res.exit_code == 0, res.output
        assert (tmp_path / "b.db").exists()

    def test_without_a_url_says_so(self, monkeypatch):
        from services.cli import app

        monkeypatch.delenv("TAPIS_ARCHIVE_URL", raising=False)
        res = CliRunner().invoke(app, ["archive", "migrate"])
        assert res.exit_code == 2
        assert "TAPIS_ARCHIVE_URL" in res.output

    def test_a_database_down_fails(self, monkeypatch):
        from services.cli import app

        monkeypatch.delenv("TAPIS_ARCHIVE_URL", raising=False)
        res = CliRunner().invoke(app, ["archive", "migrate", "--url",
                                       f"postgresql://postgres@127.0.0.1:{_closed_port()}/x"])
        assert res.exit_code == 1
        assert "unavailable" in res.output.lower()


def test_the_package_ships_its_migrations():
    """Every file Alembic needs is in pyproject's package data."""
    import tomllib
    from fnmatch import fnmatch
    from pathlib import Path

    from services.archive.db import MIGRATIONS

    root = Path(__file__).resolve().parents[1]
    globs = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    package = MIGRATIONS.parent
    needed = [p.relative_to(package).as_posix() for p in MIGRATIONS.rglob("*")
              if p.is_file() and "__pycache__" not in p.parts]
    assert "migrations/env.py" in needed and "migrations/versions/0001_schema.py" in needed
    assert [f for f in needed if not any(fnmatch(f, g) for g in globs["services.archive"])] == []
