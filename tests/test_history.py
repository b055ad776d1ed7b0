"""History (issue 22, item 4): `GET /history` lists the archived games,
newest first, by game, player, strategy and date, a page at a time;
`GET /history/{table}` is one of them (docs/api.md, "History").  On a real
archive (SQLite in the test's directory) filled with real games played to
their end, and once through the service's own archiver."""

from __future__ import annotations

import contextlib
import json

import httpx
import pytest
from fakeredis import FakeServer
from fakeredis.aioredis import FakeRedis

from services.archive.db import Archive
from services.config import Settings
from services.gateway.app import create_app
from tests.archived import played_record
from tests.test_decide_in_gateway import Recorder

DAY = 86_400_000
#: 2026-12-01T00:00:00Z
DEC1 = 1_796_083_200_000


@pytest.fixture
async def archive(tmp_path):
    a = Archive(f"sqlite:///{tmp_path / 'archive.db'}")
    a.migrate()
    yield a
    await a.close()


@contextlib.asynccontextmanager
async def gateway(url: str | None):
    """A gateway over an empty fakeredis, reading the archive at ``url``."""
    settings = Settings(redis_url=None, shards=2, rate_limits=False, archive_url=url)
    app = create_app(settings, FakeRedis(server=FakeServer()), bots=Recorder())
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://tapis") as client:
            yield client


async def test_an_archived_game_is_listed_with_its_players_winners_and_dates(archive):
    rec = played_record("t1", "maumau", [("Ana", None), ("heuristic bot 1", "heuristic"), ("Bo", None)], seed=1,
                        ended_ms=DEC1 + 3_600_000)
    await archive.put(rec)
    async with gateway(archive.url) as gw:
        page = (await gw.get("/history")).json()
        one = (await gw.get("/history/t1")).json()
    assert page["next"] is None and page["items"] == [one]
    s = rec.summary
    assert one == {
        "table": "t1", "game": "maumau", "players": 3, "options": {},
        "seats": [
            {"seat": 0, "name": "Ana", "kind": "human", "strategy": None, "place": s.seats[0].place,
             "score": s.seats[0].score},
            {"seat": 1, "name": "heuristic bot 1", "kind": "bot", "strategy": "heuristic", "place": s.seats[1].place,
             "score": s.seats[1].score},
            {"seat": 2, "name": "Bo", "kind": "human", "strategy": None, "place": s.seats[2].place,
             "score": s.seats[2].score},
        ],
        "winners": list(s.winners), "result": s.result,
        # this seed's game has 130 events, 1 s apart, the last at 01:00:00: the first at 00:57:51,
        # and the table was created 5 s before
        "created": "2026-12-01T00:57:46.000Z", "created_ms": DEC1 + 3_600_000 - 129_000 - 5000,
        "started": "2026-12-01T00:57:51.000Z", "started_ms": DEC1 + 3_600_000 - 129_000,
        "ended": "2026-12-01T01:00:00.000Z", "ended_ms": DEC1 + 3_600_000,
        "events": 130,
    }
    assert len(rec.log) == 130
    assert [x["place"] for x in one["seats"]] == s.result["places"] and one["winners"] == s.result["winners"]


async def fill(archive: Archive) -> dict[str, object]:
    """40 games: 30 with Ana (maumau, every 6 hours from Dec 1; two pairs
    ended in the same ms), 10 without her (toy, with a `first` bot)."""
    ana = []
    for i in range(30):
        ended = DEC1 + (i - i % 2 if i in (10, 11, 20, 21) else i) * 6 * 3_600_000
        rec = played_record(f"a{i:02d}", "maumau", [("Ana", None), (f"random bot {i}", "random"), ("Bo", None)],
                            seed=i, ended_ms=ended)
        await archive.put(rec)
        ana.append(rec.summary)
    others = []
    for i in range(10):
        rec = played_record(f"z{i:02d}", "toy", [("Cy", None), ("first bot 1", "first")], seed=i,
                            ended_ms=DEC1 + i * DAY + 1, options={"target": 4})
        await archive.put(rec)
        others.append(rec.summary)
    return {"ana": ana, "others": others}


def newest_first(summaries) -> list[str]:
    return [s.table for s in sorted(summaries, key=lambda s: (s.ended_ms, s.table), reverse=True)]


async def test_a_players_thirty_games_page_by_seven_each_once_newest_first(archive):
    games = await fill(archive)
    async with gateway(archive.url) as gw:
        seen, pages, url = [], [], "/history?player=Ana&limit=7"
        while url:
            r = await gw.get(url)
            assert r.status_code == 200, r.text
            body = r.json()
            pages.append(len(body["items"]))
            seen += [x["table"] for x in body["items"]]
            assert all(any(s["name"] == "Ana" for s in x["seats"]) for x in body["items"])
            url = f"/history?player=Ana&limit=7&cursor={body['next']}" if body["next"] else None
    assert pages == [7, 7, 7, 7, 2]
    assert seen == newest_first(games["ana"])  # each once, newest first; ties by table id, descending
    assert seen[:2] == ["a29", "a28"] and seen.index("a11") == seen.index("a10") - 1


async def test_filters_by_game_strategy_and_dates_combine(archive):
    games = await fill(archive)
    ana, others = games["ana"], games["others"]

    async def tables(query: str) -> list[str]:
        r = await gw.get("/history?limit=200&" + query)
        assert r.status_code == 200, r.text
        assert r.json()["next"] is None
        return [x["table"] for x in r.json()["items"]]

    async with gateway(archive.url) as gw:
        assert await tables("") == newest_first(ana + others)
        assert await tables("game=toy") == newest_first(others)
        assert await tables("game=") == newest_first(ana + others)  # empty: every game
        assert await tables("strategy=first") == newest_first(others)
        assert await tables("strategy=random&game=maumau") == newest_first(ana)
        assert await tables("player=Cy&strategy=random") == []
        assert await tables("player=Ana&game=toy") == []
        assert await tables("player=%20Ana%20") == newest_first(ana)  # spaces around a name, as at join
        assert await tables("player=ana") == []  # names are exact
        # Dec 3 (a date includes its whole day): Ana's games 8..11 ended 00:00, 06:00, 12:00 (two), toy's z02
        dec3 = [s for s in ana + others if DEC1 + 2 * DAY <= s.ended_ms < DEC1 + 3 * DAY]
        assert {s.table for s in dec3} == {"a08", "a09", "a10", "a11", "z02"}
        assert await tables("since=2026-12-03&until=2026-12-03") == newest_first(dec3)
        # datetimes: both ends included, offsets read, no offset is UTC
        assert await tables("since=2026-12-03T06:00:00Z&until=2026-12-03T12:00:00Z") == ["a11", "a10", "a09"]
        assert await tables("since=2026-12-03T07:00:00%2B01:00&until=2026-12-03T12:00") == ["a11", "a10", "a09"]
        assert await tables("since=2026-12-08T00:00:00.001Z") == newest_first(
            [s for s in ana + others if s.ended_ms > DEC1 + 7 * DAY])
        assert await tables("until=2026-11-30") == []
        assert await tables("game=toy&since=2026-12-05&until=2026-12-06") == ["z05", "z04"]


@pytest.mark.parametrize(("query", "code", "field"), [
    ("since=yesterday", "invalid_request", "since"),
    ("until=2026-13-01", "invalid_request", "until"),
    ("since=2026-12-01T25:00", "invalid_request", "since"),
    ("since=1969-12-31", "invalid_request", "since"),
    ("since=2026-12-02&until=2026-12-01", "invalid_request", "since"),
    ("cursor=not-a-cursor", "invalid_request", "cursor"),
    ("cursor=MTIzOg", "invalid_request", "cursor"),  # base64 of "123:" (no table)
    ("limit=0", "invalid_request", "limit"),
    ("limit=201", "invalid_request", "limit"),
    ("limit=x", "invalid_request", "limit"),
    ("strategy=a%20b", "invalid_request", "strategy"),
    ("game=chess", "unknown_game", None),
])
async def test_bad_queries_are_422_with_a_stable_code_naming_the_parameter(archive, query, code, field):
    async with gateway(archive.url) as gw:
        r = await gw.get("/history?" + query)
    assert r.status_code == 422, r.text
    assert r.headers["content-type"] == "application/problem+json"
    body = r.json()
    assert body["code"] == code
    if field is not None:
        assert [e["loc"] for e in body["errors"]] == [["query", field]]


async def test_an_unknown_game_is_404_no_such_game(archive):
    await archive.put(played_record("t1", "toy", [("Cy", None)], seed=1, ended_ms=DEC1, options={"target": 3}))
    async with gateway(archive.url) as gw:
        for path in ("/history/nope", "/history/t1x", "/history/a%20b", "/history/" + "x" * 65):
            r = await gw.get(path)
            assert r.status_code == 404 and r.json()["code"] == "no_such_game", (path, r.text)
        assert (await gw.get("/history/t1")).status_code == 200


async def test_without_an_archive_the_history_is_empty_and_every_game_404():
    async with gateway(None) as gw:
        assert (await gw.get("/history")).json() == {"items": [], "next": None}
        assert (await gw.get("/history?player=Ana&since=2026-12-01")).json() == {"items": [], "next": None}
        assert (await gw.get("/history?since=nope")).status_code == 422  # the query is still checked
        r = await gw.get("/history/t1")
        assert r.status_code == 404 and r.json()["code"] == "no_such_game"
        assert "TAPIS_ARCHIVE_URL" in r.json()["detail"]


async def test_an_archive_down_is_503_archive_unavailable():
    async with gateway("postgresql://tapis@127.0.0.1:9/none") as gw:  # nothing listens on port 9
        for path in ("/history", "/history?player=Ana", "/history/t1"):
            r = await gw.get(path)
            assert r.status_code == 503, r.text
            assert r.json()["code"] == "archive_unavailable"
            assert "127.0.0.1" not in r.text and "tapis@" not in r.text  # the database's address stays inside


async def test_no_answer_holds_a_token_hash_the_meta_or_the_log(archive):
    recs = [played_record(f"s{i}", "toy", [("Cy", None), ("Di", None)], seed=i, ended_ms=DEC1 + i,
                          options={"target": 4}) for i in range(3)]
    for rec in recs:
        await archive.put(rec)
    secrets = [v[4:] for rec in recs for k, v in rec.meta.items() if v.startswith("tok:")] + [r.digest for r in recs]
    assert len(secrets) == 9
    async with gateway(archive.url) as gw:
        bodies = [(await gw.get(p)).text for p in ("/history", "/history?player=Cy", "/history/s0", "/history/s2")]
    for body in bodies:
        assert "tok:" not in body and not any(h in body for h in secrets)
        assert "GameStarted" not in body and "secrets" not in body  # no event of the log
        for key in ("meta", "log", "digest", "seat:0", "turn_ms"):
            assert f'"{key}"' not in body
    assert json.loads(bodies[2])["seats"][0] == {"seat": 0, "name": "Cy", "kind": "human", "strategy": None,
                                                  "place": recs[0].summary.seats[0].place,
                                                  "score": recs[0].summary.seats[0].score}


async def test_a_table_the_archiver_moved_leaves_the_lobby_for_the_history(redis_client, tmp_path):
    """Through the service: a toy table played by two people, archived by a
    worker's sweep, is gone from `GET /tables?status=finished` and listed
    by `GET /history` with the names given at join."""
    from services.worker.worker import Worker
    from tests.test_archiver import AFTER_S, finished_toy_table
    from tests.test_archiver import gateway as archiver_gateway
    from tests.test_archiver import settings as archiver_settings

    url = f"sqlite:///{tmp_path / 'archive.db'}"
    Archive(url).migrate()
    async with archiver_gateway(redis_client, url) as gw:
        table, _tokens, last_ts = await finished_toy_table(gw)
        assert [t["id"] for t in (await gw.get("/tables?status=finished")).json()] == [table]
        assert (await gw.get("/history")).json() == {"items": [], "next": None}
        info = (await gw.get(f"/tables/{table}")).json()
        worker = Worker(redis_client, archiver_settings(url), bots=Recorder(), clock=lambda: last_ts + AFTER_S * 1000)
        assert await worker.sweep_once(now_ms=last_ts + AFTER_S * 1000) == 1
        assert (await gw.get("/tables?status=finished")).json() == []
        page = (await gw.get("/history?player=p1")).json()
        one = (await gw.get(f"/history/{table}")).json()
    assert page == {"items": [one], "next": None}
    assert one["table"] == table and one["game"] == "toy" and one["ended_ms"] == last_ts
    assert [(s["name"], s["kind"]) for s in one["seats"]] == [("p0", "human"), ("p1", "human")]
    assert one["result"] == info["result"] and one["events"] == info["version"]
    assert one["created_ms"] == info["created"]


async def test_the_history_routes_are_documented_under_their_tag(archive):
    async with gateway(archive.url) as gw:
        spec = (await gw.get("/openapi.json")).json()
    assert {"name": "history", "description": spec["tags"][2]["description"]} in spec["tags"]
    for path in ("/history", "/history/{table}"):
        op = spec["paths"][path]["get"]
        assert op["tags"] == ["history"] and op["summary"] and len(op["description"]) > 80
        assert "archive_unavailable" in op["responses"]["503"]["description"]
    params = {p["name"]: p for p in spec["paths"]["/history"]["get"]["parameters"]}
    assert set(params) == {"game", "player", "strategy", "since", "until", "limit", "cursor"}
    assert all(p.get("description") for p in params.values())
    assert "no_such_game" in spec["paths"]["/history/{table}"]["get"]["responses"]["404"]["description"]
