"""Replays: a finished game move by move, from any seat or the spectator's
(docs/api.md, "Replay"; the page ``/replay/{T}`` of :mod:`services.gateway.web`).

A step is the position after one move: the events one command appended
(a card played and the trick it won, the deal that opened the game).  Its
view is built as ``GET /tables/{T}/view`` built it then
(:func:`~services.gateway.routes_tables.seat_view` over the log folded up
to that version, without legal actions), and its events are redacted for
the seat (:func:`shared.presence.feed`): a seat's replay shows the cards
that seat saw at that moment, the spectator's none of anyone's hand.
Only a finished table is replayed: during a game another seat's view would
give its hand away.

The table and its log come through :class:`~services.store.tables.Tables`,
so an archived table replays as one still in Redis.  A finished log never
changes: the decoded events of the last few tables replayed are kept
(:class:`ReplayLogs`).  Each step folds the log from its start; folding a
whole game costs 0.1–0.3 ms (measured on the five games, a few hundred
events), less than reading the log again, so no folded state is kept.
"""

from __future__ import annotations

import bisect
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request, Response

from services.gateway.deps import load_table
from services.gateway.errors import ApiError
from services.gateway.routes_tables import _ERR, R404, _feed, seat_view
from services.gateway.schemas import ReplayStep
from services.store.tables import Table, Tables
from shared import presence
from shared.engine import fold
from shared.events import Event

router = APIRouter(prefix="/tables", tags=["tables"])


@dataclass(frozen=True, slots=True)
class ReplayLog:
    """A finished table's whole log: ``events`` (version i+1 at index i)
    and ``steps``, the versions at which a move ends."""

    version: int
    events: tuple[Event, ...]
    steps: tuple[int, ...]


def move_ends(events: tuple[Event, ...] | list[Event]) -> tuple[int, ...]:
    """The versions at which a move ends: the last event of each run of
    events one command appended (same ``cmd``); an event of no command
    is a move of its own.  A position inside a move is never shown (a
    game's view may not even be defined there)."""
    ends = []
    last = len(events)
    for i, e in enumerate(events, 1):
        if i == last or e.cmd is None or events[i].cmd != e.cmd:
            ends.append(i)
    return tuple(ends)


class ReplayLogs:
    """The logs of the last ``capacity`` finished tables replayed, decoded
    once (a replay asks for one step after another)."""

    def __init__(self, tables: Tables, capacity: int = 32) -> None:
        self.tables = tables
        self.capacity = capacity
        self._logs: OrderedDict[str, ReplayLog] = OrderedDict()

    async def get(self, t: Table) -> ReplayLog:
        """``t``'s log (``t`` is finished: its log is final)."""
        log = self._logs.get(t.id)
        if log is None or log.version != t.version:
            events = tuple(await self.tables.read(t, after=0, until=t.version))
            log = ReplayLog(t.version, events, move_ends(events))
            self._logs[t.id] = log
            while len(self._logs) > self.capacity:
                self._logs.popitem(last=False)
        self._logs.move_to_end(t.id)
        return log


def _logs(request: Request) -> ReplayLogs:
    state = request.app.state
    logs = getattr(state, "replay_logs", None)
    if logs is None:
        logs = state.replay_logs = ReplayLogs(state.ctx.tables)
    return logs


async def finished_table(table: str, request: Request) -> Table:
    """The finished table the path names: 404 ``table_not_found``, 409
    ``not_finished``.  A dependency: checked before the query is."""
    t = await load_table(request.app.state.ctx, table)
    if not t.started or t.game.result(t.state) is None:
        raise ApiError(409, "not_finished", "only a finished game can be replayed; this one is not over")
    return t


def at_version(t: Table, events: tuple[Event, ...], version: int) -> Table:
    """``t`` as it stood at ``version``: its game state, away and left
    seats folded from the first ``version`` events (seats, names and
    options are the table's)."""
    head = list(events[:version])
    return replace(t, state=fold(t.game, head), version=version, away=presence.away_after(head),
                   left=presence.left_after(head), last_ts=head[-1].ts if head else 0)


def replay_step(t: Table, log: ReplayLog, seat: int | None, version: int) -> ReplayStep:
    """The step of ``t`` ending at ``version`` (one of ``log.steps``) as
    ``seat`` (None: the spectator) saw it."""
    i = log.steps.index(version)
    before = log.steps[i - 1] if i else 0
    then = at_version(t, log.events, version)
    view = seat_view(then, seat, live=False)
    return ReplayStep(
        table=t.id, game=t.game.name, seat=seat, version=version, move=i + 1, first=log.steps[0], last=log.version,
        steps=list(log.steps), view=view, events=_feed(t, list(log.events[before:version]), seat, before + 1),
        result=view.result if version == log.version else None,
    )


@router.get("/{table}/replay", response_model=ReplayStep, summary="Replay a finished game", responses={
    **R404,
    409: {"description": "`not_finished`: the game is not over (a replay would show another seat's cards).", **_ERR},
    422: {"description": "`bad_seat` (not a seat of this table), `bad_version` (`at` outside the log), "
                         "`invalid_request` (not a whole number).", **_ERR}})
async def replay(request: Request, t: Annotated[Table, Depends(finished_table)],
                 seat: int | None = Query(None, description="The seat whose view to show (0 = the first); omit "
                                                            "for the spectator's."),
                 at: int | None = Query(None, description="The version to show (1 to the table's last); a version "
                                                          "inside a move shows the end of that move. Omitted: the "
                                                          "last.")) -> Response:
    """A finished game as `seat` (or the spectator) saw it after the move
    ending at version `at`: the view as `GET /tables/{T}/view` gave it
    then (no legal actions), the events of that move redacted for that
    seat, the versions where moves end (`steps`: step through them) and,
    at the last version, the result. No token: once a game is over, any
    seat's view of it may be replayed; the spectator's shows no hand."""
    if seat is not None and not 0 <= seat < t.players:
        raise ApiError(422, "bad_seat", f"seat {seat} is not a seat of this {t.players}-seat table")
    if at is not None and not 1 <= at <= t.version:
        raise ApiError(422, "bad_version", f"at: a version from 1 to {t.version}")
    log = await _logs(request).get(t)
    version = log.steps[bisect.bisect_left(log.steps, t.version if at is None else at)]
    return Response(replay_step(t, log, seat, version).model_dump_json(), media_type="application/json")
