"""The `tapis` command: demo on an embedded service, replay from real
Redis, clear errors for missing settings."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from services.cli import app
from tests.conftest import REAL_REDIS_URL, real_redis_available

runner = CliRunner()


def test_demo_embedded_plays_every_table_and_reports_throughput():
    res = runner.invoke(app, ["demo", "--game", "maumau", "--tables", "3", "--players", "3", "--embedded"])
    assert res.exit_code == 0, res.output
    assert "3/3 tables finished" in res.output
    assert "games/s" in res.output


def test_demo_without_a_server_says_how_to_start_one():
    res = runner.invoke(app, ["demo", "--url", "http://127.0.0.1:9", "--tables", "1"])
    assert res.exit_code == 1
    assert "tapis serve" in res.output


def test_demo_url_without_a_scheme_means_http():
    from services.demo import service_url

    assert service_url("localhost:8000") == "http://localhost:8000"
    assert service_url("https://tapis.example") == "https://tapis.example"


def test_demo_unknown_game_is_refused_with_the_code():
    res = runner.invoke(app, ["demo", "--game", "chess", "--tables", "1", "--embedded"])
    assert res.exit_code == 1
    assert "unknown_game" in res.output


@pytest.mark.parametrize("cmd", [["gateway"], ["worker"]])
def test_roles_that_need_redis_say_so(cmd, monkeypatch):
    monkeypatch.delenv("TAPIS_REDIS_URL", raising=False)
    res = runner.invoke(app, cmd)
    assert res.exit_code == 2
    assert "TAPIS_REDIS_URL" in res.output


@pytest.mark.redis
async def test_replay_prints_the_scores_the_service_computed(capsys):
    if not real_redis_available():
        pytest.skip("no Redis")
    import asyncio

    import httpx
    from redis.asyncio import Redis

    from services.config import Settings
    from services.replay import replay_table
    from services.serve import build_serve_app

    redis = Redis.from_url(REAL_REDIS_URL)
    await redis.flushdb()
    settings = Settings(redis_url=REAL_REDIS_URL, shards=2, snapshot_every=16)
    app_ = build_serve_app(settings, redis=redis)
    async with app_.router.lifespan_context(app_):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app_), base_url="http://t") as c:
            bots = {"0": "heuristic", "1": "random", "2": "random"}
            tid = (await c.post("/tables", json={"game": "maumau", "players": 3, "bots": bots})).json()["id"]
            for _ in range(600):
                info = (await c.get(f"/tables/{tid}")).json()
                if info["status"] == "finished":
                    break
                await asyncio.sleep(0.05)
    capsys.readouterr()
    code = await replay_table(settings, tid)
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["result"] == info["result"] and out["version"] == info["version"]
    assert out["snapshot"]["matches_replay"] is True
    await redis.flushdb()
    await redis.aclose()


def test_bots_exit_with_celerys_exit_code(monkeypatch):
    """Case: `tapis bots` exited 0 after Celery's "Unrecoverable error" (kombu
    dying on a Redis restart), so an on-failure supervisor never restarted
    it.  The real Celery command runs; its worker fails to start its
    blueprint, as after that error, and the exit code comes back."""
    from celery import bootsteps

    def fail(self, parent):
        raise AttributeError("'NoneType' object has no attribute 'hostname'")  # kombu's, on a Redis restart

    monkeypatch.setattr(bootsteps.Blueprint, "start", fail)
    res = runner.invoke(app, ["bots", "--redis", "redis://127.0.0.1:9/0", "--pool", "solo"])
    assert res.exit_code == 1, res.output


@pytest.mark.redis
async def test_export_writes_the_whole_log_as_json_lines(tmp_path):
    if not real_redis_available():
        pytest.skip("no Redis")
    import asyncio

    import httpx
    from redis.asyncio import Redis

    from services.config import Settings
    from services.serve import build_serve_app

    redis = Redis.from_url(REAL_REDIS_URL)
    await redis.flushdb()
    settings = Settings(redis_url=REAL_REDIS_URL, shards=2)
    app_ = build_serve_app(settings, redis=redis)
    async with app_.router.lifespan_context(app_):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app_), base_url="http://t") as c:
            tid = (await c.post("/tables", json={"game": "toy", "players": 1, "bots": {"0": "first"},
                                                  "options": {"target": 4}})).json()["id"]
            for _ in range(300):
                info = (await c.get(f"/tables/{tid}")).json()
                if info["status"] == "finished":
                    break
                await asyncio.sleep(0.05)
    out = tmp_path / "log.jsonl"
    res = await asyncio.to_thread(CliRunner().invoke, app, ["export", tid, "--redis", REAL_REDIS_URL, "-o", str(out)])
    assert res.exit_code == 0, res.output
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert lines[0]["table"] == tid and lines[0]["meta"]["game"] == "toy"
    assert [x["version"] for x in lines[1:]] == list(range(1, info["version"] + 1))
    assert lines[1]["type"] == "GameStarted" and "secrets" in lines[1]["data"]  # unredacted: the dealt secrets
    res = await asyncio.to_thread(CliRunner().invoke, app, ["export", "nope", "--redis", REAL_REDIS_URL])
    assert res.exit_code == 1
    await redis.flushdb()
    await redis.aclose()


@pytest.mark.parametrize("cmd", ["serve", "gateway"])
def test_serve_and_gateway_take_the_trusted_proxies(cmd):
    res = runner.invoke(app, [cmd, "--help"], env={"COLUMNS": "200"})
    assert res.exit_code == 0 and "--forwarded-allow-ips" in res.output


def test_the_server_trusts_x_forwarded_for_only_from_the_proxies_named(monkeypatch):
    from services.config import Settings
    from services.gateway.server import HeadTimeout, uvicorn_config

    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "*")  # uvicorn's own variable is not read
    cfg = uvicorn_config(None, Settings(redis_url=None), host="127.0.0.1", port=1)
    assert cfg.proxy_headers is False
    monkeypatch.setenv("TAPIS_FORWARDED_ALLOW_IPS", "10.0.0.5, 10.1.0.0/16")
    cfg = uvicorn_config(None, Settings(redis_url=None, header_timeout_s=3), host="127.0.0.1", port=1)
    assert cfg.proxy_headers is True and cfg.forwarded_allow_ips == "10.0.0.5,10.1.0.0/16"
    cfg = uvicorn_config(None, Settings(redis_url=None), host="127.0.0.1", port=1, forwarded_allow_ips="192.0.2.1")
    assert cfg.forwarded_allow_ips == "192.0.2.1"  # the flag wins over the setting
    assert issubclass(cfg.http, HeadTimeout) and cfg.http.header_timeout_s == 10.0


# -- replay and export from the archive (issue 22) ---------------------------

#: 2026-12-01T00:00:00Z
DEC1 = 1_796_083_200_000
DAY = 86_400_000


@pytest.fixture
def archived(tmp_path):
    """A SQLite archive of 9 real games: maumau g0..g5 ended on Dec 1..6
    at noon (Ana plays seat 0), toy t0..t2 on Dec 1..3 -> (url, records by
    table)."""
    import asyncio

    from services.archive.db import Archive
    from tests.archived import played_record

    url = f"sqlite:///{tmp_path / 'archive.db'}"
    archive = Archive(url)
    archive.migrate()
    recs = {}
    for i in range(6):
        seats = [("Ana", None), ("heuristic bot 1", "heuristic"), ("Bo", None)]
        recs[f"g{i}"] = played_record(f"g{i}", "maumau", seats, seed=i, ended_ms=DEC1 + i * DAY + DAY // 2)
    for i in range(3):
        recs[f"t{i}"] = played_record(f"t{i}", "toy", [("Cy", None)], seed=i, ended_ms=DEC1 + i * DAY + 1,
                                      options={"target": 4})

    async def put_all():
        for rec in recs.values():
            await archive.put(rec)
        await archive.close()

    asyncio.run(put_all())
    return url, recs


def test_replay_reads_an_archived_table_and_checks_it_against_its_record(archived):
    from shared.events import decode

    url, recs = archived
    res = runner.invoke(app, ["replay", "g2", "--archive", url])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    rec = recs["g2"]
    assert out["source"] == "archive" and out["status"] == "finished" and out["game"] == "maumau"
    assert out["version"] == len(rec.log) == rec.summary.events
    assert out["result"] == rec.summary.result
    assert out["archive"] == {"events": len(rec.log), "digest_matches": True, "result_matches": True}
    assert decode(rec.log[-1]).type == "GameEnded"


def test_replay_fails_when_the_archived_result_was_tampered_with(archived):
    import sqlalchemy as sa

    from services.archive.db import games, make_engine

    url, recs = archived
    engine = make_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.update(games).where(games.c.table_id == "g1").values(result='{"winners": [2]}'))
    engine.dispose()
    res = runner.invoke(app, ["replay", "g1", "--archive", url])
    assert res.exit_code == 3, res.output
    assert json.loads(res.stdout)["archive"] == {"events": recs["g1"].summary.events, "digest_matches": True,
                                                 "result_matches": False}


def test_export_of_an_archived_table_is_its_meta_then_every_event(archived, tmp_path):
    from shared.events import decode

    url, recs = archived
    out = tmp_path / "g3.jsonl"
    res = runner.invoke(app, ["export", "g3", "--archive", url, "-o", str(out)])
    assert res.exit_code == 0, res.output
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    rec = recs["g3"]
    assert lines[0]["table"] == "g3"
    assert lines[0]["meta"] == {k: ("person" if v.startswith("tok:") else v) for k, v in rec.meta.items()}
    assert lines[0]["meta"]["seat:0"] == "person" and lines[0]["meta"]["seat:1"] == "bot:heuristic"
    assert lines[1:] == [{"version": v, **decode(raw).to_json()} for v, raw in enumerate(rec.log, 1)]
    assert "tok:" not in out.read_text()


def test_without_a_redis_url_replay_reads_the_embedded_serves_archive(archived, tmp_path, monkeypatch):
    """`tapis replay T` with no Redis URL reads the SQLite file the embedded
    `tapis serve` archives to (services.config.default_archive_url)."""
    import shutil

    from services.config import default_archive_url
    from services.replay import sqlite_path

    url, _recs = archived
    monkeypatch.delenv("TAPIS_REDIS_URL", raising=False)
    monkeypatch.delenv("TAPIS_ARCHIVE_URL", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    res = runner.invoke(app, ["replay", "g0"])
    assert res.exit_code == 1
    assert "no table 'g0'" in res.stderr and "nothing archived yet" in res.stderr
    assert not (tmp_path / "data").exists()  # reading created no archive
    default = sqlite_path(default_archive_url())
    assert default is not None and default.is_relative_to(tmp_path / "data")
    default.parent.mkdir(parents=True)
    shutil.copy(sqlite_path(url), default)
    res = runner.invoke(app, ["replay", "g0"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["source"] == "archive"
    res = runner.invoke(app, ["export", "t1"])
    assert res.exit_code == 0 and json.loads(res.stdout.splitlines()[0])["table"] == "t1"
    res = runner.invoke(app, ["replay", "nope"])
    assert res.exit_code == 1 and "no table 'nope'" in res.stderr


def test_bulk_export_writes_one_json_line_per_archived_game_oldest_first(archived, tmp_path):
    from shared.events import decode

    url, recs = archived
    out = tmp_path / "games.jsonl"
    res = runner.invoke(app, ["export", "--game", "maumau", "--since", "2026-12-02", "--until", "2026-12-05",
                              "--archive", url, "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert "4 games of maumau written to" in res.stderr
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["table"] for x in lines] == ["g1", "g2", "g3", "g4"]  # Dec 2 to Dec 5, its whole day
    for line in lines:
        rec = recs[line["table"]]
        assert line["events"] == [{"version": v, **decode(raw).to_json()} for v, raw in enumerate(rec.log, 1)]
        assert line["seats"][0] == {"seat": 0, "name": "Ana", "kind": "human", "strategy": None,
                                    "place": rec.summary.seats[0].place, "score": rec.summary.seats[0].score}
        assert line["winners"] == list(rec.summary.winners) and line["result"] == rec.summary.result
        assert line["ended_ms"] == rec.summary.ended_ms and line["ended"].endswith("T12:00:00.000Z")
    text = out.read_text()
    assert "tok:" not in text and '"meta"' not in text and not any(r.digest in text for r in recs.values())
    res = runner.invoke(app, ["export", "--game", "toy", "--archive", url])  # to standard output
    assert res.exit_code == 0, res.output
    assert [json.loads(x)["table"] for x in res.stdout.splitlines()] == ["t0", "t1", "t2"]
    assert "3 games of toy written to standard output" in res.stderr
    res = runner.invoke(app, ["export", "--game", "maumau", "--since", "2027-01-01", "--archive", url])
    assert res.exit_code == 0 and res.stdout == "" and "0 games of maumau" in res.stderr


def test_bulk_export_to_parquet(archived, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    from shared.events import decode

    url, recs = archived
    out = tmp_path / "games.parquet"
    res = runner.invoke(app, ["export", "--game", "maumau", "--archive", url, "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert "6 games of maumau written to" in res.stderr
    rows = pq.read_table(out).to_pylist()
    assert [r["table"] for r in rows] == [f"g{i}" for i in range(6)]
    for row in rows:
        rec = recs[row["table"]]
        events = [decode(raw) for raw in rec.log]
        assert [e["type"] for e in row["events"]] == [e.type for e in events]
        assert [json.loads(e["data"]) for e in row["events"]] == [e.data for e in events]
        assert [int(e["ts"].timestamp() * 1000) for e in row["events"]] == [e.ts for e in events]
        assert int(row["ended"].timestamp() * 1000) == rec.summary.ended_ms
        assert json.loads(row["result"]) == rec.summary.result and row["winners"] == list(rec.summary.winners)
        assert [s["name"] for s in row["seats"]] == ["Ana", "heuristic bot 1", "Bo"]


def test_bulk_export_to_parquet_without_pyarrow_says_how_to_get_it(archived, tmp_path, monkeypatch):
    import sys

    url, _recs = archived
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # as if not installed: importing it fails
    out = tmp_path / "games.parquet"
    res = runner.invoke(app, ["export", "--game", "maumau", "--archive", url, "-o", str(out)])
    assert res.exit_code == 2 and "pyarrow" in res.stderr and "tapis[parquet]" in res.stderr
    assert not out.exists()


@pytest.mark.parametrize(("args", "code", "says"), [
    (["export"], 2, "give a table id"),
    (["export", "g1", "--game", "maumau"], 2, "not both"),
    (["export", "g1", "--since", "2026-12-01"], 2, "not both"),
    (["export", "--since", "2026-12-01"], 2, "give a table id"),
    (["export", "--game", "maumau", "--since", "yesterday"], 2, "'yesterday' is not an ISO 8601 date"),
    (["export", "--game", "maumau", "--until", "2026-02-30"], 2, "is not an ISO 8601 date"),
    (["export", "--game", "maumau", "--since", "2026-12-03", "--until", "2026-12-02"], 2, "after --until"),
    (["export", "--game", "chess"], 2, "no game 'chess'"),
    (["export", "g1", "-o", "x.parquet"], 2, "Parquet is for the bulk export"),
    (["export", "nope"], 1, "no table 'nope'"),
    (["replay", "nope"], 1, "no table 'nope'"),
])
def test_bad_export_and_replay_input_gets_a_message_and_an_exit_code(archived, args, code, says, tmp_path,
                                                                      monkeypatch):
    url, _recs = archived
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, [*args, "--archive", url])
    assert res.exit_code == code, res.output
    assert says in res.stderr
    assert not (tmp_path / "x.parquet").exists()


@pytest.mark.parametrize("args", [["export", "--game", "maumau"], ["export", "g1"], ["replay", "g1"]])
def test_an_unreachable_archive_is_exit_1_with_a_message(args, tmp_path):
    out = tmp_path / "out.jsonl"
    to_file = ["-o", str(out)] if args[0] == "export" else []
    res = runner.invoke(app, [*args, "--archive", "postgresql://tapis@127.0.0.1:9/none", *to_file])
    assert res.exit_code == 1, res.output
    assert "archive cannot be read" in res.stderr and "Connection refused" in res.stderr
    assert not out.exists()  # no partial file left


def test_bulk_export_without_any_archive_says_so(archived, tmp_path, monkeypatch):
    monkeypatch.delenv("TAPIS_ARCHIVE_URL", raising=False)
    monkeypatch.delenv("TAPIS_REDIS_URL", raising=False)  # --redis sets it for the process: unset at the end
    res = runner.invoke(app, ["export", "--game", "maumau", "--redis", "redis://127.0.0.1:9/0"])
    assert res.exit_code == 2 and "--archive or TAPIS_ARCHIVE_URL" in res.stderr
    monkeypatch.delenv("TAPIS_REDIS_URL")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "empty"))
    res = runner.invoke(app, ["export", "--game", "maumau"])
    assert res.exit_code == 1 and "nothing archived there yet" in res.stderr


@pytest.mark.redis
async def test_replay_and_export_read_redis_first_then_the_archive(archived, monkeypatch):
    """With a Redis URL and an archive: a table still in Redis is read there,
    one that left it from the archive; with no archive, only Redis."""
    if not real_redis_available():
        pytest.skip("no Redis")
    monkeypatch.delenv("TAPIS_REDIS_URL", raising=False)  # --redis sets it for the process: unset at the end
    import asyncio

    from redis.asyncio import Redis

    from services.store.store import EventStore
    from tests.archived import played_record

    url, recs = archived
    redis = Redis.from_url(REAL_REDIS_URL)
    await redis.flushdb()
    live = played_record("r1", "toy", [("Di", None)], seed=7, ended_ms=DEC1, options={"target": 4})
    store = EventStore(redis)
    from services.store import keys

    await redis.hset(keys.meta("r1"), mapping=live.meta)
    for v, raw in enumerate(live.log, 1):
        await redis.xadd(keys.events("r1"), {"e": raw}, id=f"{v}-0")
    assert await store.meta("r1") is not None

    def run(*args):
        return CliRunner().invoke(app, [*args, "--redis", REAL_REDIS_URL])

    res = await asyncio.to_thread(run, "replay", "r1", "--archive", url)
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["source"] == "redis"
    res = await asyncio.to_thread(run, "replay", "g5", "--archive", url)
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["source"] == "archive"
    res = await asyncio.to_thread(run, "export", "g5", "--archive", url)
    assert res.exit_code == 0 and len(res.stdout.splitlines()) == 1 + len(recs["g5"].log)
    res = await asyncio.to_thread(run, "replay", "g5", "--archive", "none")
    assert res.exit_code == 1 and "looked in Redis at" in res.stderr and "archive" not in res.stderr
    res = await asyncio.to_thread(CliRunner().invoke, app, ["replay", "g5", "--redis", "redis://127.0.0.1:9/0",
                                                           "--archive", url])
    assert res.exit_code == 1 and "Redis unreachable at redis://127.0.0.1:9/0" in res.stderr
    await redis.flushdb()
    await redis.aclose()
