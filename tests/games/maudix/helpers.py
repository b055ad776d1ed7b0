"""Given/When/Then helpers for Maudix rule tests.

Positions are built by folding events (never by poking state fields):
``started`` makes a ``GameStarted`` event with a chosen deal, and
``ecart_cycle`` the écart events that turn that deal into chosen hands.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from shared.engine import IllegalAction, fold
from shared.events import Event
from shared.games.maudix import GAME
from shared.games.maudix.rules import Options, deck_for
from tests import given as shared

#: Codes hidden from a seat: in the state but not in its view.
hidden_from = shared.view_hidden(GAME, deck_for(12))


def started(
    hands: Sequence[Sequence[str]],
    *,
    contracts: Sequence[str] = ("plis",),
    dealer: int = 0,
    removed: Sequence[str] = (),
    **options,
) -> Event:
    """A ``GameStarted`` event dealing exactly ``hands`` (seat order), round 1."""
    opts = Options(contracts=list(contracts), first_dealer=dealer, **options).model_dump()
    return Event(
        "GameStarted",
        {
            "options": opts,
            "players": len(hands),
            "round": 1,
            "contract": contracts[0],
            "dealer": dealer,
            "hands": [list(h) for h in hands],
            "removed": list(removed),
        },
    )


def ecart_cycle(final: Sequence[Sequence[str]]) -> tuple[list[list[str]], list[Event]]:
    """The deal and écart events that leave each seat holding ``final[seat]``.

    Every seat ``i``, in seat order, sends to seat ``i+1`` the first three
    cards of ``final[i+1]``.  Returns ``(deal, events)`` where ``events`` are
    the ``EcartMade`` events followed by ``EcartsExchanged``.
    """
    n = len(final)
    deal = [list(final[i][3:]) + list(final[(i + 1) % n][:3]) for i in range(n)]
    events = []
    passes = []
    for i in range(n):
        cards = list(final[(i + 1) % n][:3])
        events.append(Event("EcartMade", {"to": (i + 1) % n, "cards": cards}, i))
        passes.append([i, (i + 1) % n, cards])
    events.append(Event("EcartsExchanged", {"passes": passes}))
    return deal, events


def ready(final: Sequence[Sequence[str]], **kw) -> list[Event]:
    """Events of a game whose hands after the écart are ``final`` (see ``ecart_cycle``)."""
    deal, events = ecart_cycle(final)
    return [started(deal, **kw), *events]


def given(*events: Event | Sequence[Event]):
    """The state folded from ``events`` (lists are flattened)."""
    return shared.given(GAME, *events)


def when(state, seat: int, action: dict, seed: int = 0) -> list[Event]:
    """The events ``seat``'s ``action`` produces (decide must not mutate the state)."""
    return shared.when(GAME, state, seat, action, seed)


def refused(state, seat: int, action: dict) -> str:
    """The refusal code of ``action`` (fails the test when it is accepted,
    changes the state or names a card hidden from ``seat``)."""
    return shared.refused(GAME, state, seat, action, hidden_from=hidden_from).code


def play(seat: int, card: str) -> Event:
    """A ``CardPlayed`` event."""
    return Event("CardPlayed", {"card": card}, seat)


def won(winner: int, card: str, trick: int) -> Event:
    """A ``TrickWon`` event."""
    return Event("TrickWon", {"winner": winner, "card": card, "trick": trick})


def apply(state, events: Sequence[Event]):
    """Fold ``events`` onto ``state``."""
    return fold(GAME, events, state)
