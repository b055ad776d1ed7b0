"""The bare app: the floor any Python HTTP + Redis service pays (issue 14).

A FastAPI app answering the four routes the load driver
(:mod:`loadtests.driver`) uses, with **one Redis round trip each** and no
rules, no worker hop, no middleware, no authentication:

* ``POST /tables`` — ``HSET bare:{T}`` (players, version 0); 201 ``{"id"}``;
* ``POST /tables/{T}/join`` — ``HINCRBY bare:{T} joined 1``: the seat (the
  one asked for, else the next); the token names the seat;
* ``GET /tables/{T}/view`` — ``HGET bare:{T} version``: a body shaped like
  Tapis' seat view (a canned 4-player Mau Mau view and legal actions,
  built once at import by the engine), ``awaiting`` = ``[version mod
  players]`` so the driver's turn guess holds and its games never end;
* ``POST /tables/{T}/actions`` — one pipeline ``XADD bare:{T}:log`` (the
  action, as sent) + ``HINCRBY bare:{T} version 1``; ``{"version",
  "events"}``, and with ``?view=true`` the caller's view at the new
  version (``view``), as Tapis answers it.

Bodies are parsed by FastAPI (``dict`` bodies) and answered with
``JSONResponse`` (``json.dumps``, no response model), the cheapest
idiomatic FastAPI path.  The server is uvicorn with the same configuration
as ``tapis gateway`` (:func:`services.gateway.server.uvicorn_config`:
httptools with the head timeout, uvloop when installed), and the same
Redis client (:func:`services.runtime.make_redis`: hiredis, a blocking
pool).  Keys live under ``bare:`` in the database of ``--redis``.

``/readyz`` and an empty ``/metrics`` let the service bench
(``run_service_bench.py --peer bare``) start and scrape it like a gateway.

Usage::

    python loadtests/bare_app.py --port 19500 --redis redis://127.0.0.1:6379/12
"""

from __future__ import annotations

import json
import random
import sys
import uuid
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.responses import JSONResponse

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

from shared.engine import client_actions, fold  # noqa: E402
from shared.games import get_game  # noqa: E402

PLAYERS = 4


def canned_view(players: int = PLAYERS, seed: int = 0) -> tuple[dict[str, Any], list[dict], list[dict]]:
    """A real Mau Mau seat view at the deal (seat 0) and its legal actions
    and choices: what the bare app sends for every view (computed once)."""
    g = get_game("maumau")
    s = fold(g, g.start(g.Options(), players, random.Random(seed)))
    legal, choices = client_actions(g, s, 0)
    return g.view(s, 0), legal, choices


VIEW, LEGAL, CHOICES = canned_view()
EVENT = {"type": "CardPlayed", "data": {"seat": 0, "card": "3S"}}


def _seat_of(request: Request) -> int:
    """The seat a ``Bearer <table>.<seat>.<nonce>`` token names (-1: none)."""
    auth = request.headers.get("authorization", "")
    try:
        return int(auth.rsplit(" ", 1)[-1].split(".")[1])
    except (IndexError, ValueError):
        return -1


def create_app(redis: Any) -> FastAPI:
    """The bare app over the asyncio Redis client ``redis``."""
    app = FastAPI(title="bare", openapi_url=None, docs_url=None, redoc_url=None)

    @app.post("/tables", status_code=201)
    async def create(body: dict[str, Any]) -> Response:
        tid = uuid.uuid4().hex[:12]
        players = int(body.get("players", PLAYERS))
        await redis.hset(f"bare:{tid}", mapping={"players": players, "version": 0, "joined": 0})
        return JSONResponse({"id": tid, "game": body.get("game", "maumau"), "players": players, "status": "waiting",
                             "version": 0}, status_code=201)

    @app.post("/tables/{table}/join")
    async def join(table: str, body: dict[str, Any]) -> Response:
        n = await redis.hincrby(f"bare:{table}", "joined", 1)
        seat = body.get("seat")
        seat = n - 1 if seat is None else int(seat)
        token = f"{table}.{seat}.{uuid.uuid4().hex[:16]}"
        return JSONResponse({"table": table, "seat": seat, "token": token, "status": "playing"})

    def seat_view(table: str, version: int, seat: int) -> dict[str, Any]:
        turn = version % PLAYERS
        mine = seat == turn
        return {
            "table": table, "game": "maumau", "status": "playing", "version": version, "seat": seat,
            "awaiting": [turn], "must_act": [turn], "deadlines": {}, "away": [], "left": [],
            "view": VIEW, "legal_actions": LEGAL if mine else [], "choices": CHOICES if mine else [],
            "result": None}

    @app.get("/tables/{table}/view")
    async def view(table: str, request: Request) -> Response:
        version = int(await redis.hget(f"bare:{table}", "version") or 0)
        return JSONResponse(seat_view(table, version, _seat_of(request)))

    @app.post("/tables/{table}/actions")
    async def act(table: str, body: dict[str, Any], request: Request, view: bool = False) -> Response:
        async with redis.pipeline(transaction=False) as pipe:
            pipe.xadd(f"bare:{table}:log", {"a": json.dumps(body.get("action"))})
            pipe.hincrby(f"bare:{table}", "version", 1)
            _, version = await pipe.execute()
        out = {"version": version, "events": [{**EVENT, "version": version}]}
        if view:
            out["view"] = seat_view(table, version, _seat_of(request))
        return JSONResponse(out)

    @app.get("/readyz")
    async def readyz() -> Response:
        return JSONResponse({"ready": True})

    @app.get("/metrics")
    async def metrics() -> Response:
        return Response("", media_type="text/plain")

    return app


def main(argv: list[str] | None = None) -> int:
    """Serve the bare app (see the module doc)."""
    import argparse

    import uvicorn

    from services.config import Settings
    from services.gateway.server import uvicorn_config
    from services.runtime import make_redis

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=19500)
    p.add_argument("--redis", default="redis://127.0.0.1:6379/12")
    p.add_argument("--log-level", default="warning")
    a = p.parse_args(argv)
    settings = Settings(redis_url=a.redis)
    app = create_app(make_redis(settings))
    uvicorn.Server(uvicorn_config(app, settings, host=a.host, port=a.port, log_level=a.log_level)).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
