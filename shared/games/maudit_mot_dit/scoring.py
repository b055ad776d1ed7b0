"""Maudit Mot Dit's scores: the points of one turn, the running totals and
the result (docs/games/maudit_mot_dit.md, "Scoring" and "End").

A turn's outcome is one of :data:`EXACT`, :data:`EARLY`, :data:`MISS`,
:data:`CURSED`; :func:`turn_points` gives its points per seat.  A total is
the points taken minus :data:`BAD_LUCK_PENALTY` per Mauvais sort card
minus :data:`CURSE_PENALTY` for the Malédiction (:func:`totals`); the
highest total wins and equal totals share the place (:func:`result`).
"""

from __future__ import annotations

from collections.abc import Sequence

from shared.engine import Result, places_from

from .state import Phase, State

#: Penalties at the end (docs, "Cards" and "End").
CURSE_PENALTY = 4
BAD_LUCK_PENALTY = 1

# Outcomes of a turn (docs, "Scoring").
EXACT = "exact"
EARLY = "early"
MISS = "miss"
CURSED = "cursed"


def turn_points(players: int, active: int, outcome: str, finders: Sequence[int], count: int,
                clues: int) -> list[int]:
    """Points per seat of one turn: found with exactly the required
    ``count`` of clues, the active player and each finder score ``count``;
    found earlier, only the finders score, as many as the ``clues`` given;
    otherwise (missed, cursed) nobody scores."""
    points = [0] * players
    if outcome == EXACT:
        for s in (active, *finders):
            points[s] = count
    elif outcome == EARLY:
        for s in finders:
            points[s] = clues
    return points


def totals(state: State) -> list[int]:
    """The total per seat: points, -1 per Mauvais sort card, -4 for the
    Malédiction (docs, "End")."""
    out = [p - BAD_LUCK_PENALTY * b for p, b in zip(state.points, state.bad_luck, strict=True)]
    if state.curse_holder is not None:
        out[state.curse_holder] -= CURSE_PENALTY
    return out


def result(state: State) -> Result | None:
    """Final totals and places (most points wins, equal totals share),
    once the game is over; detail gives points, Mauvais sort cards, the
    Malédiction holder, the reason of the end and the turns played."""
    if state.phase is not Phase.OVER:
        return None
    t = totals(state)
    return Result(
        scores=tuple(t),  # whole points, as the other games give theirs
        places=places_from(t, lower_wins=False),
        lower_wins=False,
        detail={
            "points": list(state.points),
            "bad_luck": list(state.bad_luck),
            "curse_holder": state.curse_holder,
            "reason": state.ended,
            "turns": state.turn,
        },
    )
