"""Given/When/Then helpers for DIX rule tests.

A :class:`Table` starts from a ``GameStarted`` event with a chosen deck
(draw order: ``deck[0]`` is flipped first) and then only ever changes by
folding the events that ``decide`` returns, so every position is built
from events, never by poking fields.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from shared.engine import IllegalAction, fold
from shared.events import Event, decode, encode
from shared.games.dix import GAME, Options
from shared.games.dix.cards import KIND, removed_cards
from tests import given as shared
from tests.invariants import Stateless

#: Codes hidden from a seat: in the state (the deck) but not in its view.
hidden_from = shared.view_hidden(GAME, KIND)


def started(deck: list[str], players: int = 2, first: int = 0, **options) -> Event:
    """A ``GameStarted`` event with a fixed deck (draw order) and first seat."""
    opts = Options(**options).model_dump()
    return Event(
        "GameStarted",
        {"options": opts, "players": players, "first": first, "removed": removed_cards(players), "deck": list(deck)},
    )


class Table:
    """A position built by folding events; ``act`` decides and folds."""

    def __init__(self, deck: list[str], players: int = 2, first: int = 0, **options) -> None:
        self.events = [started(deck, players, first, **options)]
        self.state = fold(GAME, self.events)
        self.rng = random.Random(0)

    def act(self, seat: int, action: dict) -> list[Event]:
        """When ``seat`` sends ``action``: return the new events (also folded)."""
        new = shared.when(GAME, self.state, seat, action, self.rng)
        new = [decode(encode(e)) for e in new]
        for e in new:
            self.state = GAME.evolve(self.state, e)
        self.events.extend(new)
        return new

    def script(self, *steps: tuple[int, dict]) -> None:
        """Play several ``(seat, action)`` steps."""
        for seat, action in steps:
            self.act(seat, action)

    def refuse(self, seat: int, action: dict) -> str:
        """``decide`` must refuse; return the code (the state must not change)."""
        return shared.refused(GAME, self.state, seat, action, hidden_from=hidden_from, rng=self.rng).code

    def view(self, seat: int | None = None) -> dict:
        return GAME.view(self.state, seat)

    def seat(self, i: int) -> dict:
        """The public view of seat ``i``'s holdings."""
        return GAME.view(self.state, None)["seats"][i]

    @property
    def awaiting(self) -> list[int]:
        return sorted(GAME.awaiting(self.state))

    def legal(self, seat: int) -> list[dict]:
        return GAME.legal_actions(self.state, seat)


FLIP = {"type": "flip"}
TAKE_NUMBERS = {"type": "take_numbers"}
TAKE_CURRENCY = {"type": "take_currency"}
PASS = {"type": "pass"}
PAY_CONSOLATION = {"type": "pay_consolation"}


def bid(amount: int) -> dict:
    return {"type": "bid", "amount": amount}


def buy(card: str) -> dict:
    return {"type": "buy", "card": card}


def pay_tokens(count: int) -> dict:
    return {"type": "pay_tokens", "count": count}


def pay_card(card: str) -> dict:
    return {"type": "pay_card", "card": card}


def ev(type_: str, data: dict | None = None, seat: int | None = None) -> Event:
    """An expected event (no timestamp, no command id)."""
    return Event(type_, data or {}, seat)


def public_cards(state) -> Counter:
    """Every card whose place any seat may know (all zones but the deck), with copies."""
    zones = Counter(state.tableau)
    zones.update(state.market)
    zones.update(state.discard)
    zones.update(state.removed)
    for s in state.seats:
        zones.update(s.collection)
    if state.auction is not None:
        zones[state.auction.joker] += 1
    if state.debt is not None:
        zones[state.debt.item] += 1
    return zones


class Secrets(Stateless):
    """DIX's secrets: the codes of the deck not also in a public zone; and,
    codes repeating, the counted mode: no view or event shows more copies
    of a code than the public zones hold (so neither the deck's content nor
    its order can leak), while the deck is not empty."""

    codes = frozenset(KIND)

    def __init__(self) -> None:
        super().__init__(lambda state, seat: set(state.deck) - set(public_cards(state)))

    def visible(self, state, seat) -> Counter | None:
        return public_cards(state) if state.deck else None


def secrets() -> Secrets:
    return Secrets()
