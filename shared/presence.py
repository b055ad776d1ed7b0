"""Seat presence and the turn clock: table-level facts in a table's log.

Beside a game's own events, a table's log may hold three facts that belong
to the table rather than to the game (docs/architecture.md, "Turn clock"):

* ``TurnTimedOut`` ``{"seat": s, "deadline": ms}`` — seat ``s`` had to act
  and did not before its deadline: it is marked *away* and a stand-in bot
  plays for it from then on.
* ``SeatReturned`` ``{"seat": s}`` — the person of seat ``s`` acted again
  (or asked to come back): the seat is theirs again.
* ``SeatLeft`` ``{"seat": s, "strategy": name}`` — the person of seat ``s``
  left the started table (``POST /tables/{T}/leave``): the bot strategy
  ``name`` (the table's stand-in) plays the seat for good, and the
  person's token is revoked.  A left seat is never away and never comes
  back.

Games never see these events: :func:`shared.engine.fold` and the services'
table projection route them here, so a game's ``evolve`` stays as it was
and a table's state is still a pure fold of its log.  None of them names
a card, so all are shown as they are to every seat and spectator.

The clock itself is read only when deciding (by the worker's sweeper);
what the fold knows is the time of the table's last event
(``Event.ts``), and a clocked seat's deadline is that time plus the
table's ``turn_seconds``: every event gives the seats that must act a
fresh turn.
"""

from __future__ import annotations

from collections.abc import Iterable

from shared.events import Event

TURN_TIMED_OUT = "TurnTimedOut"
SEAT_RETURNED = "SeatReturned"
SEAT_LEFT = "SeatLeft"
#: Event types that belong to the table, not to its game.
TABLE_EVENTS = frozenset({TURN_TIMED_OUT, SEAT_RETURNED, SEAT_LEFT})


def timed_out(seat: int, deadline_ms: int) -> Event:
    """The ``TurnTimedOut`` event of ``seat`` whose deadline (ms since the
    epoch) passed."""
    return Event(TURN_TIMED_OUT, {"seat": seat, "deadline": deadline_ms}, seat)


def returned(seat: int) -> Event:
    """The ``SeatReturned`` event of ``seat``."""
    return Event(SEAT_RETURNED, {"seat": seat}, seat)


def left(seat: int, strategy: str) -> Event:
    """The ``SeatLeft`` event of ``seat``, played from now on by the bot
    ``strategy``."""
    return Event(SEAT_LEFT, {"seat": seat, "strategy": strategy}, seat)


def apply(away: frozenset[int], event: Event) -> frozenset[int]:
    """The away seats after a table event (``event.type`` in
    :data:`TABLE_EVENTS`); a seat that is left is no longer away."""
    seat = event.data["seat"]
    if event.type == TURN_TIMED_OUT:
        return away | {seat}
    return away - {seat}


def left_after(events: list[Event], gone: frozenset[int] = frozenset()) -> frozenset[int]:
    """The seats left for good (``SeatLeft``) after ``events``, starting
    from ``gone``."""
    for e in events:
        if e.type == SEAT_LEFT:
            gone = gone | {e.data["seat"]}
    return gone


def away_after(events: list[Event], away: frozenset[int] = frozenset()) -> frozenset[int]:
    """The away seats after ``events`` (any events; game events leave them
    as they are)."""
    for e in events:
        if e.type in TABLE_EVENTS:
            away = apply(away, e)
    return away


def redact(game, event: Event, seat: int | None) -> Event | None:
    """``event`` as ``seat`` (None: a spectator) may see it in a feed:
    table events as they are (they name no card), game events through the
    game's own ``redact``."""
    if event.type in TABLE_EVENTS:
        return event
    return game.redact(event, seat)


def feed(game, events: Iterable[Event], seat: int | None, *, first_version: int = 1,
         table_events: bool = True) -> list[tuple[int, Event]]:
    """A feed of ``events`` (consecutive, the first at ``first_version`` of
    the table's log) as ``seat`` (None: a spectator) may see it: ``(version,
    event)`` for each event shown, through :func:`redact`; an event the
    game does not show that seat is left out, and the versions of the
    others stay their place in the log.

    ``table_events=False`` leaves the table events out too: a bot
    strategy's feed holds only its game's events (the game's code knows no
    other, as in :func:`shared.engine.fold`).  The gateway's feeds (``GET
    /tables/{T}/events``, the SSE stream, the events of an applied action)
    keep them."""
    out: list[tuple[int, Event]] = []
    game_redact = game.redact
    for version, e in enumerate(events, first_version):
        if e.type in TABLE_EVENTS:
            if table_events:
                out.append((version, e))
            continue
        r = game_redact(e, seat)
        if r is not None:
            out.append((version, r))
    return out
