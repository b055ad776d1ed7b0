"""End-to-end: a worker process dies (SIGKILL) holding commands it read
and never acked; another worker process reclaims them (XAUTOCLAIM after
``TAPIS_CLAIM_IDLE_MS``) and applies each exactly once.

How worker A comes to hold the commands: A's four shard loops sit in a
short blocking XREADGROUP (0.5-1 s).  We re-arm those blocks (one harmless
command per shard, for a table that does not exist), SIGSTOP A at once
while the server still has it blocked, then add every command in one MULTI: Redis serves the
blocked reads at once, so the entries enter A's pending list and sit unread
in its socket.  Then SIGKILL.  Nothing is emulated: the consumer that dies
is a real ``tapis worker``.
"""

from __future__ import annotations

import signal
import time
import zlib

import httpx
import pytest

from services.messaging import Command, Reply
from services.store import keys
from tests.e2e import procs
from tests.e2e.client import (
    Api,
    applied_range,
    assert_log_contiguous,
    command_record,
    meta_key,
    seat_command_id,
)

pytestmark = pytest.mark.redis

CLAIM_IDLE_MS = 1000
SHARDS = 4
REPLIES = "e2e-reclaim"  # our own reply stream: tapis:replies:e2e-reclaim


def _shard(table: str) -> int:
    return zlib.crc32(table.encode()) % SHARDS


def _pending(r) -> int:
    return sum(r.xpending(f"tapis:commands:{s}", "workers")["pending"] for s in range(SHARDS))


def _table_on_shard(shard: int) -> str:
    """A table id (of no table) whose commands go to ``shard``."""
    i = 0
    while _shard(f"e2e-ping-{i}") != shard:
        i += 1
    return f"e2e-ping-{i}"


@pytest.fixture(scope="module")
def setup(r, tmp_path_factory):
    """A gateway and worker A (no bots), claim idle 1 s; yields a dict with
    the API, the procs and ``spawn_worker`` (started workers are stopped at
    the end, also on failure)."""
    log_dir = tmp_path_factory.mktemp("e2e-reclaim-logs")
    env = procs.service_env(TAPIS_CLAIM_IDLE_MS=str(CLAIM_IDLE_MS))
    with procs.stopping([]) as started:
        taken: set[int] = set()
        port = procs.free_port(taken)
        taken.add(port)
        gw = procs.spawn("gateway", ["gateway", "--port", str(port), "--redis", procs.REDIS_URL,
                                     "--log-level", "warning"], log_dir, env)
        started.append(gw)

        def spawn_worker(name: str, metrics_port: int | None = None):
            args = ["worker", "--redis", procs.REDIS_URL, "--bots", "none", "--log-level", "warning"]
            if metrics_port:
                args += ["--metrics-port", str(metrics_port)]
            w = procs.spawn(name, args, log_dir, env)
            started.append(w)
            return w

        a = spawn_worker("workerA")
        url = f"http://{procs.HOST}:{port}"
        procs.wait_gateway(url, gw)
        procs.wait_until(lambda: procs.blocked_readers(r) == SHARDS, 30, "worker A blocked on the 4 shards", [a])
        with httpx.Client(base_url=url, timeout=15) as http:
            yield {"api": Api(http), "http": http, "gateway": gw, "a": a, "spawn_worker": spawn_worker,
                   "taken": taken, "started": started}


@pytest.mark.timeout(90)
def test_commands_held_by_a_killed_worker_are_applied_exactly_once(setup, r):
    api, a = setup["api"], setup["a"]

    # Three started two-seat tables (worker A applies their starts).
    tables, tokens = [], []
    for _ in range(3):
        t = api.create("maumau", 2)["id"]
        joined = [api.join(t), api.join(t)]
        tables.append(t)
        tokens.append({j["seat"]: j["token"] for j in joined})
        api.wait_started(t, tokens[-1][0])

    def on_turn(i: int) -> tuple[int, dict]:
        turn = api.view(tables[i], tokens[i][0])["view"]["turn"]
        sv = api.view(tables[i], tokens[i][turn])
        return turn, sv

    # Table 0: one action applied normally, before the crash ("pre-0").
    seat0, sv0 = on_turn(0)
    pre_action = next(x for x in sv0["legal_actions"] if x["type"] != "callout")
    resp = api.act(tables[0], tokens[0][seat0], pre_action, command_id="pre-0")
    assert resp.status_code == 200, resp.text
    pre_id = seat_command_id(seat0, "pre-0")  # the id the gateway stored
    pre_record = command_record(r, tables[0], pre_id)
    assert applied_range(r, tables[0], pre_id) == (sv0["version"] + 1, resp.json()["version"])

    # The commands worker A will die holding.
    now = int(time.time() * 1000)
    # Ids as the gateway forms them for the seat (u<seat>.<client id>).
    cmds: list[Command] = [Command(tables[0], "act", seat0, pre_action, None, pre_id, REPLIES, now)]  # a retry
    versions, kid = {}, {}
    for i in range(3):
        seat, sv = on_turn(i)
        versions[i] = sv["version"]
        action = next(x for x in sv["legal_actions"] if x["type"] != "callout")
        kid[i] = seat_command_id(seat, f"k-{i}")
        cmds.append(Command(tables[i], "act", seat, action, sv["version"], kid[i], REPLIES, now))
        if i == 2:  # a second command at the same expected version: stale once k-2 is applied
            late_id = seat_command_id(seat, "late-2")
            cmds.append(Command(tables[i], "act", seat, action, sv["version"], late_id, REPLIES, now))
    logs_before = {t: r.xrange(keys.events(t)) for t in tables}

    # Re-arm A's four blocking reads, stop A while blocked, add everything at once.
    pings = r.pipeline(transaction=False)
    for s in range(SHARDS):
        pings.xadd(f"tapis:commands:{s}", Command(_table_on_shard(s), "act", 0, {"type": "draw"}, None,
                                                  f"ping-{s}", "", now).fields())
    pings.execute()
    procs.wait_until(lambda: _pending(r) == 0 and procs.blocked_readers(r) == SHARDS, 10,
                     "worker A back in its blocking reads", [a])
    a.signal(signal.SIGSTOP)
    assert procs.blocked_readers(r) == SHARDS  # the server still has A blocked
    tx = r.pipeline(transaction=True)
    for c in cmds:
        tx.xadd(f"tapis:commands:{_shard(c.table)}", c.fields())
    tx.execute()
    held = {}
    for s in range(SHARDS):
        for row in r.xpending_range(f"tapis:commands:{s}", "workers", min="-", max="+", count=100):
            held[(s, row["message_id"])] = (row["consumer"], row["times_delivered"])
    consumers = {c for c, _n in held.values()}
    assert len(held) == len(cmds) and len(consumers) == 1, (
        f"worker A should hold all {len(cmds)} commands, holds {held} (its blocking read expired before the MULTI?)")
    assert all(n == 1 for _c, n in held.values())

    a.signal(signal.SIGKILL)
    assert a.popen.wait(5) == -signal.SIGKILL
    time.sleep(0.2)
    assert _pending(r) == len(cmds)
    for t in tables:  # nothing was applied by the dead worker
        assert r.xrange(keys.events(t)) == logs_before[t]
    assert r.xlen(f"tapis:replies:{REPLIES}") == 0

    # Worker B takes over once the entries are idle for CLAIM_IDLE_MS.
    metrics_port = procs.free_port(setup["taken"])
    b = setup["spawn_worker"]("workerB", metrics_port)
    t0 = time.monotonic()
    procs.wait_until(lambda: _pending(r) == 0, 20, "worker B reclaiming every pending command", [b])
    reclaim_s = time.monotonic() - t0

    # One reply per command, each with its exactly-once outcome.
    replies = [Reply.unpack(f[b"m"]) for _id, f in r.xrange(f"tapis:replies:{REPLIES}")]
    assert sorted(x.id for x in replies) == sorted(c.id for c in cmds)
    by_id = {x.id: x for x in replies}
    assert by_id[pre_id].ok and by_id[pre_id].version == resp.json()["version"]  # answered from the record
    assert command_record(r, tables[0], pre_id) == pre_record is not None
    for i, t in enumerate(tables):
        rep = by_id[kid[i]]
        assert rep.ok, rep
        assert rep.version == versions[i] + len(rep.events)
        assert applied_range(r, t, kid[i]) == (versions[i] + 1, rep.version)
        log = assert_log_contiguous(r, t)
        assert len(log) == rep.version == api.table(t)["version"]
        assert [v for v, e in log if e.cmd == kid[i]] == list(range(versions[i] + 1, rep.version + 1))
        assert int(r.hget(meta_key(t), "version")) == rep.version
    assert (by_id[late_id].ok, by_id[late_id].code) == (False, "stale_version")
    assert applied_range(r, tables[2], late_id) is None
    log0 = assert_log_contiguous(r, tables[0])
    first, last = applied_range(r, tables[0], pre_id)
    assert [v for v, e in log0 if e.cmd == pre_id] == list(range(first, last + 1))
    assert not [v for v, e in assert_log_contiguous(r, tables[2]) if e.cmd == late_id]

    # B got them by reclaiming (they were A's), and A holds nothing now.
    samples = procs.scrape(metrics_port)
    assert procs.metric(samples, "tapis_commands_reclaimed_total") == len(cmds)
    dead = next(iter(consumers))
    for s in range(SHARDS):
        for row in r.xinfo_consumers(f"tapis:commands:{s}", "workers"):
            if row["name"] == dead:
                assert row["pending"] == 0
    assert _pending(r) == 0
    assert reclaim_s < 15

    # The tables play on through worker B.
    seat, sv = on_turn(1)
    nxt = next(x for x in sv["legal_actions"] if x["type"] != "callout")
    resp = api.act(tables[1], tokens[1][seat], nxt, expected=sv["version"])
    assert resp.status_code == 200, resp.text
    assert b.alive() and "Traceback" not in b.log_text(), b.tail()
