"""Headless load driver for the Tapis HTTP API (issue 7; docs/architecture.md,
"Performance budgets").

The driver opens ``tables`` concurrent tables and plays **every seat
itself** as plain HTTP clients (``httpx.AsyncClient``): it creates each
table with no bots, joins all its seats, then loops

1. ``GET /tables/{T}/view`` with the token of a seat it expects to be
   awaited (a wrong guess costs one more view: it then picks a seat from
   the view's ``awaiting``);
2. chooses a random action (uniform over ``legal_actions`` and
   ``choices``, a choice filled at random by :func:`shared.choices.fill`;
   or the game's bot strategy with ``--strategy``, given ``legal_actions``
   plus a few random fillings of each choice);
3. ``POST /tables/{T}/actions?view=true`` with ``expected_version``; a
   409 (e.g. ``stale_version``) is counted and answered by reading the
   view again.  The answer holds the caller's next view: when the same
   seat acts again (a drawn card to play or keep) the next action is
   chosen from it without a ``GET``; otherwise the next ``GET`` goes to
   a seat the answer names as awaited.  ``--flow get-post`` keeps the
   old flow (no ``?view=true``: a ``GET`` before every action, the next
   seat guessed in turn).

When a table's game ends the slot opens a new table, so ``tables`` games
are always in play.  The run is bounded: it stops at ``--duration``
seconds, or once every table slot has applied ``--actions-per-table``
actions, whichever comes first (plus at most one request timeout for the
requests in flight).

It reports applied actions/s, the client-side submit→reply latency (the
POST round trip, p50/p95/p99 in ms), the view latency, errors by HTTP
status and problem ``code``, games started and finished, and the driver's
own CPU time (a saturated driver inflates the latencies it measures).

Usage::

    python loadtests/driver.py --url http://127.0.0.1:8000 --tables 50 \\
        --game maumau --players 4 --duration 30 --out reports/maumau-50

``--url`` may be repeated (tables are spread round-robin over the
gateways).  ``--out reports/NAME`` writes ``NAME.json`` and ``NAME.md``.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx

from shared.choices import fill

#: Problem codes that the protocol expects a client to meet and recover
#: from by re-reading the view.  With one driver coroutine per table none
#: of them should occur; they are still not counted as "unexpected".
RECOVERABLE = frozenset({"409 stale_version"})

#: A table slot gives up its table after this many consecutive failed
#: requests (it then opens a new table), so a broken table cannot spin.
MAX_CONSECUTIVE_ERRORS = 20
#: Random fillings of each of a view's ``choices`` a ``--strategy`` bot picks among.
CHOICE_SAMPLES = 16


@dataclass
class DriverConfig:
    """What to run.

    ``tables``: concurrent tables (each played by one coroutine);
    ``duration_s``: hard bound on the measured phase, seconds;
    ``actions_per_table``: stop a slot after this many applied actions
    (None: only the duration bounds the run); ``options``: table options
    (e.g. ``{"target_score": 20}`` for shorter Mau Mau games);
    ``strategy``: a bot strategy of the game to choose actions with
    (None: uniform random legal action); ``seed``: the driver's choices
    are reproducible per slot given the same server behaviour;
    ``request_timeout_s``: per HTTP request; ``think_mean_s``: human
    pace, the mean of an exponential think time each table waits before
    each of its actions (0: none, the closed loop at full speed);
    ``post_view``: send each action with ``?view=true`` and take the
    caller's next view from the answer (no ``GET`` when the same seat acts
    again; otherwise the next ``GET`` goes to a seat the answer names as
    awaited), False: the old flow (``GET`` the view before every action)."""

    tables: int = 10
    game: str = "maumau"
    players: int = 4
    duration_s: float = 30.0
    actions_per_table: int | None = None
    options: dict[str, Any] = field(default_factory=dict)
    strategy: str | None = None
    seed: int = 0
    request_timeout_s: float = 30.0
    think_mean_s: float = 0.0
    post_view: bool = True


def percentiles(values: Sequence[float], qs: Sequence[float] = (50, 95, 99)) -> dict[str, float]:
    """Summary of ``values`` (seconds) in milliseconds: count, mean, the
    nearest-rank percentiles ``qs`` (keys ``p50``...), max.  Zeros when
    ``values`` is empty."""
    out: dict[str, float] = {"count": len(values)}
    if not values:
        out.update({"mean": 0.0, **{f"p{q:g}": 0.0 for q in qs}, "max": 0.0})
        return out
    s = sorted(values)
    out["mean"] = round(sum(s) / len(s) * 1e3, 3)
    for q in qs:
        k = max(0, math.ceil(q / 100 * len(s)) - 1)
        out[f"p{q:g}"] = round(s[k] * 1e3, 3)
    out["max"] = round(s[-1] * 1e3, 3)
    return out


class _Stop(Exception):
    """Internal: the slot's time or action budget is spent."""


class Driver:
    """Runs one load test.  ``clients``: httpx AsyncClients with their
    ``base_url`` set; table slot ``i`` uses ``clients[i % len(clients)]``
    (see :func:`make_clients`: one per slot).  Use :meth:`run`; the report
    is a JSON-ready dict."""

    def __init__(self, clients: Sequence[httpx.AsyncClient], config: DriverConfig) -> None:
        if not clients:
            raise ValueError("at least one client")
        if config.tables < 1 or config.players < 1:
            raise ValueError("tables and players must be >= 1")
        self.clients = list(clients)
        self.cfg = config
        self._choose_strategy = None
        if config.strategy:
            from shared.games import get_game

            self._choose_strategy = get_game(config.game).strategies[config.strategy]
        self.submit_lat: list[float] = []
        self.view_lat: list[float] = []
        self.setup_lat: list[float] = []
        self.errors: Counter[str] = Counter()
        self.requests: Counter[str] = Counter()
        self.applied = 0
        self.events = 0
        self.games_started = 0
        self.games_finished = 0
        self.view_misses = 0
        self.answer_views = 0
        self.abandoned = 0
        self._deadline = math.inf

    # -- HTTP helpers -----------------------------------------------------
    def _error(self, kind: str, r: httpx.Response | None, exc: BaseException | None = None) -> str:
        if r is None:
            key = f"transport {type(exc).__name__}"
        else:
            try:
                body = r.json()
            except ValueError:  # not JSON (e.g. a proxy's HTML page)
                body = None
            code = body.get("code", "") if isinstance(body, dict) else ""
            key = f"{r.status_code} {code or 'no_code'}"
        self.errors[key] += 1
        return key

    async def _request(self, client: httpx.AsyncClient, kind: str, method: str, url: str,
                       lat: list[float] | None, **kw) -> httpx.Response | None:
        """One request; records its latency in ``lat`` (successes only) and
        its error, if any.  Returns the response, or None on a transport
        error."""
        self.requests[kind] += 1
        t0 = time.perf_counter()
        try:
            r = await client.request(method, url, **kw)
        except httpx.HTTPError as exc:
            self._error(kind, None, exc)
            return None
        dt = time.perf_counter() - t0
        if r.is_success:
            if lat is not None:
                lat.append(dt)
        else:
            self._error(kind, r)
        return r

    # -- one table --------------------------------------------------------
    async def _open_table(self, client: httpx.AsyncClient) -> tuple[str, dict[int, str]] | None:
        cfg = self.cfg
        body = {"game": cfg.game, "players": cfg.players, "options": cfg.options, "bots": {}}
        r = await self._request(client, "create", "POST", "/tables", self.setup_lat, json=body)
        if r is None or r.status_code != 201:
            return None
        tid = r.json()["id"]
        tokens: dict[int, str] = {}
        for seat in range(cfg.players):
            r = await self._request(client, "join", "POST", f"/tables/{tid}/join", self.setup_lat,
                                    json={"seat": seat, "name": f"driver{seat}"})
            if r is None or r.status_code != 200:
                return None
            tokens[r.json()["seat"]] = r.json()["token"]
        self.games_started += 1
        return tid, tokens

    def _choose(self, v: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
        legal, choices = v["legal_actions"], v.get("choices", [])
        if self._choose_strategy is not None:
            # A bot picks from listed actions: each choice as a few random fillings.
            sampled = [fill(c["schema"], rng) for c in choices for _ in range(CHOICE_SAMPLES)]
            return self._choose_strategy(v["view"], legal + sampled, rng)
        i = rng.randrange(len(legal) + len(choices))
        return legal[i] if i < len(legal) else fill(choices[i - len(legal)]["schema"], rng)

    async def _play(self, client: httpx.AsyncClient, tid: str, tokens: dict[int, str], rng: random.Random,
                    budget: list[int]) -> None:
        """Play table ``tid`` until its game ends (returns) or the slot's
        budget or the deadline is spent (raises :class:`_Stop`)."""
        n, think = self.cfg.players, self.cfg.think_mean_s
        auth = {s: {"Authorization": f"Bearer {tok}"} for s, tok in tokens.items()}
        seat, switched, failures, thinking = 0, False, 0, think > 0
        nxt: dict[str, Any] | None = None  # the view an action's answer brought (post_view)
        submit_path = f"/tables/{tid}/actions" + ("?view=true" if self.cfg.post_view else "")
        while True:
            if thinking:  # human pace: a think time before each action (not before re-reads)
                thinking = False
                wait = rng.expovariate(1 / think)
                if time.perf_counter() + wait >= self._deadline:
                    await asyncio.sleep(max(0.0, self._deadline - time.perf_counter()))
                    raise _Stop
                await asyncio.sleep(wait)
            if time.perf_counter() >= self._deadline or budget[0] <= 0:
                raise _Stop
            if failures >= MAX_CONSECUTIVE_ERRORS:
                self.abandoned += 1
                return
            if nxt is not None:
                v, nxt = nxt, None
                self.answer_views += 1
            else:
                r = await self._request(client, "view", "GET", f"/tables/{tid}/view", self.view_lat,
                                        headers=auth[seat])
                if r is None or r.status_code != 200:
                    failures += 1
                    await asyncio.sleep(0.01)
                    continue
                v = r.json()
            if v["status"] == "finished":
                self.games_finished += 1
                return
            aw = v["awaiting"]
            if v["status"] != "playing" or not aw:  # start not applied yet
                self.view_misses += 1
                await asyncio.sleep(0.005)
                continue
            if seat not in aw or not (v["legal_actions"] or v.get("choices")):
                self.view_misses += 1
                seat = rng.choice(aw)
                continue
            if len(aw) > 1 and not switched:
                # Several seats may act (e.g. a call-out window): act as a
                # random one of them, not always the guessed one.
                switched = True
                other = rng.choice(aw)
                if other != seat:
                    self.view_misses += 1
                    seat = other
                    continue
            action = self._choose(v, rng)
            if action is None:  # the strategy declined (optional call-out)
                self.view_misses += 1
                seat = rng.choice([s for s in aw if s != seat] or aw)
                continue
            r = await self._request(client, "submit", "POST", submit_path, self.submit_lat,
                                    headers=auth[seat], json={"action": action, "expected_version": v["version"]})
            if r is None or r.status_code != 200:
                failures += 1
                continue  # 409: re-read the view; others: counted, retried from a fresh view
            failures = 0
            self.applied += 1
            answer = r.json()
            self.events += answer["version"] - v["version"]
            budget[0] -= 1
            switched, thinking = False, think > 0
            after = answer.get("view")
            if after is None:
                seat = (seat + 1) % n
            elif after["status"] != "playing" or (seat in after["awaiting"] and (after["legal_actions"]
                                                                                 or after.get("choices"))):
                nxt = after  # over, or this seat acts again: no GET
            elif after["awaiting"]:
                seat = rng.choice(after["awaiting"])
            else:
                seat = (seat + 1) % n

    async def _slot(self, i: int, first: tuple[str, dict[int, str]] | None) -> None:
        client = self.clients[i % len(self.clients)]
        rng = random.Random(self.cfg.seed * 1_000_003 + i)
        budget = [self.cfg.actions_per_table if self.cfg.actions_per_table is not None else 1 << 62]
        table = first
        try:
            while time.perf_counter() < self._deadline and budget[0] > 0:
                if table is None:
                    table = await self._open_table(client)
                    if table is None:
                        await asyncio.sleep(0.05)
                        continue
                await self._play(client, table[0], table[1], rng, budget)
                table = None
        except _Stop:
            pass

    async def run(self, on_play_start=None) -> dict[str, Any]:
        """Open the tables (setup, not measured), then play them until the
        duration or the action budget is spent; returns the report (see
        :func:`to_markdown` for its fields).  ``on_play_start``: a plain
        callable run once between setup and play (the service bench starts
        its CPU counters and profilers there)."""
        cfg = self.cfg
        t_setup = time.perf_counter()
        # Setup: create and join every table, a bounded number at a time.
        sem = asyncio.Semaphore(32)

        async def open_one(i: int):
            async with sem:
                return await self._open_table(self.clients[i % len(self.clients)])

        firsts = await asyncio.gather(*(open_one(i) for i in range(cfg.tables)))
        setup_s = time.perf_counter() - t_setup
        if on_play_start is not None:
            on_play_start()
        # Only the play phase is measured.
        self.submit_lat.clear()
        self.view_lat.clear()
        base_requests = Counter(self.requests)
        cpu0, t0 = time.process_time(), time.perf_counter()
        self._deadline = t0 + cfg.duration_s
        slots = [asyncio.create_task(self._slot(i, firsts[i])) for i in range(cfg.tables)]
        try:
            # Requests in flight at the deadline get one timeout to finish.
            await asyncio.wait_for(asyncio.gather(*slots), cfg.duration_s + cfg.request_timeout_s + 5)
        except TimeoutError:
            pass
        finally:
            for s in slots:
                s.cancel()
            await asyncio.gather(*slots, return_exceptions=True)
        elapsed = time.perf_counter() - t0
        cpu = time.process_time() - cpu0
        played = Counter(self.requests)
        played.subtract(base_requests)
        unexpected = sum(n for k, n in self.errors.items() if k not in RECOVERABLE)
        return {
            "config": asdict(cfg),
            "gateways": sorted({str(c.base_url).rstrip("/") for c in self.clients}),
            "setup_s": round(setup_s, 3),
            "elapsed_s": round(elapsed, 3),
            "actions_applied": self.applied,
            "actions_per_s": round(self.applied / elapsed, 1) if elapsed > 0 else 0.0,
            "events_appended": self.events,
            "submit_ms": percentiles(self.submit_lat),
            "view_ms": percentiles(self.view_lat),
            "setup_ms": percentiles(self.setup_lat),
            "requests": dict(sorted(self.requests.items())),
            "requests_per_s": round(sum(played.values()) / elapsed, 1) if elapsed > 0 else 0.0,
            "view_misses": self.view_misses,
            "views_in_answers": self.answer_views,
            "errors": dict(sorted(self.errors.items())),
            "unexpected_errors": unexpected,
            "games_started": self.games_started,
            "games_finished": self.games_finished,
            "tables_abandoned": self.abandoned,
            "driver_cpu_s": round(cpu, 3),
            "driver_cpu_share": round(cpu / elapsed, 3) if elapsed > 0 else 0.0,
        }


#: HTTP clients the driver can use: "fast" (:mod:`loadtests.fasthttp`,
#: the default) or "httpx" (the driver's client until issue 14).
CLIENTS = ("fast", "httpx")


def make_clients(urls: Sequence[str], tables: int, timeout_s: float = 30.0, client: str = "fast") -> list[Any]:
    """One small client per table slot, the slots spread round-robin over
    the gateway ``urls``; ``client``: one of :data:`CLIENTS`.

    One client per slot rather than one big pool per gateway: httpcore's
    pool scans every connection on each request, which with 200 pooled
    connections cost the driver ~3 ms of CPU per request and made the
    client, not the service, the bottleneck.  "fast" costs about a
    quarter of httpx's CPU per request (docs/performance.md)."""
    if client == "fast":
        try:
            from loadtests.fasthttp import FastClient
        except ImportError:  # run as a script: loadtests/ is the path
            from fasthttp import FastClient  # type: ignore[no-redef]

        return [FastClient(urls[i % len(urls)], timeout=timeout_s) for i in range(tables)]
    if client != "httpx":
        raise ValueError(f"client: one of {CLIENTS}")
    limits = httpx.Limits(max_connections=2, max_keepalive_connections=2)
    return [httpx.AsyncClient(base_url=urls[i % len(urls)], timeout=timeout_s, limits=limits)
            for i in range(tables)]


async def drive(urls: Sequence[str], config: DriverConfig, on_play_start=None, client: str = "fast") -> dict[str, Any]:
    """Run the driver against gateway ``urls`` with ``client`` clients (see
    :func:`make_clients`; closed after); returns the report (``client``
    names the client).  ``on_play_start``: see :meth:`Driver.run`."""
    clients = make_clients(urls, config.tables, config.request_timeout_s, client)
    try:
        report = await Driver(clients, config).run(on_play_start)
        report["client"] = client
        return report
    finally:
        for c in clients:
            await c.aclose()


def capacity_of(reports: Sequence[dict[str, Any]], p99_ms: float = 100.0) -> int:
    """The most tables of ``reports`` (steps of a ramp) whose submit→reply
    p99 stayed within ``p99_ms`` with no unexpected error and at least one
    applied action (0: none did)."""
    ok = [r["config"]["tables"] for r in reports
          if r["submit_ms"]["p99"] <= p99_ms and r["unexpected_errors"] == 0 and r["actions_applied"] > 0]
    return max(ok, default=0)


async def find_capacity(urls: Sequence[str], config: DriverConfig, counts: Sequence[int], p99_ms: float = 100.0,
                        client: str = "fast") -> dict[str, Any]:
    """Run ``config`` with each table count of ``counts`` in turn (fresh
    tables each step), stopping after the first step whose submit→reply
    p99 exceeds ``p99_ms`` (or that meets an unexpected error).  Returns
    ``{"p99_ms", "steps": [report, ...], "capacity": tables}``
    (:func:`capacity_of`)."""
    steps: list[dict[str, Any]] = []
    for n in counts:
        cfg = DriverConfig(**{**asdict(config), "tables": n})
        steps.append(await drive(urls, cfg, client=client))
        if steps[-1]["submit_ms"]["p99"] > p99_ms or steps[-1]["unexpected_errors"]:
            break
    return {"p99_ms": p99_ms, "steps": steps, "capacity": capacity_of(steps, p99_ms)}


def capacity_markdown(ramp: dict[str, Any]) -> str:
    """A capacity ramp as Markdown: a row per step, then the capacity."""
    lines = ["| tables | think mean s | actions/s | submit p50 / p99 ms | view p99 ms | errors "
             "| driver CPU ms/action |", "|---|---|---|---|---|---|---|"]
    for r in ramp["steps"]:
        s, n = r["submit_ms"], max(1, r["actions_applied"])
        lines.append(f"| {r['config']['tables']:,} | {r['config']['think_mean_s']:g} | {r['actions_per_s']:,.1f} | "
                     f"{s['p50']:.1f} / {s['p99']:.1f} | {r['view_ms']['p99']:.1f} | {sum(r['errors'].values())} | "
                     f"{r['driver_cpu_s'] / n * 1e3:.2f} |")
    lines += ["", f"Capacity: **{ramp['capacity']:,} tables** with submit→reply p99 ≤ {ramp['p99_ms']:g} ms.", ""]
    return "\n".join(lines)


def to_markdown(report: dict[str, Any], title: str | None = None) -> str:
    """The report as a small Markdown document (one table of figures, the
    errors, the configuration)."""
    c = report["config"]
    s, v = report["submit_ms"], report["view_ms"]
    bound = f"{c['duration_s']:g} s" + (f" or {c['actions_per_table']} actions/table" if c["actions_per_table"] else "")
    pace = (f"human pace (think time exponential, mean {c['think_mean_s']:g} s, before each action)"
            if c.get("think_mean_s") else "no think time (closed loop)")
    lines = [
        f"## {title or 'Tapis load driver'}",
        "",
        (f"{c['tables']} tables of {c['players']}-player {c['game']} (options {json.dumps(c['options'])}), "
         f"every seat played over HTTP by the driver ({report.get('client', 'httpx')} client), {pace}; "
         f"bound: {bound}; gateways: {', '.join(report['gateways'])}."),
        "",
        "| figure | value |",
        "|---|---|",
        f"| applied actions/s | **{report['actions_per_s']:,.1f}** ({report['actions_applied']:,} in {report['elapsed_s']:.1f} s) |",
        f"| submit→reply (POST round trip) p50 / p95 / p99 / max | {s['p50']:.1f} / {s['p95']:.1f} / **{s['p99']:.1f}** / {s['max']:.1f} ms |",
        f"| view (GET) p50 / p95 / p99 | {v['p50']:.1f} / {v['p95']:.1f} / {v['p99']:.1f} ms |",
        f"| HTTP requests/s (all kinds) | {report['requests_per_s']:,.1f} |",
        f"| events appended | {report['events_appended']:,} |",
        f"| games started / finished | {report['games_started']} / {report['games_finished']} |",
        f"| views not followed by an action (seat not awaited, or another awaited seat chosen) | {report['view_misses']:,} |",
        f"| views taken from an action's answer (no GET) | {report.get('views_in_answers', 0):,} |",
        f"| errors (unexpected) | {sum(report['errors'].values())} ({report['unexpected_errors']}) |",
        f"| driver CPU | {report['driver_cpu_s']:.1f} s ({report['driver_cpu_share']:.0%} of one core) |",
        f"| setup (create + join every table) | {report['setup_s']:.1f} s |",
        "",
    ]
    if report["errors"]:
        lines += ["| error (status code) | count |", "|---|---|"]
        lines += [f"| {k} | {n} |" for k, n in report["errors"].items()]
        lines.append("")
    return "\n".join(lines)


def write_report(report: dict[str, Any], out: str | os.PathLike, title: str | None = None) -> tuple[Path, Path]:
    """Write ``out.json`` and ``out.md`` (parent folders created); returns
    both paths."""
    base = Path(out)
    base.parent.mkdir(parents=True, exist_ok=True)
    pj, pm = base.with_name(base.name + ".json"), base.with_name(base.name + ".md")
    pj.write_text(json.dumps(report, indent=2) + "\n")
    pm.write_text(to_markdown(report, title) + "\n")
    return pj, pm


def run_sync(coro):
    """Run ``coro`` on uvloop when installed (a cheaper client loop), else
    asyncio."""
    try:
        import uvloop
    except ImportError:  # pragma: no cover
        return asyncio.run(coro)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(coro)


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module doc); exit code 1 when there were
    unexpected errors or nothing was applied."""
    import typer

    _find_capacity = find_capacity
    app = typer.Typer(add_completion=False)

    @app.command()
    def cli(
        url: list[str] = typer.Option(..., help="Gateway base URL (repeat for several gateways)."),
        tables: int = typer.Option(10, min=1, max=100_000, help="Concurrent tables."),
        game: str = typer.Option("maumau", help="Game id."),
        players: int = typer.Option(4, min=1, max=12, help="Seats per table (all played by the driver)."),
        duration: float = typer.Option(30.0, min=0.1, help="Seconds of play (hard bound)."),
        actions_per_table: int | None = typer.Option(None, min=1, help="Stop each table slot after this many applied actions."),
        options: str = typer.Option("{}", help="Table options as JSON, e.g. '{\"target_score\": 20}'."),
        strategy: str | None = typer.Option(None, help="Choose with this bot strategy of the game instead of uniformly."),
        seed: int = typer.Option(0, help="Seed of the driver's choices."),
        timeout: float = typer.Option(30.0, min=0.1, help="Per-request timeout, seconds."),
        out: str | None = typer.Option(None, help="Write OUT.json and OUT.md (e.g. reports/maumau-200)."),
        client: str = typer.Option("fast", help=f"HTTP client: one of {', '.join(CLIENTS)}."),
        think_mean: float = typer.Option(0.0, min=0.0, help="Human pace: mean think time (s, exponential) before "
                                         "each action of a table (0: none)."),
        find_capacity: str | None = typer.Option(None, help="Ramp: comma list of table counts (e.g. "
                                                 "500,1000,2000,3000), run in turn until p99 > --p99-ms."),
        p99_ms: float = typer.Option(100.0, help="The submit→reply p99 bound of --find-capacity, ms."),
        flow: str = typer.Option("post-view", help="post-view: each action asks for the caller's next view "
                                 "(?view=true); get-post: GET the view before every action (the old flow)."),
    ) -> None:
        if flow not in ("post-view", "get-post"):
            raise typer.BadParameter("--flow: post-view or get-post")
        cfg = DriverConfig(tables=tables, game=game, players=players, duration_s=duration,
                           actions_per_table=actions_per_table, options=json.loads(options), strategy=strategy,
                           seed=seed, request_timeout_s=timeout, think_mean_s=think_mean,
                           post_view=flow == "post-view")
        if find_capacity:
            counts = [int(x) for x in find_capacity.split(",") if x.strip()]
            ramp = run_sync(_find_capacity(url, cfg, counts, p99_ms, client))
            print(capacity_markdown(ramp))
            if out:
                Path(out).parent.mkdir(parents=True, exist_ok=True)
                Path(out + ".json").write_text(json.dumps(ramp, indent=2) + "\n")
                Path(out + ".md").write_text(capacity_markdown(ramp) + "\n")
            raise typer.Exit(0 if ramp["capacity"] > 0 else 1)
        report = run_sync(drive(url, cfg, client=client))
        print(to_markdown(report))
        if out:
            pj, pm = write_report(report, out)
            print(f"wrote {pj} and {pm}")
        raise typer.Exit(0 if report["actions_applied"] > 0 and report["unexpected_errors"] == 0 else 1)

    # standalone_mode=False: click returns the code of a typer.Exit
    # instead of calling sys.exit (usage errors still raise).
    return int(app(argv, standalone_mode=False) or 0)


if __name__ == "__main__":
    sys.exit(main())
