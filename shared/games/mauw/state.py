"""Mauw's state: the dataclasses, the queries rules and views both need,
and ``evolve`` with one handler per event type (docs/games/mauw.md,
"Events").

A column is always ``k`` Mauw (0–3) under at most one face-up entry
(docs/games/mauw.md, "Play areas"): :class:`Column` holds the Mauw faces
(bottom first) and the top.  The state keeps every card where it lies —
hands, the talon (the face-down draw pile, top last), the discard pile
(top last), the columns and the attack card lying on a target — so the
cards are always all accounted for.

``evolve`` applies one event: ``EVENTS[event.type](state, event)``, an
unknown type raises KeyError.  The handlers are named ``_on_<event>``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from shared.engine import FastEnum
from shared.events import Event
from shared.games.mauw.cards import PHYSICAL, SHOWN, VALUE, entry_of

SLOTS = 4  # columns per play area
HAND = 4  # cards in hand
MAX_MAUW = 3  # Mauw per column


class Phase(FastEnum):
    """Where the game is: a normal turn, an attack chain, or over."""

    PLAY = "play"
    CHAIN = "chain"
    OVER = "over"


class Move(FastEnum):
    """What a played card does, given where it goes (docs/games/mauw.md,
    "A turn"); its value is the ``move`` of a ``CardPlayed`` event."""

    REINFORCE = "reinforce"
    ASSOCIATE = "associate"
    BLOCK = "block"
    UNBLOCK = "unblock"
    ATTACK = "attack"


#: The phases and moves as plain module names, for the code run on every
#: action: on Python 3.11 reading a member off an Enum class
#: (``Phase.PLAY``) goes through ``EnumType.__getattr__``'s slow attribute
#: hook, ~300 ns against ~20 ns for a module global.
PLAY, CHAIN, OVER = Phase.PLAY, Phase.CHAIN, Phase.OVER
REINFORCE, ASSOCIATE, BLOCK = Move.REINFORCE, Move.ASSOCIATE, Move.BLOCK
UNBLOCK, ATTACK = Move.UNBLOCK, Move.ATTACK


@dataclass(slots=True)
class Column:
    """One slot of a play area: ``mauw`` faces (bottom first, shown as
    backs) under ``top``, the face-up entry or None (empty slot when
    ``mauw`` is empty too)."""

    mauw: list[str]
    top: str | None = None


@dataclass(slots=True)
class Chain:
    """An attack in progress (docs/games/mauw.md, "Attacks and chains").

    ``card``: the attack entry lying on the target, None after a defence.
    ``value``: the Warrior code every reply must match.  ``place``: the
    attacker's slot for the won cards (None: they would be lost).
    ``waiting``: the seat that must reply.  ``attacks``: attack cards
    played so far (the first attack and every continuation).
    """

    attacker: int
    defender: int
    column: int
    value: str
    card: str | None
    place: int | None
    waiting: int
    attacks: int = 1


@dataclass(slots=True)
class State:
    """The whole truth of one table."""

    players: int
    first: int
    covered_columns_count: bool
    auto_give_up: bool
    stalemate_rounds: int | None
    chain_limit: int | None
    phase: Phase
    turn: int
    turns: int
    last_mauw: int  # number of the last turn in which a Mauw was placed (0: none yet)
    hands: list[list[str]]
    areas: list[list[Column]]
    talon: list[str]  # the face-down draw pile; top is the last element
    discard: list[str]  # top is the last element
    chain: Chain | None = None
    won: list[str] | None = None  # same-value pair awaiting placement: [mauw face, top entry]
    winner: int | None = None
    ending: str | None = None


# --------------------------------------------------------------------------
# Queries
# --------------------------------------------------------------------------


def waiting(state: State) -> int | None:
    """The one seat the game waits for: the player whose turn it is, or
    the seat that must reply in a chain; None once over."""
    phase = state.phase
    if phase is PLAY:
        return state.turn
    if phase is CHAIN:
        chain = state.chain
        assert chain is not None  # open through the CHAIN phase
        return chain.waiting
    return None


def awaiting(state: State) -> frozenset[int]:
    """The player whose turn it is, or the seat that must reply in a chain
    (empty once over)."""
    seat = waiting(state)
    return frozenset() if seat is None else frozenset((seat,))


def is_over(state: State) -> bool:
    """True once the game is over."""
    return state.phase is OVER


def full_columns(area: list[Column], covered_count: bool) -> int:
    """How many columns hold three Mauw (docs/games/mauw.md, "End");
    covered ones count only when ``covered_count``."""
    return sum(1 for c in area if len(c.mauw) == MAX_MAUW and (covered_count or c.top is None))


def places(area: list[Column], freed: int | None = None) -> list[int]:
    """Slots of ``area`` that can take won cards (docs/games/mauw.md,
    "Associations"): an empty slot or an uncovered Mauw column with at most
    2 Mauw (room for one more Mauw, or for a Mauw and the Warrior on it).
    ``freed``: a column whose top is about to leave (own association)."""
    return [i for i, c in enumerate(area) if (c.top is None or i == freed) and len(c.mauw) < MAX_MAUW]


# --------------------------------------------------------------------------
# Evolve: one handler per event type
# --------------------------------------------------------------------------


def evolve(state: State | None, event: Event) -> State:
    """Apply one event (pure; mutates and returns ``state``, None only
    before ``GameStarted``).  Raises KeyError for an unknown event type."""
    return EVENTS[event.type](state, event)


def _on_game_started(_: State | None, e: Event) -> State:
    d = e.data
    o = d["options"]
    n = d["players"]
    return State(
        players=n,
        first=d["first"],
        covered_columns_count=o.get("covered_columns_count", True),
        auto_give_up=o.get("auto_give_up", False),
        stalemate_rounds=o.get("stalemate_rounds", 20),
        chain_limit=o.get("chain_limit", 6),
        phase=PLAY,
        turn=d["first"],
        turns=0,
        last_mauw=0,
        hands=[list(h) for h in d["hands"]],
        areas=[[Column([]) for _ in range(SLOTS)] for _ in range(n)],
        talon=list(d["talon"]),
        discard=[],
    )


def _on_cards_drawn(s: State, e: Event) -> State:
    seat = e.seat
    assert seat is not None  # drawn by a seat
    hand, talon = s.hands[seat], s.talon
    for _ in e.data["cards"]:
        hand.append(talon.pop())
    return s


def _on_talon_reshuffled(s: State, e: Event) -> State:
    s.talon = list(e.data["talon"])
    s.discard = []
    return s


def _associate(s: State, owner: int, column: int, entry: str) -> None:
    """``entry`` was played on the Warrior on ``owner``'s ``column``: the
    Warrior leaves; a same-value pair waits to be placed (``won``), a
    different-value pair is discarded."""
    col = s.areas[owner][column]
    top = col.top
    assert top is not None  # an association is on a Warrior
    col.top = None
    if VALUE[top] == VALUE[entry]:
        s.won = [PHYSICAL[top], entry]
    else:
        s.discard.append(PHYSICAL[top])
        s.discard.append(PHYSICAL[entry])


def _on_card_played(s: State, e: Event) -> State:
    d = e.data
    seat = e.seat
    assert seat is not None  # played by a seat
    card = d["card"]
    s.hands[seat].remove(card)
    entry = entry_of(card, d["as"])
    move = d["move"]
    col = s.areas[d["player"]][d["column"]]
    if move == "reinforce" or move == "block":
        col.top = entry
    elif move == "unblock":
        s.discard.append(PHYSICAL[col.top])
        s.discard.append(card)
        col.top = None
    elif move == "associate":
        _associate(s, seat, d["column"], entry)
    else:  # attack
        s.phase = CHAIN
        s.chain = Chain(
            attacker=seat,
            defender=d["player"],
            column=d["column"],
            value=SHOWN[entry],
            card=entry,
            place=d["place"],
            waiting=d["player"],
            attacks=1,
        )
    return s


def _on_attack_defended(s: State, e: Event) -> State:
    chain = s.chain
    seat = e.seat
    assert chain is not None and seat is not None  # the defender's reply in a chain
    attack = chain.card
    assert attack is not None  # the attack card it answers
    card = e.data["card"]
    s.hands[seat].remove(card)
    s.discard.append(PHYSICAL[attack])
    s.discard.append(card)
    chain.card = None
    chain.waiting = chain.attacker
    return s


def _on_attack_continued(s: State, e: Event) -> State:
    chain = s.chain
    seat = e.seat
    assert chain is not None and seat is not None  # the attacker's reply in a chain
    card = e.data["card"]
    s.hands[seat].remove(card)
    chain.card = entry_of(card, chain.value)
    chain.waiting = chain.defender
    chain.attacks += 1
    return s


def _on_gave_up(s: State, e: Event) -> State:
    chain = s.chain
    assert chain is not None  # a chain is given up
    s.chain = None
    s.phase = PLAY
    if e.seat == chain.defender:
        card = chain.card
        assert card is not None  # the defender gives up facing an attack card
        _associate(s, chain.defender, chain.column, card)
    return s


def _on_warriors_associated(s: State, e: Event) -> State:
    # The association itself was applied with the card that caused it
    # (CardPlayed or GaveUp); this event announces it for the feed.
    return s


def _on_mauw_won(s: State, e: Event) -> State:
    seat = e.seat
    assert seat is not None  # won by a seat
    s.areas[seat][e.data["place"]].mauw.append(s.talon.pop())
    s.last_mauw = s.turns + 1
    return s


def _on_mauw_lost(s: State, e: Event) -> State:
    s.discard.append(s.talon.pop())
    return s


def _on_pair_placed(s: State, e: Event) -> State:
    won = s.won
    seat = e.seat
    assert won is not None and seat is not None  # the pair just won, placed by its winner
    face, top = won
    col = s.areas[seat][e.data["place"]]
    col.mauw.append(face)
    col.top = top
    s.won = None
    s.last_mauw = s.turns + 1
    return s


def _on_pair_lost(s: State, e: Event) -> State:
    won = s.won
    assert won is not None  # the pair just won
    face, top = won
    s.discard.append(face)
    s.discard.append(PHYSICAL[top])
    s.won = None
    return s


def _on_hand_discarded(s: State, e: Event) -> State:
    seat = e.seat
    assert seat is not None  # discarded by a seat
    hand = s.hands[seat]
    s.discard.extend(hand)
    hand.clear()
    return s


def _on_turn_ended(s: State, e: Event) -> State:
    s.turn = e.data["next"]
    s.turns += 1
    return s


def _on_game_ended(s: State, e: Event) -> State:
    s.phase = OVER
    s.chain = None
    s.ending = e.data["reason"]
    s.winner = e.data["winner"]
    s.turns += 1
    return s


#: Event type -> its handler ``(state, event) -> state`` (the state is None
#: only for ``GameStarted``, hence ``Any``).
EVENTS: dict[str, Callable[[Any, Event], State]] = {
    "GameStarted": _on_game_started,
    "CardsDrawn": _on_cards_drawn,
    "TalonReshuffled": _on_talon_reshuffled,
    "CardPlayed": _on_card_played,
    "AttackDefended": _on_attack_defended,
    "AttackContinued": _on_attack_continued,
    "GaveUp": _on_gave_up,
    "WarriorsAssociated": _on_warriors_associated,
    "MauwWon": _on_mauw_won,
    "MauwLost": _on_mauw_lost,
    "PairPlaced": _on_pair_placed,
    "PairLost": _on_pair_lost,
    "HandDiscarded": _on_hand_discarded,
    "TurnEnded": _on_turn_ended,
    "GameEnded": _on_game_ended,
}
