"""What the archive holds (plain dataclasses; no database code here).

INTERFACE CONTRACT (issue 22) — services/archive/db.py implements
``Archive`` against it; the worker's archiver builds an
:class:`ArchivedGame` with :func:`build_record`; the gateway's history
routes read :class:`GameSummary` pages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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
    game."""
    raise NotImplementedError  # services/archive/db.py's author fills this in (issue 22)
