"""Given / When / Then helpers for Mauw rule tests.

Positions are built by folding events (the Given), never by touching the
state.  Talons (draw piles) are written bottom first: the *last* card is the top,
the one drawn next.  A Given ``MauwWon`` takes the top of the talon as
the Mauw's face, exactly as the game does.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from shared.engine import IllegalAction, fold
from shared.events import Event
from shared.games.mauw import GAME
from shared.games.mauw.cards import CARDS, PHYSICAL
from tests import given as shared
from tests.invariants import Stateless

#: Codes hidden from a seat: in the state but not in its view.
hidden_from = shared.view_hidden(GAME, CARDS)


def deal(hands: list[list[str]], talon: list[str] = (), first: int = 0, **options: Any) -> Event:  # type: ignore[assignment]
    """The opening event with stacked hands and talon (top last)."""
    opts = GAME.Options(first_seat=first, **options).model_dump()
    data = {"options": opts, "players": len(hands), "first": first, "hands": [list(h) for h in hands], "talon": list(talon)}
    return Event("GameStarted", data, None)


def played(seat: int, card: str, column: int, *, player: int | None = None, as_: str | None = None, move: str = "reinforce") -> Event:
    """``seat`` played ``card`` on ``player``'s ``column`` (default own)."""
    data: dict[str, Any] = {"card": card, "as": as_, "player": seat if player is None else player, "column": column, "move": move}
    if move == "attack":
        data["place"] = None
    return Event("CardPlayed", data, seat)


def drawn(seat: int, card: str) -> Event:
    return Event("CardsDrawn", {"cards": [card]}, seat)


def reinforced(seat: int, card: str, column: int, draw: str, next_seat: int) -> list[Event]:
    """A whole reinforce turn: ``seat`` put ``card`` on its ``column``, drew ``draw``, passed to ``next_seat``."""
    return [played(seat, card, column), drawn(seat, draw), ended(next_seat)]


def pile(*in_draw_order: str) -> list[str]:
    """A talon from the cards in the order they will be drawn (first drawn = top)."""
    return list(reversed(in_draw_order))


def mauw(seat: int, place: int, times: int = 1) -> list[Event]:
    """``seat`` placed ``times`` Mauw on ``place`` (faces: the talon's top cards)."""
    return [Event("MauwWon", {"place": place}, seat) for _ in range(times)]


def ended(next_seat: int) -> Event:
    return Event("TurnEnded", {"next": next_seat}, None)


def given(*parts: Event | list[Event]) -> Any:
    """Fold the Given events (single events or lists of them) into a state."""
    return shared.given(GAME, *parts)


def when(state: Any, seat: int, action: dict, seed: int = 0) -> list[Event]:
    """The events ``decide`` returns (a shuffle uses ``random.Random(seed)``); decide must not mutate."""
    return shared.when(GAME, state, seat, action, seed)


def then(state: Any, events: list[Event]) -> Any:
    """Apply ``events`` to ``state`` (the state after the When)."""
    for e in events:
        state = GAME.evolve(state, e)
    return state


def refused(state: Any, seat: int, action: Any) -> IllegalAction:
    """Assert ``action`` is refused (state unchanged, no hidden card named); return the refusal."""
    return shared.refused(GAME, state, seat, action, hidden_from=hidden_from)


def column(state: Any, seat: int, col: int, viewer: int | None = None) -> list[str]:
    """The cards of a column as ``viewer`` sees them, bottom first."""
    return GAME.view(state, viewer)["areas"][seat][col]["cards"]


def points(state: Any) -> list[int]:
    return GAME.view(state, None)["points"]


def E(type_: str, data: dict | None = None, seat: int | None = None) -> Event:  # noqa: N802
    """Shorthand for an expected event."""
    return Event(type_, data or {}, seat)


def secret_from(state: Any, seat: int | None) -> set[str]:
    """Physical card codes ``seat`` must not see: other hands, the talon
    and the Mauw faces, less the codes it sees elsewhere (its hand, the
    face-up entries, the discard pile, the attack in progress)."""
    hidden = set(state.talon)
    for s, hand in enumerate(state.hands):
        if s != seat:
            hidden.update(hand)
    seen = set(state.discard)
    if seat is not None:
        seen.update(state.hands[seat])
    for area in state.areas:
        for col in area:
            hidden.update(col.mauw)
            if col.top is not None:
                seen.update((col.top, PHYSICAL[col.top]))
    if state.chain is not None:
        seen.add(state.chain.value)  # the value every reply must match
        if state.chain.card is not None:
            seen.update((state.chain.card, PHYSICAL[state.chain.card]))
    return hidden - seen


def secrets():
    """Mauw's secrets (the count-based and differential checks stay in test_properties)."""
    return Stateless(secret_from, lambda events: {
        c for e in events if e.type == "CardPlayed" for c in (e.data["card"], e.data["as"]) if c is not None
    })
