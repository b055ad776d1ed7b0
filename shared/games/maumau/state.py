"""Mau Mau's state and how events change it.

In order: the card constants and lookup tables the rules and the state
share; the enums (:class:`Phase`, :class:`Call`, :class:`AcePower`) and the
state dataclasses (:class:`Rules`, the resolved options as plain values;
:class:`Window`, an open call-out window; :class:`State`, the whole truth
of a table); the queries the rules and the views both need
(:func:`awaiting`, :func:`to_act`, :func:`is_over`, :func:`playable_set`,
:func:`next_seat`, :func:`expected_call`); the flat snapshot codec
(:func:`snapshot`, :func:`restore`); last :func:`evolve`, with one handler
per event type gathered in :data:`EVENTS`.  Scores and the result are in
:mod:`shared.games.maumau.scoring`; the rules in
:mod:`shared.games.maumau.rules` (and docs/games/maumau.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from shared.cards import ACE, JACK, RANK, SUIT, SUITS
from shared.engine import FastEnum
from shared.events import Event
from shared.snapshot import SnapshotError

# ---------------------------------------------------------------------------
# Constants and lookup tables (built once)
# ---------------------------------------------------------------------------

SEVEN, EIGHT = 7, 8
#: Penalty cards per 7 in a chain (docs/games/maumau.md, "Special ranks").
SEVEN_PENALTY = 2

#: Announcement words, as sent in a play's ``announce`` field.
MAU, MAUMAU = "mau", "maumau"

#: Cards playable on a top card when no suit is wished: same suit, same rank, or a Jack.
PLAYABLE_ON: dict[str, frozenset[str]] = {
    top: frozenset(c for c in RANK if RANK[c] == JACK or SUIT[c] == SUIT[top] or RANK[c] == RANK[top])
    for top in RANK
}
#: Cards playable under a suit wish: that suit, or a Jack.
PLAYABLE_WISHED: dict[str, frozenset[str]] = {
    s: frozenset(c for c in RANK if SUIT[c] == s or RANK[c] == JACK) for s in SUITS
}
SEVENS: frozenset[str] = frozenset(c for c in RANK if RANK[c] == SEVEN)
JACKS: frozenset[str] = frozenset(c for c in RANK if RANK[c] == JACK)
_NOTHING: frozenset[str] = frozenset()

# ---------------------------------------------------------------------------
# State
# ---------------------------------------------------------------------------


class AcePower(StrEnum):
    """The optional power of the ace (docs/games/maumau.md, "Special ranks")."""

    NONE = "none"
    DRAW = "draw"  # every other player draws 1
    SKIP = "skip"  # every other player is skipped once around


class Phase(FastEnum):
    """What the player on turn is asked for."""

    WISH = "wish"  # the dealer names a suit for a first upcard Jack
    PLAY = "play"  # play a card or draw (or take a 7 penalty)
    DRAWN = "drawn"  # play the card just drawn, or keep it
    OVER = "over"  # the game is over


#: The phases as plain module names, for the code run on every action: on
#: Python 3.11 reading a member off an Enum class (``Phase.PLAY``) goes
#: through ``EnumType.__getattr__``'s slow attribute hook, ~300 ns against
#: ~20 ns for a module global.
WISH, PLAY, DRAWN, OVER = Phase.WISH, Phase.PLAY, Phase.DRAWN, Phase.OVER


class Call(FastEnum):
    """The announcement a player missed."""

    MAU = MAU
    MAUMAU = MAUMAU


@dataclass(slots=True)
class Rules:
    """Resolved table options, as plain values for the hot path."""

    hand_size: int
    skat_deck: bool
    decks: int
    ace_power: AcePower
    seven_stack_cap: int | None
    target_score: int


@dataclass(slots=True)
class Window:
    """An open call-out window: ``offender`` missed ``missed``."""

    offender: int
    missed: Call


@dataclass(slots=True)
class State:
    """The whole truth of a Mau Mau table (the views are projections of it).

    ``talon[-1]`` is the talon's top card, ``discard[-1]`` the discard's.
    ``left[s]`` is the next seat of the round after ``s`` (None for a seat
    that sits out a decider round).  ``penalty`` is the number of cards the
    player on turn must draw for a chain of 7s (0: none).  ``idle`` counts
    consecutive turns that ended with nothing played nor drawn (for a
    blocked round).  ``scores[r][s]`` is seat s's points in round r (None
    when not playing it); ``decider_points`` the same for the decider.
    """

    rules: Rules
    players: int
    round: int
    decider: bool
    dealer: int
    seats: tuple[int, ...]
    left: tuple[int | None, ...]
    hands: list[list[str]]
    talon: list[str]
    discard: list[str]
    phase: Phase
    turn: int
    wish: str | None
    penalty: int
    skipped: tuple[int, ...]
    drawn: str | None
    window: Window | None
    lapsed: int | None
    idle: int
    announced: list[str | None]
    scores: list[list[int | None]]
    winners: list[int | None]
    totals: list[int]
    decider_points: list[int | None] | None


def rules_from(options: Mapping[str, Any], decks: int) -> Rules:
    """:class:`Rules` from the options as JSON (``GameStarted``'s
    ``options``) and the resolved number of decks."""
    return Rules(
        hand_size=options["hand_size"],
        skat_deck=options["skat_deck"],
        decks=decks,
        ace_power=AcePower(options["ace_power"]),
        seven_stack_cap=options["seven_stack_cap"],
        target_score=options["target_score"],
    )


# ---------------------------------------------------------------------------
# Queries (the rules and the views both ask them)
# ---------------------------------------------------------------------------


def awaiting(state: State) -> frozenset[int]:
    """The player on turn, plus every other seat of the round while a
    call-out window is open (they may call it out)."""
    if state.phase is OVER:
        return frozenset()
    w = state.window
    if w is None:
        return frozenset((state.turn,))
    return frozenset(x for x in state.seats if x != w.offender or x == state.turn)


def to_act(state: State) -> frozenset[int]:
    """The player on turn only: a call-out is optional."""
    if state.phase is OVER:
        return frozenset()
    return frozenset((state.turn,))


def is_over(state: State) -> bool:
    """True once the game is over (its result is not None)."""
    return state.phase is OVER


def playable_set(s: State) -> frozenset[str]:
    """Cards the player on turn may play now (phase PLAY): 7s facing a
    penalty (none once the chain is capped), else cards matching the wish or
    the top card."""
    if s.penalty:
        cap = s.rules.seven_stack_cap
        return SEVENS if cap is None or s.penalty // SEVEN_PENALTY < cap else _NOTHING
    wish = s.wish
    return PLAYABLE_WISHED[wish] if wish else PLAYABLE_ON[s.discard[-1]]


def next_seat(s: State, seat: int) -> int:
    """The next seat of the round after ``seat`` that holds cards (a seat
    with an empty hand is waiting out its call-out window: passed over)."""
    left = s.left
    hands = s.hands
    nxt = left[seat]
    assert nxt is not None  # seat plays this round, so its left neighbour does too
    if hands[nxt]:
        return nxt
    for _ in s.seats:
        nxt = left[nxt]
        assert nxt is not None
        if hands[nxt]:
            return nxt
    return nxt


def expected_call(cards_left: int) -> str | None:
    """The announcement owed by a play that leaves ``cards_left`` cards."""
    return MAU if cards_left == 1 else MAUMAU if cards_left == 0 else None


def clone(s: State) -> State:
    """A copy of ``s`` whose mutable parts :func:`evolve` may change freely."""
    return replace(
        s,
        hands=[list(h) for h in s.hands],
        talon=list(s.talon),
        discard=list(s.discard),
        announced=list(s.announced),
        scores=[list(p) for p in s.scores],
        winners=list(s.winners),
        totals=list(s.totals),
    )


# ---------------------------------------------------------------------------
# Snapshots
# ---------------------------------------------------------------------------

#: Version of the :func:`snapshot` layout (2: ``rounds`` renamed ``scores``).
SNAPSHOT_VERSION = 2


def snapshot(state: State) -> dict:
    """msgpack-ready form of ``state``: one key per :class:`State` field
    (plain lists, strings and ints; enums by value).  Flat and about 5×
    faster than the generic :func:`shared.snapshot.dump`, which recurses
    into every card; :func:`restore` is its inverse."""
    s = state
    r = s.rules
    w = s.window
    return {
        "v": SNAPSHOT_VERSION,
        "rules": [r.hand_size, r.skat_deck, r.decks, r.ace_power.value, r.seven_stack_cap, r.target_score],
        "players": s.players,
        "round": s.round,
        "decider": s.decider,
        "dealer": s.dealer,
        "seats": list(s.seats),
        "left": list(s.left),
        "hands": [list(h) for h in s.hands],
        "talon": list(s.talon),
        "discard": list(s.discard),
        "phase": s.phase.value,
        "turn": s.turn,
        "wish": s.wish,
        "penalty": s.penalty,
        "skipped": list(s.skipped),
        "drawn": s.drawn,
        "window": None if w is None else [w.offender, w.missed.value],
        "lapsed": s.lapsed,
        "idle": s.idle,
        "announced": list(s.announced),
        "scores": [list(p) for p in s.scores],
        "winners": list(s.winners),
        "totals": list(s.totals),
        "decider_points": None if s.decider_points is None else list(s.decider_points),
    }


def restore(obj: Mapping[str, Any]) -> State:
    """Inverse of :func:`snapshot`.  Raises
    :class:`shared.snapshot.SnapshotError` (a ``ValueError``) for a
    snapshot of another version: the table is then rebuilt from its
    events."""
    if obj.get("v") != SNAPSHOT_VERSION:
        raise SnapshotError(f"not a Mau Mau snapshot of version {SNAPSHOT_VERSION}")
    hand_size, skat, decks, ace, cap, target = obj["rules"]
    w = obj["window"]
    dp = obj["decider_points"]
    return State(
        rules=Rules(hand_size, skat, decks, AcePower(ace), cap, target),
        players=obj["players"],
        round=obj["round"],
        decider=obj["decider"],
        dealer=obj["dealer"],
        seats=tuple(obj["seats"]),
        left=tuple(obj["left"]),
        hands=[list(h) for h in obj["hands"]],
        talon=list(obj["talon"]),
        discard=list(obj["discard"]),
        phase=Phase(obj["phase"]),
        turn=obj["turn"],
        wish=obj["wish"],
        penalty=obj["penalty"],
        skipped=tuple(obj["skipped"]),
        drawn=obj["drawn"],
        window=None if w is None else Window(w[0], Call(w[1])),
        lapsed=obj["lapsed"],
        idle=obj["idle"],
        announced=list(obj["announced"]),
        scores=[list(p) for p in obj["scores"]],
        winners=list(obj["winners"]),
        totals=list(obj["totals"]),
        decider_points=None if dp is None else list(dp),
    )


# ---------------------------------------------------------------------------
# Evolve: one handler per event type
# ---------------------------------------------------------------------------


def evolve(state: State | None, event: Event) -> State:
    """Apply one event (pure: no randomness, no clock); mutates and
    returns ``state`` (``None`` before ``GameStarted``).  Raises
    ``KeyError`` for an event type that is not Mau Mau's."""
    return EVENTS[event.type](state, event)


def _on_game_started(s: State | None, e: Event) -> State:
    """A fresh table from ``options``, ``players``, ``decks``, then the first ``deal``."""
    d = e.data
    n = d["players"]
    state = State(
        rules=rules_from(d["options"], d["decks"]),
        players=n,
        round=0,
        decider=False,
        dealer=0,
        seats=(),
        left=(),
        hands=[],
        talon=[],
        discard=[],
        phase=PLAY,
        turn=0,
        wish=None,
        penalty=0,
        skipped=(),
        drawn=None,
        window=None,
        lapsed=None,
        idle=0,
        announced=[None] * n,
        scores=[],
        winners=[],
        totals=[0] * n,
        decider_points=None,
    )
    return _deal_into(state, d["deal"])


def _on_round_dealt(s: State | None, e: Event) -> State:
    assert s is not None
    return _deal_into(s, e.data)


def _deal_into(s: State, d: Mapping[str, Any]) -> State:
    """A new round: hands, upcard, talon, and the first upcard's effect
    (docs/games/maumau.md, "First upcard")."""
    n = s.players
    s.round = d["round"]
    s.decider = d["decider"]
    dealer = s.dealer = d["dealer"]
    seats = s.seats = tuple(d["seats"])
    left: list[int | None] = [None] * n
    for i, x in enumerate(seats):
        left[x] = seats[(i + 1) % len(seats)]
    s.left = tuple(left)
    s.hands = [list(h) for h in d["hands"]]
    s.talon = list(d["talon"])
    up = d["upcard"]
    s.discard = [up]
    s.wish = None
    s.penalty = 0
    s.skipped = ()
    s.drawn = None
    s.window = None
    s.lapsed = None
    s.idle = 0
    s.announced = [None] * n
    s.phase = PLAY
    first = next_seat(s, dealer)
    rank = RANK[up]
    if rank == JACK:  # the dealer names the suit
        s.phase = WISH
        s.turn = dealer
    elif rank == SEVEN:  # as if the dealer had played it
        s.penalty = SEVEN_PENALTY
        s.turn = first
    elif rank == EIGHT:
        s.skipped = (first,)
        s.turn = next_seat(s, first)
    else:
        s.turn = first
    return s


def _on_suit_wished(s: State | None, e: Event) -> State:
    assert s is not None
    s.wish = e.data["suit"]
    s.phase = PLAY
    s.turn = next_seat(s, s.dealer)
    return s


def _on_card_played(s: State | None, e: Event) -> State:
    assert s is not None
    d = e.data
    seat = e.seat
    assert seat is not None  # played by a seat
    card = d["card"]
    hand = s.hands[seat]
    hand.remove(card)
    s.discard.append(card)
    s.announced[seat] = d["announce"]
    s.idle = 0
    rank = RANK[card]
    if rank == JACK:
        s.wish = d["suit"]
    else:
        s.wish = None
        if rank == SEVEN:
            s.penalty += SEVEN_PENALTY
    _pass_turn(s, seat, rank)
    if len(hand) <= 1 and d["announce"] is None:
        s.window = Window(seat, Call.MAU if hand else Call.MAUMAU)
    return s


def _on_cards_drawn(s: State | None, e: Event) -> State:
    assert s is not None
    d = e.data
    seat = e.seat
    assert seat is not None  # drawn by a seat
    cards = d["cards"]
    k = len(cards)
    if k:
        del s.talon[-k:]
        s.hands[seat].extend(cards)
    s.announced[seat] = None
    reason = d["reason"]
    if reason == "draw":
        if k and cards[0] in (PLAYABLE_WISHED[s.wish] if s.wish else PLAYABLE_ON[s.discard[-1]]):
            s.phase = DRAWN
            s.drawn = cards[0]
            s.idle = 0
        else:
            s.idle = 0 if k else s.idle + 1
            _pass_turn(s, seat, 0)
    elif reason == "penalty":
        s.penalty = 0
        s.idle = 0 if k else s.idle + 1
        _pass_turn(s, seat, 0)
    return s


def _on_talon_reshuffled(s: State | None, e: Event) -> State:
    assert s is not None
    s.talon = list(e.data["talon"])
    s.discard = s.discard[-1:]
    return s


def _on_drawn_card_kept(s: State | None, e: Event) -> State:
    assert s is not None
    seat = e.seat
    assert seat is not None  # kept by a seat
    _pass_turn(s, seat, 0)
    return s


def _on_called_out(s: State | None, e: Event) -> State:
    assert s is not None
    s.window = None
    s.lapsed = None
    return s


def _on_round_scored(s: State | None, e: Event) -> State:
    assert s is not None
    d = e.data
    points = list(d["points"])
    s.window = None
    if d["decider"]:
        s.decider_points = points
    else:
        s.scores.append(points)
        s.winners.append(d["winner"])
        s.totals = [t + (p or 0) for t, p in zip(s.totals, points, strict=True)]
    return s


def _on_game_ended(s: State | None, e: Event) -> State:
    assert s is not None
    s.phase = OVER
    s.drawn = None
    return s


def _pass_turn(s: State, seat: int, rank: int) -> None:
    """End ``seat``'s turn: close any open call-out window (its "next
    player's turn" is over), then give the turn to the next player,
    skipping one for an 8 and everyone for a skip-ace."""
    w = s.window
    if w is not None:
        s.window = None
        s.lapsed = w.offender
    s.phase = PLAY
    s.drawn = None
    nxt = next_seat(s, seat)
    if rank == EIGHT:
        after = next_seat(s, nxt)
        s.skipped = (nxt,) if after != nxt else ()
        nxt = after
    elif rank == ACE and s.rules.ace_power is AcePower.SKIP and s.hands[seat]:
        s.skipped = tuple(x for x in s.seats if x != seat and s.hands[x])
        nxt = seat
    else:
        s.skipped = ()
    s.turn = nxt


#: The handler of each event type (``evolve`` dispatches on it).
EVENTS: dict[str, Callable[[State | None, Event], State]] = {
    "GameStarted": _on_game_started,
    "RoundDealt": _on_round_dealt,
    "SuitWished": _on_suit_wished,
    "CardPlayed": _on_card_played,
    "CardsDrawn": _on_cards_drawn,
    "TalonReshuffled": _on_talon_reshuffled,
    "DrawnCardKept": _on_drawn_card_kept,
    "CalledOut": _on_called_out,
    "RoundScored": _on_round_scored,
    "GameEnded": _on_game_ended,
}
