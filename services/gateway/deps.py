"""FastAPI dependencies of the gateway's routes (the ``deps.py`` of
FastAPI's full-stack template): the shared context, the table a path
names, and the caller's seat checked from its seat token.

A seat token is sent as ``Authorization: Bearer <token>``; only its
sha256 is stored (``seat:<n>`` = ``tok:<hash>`` in the table's meta hash).
A token this gateway's table cache does not know (a seat joined through
another gateway) makes it re-read the seats once before refusing it.  The
token of a seat left for good (a ``SeatLeft`` event in the log, folded into
``Table.left``) is refused as any unknown token is (403 ``bad_token``),
even while the cached seats still list its hash.

Errors: 404 ``table_not_found``, 401 ``missing_token``, 403 ``bad_token``.
Being dependencies, they are checked before the route's own query and
body parameters are validated.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Header, Request

from services.gateway.app import GatewayContext
from services.gateway.errors import ApiError
from services.store import keys
from services.store.tables import Table


async def get_ctx(request: Request) -> GatewayContext:
    """The app's :class:`~services.gateway.app.GatewayContext`.  A
    coroutine: FastAPI runs a plain ``def`` dependency in its thread pool,
    a thread hop on every request (issue 14's profile)."""
    return request.app.state.ctx


#: What every route needs: settings, store, table cache, submitter.
Ctx = Annotated[GatewayContext, Depends(get_ctx)]


def hash_token(token: str) -> str:
    """sha256 hex of a seat token (only hashes are stored)."""
    return hashlib.sha256(token.encode()).hexdigest()


def check_table_id(table: str) -> None:
    """404 ``table_not_found`` for a string that cannot be a table id."""
    if not keys.TABLE_ID_RE.match(table):
        raise ApiError(404, "table_not_found", "no such table")


async def load_table(ctx: GatewayContext, table: str, *, refresh_meta: bool = False) -> Table:
    """The table brought up to date with its log; 404 ``table_not_found``.
    Waits at most ``TAPIS_STORE_READ_TIMEOUT_S`` for Redis (then a
    ``TimeoutError``: 503 ``store_unavailable``), not the client's retries
    of a stalled connection."""
    check_table_id(table)
    async with asyncio.timeout(ctx.settings.store_read_timeout_s):
        t = await ctx.tables.get(table, refresh_meta=refresh_meta)
    if t is None:
        raise ApiError(404, "table_not_found", f"no table {table!r}")
    return t


def seat_of(t: Table, authorization: str | None, *, required: bool) -> int | None:
    """The seat of ``t`` whose token the ``Authorization`` header holds;
    None for no header when not ``required`` (a spectator).  401
    ``missing_token``, 403 ``bad_token``."""
    if not authorization and not required:
        return None
    h = bearer_hash(authorization)
    if h is None:
        raise ApiError(401, "missing_token", "send the seat token as `Authorization: Bearer <token>`")
    for seat, stored in t.humans.items():
        if hmac.compare_digest(stored, h) and seat not in t.left:
            return seat
    raise ApiError(403, "bad_token", "this token is not a seat of this table")


def bearer_hash(authorization: str | None) -> str | None:
    """The sha256 of the bearer token in an ``Authorization`` header, or
    None when there is none."""
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return hash_token(token.strip())


async def authenticate(ctx: GatewayContext, t: Table, authorization: str | None, *,
                       required: bool) -> tuple[Table, int | None]:
    """:func:`seat_of`, re-reading the seats once when the token is not
    known to this gateway's cache (a seat joined through another gateway).
    Returns the table (re-read or not) and the seat."""
    try:
        return t, seat_of(t, authorization, required=required)
    except ApiError as exc:
        if exc.code != "bad_token":
            raise
    t = await load_table(ctx, t.id, refresh_meta=True)
    return t, seat_of(t, authorization, required=required)


@dataclass(frozen=True, slots=True)
class Caller:
    """The table a request names and the caller's seat at it (None: a
    spectator), and the app's context (a route taking a caller needs no
    :data:`Ctx` dependency of its own: one dependency less to solve)."""

    table: Table
    seat: int | None
    ctx: GatewayContext


def caller_dependency(*, required: bool, description: str, cached: bool = False):
    """A dependency resolving the path's ``{table}`` and the
    ``Authorization`` header (documented with ``description``) to a
    :class:`Caller`.  ``required``: a seat is needed (no token: 401).
    ``cached``: take the table from this gateway's cache as it is when it
    is there and started (the worker reads the log anyway), else load it
    (a table still waiting for people: its seats may have changed)."""

    # One dependency with no sub-dependency (the context is read from the
    # request): FastAPI's dependency solving costs per level (issue 14).
    # (the header is optional to FastAPI either way: a missing token is the
    # route's own 401; the mark makes the OpenAPI security requirement
    # required, services/gateway/openapi.py)
    async def caller(table: str, request: Request,
                     authorization: str | None = Header(None, description=description,
                                                        json_schema_extra={"x-token-required": required})) -> Caller:
        ctx: GatewayContext = request.app.state.ctx
        if cached:
            check_table_id(table)
            t = ctx.tables.peek(table)
            if t is None or not t.started:
                t = await load_table(ctx, table)
        else:
            t = await load_table(ctx, table)
        t, seat = await authenticate(ctx, t, authorization, required=required)
        return Caller(t, seat, ctx)

    return caller


#: The dependency behind :data:`Viewer` (a route's fast path calls it too).
viewer = caller_dependency(required=False, description="`Bearer <seat token>`; omit for the spectator view.")
#: A seat or a spectator, for a view.
Viewer = Annotated[Caller, Depends(viewer)]
#: A seat or a spectator, for an event feed.
FeedReader = Annotated[Caller, Depends(caller_dependency(
    required=False, description="`Bearer <seat token>`; omit for the spectator feed."))]
#: A seat (token required).
Player = Annotated[Caller, Depends(caller_dependency(required=True, description="`Bearer <seat token>`."))]
#: The dependency behind :data:`ActingPlayer` (a route's fast path calls it too).
acting_player = caller_dependency(required=True, description="`Bearer <seat token>`.", cached=True)
#: A seat sending an action: the table comes from the cache when it is there.
ActingPlayer = Annotated[Caller, Depends(acting_player)]


def client_address(request: Request) -> str:
    """The client's address (behind a proxy: what uvicorn's proxy headers
    support made of ``X-Forwarded-For``, docs/operations.md)."""
    return request.client.host if request.client else "unknown"


def rate_limited(kind: str):
    """A dependency counting one request of ``kind`` ("create", "join") by
    the client's address: 429 ``rate_limited`` over the limit."""

    async def check(request: Request, ctx: Ctx) -> None:
        await ctx.limits.check(kind, client_address(request))

    return Depends(check)
