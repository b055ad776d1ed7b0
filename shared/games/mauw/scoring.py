"""Mauw's scores: column points, a play area's points and the final
:class:`~shared.engine.Result` (docs/games/mauw.md, "End").

A column scores the value on its top — 9 for a Mauw (a card's back), a
Warrior's value, 0 for a Spirit — doubled for every Mauw in it; a player
scores the sum of the four columns.  The three-column winner places first
whatever the points, the others by points (higher is better), equal keys
sharing a place.
"""

from __future__ import annotations

from shared.engine import Result, places_from
from shared.games.mauw.cards import MAUW_VALUE, VALUE
from shared.games.mauw.state import Column, Phase, State


def column_points(col: Column) -> int:
    """Points of one column: the value on top (9 for a Mauw, 0 for a
    Spirit or an empty slot) × 2 per Mauw.  One Mauw 18, three 72, a
    Warrior 3 on two Mauw 12, a lone Warrior its value."""
    k = len(col.mauw)
    top = col.top
    if top is None:
        return MAUW_VALUE << k if k else 0
    return VALUE[top] << k


def area_points(area: list[Column]) -> int:
    """Sum of the column points of one play area."""
    return sum(column_points(c) for c in area)


def result(state: State) -> Result | None:
    """Scores (column points) and places once over, else None: the
    three-column winner first, the others by points; equal keys share a
    place.  ``detail``: ``ending``, ``winner`` (or None) and ``turns``."""
    if state.phase is not Phase.OVER:
        return None
    scores = tuple(area_points(a) for a in state.areas)
    keys = [(1 if s == state.winner else 0, p) for s, p in enumerate(scores)]
    return Result(
        scores=scores,
        places=places_from(keys, lower_wins=False),
        lower_wins=False,
        detail={"ending": state.ending, "winner": state.winner, "turns": state.turns},
    )
