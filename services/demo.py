"""``tapis demo``: create all-bot tables over HTTP, follow them with a
progress bar, print each result and the throughput."""

from __future__ import annotations

import socket
import threading
import time
from typing import TYPE_CHECKING

import httpx
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table as RichTable

if TYPE_CHECKING:
    import uvicorn


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_embedded(port: int | None = None, settings=None, redis=None) -> tuple[str, uvicorn.Server]:
    """Start a ``tapis serve`` on a thread (``settings``: default, the
    embedded store; ``redis``: an asyncio client to use instead, e.g. a
    fakeredis whose server a test reads too); returns (url, server) once
    it answers ``/healthz``."""
    import uvicorn

    from services.config import Settings
    from services.gateway.server import uvicorn_config
    from services.serve import build_serve_app

    port = port or _free_port()
    settings = settings or Settings(redis_url=None)
    app = build_serve_app(settings, redis=redis)
    server = uvicorn.Server(uvicorn_config(app, settings, host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.05)
    return url, server


def service_url(url: str) -> str:
    """``url`` with ``http://`` in front when it names no scheme
    (``localhost:8000`` -> ``http://localhost:8000``)."""
    return url if "://" in url else "http://" + url


def run_demo(*, game: str, tables: int, players: int, strategy: str, url: str, embedded: bool, timeout: float) -> int:
    """Run the demo; returns the exit code (0: every table finished)."""
    console = Console()
    server = None
    if embedded:
        url, server = start_embedded()
    url = service_url(url)
    client = httpx.Client(base_url=url, timeout=30)
    try:
        client.get("/healthz").raise_for_status()
    except httpx.HTTPError:
        console.print(f"[red]No Tapis at {url}.[/red] Start one with `tapis serve`, or pass --embedded.")
        return 1
    strategies = [s.strip() for s in strategy.split(",")]
    bots = {str(i): strategies[i % len(strategies)] for i in range(players)}
    ids: list[str] = []
    t0 = time.perf_counter()
    for _ in range(tables):
        r = client.post("/tables", json={"game": game, "players": players, "bots": bots})
        body = r.json()
        if r.status_code == 503 and body.get("code") == "start_pending":
            ids.append(body["table"])  # created; a worker starts it shortly
            continue
        if r.status_code != 201:
            console.print(f"[red]Cannot create a table:[/red] {body.get('code')}: {body.get('detail')}")
            return 1
        ids.append(body["id"])
    done: dict[str, dict] = {}
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total} tables"),
                  TimeElapsedColumn(), console=console) as progress:
        task = progress.add_task(f"{game}: playing", total=tables)
        while len(done) < tables and time.perf_counter() - t0 < timeout:
            for tid in ids:
                if tid in done:
                    continue
                info = client.get(f"/tables/{tid}").json()
                if info["status"] == "finished":
                    done[tid] = info
                    progress.advance(task)
            time.sleep(0.2)
    elapsed = time.perf_counter() - t0
    out = RichTable(title=f"{game}: {len(done)}/{tables} tables finished")
    out.add_column("table")
    out.add_column("events", justify="right")
    out.add_column("scores")
    out.add_column("winners")
    events = 0
    for tid in ids:
        info = done.get(tid)
        if info is None:
            out.add_row(tid, "-", "unfinished", "-")
            continue
        events += info["version"]
        res = info["result"]
        out.add_row(tid, str(info["version"]), " ".join(str(s) for s in res["scores"]),
                    ", ".join(f"seat {w}" for w in res["winners"]))
    console.print(out)
    console.print(f"{len(done)} games in {elapsed:.1f} s: {len(done) / elapsed:.2f} games/s, "
                  f"{events / elapsed:.0f} events/s")
    if server is not None:
        server.should_exit = True
    return 0 if len(done) == tables else 1
