"""Mau Mau's scoring (docs/games/maumau.md, "Scoring and the game").

Penalty points of cards left in hand (:data:`POINTS`, :func:`card_points`,
:func:`hand_points`), a round's points (:func:`round_points`), the final
places with the decider round as tie-break (:func:`final_places`) and the
game's :func:`result`.
"""

from __future__ import annotations

from shared.cards import JACK, RANK
from shared.engine import Result, places_from
from shared.games.maumau.state import Phase, State

#: Penalty points of a card left in hand: A K Q J = 10, others face value.
POINTS: dict[str, int] = {c: (10 if r >= JACK else r) for c, r in RANK.items()}


def card_points(card: str) -> int:
    """Penalty points of one card: A K Q J = 10, others face value."""
    return POINTS[card]


def hand_points(hand: list[str] | tuple[str, ...]) -> int:
    """Penalty points of a hand."""
    return sum(POINTS[c] for c in hand)


def round_points(state: State, winner: int | None) -> list[int | None]:
    """Each seat's points for the round ending in ``state``: 0 for the
    ``winner`` (None: a blocked round), the cards left in hand for the
    other seats of the round, None for a seat sitting it out."""
    points: list[int | None] = [None] * state.players
    for x in state.seats:
        points[x] = 0 if x == winner else hand_points(state.hands[x])
    return points


def final_places(totals: list[int], decider_points: list[int | None] | None) -> tuple[int, ...]:
    """Places by total (lower first); a decider round's points break the tie
    among the players who played it."""
    if decider_points is None:
        return places_from(totals, lower_wins=True)
    return places_from([(t, d or 0) for t, d in zip(totals, decider_points, strict=True)], lower_wins=True)


def result(state: State) -> Result | None:
    """Totals (penalty points, lower wins) and places once the game is
    over (None before); ``detail`` holds the per-round sheet (``rounds``),
    round winners and the decider round's points (None when there was
    none)."""
    s = state
    if s.phase is not Phase.OVER:
        return None
    return Result(
        scores=tuple(s.totals),
        places=final_places(s.totals, s.decider_points),
        lower_wins=True,
        detail={
            "rounds": [list(p) for p in s.scores],
            "round_winners": list(s.winners),
            "decider_points": None if s.decider_points is None else list(s.decider_points),
            "target_score": s.rules.target_score,
        },
    )
