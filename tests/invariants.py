"""The invariant suite shared by all games (style.md: one suite for all).

``playout`` drives a game to its end (:func:`shared.engine.play`) with a
bot strategy on every seat, checking after every action that:

* ``decide`` did not mutate the state (its snapshot is unchanged);
* every view and every redacted event is JSON-serialisable;
* every view has ``seats``: one ``{"seat", "cards", "score"}`` per seat, in
  seat order (:func:`check_seats`);
* ``awaiting`` seats have at least one legal action;
* a strategy may return ``None`` only for an optional out-of-turn move
  (e.g. a Mau Mau call-out); at least one awaited seat must act;
* replaying the log from nothing gives the live state (checked at the end
  and, when ``check_replay_every`` is set, every N events);
* the snapshot round-trips (dump -> msgpack -> load -> dump is identical).

Game test modules call it with their own extra checks (``on_step``), e.g.
card conservation, and with their :class:`Secrets` (``secrets=``) for the
one hidden-information property (:func:`hidden_checker`).
"""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from typing import Any, Callable

import msgpack

from shared.engine import Game, Played, PlayError, fold, play, wants_feed
from shared.events import Event
from shared.presence import feed


def snap_bytes(game: Game, state: Any) -> bytes:
    """Canonical bytes of a state (msgpack of its snapshot)."""
    return msgpack.packb(game.snapshot(state), use_bin_type=True)


def check_seats(view: Any, players: int) -> None:
    """The one ``seats`` shape of every game's view: a list, one object per
    seat in seat order, each with ``seat`` (int), ``cards`` (int or None)
    and ``score`` (int or None); further keys are the game's own."""
    seats = view["seats"]
    assert isinstance(seats, list) and len(seats) == players, f"seats: {seats!r}"
    for i, entry in enumerate(seats):
        assert isinstance(entry, dict) and entry["seat"] == i, f"seats[{i}]: {entry!r}"
        for key in ("cards", "score"):
            v = entry[key]
            assert v is None or (type(v) is int and (key != "cards" or v >= 0)), f"seats[{i}].{key}: {v!r}"


def _checked(strategy: Callable, players: int) -> Callable:
    """``strategy`` with its view and legal actions checked JSON-ready
    first, and the view's ``seats`` (:func:`check_seats`) (taking ``feed``
    when ``strategy`` does)."""
    if wants_feed(strategy):

        def with_feed(view, legal, rng, feed):
            json.dumps(view)
            json.dumps(list(legal))  # a sequence of JSON-ready actions (Maudix's écart: read on demand)
            check_seats(view, players)
            return strategy(view, legal, rng, feed=feed)

        return with_feed

    def checked(view, legal, rng):
        json.dumps(view)
        json.dumps(list(legal))
        check_seats(view, players)
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
    secrets: "Secrets | None" = None,
) -> Played:
    """Play one seeded game to the end (:func:`shared.engine.play`, events
    through the codec) with ``strategy`` on every seat; see module doc
    for the checks.  ``on_step(state, events)`` runs after every accepted
    action (not after the opening).  With ``secrets``, the
    hidden-information property (:func:`hidden_checker`) runs after every
    step, the opening included.

    Raises AssertionError on any broken invariant, including a game that
    does not finish within ``max_steps`` actions.
    """
    strat = game.strategies[strategy]
    if check_views:
        strat = _checked(strat, players)
    before = b""  # the snapshot of the state the next decide gets
    opened = False
    hidden = hidden_checker(game, players, secrets) if secrets is not None else None

    def decided(state: Any, seat: int, action: Any, new: list[Event]) -> None:
        if check_mutation:
            assert snap_bytes(game, state) == before, "decide mutated the state"
        assert new, "an accepted action must produce events"

    def stepped(state: Any, new: list[Event]) -> None:
        nonlocal before, opened
        if check_mutation:
            before = snap_bytes(game, state)
        if hidden is not None:
            hidden(state, new)
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
    if check_views:
        for s in [None, *range(players)]:
            check_seats(game.view(state, s), players)
    if hidden is not None:
        assert hidden.checked, "nothing was ever secret: the property checked nothing"  # type: ignore[attr-defined]
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


#: Games per (game, player count) of the hidden-information property:
#: a modest CI size, more with ``TAPIS_PROPERTY_GAMES``.
HIDDEN_GAMES = int(os.environ.get("TAPIS_PROPERTY_GAMES", "0")) or 3


class Secrets:
    """What a game keeps secret, for :func:`check_hidden_information`.

    ``secret(state, seat)`` is the set of codes (strings) ``seat`` (None: a
    spectator) must not see now, less any it legitimately sees elsewhere.
    ``learn(state, events)`` runs first after every step (the opening
    included), for games whose secrets depend on what was revealed before
    (a subclass keeps that knowledge; the default learns nothing).
    """

    def learn(self, state: Any, events: list[Event]) -> None:
        pass

    def secret(self, state: Any, seat: int | None) -> set[str]:
        raise NotImplementedError

    def feed_secret(self, state: Any, seat: int | None) -> set[str]:
        """The codes the new events may not show ``seat`` (default: ``secret``;
        a game where the step's own events legitimately show more says so)."""
        return self.secret(state, seat)

    #: The counted mode, for games whose codes repeat (a set check cannot
    #: see a hidden copy of a code that is also visible): the codes counted.
    codes: frozenset[str] = frozenset()

    def visible(self, state: Any, seat: int | None) -> Counter | None:
        """At most how many copies of each code of ``codes`` the view of
        ``seat`` and each new event as its feed shows it may hold now
        (None, the default: no count check)."""
        return None


class Stateless(Secrets):
    """Secrets given by a plain ``(state, seat) -> set[str]`` function;
    ``shown(events)``, when given, names the codes a step's events show
    everybody (a card played, then reshuffled into a hidden pile in the
    same step, was public when played): the feed may show those."""

    def __init__(self, fn: Callable[[Any, int | None], set[str]],
                 shown: Callable[[list[Event]], set[str]] | None = None) -> None:
        self.fn = fn
        self.shown = shown
        self.batch: set[str] = set()

    def learn(self, state: Any, events: list[Event]) -> None:
        self.batch = self.shown(events) if self.shown is not None else set()

    def secret(self, state: Any, seat: int | None) -> set[str]:
        return self.fn(state, seat)

    def feed_secret(self, state: Any, seat: int | None) -> set[str]:
        return self.fn(state, seat) - self.batch


def _counted(strings: list[str], codes: frozenset[str]) -> Counter:
    return Counter(x for x in strings if x in codes)


def hidden_checker(game: Game, players: int, secrets: Secrets) -> Callable[[Any, list[Event]], None]:
    """An ``on_step(state, new)`` checking, for every seat and the spectator,
    that no code of ``secrets.secret(state, seat)`` appears among the
    strings of ``game.view(state, seat)`` and none of
    ``secrets.feed_secret(state, seat)`` in the new events as that seat's
    feed shows them (:func:`shared.presence.feed`, i.e. ``game.redact``).
    Each new event is checked against the state just after it (folded
    onto a copy of the state before the step; ``secrets.learn`` sees the
    events one at a time), each view against the state after the step.
    With the counted mode (``secrets.visible``), neither may hold more
    copies of a code of ``secrets.codes`` than ``visible`` allows.
    Its ``checked`` attribute counts the (step, seat) pairs with a secret.
    The first call must be the opening (as :func:`shared.engine.play` does)."""
    seats = [None, *range(players)]
    before: list[Any] = [None]  # a copy of the state before the step

    def copy(state: Any) -> Any:
        return game.restore(msgpack.unpackb(snap_bytes(game, state), raw=False, strict_map_key=False))

    def on_step(state: Any, new: list[Event]) -> None:
        st = before[0]
        for e in new:  # each event against the state just after it
            st = fold(game, [e], st)
            secrets.learn(st, [e])
            for seat in seats:
                bad = secrets.feed_secret(st, seat)
                cap = secrets.visible(st, seat)
                if bad or cap is not None:
                    for _v, r in feed(game, [e], seat):
                        shown = strings_in(r.data)
                        leaked = bad.intersection(shown)
                        assert not leaked, f"{e.type} shows seat {seat} hidden {sorted(leaked)}"
                        if cap is not None:
                            over = _counted(shown, secrets.codes) - cap
                            assert not over, f"{e.type} shows seat {seat} extra copies {dict(over)}"
        for seat in seats:
            bad = secrets.secret(state, seat)
            cap = secrets.visible(state, seat)
            if bad or cap is not None:
                on_step.checked += 1  # type: ignore[attr-defined]
                shown = strings_in(game.view(state, seat))
                leaked = bad.intersection(shown)
                assert not leaked, f"view of seat {seat} shows hidden {sorted(leaked)}"
                if cap is not None:
                    over = _counted(shown, secrets.codes) - cap
                    assert not over, f"view of seat {seat} shows extra copies {dict(over)}"
        before[0] = copy(state)

    on_step.checked = 0  # type: ignore[attr-defined]
    return on_step


def check_hidden_information(
    game: Game,
    players: int,
    seed: int,
    secrets: Secrets,
    *,
    options: dict | None = None,
    strategy: str = "random",
    max_steps: int = 20_000,
) -> Played:
    """The hidden-information property over one seeded random game played
    through :func:`shared.engine.play`: after every step (the opening
    included), for every seat and the spectator, no code of
    ``secrets.secret(state, seat)`` appears among the strings of
    ``game.view(state, seat)`` nor of the new events as that seat's feed
    shows them (:func:`shared.presence.feed`, i.e. ``game.redact``)."""
    on_step = hidden_checker(game, players, secrets)
    try:
        out = play(game, [strategy] * players, random.Random(seed), options=options, codec=True,
                   on_step=on_step, max_steps=max_steps)
    except PlayError as exc:
        raise AssertionError(str(exc)) from exc
    assert on_step.checked, "nothing was ever secret: the property checked nothing"  # type: ignore[attr-defined]
    return out
