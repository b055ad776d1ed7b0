"""Tables: lobby, create, join, leave, view, actions, event feed and SSE stream
(docs/api.md; docs/architecture.md, "The flow of one action").

The table a path names and the caller's seat come from the dependencies
of :mod:`services.gateway.deps`; feeds are redacted for the caller by
:func:`shared.presence.feed`."""

from __future__ import annotations

import asyncio
import json
import random
import re
import secrets
import time
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any
from urllib.parse import urlencode

import msgpack
from fastapi import APIRouter, Header, Query, Request, Response
from pydantic import ValidationError
from redis.exceptions import RedisError
from sse_starlette.sse import EventSourceResponse

from services import metrics
from services.gateway import actions
from services.gateway.deps import (
    ActingPlayer,
    Ctx,
    FeedReader,
    Player,
    Viewer,
    acting_player,
    bearer_hash,
    check_table_id,
    client_address,
    hash_token,
    load_table,
    rate_limited,
    viewer,
)
from services.gateway.errors import ApiError, status_for_refusal
from services.gateway.fast_routes import fast_path
from services.gateway.schemas import (
    ActionApplied,
    CreateTable,
    EventPage,
    Joined,
    JoinTable,
    Left,
    NoFields,
    Presence,
    SeatView,
    SubmitAction,
    TableInfo,
)
from services.messaging import ReplyTimeout
from services.store.store import TableExists
from services.store.tables import Table
from shared import presence
from shared.engine import client_actions, must_act
from shared.events import Event, decode
from shared.games import UnknownGame, get_game

router = APIRouter(prefix="/tables", tags=["tables"])

#: Largest version a query may name (stream ids are 64-bit).
MAX_VERSION = 2**53
_DIGITS = re.compile(r"[0-9]{1,15}", re.ASCII)

_ERR: dict[str, Any] = {"content": {"application/problem+json": {}}}
R401: dict[int | str, dict[str, Any]] = {401: {"description": "Missing seat token (`missing_token`).", **_ERR}}
R403: dict[int | str, dict[str, Any]] = {
    403: {"description": "Token does not match a seat of this table (`bad_token`).", **_ERR}}
R404: dict[int | str, dict[str, Any]] = {404: {"description": "No such table (`table_not_found`).", **_ERR}}
R409: dict[int | str, dict[str, Any]] = {
    409: {"description": "`stale_version`, `not_your_turn`, `game_over`, `not_started`, `seat_taken`, `table_full`.",
          **_ERR}}
R429: dict[int | str, dict[str, Any]] = {
    429: {"description": "`rate_limited`: over a rate limit; retry after `Retry-After` seconds.", **_ERR}}
R422: dict[int | str, dict[str, Any]] = {
    422: {"description": "Illegal action (the game's refusal code) or invalid body (`invalid_request`).", **_ERR}}


def _info(t: Table) -> TableInfo:
    seats = []
    for i in range(t.players):
        if i in t.left:  # a person left the started table: the stand-in plays it for good
            seats.append({"seat": i, "kind": "bot", "name": t.names.get(i, ""), "strategy": t.bots.get(i, t.stand_in),
                          "left": True})
        elif i in t.bots:
            seats.append({"seat": i, "kind": "bot", "name": t.names.get(i, ""), "strategy": t.bots[i]})
        elif i in t.humans:
            seats.append({"seat": i, "kind": "human", "name": t.names.get(i, ""), "away": i in t.away})
        else:
            seats.append({"seat": i, "kind": "free", "name": None})
    result = None
    if t.state is not None:
        r = t.game.result(t.state)
        result = r.to_json() if r is not None else None
    status = "finished" if result is not None else ("playing" if t.started else "waiting")
    return TableInfo(
        id=t.id, game=t.game.name, players=t.players, status=status, version=t.version, seats=seats,
        options=t.options, created=t.created, result=result,
        turn_seconds=t.turn_ms // 1000 if t.turn_ms else None, stand_in=t.stand_in,
    )


def _feed(t: Table, events: list[Event], seat: int | None, first_version: int) -> list[dict[str, Any]]:
    """``events`` as ``seat`` may see them (:func:`shared.presence.feed`),
    JSON-ready, each with its ``version``."""
    return [{**e.to_json(), "version": v} for v, e in presence.feed(t.game, events, seat, first_version=first_version)]


_CURSOR = re.compile(r"([0-9]{1,15})\.([A-Za-z0-9_-]{1,64})", re.ASCII)


@router.get("", response_model=list[TableInfo], summary="Lobby", responses={
    200: {"description": "Tables, newest first. When there may be more, the `Link` header names the next page "
                         "(`rel=\"next\"`, with `cursor`).",
          "headers": {"Link": {"description": "`</tables?...&cursor=...>; rel=\"next\"` while more may follow.",
                               "schema": {"type": "string"}}}},
    422: {"description": "`unknown_game` (`game` names no hosted game; see `GET /games`), `invalid_request` (a "
                         "`status` other than waiting, playing, finished, a bad `cursor` among others).", **_ERR}})
async def lobby(
    request: Request,
    response: Response,
    ctx: Ctx,
    game: str | None = Query(None, max_length=64, description="Only this game."),
    status: str | None = Query(None, pattern="^(waiting|playing|finished)$", description="Only tables in this status."),
    limit: int = Query(50, ge=1, le=500, description="At most this many tables, newest first."),
    cursor: str | None = Query(None, max_length=90,
                               description="Where the previous page ended (from its `Link: rel=next` header)."),
) -> list[TableInfo]:
    """Tables, newest first, optionally of one game and one status, a page
    at a time: each filter has its own index, so no flood of other tables
    hides one; follow `Link: rel="next"` for the next page. A `game` that
    is not hosted is refused (422 `unknown_game`), as at create."""
    game = game or None  # `game=` (empty): every game
    if game is not None:
        try:
            get_game(game)
        except UnknownGame:
            raise ApiError(422, "unknown_game", f"no game {game!r}; see GET /games") from None
    before = None
    if cursor is not None:
        m = _CURSOR.fullmatch(cursor)
        if m is None:
            raise ApiError(422, "invalid_request", "cursor: not a cursor this lobby gave",
                           extra={"errors": [{"loc": ["query", "cursor"], "msg": "not a lobby cursor",
                                              "type": "value_error"}]})
        before = (int(m[1]), m[2])
    limit = min(limit, ctx.settings.max_tables_listed)
    out: list[TableInfo] = []
    last: tuple[int, str] | None = None
    more = True
    while len(out) < limit and more:
        page = await ctx.store.lobby_page(game, status, limit - len(out), before)
        more = len(page) == limit - len(out)
        if not page:
            break
        before = last = (page[-1][1], page[-1][0])
        for tid, _created in page:
            try:
                t = await ctx.tables.get(tid, refresh_meta=True)
            except UnknownGame:  # a table of a game this gateway does not host
                continue
            if t is None or t.archived:  # expired, or archived (in /history now): out of the indexes
                await ctx.store.reindex(tid, game=t.game.name if t is not None else game)
                continue
            info = _info(t)
            if (game and info.game != game) or (status and info.status != status):
                # an index out of step (a crash between two writes): put it where it belongs
                await ctx.store.reindex(tid, game=info.game, status=info.status, created=info.created)
                continue
            out.append(info)
    if more and last is not None:
        query = {k: v for k, v in (("game", game), ("status", status)) if v is not None}
        query.update(limit=str(limit), cursor=f"{last[0]}.{last[1]}")
        response.headers["Link"] = f'<{request.url.path}?{urlencode(query)}>; rel="next"'
    return out


@router.post("", response_model=TableInfo, status_code=201, summary="Create a table",
             responses={409: {"description": "`table_exists` (an id collision; try again).", **_ERR},
                        422: {"description": "`unknown_game`, `bad_players`, `bad_options`, `bad_seat`, "
                                             "`unknown_strategy`, `invalid_request`.", **_ERR},
                        **R429,
                        503: {"description": "`start_pending`: the all-bot table was created (`table` names it) "
                                             "but its start is not confirmed yet; it starts as soon as a worker can. "
                                             "`store_unavailable`: Redis unreachable.", **_ERR}})
async def create_table(ctx: Ctx, body: CreateTable, _limit: None = rate_limited("create")) -> TableInfo:
    """Create a table of `game` with `players` seats and `options`. Seats
    listed in `bots` are filled by bots at once; the others are taken with
    `POST /tables/{T}/join`. The game starts (cards are dealt) as soon as
    the last seat is filled."""
    try:
        game = get_game(body.game)
    except UnknownGame:
        raise ApiError(422, "unknown_game", f"no game {body.game!r}; see GET /games") from None
    if not game.min_players <= body.players <= game.max_players:
        raise ApiError(422, "bad_players", f"{game.title} takes {game.min_players} to {game.max_players} players")
    try:
        # Strictly, as JSON: no unknown option (each game's Options forbids
        # extras), no "5" for 5 nor true for 1; enum options by their value.
        opts = game.Options.model_validate_json(json.dumps(body.options), strict=True)
    except ValidationError as exc:
        detail = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise ApiError(422, "bad_options", detail or "invalid options") from None
    try:  # options valid one by one may still not make a game together
        game.start(opts, body.players, random.Random(0))
    except (ValueError, TypeError, KeyError, IndexError) as exc:
        raise ApiError(422, "bad_options", f"these options cannot start a {game.title} game: {exc}") from None
    for seat, strategy in body.bots.items():
        if not 0 <= seat < body.players:
            raise ApiError(422, "bad_seat", f"bot seat {seat} is not a seat of a {body.players}-seat table")
        if strategy not in game.strategies:
            raise ApiError(422, "unknown_strategy", f"no bot strategy {strategy!r}; one of {sorted(game.strategies)}")
    stand_in = body.stand_in or ("heuristic" if "heuristic" in game.strategies else "random")
    if stand_in not in game.strategies:
        raise ApiError(422, "unknown_strategy", f"no stand-in strategy {stand_in!r}; one of {sorted(game.strategies)}")
    tid = uuid.uuid4().hex[:12]
    names = {s: f"{strategy} bot {s}" for s, strategy in body.bots.items()}
    clock = {"turn_ms": body.turn_seconds * 1000 if body.turn_seconds else None, "stand_in": stand_in}
    try:
        await ctx.store.create(tid, game=game.name, players=body.players, options=opts.model_dump(mode="json"),
                               bots=dict(body.bots), names=names, clock=clock)
    except TableExists:  # 48 random bits: practically never
        raise ApiError(409, "table_exists", "table id collision; try again") from None
    if len(body.bots) == body.players:
        await _start(ctx, tid)
    t = await ctx.tables.get(tid, refresh_meta=True)
    assert t is not None
    return _info(t)


async def _start(ctx: Ctx, table: str) -> None:
    """Send the start of a full table and wait for it.  Raises 503
    ``start_pending`` when it could not be confirmed: the table exists and
    the sweeper starts it as soon as a worker can."""
    try:
        reply = await ctx.submitter.send(table, kind="start", command_id="start")
    except (ReplyTimeout, RedisError, OSError):
        reply = None
    if reply is None or not reply.ok:
        raise ApiError(503, "start_pending", f"table {table} was created but its start is not confirmed yet; it starts "
                       "as soon as a worker can: follow GET /tables/{T}", extra={"table": table})


@router.get("/{table}", response_model=TableInfo, summary="One table", responses={**R404})
async def get_table(ctx: Ctx, table: str) -> TableInfo:
    """The table's seats, status, version and (once finished) result."""
    return _info(await load_table(ctx, table, refresh_meta=True))


@router.post("/{table}/join", response_model=Joined, summary="Take a seat", responses={**R404, **R409, **R429})
async def join(ctx: Ctx, table: str, body: JoinTable | None = None, _limit: None = rate_limited("join")) -> Joined:
    """Take a free seat (the one asked for, or the first free one). Returns
    the seat and its secret token; only a hash of the token is stored.
    When this fills the last seat the game starts."""
    check_table_id(table)
    body = body or JoinTable()
    token = secrets.token_urlsafe(24)
    status, seat, free = await ctx.store.join(table, body.seat, hash_token(token), body.name)
    if status == "missing" and ctx.archive is not None and await ctx.archive.summary(table) is not None:
        status = "full"  # archived: a finished game, every seat taken (as before it left Redis)
    if status == "missing":
        raise ApiError(404, "table_not_found", f"no table {table!r}")
    if status == "taken":
        raise ApiError(409, "seat_taken", f"seat {body.seat} is taken")
    if status == "full":
        raise ApiError(409, "table_full", "every seat is taken")
    if status == "bad_seat":
        raise ApiError(422, "bad_seat", f"seat {body.seat} is not a seat of this table")
    ctx.tables.drop(table)
    started = False
    if free == 0:
        try:
            reply = await ctx.submitter.send(table, kind="start", command_id="start")
            started = reply is not None and reply.ok
        except (ReplyTimeout, RedisError, OSError):
            pass  # the table is in the due set: the sweeper starts it if this start was lost
    return Joined(table=table, seat=seat, token=token, status="playing" if started else "waiting")


@router.get("/{table}/view", response_model=SeatView, summary="Seat or spectator view",
            responses={**R401, **R403, **R404})
async def view(table: str, caller: Viewer) -> Response:
    """With a seat token: that seat's view, its legal actions (each
    accepted as it is), its choices (combinations and free text, each with
    a JSON Schema of the action) and the version to send as
    `expected_version`. Without: the spectator view. `must_act`: the seats
    of `awaiting` the game waits for. The view's `seats` give every seat's
    card count, score, name, kind and away flag."""
    # Encoded once here: returning the model would make FastAPI validate it
    # against the response model a second time before encoding (issue 14).
    return Response(seat_view(caller.table, caller.seat).model_dump_json(), media_type="application/json")


@fast_path(view)
async def _view_fast(request: Request) -> Response | None:
    """``GET /tables/{T}/view`` without FastAPI's per-request machinery
    (:mod:`services.gateway.fast_routes`): any request without a query
    string (the route has no query parameter)."""
    if request.scope["query_string"]:
        return None
    table = request.path_params["table"]
    return await view(table, await viewer(table, request, request.headers.get("authorization")))


def seat_view(t: Table, seat: int | None, *, live: bool = True) -> SeatView:
    """What ``seat`` (None: a spectator) sees of ``t`` now (``GET
    /tables/{T}/view``).  ``live=False`` (a replay, ``GET
    /tables/{T}/replay``): without legal actions, choices nor deadlines."""
    table = t.id
    if not t.started:
        return SeatView(table=table, game=t.game.name, status="waiting", version=t.version, seat=seat,
                        awaiting=[], view=None, legal_actions=[])
    g, s = t.game, t.state
    r = g.result(s)
    legal, choices = client_actions(g, s, seat) if live and seat is not None and r is None else ([], [])
    return SeatView(
        table=table, game=g.name, status="finished" if r else "playing", version=t.version, seat=seat,
        awaiting=sorted(g.awaiting(s)) if r is None else [],
        must_act=sorted(must_act(g, s)) if r is None else [],
        deadlines=t.deadlines() if live and r is None else {}, away=sorted(t.away), left=sorted(t.left),
        view=with_people(t, g.view(s, seat)),
        legal_actions=legal, choices=choices,
        result=r.to_json() if r else None,
    )


def with_people(t: Table, view: dict[str, Any]) -> dict[str, Any]:
    """``view`` with each entry of its ``seats`` given the seat's ``name``
    (the name given at join, a bot's name as the lobby shows it),
    ``kind`` (``human`` or ``bot``), ``away`` (a stand-in plays it for
    now) and ``left`` (the person left: a bot plays it for good): what the
    table knows and the game never sees."""
    seats = view.get("seats")
    if isinstance(seats, list):
        return {**view, "seats": [{**entry, **_person(t, i)} for i, entry in enumerate(seats)]}
    return view


def _person(t: Table, seat: int) -> dict[str, Any]:
    if seat in t.left:  # the person left: their name stays, the stand-in plays for good
        return {"name": t.names.get(seat) or "player", "kind": "bot", "away": False, "left": True}
    if seat in t.bots:
        return {"name": t.names.get(seat) or f"bot ({t.bots[seat]})", "kind": "bot", "away": False, "left": False}
    return {"name": t.names.get(seat) or "player", "kind": "human", "away": seat in t.away, "left": False}


@router.post("/{table}/actions", response_model=ActionApplied, summary="Send an action",
             responses={200: {"headers": {"Preference-Applied": {
                                  "description": "`return=representation` when `Prefer` asked for the view.",
                                  "schema": {"type": "string"}}}},
                        **R401, **R403, **R404, **R409, **R422, **R429,
                        504: {"description": "No worker reply in time (`reply_timeout`; only with "
                                             "`TAPIS_DECIDE_IN_GATEWAY=0`); resend with the same `command_id`.",
                              **_ERR}})
async def act(table: str, body: SubmitAction, caller: ActingPlayer,
              view: bool = Query(False, description="Also return the caller's new view (`view`), as `GET "
                                                    "/tables/{T}/view` gives it: no GET needed after the action."),
              prefer: str | None = Header(None, description="`return=representation`: the same as `view=true` "
                                                            "(answered with `Preference-Applied`).")) -> Response:
    """Apply one action for the caller's seat. It is checked against the
    rules (by the gateway itself by default; by a worker when the gateway
    sends actions to the workers, `TAPIS_DECIDE_IN_GATEWAY=0`); on success the reply holds the new version and the
    events it produced, redacted for the caller, and, when asked for
    (`?view=true` or `Prefer: return=representation`), the caller's view
    and legal actions after it, so a client need not `GET` the view after
    each action. Refusals come back as problem+json with the game's
    refusal code (422), or 409 for `stale_version` / `not_your_turn` /
    `game_over`. Nothing is applied on a refusal."""
    # The caller was authenticated on the cached table (the worker reads
    # the log anyway): Redis was asked only if the table or the seat is not
    # known here yet.
    t, seat, ctx = caller.table, caller.seat, caller.ctx
    await ctx.limits.check("action", f"{t.id}:{seat}")
    actions.check(t.game, body.action)  # the game's action shapes: 422 bad_action naming the field
    try:
        msgpack.packb(body.action, use_bin_type=True)
    except (OverflowError, UnicodeEncodeError, TypeError, ValueError):
        raise ApiError(422, "bad_action", "the action holds a number or string that cannot be stored") from None
    # Client ids are scoped to the seat: they can never collide with another
    # seat's, nor with the service's own ids (the start, bot moves).
    cid = f"u{seat}.{body.command_id}" if body.command_id else f"g.{uuid.uuid4().hex}"
    t0 = time.perf_counter()
    try:
        reply = await ctx.submitter.send(table, seat=seat, action=body.action, expected=body.expected_version,
                                         command_id=cid)
    except ReplyTimeout:
        raise ApiError(504, "reply_timeout", "no worker answered in time; resend with the same command_id") from None
    metrics.SUBMIT_REPLY.labels(t.game.name).observe(time.perf_counter() - t0)
    assert reply is not None
    if not reply.ok:
        if reply.code == "seat_left":  # this gateway's cache had not seen the leave yet: the token is revoked
            ctx.tables.drop(table)
            raise ApiError(403, "bad_token", "this token is not a seat of this table")
        raise ApiError(status_for_refusal(reply.code), reply.code, reply.message)
    events = [decode(b) for b in reply.events]
    first = reply.version - len(events) + 1
    # The reply holds what the log holds: fold it into this gateway's cache
    # (when the cache is right before it) instead of reading it back.
    cached = ctx.tables.peek(table)
    if cached is not None:
        ctx.tables.advance(cached, first - 1, events)
    applied = ActionApplied(version=reply.version, events=_feed(t, events, seat, first))
    headers: dict[str, str] = {}
    preferred = prefer is not None and "return=representation" in prefer.replace(" ", "").lower()
    if view or preferred:
        now = cached if cached is not None and cached.version >= reply.version else await load_table(ctx, table)
        applied.view = seat_view(now, seat)
        if preferred:
            headers["Preference-Applied"] = "return=representation"
        return Response(applied.model_dump_json(), media_type="application/json", headers=headers)
    return Response(applied.model_dump_json(exclude={"view"}), media_type="application/json")


#: Most brackets a body served by the action's fast path may hold (an action has a handful).
_PLAIN_NESTING = 64


@fast_path(act)
async def _act_fast(request: Request) -> Response | None:
    """``POST /tables/{T}/actions`` without FastAPI's per-request machinery
    (:mod:`services.gateway.fast_routes`), for the plainly valid request:
    ``Content-Type: application/json``, no query string or exactly
    ``view=true``, a body :class:`SubmitAction` accepts. Anything else
    goes to FastAPI's handler and gets its usual answer."""
    query = request.scope["query_string"]
    if query and query != b"view=true":
        return None
    if request.headers.get("content-type") != "application/json":
        return None
    raw = await request.body()
    if raw.count(b"[") + raw.count(b"{") > _PLAIN_NESTING:
        # Deep nesting is FastAPI's to read: where json.loads runs out of
        # stack depends on the caller's own depth (it answers 400).
        return None
    try:  # as FastAPI reads it: json.loads, then the model in Python mode
        body = SubmitAction.model_validate(json.loads(raw))
    except (ValueError, ValidationError):  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        return None
    table = request.path_params["table"]
    headers = request.headers
    caller = await acting_player(table, request, headers.get("authorization"))
    return await act(table, body, caller, bool(query), headers.get("prefer"))


async def _no_null_body(request: Request, body: NoFields | None) -> None:
    """422 ``invalid_request`` for a body of JSON ``null``, which FastAPI
    reads as no body: an optional body is absent or an object."""
    if body is None and (await request.body()).strip():
        raise ApiError(422, "invalid_request", "the request does not match the schema", extra={"errors": [
            {"loc": ["body"], "msg": "Input should be an object or no body at all", "type": "model_type"}]})


@router.post("/{table}/back", response_model=Presence, summary="Take an away seat back",
             responses={**R401, **R403, **R404, **R429,
                        409: {"description": "`not_started`, `game_over`, `seat_left` (the seat was left at the same "
                                             "moment: a bot plays it for good).", **_ERR},
                        504: {"description": "No reply in time (`reply_timeout`); call again.", **_ERR}})
async def back(request: Request, ctx: Ctx, table: str, caller: Player, body: NoFields | None = None) -> Presence:
    """Come back to a seat whose turn clock ran out: the stand-in bot stops
    playing it (a `SeatReturned` event). Sending any action does the same.
    Calling it while present changes nothing. No body, or `{}`."""
    await _no_null_body(request, body)
    seat = caller.seat
    assert seat is not None
    await ctx.limits.check("action", f"{caller.table.id}:{seat}")
    try:
        reply = await ctx.submitter.send(table, kind="back", seat=seat, command_id=f"r{seat}.{uuid.uuid4().hex}")
    except ReplyTimeout:
        raise ApiError(504, "reply_timeout", "no worker answered in time; call again") from None
    assert reply is not None
    if not reply.ok:
        raise ApiError(status_for_refusal(reply.code), reply.code, reply.message)
    return Presence(seat=seat, away=False, version=reply.version)


@router.post("/{table}/leave", response_model=Left, summary="Leave a seat",
             responses={**R401, **R403, **R404, **R429,
                        409: {"description": "`game_over`: the game has ended; the seat stays yours (its token still "
                                             "shows the final view).", **_ERR},
                        503: {"description": "`start_pending`: the table is full and its start is not confirmed yet; "
                                             "call again shortly. `store_unavailable`: Redis unreachable or "
                                             "saturated.", **_ERR},
                        504: {"description": "No reply in time (`reply_timeout`); call again (403 `bad_token` then "
                                             "means the leave was applied).", **_ERR}})
async def leave(request: Request, ctx: Ctx, table: str, caller: Player, body: NoFields | None = None) -> Left:
    """Give your seat up; its token is refused from then on (403
    `bad_token`, SSE streams opened with it end). Before the start the seat
    is freed (name and token removed at once): the lobby shows it free and
    whoever joins it next gets a new token. Once the game has started the
    table's stand-in bot plays the seat to the end (a `SeatLeft` event;
    `back` cannot undo it). After the end: 409 `game_over`. No body, or
    `{}`."""
    await _no_null_body(request, body)
    t, seat = caller.table, caller.seat
    assert seat is not None
    await ctx.limits.check("action", f"{t.id}:{seat}")
    held = t.humans[seat]  # the token's hash
    for _attempt in range(3):
        if t.started:
            break
        outcome = await ctx.store.leave_waiting(table, seat, held)
        if outcome == "ok":
            ctx.tables.drop(table)
            metrics.SEATS_LEFT.labels(t.game.name, "waiting").inc()
            return Left(table=table, seat=seat, status="free", strategy=None, version=0)
        if outcome == "missing":
            raise ApiError(404, "table_not_found", f"no table {table!r}")
        if outcome == "not_yours":  # left already (a concurrent leave)
            raise ApiError(403, "bad_token", "this token is not a seat of this table")
        if outcome == "full":
            # Every seat is taken: the start is under way. Leaving now would
            # let it deal to an empty seat, so let it start, then leave.
            try:
                await ctx.submitter.send(table, kind="start", command_id="start")
            except (ReplyTimeout, RedisError, OSError):
                pass
        t = await load_table(ctx, table, refresh_meta=True)
        if t.started and (t.humans.get(seat) != held or seat in t.left):
            # Freed meanwhile (a concurrent leave) and dealt to whoever took it.
            raise ApiError(403, "bad_token", "this token is not a seat of this table")
    if not t.started:
        raise ApiError(503, "start_pending", "the table is full and its start is not confirmed yet; call again shortly")
    try:
        reply = await ctx.submitter.send(table, kind="leave", seat=seat, command_id=f"l{seat}")
    except ReplyTimeout:
        raise ApiError(504, "reply_timeout", "no worker answered in time; call again") from None
    assert reply is not None
    ctx.tables.drop(table)
    if not reply.ok:
        if reply.code == "seat_left":  # left already: the token is revoked
            raise ApiError(403, "bad_token", "this token is not a seat of this table")
        raise ApiError(status_for_refusal(reply.code), reply.code, reply.message)
    strategy = next((e.data["strategy"] for e in map(decode, reply.events) if e.type == presence.SEAT_LEFT),
                    t.stand_in)
    return Left(table=table, seat=seat, status="bot", strategy=strategy, version=reply.version)


@router.get("/{table}/events", response_model=EventPage, summary="Event feed", responses={
    **R401, **R403, **R404,
    409: {"description": "`beyond_log`: `after` is beyond the table's log (its `version` is in the body).", **_ERR}})
async def events(ctx: Ctx, table: str, caller: FeedReader,
                 after: int = Query(0, ge=0, le=MAX_VERSION,
                                    description="Return events with a version greater than this."),
                 limit: int = Query(500, ge=1, le=5000, description="At most this many events.")) -> EventPage:
    """The table's events after version `after`, each redacted for the
    caller (a seat sees its own cards; a spectator sees no hidden card).
    An `after` beyond the log is refused (409 `beyond_log`, with the
    table's `version`): the caller's position is not in this table's log."""
    t, seat = caller.table, caller.seat
    if after > t.version:
        raise ApiError(409, "beyond_log", f"the log ends at version {t.version}; read after at most that",
                       extra={"version": t.version})
    evs = await ctx.tables.read(t, after=after, until=after + limit)
    return EventPage(version=t.version, events=_feed(t, evs, seat, after + 1))


@router.get("/{table}/stream", summary="Live event stream (SSE)", response_class=EventSourceResponse, responses={
    200: {"description": "Server-sent events: `event` (a log event, JSON), `resync` (JSON: `version`, `reason`), "
                         "`revoked` (JSON: `seat`, `reason`: the seat was left; the stream ends) and `ping` comments.",
          "content": {"text/event-stream": {"schema": {
              "type": "object", "description": "One server-sent event.",
              "properties": {"event": {"type": "string", "enum": ["event", "resync", "revoked"]},
                             "id": {"type": "string", "description": "The version it stands at."},
                             "data": {"type": "string", "description": "JSON."}}}}}},
    **R401, **R403, **R404,
    429: {"description": "`too_many_client_streams`: this client address already has `TAPIS_MAX_STREAMS_PER_CLIENT` "
                         "streams open on this gateway; close one (retry after `Retry-After` seconds).", **_ERR},
    503: {"description": "`too_many_streams`: this gateway already serves `TAPIS_MAX_STREAMS` streams. "
                         "`store_unavailable`: Redis unreachable or saturated.", **_ERR}})
async def stream(request: Request, ctx: Ctx, table: str, caller: FeedReader,
                 after: int = Query(0, ge=0, le=MAX_VERSION, description="Start after this version."),
                 last_event_id: str | None = Header(None, description="Resume after this version (SSE reconnect).")):
    """Server-sent events: one `event` message per log event (its `id` is
    the event's version), redacted for the caller; a `ping` comment every
    15 s. Reconnecting clients resume with `Last-Event-ID`.

    A position the log does not hold (a `Last-Event-ID` or `after` beyond
    the table's version, or a `Last-Event-ID` that is not a version) gets
    a `resync` message first, `{"version": V, "reason": "beyond_log" |
    "malformed_id"}` with id V: fetch the view, then the stream goes on
    after V.

    A seat's stream ends when the seat is left (`POST /tables/{T}/leave`):
    after the `SeatLeft` event (or at once, for a seat freed before the
    start) it sends `revoked`, `{"seat": S, "reason": "seat_left"}`, and
    closes; nothing the seat's bot sees after that is sent."""
    t, seat = caller.table, caller.seat
    resync: str | None = None
    if last_event_id is not None:
        if _DIGITS.fullmatch(last_event_id):
            after = int(last_event_id)
        else:
            resync = "malformed_id"
    if resync is None and after > t.version:
        resync = "beyond_log"
    if resync is not None:
        after = t.version

    token = bearer_hash(request.headers.get("authorization")) if seat is not None else None
    release = ctx.streams.take(client_address(request))  # 503 too_many_streams, 429 too_many_client_streams

    async def gen() -> AsyncIterator[dict]:
        # Polls with XRANGE instead of a blocking XREAD, so an idle stream
        # holds no Redis connection.
        try:
            last = after
            idle = 0.1
            if resync is not None:
                yield {"event": "resync", "id": str(after),
                       "data": json.dumps({"version": after, "reason": resync})}
            while not await request.is_disconnected():
                events = await ctx.tables.read(t, after=last, count=200)
                revoked = False
                if seat is not None:
                    # The seat given up: nothing of it after that point.
                    if last == 0 and not t.archived and await ctx.store.seat_holder(table, seat) != f"tok:{token}":
                        events, revoked = [], True  # freed before the start (maybe someone else's now)
                    for i, e in enumerate(events):
                        if e.type == presence.SEAT_LEFT and e.data["seat"] == seat:
                            events, revoked = events[:i + 1], True
                            break
                for d in _feed(t, events, seat, last + 1):
                    yield {"event": "event", "id": str(d["version"]), "data": json.dumps(d)}
                last += len(events)
                if revoked:
                    yield {"event": "revoked", "id": str(last),
                           "data": json.dumps({"seat": seat, "reason": "seat_left"})}
                    return
                idle = 0.1 if events else min(idle * 2, 1.0)
                if not events:
                    await asyncio.sleep(idle)
        finally:
            release()

    return _Stream(gen(), release, ping=15)


class _Stream(EventSourceResponse):
    """An SSE response that gives its stream slot back when it ends, even
    when its body was never iterated (a client gone first, a ``HEAD``)."""

    def __init__(self, content: AsyncIterator[dict], release: Callable[[], None], **kw: Any) -> None:
        super().__init__(content, **kw)
        self._release = release

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._release()
