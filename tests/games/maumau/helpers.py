"""Given/When/Then helpers for Mau Mau rule tests.

A :class:`Table` starts from a hand-written ``GameStarted`` event (the
deal: hands, upcard, talon with ``talon[-1]`` on top) and then changes only
by folding the events ``decide`` returns: positions are built from events,
never by poking fields.
"""

from __future__ import annotations

import random
import re

import pytest

from shared.engine import IllegalAction, fold
from shared.events import Event, decode, encode
from shared.games.maumau import GAME
from shared.games.maumau.rules import Options, resolve_decks
from tests import given as shared
from tests.invariants import Stateless

#: Anything in a message that looks like a card code.
CARD_IN_TEXT = re.compile(r"\b(?:10|[2-9JQKA])[SHDC]\b")


def hidden_from(state, seat: int | None) -> set[str]:
    """Card codes ``seat`` must not see: other hands and the talon, less
    its own hand and the discard's top (two decks: a code can be in both)."""
    hidden = set(state.talon)
    for h in state.hands:
        hidden.update(h)
    hidden.discard(state.discard[-1])
    if seat is not None:
        hidden.difference_update(state.hands[seat])
    return hidden


def deal(hands: list[list[str]], upcard: str, talon: list[str] = (), *, dealer: int | None = None,
         round: int = 1, decider: bool = False, seats: list[int] | None = None) -> dict:
    """A deal's data: ``dealer`` defaults to the last seat, so seat 0 (or
    the first of ``seats``) plays first."""
    n = len(hands)
    seats = list(range(n)) if seats is None else seats
    return {
        "round": round,
        "decider": decider,
        "dealer": seats[-1] if dealer is None else dealer,
        "seats": seats,
        "hands": [list(h) for h in hands],
        "upcard": upcard,
        "talon": list(talon),
    }


def started(hands: list[list[str]], upcard: str, talon: list[str] = (), *, dealer: int | None = None, **options) -> Event:
    """A ``GameStarted`` event with a fixed deal."""
    opts = Options(**options)
    return Event(
        "GameStarted",
        {
            "options": opts.model_dump(mode="json"),
            "players": len(hands),
            "decks": resolve_decks(opts, len(hands)),
            "deal": deal(hands, upcard, talon, dealer=dealer),
        },
    )


def then(events: list[Event]) -> list[tuple]:
    """Events as comparable ``(type, seat, data)`` triples."""
    return [(e.type, e.seat, e.data) for e in events]


class Table:
    """A position built by folding events; ``act`` decides and folds."""

    def __init__(self, hands: list[list[str]], upcard: str, talon: list[str] = (), *, dealer: int | None = None,
                 seed: int = 0, **options) -> None:
        self.events = [started(hands, upcard, talon, dealer=dealer, **options)]
        self.state = fold(GAME, self.events)
        self.rng = random.Random(seed)

    def given(self, *events: Event) -> "Table":
        """Fold more events (e.g. a later round's deal)."""
        for e in events:
            self.events.append(e)
            self.state = GAME.evolve(self.state, e)
        return self

    def act(self, seat: int, action: dict) -> list[Event]:
        """When ``seat`` sends ``action``: the new events (also folded, through the codec)."""
        new = shared.when(GAME, self.state, seat, action, self.rng)
        for e in new:
            self.given(decode(encode(e)))
        return new

    def refuse(self, seat: int, action: dict, code: str) -> IllegalAction:
        """Then ``action`` is refused with ``code``, the state is unchanged
        and the message names no card."""
        err = shared.refused(GAME, self.state, seat, action, code, hidden_from=hidden_from, rng=self.rng)
        assert not CARD_IN_TEXT.search(err.message), err.message
        return err

    # Short reads for assertions (through the public projections).
    def view(self, seat: int | None = None) -> dict:
        return GAME.view(self.state, seat)

    def legal(self, seat: int) -> list[dict]:
        return GAME.legal_actions(self.state, seat)

    @property
    def awaiting(self) -> frozenset[int]:
        return GAME.awaiting(self.state)

    @property
    def turn(self) -> int:
        return self.view()["turn"]

    def hand(self, seat: int) -> list[str]:
        return self.view(seat)["hand"]


def secrets():
    """Mau Mau's secrets for the hidden-information property (tests.invariants)."""
    return Stateless(hidden_from, lambda events: {e.data["card"] for e in events if e.type == "CardPlayed"})
