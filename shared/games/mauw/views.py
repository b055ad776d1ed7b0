"""What each seat sees of Mauw: ``view(state, seat)`` and ``redact(event,
seat)``, both through :mod:`shared.hiding` (docs/games/mauw.md, "Views"
and "Events").

Secret: the other hands, the talon (the face-down draw pile) and its
order, the discard pile under its top.  The view is built whole — every
hand, the talon, the discard pile — and :data:`VIEW_SECRETS` hides them:
a seat gets its own ``hand`` (None for a spectator) and everyone's
``hand_sizes``, the ``talon_size`` and the ``discard_size`` (the top stays
as ``discard_top``).  A Mauw's face is seen by nobody, its owner included:
a column shows its Mauw as backs (``"MAUW"``) and their number, never the
faces, for every seat alike.

In the feeds (:data:`SECRETS`): the deal shows each seat its own hand and
the sizes of the others and of the talon; a drawn card is shown to its
drawer only (the others see the ``count``); a reshuffled talon shows only
its size.  Every other event is played face up.
"""

from __future__ import annotations

from typing import Any

from shared.games.mauw.cards import MAUW
from shared.games.mauw.scoring import area_points, column_points, result
from shared.games.mauw.state import State, awaiting, full_columns, is_over
from shared.hiding import PerSeat, Pile, Private, Secret, hide, redactor

#: The game's registry name, in every view.
NAME = "mauw"

#: The view's secrets: own hand only, the talon and the discard pile as sizes.
VIEW_SECRETS: tuple[Secret, ...] = (
    PerSeat("hands", sizes="hand_sizes", own="hand"),
    Pile("talon", "talon_size"),
    Pile("discard", "discard_size"),
)

#: Event type -> its secrets (types not named are public).
SECRETS: dict[str, tuple[Secret, ...]] = {
    "GameStarted": (PerSeat("hands", sizes="hand_sizes"), Pile("talon", "talon_size")),
    "CardsDrawn": (Private(("cards",), size="count"),),
    "TalonReshuffled": (Pile("talon", "talon_size"),),
}

#: ``redact(event, seat) -> Event``: the event as ``seat`` (None: a spectator) may see it.
redact = redactor(SECRETS)


def view(state: State, seat: int | None) -> dict[str, Any]:
    """What ``seat`` (None: a spectator) sees.

    ``turn`` (the seat whose turn it is), ``turns`` played, ``quiet_turns``
    since the last Mauw was placed (stalemate count), ``first``,
    ``awaiting``; ``hand``: own cards (None for spectators);
    ``hand_sizes``; ``areas``: per player 4 columns ``{"cards", "mauw",
    "top", "points"}`` with Mauw shown as ``"MAUW"``; ``points`` and
    ``full_columns`` per player; ``talon_size``; ``discard_size`` and
    ``discard_top``; ``chain`` (attack in progress) or None; ``options``;
    ``result`` once over; ``seats``: per seat ``seat``, ``cards`` in hand,
    ``score`` (its points).
    """
    chain = state.chain
    discard = state.discard
    areas = []
    for area in state.areas:
        cols = []
        for c in area:
            k = len(c.mauw)
            cards = [MAUW] * k
            if c.top is not None:
                cards.append(c.top)
            cols.append({"cards": cards, "mauw": k, "top": c.top, "points": column_points(c)})
        areas.append(cols)
    res = result(state)
    hands = state.hands
    points = [area_points(a) for a in state.areas]
    whole = {
        "game": NAME,
        "players": state.players,
        "seat": seat,
        "phase": state.phase.value,
        "turn": None if is_over(state) else state.turn,
        "turns": state.turns,
        "quiet_turns": state.turns - state.last_mauw,
        "first": state.first,
        "awaiting": sorted(awaiting(state)),
        "hands": state.hands,
        "areas": areas,
        "points": points,
        "full_columns": [full_columns(a, state.covered_columns_count) for a in state.areas],
        "talon": state.talon,
        "discard": discard,
        "discard_top": discard[-1] if discard else None,
        "chain": None
        if chain is None
        else {
            "attacker": chain.attacker,
            "defender": chain.defender,
            "column": chain.column,
            "value": chain.value,
            "card": chain.card,
            "place": chain.place,
            "waiting": chain.waiting,
            "attacks": chain.attacks,
        },
        "options": {
            "covered_columns_count": state.covered_columns_count,
            "auto_give_up": state.auto_give_up,
            "stalemate_rounds": state.stalemate_rounds,
            "chain_limit": state.chain_limit,
        },
        "result": res.to_json() if res is not None else None,
        "seats": [{"seat": i, "cards": len(hands[i]), "score": points[i]} for i in range(state.players)],
    }
    return hide(whole, VIEW_SECRETS, seat, fresh=True)
