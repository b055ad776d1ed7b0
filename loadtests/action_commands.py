"""Redis commands of one applied action, end to end (issue 14).

Runs a gateway app (direct ASGI calls, as ``loadtests/gateway_cost.py``)
and a worker, each with its own Redis client and table cache as in
separate processes, on a Redis **server of its own** (``commandstats``
and ``MONITOR`` are server-wide: on a shared server others' commands
would be counted).  Bots are off and the worker's sweeper and reclaimer
run once a minute, so that only what an action itself costs is counted;
each action is the driver's flow: ``GET /tables/{T}/view`` as the awaited
seat, then ``POST /tables/{T}/actions`` (``--flow post-view``: the POST
with ``?view=true``, and the ``GET`` only when the answer's view is not
the next one to act from, i.e. another seat plays next).

Prints the Redis commands per applied action by command name
(``commandstats``, commands run inside Lua scripts included: deterministic
for a given flow; the total leaves out the two blocking reads, whose
count depends on timing), and with ``--trace`` the ``MONITOR`` listing of one
action: each command with the role that sent it (``gateway``,
``worker``; ``lua``: run inside the script just before it).

Usage::

    redis-server --port 19690 --save '' --daemonize yes
    python loadtests/action_commands.py --redis redis://127.0.0.1:19690/0 --actions 300 --trace
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))

from loadtests.gateway_cost import asgi  # noqa: E402

#: The blocking reads (one each per action when the services are idle
#: otherwise, one per batch under load): the worker's XREADGROUP, the
#: gateway's reply listener's XREAD.
BLOCKING = ("xreadgroup", "xread")


async def _open(app: Any) -> tuple[str, dict[int, str]]:
    st, t = await asgi(app, "POST", "/tables", body={"game": "maumau", "players": 4, "options": {}, "bots": {}})
    assert st == 201, (st, t)
    tokens = {}
    for seat in range(4):
        st, j = await asgi(app, "POST", f"/tables/{t['id']}/join", body={"seat": seat, "name": f"p{seat}"})
        assert st == 200, (st, j)
        tokens[j["seat"]] = j["token"]
    return t["id"], tokens


class Play:
    """Plays tables one action at a time, opening a new table when one
    ends.  Counted (:meth:`act`): the view of the seat to act (``GET``;
    none when the previous answer brought it), then the action.  Finding
    which seat is awaited is not counted (:meth:`ready`; the driver
    guesses, and a wrong guess costs it one more view)."""

    def __init__(self, app: Any, rng: random.Random, flow: str) -> None:
        self.app, self.rng, self.flow = app, rng, flow
        self.table: tuple[str, dict[int, str]] | None = None
        self.seat: int | None = None
        self.answered: dict[str, Any] | None = None  # the next view, from an action's answer
        self.applied = 0
        self.gets = 0

    async def ready(self) -> None:
        """Make sure a table is open and the awaited seat known."""
        while self.table is None or self.seat is None:
            if self.table is None:
                self.table = await _open(self.app)
                self.answered = None
            tid, tokens = self.table
            for seat, tok in tokens.items():
                st, v = await asgi(self.app, "GET", f"/tables/{tid}/view", tok)
                if v["status"] == "finished":
                    self.table = None
                    break
                if v["status"] == "playing" and seat in v["awaiting"] and v["legal_actions"]:
                    self.seat = seat
                    break
            else:
                await asyncio.sleep(0.01)

    async def act(self) -> None:
        """One applied action and the view it was chosen from."""
        assert self.table is not None and self.seat is not None
        tid, tokens = self.table
        seat = self.seat
        v, self.answered = self.answered, None
        if v is None:
            st, v = await asgi(self.app, "GET", f"/tables/{tid}/view", tokens[seat])
            self.gets += 1
        action = self.rng.choice(v["legal_actions"])
        query = "?view=true" if self.flow == "post-view" else ""
        st, r = await asgi(self.app, "POST", f"/tables/{tid}/actions{query}", tokens[seat],
                           body={"action": action, "expected_version": v["version"]})
        assert st == 200, (st, r)
        self.applied += 1
        self.seat = None
        nv = r.get("view")
        if nv is None:
            return
        if nv["status"] != "playing":
            self.table = None
        elif seat in nv["awaiting"] and nv["legal_actions"]:
            self.seat, self.answered = seat, nv  # the same seat plays again: no GET
        elif nv["awaiting"]:
            self.seat = nv["awaiting"][0]


async def run(url: str, actions: int, trace: bool, flow: str) -> dict[str, Any]:
    """Play ``actions`` actions; returns the commands per applied action
    and (``trace``) the MONITOR lines of one action."""
    from redis.asyncio import Redis

    from services.config import Settings
    from services.gateway.app import create_app
    from services.runtime import client_options
    from services.worker.worker import Worker

    settings = Settings(redis_url=url, shards=2, reply_timeout_s=10, rate_limits=False, sweep_interval_ms=60_000,
                        claim_idle_ms=120_000)
    admin = Redis.from_url(url)
    await admin.flushdb()
    gw_redis = Redis.from_url(url, client_name="gateway", **client_options(settings))
    wk_redis = Redis.from_url(url, client_name="worker", **client_options(settings))
    app = create_app(settings, gw_redis)
    worker = Worker(wk_redis, settings, name="trace-worker")
    stop = asyncio.Event()
    play = Play(app, random.Random(7), flow)
    out: dict[str, Any] = {}
    async with app.router.lifespan_context(app):
        task = asyncio.create_task(worker.run(stop))
        try:
            await play.ready()
            for _ in range(5):  # warm up
                await play.ready()
                await play.act()
            await play.ready()
            if trace:
                out["trace"] = await _trace(url, admin, play)
            play.applied = play.gets = 0
            calls: Counter[str] = Counter()
            for _ in range(actions):
                # finding the next awaited seat is not counted: the view of
                # the driver's flow is (GET view, POST)
                await play.ready()
                before = await admin.info("commandstats")
                await play.act()
                after = await admin.info("commandstats")
                for k, v in after.items():
                    calls[k.removeprefix("cmdstat_")] += v["calls"] - before.get(k, {"calls": 0})["calls"]
                calls["info"] -= 1
        finally:
            stop.set()
            await task
    calls = +calls
    out["applied"] = play.applied
    out["gets"] = play.gets
    out["per_action"] = {k: round(n / play.applied, 2) for k, n in calls.most_common()}
    # A blocking read is counted when it is answered, which falls in or out
    # of the measured window by timing: left out of the total.
    out["total_per_action"] = round(sum(n for k, n in calls.items() if k not in BLOCKING) / play.applied, 2)
    await admin.flushdb()
    await admin.aclose()
    return out


async def _trace(url: str, admin: Any, play: Play) -> list[str]:
    """MONITOR lines of one action, each with the role of its client."""
    from redis.asyncio import Redis

    names = {}
    for c in await admin.client_list():
        names[c["addr"]] = c.get("name") or "other"
    mon_client = Redis.from_url(url)
    lines: list[str] = []
    async with mon_client.monitor() as m:
        await asyncio.sleep(0.05)

        async def collect() -> None:
            while True:
                cmd = await m.next_command()
                lines.append(cmd)

        task = asyncio.create_task(collect())
        await play.act()
        await asyncio.sleep(0.3)
        task.cancel()
        await play.ready()
        await asyncio.gather(task, return_exceptions=True)
    await mon_client.aclose()
    out = []
    for c in lines:
        who = "lua" if c.get("client_type") == "lua" else names.get(c.get("client_address", "") + ":" +
                                                                     str(c.get("client_port", "")), "?")
        command = c["command"]
        if len(command) > 110:
            command = command[:107] + "..."
        out.append(f"{who:8} {command}")
    return out


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module doc)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--redis", required=True, help="a Redis server of its own (its database is flushed)")
    p.add_argument("--actions", type=int, default=300)
    p.add_argument("--flow", choices=["view-post", "post-view"], default="view-post")
    p.add_argument("--trace", action="store_true", help="print the MONITOR listing of one action")
    a = p.parse_args(argv)
    res = asyncio.run(run(a.redis, a.actions, a.trace, a.flow))
    if "trace" in res:
        print("One action (MONITOR):")
        for line in res["trace"]:
            print("  " + line)
    print(f"{res['applied']} applied actions ({a.flow}), {res['gets']} GET views; Redis commands per applied "
          f"action: {res['total_per_action']} (+ the blocking reads {', '.join(BLOCKING)}: "
          "one each per action when otherwise idle)")
    for k, v in res["per_action"].items():
        print(f"  {k:24} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
