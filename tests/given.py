"""One Given / When / Then helper for every game's rule tests.

* :func:`given` folds events (single events or lists of them) into a state;
* :func:`when` decides one action and always checks that ``decide`` did not
  mutate the state (snapshot bytes equal before and after);
* :func:`refused` asserts a refusal (optionally with its code), always
  checks that the refusal left the state unchanged and that its message
  names no card hidden from that seat.

What is hidden is the game's to say: each game's test helpers pass
``hidden_from(state, seat) -> set[str]`` (the codes ``seat`` must not see,
less those it legitimately sees elsewhere).  A code is named in a message
when it appears there as a whole token (not inside a longer word or code).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable
from typing import Any

import pytest

from shared.engine import Game, IllegalAction, fold
from shared.events import Event
from tests.invariants import snap_bytes

HiddenFrom = Callable[[Any, "int | None"], "set[str]"]


def _flat(parts: Iterable[Event | Iterable[Event]]) -> list[Event]:
    out: list[Event] = []
    for p in parts:
        if isinstance(p, Event):
            out.append(p)
        else:
            out.extend(p)
    return out


def given(game: Game, *events: Event | Iterable[Event], state: Any = None) -> Any:
    """The state folded from ``events`` (lists are flattened), onto ``state`` when given."""
    return fold(game, _flat(events), state)


def _rng(rng: random.Random | int | None) -> random.Random:
    return rng if isinstance(rng, random.Random) else random.Random(rng or 0)


def when(game: Game, state: Any, seat: int, action: Any, rng: random.Random | int | None = None) -> list[Event]:
    """The events ``seat``'s ``action`` produces; fails if ``decide`` mutated the state."""
    before = snap_bytes(game, state)
    new = game.decide(state, seat, action, _rng(rng))
    assert snap_bytes(game, state) == before, "decide mutated the state"
    return new


def names(message: str, codes: Iterable[str]) -> list[str]:
    """The ``codes`` named in ``message`` as whole tokens."""
    found = []
    for c in codes:
        if c and re.search(rf"(?<![\w$*#]){re.escape(c)}(?![\w$*#])", message):
            found.append(c)
    return sorted(found)


def refused(game: Game, state: Any, seat: int, action: Any, code: str | None = None, *,
            hidden_from: HiddenFrom | None = None, rng: random.Random | int | None = None) -> IllegalAction:
    """Assert ``action`` is refused (with ``code`` when given); the state is
    unchanged and the message names no card ``hidden_from(state, seat)``.
    Returns the refusal."""
    before = snap_bytes(game, state)
    with pytest.raises(IllegalAction) as err:
        game.decide(state, seat, action, _rng(rng))
    exc = err.value
    assert snap_bytes(game, state) == before, "a refusal mutated the state"
    if code is not None:
        assert exc.code == code, exc
    if hidden_from is not None:
        named = names(exc.message, hidden_from(state, seat))
        assert not named, f"refusal names cards hidden from seat {seat}: {named} ({exc.message!r})"
    return exc


def view_hidden(game: Game, codes: Iterable[str]) -> HiddenFrom:
    """A ``hidden_from`` from the game's view: every code of ``codes`` (the
    game's card vocabulary) present in the full state (its snapshot) but not
    in ``game.view(state, seat)``."""
    vocabulary = frozenset(codes)

    def hidden_from(state: Any, seat: int | None) -> set[str]:
        from tests.invariants import strings_in

        full = {s for s in strings_in(game.snapshot(state)) if s in vocabulary}
        return full - set(strings_in(game.view(state, seat)))

    return hidden_from
