"""A leave during a crash: `POST /tables/{T}/leave` after the start is a
command (`l<seat>`) a worker applies by appending `SeatLeft`; here the
only worker is SIGKILLed right around that append, on real processes over
a real Redis (the chaos harness's :class:`~tests.e2e.chaos_lib.Cluster`,
its own ``redis-server`` with an append-only file, ports 19400-19499).

Two moments, one test each:

* ``after_append``: the worker is started with
  ``TAPIS_CHAOS_KILL_AFTER_APPEND=1`` and SIGKILLs itself right after its
  first append that hands a turn to a bot — the `SeatLeft` of the seat on
  turn — before it enqueues the stand-in's turn or replies;
* ``before_append``: the worker is SIGSTOPped, the leave is queued in
  the command stream (Redis may hand it to the stopped worker's blocked
  read: then it is pending for a dead consumer, claimed later), and the
  worker is SIGKILLed without having processed it.

Then a worker without the hook is started. Whatever the person's client
got (200, or 504 ``reply_timeout`` and then, calling again, 403
``bad_token``: the leave was applied), the table's log holds exactly one
`SeatLeft` (the command's events once), the old token is refused, the
stand-in bot plays the seat (bot commands ``b<seat>.<v>`` after the
leave) and, the other seat played by a person over HTTP, the table
finishes with a replay that matches what the gateway serves.
"""

from __future__ import annotations

import signal
import threading
import time

import httpx
import pytest

from shared.engine import fold
from shared.games import get_game
from shared.presence import SEAT_LEFT
from tests.e2e import chaos_lib, procs
from tests.e2e.client import BOT_COMMAND, assert_log_contiguous, raw_events

pytestmark = [pytest.mark.timeout(240),
              pytest.mark.skipif(not procs.redis_server_installed(), reason=f"no redis-server at {procs.REDIS_SERVER}")]


def read_events(r, table: str):
    """The table's events, read straight from its stream."""
    return [e for _v, e in raw_events(r, table)]


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def wait_workers(cluster: chaos_lib.Cluster, proc) -> None:
    """Until the worker blocks reading every shard."""
    procs.wait_until(lambda: procs.blocked_readers(cluster.r) >= chaos_lib.SHARDS, 60,
                     "the worker blocked reading the shards", [proc])


def leave_until_definite(http: httpx.Client, table: str, token: str, first: httpx.Response | None) -> list[int]:
    """The statuses of the person's leave calls: the first one (given) and,
    after a 504 or a transport error, the same call again until a definite
    answer (200, or 403 ``bad_token``: applied meanwhile)."""
    statuses = []
    r = first
    for _ in range(20):
        if r is not None:
            statuses.append(r.status_code)
            if r.status_code in (200, 403):
                if r.status_code == 403:
                    assert r.json()["code"] == "bad_token", r.text
                return statuses
            assert r.status_code in (503, 504), r.text
        try:
            r = http.post(f"/tables/{table}/leave", headers=auth(token))
        except httpx.TransportError:
            r = None
            time.sleep(0.5)
    raise AssertionError(f"the leave never got a definite answer: {statuses}")


@pytest.mark.parametrize("moment", ["after_append", "before_append"])
def test_a_leave_while_its_worker_is_killed_is_applied_once_and_the_stand_in_finishes(tmp_path, monkeypatch,
                                                                                      moment):
    monkeypatch.setattr(procs, "PORTS", range(19400, 19500))  # this test's own ports
    # the leave goes through the command stream to the worker (a gateway deciding itself would append it)
    cluster = chaos_lib.Cluster(tmp_path, workers=1, env={"TAPIS_DECIDE_IN_GATEWAY": "0"}, say=lambda _m: None)
    try:
        cluster.start()
        with httpx.Client(base_url=cluster.url, timeout=30) as http:
            # Two people, Mau Mau to 15 points: no bot seat, so no append hands a turn to a bot before the leave.
            table = http.post("/tables", json={"game": "maumau", "players": 2, "options": {"target_score": 15},
                                               "turn_seconds": None, "stand_in": "heuristic"}).json()["id"]
            tokens = [http.post(f"/tables/{table}/join", json={"name": n}).json()["token"] for n in ("Ada", "Bo")]
            procs.wait_until(lambda: http.get(f"/tables/{table}").json()["status"] == "playing", 20, "the start")
            must = http.get(f"/tables/{table}/view", headers=auth(tokens[0])).json()["must_act"]
            assert len(must) == 1
            leaver = must[0]  # the seat on turn: its SeatLeft hands the turn to the stand-in bot
            other = 1 - leaver
            version_before = http.get(f"/tables/{table}").json()["version"]

            if moment == "after_append":
                cluster.kill("worker0")
                hooked = cluster.spawn("worker0", {"TAPIS_CHAOS_KILL_AFTER_APPEND": "1"})
                wait_workers(cluster, hooked)
                first = http.post(f"/tables/{table}/leave", headers=auth(tokens[leaver]))
                assert hooked.popen.wait(30) == -signal.SIGKILL
                assert "chaos hook: killing this worker" in hooked.log_text()
                # the SeatLeft is in the log, its bot turn never enqueued, the person had no reply
                assert [e.type for e in read_events(cluster.r, table)][version_before:] == [SEAT_LEFT]
                assert first.status_code == 504 and first.json()["code"] == "reply_timeout", first.text
            else:
                stopped = cluster.current["worker0"]
                stopped.signal(signal.SIGSTOP)
                replies: list[httpx.Response] = []
                sender = threading.Thread(target=lambda: replies.append(
                    http.post(f"/tables/{table}/leave", headers=auth(tokens[leaver]))))
                sender.start()

                def queued() -> bool:  # the leave command waits in a command stream
                    return any(f.get(b"t", b"").decode() == table and f.get(b"i", b"").decode() == f"l{leaver}"
                               for shard in range(chaos_lib.SHARDS)
                               for _id, f in cluster.r.xrevrange(f"tapis:commands:{shard}", count=20))

                procs.wait_until(queued, 10, "the leave queued")
                cluster.kill("worker0")  # SIGKILL, stopped: it never processed the command
                assert len(read_events(cluster.r, table)) == version_before
                sender.join(60)
                first = replies[0] if replies else None
            fresh = cluster.spawn("worker0")
            wait_workers(cluster, fresh)
            statuses = leave_until_definite(http, table, tokens[leaver], first)
            assert statuses[-1] in (200, 403), statuses
            print(f"{moment}: the leave calls answered {statuses}")

            # the old token is refused everywhere a token is taken
            for method, path in (("GET", "view"), ("POST", "leave"), ("POST", "back"), ("GET", "events")):
                r = http.request(method, f"/tables/{table}/{path}", headers=auth(tokens[leaver]))
                assert (r.status_code, r.json()["code"]) == (403, "bad_token"), (path, r.text)

            # the other person plays on; the stand-in bot plays the left seat; the table finishes
            deadline = time.monotonic() + 150
            moves = 0
            while time.monotonic() < deadline:
                v = http.get(f"/tables/{table}/view", headers=auth(tokens[other])).json()
                if v["status"] == "finished":
                    break
                if other in v["must_act"]:
                    action = next(a for a in v["legal_actions"] if a["type"] != "callout")
                    r = http.post(f"/tables/{table}/actions", headers=auth(tokens[other]),
                                  json={"action": action, "expected_version": v["version"],
                                        "command_id": f"m{v['version']}"})
                    assert r.status_code in (200, 409), r.text
                    moves += r.status_code == 200
                else:
                    time.sleep(0.05)
            assert v["status"] == "finished", chaos_lib.diagnose(cluster, table)

        events = [e for _v, e in assert_log_contiguous(cluster.r, table)]
        left = [e for e in events if e.type == SEAT_LEFT]
        assert len(left) == 1 and left[0].data["seat"] == leaver, left
        at = events.index(left[0])
        assert left[0].cmd == f"l{leaver}" and sum(e.cmd == f"l{leaver}" for e in events) == 1
        played = [e for e in events[at + 1:] if (m := BOT_COMMAND.fullmatch(e.cmd or "")) and int(m["seat"]) == leaver]
        assert played, "the stand-in bot never played the left seat"
        assert not any((e.cmd or "").startswith(f"u{leaver}.") for e in events[at + 1:])
        assert moves > 0
        game = get_game("maumau")
        state = fold(game, events)
        result = game.result(state)
        assert result is not None and max(result.scores) >= 15
        info = httpx.get(f"{cluster.url}/tables/{table}").json()
        assert (info["status"], info["version"]) == ("finished", len(events))
        assert info["result"]["scores"] == list(result.scores)
    finally:
        cluster.stop()
