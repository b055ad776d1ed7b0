"""Service load benchmark: real processes, real Redis (issue 2; the budgets
are in docs/architecture.md, "Performance budgets").

Starts ``tapis gateway`` ×G and ``tapis worker`` ×W as separate processes
on the real Redis (database 13 by default, flushed before and after),
runs the headless driver (:mod:`loadtests.driver`) against the gateways
— by default 200 concurrent tables of 4-player Mau Mau, every seat
played over HTTP — and prints:

* the driver's figures: applied actions/s, client-side submit→reply
  (POST round trip) p50/p95/p99, view latency, errors, games finished;
* the CPU seconds each process used during the play phase (driver,
  gateways, workers, and the Redis server, which may also serve others);
* the server-side histograms scraped from each process's ``/metrics``
  before and after (HTTP latency by route, the gateway's submit→reply,
  the worker's apply time and command lag), and Redis ``commandstats``;
* with ``--profile``: a py-spy profile of every gateway and worker
  (sampling makes them slower: profile in a run of its own), folded into
  the share of CPU samples per library/area and the top functions;
* with ``--peer bare``: the comparison with the bare app (below);
* the in-process engine figure (random 4-player Mau Mau games/s and
  actions/s, from ``loadtests/bench_maumau.py``'s ``random_game``).

Usage::

    python loadtests/run_service_bench.py                       # 1 gateway, 2 workers, 200 tables, 30 s
    python loadtests/run_service_bench.py --gateways 2 --out reports/service-2gw
    python loadtests/run_service_bench.py --duration 20 --profile --out reports/service-profile
    python loadtests/run_service_bench.py --tables 50 --duration 20 --peer bare --out reports/vs-bare

``--peer bare``: after Tapis, the same driver steps against the bare app
(``loadtests/bare_app.py``: the same routes, one Redis round trip each, no
rules, no worker) started on ``--port-base + 40``, and a side-by-side
table of both with the ratios Tapis / bare (issue 14).

Ports: gateways from ``--port-base`` (19100), worker metrics from
``--port-base + 50``; everything listens on 127.0.0.1 only.  Every
process started is stopped on exit, failures included.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from driver import DriverConfig, capacity_of, drive, run_sync, to_markdown

DEFAULT_REDIS = "redis://127.0.0.1:6379/13"
CLK_TCK = os.sysconf("SC_CLK_TCK")

@dataclass
class Proc:
    """One process the bench started (or, for Redis, observes)."""

    role: str
    pid: int
    popen: subprocess.Popen | None = None
    metrics_url: str | None = None
    log: Path | None = None
    cpu0: float = 0.0


@dataclass
class Cluster:
    """The processes of one bench run."""

    redis_url: str
    gateways: list[Proc] = field(default_factory=list)
    workers: list[Proc] = field(default_factory=list)

    @property
    def started(self) -> list[Proc]:
        """Every process this bench started."""
        return self.gateways + self.workers


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (from /proc; 0.0 when
    it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            parts = f.read().rsplit(")", 1)[1].split()
        return (int(parts[11]) + int(parts[12])) / CLK_TCK
    except (OSError, IndexError, ValueError):
        return 0.0


def flush_db(redis_url: str) -> None:
    """FLUSHDB on the bench's own database (never another one)."""
    import redis

    r = redis.Redis.from_url(redis_url, socket_connect_timeout=2)
    try:
        r.flushdb()
    finally:
        r.close()


def redis_info(redis_url: str) -> dict[str, Any]:
    """The Redis server's pid, CPU seconds and per-command stats
    (``INFO``; server-wide, so other clients of the server count too)."""
    import redis

    r = redis.Redis.from_url(redis_url, socket_connect_timeout=2)
    try:
        info = r.info("all")
    finally:
        r.close()
    stats = {k[len("cmdstat_"):]: {"calls": v["calls"], "usec": v["usec"]}
             for k, v in info.items() if k.startswith("cmdstat_")}
    return {"pid": info.get("process_id"), "cpu_s": info["used_cpu_user"] + info["used_cpu_sys"], "commands": stats}


def decide_in() -> str:
    """``gateway`` or ``worker``: who decides people's actions in the
    servers this bench starts (``TAPIS_DECIDE_IN_GATEWAY``, inherited from
    this process's environment; default: the gateway)."""
    from services.config import Settings

    return "gateway" if Settings(redis_url=None).decide_in_gateway else "worker"


def start_cluster(redis_url: str, gateways: int, workers: int, port_base: int, shards: int, logdir: Path,
                  extra_pythonpath: str | None = None) -> Cluster:
    """Start ``workers`` workers and ``gateways`` gateways; wait until every
    gateway answers ``/readyz`` and every worker its ``/metrics``.

    Gateways are ``python -m services.cli gateway``, workers ``python -m
    services.cli worker --bots none`` with their /metrics on loopback.
    ``extra_pythonpath`` is prepended to the servers' PYTHONPATH (e.g. a
    folder of packages installed aside).  On failure, stops what it
    started and raises RuntimeError."""
    # One client address drives every table: the rate limits are off (the
    # bench measures the service, not its limiter).
    env = {**os.environ, "TAPIS_REDIS_URL": redis_url, "TAPIS_SHARDS": str(shards), "TAPIS_RATE_LIMITS": "false"}
    env.pop("TAPIS_METRICS_PORT", None)
    if extra_pythonpath:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (extra_pythonpath, env.get("PYTHONPATH")) if p)
    logdir.mkdir(parents=True, exist_ok=True)
    cl = Cluster(redis_url)

    def spawn(role: str, args: list[str], metrics_url: str) -> Proc:
        log = logdir / f"{role}.log"
        with log.open("wb") as out:
            p = subprocess.Popen([sys.executable, *args], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                 start_new_session=True)
        return Proc(role, p.pid, p, metrics_url, log)

    try:
        for i in range(workers):
            port = port_base + 50 + i
            args = ["-m", "services.cli", "worker", "--redis", redis_url, "--bots", "none", "--metrics-port", str(port),
                    "--metrics-host", "127.0.0.1", "--log-level", "warning"]
            cl.workers.append(spawn(f"worker{i}", args, f"http://127.0.0.1:{port}/metrics"))
        for i in range(gateways):
            port = port_base + i
            args = ["-m", "services.cli", "gateway", "--host", "127.0.0.1", "--port", str(port), "--redis",
                    redis_url, "--log-level", "warning"]
            cl.gateways.append(spawn(f"gateway{i}", args, f"http://127.0.0.1:{port}/metrics"))
        deadline = time.monotonic() + 60
        for proc in cl.started:
            base = proc.metrics_url.rsplit("/", 1)[0]
            wait_ready(proc, base + ("/readyz" if proc.role.startswith("gateway") else "/metrics"), deadline)
        return cl
    except BaseException:
        stop_cluster(cl)
        raise


def wait_ready(proc: Proc, url: str, deadline: float) -> None:
    """Poll ``url`` until it answers 200; RuntimeError when ``proc`` exits
    first or at ``deadline`` (``time.monotonic()``)."""
    while True:
        if proc.popen is not None and proc.popen.poll() is not None:
            raise RuntimeError(f"{proc.role} exited ({proc.popen.returncode}); see {proc.log}")
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{proc.role} not ready after 60 s; see {proc.log}")
        time.sleep(0.1)


def start_bare(redis_url: str, port: int, logdir: Path, extra_pythonpath: str | None = None,
               processes: int = 1) -> Cluster:
    """Start ``processes`` bare apps (``loadtests/bare_app.py``) on ``port``,
    ``port + 1``... as the cluster's "gateways" (roles ``bare0``, ``bare1``...,
    no workers: the same count as Tapis' gateways, so the driver spreads the
    tables alike); wait until each answers ``/readyz``.  On failure, stops
    them and raises RuntimeError."""
    env = {**os.environ, "TAPIS_REDIS_URL": redis_url}
    if extra_pythonpath:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (extra_pythonpath, env.get("PYTHONPATH")) if p)
    logdir.mkdir(parents=True, exist_ok=True)
    procs = []
    for i in range(processes):
        log = logdir / f"bare{i}.log"
        with log.open("wb") as out:
            p = subprocess.Popen([sys.executable, str(HERE / "bare_app.py"), "--port", str(port + i),
                                  "--redis", redis_url],
                                 cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        procs.append(Proc(f"bare{i}", p.pid, p, f"http://127.0.0.1:{port + i}/metrics", log))
    cl = Cluster(redis_url, gateways=procs)
    try:
        deadline = time.monotonic() + 60
        for i, proc in enumerate(procs):
            wait_ready(proc, f"http://127.0.0.1:{port + i}/readyz", deadline)
        return cl
    except BaseException:
        stop_cluster(cl)
        raise


def code_version() -> str:
    """``git describe``-like id of the checkout the servers run: the short
    commit, plus ``+dirty`` when services/ or shared/ have local changes."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              timeout=10, check=False).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "services", "shared"], cwd=ROOT,
                               capture_output=True, text=True, timeout=10, check=False).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return (head or "unknown") + ("+dirty" if dirty else "")


def machine_busy_seconds() -> float:
    """CPU seconds the whole machine spent busy (all cores, from
    /proc/stat: everything but idle and iowait)."""
    with open("/proc/stat") as f:
        vals = [int(x) for x in f.readline().split()[1:]]
    return (sum(vals) - vals[3] - (vals[4] if len(vals) > 4 else 0)) / CLK_TCK


def stop_cluster(cl: Cluster) -> None:
    """SIGTERM every process started (its whole session), SIGKILL after 5 s."""
    for proc in cl.started:
        if proc.popen is not None and proc.popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
    for proc in cl.started:
        if proc.popen is None:
            continue
        try:
            proc.popen.wait(5)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.popen.wait(5)


# -- server metrics ---------------------------------------------------------------

#: Histograms worth reading after a run: name -> label to split by.
HISTOGRAMS = {
    "tapis_http_request_duration_seconds": "route",
    "tapis_submit_reply_seconds": None,
    "tapis_apply_duration_seconds": None,
    "tapis_command_lag_seconds": None,
    "tapis_rebuild_duration_seconds": "source",
}


def scrape(url: str) -> dict[tuple[str, str], dict[str, float]]:
    """Read the histograms of :data:`HISTOGRAMS` from a ``/metrics`` URL:
    ``(name, label value) -> {"sum", "count", "le:<bound>": cumulative}``
    (label values of one process added up).  Empty on error."""
    from prometheus_client.parser import text_string_to_metric_families

    out: dict[tuple[str, str], dict[str, float]] = defaultdict(lambda: defaultdict(float))
    try:
        text = httpx.get(url, timeout=5).text
    except httpx.HTTPError:
        return {}
    for fam in text_string_to_metric_families(text):
        if fam.name not in HISTOGRAMS:
            continue
        split = HISTOGRAMS[fam.name]
        for s in fam.samples:
            if split == "route" and s.labels.get("route") not in ("/tables/{table}/actions", "/tables/{table}/view"):
                continue
            key = (fam.name, s.labels.get(split, "") if split else "")
            if s.name.endswith("_sum"):
                out[key]["sum"] += s.value
            elif s.name.endswith("_count"):
                out[key]["count"] += s.value
            elif s.name.endswith("_bucket"):
                out[key]["le:" + s.labels["le"]] += s.value
    return out


def histogram_delta(before: dict, after: dict) -> dict[str, dict[str, float]]:
    """Per histogram (``name[label]``): count, mean ms and bucket-estimated
    p50/p99 ms (the upper bound of the bucket holding the quantile) of the
    observations made between the two scrapes."""
    res: dict[str, dict[str, float]] = {}
    for key, a in after.items():
        b = before.get(key, {})
        n = a.get("count", 0) - b.get("count", 0)
        if n <= 0:
            continue
        total = a.get("sum", 0) - b.get("sum", 0)
        buckets = sorted(((float(k[3:]), a[k] - b.get(k, 0)) for k in a if k.startswith("le:")), key=lambda x: x[0])
        est = {}
        for q in (0.5, 0.99):
            for bound, c in buckets:
                if c >= q * n:
                    est[f"p{int(q * 100)}_le"] = bound * 1e3
                    break
        name = key[0].removeprefix("tapis_").removesuffix("_seconds") + (f"[{key[1]}]" if key[1] else "")
        res[name] = {"count": int(n), "mean_ms": round(total / n * 1e3, 3), **est}
    return res


def merge_scrapes(scrapes: list[dict]) -> dict:
    """Add up scrapes of several processes."""
    out: dict = defaultdict(lambda: defaultdict(float))
    for s in scrapes:
        for key, vals in s.items():
            for k, v in vals.items():
                out[key][k] += v
    return out


# -- py-spy -----------------------------------------------------------------------

AREAS = [  # (area, substring of the frame's file path), first match wins
    ("engine (shared/)", "/shared/"),
    ("tapis gateway", "/services/gateway/"),
    ("tapis worker", "/services/worker/"),
    ("tapis store", "/services/store/"),
    ("tapis metrics", "/services/metrics"),
    ("tapis other", "/services/"),
    ("prometheus_client", "/prometheus_client/"),
    ("pydantic", "/pydantic"),
    ("fastapi", "/fastapi/"),
    ("starlette", "/starlette/"),
    ("uvicorn/httptools", "/uvicorn/"),
    ("redis-py", "/redis/"),
    ("httpx/httpcore/h11", "/httpx/"),
    ("httpx/httpcore/h11", "/httpcore/"),
    ("httpx/httpcore/h11", "/h11/"),
    ("uvloop", "/uvloop/"),
    ("msgpack", "/msgpack/"),
    ("json", "/json/"),
    ("asyncio", "/asyncio/"),
    ("asyncio", "/selectors.py"),
    ("anyio", "/anyio/"),
]


#: Frames on every stack (process start, event loop): left out of the
#: inclusive top list.
BOILERPLATE = ("typer/", "_click/", "<frozen runpy>", "<module>", "asyncio/runners.py", "asyncio/base_events.py",
               "uvicorn/main.py", "uvicorn/server.py", "uvicorn/_compat.py", "services/cli.py", "asyncio/events.py")


def _frame_file(frame: str) -> str:
    # "function (path/to/file.py:123)"
    i = frame.rfind(" (")
    return frame[i + 2:-1] if i >= 0 else frame


def _frame_func(frame: str) -> str:
    i = frame.rfind(" (")
    if i < 0:
        return frame
    path, _, line = frame[i + 2:-1].rpartition(":")
    for marker in ("/site-packages/", "/lib/python3", "/work/main/"):
        j = path.find(marker)
        if j >= 0:
            path = path[j + len(marker):]
            if marker == "/lib/python3":
                path = path.split("/", 1)[-1]
            break
    return f"{frame[:i]} ({path}:{line})"


def area_of(frame: str) -> str:
    """The library or part of Tapis a stack frame belongs to."""
    f = _frame_file(frame)
    for name, sub in AREAS:
        if sub in f:
            return name
    return "other"


#: Innermost frames of a thread waiting for I/O (py-spy's own idle
#: detection misses some of them here): such samples are not CPU time.
IDLE_LEAVES = ("Selector.select (", "_PollLikeSelector.select (", "serve_forever (", "Condition.wait (",
               "Event.wait (", "_worker (concurrent/futures/thread.py")


def fold_profile(raw_path: Path, top: int = 15) -> dict[str, Any]:
    """Summarise a py-spy ``--format raw`` file: ``samples`` (busy ones:
    samples whose innermost frame waits for I/O are counted in ``idle``
    and left out); ``self_by_area`` (share of busy samples whose innermost
    frame is in each area); ``inclusive_by_area`` (share with that area
    anywhere on the stack); ``top_self`` / ``top_inclusive`` functions."""
    samples = idle = 0
    self_area: Counter[str] = Counter()
    incl_area: Counter[str] = Counter()
    self_fn: Counter[str] = Counter()
    incl_fn: Counter[str] = Counter()
    for line in raw_path.read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        if not stack or not n.isdigit():
            continue
        k = int(n)
        frames = [f for f in stack.split(";") if f and not f.startswith("process ") and not f.startswith("thread ")]
        if not frames:
            continue
        if any(x in frames[-1] for x in IDLE_LEAVES):
            idle += k
            continue
        samples += k
        self_area[area_of(frames[-1])] += k
        self_fn[_frame_func(frames[-1])] += k
        for a in {area_of(f) for f in frames}:
            incl_area[a] += k
        for fn in {_frame_func(f) for f in frames}:
            incl_fn[fn] += k
    if not samples:
        return {"samples": 0, "idle": idle}

    def share(c: Counter, m: int | None = None) -> list[tuple[str, float]]:
        return [(k, round(v / samples, 3)) for k, v in c.most_common(m)]

    for fn in list(incl_fn):
        if any(b in fn for b in BOILERPLATE):
            del incl_fn[fn]
    return {
        "samples": samples,
        "idle": idle,
        "self_by_area": share(self_area),
        "inclusive_by_area": share(incl_area),
        "top_self": share(self_fn, top),
        "top_inclusive": share(incl_fn, top * 2),
    }


def start_pyspy(procs: list[Proc], seconds: float, outdir: Path, tag: str = "",
                rate: int = 100) -> list[tuple[Proc, subprocess.Popen, Path]]:
    """Start ``py-spy record`` (raw folded stacks) on each process for
    ``seconds``; returns (process, py-spy Popen, output path)."""
    out = []
    outdir.mkdir(parents=True, exist_ok=True)
    for proc in procs:
        path = outdir / f"pyspy-{proc.role}{'-' + tag if tag else ''}.txt"
        p = subprocess.Popen(
            ["py-spy", "record", "--pid", str(proc.pid), "--duration", str(max(1, int(seconds))), "--rate", str(rate),
             "--format", "raw", "--full-filenames", "--output", str(path)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        out.append((proc, p, path))
    return out


# -- the engine figure --------------------------------------------------------------

def engine_figure(games: int, players: int = 4) -> dict[str, Any]:
    """Random ``players``-player Mau Mau in-process figures from
    ``loadtests/bench_maumau.py``, run in a fresh process (after a service
    run this process's big heap would make the cyclic GC, not the engine,
    the cost).  Returns games/s and actions/s of the random loop,
    decide+evolve actions/s, the mean rebuild time (all per CPU second)
    and the tool's ``output`` lines.  Raises RuntimeError if it fails."""
    res = subprocess.run([sys.executable, str(HERE / "bench_maumau.py"), "--games", str(games), "--players",
                          str(players), "--duel", "0"], cwd=ROOT, capture_output=True, text=True, timeout=600,
                         check=False)
    if res.returncode != 0:
        raise RuntimeError(f"bench_maumau.py failed: {res.stderr[-500:]}")
    out = res.stdout
    num = r"([0-9][0-9,]*(?:\.[0-9]+)?)"

    def grab(pattern: str) -> float:
        m = re.search(pattern, out)
        if m is None:
            raise RuntimeError(f"bench_maumau.py output changed: no {pattern!r} in {out!r}")
        return float(m.group(1).replace(",", ""))

    return {
        "games": games, "players": players,
        "games_per_cpu_s": grab(r"random loop.*?: " + num + " games/s"),
        "actions_per_cpu_s": grab(r"random loop.*?games/s, " + num + " actions/s"),
        "decide_evolve_per_cpu_s": grab(r"decide\+evolve only.*?: +" + num + " actions/s"),
        "rebuild_ms": grab(r"\(fold\): +" + num + " ms"),
        "actions_per_game": grab(r"\(" + num + r" actions/game\)"),
        "output": [line for line in out.splitlines() if line.strip()],
    }


# -- the run ------------------------------------------------------------------------

def measure_step(cl: Cluster, cfg: DriverConfig, *, profile: bool, logdir: Path, tag: str,
                 client: str = "fast") -> dict[str, Any]:
    """Run the driver once against the cluster's gateways; returns the
    driver report with ``processes_cpu_s`` (per process, plus the whole
    machine and "others"), ``server`` histograms, ``redis_commands`` and,
    with ``profile``, a py-spy ``profile`` per gateway and worker."""
    marks: dict[str, Any] = {}
    spies: list = []

    def on_play_start() -> None:
        marks["scrape0"] = [scrape(p.metrics_url) for p in cl.started]
        marks["redis0"] = redis_info(cl.redis_url)
        for p in cl.started:
            p.cpu0 = cpu_seconds(p.pid)
        marks["machine0"] = machine_busy_seconds()
        marks["load0"] = os.getloadavg()
        marks["t0"] = time.perf_counter()
        if profile:
            spies.extend(start_pyspy(cl.started, cfg.duration_s, logdir, tag))

    urls = [p.metrics_url.rsplit("/", 1)[0] for p in cl.gateways]
    try:
        report = run_sync(drive(urls, cfg, on_play_start, client=client))
        wall = time.perf_counter() - marks["t0"]
        machine = machine_busy_seconds() - marks["machine0"]
        procs = {p.role: round(cpu_seconds(p.pid) - p.cpu0, 2) for p in cl.started}
        r1 = redis_info(cl.redis_url)
        procs["redis-server"] = round(r1["cpu_s"] - marks["redis0"]["cpu_s"], 2)
        procs["driver"] = report["driver_cpu_s"]
        mine = sum(procs.values())
        report["processes_cpu_s"] = procs
        report["machine_busy_cpu_s"] = round(machine, 2)
        report["others_cpu_s"] = round(max(0.0, machine - mine), 2)
        report["processes_wall_s"] = round(wall, 2)
        report["loadavg_at_start"] = [round(x, 2) for x in marks["load0"]]
        report["server"] = histogram_delta(merge_scrapes(marks["scrape0"]),
                                           merge_scrapes([scrape(p.metrics_url) for p in cl.started]))
        cmd = {}
        for k, v in r1["commands"].items():
            b = marks["redis0"]["commands"].get(k, {"calls": 0, "usec": 0})
            calls, usec = v["calls"] - b["calls"], v["usec"] - b["usec"]
            if calls > 0:
                cmd[k] = {"calls": calls, "usec": usec, "usec_per_call": round(usec / calls, 1)}
        report["redis_commands"] = dict(sorted(cmd.items(), key=lambda kv: -kv[1]["usec"]))
        if spies:
            prof = {}
            for proc, p, path in spies:
                try:
                    p.wait(30)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
                if path.exists():
                    prof[proc.role] = fold_profile(path)
                else:
                    prof[proc.role] = {"error": (p.stderr.read() or b"").decode()[-500:]}
            report["profile"] = prof
        return report
    finally:
        for _proc, p, _path in spies:
            if p.poll() is None:
                p.kill()
                p.wait()


def run_bench(*, gateways: int = 1, workers: int = 2, tables: tuple[int, ...] = (200,), players: int = 4,
              game: str = "maumau", duration: float = 30.0, options: dict | None = None,
              redis_url: str = DEFAULT_REDIS, port_base: int = 19100, shards: int = 4, profile: bool = False,
              engine_games: int = 100, logdir: Path = ROOT / "reports" / "service-bench-logs", seed: int = 0,
              extra_pythonpath: str | None = None, peer: str | None = None, client: str = "fast",
              think_mean: float = 0.0, stop_p99_ms: float | None = None, flow: str = "post-view",
              bare_processes: int | None = None) -> dict[str, Any]:
    """Flush the bench database, start the processes, run one driver step
    per entry of ``tables`` (each ``duration`` seconds), stop the
    processes, flush again; then, with ``peer="bare"``, the same steps
    against the bare app (``loadtests/bare_app.py`` on ``port_base + 40``,
    ``bare_processes`` processes, by default as many as ``gateways``) with
    the same driver; then the engine figure.  Returns ``{"cluster",
    "steps": [step report, ...], "peer": {"name", "steps"}, "engine"}``
    ("peer" only with ``peer``).  Raises RuntimeError when a process does
    not start.  ``port_base + 50 + workers`` must stay a port of the
    bench's range.  ``client``: the driver's HTTP client
    (:data:`driver.CLIENTS`); ``think_mean``: the driver's human pace
    (mean think time, s; 0: closed loop); ``stop_p99_ms``: a capacity
    ramp, the steps stop after the first whose submit→reply p99 exceeds
    it (then ``capacity``: the most tables within it, see
    :func:`driver.capacity_of`); ``flow``: the driver's flow,
    ``post-view`` (each action asks for the next view) or ``get-post``
    (a view before every action)."""
    if peer not in (None, "bare"):
        raise ValueError(f"unknown peer {peer!r} (only 'bare')")
    version = code_version()
    flush_db(redis_url)
    cl = start_cluster(redis_url, gateways, workers, port_base, shards, logdir, extra_pythonpath)
    steps = []
    try:
        for n in tables:
            cfg = DriverConfig(tables=n, game=game, players=players, duration_s=duration, options=options or {},
                               seed=seed, think_mean_s=think_mean, post_view=flow == "post-view")
            steps.append(measure_step(cl, cfg, profile=profile, logdir=logdir, tag=f"{n}t", client=client))
            if stop_p99_ms is not None and steps[-1]["submit_ms"]["p99"] > stop_p99_ms:
                break
    finally:
        stop_cluster(cl)
        flush_db(redis_url)
    peer_steps = []
    if peer == "bare":
        cl = start_bare(redis_url, port_base + 40, logdir, extra_pythonpath, processes=bare_processes or gateways)
        try:
            for n in tables:
                cfg = DriverConfig(tables=n, game=game, players=players, duration_s=duration,
                                   options=options or {}, seed=seed, think_mean_s=think_mean,
                                   post_view=flow == "post-view")
                peer_steps.append(measure_step(cl, cfg, profile=profile, logdir=logdir, tag=f"bare-{n}t",
                                               client=client))
                if stop_p99_ms is not None and peer_steps[-1]["submit_ms"]["p99"] > stop_p99_ms:
                    break
        finally:
            stop_cluster(cl)
            flush_db(redis_url)
    out: dict[str, Any] = {
        "cluster": {"code": version, "gateways": gateways, "workers": workers, "shards": shards, "redis": redis_url,
                    "decide_in": decide_in(),
                    "cores": os.cpu_count(), "extra_pythonpath": extra_pythonpath},
        "steps": steps,
    }
    if stop_p99_ms is not None:
        out["capacity"] = {"p99_ms": stop_p99_ms, "tables": capacity_of(steps, stop_p99_ms)}
    if peer:
        out["peer"] = {"name": peer, "processes": bare_processes or gateways, "steps": peer_steps}
        # a capacity ramp may stop the two at different steps: compare the steps both ran
        out["comparison"] = [compare(a, b) for a, b in zip(steps, peer_steps, strict=False)]
        if stop_p99_ms is not None:
            out["peer"]["capacity"] = {"p99_ms": stop_p99_ms, "tables": capacity_of(peer_steps, stop_p99_ms)}
    if engine_games:
        out["engine"] = engine_figure(engine_games, players)
    return out


def figures(step: dict[str, Any]) -> dict[str, float]:
    """The figures of one step that the comparison with a peer shows:
    applied actions/s, submit p50/p99 ms, CPU ms per applied action of the
    server (every process but the driver: gateways or the bare app,
    workers, Redis) and of each part, the driver's, and HTTP requests per
    applied action."""
    n = max(1, step["actions_applied"])
    cpu = step["processes_cpu_s"]

    def ms(roles: list[str]) -> float:
        return round(sum(cpu[r] for r in roles) / n * 1e3, 3)

    front = [r for r in cpu if r.startswith(("gateway", "bare"))]
    workers = [r for r in cpu if r.startswith("worker")]
    redis_ = [r for r in cpu if r == "redis-server"]
    requests = sum(step["requests"].get(k, 0) for k in ("view", "submit"))
    return {
        "actions_per_s": step["actions_per_s"],
        "submit_p50_ms": step["submit_ms"]["p50"],
        "submit_p99_ms": step["submit_ms"]["p99"],
        "server_cpu_ms_per_action": ms(front + workers + redis_),
        "front_cpu_ms_per_action": ms(front),
        "workers_cpu_ms_per_action": ms(workers),
        "redis_cpu_ms_per_action": ms(redis_),
        "driver_cpu_ms_per_action": ms(["driver"]),
        "requests_per_action": round(requests / n, 3),
    }


#: Row labels of the comparison, in order.
COMPARED = {
    "actions_per_s": "applied actions/s",
    "submit_p50_ms": "submit→reply p50 ms",
    "submit_p99_ms": "submit→reply p99 ms",
    "server_cpu_ms_per_action": "**server CPU ms per applied action**",
    "front_cpu_ms_per_action": "… gateway (bare: the app)",
    "workers_cpu_ms_per_action": "… workers",
    "redis_cpu_ms_per_action": "… Redis (server-wide)",
    "driver_cpu_ms_per_action": "driver CPU ms per applied action",
    "requests_per_action": "play requests (views + submits) per applied action",
}


def compare(tapis: dict[str, Any], peer: dict[str, Any]) -> dict[str, Any]:
    """Side by side figures of one table count: ``{"tables", "tapis",
    "peer", "ratio"}``, ``ratio[k]`` = tapis[k] / peer[k] (None when the
    peer's figure is 0), rounded to 3 places."""
    a, b = figures(tapis), figures(peer)
    return {"tables": tapis["config"]["tables"], "tapis": a, "peer": b,
            "ratio": {k: (round(a[k] / b[k], 3) if b[k] else None) for k in a}}


def compare_markdown(comparison: list[dict[str, Any]], peer: str = "bare", who: str = "") -> str:
    """The comparisons as Markdown: one table per table count, a row per
    figure, columns Tapis, the peer and Tapis / peer; ``who``: the
    processes of each (e.g. "1 gateway + 2 workers against 1 bare app")."""
    lines: list[str] = []
    for c in comparison:
        lines += [f"### {c['tables']} tables: Tapis against the {peer} app, same driver, one run"
                  + (f" ({who})" if who else ""), "",
                  f"| figure | Tapis | {peer} app | Tapis / {peer} |", "|---|---|---|---|"]
        for k, label in COMPARED.items():
            r = c["ratio"][k]
            lines.append(f"| {label} | {c['tapis'][k]:,.2f} | {c['peer'][k]:,.2f} | "
                         f"{'—' if r is None else f'{r:.2f}×'} |")
        lines.append("")
    return "\n".join(lines)


def step_markdown(report: dict[str, Any], title: str) -> str:
    """One step as Markdown: the driver table, CPU per process, server
    histograms, Redis commands, profile."""
    wall = report["processes_wall_s"]
    lines = [to_markdown(report, title),
             f"| process | CPU s in {wall:.1f} s | share of one core | ms per applied action |", "|---|---|---|---|"]
    n = max(1, report["actions_applied"])
    for role, cpu in report["processes_cpu_s"].items():
        lines.append(f"| {role} | {cpu:.1f} | {cpu / wall:.0%} | {cpu / n * 1e3:.2f} |")
    total = sum(report["processes_cpu_s"].values())
    lines.append(f"| **all of the above** | {total:.1f} | {total / wall:.0%} | **{total / n * 1e3:.2f}** |")
    lines.append(f"| other processes on the machine | {report['others_cpu_s']:.1f} | {report['others_cpu_s'] / wall:.0%} | |")
    lines += ["", f"Load average when the step started: {report['loadavg_at_start']}.", "",
              "| server histogram (between the step's scrapes) | count | mean ms | p50 ≤ ms | p99 ≤ ms |",
              "|---|---|---|---|---|"]
    for k, v in report["server"].items():
        lines.append(f"| {k} | {v['count']:,} | {v['mean_ms']:.2f} | {v.get('p50_le', float('nan')):g} | "
                     f"{v.get('p99_le', float('nan')):g} |")
    if report["redis_commands"]:
        lines += ["", "| Redis command (server-wide: other clients count too) | calls | calls per action | µs/call |",
                  "|---|---|---|---|"]
        for k, v in list(report["redis_commands"].items())[:10]:
            lines.append(f"| {k} | {v['calls']:,} | {v['calls'] / n:.2f} | {v['usec_per_call']} |")
    for role, prof in (report.get("profile") or {}).items():
        if not prof.get("samples"):
            lines += ["", f"Profile of {role}: {prof.get('error', 'no samples')}"]
            continue
        lines += ["", f"### py-spy: {role} ({prof['samples']:,} busy samples, {prof['idle']:,} idle left out)", "",
                  "| area | self | inclusive |", "|---|---|---|"]
        incl = dict(prof["inclusive_by_area"])
        for area, sh in prof["self_by_area"]:
            lines.append(f"| {area} | {sh:.0%} | {incl.get(area, 0):.0%} |")
        lines += ["", "| top functions (self) | share |", "|---|---|"]
        lines += [f"| `{fn}` | {sh:.1%} |" for fn, sh in prof["top_self"]]
        lines += ["", "| top functions (inclusive) | share |", "|---|---|"]
        lines += [f"| `{fn}` | {sh:.1%} |" for fn, sh in prof["top_inclusive"]]
    return "\n".join(lines) + "\n"


def bench_markdown(bench: dict[str, Any], title: str) -> str:
    """The whole bench as Markdown: a summary row per step, each step's
    details, the engine figure."""
    cl = bench["cluster"]
    lines = [f"# {title}", "",
             f"Code {cl.get('code', '?')}; {cl['gateways']} gateway(s), {cl['workers']} worker(s), {cl['shards']} shards, "
             f"Redis `{cl['redis']}`, "
             f"{cl['cores']} cores" + (f"; PYTHONPATH+={cl['extra_pythonpath']}" if cl["extra_pythonpath"] else "")
             + f"; people's actions decided by the {cl.get('decide_in', 'worker')}s"
             + " (`TAPIS_DECIDE_IN_GATEWAY`).", "",
             "| tables | actions/s | submit p50 | p95 | p99 ms | view p99 ms | CPU ms/action (ours) | others' CPU | errors |",
             "|---|---|---|---|---|---|---|---|---|"]
    peer_name = (bench.get("peer") or {}).get("name")
    rows = [("", st) for st in bench["steps"]] + [(f"{peer_name} app, ", st)
                                                   for st in (bench.get("peer") or {}).get("steps", [])]
    for who, st in rows:
        s, n = st["submit_ms"], max(1, st["actions_applied"])
        ours = sum(st["processes_cpu_s"].values()) / n * 1e3
        lines.append(f"| {who}{st['config']['tables']} | {st['actions_per_s']:,.0f} | {s['p50']:.0f} | "
                     f"{s['p95']:.0f} | {s['p99']:.0f} | {st['view_ms']['p99']:.0f} | {ours:.2f} | "
                     f"{st['others_cpu_s'] / st['processes_wall_s']:.0%} of a core | {sum(st['errors'].values())} |")
    lines.append("")
    if "capacity" in bench:
        c = bench["capacity"]
        lines += [f"Capacity: **{c['tables']:,} tables** with submit→reply p99 ≤ {c['p99_ms']:g} ms "
                  "(the most tables of the steps above within it).", ""]
        pc = (bench.get("peer") or {}).get("capacity")
        if pc is not None:
            ran = ", ".join(f"{st['config']['tables']:,}" for st in bench["peer"]["steps"])
            lines += [f"The {bench['peer']['name']} app, same ramp, same run: **{pc['tables']:,} tables** "
                      f"(steps run: {ran}).", ""]
    if bench.get("comparison"):
        cl, peer = bench["cluster"], bench["peer"]
        who = (f"{cl['gateways']} gateway(s) + {cl['workers']} worker(s) against "
               f"{peer.get('processes', 1)} {peer['name']} app process(es)")
        lines.append(compare_markdown(bench["comparison"], peer["name"], who))
    for st in bench["steps"]:
        lines.append(step_markdown(st, f"{st['config']['tables']} tables"))
    for st in (bench.get("peer") or {}).get("steps", []):
        lines.append(step_markdown(st, f"{bench['peer']['name']} app, {st['config']['tables']} tables"))
    if "engine" in bench:
        e = bench["engine"]
        lines += [(f"Engine, in process (`loadtests/bench_maumau.py --games {e['games']} --duel 0`): random "
                   f"{e['players']}-player Mau Mau **{e['games_per_cpu_s']:,.0f} games/s**, "
                   f"{e['actions_per_cpu_s']:,.0f} actions/s ({e['actions_per_game']:.0f} actions/game); "
                   f"decide+evolve {e['decide_evolve_per_cpu_s']:,.0f} actions/s; rebuild a finished game "
                   f"{e['rebuild_ms']} ms (per CPU second)."), ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module doc).  SIGTERM stops the started
    processes like Ctrl-C does.  Exit code 1 when a step applied nothing
    or met unexpected errors."""
    import typer

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    app = typer.Typer(add_completion=False)

    @app.command()
    def cli(
        gateways: int = typer.Option(1, min=1, max=8, help="Gateway processes."),
        workers: int = typer.Option(2, min=1, max=8, help="Worker processes."),
        tables: str = typer.Option("200", help="Concurrent tables; a comma list runs one step per value."),
        players: int = typer.Option(4, min=1, max=12, help="Seats per table."),
        game: str = typer.Option("maumau", help="Game id."),
        duration: float = typer.Option(30.0, min=1, help="Seconds of play per step."),
        options: str = typer.Option("{}", help="Table options as JSON."),
        redis: str = typer.Option(DEFAULT_REDIS, help="Redis URL of the bench's own database (it is flushed)."),
        port_base: int = typer.Option(19100, help="First gateway port; worker metrics from port_base+50."),
        shards: int = typer.Option(4, min=1, help="TAPIS_SHARDS."),
        profile: bool = typer.Option(False, help="py-spy every gateway and worker during play (slows them)."),
        pythonpath: str | None = typer.Option(None, help="Folder prepended to the servers' PYTHONPATH."),
        engine_games: int = typer.Option(100, min=0, help="Games for the in-process engine figure (0: skip)."),
        out: str = typer.Option("reports/service-bench", help="Write OUT.json and OUT.md (logs in OUT-logs/)."),
        seed: int = typer.Option(0, help="Driver seed."),
        peer: str | None = typer.Option(None, help="'bare': after Tapis, drive the bare app (loadtests/bare_app.py) "
                                        "with the same driver and print both side by side."),
        client: str = typer.Option("fast", help="The driver's HTTP client: fast or httpx."),
        think_mean: float = typer.Option(0.0, min=0.0, help="Human pace: mean think time (s) before each action."),
        stop_p99_ms: float | None = typer.Option(None, help="Capacity ramp: stop after the first step whose "
                                                 "submit→reply p99 exceeds this (ms); report the capacity."),
        flow: str = typer.Option("post-view", help="The driver's flow: post-view (each action asks for the next "
                                 "view, ?view=true) or get-post (GET the view before every action)."),
        bare_processes: int | None = typer.Option(None, min=1, help="With --peer bare: how many bare app processes "
                                                  "(default: as many as --gateways)."),
    ) -> None:
        base = Path(out)
        counts = tuple(int(x) for x in tables.split(",") if x.strip())
        title = (f"Service bench: {gateways} gateway(s), {workers} worker(s), {players}-player {game}"
                 f"{', profiled' if profile else ''}")
        bench = run_bench(gateways=gateways, workers=workers, tables=counts, players=players, game=game,
                          duration=duration, options=json.loads(options), redis_url=redis, port_base=port_base,
                          shards=shards, profile=profile, engine_games=engine_games,
                          logdir=base.with_name(base.name + "-logs"), seed=seed,
                          extra_pythonpath=pythonpath, peer=peer, client=client, think_mean=think_mean,
                          stop_p99_ms=stop_p99_ms, flow=flow, bare_processes=bare_processes)
        md = bench_markdown(bench, title)
        print(md)
        base.parent.mkdir(parents=True, exist_ok=True)
        base.with_name(base.name + ".json").write_text(json.dumps(bench, indent=2) + "\n")
        base.with_name(base.name + ".md").write_text(md)
        print(f"wrote {base}.json and {base}.md")
        ok = all(st["actions_applied"] > 0 and st["unexpected_errors"] == 0
                 for st in bench["steps"] + (bench.get("peer") or {}).get("steps", []))
        raise typer.Exit(0 if ok else 1)

    return int(app(argv, standalone_mode=False) or 0)


if __name__ == "__main__":
    sys.exit(main())
