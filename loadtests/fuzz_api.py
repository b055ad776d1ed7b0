"""Fuzz the HTTP API with schemathesis, authenticated per game (issue 12).

Starts its own ``tapis serve`` (embedded store, a free port, rate limits
off so the fuzzer reaches the rules), then for each game creates a table
whose seat 0 is a person (the others bots, so the game starts), joins it,
and runs ``st run`` on the service's OpenAPI description with that table
and seat token as the path parameter and the ``Authorization`` header, and
the checks: not a server error, status code, content type and response
schema conformance (every operation but the never-ending SSE stream, which
tests/test_feeds.py covers, and leaving the seat, which would revoke the
token for every later request; tests/test_leave.py covers it).  Prints one line per game and a JSON summary; exits 1
when schemathesis found a failure.

    python loadtests/fuzz_api.py --examples 80 --rounds 3  # the full-size run (docs/reliability.md)
    python loadtests/fuzz_api.py --examples 3 --games toy  # what CI runs (tests/test_fuzz_api.py)
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import typer

CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"
GAMES = ("maumau", "maudix", "dix", "mauw", "maudit_mot_dit")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, env: dict[str, str] | None = None) -> subprocess.Popen:
    """``tapis serve`` on ``port`` (embedded store), ready when this returns."""
    tapis = shutil.which("tapis") or "tapis"
    proc = subprocess.Popen([tapis, "serve", "--port", str(port), "--log-level", "warning"],
                            env={**os.environ, "TAPIS_RATE_LIMITS": "false", **(env or {})},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(400):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("tapis serve did not start")


def seat_for(base: str, game: str) -> tuple[str, str]:
    """A started table of ``game`` whose seat 0 is a person: (table, token)."""
    info = httpx.get(f"{base}/games").json()
    g = next(x for x in info if x["name"] == game)
    players = max(g["min_players"], 2) if g["max_players"] >= 2 else 1
    bots = {str(s): g["strategies"][0] for s in range(1, players)}
    r = httpx.post(f"{base}/tables", json={"game": game, "players": players, "bots": bots, "turn_seconds": None})
    r.raise_for_status()
    table = r.json()["id"]
    joined = httpx.post(f"{base}/tables/{table}/join", json={"seat": 0}, timeout=30).json()
    return table, joined["token"]


def fuzz_game(base: str, game: str, examples: int, seed: int | None, workdir: Path) -> dict:
    """One ``st run`` for ``game``; returns its figures."""
    table, token = seat_for(base, game)
    config = workdir / f"{game}.toml"
    # The SSE stream never ends: a fuzzer's request to it waits for its
    # timeout (tests/test_feeds.py covers it).  Leaving the seat revokes the
    # token: every later request would be a 403 (tests/test_leave.py covers it).
    config.write_text(f'[parameters]\n"path.table" = "{table}"\n\n'
                      '[[operations]]\ninclude-name = "GET /tables/{table}/stream"\nenabled = false\n\n'
                      '[[operations]]\ninclude-name = "POST /tables/{table}/leave"\nenabled = false\n')
    cmd = [shutil.which("st") or "st", "--config-file", str(config), "run", f"{base}/openapi.json",
           "--checks", CHECKS, "--max-examples", str(examples), "-H", f"Authorization: Bearer {token}",
           "--request-timeout", "30", "--no-color"]
    if seed is not None:
        cmd += ["--seed", str(seed)]
    t0 = time.monotonic()
    res = subprocess.run(cmd, capture_output=True, text=True)
    out = res.stdout + res.stderr
    generated = re.search(r"(\d+) generated", out)
    failures = re.search(r"(\d+) unique failures?", out)
    return {"game": game, "table": table, "exit": res.returncode, "seconds": round(time.monotonic() - t0, 1),
            "generated": int(generated[1]) if generated else 0,
            "failures": int(failures[1]) if failures else (0 if res.returncode == 0 else -1),
            "output": out if res.returncode else out[-2000:]}


def main(examples: int = typer.Option(100, help="schemathesis --max-examples per operation."),
         games: str = typer.Option(",".join(GAMES), help="Comma-separated games (toy needs the tests' registry)."),
         seed: int | None = typer.Option(None, help="schemathesis seed (round i uses seed + i)."),
         rounds: int = typer.Option(1, help="Runs per game, each on a fresh table with other examples."),
         verbose: bool = typer.Option(False, help="Print schemathesis's report of each game.")) -> None:
    """Run the fuzzer against a fresh embedded service, game by game."""
    port = _free_port()
    server = start_server(port)
    base = f"http://127.0.0.1:{port}"
    results = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for game in games.split(","):
                for i in range(rounds):
                    r = fuzz_game(base, game.strip(), examples, None if seed is None else seed + i, Path(tmp))
                    results.append(r)
                    print(f"{r['game']:15} {r['generated']:6} requests  {r['failures']} failures  {r['seconds']} s",
                          flush=True)
                if verbose or r["exit"]:
                    print(r["output"])
    finally:
        server.terminate()
        server.wait(10)
    total = sum(r["generated"] for r in results)
    print(json.dumps({"requests": total, "failures": sum(max(r["failures"], 0) for r in results),
                      "games": [{k: v for k, v in r.items() if k != "output"} for r in results]}))
    sys.exit(1 if any(r["exit"] for r in results) else 0)


if __name__ == "__main__":
    typer.run(main)
