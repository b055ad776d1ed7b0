"""A gateway that decides actions itself (``TAPIS_DECIDE_IN_GATEWAY=1``)
SIGKILLed between its append and the bot enqueue, on real processes over
a real Redis (the chaos harness's :class:`~tests.e2e.chaos_lib.Cluster`:
its own ``redis-server`` with an append-only file, a gateway, one worker,
``tapis bots``; ports 19300-19399).

A person plays seat 0 of a two-seat Mau Mau table against a heuristic
bot. The gateway is restarted with ``TAPIS_CHAOS_KILL_AFTER_APPEND=1``:
its first append that hands the turn to the bot kills it, after the
append, before the bot turn is enqueued and before the person gets an
answer. Then:

* the person's action is in the log exactly once (its command id's
  events, one contiguous run), decided by the gateway (no worker ever
  replied to a gateway: no reply stream exists);
* resending the same command id to the restarted gateway answers 200
  with the version of that append (from the command's record), applying
  nothing more;
* the bot's turn, never enqueued, is re-driven by the worker's sweeper
  (the due entry the append wrote), the bot plays, and the table
  finishes with a replay equal to what the gateway serves.
"""

from __future__ import annotations

import signal
import time

import httpx
import pytest

from shared.engine import fold
from shared.games import get_game
from tests.e2e import chaos_lib, procs
from tests.e2e.client import BOT_COMMAND, applied_range, assert_log_contiguous, raw_events

pytestmark = [pytest.mark.timeout(240),
              pytest.mark.skipif(not procs.redis_server_installed(), reason=f"no redis-server at {procs.REDIS_SERVER}")]


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def person_turn(http: httpx.Client, table: str, token: str, timeout_s: float = 30) -> dict:
    """The person's view once seat 0 must act (or the game is over)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        v = http.get(f"/tables/{table}/view", headers=auth(token)).json()
        if v["status"] == "finished" or 0 in v["must_act"]:
            return v
        time.sleep(0.05)
    raise AssertionError("seat 0 was never awaited")


def play(view: dict) -> dict:
    """A move of the person: a card when one fits, else the draw (no call-out)."""
    return next(a for a in view["legal_actions"] if a["type"] != "callout")


def test_a_gateway_killed_after_its_append_answers_the_retry_once_and_the_bot_turn_is_redriven(tmp_path, monkeypatch):
    monkeypatch.setattr(procs, "PORTS", range(19300, 19400))  # this test's own ports
    cluster = chaos_lib.Cluster(tmp_path, workers=1, env={"TAPIS_DECIDE_IN_GATEWAY": "1"}, say=lambda _m: None)
    try:
        cluster.start()
        with httpx.Client(base_url=cluster.url, timeout=30) as http:
            table = http.post("/tables", json={"game": "maumau", "players": 2, "bots": {"1": "heuristic"},
                                               "options": {"target_score": 15}}).json()["id"]
            token = http.post(f"/tables/{table}/join", json={"name": "Ada"}).json()["token"]
            procs.wait_until(lambda: http.get(f"/tables/{table}").json()["status"] == "playing", 20, "the start")

            cluster.kill("gateway")
            hooked = cluster.spawn("gateway", {"TAPIS_CHAOS_KILL_AFTER_APPEND": "1"})
            procs.wait_gateway(cluster.url, hooked)
            # The person acts until one of their moves hands the turn to the bot (most do; an 8 or a
            # 7 stack may keep it): that append kills the gateway before it enqueues the bot or answers.
            cid = None
            for i in range(40):
                v = person_turn(http, table, token)
                assert v["status"] == "playing"
                try:
                    r = http.post(f"/tables/{table}/actions", headers=auth(token),
                                  json={"action": play(v), "command_id": f"k{i}"})
                except httpx.TransportError:
                    cid, action = f"k{i}", play(v)
                    break
                assert r.status_code == 200, r.text
            assert cid is not None, "no move handed the turn to the bot"
            assert hooked.popen.wait(30) == -signal.SIGKILL
            assert "chaos hook" in hooked.log_text()
            applied = applied_range(cluster.r, table, f"u0.{cid}")
            assert applied is not None, "the killed gateway's append is not in the log"

            fresh = cluster.spawn("gateway")
            procs.wait_gateway(cluster.url, fresh)
            again = http.post(f"/tables/{table}/actions", headers=auth(token),
                              json={"action": action, "command_id": cid})
            assert again.status_code == 200, again.text
            assert again.json()["version"] == applied[1]  # answered from the record: nothing applied again

            # the bot turn, never enqueued, is re-driven by the sweeper; the person plays on to the end
            deadline = time.monotonic() + 150
            while time.monotonic() < deadline:
                v = person_turn(http, table, token, timeout_s=60)
                if v["status"] == "finished":
                    break
                r = http.post(f"/tables/{table}/actions", headers=auth(token),
                              json={"action": play(v), "expected_version": v["version"],
                                    "command_id": f"m{v['version']}"})
                assert r.status_code in (200, 409), r.text
            assert v["status"] == "finished", chaos_lib.diagnose(cluster, table)

        events = [e for _v, e in assert_log_contiguous(cluster.r, table)]
        mine = [i for i, e in enumerate(events) if e.cmd == f"u0.{cid}"]
        assert mine == list(range(applied[0] - 1, applied[1])), (mine, applied)  # once, one contiguous run
        assert any(BOT_COMMAND.fullmatch(e.cmd or "") for e in events[applied[1]:]), "the bot never played after"
        # people's actions were decided in the gateway: no worker ever replied to a gateway
        assert cluster.r.keys("tapis:replies:*") == []
        game = get_game("maumau")
        result = game.result(fold(game, events))
        assert result is not None and max(result.scores) >= 15
        info = httpx.get(f"{cluster.url}/tables/{table}").json()
        assert (info["status"], info["version"]) == ("finished", len(events))
        assert info["result"]["scores"] == list(result.scores)
        assert len(raw_events(cluster.r, table)) == len(events)
    finally:
        cluster.stop()
