"""DIX views and feeds: what a seat sees (docs/games/dix.md, "Views and
hidden information").

Everything in DIX is public but the deck: its order never shows, only its
size (``talon_size``).  The secrets are declared with :mod:`shared.hiding`:

* :data:`VIEW_SECRETS` — the view's: the deck is a :class:`~shared.hiding.Pile`;
* :data:`SECRETS` — the feed's, per event type: only ``GameStarted``
  carries the deck (its draw order), shown as ``talon_size`` to everyone.

:func:`view` builds the whole view and hides it; :data:`redact` is the
:func:`~shared.hiding.redactor` of :data:`SECRETS`.
"""

from __future__ import annotations

from typing import Any

from shared.games.dix.cards import sorted_cards
from shared.games.dix.scoring import result
from shared.games.dix.scoring import score as score_collection
from shared.games.dix.state import Rules, State, awaiting, money, wealth
from shared.hiding import Pile, Secret, hide, redactor

#: The view's secrets: the deck shows only its size.
VIEW_SECRETS: tuple[Secret, ...] = (Pile("deck", "talon_size"),)

#: The feed's secrets per event type (the others are public).
SECRETS: dict[str, tuple[Secret, ...]] = {
    "GameStarted": (Pile("deck", "talon_size"),),
}

#: ``redact(event, seat)``: the event as ``seat`` (None: a spectator) sees it.
redact = redactor(SECRETS)

_OPTIONS = Rules.__slots__


def view(state: State, seat: int | None) -> dict[str, Any]:
    """What ``seat`` (None: a spectator) sees; the same for every seat but
    ``seat``.  Keys: ``game, seat, players, phase, turn`` (the active
    player, None once over), ``turns`` (the turn counter), ``awaiting,
    talon_size`` (the deck's size), ``tableau`` (flip order), ``total,
    currency, market, discard, removed, bank``, ``seats`` (per seat
    ``seat, cards`` (None: DIX has no hand)``, tokens, consolation, money,
    wealth, collection, score``),
    ``auction`` (``joker, order, next, high, high_seat, bids``) or None,
    ``debt`` (``seat, owed, item``) or None, ``final_order, options,
    result`` (None until over)."""
    rules = state.rules
    a = state.auction
    d = state.debt
    res = result(state)
    whole = {
        "game": "dix",
        "seat": seat,
        "players": state.players,
        "phase": state.phase.value,
        "turn": None if res is not None else state.active,
        "turns": state.turns,
        "awaiting": sorted(awaiting(state)),
        "deck": state.deck,  # hidden: only talon_size shows
        "tableau": list(state.tableau),
        "total": state.total,
        "currency": state.currency,
        "market": list(state.market),
        "discard": sorted_cards(state.discard),
        "removed": list(state.removed),
        "bank": state.bank,
        "seats": [
            {
                "seat": i,
                "cards": None,
                "tokens": s.tokens,
                "consolation": s.consolation,
                "money": money(s, rules),
                "wealth": wealth(s, rules),
                "collection": list(s.collection),
                "score": score_collection(s.collection, rules.full_run_bonus),
            }
            for i, s in enumerate(state.seats)
        ],
        "auction": None
        if a is None
        else {
            "joker": a.joker,
            "order": list(a.order),
            "next": a.order[a.pos] if a.pos < len(a.order) else None,
            "high": a.high,
            "high_seat": a.high_seat,
            "bids": list(a.bids),
        },
        "debt": None if d is None else {"seat": d.seat, "owed": d.owed, "item": d.item},
        "final_order": list(state.final_order),
        "options": {k: getattr(rules, k) for k in _OPTIONS},
        "result": None if res is None else res.to_json(),
    }
    return hide(whole, VIEW_SECRETS, seat, fresh=True)
