"""What FastAPI's parameter handling costs the action route (issue 14).

Two routes of one FastAPI app, called directly over ASGI (no sockets),
interleaved, CPU per request: ``full`` declares what Tapis' ``POST
/tables/{T}/actions`` declares (path ``table``, the ``SubmitAction`` body,
a dependency taking the path, the request and the ``Authorization``
header, the ``view`` query and the ``Prefer`` header); ``raw`` takes only
the path and the request and reads the same things itself (the body
validated with the same model).  Neither does any work after that.  The
difference is what the framework's dependency solving and per-parameter
validation cost a request: the next step to cut in the gateway
(docs/performance.md).

Usage::

    python loadtests/fastapi_params_cost.py [--requests 3000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Header, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field


class SubmitAction(BaseModel):
    """The action body, as the gateway's (services/gateway/schemas.py)."""

    action: dict[str, Any]
    expected_version: int | None = None
    command_id: str | None = Field(None, max_length=64)


app = FastAPI()


async def caller(table: str, request: Request, authorization: str | None = Header(None)) -> tuple:
    """Stands for the gateway's caller dependency (no lookup)."""
    return table, authorization


Caller = Annotated[tuple, Depends(caller)]


@app.post("/full/{table}/actions")
async def full(table: str, body: SubmitAction, c: Caller, view: bool = Query(False),
               prefer: str | None = Header(None)) -> Response:
    return Response(b"{}", media_type="application/json")


@app.post("/raw/{table}/actions")
async def raw(table: str, request: Request) -> Response:
    SubmitAction.model_validate_json(await request.body())
    _ = (request.headers.get("authorization"), request.headers.get("prefer"), request.query_params.get("view"))
    return Response(b"{}", media_type="application/json")


BODY = json.dumps({"action": {"type": "play", "card": "7H"}, "command_id": "abc"}).encode()


async def call(path: str) -> None:
    """One POST through the app, as uvicorn would hand it over."""
    scope = {"type": "http", "http_version": "1.1", "method": "POST", "path": path, "raw_path": path.encode(),
             "query_string": b"view=true", "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80),
             "scheme": "http", "root_path": "", "app": app,
             "headers": [(b"authorization", b"Bearer xyz"), (b"content-type", b"application/json"),
                         (b"content-length", str(len(BODY)).encode())]}
    sent = False

    async def receive() -> dict:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": BODY, "more_body": False}
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def send(_message: dict) -> None:
        return None

    await app(scope, receive, send)


async def main(requests: int, rounds: int) -> None:
    print("| round | full signature µs/request | raw µs/request | full / raw |\n|---|---|---|---|")
    for r in range(rounds):
        cost = {}
        for path in ("/full/t1/actions", "/raw/t1/actions"):
            for _ in range(200):  # warm up
                await call(path)
            t0 = time.process_time()
            for _ in range(requests):
                await call(path)
            cost[path] = (time.process_time() - t0) / requests * 1e6
        f, w = cost["/full/t1/actions"], cost["/raw/t1/actions"]
        print(f"| {r + 1} | {f:.0f} | {w:.0f} | {f / w:.2f}× |")


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--requests", type=int, default=3000)
    p.add_argument("--rounds", type=int, default=3)
    a = p.parse_args()
    asyncio.run(main(a.requests, a.rounds))
