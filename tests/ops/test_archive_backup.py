"""Backup and restore of the archive (docs/operations.md, "Backup and
restore"), tested on a PostgreSQL cluster of the test's own
(tests/pg_cluster.py: initdb + pg_ctl on a free port, removed afterwards;
never the machine's server): games the bots played are archived through
:class:`~services.archive.db.Archive`, dumped with ``pg_dump -Fc``, the
database is dropped and made again, ``pg_restore`` brings it back, and
every game reads back identical (log bytes, meta, summary, digest).  Also:
the archive through a crash and restart of its server, and the throwaway
cluster's own clean-up."""

from __future__ import annotations

import re
import shutil

import pytest

from services.archive import Archive, ArchivedGame, ArchiveUnavailable, build_record
from tests.archive_fixtures import finished_game
from tests.ops.conftest import ROOT
from tests.pg_cluster import PostgresCluster, own_postgres, postgres_cluster_missing, process_alive

DB = "tapis_archive"
BASE_MS = 1_780_000_000_000


@pytest.fixture(scope="module")
def pg() -> PostgresCluster:
    """One throwaway cluster for the module (about a second to make)."""
    reason = postgres_cluster_missing()
    if reason is not None:
        pytest.skip(reason)
    with own_postgres() as cluster:
        for tool in ("pg_dump", "pg_restore"):
            if not shutil.which(cluster.tool(tool)):
                pytest.skip(f"{tool} not installed (Debian package postgresql-client-15)")
        yield cluster


@pytest.fixture
def database(pg: PostgresCluster):
    """An empty database :data:`DB` on the cluster (its URL), dropped after."""
    pg.drop_database(DB)
    url = pg.create_database(DB)
    yield url
    pg.drop_database(DB)


@pytest.fixture(scope="module")
def games() -> list[ArchivedGame]:
    """Six finished games of Mau Mau and DIX the bots played, with people,
    a seat left for good, names with accents."""
    specs = [
        ("mm-1", 1, "maumau", ("random", "heuristic", "random", "heuristic"), {}, {}),
        ("mm-2", 2, "maumau", ("heuristic",) * 4, {0: "Ann", 2: "Zoé"}, {}),
        ("mm-3", 3, "maumau", ("random", "random", "heuristic"), {1: "Bob"}, {1: 4}),
        ("dx-1", 4, "dix", ("heuristic", "random", "heuristic", "random"), {}, {}),
        ("dx-2", 5, "dix", ("heuristic",) * 4, {3: "Åsa Ñúñez"}, {}),
        ("dx-3", 6, "dix", ("random", "heuristic", "pass", "heuristic"), {0: "Ann"}, {}),
    ]
    out = []
    for i, (table, seed, game, bots, people, left) in enumerate(specs):
        g = finished_game(table, seed, game=game, bots=bots, people=people, left=left,
                          end_ms=BASE_MS + i * 60_000)
        out.append(build_record(g.table, g.meta, g.log))
    return out


async def _read_all(archive: Archive, tables: list[str]) -> dict[str, ArchivedGame | None]:
    return {t: await archive.get(t) for t in tables}


async def test_pg_dump_then_pg_restore_gives_back_every_game(pg, database, games, tmp_path):
    """The procedure of docs/operations.md: ``pg_dump -Fc``, the database
    lost (dropped, made again, empty), ``pg_restore --no-owner``; every
    game reads back identical and the archive works on (schema revision,
    searches, new games)."""
    tables = [g.summary.table for g in games]
    archive = Archive(database)
    try:
        archive.migrate()
        revision = archive.revision()
        assert revision is not None
        for rec in games:
            assert await archive.put(rec) == "written"
        before = await _read_all(archive, tables)
        page_before = await archive.search(limit=100)
    finally:
        await archive.close()
    assert before == {g.summary.table: g for g in games}

    dump = tmp_path / "archive.dump"
    pg.run("pg_dump", "-Fc", "--dbname", database, "-f", str(dump))
    assert dump.stat().st_size > 0

    pg.drop_database(DB)  # the database is lost
    pg.create_database(DB)
    empty = Archive(database)
    try:
        assert empty.revision() is None
        with pytest.raises(ArchiveUnavailable):  # no games table any more
            await empty.count()
    finally:
        await empty.close()

    pg.run("pg_restore", "--no-owner", "--exit-on-error", "--dbname", database, str(dump))

    restored = Archive(database)
    try:
        assert restored.revision() == revision
        restored.migrate()  # nothing to do on a restored archive
        assert restored.revision() == revision
        after = await _read_all(restored, tables)
        assert after == before  # meta, summary, digest and the log's bytes
        for rec in games:
            got = after[rec.summary.table]
            assert got is not None
            assert got.log == rec.log and got.summary == rec.summary and got.meta == rec.meta
            assert await restored.verify(rec.summary.table, rec.digest, rec.summary.events)
            assert await restored.summary(rec.summary.table) == rec.summary
        assert await restored.count() == len(games)
        assert await restored.search(limit=100) == page_before
        assert [s.table for s in (await restored.search(player="Ann", limit=10)).items] == ["dx-3", "mm-2"]
        g = finished_game("mm-new", 7, end_ms=BASE_MS + 3_600_000)
        new = build_record(g.table, g.meta, g.log)
        assert await restored.put(new) == "written"  # the archiver goes on where it left off
        assert await restored.put(games[0]) == "exists"  # and writes nothing twice
        assert await restored.count() == len(games) + 1
    finally:
        await restored.close()


async def test_the_archive_through_a_crash_and_restart_of_its_server(pg, database, games):
    """The server stops as in a crash: writes fail as ``unavailable`` (the
    archiver keeps the table in Redis and retries), and once it is back the
    same Archive (its pool re-checks connections) reads every committed game
    and writes again."""
    archive = Archive(database)
    try:
        await archive.ensure_schema()
        for rec in games[:3]:
            await archive.put(rec)
        pg.crash()
        try:
            with pytest.raises(ArchiveUnavailable):
                await archive.put(games[3])
            with pytest.raises(ArchiveUnavailable):
                await archive.get(games[0].summary.table)
        finally:
            pg.start()
        assert await _read_all(archive, [g.summary.table for g in games[:3]]) == {
            g.summary.table: g for g in games[:3]}
        assert await archive.get(games[3].summary.table) is None  # the failed write left nothing
        assert await archive.put(games[3]) == "written"
        assert await archive.count() == 4
    finally:
        await archive.close()


def test_the_backup_section_gives_the_commands_tested_here():
    """docs/operations.md shows the dump and restore this module runs."""
    doc = (ROOT / "docs" / "operations.md").read_text()
    section = re.search(r"^#+ Backup and restore\n(.*?)(?=^##+ |\Z)", doc, re.MULTILINE | re.DOTALL)
    assert section, "docs/operations.md has no 'Backup and restore' section"
    text = section.group(1)
    assert "pg_dump -Fc" in text
    assert "pg_restore --no-owner --exit-on-error" in text
    assert "tests/ops/test_archive_backup.py" in text


def test_own_postgres_cleans_up_after_a_failure():
    """The throwaway cluster is stopped and its directory removed even when
    the test inside fails."""
    reason = postgres_cluster_missing()
    if reason is not None:
        pytest.skip(reason)
    seen: dict[str, object] = {}
    with pytest.raises(RuntimeError, match="the test failed"):
        with own_postgres() as cluster:
            seen.update(root=cluster.datadir.parent, pid=cluster.pid)
            assert cluster.running
            raise RuntimeError("the test failed")
    assert not seen["root"].exists()  # type: ignore[attr-defined]
    assert not process_alive(seen["pid"])  # type: ignore[arg-type]
