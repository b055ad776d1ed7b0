"""The archive of finished games (issue 22, docs/architecture.md "The archive").

A finished table leaves Redis for a database (PostgreSQL, or SQLite for the
embedded ``tapis serve``): one row a game with its whole unredacted log as
one compact blob, plus one row a seat for history queries.  The workers'
archiver (:mod:`services.worker.archiver`) moves tables here; reads of a
table no longer in Redis fall through to it (``services.store.tables``).

Public interface (implemented in :mod:`services.archive.db`):

* :class:`ArchivedGame` — what the archive holds of one game;
* :class:`GameSummary` — one game of a history page (no log);
* :class:`Archive` — ``put``, ``get``, ``summary``, ``search``, ``stats``.
"""

from services.archive.model import ArchivedGame, GameSummary, HistoryPage, SeatRecord, build_record

__all__ = ["ArchivedGame", "GameSummary", "HistoryPage", "SeatRecord", "build_record"]
