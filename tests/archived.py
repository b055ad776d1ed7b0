"""Archived games for tests: real games played to the end with
:func:`shared.engine.play` (seeded), stamped as a worker stamps them and
turned into the archive's record by the archiver's own
:func:`services.archive.model.build_record`."""

from __future__ import annotations

import hashlib
import json
import random

from services.archive.model import ArchivedGame, build_record
from shared.engine import play
from shared.events import Event, encode
from shared.games import get_game


def played_record(table: str, game: str, seats: list[tuple[str, str | None]], *, seed: int, ended_ms: int,
                  options: dict | None = None, step_ms: int = 1000) -> ArchivedGame:
    """The record of table ``table``: a game of ``game`` played to its end
    by bots, seat n named ``seats[n][0]``; ``seats[n][1]`` is its strategy
    (a bot's seat in the meta) or None (a person's: a ``tok:`` hash in the
    meta, played here by the ``random`` strategy).  Its events are stamped
    ``step_ms`` apart so that the last one is at ``ended_ms``; the table
    was created 5 s before the first."""
    g = get_game(game)
    played = play(g, [s or "random" for _name, s in seats], random.Random(seed), options=options or {})
    n = len(played.events)
    start = ended_ms - (n - 1) * step_ms
    events = [Event(e.type, e.data, e.seat, ts=start + i * step_ms, cmd=f"c{i}") for i, e in enumerate(played.events)]
    meta = {"game": game, "players": str(len(seats)), "options": json.dumps(options or {}), "version": str(n),
            "status": "finished", "created": str(start - 5000), "turn_ms": "0", "stand_in": "random"}
    for i, (name, strategy) in enumerate(seats):
        meta[f"name:{i}"] = name
        token_hash = hashlib.sha256(f"{table}{i}".encode()).hexdigest()
        meta[f"seat:{i}"] = f"bot:{strategy}" if strategy else f"tok:{token_hash}"
    return build_record(table, meta, [encode(e) for e in events])
