"""CPU per request of the gateway's hot routes, in process (issue 14).

The service bench measures whole processes on a shared machine; this
measures what one request costs the app itself, without sockets nor HTTP
parsing: each request is one direct ASGI call, timed with the process's
CPU clock.  It plays ``--actions`` random actions of 4-player Mau Mau
tables like the load driver does (``GET /tables/{T}/view`` as the awaited
seat, then ``POST /tables/{T}/actions`` with a random legal action), on

* Tapis' all-in-one app (gateway + one in-process worker, no bots): a
  POST's figure includes the worker's work, as it runs in this process;
* the bare app (``loadtests/bare_app.py``);

interleaved in rounds on the real Redis (``--redis``, a database of its
own: flushed before and after), and prints CPU µs per request of each
route for both, and the ratios.  ``--profile tapis-view`` (or
``tapis-action``, ``bare-view``, ``bare-action``) adds a cProfile of that
route's calls, timed with the CPU clock: the top functions by cumulative
and own CPU time.  ``--flow post-view``: each action is sent with
``?view=true`` and, when the same seat plays next, the next action is
chosen from the answer's view without a ``GET``; the last line, CPU per
applied action of all requests, compares the flows.

Usage::

    python loadtests/gateway_cost.py --actions 2000 --redis redis://127.0.0.1:6379/12
    python loadtests/gateway_cost.py --actions 1000 --profile tapis-view
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import pstats
import random
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))

from loadtests.bare_app import create_app as create_bare  # noqa: E402


async def asgi(app: Any, method: str, path: str, token: str | None = None, body: Any = None) -> tuple[int, Any]:
    """One request as a direct ASGI call; returns (status, JSON body)."""
    status, data = await asgi_raw(app, method, path, token, body)
    return status, json.loads(data) if data else None


async def asgi_raw(app: Any, method: str, path: str, token: str | None = None,
                   body: Any = None) -> tuple[int, bytes]:
    """One request as a direct ASGI call; returns (status, body bytes)."""
    raw = (body if isinstance(body, str) else json.dumps(body)).encode() if body is not None else b""
    headers = [(b"host", b"bench"), (b"content-type", b"application/json"), (b"content-length", b"%d" % len(raw))]
    if token:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    path, _, query = path.partition("?")
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
             "path": path, "raw_path": path.encode(), "query_string": query.encode(), "root_path": "",
             "headers": headers,
             "client": ("127.0.0.1", 40000), "server": ("127.0.0.1", 80)}
    sent = False
    status, chunks = 0, []

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": raw, "more_body": False}
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def send(msg: dict[str, Any]) -> None:
        nonlocal status
        if msg["type"] == "http.response.start":
            status = msg["status"]
        elif msg["type"] == "http.response.body":
            chunks.append(msg.get("body", b""))

    await app(scope, receive, send)
    return status, b"".join(chunks)


class Player:
    """Plays tables of one app like the driver, timing each route."""

    def __init__(self, name: str, app: Any, rng: random.Random, post_view: bool = False) -> None:
        self.name, self.app, self.rng, self.post_view = name, app, rng, post_view
        self.answered: tuple[int, dict[str, Any]] | None = None  # (seat, view) from an action's answer
        self.applied = 0
        self.cpu: dict[str, float] = defaultdict(float)
        self.count: dict[str, int] = defaultdict(int)
        self.profiles: dict[str, cProfile.Profile] = {}
        self.table: tuple[str, dict[int, str]] | None = None

    async def _open(self) -> None:
        st, t = await asgi(self.app, "POST", "/tables", body={"game": "maumau", "players": 4, "options": {},
                                                              "bots": {}})
        assert st == 201, (st, t)
        tokens = {}
        for seat in range(4):
            st, j = await asgi(self.app, "POST", f"/tables/{t['id']}/join", body={"seat": seat, "name": f"p{seat}"})
            assert st == 200, (st, j)
            tokens[j["seat"]] = j["token"]
        self.table = (t["id"], tokens)

    async def _timed(self, route: str, *args: Any, **kw: Any) -> tuple[int, Any]:
        """One request, its CPU time (not the client's JSON work) counted
        under ``route``."""
        raw = json.dumps(kw.pop("body")) if "body" in kw else None
        prof = self.profiles.get(route)
        if prof is not None:
            prof.enable()
        c0 = time.process_time()
        status, data = await asgi_raw(self.app, *args, body=raw, **kw)
        self.cpu[route] += time.process_time() - c0
        self.count[route] += 1
        if prof is not None:
            prof.disable()
        return status, json.loads(data) if data else None

    async def act(self) -> None:
        """One action: the awaited seat's view, then a random legal action."""
        if self.table is None:
            await self._open()
        assert self.table is not None
        tid, tokens = self.table
        for _ in range(10):
            if self.answered is not None:
                (seat, v), self.answered = self.answered, None
            else:
                seat = self.rng.choice(sorted(tokens))
                st, v = await self._timed("view", "GET", f"/tables/{tid}/view", tokens[seat])
            if v["status"] == "finished":
                self.table = None
                return
            if v["status"] != "playing" or not v["awaiting"]:
                await asyncio.sleep(0.002)
                continue
            seat = v["awaiting"][0] if seat not in v["awaiting"] else seat
            if not v["legal_actions"]:
                st, v = await self._timed("view", "GET", f"/tables/{tid}/view", tokens[seat])
            if v["legal_actions"]:
                action = self.rng.choice(v["legal_actions"])
                query = "?view=true" if self.post_view else ""
                st, r = await self._timed("action", "POST", f"/tables/{tid}/actions{query}", tokens[seat],
                                          body={"action": action, "expected_version": v["version"]})
                assert st in (200, 409), (st, r)
                if st == 200:
                    self.applied += 1
                    nv = r.get("view")
                    if nv is not None and nv["status"] == "playing" and seat in nv["awaiting"] \
                            and nv["legal_actions"]:
                        self.answered = (seat, nv)  # the same seat plays again: no GET
                return


async def run(redis_url: str, actions: int, rounds: int, profile: str | None,
              post_view: bool = False, decide_in_gateway: bool = False, profile_lines: int = 30) -> dict[str, Any]:
    """Play ``actions`` actions on each app, in ``rounds`` interleaved rounds;
    returns CPU µs per request by app and route, and the profile text (its
    top ``profile_lines`` functions by cumulative time)."""
    from redis.asyncio import Redis

    from services.config import Settings
    from services.runtime import make_redis
    from services.serve import build_serve_app

    flusher = Redis.from_url(redis_url)
    await flusher.flushdb()
    settings = Settings(redis_url=redis_url, shards=2, reply_timeout_s=10, rate_limits=False,
                        decide_in_gateway=decide_in_gateway)
    tapis = build_serve_app(settings, bots="none")
    bare = create_bare(make_redis(settings))
    players = [Player("tapis", tapis, random.Random(1), post_view), Player("bare", bare, random.Random(1), post_view)]
    if profile:
        who, route = profile.split("-")
        next(p for p in players if p.name == who).profiles[route] = cProfile.Profile(time.process_time)
    try:
        async with tapis.router.lifespan_context(tapis):
            for p in players:  # warm up: a table each, a few actions (caches, imports)
                for _ in range(20):
                    await p.act()
                p.cpu.clear()
                p.count.clear()
                p.applied = 0
            per_round = max(1, actions // rounds)
            for _ in range(rounds):
                for p in players:
                    for _ in range(per_round):
                        await p.act()
    finally:
        await flusher.flushdb()
        await flusher.aclose()
    out: dict[str, Any] = {"actions_per_app": per_round * rounds, "rounds": rounds, "us_per_request": {},
                           "flow": "post-view" if post_view else "get-post", "us_per_applied": {}}
    for p in players:
        out["us_per_request"][p.name] = {r: round(p.cpu[r] / p.count[r] * 1e6, 1) for r in sorted(p.cpu)}
        out["us_per_applied"][p.name] = round(sum(p.cpu.values()) / max(1, p.applied) * 1e6, 1)
        out["us_per_request"][p.name]["requests"] = dict(p.count)
        for route, prof in p.profiles.items():
            buf = io.StringIO()
            st = pstats.Stats(prof, stream=buf)
            st.sort_stats("cumulative").print_stats(profile_lines)
            st.sort_stats("tottime").print_stats(20)
            out["profile"] = {"route": f"{p.name}-{route}", "text": buf.getvalue()}
    return out


def markdown(res: dict[str, Any]) -> str:
    """The figures as a Markdown table."""
    t, b = res["us_per_request"]["tapis"], res["us_per_request"]["bare"]
    lines = [f"{res['actions_per_app']:,} actions a app in {res['rounds']} interleaved rounds; CPU µs per request "
             "(direct ASGI calls, no sockets):", "",
             "| route | Tapis | bare app | Tapis / bare |", "|---|---|---|---|"]
    for r, label in (("view", "GET /tables/{T}/view"), ("action", "POST /tables/{T}/actions (Tapis: + its worker)")):
        lines.append(f"| {label} | {t[r]:,.0f} | {b[r]:,.0f} | {t[r] / b[r]:.2f}× |")
    ta, ba = res["us_per_applied"]["tapis"], res["us_per_applied"]["bare"]
    lines.append(f"| all requests per applied action ({res['flow']}) | {ta:,.0f} | {ba:,.0f} | {ta / ba:.2f}× |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module doc)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--redis", default="redis://127.0.0.1:6379/12", help="a database of its own: it is flushed")
    p.add_argument("--actions", type=int, default=2000)
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--profile", choices=["tapis-view", "tapis-action", "bare-view", "bare-action"])
    p.add_argument("--profile-lines", type=int, default=30, help="functions listed by cumulative time")
    p.add_argument("--flow", choices=["get-post", "post-view"], default="get-post",
                   help="post-view: each action asks for the next view (?view=true); no GET when the same seat "
                        "plays next")
    p.add_argument("--decide-in-gateway", action="store_true",
                   help="Tapis decides actions in the gateway (TAPIS_DECIDE_IN_GATEWAY) instead of its worker")
    a = p.parse_args(argv)
    try:
        import uvloop

        runner = asyncio.Runner(loop_factory=uvloop.new_event_loop)
    except ImportError:  # pragma: no cover
        runner = asyncio.Runner()
    with runner:
        res = runner.run(run(a.redis, a.actions, a.rounds, a.profile, a.flow == "post-view", a.decide_in_gateway,
                             a.profile_lines))
    print(markdown(res))
    if "profile" in res:
        print(f"cProfile of {res['profile']['route']}:\n{res['profile']['text']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
