"""What the archive holds, as plain dataclasses (no database code here):
a game's :class:`GameSummary` with its :class:`SeatRecord` rows (what the
history routes list), the whole :class:`ArchivedGame` (summary, meta and
log), built from a finished table's Redis meta and raw log by
:func:`build_record`; :func:`log_digest` is what the archiver verifies.
:mod:`services.archive.db` stores them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from shared.engine import fold
from shared.events import decode
from shared.games import get_game
from shared.presence import SEAT_LEFT


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """One seat of an archived game.  ``kind``: ``person`` or ``bot``;
    ``strategy``: the bot's strategy (None for a person; a person's seat
    left for good keeps kind ``person``); ``place``: 1 = first (shared
    places tie); ``score``: the game's total for that seat (None when the
    game has none)."""

    seat: int
    name: str
    kind: str
    strategy: str | None
    place: int | None
    score: float | None


@dataclass(frozen=True, slots=True)
class GameSummary:
    """One archived game without its log (a history item).  Times are ms
    since the epoch; ``winners``: the seats placed first; ``result``: the
    game's ``Result.to_json()``."""

    table: str
    game: str
    players: int
    options: dict[str, Any]
    created_ms: int
    started_ms: int
    ended_ms: int
    events: int
    seats: tuple[SeatRecord, ...]
    winners: tuple[int, ...]
    result: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class ArchivedGame:
    """A whole archived game: its summary, the table's meta hash as it was
    in Redis (``meta``: str -> str, seat token hashes included: never shown
    to anyone), and the log: ``log`` is the list of the events' encoded
    bytes exactly as they were stored in the Redis stream (version i+1 is
    ``log[i]``), ``digest`` the sha256 hex of :func:`log_digest`."""

    summary: GameSummary
    meta: dict[str, str]
    log: tuple[bytes, ...]
    digest: str


@dataclass(frozen=True, slots=True)
class HistoryPage:
    """A page of :meth:`Archive.search`: newest first; ``next``: the cursor
    of the next page (None: no more)."""

    items: list[GameSummary] = field(default_factory=list)
    next: str | None = None


def log_digest(log: tuple[bytes, ...] | list[bytes]) -> str:
    """sha256 hex over the events' encoded bytes, each prefixed by its
    length (4 bytes big-endian): what the archiver verifies after a write."""
    import hashlib

    h = hashlib.sha256()
    for raw in log:
        h.update(len(raw).to_bytes(4, "big"))
        h.update(raw)
    return h.hexdigest()


def build_record(table: str, meta: dict[str, str], log: list[bytes]) -> ArchivedGame:
    """The archive record of a finished table from its Redis meta hash and
    its raw log (the encoded events, in order).  Folds the log to read the
    result and places.  Raises ``ValueError`` when the log does not end the
    game (``shared.events.EventDecodeError``, a ``ValueError``, on bytes
    that are no event; ``shared.games.UnknownGame`` for an unknown game).

    Seats come from the meta: ``seat:<n>`` = ``bot:<strategy>`` is a bot,
    ``tok:<hash>`` a person.  A seat its person left after the start
    (a ``SeatLeft`` in the log) holds ``bot:<stand-in>`` in the meta but
    stays kind ``person`` with strategy None: it was a person's game (the
    stand-in that finished it is named by the ``SeatLeft`` event).  A seat
    with no ``seat:<n>`` (never joined) is a person's too.  Names are the
    meta's ``name:<n>`` ("" when missing); scores are floats."""
    log = list(log)
    events = [decode(raw) for raw in log]
    if not events:
        raise ValueError(f"table {table}: empty log, the game never started")
    game = get_game(meta["game"])
    result = game.result(fold(game, events))
    if result is None:
        raise ValueError(f"table {table}: the log does not end the game ({len(events)} events)")
    players = int(meta["players"])
    left = {e.data.get("seat") for e in events if e.type == SEAT_LEFT}
    seats = []
    for n in range(players):
        who = meta.get(f"seat:{n}", "")
        is_bot = who.startswith("bot:") and n not in left
        seats.append(SeatRecord(
            seat=n,
            name=meta.get(f"name:{n}", ""),
            kind="bot" if is_bot else "person",
            strategy=who[4:] if is_bot else None,
            place=result.places[n] if n < len(result.places) else None,
            score=float(result.scores[n]) if n < len(result.scores) else None,
        ))
    summary = GameSummary(
        table=table,
        game=meta["game"],
        players=players,
        options=json.loads(meta.get("options") or "{}"),
        created_ms=int(meta.get("created") or 0),
        started_ms=events[0].ts,
        ended_ms=events[-1].ts,
        events=len(log),
        seats=tuple(seats),
        winners=result.winners,
        # through JSON: the record reads back from the archive equal to what was built
        result=json.loads(json.dumps(result.to_json())),
    )
    return ArchivedGame(summary=summary, meta=dict(meta), log=tuple(log), digest=log_digest(log))
