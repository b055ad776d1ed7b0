"""The invariant suite shared by all games (style.md: one suite for all).

``playout`` drives a game to its end with a bot strategy on every seat,
checking after every action that:

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
from dataclasses import dataclass, field
from typing import Any, Callable

import msgpack

from shared.engine import Game, fold
from shared.events import Event, decode, encode


@dataclass
class Playout:
    """What a finished playout left behind."""

    events: list[Event] = field(default_factory=list)
    state: Any = None
    steps: int = 0


def snap_bytes(game: Game, state: Any) -> bytes:
    """Canonical bytes of a state (msgpack of its snapshot)."""
    return msgpack.packb(game.snapshot(state), use_bin_type=True)


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
) -> Playout:
    """Play one seeded game to the end; see module doc for the checks.

    Raises AssertionError on any broken invariant, including a game that
    does not finish within ``max_steps`` actions.
    """
    rng = random.Random(seed)
    opts = game.Options(**(options or {}))
    out = Playout()
    opening = game.start(opts, players, rng)
    # Events go through the codec, as they would through the store.
    opening = [decode(encode(e)) for e in opening]
    out.events.extend(opening)
    state = fold(game, opening)
    strat = game.strategies[strategy]
    passed: set[int] = set()  # seats whose optional out-of-turn move was declined
    while game.result(state) is None:
        assert out.steps < max_steps, f"no result after {max_steps} actions"
        waiting = sorted(game.awaiting(state))
        assert waiting, "game not over but nobody is awaited"
        choices = [s for s in waiting if s not in passed]
        assert choices, "every awaited seat declined to act: the game is stuck"
        seat = rng.choice(choices)
        legal = game.legal_actions(state, seat)
        assert legal, f"seat {seat} awaited with no legal action"
        view = game.view(state, seat)
        if check_views:
            json.dumps(view)
            json.dumps(legal)
        action = strat(view, legal, rng)
        if action is None:  # an optional out-of-turn move, declined
            passed.add(seat)
            continue
        passed.clear()
        before = snap_bytes(game, state) if check_mutation else b""
        new = game.decide(state, seat, action, rng)
        if check_mutation:
            assert snap_bytes(game, state) == before, "decide mutated the state"
        new = [decode(encode(e)) for e in new]
        assert new, "an accepted action must produce events"
        for e in new:
            state = game.evolve(state, e)
        out.events.extend(new)
        out.steps += 1
        if check_views:
            for s in [None, *range(players)]:
                for e in new:
                    r = game.redact(e, s)
                    if r is not None:
                        json.dumps(r.to_json())
        if on_step is not None:
            on_step(state, new)
    out.state = state
    replayed = fold(game, out.events)
    assert snap_bytes(game, replayed) == snap_bytes(game, state), "replay differs from live state"
    blob = msgpack.unpackb(snap_bytes(game, state), raw=False, strict_map_key=False)
    assert snap_bytes(game, game.restore(blob)) == snap_bytes(game, state), "snapshot does not round-trip"
    json.dumps(game.result(state).to_json())
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
