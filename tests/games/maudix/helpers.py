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
from shared.games.maudix.state import Phase
from tests import given as shared
from tests.invariants import Secrets as SecretsBase

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


class Secrets(SecretsBase):
    """Maudix's secrets for the hidden-information property: other hands,
    pending écarts and the removed cards, less what a seat knows (its hand,
    cards it passed or received, cards stolen from or by it, the trick's
    cards); gathered tricks are out of the views too (the feed named them)."""

    def __init__(self) -> None:
        self.known: list[set[str]] = []
        self.trick: list[str] = []
        self.batch: set[str] = set()

    def learn(self, state, events) -> None:
        if not self.known:
            self.known = [set() for _ in state.hands]
        self.batch = set(self.trick) | {e.data["card"] for e in events if e.type == "CardPlayed"}
        for e in events:
            d = e.data
            if e.type in ("GameStarted", "RoundDealt"):
                self.known = [set() for _ in state.hands]
                self.trick = []
            elif e.type == "EcartsExchanged":
                for g, r, cards in d["passes"]:
                    self.known[g].update(cards)
                    self.known[r].update(cards)
            elif e.type in ("CardStolen", "CardReturned"):
                self.known[e.seat].add(d["card"])
                self.known[d["target"]].add(d["card"])
            elif e.type == "CardPlayed":
                self.trick.append(d["card"])
            elif e.type == "TrickWon":
                self.trick = []

    def _allowed(self, st, seat) -> set[str]:
        allowed = {c for _, c in st.trick} | self.batch
        if seat is not None:
            allowed |= set(st.hands[seat]) | self.known[seat]
            if st.phase is Phase.ECART and st.ecart_cards[seat] is not None:
                allowed |= set(st.ecart_cards[seat])
        return allowed

    def feed_secret(self, st, seat) -> set[str]:
        secret = set(st.removed)
        for s in range(len(st.hands)):
            if s != seat:
                secret |= set(st.hands[s])
                if st.phase is Phase.ECART and st.ecart_cards[s] is not None:
                    secret |= set(st.ecart_cards[s])
        return secret - self._allowed(st, seat)

    def secret(self, st, seat) -> set[str]:
        gathered = {c for pile in st.captured for c in pile}
        return self.feed_secret(st, seat) | (gathered - self._allowed(st, seat))


def secrets() -> Secrets:
    return Secrets()
