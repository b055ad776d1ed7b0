"""The game-as-decider contract (docs/architecture.md, "The game contract").

Every game package exposes one object ``GAME`` satisfying :class:`Game`.
The services only ever talk to games through this protocol:

* ``start(options, players, rng) -> list[Event]`` — the opening events;
  the first one must carry everything ``evolve`` needs to build the state
  from ``None`` (options, player count, the shuffled deal).
* ``decide(state, seat, action, rng) -> list[Event]`` — validate one
  action of ``seat`` against ``state``; raise :class:`IllegalAction`;
  never mutate ``state``.  Randomness is drawn from ``rng`` only and its
  outcome is written into the events.
* ``evolve(state, event) -> state`` — apply one event; pure, no clock, no
  randomness; may mutate and return ``state``; ``state`` is ``None`` for
  the first event.
* ``awaiting(state) -> frozenset[int]`` — seats that may act now.
* ``to_act(state) -> frozenset[int]`` — the awaited seats the game cannot
  go on without (not those whose only move is optional, such as a
  call-out); turn clocks and stand-in bots apply to these.  Default:
  ``awaiting``.
* ``legal_actions(state, seat) -> list[dict]`` — JSON-ready actions, every
  one enumerated (bots and :func:`play` pick from these); a free-text
  action may stand there as a placeholder (an empty ``word``).  A list,
  or for a long enumeration a sequence that builds each action when it is
  read (Maudix's écart: up to 858 actions); ``list()`` of it is JSON-ready.
* ``choices(state, seat) -> list[dict]`` — the actions of ``seat`` that are
  combinations or free text, each described as ``{"type", "schema" (JSON
  Schema of the whole action), "hint"}`` instead of enumerated (default:
  none).  :func:`client_actions` gives the API ``legal_actions`` without
  those types, plus these descriptions.
* ``view(state, seat | None) -> dict`` — what that seat (or a spectator,
  ``None``) may see; JSON-ready.
* ``redact(event, seat | None) -> Event | None`` — the event as that seat
  may see it in a feed (``None``: not shown at all).
* ``result(state) -> Result | None`` — final scores once the game is over.
* ``is_over(state) -> bool`` — ``result(state) is not None``, often cheaper
  (default implementation in :class:`BaseGame`).
* ``snapshot(state) -> Any`` / ``restore(obj) -> state`` — msgpack-ready
  form of a state (default implementation: :mod:`shared.snapshot`).

Actions are plain dicts with a ``"type"`` key (``{"type": "play", "card":
"7H"}``); the shape of each is documented by the game's ``legal_actions``.

:func:`play` plays one game to its end with a strategy per seat (tests,
tournaments, benchmarks).

Refusal codes: ``IllegalAction.code`` is a stable snake_case string.  Two
codes are shared by all games and map to HTTP 409 at the gateway:
``not_your_turn`` and ``game_over``.  Every other code maps to 422.
"""

from __future__ import annotations

import inspect
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel

from shared.events import Event, decode, encode
from shared.presence import TABLE_EVENTS

#: Codes every game uses with the same meaning (HTTP 409 at the gateway).
NOT_YOUR_TURN = "not_your_turn"
GAME_OVER = "game_over"
#: A malformed action (missing/unknown type or field): HTTP 422.
BAD_ACTION = "bad_action"


class FastEnum(Enum):
    """The base of the games' own enums (phases, moves, contracts): members
    are singletons compared by identity, so they are hashed by identity
    too, in C (Enum's own ``__hash__`` is Python code, and phases are dict
    keys on the path of every ``decide`` and ``legal_actions``)."""

    __hash__ = object.__hash__


class IllegalAction(Exception):
    """An action refused by the rules.

    ``code``: stable snake_case identifier (API clients switch on it).
    ``message``: one human sentence.  Neither may name a card the acting
    seat cannot see (the message is shown to that seat).
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class Result:
    """Final outcome of a game.

    ``scores``: one number per seat (the game's own unit: penalty points
    for Mau Mau and Maudix where lower is better, points elsewhere).
    ``places``: 1-based place per seat; equal places are shared.
    ``lower_wins``: how to read ``scores``.  ``detail``: JSON-ready extras
    (per-round scores, tie-break figures).
    """

    scores: tuple[float, ...]
    places: tuple[int, ...]
    lower_wins: bool = False
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def winners(self) -> tuple[int, ...]:
        """Seats in first place."""
        return tuple(i for i, p in enumerate(self.places) if p == 1)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "scores": list(self.scores),
            "places": list(self.places),
            "lower_wins": self.lower_wins,
            "winners": list(self.winners),
            "detail": self.detail,
        }


def places_from(keys: Sequence[Any], *, lower_wins: bool) -> tuple[int, ...]:
    """Competition ranking ("1224") from one sort key per seat.

    ``keys`` may be numbers or tuples (for tie-breaks); equal keys share a
    place.  ``places_from([5, 3, 5], lower_wins=True) == (2, 1, 2)``.
    """
    order = sorted(range(len(keys)), key=lambda i: keys[i], reverse=not lower_wins)
    places = [0] * len(keys)
    for pos, seat in enumerate(order):
        if pos and keys[seat] == keys[order[pos - 1]]:
            places[seat] = places[order[pos - 1]]
        else:
            places[seat] = pos + 1
    return tuple(places)


#: A bot strategy: (view, legal_actions, rng) -> action.  It sees only what
#: its seat sees.  It may return None only to decline an optional
#: out-of-turn move (a call-out, a defence); a seat whose turn it is must act.
#: A strategy may also take a keyword ``feed``: its seat's redacted events so
#: far (what it saw happen, for memory the views do not keep); the bot
#: runner passes it only to strategies whose signature names it.
Strategy = Callable[[Mapping[str, Any], Sequence[Mapping[str, Any]], random.Random], "dict | None"]


@runtime_checkable
class Game(Protocol):
    """What a game module's ``GAME`` object provides (see module doc)."""

    name: str
    title: str
    min_players: int
    max_players: int
    #: Language code (``en``, ``fr``) -> a few sentences on the rules (the lobby's summary).
    summary: Mapping[str, str]
    strategies: Mapping[str, Strategy]

    @property
    def Options(self) -> type[BaseModel]:
        """The pydantic model of the table options."""
        ...

    def start(self, options: BaseModel, players: int, rng: random.Random) -> list[Event]: ...

    def choices(self, state: Any, seat: int) -> list[dict]: ...

    def decide(self, state: Any, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]: ...

    def evolve(self, state: Any, event: Event) -> Any: ...

    def awaiting(self, state: Any) -> frozenset[int]: ...

    def to_act(self, state: Any) -> frozenset[int]: ...

    def legal_actions(self, state: Any, seat: int) -> list[dict]: ...

    def view(self, state: Any, seat: int | None) -> dict: ...

    def redact(self, event: Event, seat: int | None) -> Event | None: ...

    def result(self, state: Any) -> Result | None: ...

    def is_over(self, state: Any) -> bool: ...

    def snapshot(self, state: Any) -> Any: ...

    def restore(self, obj: Any) -> Any: ...


def fold(game: Game, events: Iterable[Event], state: Any = None) -> Any:
    """Replay ``events`` onto ``state`` (``None``: from the beginning).

    Table-level events (:data:`shared.presence.TABLE_EVENTS`: a turn clock
    run out, a seat taken back, a seat left) are not the game's and are skipped."""
    evolve = game.evolve
    for e in events:
        if e.type not in TABLE_EVENTS:
            state = evolve(state, e)
    return state


def require_type(action: Mapping[str, Any], allowed: Iterable[str]) -> str:
    """Return ``action["type"]`` if it is one of ``allowed``.

    Raises :class:`IllegalAction` (``bad_action``) otherwise.
    """
    if not isinstance(action, Mapping):
        raise IllegalAction(BAD_ACTION, "an action is a JSON object with a 'type'")
    kind = action.get("type")
    allowed = tuple(allowed)
    if type(kind) is not str or kind not in allowed:
        raise IllegalAction(BAD_ACTION, f"unknown action type; expected one of {', '.join(allowed)}")
    return kind


#: ``decide`` handler of one action type: (state, seat, action, rng) -> events.
Decider = Callable[[Any, int, Mapping[str, Any], random.Random], list[Event]]
#: ``legal`` handler of one action type: (state, seat) -> the legal actions of that type.
Lister = Callable[[Any, int], list[dict]]


@dataclass(frozen=True, slots=True)
class ActionRule:
    """How a game handles one action type: ``decide`` validates an action of
    that type and returns its events (raises :class:`IllegalAction`; never
    mutates the state); ``legal`` lists the legal actions of that type for a
    seat (empty when it has none).  A game keeps one table ``ACTIONS: dict[
    str, ActionRule]`` in its ``rules.py``, keyed by action type."""

    decide: Decider
    legal: Lister
    #: The action's keys beside ``type``: name -> JSON type (``str``,
    #: ``int``, ``bool``, ``list[str]``); ``(type, None)`` for a key that may
    #: be left out.  The gateway refuses an action with another key or
    #: another type (422 ``bad_action`` naming the field) and publishes it
    #: in its OpenAPI description.
    fields: Mapping[str, Any] = field(default_factory=dict)


def dispatch(actions: Mapping[str, ActionRule], state: Any, seat: int, action: Mapping[str, Any],
             rng: random.Random) -> list[Event]:
    """Decide ``action`` with the handler of its type in ``actions``.

    Raises :class:`IllegalAction` ``bad_action`` when ``action`` is not a
    mapping or its ``type`` is not a key of ``actions``, then whatever the
    handler raises."""
    if type(action) is not dict and not isinstance(action, Mapping):
        raise IllegalAction(BAD_ACTION, "an action is a JSON object with a 'type'")
    kind = action.get("type")
    rule = actions.get(kind) if type(kind) is str else None
    if rule is None:
        raise IllegalAction(BAD_ACTION, f"unknown action type; expected one of {', '.join(actions)}")
    return rule.decide(state, seat, action, rng)


def listers(actions: Mapping[str, ActionRule],
            open_types: Mapping[Any, Iterable[str]]) -> dict[Any, tuple[Lister, ...]]:
    """Per key of ``open_types`` (a phase), the ``legal`` handlers of its
    action types in that order, from ``actions``: what :func:`listing`
    walks (built once per game, so a listing looks nothing up)."""
    return {key: tuple(actions[kind].legal for kind in types) for key, types in open_types.items()}


def listing(handlers: Sequence[Lister], state: Any, seat: int) -> list[dict]:
    """The legal actions of ``seat``: those of each handler in ``handlers``
    (one entry of :func:`listers`: the types open in the state's phase), in
    that order."""
    if len(handlers) == 1:
        return handlers[0](state, seat)
    out: list[dict] = []
    for legal in handlers:
        out += legal(state, seat)
    return out


class BaseGame:
    """Convenience base for game objects: default ``snapshot``/``restore``
    through :mod:`shared.snapshot`, and helpers shared by all games.

    Subclasses set ``name``, ``title``, ``min_players``, ``max_players``,
    ``summary``, ``Options`` and ``strategies`` and implement the decider methods.
    """

    name: str = ""
    title: str = ""
    min_players: int = 1
    max_players: int = 1
    #: Language code -> a short summary of the rules (each game's ``summary.py``).
    summary: Mapping[str, str] = {}
    Options: type[BaseModel] = BaseModel
    strategies: Mapping[str, Strategy] = {}
    #: The game's action table (``rules.ACTIONS``): the shapes the services
    #: check actions against (:attr:`ActionRule.fields`).
    actions: Mapping[str, ActionRule] = {}

    def __init__(self) -> None:
        # A game binds its module functions as staticmethods; calling one
        # through the class's descriptor costs a third more than a plain
        # function found on the instance, on the path of every step.
        for klass in reversed(type(self).__mro__):
            for name, value in vars(klass).items():
                if isinstance(value, staticmethod):
                    setattr(self, name, value.__func__)

    def snapshot(self, state: Any) -> Any:
        """msgpack-ready form of ``state`` (:func:`shared.snapshot.dump`)."""
        from shared.snapshot import dump

        return dump(state)

    def restore(self, obj: Any) -> Any:
        """Inverse of :meth:`snapshot`."""
        from shared.snapshot import load

        return load(obj)

    def to_act(self, state: Any) -> frozenset[int]:
        """The awaited seats whose move the game waits for (default: every
        awaited seat; games with optional moves narrow it)."""
        return self.awaiting(state)  # type: ignore[attr-defined]

    def is_over(self, state: Any) -> bool:
        """True once the game is over: ``result(state) is not None`` (games
        override it with a cheaper test that needs no Result)."""
        return self.result(state) is not None  # type: ignore[attr-defined]

    def choices(self, state: Any, seat: int) -> list[dict]:
        """The action types of ``seat`` described by a schema instead of
        enumerated (:func:`client_actions`); default: none."""
        return []

    def check_turn(self, state: Any, seat: int) -> None:
        """Raise ``game_over`` or ``not_your_turn`` unless ``seat`` is awaited."""
        if self.is_over(state):
            raise IllegalAction(GAME_OVER, "the game is over")
        if seat not in self.awaiting(state):  # type: ignore[attr-defined]
            raise IllegalAction(NOT_YOUR_TURN, "it is not your turn")


def client_actions(game: Game, state: Any, seat: int) -> tuple[list[dict], list[dict]]:
    """What the API offers ``seat`` now: ``(legal, choices)``.

    ``choices`` is ``game.choices(state, seat)``: the combinations and free
    texts, each ``{"type", "schema", "hint"}``.  ``legal`` is
    ``game.legal_actions(state, seat)`` without the action types that
    ``choices`` describes (their enumeration or placeholder), so each entry
    of ``legal`` is accepted as it is when sent back now.  Bots keep the
    full ``legal_actions``.  A game may supply its own ``client_actions``
    (same result, e.g. without enumerating what it leaves out)."""
    own = getattr(game, "client_actions", None)
    if own is not None:
        return own(state, seat)
    choose = getattr(game, "choices", None)
    described = choose(state, seat) if choose is not None else []
    if not described:
        return game.legal_actions(state, seat), []
    kinds = {c["type"] for c in described}
    return [a for a in game.legal_actions(state, seat) if a.get("type") not in kinds], described


def must_act(game: Game, state: Any) -> frozenset[int]:
    """The awaited seats the game waits for (``game.to_act``); the other
    awaited seats only may act (an optional call-out or Malédiction)."""
    return game.to_act(state) & game.awaiting(state)


def card_schema(kind: str, hand: Sequence[str], size: int, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """JSON Schema (draft 2020-12) of an action ``{"type": kind, "cards":
    [size cards of hand], **extra}``: ``cards`` holds ``size`` cards of
    ``hand``, a card held twice at most twice (``maxContains``), once
    otherwise (``uniqueItems`` when no card is held twice); ``extra``: the
    schemas of the other keys, all required."""
    counts: dict[str, int] = {}
    for c in hand:
        counts[c] = counts.get(c, 0) + 1
    cards: dict[str, Any] = {"type": "array", "items": {"enum": list(counts)}, "minItems": size, "maxItems": size}
    if all(k == 1 for k in counts.values()):
        cards["uniqueItems"] = True
    else:
        cards["allOf"] = [{"contains": {"const": c}, "minContains": 0, "maxContains": k} for c, k in counts.items()]
    props: dict[str, Any] = {"type": {"const": kind}, "cards": cards, **(extra or {})}
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "str"
    if isinstance(value, (list, tuple)):
        return "list"
    if value is None:
        return "null"
    return type(value).__name__


def same_shape(action: Any, legal: Sequence[Mapping[str, Any]]) -> bool:
    """True when ``action`` has the keys and value kinds (string, number,
    bool, list, null) of one of the ``legal`` actions of its type: it is a
    well-formed action, whatever its values.  The services use it to tell
    a malformed action (refused as ``bad_action``) from a game bug (an
    exception on a well-formed action)."""
    if not isinstance(action, Mapping):
        return False
    shape = {k: _kind(v) for k, v in action.items()}
    for la in legal:
        if la.get("type") == action.get("type") and {k: _kind(v) for k, v in la.items()} == shape:
            return True
    return False


def passing(types: Sequence[str], otherwise: Strategy) -> Strategy:
    """A stand-in strategy for a game with a natural pass: the first legal
    action whose type is one of ``types`` (e.g. Mau Mau's ``draw`` then
    ``keep``), else what ``otherwise`` (the game's random strategy)
    chooses, for the moves a seat cannot pass.  Offered to tables as the
    ``pass`` stand-in."""

    def strategy(view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], rng: random.Random) -> dict | None:
        for kind in types:
            for action in legal:
                if action.get("type") == kind:
                    return dict(action)
        return otherwise(view, legal, rng)

    strategy.__name__ = f"passing_{'_'.join(types)}"
    return strategy


# ---------------------------------------------------------------------------
# Playing a game to its end (tests, tournaments, benchmarks)
# ---------------------------------------------------------------------------


@lru_cache(maxsize=1024)  # bounded: callers may wrap strategies per game
def wants_feed(strategy: Callable) -> bool:
    """True when a strategy takes the optional ``feed`` keyword (its seat's
    redacted events: what that seat saw happen, e.g. Maudix's gathered
    tricks, which views may not show again).  The bot runner and
    :func:`play` pass it only to those."""
    try:
        return "feed" in inspect.signature(strategy).parameters
    except (TypeError, ValueError):
        return False


class PlayError(RuntimeError):
    """:func:`play` could not finish a game: nobody is awaited, every
    awaited seat declined, an awaited seat has no legal action, or no
    result after ``max_steps`` actions."""


@dataclass(frozen=True, slots=True)
class Played:
    """A game :func:`play` finished: ``events`` (the opening first),
    the final ``state``, ``steps`` (accepted actions) and its ``result``."""

    events: list[Event]
    state: Any
    steps: int
    result: Result


def play(
    game: Game,
    strategies: Sequence[Strategy | str],
    rng: random.Random,
    *,
    options: BaseModel | Mapping[str, Any] | None = None,
    opening: Sequence[Event] | None = None,
    dice: random.Random | None = None,
    views: bool = True,
    feed: bool = True,
    codec: bool = False,
    on_decide: Callable[[Any, int, Mapping[str, Any], list[Event]], None] | None = None,
    on_step: Callable[[Any, list[Event]], None] | None = None,
    max_steps: int = 50_000,
) -> Played:
    """Play one game to its end with ``strategies[seat]`` on each seat (a
    :data:`Strategy` or a name of ``game.strategies``).

    The game starts with ``game.start(options, len(strategies), dice)``
    (``options``: a mapping or ``game.Options``; ``dice`` defaults to
    ``rng``), or from the given ``opening`` events (then ``options`` is
    not used).  Each step asks the awaited seats in random order (``rng``;
    nothing is drawn when one seat is left to ask); a seat whose strategy
    returns None (declines an optional move) is not asked again until
    someone acts.  The strategy gets ``(view, legal, rng)``, with
    ``view=None`` when ``views`` is false, and ``feed=`` (its seat's
    redacted events so far; a live list, not to be changed) when ``feed``
    is true and its signature takes it (:func:`wants_feed`).  The action
    is decided with ``dice``; ``codec``: every event goes through
    :func:`shared.events.encode`/``decode`` first, as through the store.

    Hooks: ``on_decide(state, seat, action, events)`` after ``decide``,
    before ``evolve``; ``on_step(state, events)`` once after the opening
    (with the opening events) and after every accepted action (with its
    events).  Exceptions from the game, the strategies or the hooks go
    through.  Raises :class:`PlayError` when nobody is awaited, every
    awaited seat declined, an awaited seat has no legal action, or there
    is no result after ``max_steps`` accepted actions.
    """
    dice = rng if dice is None else dice
    strats: list[Callable] = [game.strategies[s] if isinstance(s, str) else s for s in strategies]
    players = len(strats)
    redact, evolve, decide = game.redact, game.evolve, game.decide
    if opening is None:
        opts = options if isinstance(options, BaseModel) else game.Options(**dict(options or {}))
        opening = game.start(opts, players, dice)
    if codec:
        opening = [decode(encode(e)) for e in opening]
    events: list[Event] = list(opening)
    state = fold(game, events)
    # Only the seats whose strategy reads a feed get one.
    feeds: list[list[Event] | None] = [
        [r for e in events if e.type not in TABLE_EVENTS and (r := redact(e, seat)) is not None]
        if feed and wants_feed(strats[seat]) else None
        for seat in range(players)
    ]
    fed = [(seat, f) for seat, f in enumerate(feeds) if f is not None]
    if on_step is not None:
        on_step(state, events)
    is_over, awaiting, legal_actions, view = game.is_over, game.awaiting, game.legal_actions, game.view
    steps = 0
    passed: set[int] = set()  # seats that declined since the last accepted action
    while not is_over(state):
        if steps >= max_steps:
            raise PlayError(f"no result after {max_steps} actions")
        waiting = awaiting(state)
        if not passed and len(waiting) == 1:
            seat = next(iter(waiting))
        else:
            choices = [s for s in sorted(waiting) if s not in passed]
            if len(choices) == 1:
                seat = choices[0]
            elif choices:
                seat = rng.choice(choices)
            elif waiting:
                raise PlayError("every awaited seat declined to act: the game is stuck")
            else:
                raise PlayError("game not over but nobody is awaited")
        legal = legal_actions(state, seat)
        if not legal:
            raise PlayError(f"seat {seat} awaited with no legal action")
        f = feeds[seat]
        if f is None:
            action = strats[seat](view(state, seat) if views else None, legal, rng)
        else:
            action = strats[seat](view(state, seat) if views else None, legal, rng, feed=f)
        if action is None:  # an optional move declined
            passed.add(seat)
            continue
        if passed:
            passed.clear()
        new = decide(state, seat, action, dice)
        if codec:
            new = [decode(encode(e)) for e in new]
        if on_decide is not None:
            on_decide(state, seat, action, new)
        for e in new:
            state = evolve(state, e)
        if on_step is not None:  # first: a hook may time decide + evolve
            on_step(state, new)
        events.extend(new)
        steps += 1
        if fed:
            for s, seen in fed:
                for e in new:
                    if (r := redact(e, s)) is not None:
                        seen.append(r)
    result = game.result(state)
    assert result is not None, "is_over and result disagree"
    return Played(events, state, steps, result)
