"""Maudix scoring: the points of one round per contract and the final result
(docs/games/maudix.md, "Scoring" and "End of the game").

:func:`round_points` is what ``rules`` writes into ``RoundScored``;
:func:`result` reads the finished state.  Penalty points: the lowest total
wins.
"""

from __future__ import annotations

from collections.abc import Sequence

from shared.cards import RANK, SUIT, SUITS
from shared.engine import Result, places_from
from shared.games.maudix.state import CARD_SUIT, JACK, QUEEN, TEN_HEARTS, TENS, Contract, Phase, State, count_in

HEADS: frozenset[str] = frozenset(c for c in RANK if RANK[c] >= JACK)
QUEENS: frozenset[str] = frozenset(c for c in RANK if RANK[c] == QUEEN)
HEARTS: frozenset[str] = frozenset(c for c in RANK if SUIT[c] == "H")


def prediction_penalty(bid: int, tricks: int) -> int:
    """La Prédiction (§09.06): +10 per trick of difference (bid 3: 3→0, 2/4→10, 1/5→20, 0/6→30)."""
    return 10 * abs(bid - tricks)


def association_scores(piles: Sequence[int], targets: Sequence[int]) -> list[int]:
    """L'Association (§09.04): each scores max(own pile, designated opponent's pile).

    ``piles`` are heart points (5 per heart, 10♥ included), ``targets[s]``
    the seat ``s`` designated.  The 10♥ bonus is added after, by the caller.
    Example: piles (David 15, Lula 40, Alice 25), David→Lula, Lula→Alice,
    Alice→David → (40, 40, 25).
    """
    return [max(piles[s], piles[targets[s]]) for s in range(len(piles))]


def round_points(
    contract: Contract,
    captured: Sequence[Sequence[str]],
    tricks_won: Sequence[int],
    *,
    per_trick: int,
    bids: Sequence[int | None] = (),
    designations: Sequence[int | None] = (),
    contamination: Sequence[int] = (),
) -> list[int]:
    """Points of one round per seat (§06, §09), from the cards each captured.

    ``captured[s]``: every card of the tricks ``s`` won; ``tricks_won[s]``:
    their number; ``bids``/``designations`` for rounds 6/4;
    ``contamination[s]``: the Maudix contamination points already counted.
    """
    n = len(captured)
    tens_h = [count_in(captured[s], TEN_HEARTS) for s in range(n)]
    if contract is Contract.MAUDIX:
        return [
            sum(50 if c == TEN_HEARTS else 20 for c in captured[s] if c in TENS) + contamination[s] for s in range(n)
        ]
    if contract is Contract.PLIS:
        base = [per_trick * tricks_won[s] for s in range(n)]
    elif contract is Contract.DAMES:
        base = [20 * sum(1 for c in captured[s] if c in QUEENS) for s in range(n)]
    elif contract is Contract.TETES:
        base = [5 * sum(1 for c in captured[s] if c in HEADS) for s in range(n)]
    elif contract is Contract.ASSOCIATION:
        piles = [5 * sum(1 for c in captured[s] if c in HEARTS) for s in range(n)]
        base = association_scores(piles, [t if t is not None else s for s, t in enumerate(designations)])
    elif contract is Contract.CHASSE:
        base = [20 * sum(1 for su in SUITS if not any(CARD_SUIT[c] == su for c in captured[s])) for s in range(n)]
    else:  # PREDICTION
        base = [prediction_penalty(bids[s] or 0, tricks_won[s]) for s in range(n)]
    return [base[s] + 10 * tens_h[s] for s in range(n)]


def result(state: State) -> Result | None:
    """Final totals and places (lowest total wins, equal totals share) once over.

    ``detail``: ``rounds`` (points per round, per seat) and ``contracts``."""
    if state.phase is not Phase.OVER:
        return None
    totals = tuple(state.totals)
    return Result(
        scores=totals,
        places=places_from(totals, lower_wins=True),
        lower_wins=True,
        detail={"rounds": [list(r) for r in state.round_scores], "contracts": [c.value for c in state.contracts]},
    )
