"""The archive of finished games (issue 22, docs/architecture.md "The archive").

A finished table leaves Redis for a database (PostgreSQL, or SQLite for the
embedded ``tapis serve``): one row a game with its whole unredacted log as
one compact blob, plus one row a seat for history queries.  The workers'
archiver (:mod:`services.worker.archiver`) moves tables here; reads of a
table no longer in Redis fall through to it (``services.store.tables``).

Public interface:

* :class:`ArchivedGame` — what the archive holds of one game, built from a
  finished table by :func:`build_record`;
* :class:`GameSummary` (with its :class:`SeatRecord`) — one game of a
  history page (no log), :class:`HistoryPage` — a page of them;
* :class:`Archive` (:mod:`services.archive.db`) — ``migrate``/
  ``ensure_schema``, ``put``, ``verify``, ``get``, ``summary``, ``search``,
  ``iter_games``, ``count``, ``close``; it raises
  :class:`ArchiveUnavailable` (database down: try again later) and
  :class:`ArchiveConflict` (a table archived with another log).

``Archive`` and its exceptions are imported from :mod:`services.archive.db`
on first use, so the model alone does not load SQLAlchemy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from services.archive.model import ArchivedGame, GameSummary, HistoryPage, SeatRecord, build_record

if TYPE_CHECKING:
    from services.archive.db import Archive, ArchiveConflict, ArchiveRejected, ArchiveUnavailable

__all__ = ["Archive", "ArchiveConflict", "ArchiveRejected", "ArchiveUnavailable", "ArchivedGame", "GameSummary",
           "HistoryPage", "SeatRecord", "build_record"]


def __getattr__(name: str) -> Any:
    if name in ("Archive", "ArchiveConflict", "ArchiveRejected", "ArchiveUnavailable"):
        from services.archive import db

        return getattr(db, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
