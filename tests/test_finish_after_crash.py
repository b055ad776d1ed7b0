"""Found by breaking the gateway's deciding (a fresh tester, h-break): a
clocked table of people whose last action ends the game, decided by a
gateway that dies right after the append (before it marks the table
finished), is marked finished by a worker's sweeper at the turn clock's
deadline, not at the bot re-drive time: the append's predicted due time
(services/worker/worker.py ``append_due``) is the next person's deadline,
which saves the schedule call of nearly every action, and the append
cannot know that the action ended the game.  The views say ``finished``
at once (they fold the log); the lobby's status, the active-table count
and the retention expiry wait for that sweep (at most ``turn_seconds``,
600 s).  This test pins that bound (docs/architecture.md, "Liveness")."""

from __future__ import annotations

from services.store import keys
from services.worker.worker import Worker
from tests.test_decide_in_gateway import Recorder, auth, due_score, gateway, settings


async def test_a_game_ended_by_a_gateway_that_died_is_marked_finished_by_the_sweeper_at_the_deadline(
        redis_client, monkeypatch):
    async def died(self, *args, **kwargs):  # the gateway is SIGKILLed right after the append
        return None

    monkeypatch.setattr(Worker, "_after_append", died)
    async with gateway(redis_client, Recorder()) as gw:
        r = await gw.post("/tables", json={"game": "toy", "players": 2, "options": {"target": 1},
                                           "turn_seconds": 600})
        table = r.json()["id"]
        tokens = [(await gw.post(f"/tables/{table}/join", json={"name": f"p{i}"})).json()["token"] for i in range(2)]
        r = await gw.post(f"/tables/{table}/actions", headers=auth(tokens[0]),
                          json={"action": {"type": "add", "n": 1}, "command_id": "last"})
        assert r.status_code == 200, r.text
        last_ts = r.json()["events"][-1]["ts"]
        assert (await gw.get(f"/tables/{table}/view")).json()["status"] == "finished"  # the views fold the log
    monkeypatch.undo()
    assert await redis_client.hget(keys.meta(table), "status") in (b"playing", "playing")
    assert await due_score(redis_client, table) == last_ts + 600_000  # the predicted deadline
    # a sweep before the deadline finds nothing due; the one at the deadline marks the table finished
    early = Worker(redis_client, settings(), bots=Recorder(), clock=lambda: last_ts + 599_999)
    assert await early.sweep_once(now_ms=last_ts + 599_999) == 0
    late = Worker(redis_client, settings(), bots=Recorder(), clock=lambda: last_ts + 600_001)
    assert await late.sweep_once(now_ms=last_ts + 600_001) == 1
    assert await redis_client.hget(keys.meta(table), "status") in (b"finished", "finished")
    assert await due_score(redis_client, table) is None
