"""What the history routes and the bulk export share (issue 22): archived
games as JSON (no meta, no token hash, no log) and the dates people type.

* :func:`parse_when` reads ``since``/``until`` (ISO 8601 dates or
  datetimes, UTC unless an offset is given) into ms since the epoch;
* :func:`game_json` turns a :class:`services.archive.model.GameSummary`
  into the JSON object ``GET /history`` lists and ``tapis export`` writes.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from services.archive.model import GameSummary

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
#: A date alone: ``2026-12-01``.
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", re.ASCII)
#: A date and a time (``T`` or a space between), seconds and fractions
#: optional, then ``Z``, ``+hh:mm``/``-hh:mm`` or nothing (UTC).
_DATETIME = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,6})?)?(Z|[+-][0-9]{2}:[0-9]{2})?",
    re.ASCII | re.IGNORECASE)


def parse_when(text: str, *, end: bool = False) -> int:
    """ms since the epoch of ``text``, an ISO 8601 date (``2026-12-01``) or
    datetime (``2026-12-01T18:30``, ``…:05Z``, ``…+01:00``; no offset: UTC).

    ``end=False`` (a ``since``): the first ms included — a date alone is
    the start of that day (UTC).  ``end=True`` (an ``until``): the first ms
    *excluded*, as the archive's ``until_ms`` takes it — a date alone
    includes its whole day (the start of the next one), a datetime that
    very ms (its ms + 1).  Raises ``ValueError`` (a message for people) on
    anything else."""
    text = text.strip()
    try:
        if _DATE.fullmatch(text):
            day = date.fromisoformat(text)
            start = datetime.combine(day, time(0), tzinfo=UTC)
            when = start + timedelta(days=1) if end else start
        elif _DATETIME.fullmatch(text):
            when = datetime.fromisoformat(text.upper().replace("Z", "+00:00"))
            if when.tzinfo is None:
                when = when.replace(tzinfo=UTC)
            if end:
                when += timedelta(milliseconds=1)
        else:
            raise ValueError
        ms = (when - _EPOCH) // timedelta(milliseconds=1)
    except (ValueError, OverflowError):
        raise ValueError(f"{text!r} is not an ISO 8601 date (2026-12-01) or datetime (2026-12-01T18:30:00Z)") \
            from None
    if ms < 0:
        raise ValueError(f"{text!r} is before 1970")
    return ms


def iso(ms: int) -> str:
    """``ms`` since the epoch as an ISO 8601 UTC datetime with ms:
    ``2026-12-01T18:30:05.123Z``."""
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def seat_json(seat: Any) -> dict[str, Any]:
    """One seat of an archived game: ``{"seat", "name", "kind" (human or
    bot, as in the rest of the API), "strategy" (a bot's; null for a
    person), "place", "score"}``."""
    return {"seat": seat.seat, "name": seat.name, "kind": "bot" if seat.kind == "bot" else "human",
            "strategy": seat.strategy, "place": seat.place, "score": seat.score}


def game_json(s: GameSummary) -> dict[str, Any]:
    """An archived game's summary as JSON: ``table``, ``game``, ``players``,
    ``options``, ``seats`` (:func:`seat_json`), ``winners`` (seats),
    ``result`` (as ``GET /tables/{T}`` gives it), ``created``/``started``/
    ``ended`` (ISO 8601 UTC) with ``created_ms``/``started_ms``/``ended_ms``
    (ms since the epoch) and ``events`` (how many the log holds).  Never the
    table's meta, a token hash or the log."""
    return {
        "table": s.table,
        "game": s.game,
        "players": s.players,
        "options": dict(s.options),
        "seats": [seat_json(seat) for seat in s.seats],
        "winners": list(s.winners),
        "result": s.result,
        "created": iso(s.created_ms),
        "created_ms": s.created_ms,
        "started": iso(s.started_ms),
        "started_ms": s.started_ms,
        "ended": iso(s.ended_ms),
        "ended_ms": s.ended_ms,
        "events": s.events,
    }
