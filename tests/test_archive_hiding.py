"""Hidden information on archived tables (issue 22): the property of
tests/games/test_hidden_information.py, through the API, for tables read
back from the archive.

Over seeded random games of the five games (``HIDDEN_GAMES`` per game and
player count), each put in Redis as a finished table of people, archived
by the archiver and read by a gateway that never saw it live: for every
seat and the spectator, ``/events`` and ``/view`` answer the same bytes as
before the archiving, and no event of a seat's feed shows a code that seat
could not see just after it (each game's ``secrets()``), nor its final view
a code hidden from it at the end."""

from __future__ import annotations

import hashlib
import random
import uuid

import pytest

from services.store.store import EventStore
from services.worker.worker import Worker
from shared.engine import fold, play
from tests.games.test_hidden_information import CASES
from tests.invariants import HIDDEN_GAMES, strings_in
from tests.test_archiver import Recorder, auth, gateway, settings

#: Player counts checked per game (the property test's smallest and largest).
COUNTS = {name: (counts[0], counts[-1]) for name, _g, _s, counts in CASES}


async def finished_table(redis, game, players: int, seed: int) -> tuple[str, list[str], list]:
    """A random game of ``game`` put in Redis as a finished table whose seats
    are people: (table id, seat tokens, its events)."""
    played = play(game, ["random"] * players, random.Random(seed), codec=True)
    events = [e.__class__(e.type, e.data, e.seat, 1_790_000_000_000 + i, f"c{i}") for i, e in enumerate(played.events)]
    store = EventStore(redis)
    table = uuid.uuid4().hex[:12]
    await store.create(table, game=game.name, players=players, options={}, bots={}, names={})
    tokens = [f"token-{table}-{s}" for s in range(players)]
    for s, tok in enumerate(tokens):
        assert (await store.join(table, s, hashlib.sha256(tok.encode()).hexdigest(), f"p{s}"))[0] == "ok"
    assert (await store.append(table, 0, "all", events, status="playing")).status == "ok"
    await store.set_status(table, "finished", events[-1].ts)
    return table, tokens, events


async def answers(gw, table: str, tokens: list[str]) -> dict:
    """``/events`` and ``/view`` of every seat and the spectator, as bytes."""
    out = {}
    for who, headers in [(None, {})] + [(s, auth(t)) for s, t in enumerate(tokens)]:
        out[who] = ((await gw.get(f"/tables/{table}/events?limit=5000", headers=headers)).content,
                    (await gw.get(f"/tables/{table}/view", headers=headers)).content)
    return out


@pytest.mark.parametrize("name,game,secrets,players", [
    pytest.param(name, g, s, n, id=f"{name}-{n}p") for name, g, s, counts in CASES for n in COUNTS[name]])
async def test_an_archived_table_shows_no_seat_a_card_hidden_from_it(redis_client, tmp_path, name, game, secrets,
                                                                      players):
    import json

    url = f"sqlite:///{tmp_path / 'archive.db'}"
    for seed in range(HIDDEN_GAMES):
        async with gateway(redis_client, url) as live:
            table, tokens, events = await finished_table(redis_client, game, players, 21_000 + 100 * players + seed)
            before = await answers(live, table, tokens)
        worker = Worker(redis_client, settings(url), bots=Recorder())
        assert await worker.archiver.archive_now(table) == "archived"
        assert await redis_client.exists(f"tapis:{{p0}}:{table}:meta") == 0
        async with gateway(redis_client, url) as fresh:
            after = await answers(fresh, table, tokens)
        assert after == before
        sec = secrets()
        feeds = {who: {e["version"]: e for e in json.loads(body)["events"]} for who, (body, _v) in after.items()}
        st = None
        checked = 0
        for version, e in enumerate(events, 1):
            st = fold(game, [e], st)
            sec.learn(st, [e])
            for who, feed in feeds.items():
                bad = sec.feed_secret(st, who)
                if bad and version in feed:
                    checked += 1
                    leaked = bad.intersection(strings_in(feed[version]["data"]))
                    assert not leaked, f"{e.type} v{version} shows seat {who} hidden {sorted(leaked)}"
        for who, (_body, view) in after.items():
            # the game's view (the answer's own keys, e.g. "table", are no cards or words)
            leaked = sec.secret(st, who).intersection(strings_in(json.loads(view)["view"]))
            assert not leaked, f"the final view of seat {who} shows hidden {sorted(leaked)}"
        assert checked, "nothing was ever secret: the property checked nothing"
