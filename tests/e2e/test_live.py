"""End-to-end: the distributed set-up as real processes on the real Redis.

One ``tapis gateway``, two ``tapis worker`` and one ``tapis bots --pool
threads`` process (fixture ``live``, database 14) serve every test of this
module through HTTP (httpx).  Checks read the store directly: a table's log
is the stream ``tapis:{T}:events`` whose entry ids are ``<version>-0``.

Sizes: ``TAPIS_E2E_GAMES`` all-bot tables per game in
:func:`test_every_game_plays_an_all_bot_table_to_the_end` (default 1).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time

import httpx
import pytest

from shared.engine import fold
from shared.games import get_game
from tests.e2e import procs
from tests.e2e.client import (
    BOT_COMMAND,
    DECK,
    START_COMMAND,
    Api,
    applied_range,
    assert_log_contiguous,
    assert_problem,
    keep_jacks_policy,
    log_state,
    meta_key,
    rank,
    seat_command_id,
)

pytestmark = pytest.mark.redis

GAMES_PER_KIND = int(os.environ.get("TAPIS_E2E_GAMES", "1"))


def turn_actions(seat_view: dict) -> list[dict]:
    """The legal actions of a seat view, call-outs left out."""
    return [a for a in seat_view["legal_actions"] if a["type"] != "callout"]


def _both_tokens(api: Api, table: str) -> dict[int, str]:
    joined = [api.join(table), api.join(table)]
    assert sorted(j["seat"] for j in joined) == [0, 1]
    assert [j["status"] for j in joined] == ["waiting", "playing"]
    return {j["seat"]: j["token"] for j in joined}


# -- 1. a person plays a seat beside two bots --------------------------------

@pytest.mark.timeout(120)
def test_person_plays_maumau_beside_two_bots_and_replay_agrees(live):
    api = Api(live.http)
    info = api.create("maumau", 3, bots={1: "heuristic", 2: "random"})
    table = info["id"]
    assert info["status"] == "waiting" and info["version"] == 0
    assert [(s["kind"], s.get("strategy")) for s in info["seats"]] == [("free", None), ("bot", "heuristic"), ("bot", "random")]
    joined = api.join(table)
    assert (joined["seat"], joined["status"]) == (0, "playing")
    token = joined["token"]
    api.wait_started(table, token)

    rng = random.Random(20240601)
    applied: dict[str, tuple[int, int]] = {}  # command id -> (version before, version after)
    stale = sent = 0
    deadline = time.monotonic() + 90
    while True:
        assert time.monotonic() < deadline, f"the game did not end in time\n{live.logs()}"
        sv = api.view(table, token)
        if sv["status"] == "finished":
            break
        assert sv["seat"] == 0 and sv["view"]["hand"] is not None
        if not sv["legal_actions"]:
            time.sleep(0.005)
            continue
        action = rng.choice(sv["legal_actions"])
        cid = f"person-{sent}"
        sent += 1
        resp = api.act(table, token, action, expected=sv["version"], command_id=cid)
        if resp.status_code == 409 and resp.json()["code"] == "stale_version":
            stale += 1  # a bot called out meanwhile: read the view again
            continue
        assert resp.status_code == 200, f"{action} at v{sv['version']} refused: {resp.text}"
        body = resp.json()
        assert body["version"] > sv["version"]
        assert body["events"], body
        assert all(e["cmd"] == seat_command_id(0, cid) for e in body["events"])
        assert [e["version"] for e in body["events"]] == list(range(sv["version"] + 1, body["version"] + 1))
        applied[seat_command_id(0, cid)] = (sv["version"], body["version"])

    assert len(applied) >= 5, f"the person applied only {len(applied)} actions"
    final = api.table(table)
    result = final["result"]
    assert final["status"] == "finished" and result is not None
    assert live.redis.hget(meta_key(table), "status") == b"finished"
    assert len(result["scores"]) == 3 and min(result["places"]) == 1 and result["lower_wins"] is True
    assert max(result["scores"]) >= 100  # default target_score: the game ends once a total reaches it

    # The log: contiguous versions; who caused what.
    log = assert_log_contiguous(live.redis, table)
    assert len(log) == final["version"]
    causes = {e.cmd for _v, e in log}
    assert {c for c in causes if c.startswith("u0.")} == set(applied)
    bot_cmds = {c for c in causes if BOT_COMMAND.fullmatch(c)}
    assert causes == set(applied) | bot_cmds | {START_COMMAND}
    assert {int(BOT_COMMAND.fullmatch(c)["seat"]) for c in bot_cmds} == {1, 2}
    for v, e in log:  # a bot's command id names the version it was woken for
        if e.cmd in bot_cmds:
            assert int(BOT_COMMAND.fullmatch(e.cmd)["version"]) < v, (v, e)
    for cid, (before, after) in applied.items():
        assert applied_range(live.redis, table, cid) == (before + 1, after)
        assert [v for v, e in log if e.cmd == cid] == list(range(before + 1, after + 1))

    # `tapis replay` folds the whole log and prints what the API served.
    done = procs.run_tapis(["replay", table, "--redis", procs.REDIS_URL])
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert (out["table"], out["game"], out["status"], out["version"]) == (table, "maumau", "finished", final["version"])
    assert out["result"]["scores"] == result["scores"]
    assert out["result"]["places"] == result["places"]
    assert out["result"] == result
    if final["version"] >= 128:  # a worker snapshots every 64 events (TAPIS_SNAPSHOT_EVERY)
        assert out["snapshot"]["matches_replay"] is True

    # The bots' moves decided by both worker processes, the person's by the gateway (TAPIS_DECIDE_IN_GATEWAY,
    # the default), bot turns in the bots process.
    applied_by = [procs.metric(procs.scrape(p), "tapis_actions_applied_total", game="maumau") for p in live.worker_metrics]
    assert all(n > 0 for n in applied_by), f"applied per worker: {applied_by}"
    by_gateway = procs.metric(procs.scrape(live.gateway_port), "tapis_actions_applied_total", game="maumau")
    assert by_gateway >= len(applied)
    assert sum(applied_by) + by_gateway >= len(applied) + len(bot_cmds)
    bot_turns = procs.metric(procs.scrape(live.bots_metrics), "tapis_bot_turns_total", game="maumau", outcome="submitted")
    assert bot_turns >= len(bot_cmds)
    print(f"person: {len(applied)} actions applied, {stale} stale views; bots: {len(bot_cmds)} moves; "
          f"{final['version']} events; applied per worker {applied_by}")


# -- 2. bad input ------------------------------------------------------------

@pytest.mark.timeout(120)
def test_bad_input_gets_a_stable_code_and_changes_nothing(live):
    api, r, http = Api(live.http), live.redis, live.http
    table = api.create("maumau", 2, options={"hand_size": 15})["id"]
    tokens = _both_tokens(api, table)
    api.wait_started(table, tokens[0])
    n = 0

    def rejected() -> dict[str, float]:
        """Mau Mau refusals counted by the deciders (the gateway, which decides people's actions by default,
        and the two workers), by reason."""
        out: dict[str, float] = {}
        for port in [live.gateway_port, *live.worker_metrics]:
            for (name, labels), value in procs.scrape(port).items():
                if name == "tapis_actions_rejected_total" and dict(labels).get("game") == "maumau":
                    out[dict(labels)["reason"]] = out.get(dict(labels)["reason"], 0) + value
        return out

    def refused(send, status: int, code: str, *, reaches_worker: bool) -> dict:
        """Send one bad request; assert the problem and that nothing changed."""
        nonlocal n
        n += 1
        cid = f"bad-{n}"
        before, counted = log_state(r, http, table), rejected()
        body = assert_problem(send(cid), status, code)
        after, counted_after = log_state(r, http, table), rejected()
        assert (after.meta_version, after.served_version) == (before.meta_version, before.served_version)
        assert after.entries == before.entries
        if reaches_worker:  # refused by the rules (in the gateway or a worker): counted once, under its code
            assert counted_after == {**counted, code: counted.get(code, 0) + 1}
        else:  # refused at the gateway's door: never decided
            assert counted_after == counted
        assert all(applied_range(r, table, seat_command_id(s, cid)) is None for s in (0, 1))
        return body

    sv = api.view(table, tokens[0])
    turn = sv["view"]["turn"]
    other = 1 - turn
    version = sv["version"]
    legal = turn_actions(api.view(table, tokens[turn]))

    refused(lambda c: api.act(table, tokens[other], {"type": "draw"}, command_id=c), 409, "not_your_turn",
            reaches_worker=True)
    refused(lambda c: api.act(table, tokens[turn], legal[0], expected=version - 1, command_id=c), 409,
            "stale_version", reaches_worker=True)
    refused(lambda c: http.post(f"/tables/{table}/actions", content=b'{"action": {"type": "draw"}, "command_id": "x',
                                headers={"Authorization": f"Bearer {tokens[turn]}", "content-type": "application/json"}),
            400, "malformed_json", reaches_worker=False)
    refused(lambda c: api.act(table, "not-a-seat-token", legal[0], command_id=c), 403, "bad_token",
            reaches_worker=False)
    body = refused(lambda c: api.act(table, None, legal[0], command_id=c), 401, "missing_token", reaches_worker=False)
    assert body["status"] == 401
    resp = http.post(f"/tables/{table}/actions", json={"action": legal[0]}, headers={"Authorization": "Basic eDp5"})
    assert_problem(resp, 401, "missing_token")
    assert resp.headers["www-authenticate"] == "Bearer"
    refused(lambda c: api.act("nosuchtable42", tokens[turn], legal[0], command_id=c), 404, "table_not_found",
            reaches_worker=False)
    assert_problem(http.get("/tables/nosuchtable42"), 404, "table_not_found")
    assert_problem(http.post("/tables/nosuchtable42/join", json={}), 404, "table_not_found")
    assert r.exists(meta_key("nosuchtable42")) == 0

    def tables_stored() -> tuple[int, int]:
        return r.zcard("tapis:lobby"), sum(1 for _k in r.scan_iter(match="tapis:{p*}:*:meta", count=1000))

    before = tables_stored()
    assert_problem(http.post("/tables", json={"game": "chess", "players": 2}), 422, "unknown_game")
    assert tables_stored() == before

    # The game's own refusals need the right hand: play on (keeping Jacks)
    # until each situation has come up on the seat to play.
    rng = random.Random(7)
    needed = {"card_not_in_hand", "card_does_not_match", "suit_wish_required", "has_playable_card"}
    for _step in range(600):
        if not needed:
            break
        turn = api.view(table, tokens[0])["view"]["turn"]
        assert turn is not None, "the game ended before every refusal was seen"
        sv = api.view(table, tokens[turn])
        view, legal = sv["view"], sv["legal_actions"]
        if view["phase"] == "play" and view["penalty"] == 0:
            hand = view["hand"]
            playable = {a["card"] for a in legal if a["type"] == "play"}
            tok = tokens[turn]
            if "card_not_in_hand" in needed:
                absent = next(c for c in DECK if c not in hand)
                refused(lambda c, tok=tok, card=absent: api.act(table, tok, {"type": "play", "card": card}, command_id=c), 422,
                        "card_not_in_hand", reaches_worker=True)
                needed.discard("card_not_in_hand")
            unmatched = [c for c in hand if rank(c) != "J" and c not in playable]
            if "card_does_not_match" in needed and unmatched:
                refused(lambda c, tok=tok, card=unmatched[0]: api.act(table, tok, {"type": "play", "card": card},
                                                                       command_id=c), 422,
                        "card_does_not_match", reaches_worker=True)
                needed.discard("card_does_not_match")
            jacks = [c for c in hand if rank(c) == "J"]
            # (no open window: a Jack closing an empty-handed offender's window needs no suit)
            if "suit_wish_required" in needed and jacks and view["callout"] is None:
                refused(lambda c, tok=tok, card=jacks[0]: api.act(table, tok, {"type": "play", "card": card}, command_id=c), 422,
                        "suit_wish_required", reaches_worker=True)
                needed.discard("suit_wish_required")
            if "has_playable_card" in needed and playable:
                refused(lambda c, tok=tok: api.act(table, tok, {"type": "draw"}, command_id=c), 422, "has_playable_card",
                        reaches_worker=True)
                needed.discard("has_playable_card")
        action = keep_jacks_policy(view, legal, rng)
        resp = api.act(table, tokens[turn], action, expected=sv["version"])
        assert resp.status_code == 200, resp.text
    assert not needed, f"situations never met: {needed}"
    # The refused commands' ids never appear in the log.
    log = assert_log_contiguous(r, table)
    assert not [v for v, e in log if ".bad-" in (e.cmd or "")]


# -- 3. idempotency and concurrency ------------------------------------------

async def _post_all(url: str, table: str, bodies: list[dict], token: str) -> list[httpx.Response]:
    limits = httpx.Limits(max_connections=len(bodies))
    async with httpx.AsyncClient(base_url=url, timeout=20, limits=limits) as client:
        headers = {"Authorization": f"Bearer {token}"}
        resps = list(await asyncio.gather(
            *(client.post(f"/tables/{table}/actions", json=b, headers=headers) for b in bodies)))
        # A polite client: a 429 applied nothing, so the same body (same
        # command id) is sent again after its Retry-After.
        for i, resp in enumerate(resps):
            for _ in range(5):
                if resp.status_code != 429:
                    break
                await asyncio.sleep(float(resp.headers.get("Retry-After", "1")))
                resp = await client.post(f"/tables/{table}/actions", json=bodies[i], headers=headers)
            resps[i] = resp
        return resps


@pytest.mark.timeout(60)
def test_same_command_id_is_applied_once(live):
    api, r = Api(live.http), live.redis
    table = api.create("maumau", 2)["id"]
    tokens = _both_tokens(api, table)
    api.wait_started(table, tokens[0])

    # Sent twice, one after the other.
    turn = api.view(table, tokens[0])["view"]["turn"]
    sv = api.view(table, tokens[turn])
    first = api.act(table, tokens[turn], turn_actions(sv)[0], command_id="once-1")
    assert first.status_code == 200, first.text
    again = api.act(table, tokens[turn], turn_actions(sv)[0], command_id="once-1")
    assert again.status_code == 200, again.text
    assert again.json() == first.json()
    v1 = first.json()["version"]
    assert api.table(table)["version"] == v1
    log = assert_log_contiguous(r, table)
    assert [v for v, e in log if e.cmd == seat_command_id(turn, "once-1")] == list(range(sv["version"] + 1, v1 + 1))
    # The same id with another action is refused, and changes nothing.
    other = next((a for a in turn_actions(api.view(table, tokens[turn])) if a != turn_actions(sv)[0]), None)
    if other is not None:
        assert_problem(api.act(table, tokens[turn], other, command_id="once-1"), 422, "idempotency_mismatch")
        assert assert_log_contiguous(r, table) == log

    # Sent six times at once (the gateway puts six commands on the stream;
    # the two workers race on them).
    turn = api.view(table, tokens[0])["view"]["turn"]
    sv = api.view(table, tokens[turn])
    before = len(assert_log_contiguous(r, table))
    bodies = [{"action": turn_actions(sv)[0], "command_id": "once-2"}] * 6
    resps = asyncio.run(_post_all(live.url, table, bodies, tokens[turn]))
    assert [x.status_code for x in resps] == [200] * 6, [x.text for x in resps]
    assert len({x.json()["version"] for x in resps}) == 1
    v2 = resps[0].json()["version"]
    log = assert_log_contiguous(r, table)
    stored = seat_command_id(turn, "once-2")
    assert [v for v, e in log if e.cmd == stored] == list(range(before + 1, v2 + 1)) and len(log) == v2
    assert applied_range(r, table, stored) == (before + 1, v2)


@pytest.mark.timeout(60)
def test_same_command_id_is_applied_once_while_its_action_stays_legal(live):
    """In DIX a player flips again and again: a repeated ``flip`` would be
    legal, so only the command id (the append script's record) stops a
    second application.  Four copies race each time; the test goes on until
    the action was seen to stay legal at least twice."""
    api, r = Api(live.http), live.redis
    table = api.create("dix", 1)["id"]
    token = api.join(table)["token"]
    api.wait_started(table, token)
    rng = random.Random(11)
    still_legal = flips = 0
    for step in range(300):
        sv = api.view(table, token)
        if sv["status"] == "finished" or still_legal >= 2:
            break
        flip = {"type": "flip"}
        if flip not in sv["legal_actions"]:
            resp = api.act(table, token, rng.choice(sv["legal_actions"]), expected=sv["version"])
            assert resp.status_code == 200, resp.text
            continue
        cid = f"flip-{step}"
        time.sleep(0.25)  # four actions a step: mostly under the seat's 20 actions a second (_post_all retries a 429)
        resps = asyncio.run(_post_all(live.url, table, [{"action": flip, "command_id": cid}] * 4, token))
        assert [x.status_code for x in resps] == [200] * 4, [x.text for x in resps]
        assert all(x.json() == resps[0].json() for x in resps)
        after = resps[0].json()["version"]
        log = assert_log_contiguous(r, table)
        stored = seat_command_id(0, cid)
        assert [v for v, e in log if e.cmd == stored] == list(range(sv["version"] + 1, after + 1))
        assert len(log) == after and applied_range(r, table, stored) == (sv["version"] + 1, after)
        flips += 1
        if flip in api.view(table, token)["legal_actions"]:
            still_legal += 1
    assert still_legal >= 1, f"{flips} flips, none left flip legal: the race never tested the id record"


@pytest.mark.timeout(60)
def test_twenty_concurrent_actions_at_one_version_apply_exactly_one(live):
    api, r = Api(live.http), live.redis
    table = api.create("maumau", 2, options={"hand_size": 7})["id"]
    tokens = _both_tokens(api, table)
    api.wait_started(table, tokens[0])
    turn = api.view(table, tokens[0])["view"]["turn"]
    sv = api.view(table, tokens[turn])
    version, legal = sv["version"], turn_actions(sv)
    bodies = [{"action": legal[i % len(legal)], "expected_version": version, "command_id": f"race-{i}"}
              for i in range(20)]
    resps = asyncio.run(_post_all(live.url, table, bodies, tokens[turn]))

    winners = [i for i, x in enumerate(resps) if x.status_code == 200]
    assert len(winners) == 1, [(x.status_code, x.text) for x in resps]
    for i, x in enumerate(resps):
        if i not in winners:
            assert_problem(x, 409, "stale_version")
    won = resps[winners[0]].json()
    log = assert_log_contiguous(r, table)
    assert len(log) == won["version"] == api.table(table)["version"]
    assert [v for v, e in log if ".race-" in (e.cmd or "")] == list(range(version + 1, won["version"] + 1))
    assert {e.cmd for v, e in log if v > version} == {seat_command_id(turn, f"race-{winners[0]}")}
    for i in range(20):
        expected = (version + 1, won["version"]) if i in winners else None
        assert applied_range(r, table, seat_command_id(turn, f"race-{i}")) == expected


# -- 5. every game, all bots -------------------------------------------------

LINE_UPS = {
    "maumau": (3, ["heuristic", "random", "random"], {}),
    "maudix": (3, ["heuristic", "random", "random"], {}),
    "dix": (2, ["heuristic", "random"], {}),
    "mauw": (2, ["heuristic", "random"], {}),
    "maudit_mot_dit": (3, ["heuristic", "random", "random"], {}),
}


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_every_game_plays_an_all_bot_table_to_the_end(live):
    api, r = Api(live.http), live.redis
    started = time.monotonic()
    tables: dict[str, str] = {}
    for game, (players, line_up, options) in LINE_UPS.items():
        for k in range(GAMES_PER_KIND):
            info = api.create(game, players, bots=dict(enumerate(line_up)), options=options)
            assert info["status"] in ("waiting", "playing")  # the start command may still be on its way
            tables[info["id"]] = game
    try:
        infos = api.wait_finished(list(tables), timeout_s=150)
    except AssertionError as exc:
        stuck = [t for t in tables if api.table(t)["status"] != "finished"]
        raise AssertionError(f"{exc}\n" + "\n".join(live.diagnose(t) for t in stuck)) from None
    elapsed = time.monotonic() - started
    for table, game in tables.items():
        info = infos[table]
        players = LINE_UPS[game][0]
        assert info["game"] == game and info["status"] == "finished"
        assert len(info["result"]["scores"]) == players and 1 in info["result"]["places"]
        log = assert_log_contiguous(r, table)
        assert len(log) == info["version"] > 1
        assert all(e.cmd == START_COMMAND or BOT_COMMAND.fullmatch(e.cmd or "") for _v, e in log)
        # Replaying the raw log gives the result the API served.
        g = get_game(game)
        assert g.result(fold(g, [e for _v, e in log])).to_json() == info["result"]
        assert r.hget(meta_key(table), "status") == b"finished"
    print(f"{len(tables)} all-bot tables of 5 games finished in {elapsed:.1f} s")


# -- the set-up survived -------------------------------------------------------

def test_every_process_is_still_up_and_logged_no_crash(live):
    for p in live.all:
        assert p.alive(), p.tail()
    for p in [live.gateway, *live.workers]:
        assert "Traceback" not in p.log_text(), p.tail(80)
    assert r_pending(live) == 0
    assert live.redis.xlen("tapis:deadletters") == 0


def r_pending(live) -> int:
    """Commands read by a worker and not acked, over the 4 shards."""
    return sum(live.redis.xpending(f"tapis:commands:{s}", "workers")["pending"] for s in range(4))
