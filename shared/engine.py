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
* ``legal_actions(state, seat) -> list[dict]`` — JSON-ready actions.
* ``view(state, seat | None) -> dict`` — what that seat (or a spectator,
  ``None``) may see; JSON-ready.
* ``redact(event, seat | None) -> Event | None`` — the event as that seat
  may see it in a feed (``None``: not shown at all).
* ``result(state) -> Result | None`` — final scores once the game is over.
* ``snapshot(state) -> Any`` / ``restore(obj) -> state`` — msgpack-ready
  form of a state (default implementation: :mod:`shared.snapshot`).

Actions are plain dicts with a ``"type"`` key (``{"type": "play", "card":
"7H"}``); the shape of each is documented by the game's ``legal_actions``.

Refusal codes: ``IllegalAction.code`` is a stable snake_case string.  Two
codes are shared by all games and map to HTTP 409 at the gateway:
``not_your_turn`` and ``game_over``.  Every other code maps to 422.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Iterable, Mapping, Protocol, Sequence, runtime_checkable

from pydantic import BaseModel

from shared.events import Event
from shared.presence import TABLE_EVENTS

#: Codes every game uses with the same meaning (HTTP 409 at the gateway).
NOT_YOUR_TURN = "not_your_turn"
GAME_OVER = "game_over"
#: A malformed action (missing/unknown type or field): HTTP 422.
BAD_ACTION = "bad_action"


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
    Options: ClassVar[type[BaseModel]] | type[BaseModel]
    strategies: Mapping[str, Strategy]

    def start(self, options: BaseModel, players: int, rng: random.Random) -> list[Event]: ...

    def decide(self, state: Any, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]: ...

    def evolve(self, state: Any, event: Event) -> Any: ...

    def awaiting(self, state: Any) -> frozenset[int]: ...

    def to_act(self, state: Any) -> frozenset[int]: ...

    def legal_actions(self, state: Any, seat: int) -> list[dict]: ...

    def view(self, state: Any, seat: int | None) -> dict: ...

    def redact(self, event: Event, seat: int | None) -> Event | None: ...

    def result(self, state: Any) -> Result | None: ...

    def snapshot(self, state: Any) -> Any: ...

    def restore(self, obj: Any) -> Any: ...


def fold(game: Game, events: Iterable[Event], state: Any = None) -> Any:
    """Replay ``events`` onto ``state`` (``None``: from the beginning).

    Table-level events (:data:`shared.presence.TABLE_EVENTS`: a turn clock
    run out, a seat taken back) are not the game's and are skipped."""
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


class BaseGame:
    """Convenience base for game objects: default ``snapshot``/``restore``
    through :mod:`shared.snapshot`, and helpers shared by all games.

    Subclasses set ``name``, ``title``, ``min_players``, ``max_players``,
    ``Options`` and ``strategies`` and implement the decider methods.
    """

    name: str = ""
    title: str = ""
    min_players: int = 1
    max_players: int = 1
    Options: type[BaseModel] = BaseModel
    strategies: Mapping[str, Strategy] = {}

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

    def check_turn(self, state: Any, seat: int) -> None:
        """Raise ``game_over`` or ``not_your_turn`` unless ``seat`` is awaited."""
        if self.result(state) is not None:  # type: ignore[attr-defined]
            raise IllegalAction(GAME_OVER, "the game is over")
        if seat not in self.awaiting(state):  # type: ignore[attr-defined]
            raise IllegalAction(NOT_YOUR_TURN, "it is not your turn")


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
