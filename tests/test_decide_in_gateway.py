"""The gateway deciding actions itself (``TAPIS_DECIDE_IN_GATEWAY``,
services/worker/direct.py), on the toy game over fakeredis and real
Redis, with no worker running at all: the action is decided and appended
by the gateway, bot turns are enqueued by it, a retried command id is
answered from its record, two gateways with stale caches never apply an
action twice, and a crash between the append and the bot enqueue is
finished by a worker's sweeper.  The kill of a real gateway process is
tests/e2e/test_gateway_decides_kill.py."""

from __future__ import annotations

import asyncio
import contextlib

import httpx

from services.config import Settings
from services.gateway.app import create_app
from services.store import keys
from services.worker.worker import Worker


class Recorder:
    """A bot scheduler that records the turns it is given (or fails)."""

    def __init__(self, fail: bool = False) -> None:
        self.turns: list[tuple[str, int, int, str, str]] = []
        self.fail = fail

    async def schedule(self, table: str, seat: int, version: int, game: str, strategy: str) -> None:
        if self.fail:
            raise ConnectionError("broker down")
        self.turns.append((table, seat, version, game, strategy))


def settings() -> Settings:
    return Settings(redis_url=None, shards=2, rate_limits=False, decide_in_gateway=True)


@contextlib.asynccontextmanager
async def gateway(redis, bots=None):
    """A gateway app alone (no worker) over ``redis``, as an httpx client."""
    app = create_app(settings(), redis, bots=bots)
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://tapis") as client:
            client.app = app  # type: ignore[attr-defined]
            yield client


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def toy_table(client, players: int = 2, bots: dict[str, str] | None = None, target: int = 50) -> str:
    r = await client.post("/tables", json={"game": "toy", "players": players, "options": {"target": target},
                                           "bots": bots or {}})
    assert r.status_code == 201, r.text
    return r.json()["id"]


async def events(client, table: str) -> list[dict]:
    return (await client.get(f"/tables/{table}/events")).json()["events"]


async def test_the_gateway_alone_decides_appends_and_enqueues_the_bot_turn(redis_client):
    bots = Recorder()
    async with gateway(redis_client, bots) as gw:
        table = await toy_table(gw, bots={"1": "first"})
        token = (await gw.post(f"/tables/{table}/join", json={"name": "Ada"})).json()["token"]
        # the start was decided here: GameStarted at version 1, seat 0 (the person) to act, no bot turn yet
        assert [(e["version"], e["type"]) for e in await events(gw, table)] == [(1, "GameStarted")]
        assert bots.turns == []
        r = await gw.post(f"/tables/{table}/actions", headers=auth(token),
                          json={"action": {"type": "add", "n": 2}, "command_id": "a1"})
        assert r.status_code == 200, r.text
        assert r.json()["version"] == 2
        assert [(e["type"], e["seat"], e["data"]) for e in r.json()["events"]] == [("Added", 0, {"n": 2})]
        # the bot seat is awaited at version 2: its turn was enqueued by the gateway, once
        assert bots.turns == [(table, 1, 2, "toy", "first")]
        feed = await events(gw, table)
        assert [(e["version"], e["type"], e["data"].get("n")) for e in feed] == [(1, "GameStarted", None),
                                                                                 (2, "Added", 2)]
    # and no command or reply stream was ever written
    for shard in range(2):
        assert await redis_client.xlen(keys.commands(shard)) == 0
    assert await redis_client.keys("tapis:replies:*") == []


async def test_a_retried_command_id_is_answered_from_its_record(redis_client):
    async with gateway(redis_client) as gw:
        table = await toy_table(gw, players=1)
        token = (await gw.post(f"/tables/{table}/join", json={"name": "Ada"})).json()["token"]
        body = {"action": {"type": "add", "n": 1}, "command_id": "once"}
        first = await gw.post(f"/tables/{table}/actions", headers=auth(token), json=body)
        again = await gw.post(f"/tables/{table}/actions", headers=auth(token), json=body)
        assert first.status_code == again.status_code == 200
        assert first.json() == again.json() and first.json()["version"] == 2
        other = await gw.post(f"/tables/{table}/actions", headers=auth(token),
                              json={"action": {"type": "add", "n": 2}, "command_id": "once"})
        assert (other.status_code, other.json()["code"]) == (422, "idempotency_mismatch")
        assert [e["version"] for e in await events(gw, table)] == [1, 2]


async def test_two_gateways_with_stale_caches_apply_each_action_once(redis_client):
    async with gateway(redis_client) as g1, gateway(redis_client) as g2:
        table = await toy_table(g1, players=2, target=500)
        a = (await g1.post(f"/tables/{table}/join", json={"name": "Ada"})).json()["token"]
        b = (await g2.post(f"/tables/{table}/join", json={"name": "Bo"})).json()["token"]
        for gw in (g1, g2):  # both caches hold the table at version 1
            assert (await gw.get(f"/tables/{table}/view", headers=auth(a))).json()["version"] == 1
        # alternate gateways: each action is decided on a cache one version behind (the append's
        # expected version refuses it, the gateway reloads and decides again)
        for i in range(6):
            gw, token = (g1, a) if i % 2 == 0 else (g2, b)
            r = await gw.post(f"/tables/{table}/actions", headers=auth(token),
                              json={"action": {"type": "add", "n": 1}, "command_id": f"c{i}"})
            assert (r.status_code, r.json()["version"]) == (200, i + 2), r.text
        # the same expected version through both gateways at once: one applied, the other stale
        rs = await asyncio.gather(*[gw.post(f"/tables/{table}/actions", headers=auth(a),
                                            json={"action": {"type": "add", "n": 2}, "expected_version": 7})
                                    for gw in (g1, g2)])
        assert sorted(r.status_code for r in rs) == [200, 409], [r.text for r in rs]
        assert next(r for r in rs if r.status_code == 409).json()["code"] == "stale_version"
        feed = await events(g1, table)
        assert [e["version"] for e in feed] == list(range(1, 9))
        assert [e["data"]["n"] for e in feed[1:]] == [1, 1, 1, 1, 1, 1, 2]


async def test_a_bot_turn_the_gateway_could_not_enqueue_is_redriven_by_a_workers_sweeper(redis_client):
    broker_down = Recorder(fail=True)
    async with gateway(redis_client, broker_down) as gw:
        table = await toy_table(gw, bots={"1": "first"})
        token = (await gw.post(f"/tables/{table}/join", json={"name": "Ada"})).json()["token"]
        r = await gw.post(f"/tables/{table}/actions", headers=auth(token),
                          json={"action": {"type": "add", "n": 1}, "command_id": "a1"})
        assert r.status_code == 200 and r.json()["version"] == 2  # applied whatever the broker did
        # the append left the table due: a worker's sweeper re-drives the bot turn
        bots = Recorder()
        worker = Worker(redis_client, settings(), bots=bots)
        assert await worker.sweep_once(now_ms=2**41) == 1
        assert bots.turns == [(table, 1, 2, "toy", "first")]


async def due_score(redis, table: str) -> float | None:
    return await redis.zscore(keys.due(keys.partition(table)), table)


async def test_the_exact_schedule_costs_a_call_only_when_the_append_could_not_write_it(redis_client, monkeypatch):
    """The append writes a predicted due time (services.worker.worker.append_due):
    a clocked table of present people only gets the next person's deadline,
    any other table the bot re-drive time.  The gateway calls the schedule
    script after it only when the exact time differs and something is to be
    driven: a bot next (no bot delay) is already exact; a clocked table of
    people only too; a person without a clock next is left to the sweeper,
    which finds nothing to drive and removes the entry (unless the person's
    next action rewrote it first); a person with a clock next at a table
    that also seats a bot gets the deadline written by a call."""
    from services.store.store import EventStore

    calls: list[tuple] = []
    real = EventStore.schedule

    async def spy(self, *args):
        calls.append(args)
        return await real(self, *args)

    monkeypatch.setattr(EventStore, "schedule", spy)
    redrive = settings().redrive_bot_ms
    cases = {"bot next": (2, {"bots": {"1": "first"}}), "person next, no clock": (2, {"turn_seconds": None}),
             "clocked people": (2, {"turn_seconds": 30}),
             "clocked person next beside a bot": (3, {"turn_seconds": 30, "bots": {"2": "first"}})}
    played = {}
    async with gateway(redis_client, Recorder()) as gw:
        for name, (players, body) in cases.items():
            r = await gw.post("/tables", json={"game": "toy", "players": players, "options": {"target": 50}, **body})
            table = r.json()["id"]
            people = players - len(body.get("bots", {}))
            tokens = [(await gw.post(f"/tables/{table}/join", json={"name": f"p{i}"})).json()["token"]
                      for i in range(people)]
            calls.clear()
            r = await gw.post(f"/tables/{table}/actions", headers=auth(tokens[0]),
                              json={"action": {"type": "add", "n": 1}, "command_id": "a"})
            assert r.status_code == 200, r.text
            last_ts = r.json()["events"][-1]["ts"]
            played[name] = (table, last_ts, [c[0] for c in calls], await due_score(redis_client, table) - last_ts)
    assert played["bot next"][2:] == ([], redrive)
    assert played["person next, no clock"][2:] == ([], redrive)
    assert played["clocked people"][2:] == ([], 30_000)
    table = played["clocked person next beside a bot"][0]
    assert played["clocked person next beside a bot"][2:] == ([table], 30_000)
    # the person-next entry: the sweeper, once it is due, finds nothing to drive and removes it
    table, last_ts = played["person next, no clock"][:2]
    worker = Worker(redis_client, settings(), bots=Recorder(), clock=lambda: last_ts + redrive + 1)
    assert await worker.sweep_once(now_ms=last_ts + redrive + 1) >= 1
    assert await due_score(redis_client, table) is None
    assert await redis_client.zscore(keys.waiting(keys.partition(table)), table) is None
