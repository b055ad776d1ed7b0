"""The invariant suite shared by all games (style.md: one suite for all).

``playout`` drives a game to its end (:func:`shared.engine.play`) with a
bot strategy on every seat, checking after every action that:

* ``decide`` did not mutate the state (its snapshot is unchanged);
* every view and every redacted event is JSON-serialisable;
* ``awaiting`` seats have at least one legal action;
* a strategy may return ``None`` only for an optional out-of-turn move
  (e.g. a Mau Mau call-out); at least one awaited seat must act;
* replaying the log from nothing gives the live state (checked at the end
  and, when ``check_replay_every`` is set, every N events);
* the snapshot round-trips (dump -> msgpack -> load -> dump is identical).

Game test modules call it with their own extra checks (``on_step``), e.g.
card conservation or hidden-information checks.
"""

from __future__ import annotations

import json
import random
from typing import Any, Callable

import msgpack

from shared.engine import Game, Played, PlayError, fold, play, wants_feed
from shared.events import Event


def snap_bytes(game: Game, state: Any) -> bytes:
    """Canonical bytes of a state (msgpack of its snapshot)."""
    return msgpack.packb(game.snapshot(state), use_bin_type=True)


def _checked(strategy: Callable) -> Callable:
    """``strategy`` with its view and legal actions checked JSON-ready
    first (taking ``feed`` when ``strategy`` does)."""
    if wants_feed(strategy):

        def with_feed(view, legal, rng, feed):
            json.dumps(view)
            json.dumps(legal)
            return strategy(view, legal, rng, feed=feed)

        return with_feed

    def checked(view, legal, rng):
        json.dumps(view)
        json.dumps(legal)
        return strategy(view, legal, rng)

    return checked


def playout(
    game: Game,
    players: int,
    seed: int,
    *,
    options: dict | None = None,
    strategy: str = "random",
    max_steps: int = 20_000,
    on_step: Callable[[Any, list[Event]], None] | None = None,
    check_views: bool = True,
    check_mutation: bool = True,
) -> Played:
    """Play one seeded game to the end (:func:`shared.engine.play`, events
    through the codec) with ``strategy`` on every seat; see module doc
    for the checks.  ``on_step(state, events)`` runs after every accepted
    action (not after the opening).

    Raises AssertionError on any broken invariant, including a game that
    does not finish within ``max_steps`` actions.
    """
    strat = game.strategies[strategy]
    if check_views:
        strat = _checked(strat)
    before = b""  # the snapshot of the state the next decide gets
    opened = False

    def decided(state: Any, seat: int, action: Any, new: list[Event]) -> None:
        if check_mutation:
            assert snap_bytes(game, state) == before, "decide mutated the state"
        assert new, "an accepted action must produce events"

    def stepped(state: Any, new: list[Event]) -> None:
        nonlocal before, opened
        if check_mutation:
            before = snap_bytes(game, state)
        if not opened:  # the opening
            opened = True
            return
        if check_views:
            for s in [None, *range(players)]:
                for e in new:
                    r = game.redact(e, s)
                    if r is not None:
                        json.dumps(r.to_json())
        if on_step is not None:
            on_step(state, new)

    try:
        out = play(game, [strat] * players, random.Random(seed), options=options, codec=True,
                   on_decide=decided, on_step=stepped, max_steps=max_steps)
    except PlayError as exc:
        raise AssertionError(str(exc)) from exc
    state = out.state
    replayed = fold(game, out.events)
    assert snap_bytes(game, replayed) == snap_bytes(game, state), "replay differs from live state"
    blob = msgpack.unpackb(snap_bytes(game, state), raw=False, strict_map_key=False)
    assert snap_bytes(game, game.restore(blob)) == snap_bytes(game, state), "snapshot does not round-trip"
    json.dumps(out.result.to_json())
    return out


def strings_in(obj: Any) -> list[str]:
    """Every string (keys and values) inside a JSON-like value."""
    found: list[str] = []
    stack = [obj]
    while stack:
        o = stack.pop()
        if isinstance(o, str):
            found.append(o)
        elif isinstance(o, dict):
            stack.extend(o.keys())
            stack.extend(o.values())
        elif isinstance(o, (list, tuple, set, frozenset)):
            stack.extend(o)
    return found
