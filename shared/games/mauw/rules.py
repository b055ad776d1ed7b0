"""Mauw: columns, associations, blocks and attack chains (2–6 players).

The rules as implemented, with the rulings and every choice made where
the publisher's rules are silent, are in docs/games/mauw.md; the names in
parentheses below are its sections.  (That page also gives the § marks of
the publisher's French rules that each part follows; their text is not in
this repository.)

Cards ("Cards and codes").  Warriors of value 1–8, each value in one
colour (red 1/8, yellow 2/7, green 3/6, blue 4/5), Spirits of value 0 and
Jokers; fewer copies at 2–5 players.  Every back is the same "Mauw",
worth 9.  Codes and lookup tables: :mod:`shared.games.mauw.cards`.

Setup and play areas ("Setup", "Play areas").  The shuffled deck becomes
the talon (the face-down draw pile); each player gets 4 cards and 4 slots.
A slot holds a column of at most 3 Mauw under at most one face-up card.
The first seat is the table option ``first_seat`` or drawn at random;
play goes to the left.

A turn ("A turn").  The player plays one card of the hand, then draws back
up to 4 (the discard pile is shuffled into a new talon when the talon runs
out).  A player who cannot play discards the whole hand and draws 4; that
is the turn.  Where the card goes decides what it does: a Warrior on an own
empty slot or uncovered Mauw column reinforces; on an own Warrior of the
same colour it makes an association ("Associations": two values discarded
and a Mauw won from the talon, or a same-value pair placed as a Mauw under
a Warrior); a Spirit or Warrior on an opponent's uncovered Mauw column
blocks it ("Blocks"); a Spirit on an own Spirit-covered column unblocks it;
a Warrior on an opponent's exposed Warrior of the same colour attacks
("Attacks and chains": the defender and then the attacker answer with
identical cards or Jokers until one side gives up; a defender who gives up
loses the association to the attacker).  Won cards that fit nowhere are
lost to the discard pile.  A Joker stands for the card it is declared as.

End ("End").  At once when a player holds three columns of three Mauw
(that player wins); at the end of a turn when a hand could not be refilled;
or (ours) after ``stalemate_rounds`` rounds without a Mauw placed.  An
attacker plays at most ``chain_limit`` attack cards in one chain (ours).
Scores: :mod:`shared.games.mauw.scoring`.

This module: the refusal codes, :class:`Options`, :func:`start`, the
classification of a card played on a column (:func:`target`,
:func:`move_for`), one decide and one legal handler per action type in
:data:`ACTIONS`, :func:`decide`, :func:`legal_actions`, and the game class
binding them to the state (:mod:`~shared.games.mauw.state`), the views
(:mod:`~shared.games.mauw.views`) and the scores.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from shared.engine import (
    BAD_ACTION,
    GAME_OVER,
    NOT_YOUR_TURN,
    ActionRule,
    BaseGame,
    IllegalAction,
    Strategy,
    dispatch,
    listers,
    listing,
    require_type,
)
from shared.events import Event
from shared.games.mauw.cards import (
    BY_COLOUR,
    COLOUR,
    DECLARABLE,
    JOKER,
    PHYSICAL,
    SHOWN,
    SPIRIT,
    VALUE,
    WARRIORS,
    deck,
    entry_of,
)
from shared.games.mauw.scoring import result
from shared.games.mauw.state import (
    ASSOCIATE,
    ATTACK,
    CHAIN,
    HAND,
    MAX_MAUW,
    OVER,
    PLAY,
    SLOTS,
    UNBLOCK,
    Chain,
    Column,
    Move,
    Phase,
    State,
    awaiting,
    evolve,
    is_over,
    places,
    waiting,
)
from shared.games.mauw.summary import SUMMARY
from shared.games.mauw.views import NAME, redact, view

#: The state classes by the names snapshots taken before the module split
#: give them (``shared.games.mauw.rules:State``, ``:Column``, ``:Chain``,
#: ``:Phase``; :mod:`shared.snapshot` stores class paths): still found here.
SNAPSHOT_CLASSES = (State, Column, Chain, Phase)

#: Every refusal code decide may raise (docs/games/mauw.md lists their meaning).
REFUSAL_CODES: tuple[str, ...] = (
    "game_over",
    "not_your_turn",
    "bad_action",
    "card_not_in_hand",
    "bad_declaration",
    "no_such_column",
    "not_a_warrior",
    "column_blocked",
    "colour_mismatch",
    "empty_slot",
    "bad_placement",
    "can_play",
    "not_identical",
    "chain_limit",
)

_MESSAGES = {
    "not_a_warrior": "a Spirit only blocks an opponent's Mauw column or unblocks your own",
    "column_blocked": "a column covered by a Spirit takes only a Spirit (or Joker) from its owner",
    "colour_mismatch": "a Warrior goes on a Warrior only of the same colour",
    "empty_slot": "there is nothing to block in an opponent's empty slot",
}


# --------------------------------------------------------------------------
# Options and the deal
# --------------------------------------------------------------------------


class Options(BaseModel):
    """Table options of Mauw (docs/games/mauw.md, "Table options")."""

    model_config = ConfigDict(extra="forbid")

    first_seat: int | None = Field(
        None,
        ge=0,
        le=5,
        description="Seat that plays first (the source: the hairiest player); null draws it at random.",
    )
    covered_columns_count: bool = Field(
        True,
        description="A column of three Mauw counts toward the three-column win even when a card covers it.",
    )
    auto_give_up: bool = Field(
        False,
        description=(
            "In an attack chain, give up at once for a side that holds no identical card nor Joker "
            "(faster, but tells the table that side holds none)."
        ),
    )
    chain_limit: int | None = Field(
        6,
        ge=1,
        le=100,
        description=(
            "Most attack cards an attacker may play in one chain; then it can only give up. The default 6 is "
            "the most 7 copies and 4 Jokers allow, so it binds only when both piles are empty and a "
            "defence's two cards are reshuffled and drawn straight back (an endless chain). Null: no limit."
        ),
    )
    stalemate_rounds: int | None = Field(
        20,
        ge=1,
        le=1000,
        description=(
            "End the game with column points when no Mauw has been placed for this many rounds "
            "(a round is one turn per player); cards trapped under Mauw can leave nobody able to "
            "progress. Null: never (the source has no such ending)."
        ),
    )


def start(options: BaseModel, players: int, rng: random.Random) -> list[Event]:
    """Shuffle and deal (docs/games/mauw.md, "Setup"): one ``GameStarted``
    event with the options, the player count, the first seat, the four
    hands and the talon (top last).  Raises ValueError for a bad player
    count or a ``first_seat`` outside the table."""
    opts = options if isinstance(options, Options) else Options(**dict(options or {}))
    cards = deck(players)
    rng.shuffle(cards)
    hands = [cards[i * HAND : (i + 1) * HAND] for i in range(players)]
    talon = cards[players * HAND :]
    if opts.first_seat is not None:
        if opts.first_seat >= players:
            raise ValueError("first_seat is not a seat of this table")
        first = opts.first_seat
    else:
        first = rng.randrange(players)
    data = {"options": opts.model_dump(), "players": players, "first": first, "hands": hands, "talon": talon}
    return [Event("GameStarted", data, None)]


# --------------------------------------------------------------------------
# What a card played on a column does (docs/games/mauw.md, "A turn")
# --------------------------------------------------------------------------

#: ``Target.takes`` for a target that takes any Warrior, any card at all, or none.
ANY_WARRIOR = "warrior"
ANY_CARD = "any"
NOTHING = "nothing"


@dataclass(frozen=True, slots=True, eq=False)  # a few constants, compared and hashed by identity
class Target:
    """What a card played on one column does and which cards it takes.

    ``takes``: a colour letter (the Warriors of that colour),
    :data:`ANY_WARRIOR`, :data:`SPIRIT`, :data:`ANY_CARD` (a Joker fits as
    any card it can stand for) or :data:`NOTHING`.  ``move``: what a card
    it takes does there (None when it takes nothing); ``refusal``: the
    code when it takes nothing (``empty_slot``, ``column_blocked``);
    ``wins``: the move wins cards to place (an association, an attack)."""

    takes: str
    move: Move | None = None
    refusal: str | None = None
    wins: bool = False


_REINFORCE = Target(ANY_WARRIOR, Move.REINFORCE)
_UNBLOCK = Target(SPIRIT, Move.UNBLOCK)
_BLOCK = Target(ANY_CARD, Move.BLOCK)
_ASSOCIATE = {c: Target(c, Move.ASSOCIATE, wins=True) for c in BY_COLOUR}
_ATTACK = {c: Target(c, Move.ATTACK, wins=True) for c in BY_COLOUR}
_EMPTY_SLOT = Target(NOTHING, refusal="empty_slot")
_BLOCKED = Target(NOTHING, refusal="column_blocked")
#: Every target.
TARGETS: tuple[Target, ...] = (
    _REINFORCE, _UNBLOCK, _BLOCK, *_ASSOCIATE.values(), *_ATTACK.values(), _EMPTY_SLOT, _BLOCKED
)

#: What lies on top of a column besides a face-up entry: Mauw with nothing
#: on them, or nothing at all (an empty slot).
UNCOVERED = "uncovered"
EMPTY = "empty"


def face(col: Column) -> str:
    """What lies on top of ``col``: its face-up entry, :data:`UNCOVERED`
    or :data:`EMPTY`."""
    top = col.top
    if top is not None:
        return top
    return UNCOVERED if col.mauw else EMPTY


def _target(on_top: str, own: bool) -> Target:
    """The rule behind :func:`target`, by the column's :func:`face`."""
    if on_top == EMPTY or on_top == UNCOVERED:
        if own:
            return _REINFORCE
        return _BLOCK if on_top == UNCOVERED else _EMPTY_SLOT
    colour = COLOUR[on_top]
    if colour is None:
        return _UNBLOCK if own else _BLOCKED
    return _ASSOCIATE[colour] if own else _ATTACK[colour]


#: :func:`target` worked out once for every face, in the player's own area
#: (``TARGET_OF[True]``) and in an opponent's (``TARGET_OF[False]``).
TARGET_OF: dict[bool, dict[str, Target]] = {
    own: {f: _target(f, own) for f in (EMPTY, UNCOVERED, *VALUE)} for own in (True, False)
}


def target(col: Column, own: bool) -> Target:
    """What a card played on ``col`` (``own``: in the player's own area)
    does and which cards it takes: an own empty slot or uncovered Mauw
    column takes any Warrior (reinforce); an own Spirit-covered column a
    Spirit (unblock); an own Warrior a Warrior of its colour (associate);
    an opponent's uncovered Mauw column any card (block); an opponent's
    Warrior a Warrior of its colour (attack).  An opponent's empty slot
    (``empty_slot``) or Spirit-covered column (``column_blocked``) takes
    nothing."""
    return TARGET_OF[own][face(col)]


def fits(t: Target, entry: str) -> Move | str:
    """The move ``entry`` makes on a column whose target is ``t``, or the
    refusal code: the target's own when it takes nothing;
    ``column_blocked`` (a Spirit-covered column takes only a Spirit),
    ``not_a_warrior`` (a Spirit only blocks or unblocks),
    ``colour_mismatch`` (a Warrior on a Warrior of another colour)."""
    move = t.move
    if move is None:
        assert t.refusal is not None  # a target that takes nothing says why
        return t.refusal
    takes = t.takes
    if takes == ANY_CARD:
        return move
    colour = COLOUR[entry]
    if takes == SPIRIT:
        return move if colour is None else "column_blocked"
    if colour is None:
        return "not_a_warrior"
    return move if takes == ANY_WARRIOR or colour == takes else "colour_mismatch"


def move_for(state: State, seat: int, entry: str, owner: int, column: int) -> Move | str:
    """Classify ``entry`` played by ``seat`` on ``owner``'s ``column``
    (:func:`target`, then :func:`fits`).

    Returns the :class:`Move`, or the refusal code as a str:
    ``not_a_warrior`` (a Spirit can only block or unblock),
    ``column_blocked`` (a Spirit-covered column takes only its owner's
    Spirit), ``colour_mismatch`` (a Warrior on a Warrior of another colour),
    ``empty_slot`` (nothing to block in an opponent's empty slot).
    """
    return fits(target(state.areas[owner][column], owner == seat), entry)


# --------------------------------------------------------------------------
# Decide helpers: the events of one decision
# --------------------------------------------------------------------------


class _Batch:
    """Events of one decision plus what they will do to the piles and hands."""

    __slots__ = ("state", "rng", "events", "talon", "n", "discard_used", "extra", "hand", "placed")

    def __init__(self, state: State, rng: random.Random) -> None:
        self.state = state
        self.rng = rng
        self.events: list[Event] = []
        self.talon = state.talon
        self.n = len(state.talon)
        self.discard_used = False
        self.extra: list[str] = []  # cards discarded by this batch
        self.hand = [len(h) for h in state.hands]
        self.placed = False  # a Mauw was placed by this batch

    def discard(self, *cards: str) -> None:
        self.extra.extend(cards)

    def pop(self) -> str | None:
        """Take the top of the talon, shuffling the discard pile into a new
        talon first if it is empty (None: both are empty)."""
        if self.n == 0:
            pool = self.extra if self.discard_used else [*self.state.discard, *self.extra]
            if not pool:
                return None
            pool = list(pool)
            self.rng.shuffle(pool)
            self.events.append(Event("TalonReshuffled", {"talon": pool}, None))
            self.talon = pool
            self.n = len(pool)
            self.discard_used = True
            self.extra = []
        self.n -= 1
        return self.talon[self.n]

    def refill(self, seat: int) -> None:
        """Draw back up to 4 (docs/games/mauw.md, "A turn"), as far as the piles allow."""
        while self.hand[seat] < HAND:
            card = self.pop()
            if card is None:
                return
            self.events.append(Event("CardsDrawn", {"cards": [card]}, seat))
            self.hand[seat] += 1


def _associate(b: _Batch, winner: int, owner: int, column: int, top: str, entry: str, place: int | None) -> bool:
    """Events resolving an association won by ``winner`` (docs/games/mauw.md,
    "Associations").  ``top`` is the Warrior on ``owner``'s ``column``,
    ``entry`` the card played on it.  Returns True when the game ended
    (three columns)."""
    state = b.state
    same = VALUE[top] == VALUE[entry]
    b.events.append(Event("WarriorsAssociated", {"player": owner, "column": column, "same": same}, winner))
    area = state.areas[winner]
    if same:
        if place is None:
            b.events.append(Event("PairLost", {}, winner))
            b.discard(PHYSICAL[top], PHYSICAL[entry])
            return False
        b.events.append(Event("PairPlaced", {"place": place}, winner))
        b.placed = True
    else:
        b.discard(PHYSICAL[top], PHYSICAL[entry])
        mauw_face = b.pop()
        assert mauw_face is not None  # two cards were just discarded
        if place is None:
            b.events.append(Event("MauwLost", {"card": mauw_face}, winner))
            b.discard(mauw_face)
            return False
        b.events.append(Event("MauwWon", {"place": place}, winner))
        b.placed = True
    # Three columns of three Mauw after the placement? ("End": at once)
    covered = state.covered_columns_count
    full = 0
    for i, c in enumerate(area):
        k = len(c.mauw)
        t = c.top
        if i == place:
            k += 1
            t = entry if same else None
        elif owner == winner and i == column:
            t = None
        if k == MAX_MAUW and (covered or t is None):
            full += 1
    if full >= 3:
        b.events.append(Event("GameEnded", {"reason": "three_columns", "winner": winner}, None))
        return True
    return False


def _end_turn(b: _Batch) -> list[Event]:
    """Close the turn: the game ends when a hand is short of 4 or after
    ``stalemate_rounds`` rounds without a Mauw placed (ours); otherwise
    the next player's turn (docs/games/mauw.md, "End")."""
    state = b.state
    if any(h < HAND for h in b.hand):
        b.events.append(Event("GameEnded", {"reason": "cannot_refill", "winner": None}, None))
    elif (rounds := state.stalemate_rounds) is not None and not b.placed and (
        state.turns + 1 - state.last_mauw >= rounds * state.players
    ):
        b.events.append(Event("GameEnded", {"reason": "stalemate", "winner": None}, None))
    else:
        b.events.append(Event("TurnEnded", {"next": (state.turn + 1) % state.players}, None))
    return b.events


def _card_field(action: Mapping[str, Any], hand: list[str]) -> str:
    card = action.get("card")
    if type(card) is not str:
        raise IllegalAction(BAD_ACTION, "'card' is the code of a card in your hand")
    if card not in hand:
        raise IllegalAction("card_not_in_hand", "that card is not in your hand")
    return card


def _check_place(place: Any, spots: list[int]) -> None:
    if not spots:
        if place is not None:
            raise IllegalAction("bad_placement", "the won cards fit nowhere in your area and are lost: omit 'place'")
        return
    if type(place) is not int or place not in spots:
        raise IllegalAction(
            "bad_placement",
            "'place' must be one of your empty slots or uncovered Mauw columns with room: "
            + ", ".join(map(str, spots)),
        )


def _holds(hand: list[str], value: str) -> bool:
    return value in hand or JOKER in hand


def _at_limit(state: State) -> bool:
    """The attacker has played ``chain_limit`` attack cards in this chain."""
    limit = state.chain_limit
    if limit is None:
        return False
    chain = state.chain
    assert chain is not None  # asked during a chain only
    return chain.attacks >= limit


# --------------------------------------------------------------------------
# play: one card of the hand on a column (docs/games/mauw.md, "A turn")
# --------------------------------------------------------------------------


def _declared(card: str, as_: Any) -> str:
    """The entry ``card`` makes with the declaration ``as_`` (a Joker must
    be declared as a Warrior or Spirit; no other card is declared)."""
    if card == JOKER:
        if type(as_) is not str or as_ not in SHOWN or as_[0] == "*":
            raise IllegalAction(
                "bad_declaration", "a Joker must be declared ('as') as the Warrior or Spirit it stands for"
            )
    elif as_ is not None:
        raise IllegalAction("bad_declaration", "only a Joker is declared as another card")
    return entry_of(card, as_)


def _decide_play(state: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """One card of the hand on a column (:func:`move_for`); then the
    association, the chain or the refill and the end of the turn."""
    card = _card_field(action, state.hands[seat])
    as_ = action.get("as")
    entry = _declared(card, as_)
    owner = action.get("player", seat)
    column = action.get("column")
    if type(owner) is not int or type(column) is not int:
        raise IllegalAction(BAD_ACTION, "'player' and 'column' are integers")
    if not (0 <= owner < state.players and 0 <= column < SLOTS):
        raise IllegalAction("no_such_column", f"columns are player 0..{state.players - 1}, column 0..3")
    mv = move_for(state, seat, entry, owner, column)
    if isinstance(mv, str):  # a refusal code (a Move is no str)
        raise IllegalAction(mv, _MESSAGES[mv])
    place = action.get("place")
    if mv is ASSOCIATE or mv is ATTACK:
        spots = places(state.areas[seat], column if mv is ASSOCIATE else None)
        _check_place(place, spots)
    elif place is not None:
        raise IllegalAction("bad_placement", "only an association or an attack wins cards to place")
    data: dict[str, Any] = {"card": card, "as": as_, "player": owner, "column": column, "move": mv.value}
    if mv is ATTACK:
        data["place"] = place
    b = _Batch(state, rng)
    b.events.append(Event("CardPlayed", data, seat))
    b.hand[seat] -= 1
    if mv is UNBLOCK:
        spirit = state.areas[seat][column].top
        assert spirit is not None  # move_for: an unblock lifts a Spirit
        b.discard(PHYSICAL[spirit], card)
    elif mv is ASSOCIATE:
        top = state.areas[seat][column].top
        assert top is not None  # move_for: an association is on a Warrior
        if _associate(b, seat, seat, column, top, entry, place):
            return b.events
    elif mv is ATTACK:
        b.refill(seat)
        value = SHOWN[entry]
        if state.auto_give_up and not _holds(state.hands[owner], value):
            b.events.append(Event("GaveUp", {"auto": True}, owner))
            top = state.areas[owner][column].top
            assert top is not None  # move_for: an attack is on a Warrior
            if _associate(b, seat, owner, column, top, entry, place):
                return b.events
            return _end_turn(b)
        return b.events
    b.refill(seat)
    return _end_turn(b)


#: The cards of a hand a :class:`Target` takes, as ``play`` actions list
#: them: ``(cards, jokers, after)`` — cards played as themselves, then the
#: Joker's declarations, then (for a block, where the Joker keeps its place
#: in hand order) the cards after the Joker; :data:`_NO_CARDS` when it takes none.
Offer = tuple[list[str], tuple[str, ...], list[str]]
_NO_CARDS: Offer = ([], (), [])


def offers(hand: list[str]) -> dict[Target, Offer]:
    """The :data:`Offer` ``hand`` makes every :class:`Target`: a reinforce
    takes its Warriors, an unblock its Spirit, an association or an attack
    its Warriors of the target's colour — each then a Joker declared as
    every card that fits; a block takes every card in hand order, a Joker
    (as every card it can stand for) at its place."""
    cards = list(dict.fromkeys(hand))  # distinct, in hand order
    joker = JOKER in cards
    warriors: list[str] = []
    by_colour: dict[str, list[str]] = {"R": [], "Y": [], "G": [], "B": []}  # the keys of BY_COLOUR
    for c in cards:
        colour = COLOUR.get(c)  # None for a Spirit and a Joker
        if colour is not None:
            warriors.append(c)
            by_colour[colour].append(c)
    if joker:
        i = cards.index(JOKER)
        block: Offer = (cards[:i], DECLARABLE, cards[i + 1 :])
    else:
        block = (cards, (), []) if cards else _NO_CARDS
    spirit = [SPIRIT] if SPIRIT in cards else []
    out: dict[Target, Offer] = {
        _REINFORCE: (warriors, WARRIORS if joker else (), []) if warriors or joker else _NO_CARDS,
        _UNBLOCK: (spirit, (SPIRIT,) if joker else (), []) if spirit or joker else _NO_CARDS,
        _BLOCK: block,
        _EMPTY_SLOT: _NO_CARDS,
        _BLOCKED: _NO_CARDS,
    }
    for colour, matching in by_colour.items():
        out[_ASSOCIATE[colour]] = out[_ATTACK[colour]] = (
            (matching, BY_COLOUR[colour] if joker else (), []) if matching or joker else _NO_CARDS
        )
    return out


def _legal_play(state: State, seat: int) -> list[dict]:
    """Every ``play`` of ``seat``, column by column (players in seat order):
    the column's :func:`target`; the cards of the hand it takes
    (:func:`offers`); for an association or an attack, the places for the
    winnings (:func:`~shared.games.mauw.state.places`); then one action per
    card (``"as"`` for a Joker) and place.  (The steps are inline in the
    loop — table lookups, no call per column — so that listing the plays
    costs no more than the single function it replaced.)"""
    out: list[dict] = []
    append = out.append
    offered = offers(state.hands[seat])
    own = state.areas[seat]
    attack_spots: list[int] | None = None
    for owner, area in enumerate(state.areas):
        mine = owner == seat
        targets = TARGET_OF[mine]
        for column, col in enumerate(area):
            top = col.top  # t = target(col, mine), by its table
            t = targets[top if top is not None else UNCOVERED if col.mauw else EMPTY]
            offer = offered[t]
            if offer is _NO_CARDS:
                continue
            cards, jokers, after = offer
            if t.wins:  # an association or an attack: one action per place that fits
                if mine:
                    spots = places(own, column)
                else:
                    if attack_spots is None:
                        attack_spots = places(own)
                    spots = attack_spots
                if spots:
                    for card in cards:
                        for p in spots:
                            append({"type": "play", "card": card, "player": owner, "column": column, "place": p})
                    for as_ in jokers:
                        for p in spots:
                            append({
                                "type": "play", "card": JOKER, "player": owner, "column": column, "as": as_, "place": p
                            })
                    continue
            for card in cards:
                append({"type": "play", "card": card, "player": owner, "column": column})
            for as_ in jokers:
                append({"type": "play", "card": JOKER, "player": owner, "column": column, "as": as_})
            for card in after:
                append({"type": "play", "card": card, "player": owner, "column": column})
    return out


def _can_play(state: State, seat: int) -> bool:
    """Some card of ``seat``'s hand can be played somewhere: the
    :func:`target` of some column takes one of its cards (:func:`offers`)."""
    offered = offers(state.hands[seat])
    return any(
        offered[target(col, owner == seat)] is not _NO_CARDS
        for owner, area in enumerate(state.areas)
        for col in area
    )


# --------------------------------------------------------------------------
# discard_hand: a dead hand (docs/games/mauw.md, "A turn", dead hand)
# --------------------------------------------------------------------------


def _decide_discard_hand(state: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """The whole hand discarded, 4 drawn, the turn over (only a dead hand)."""
    if _can_play(state, seat):
        raise IllegalAction("can_play", "a player discards the hand only when no card can be played")
    b = _Batch(state, rng)
    hand = state.hands[seat]
    b.events.append(Event("HandDiscarded", {"cards": list(hand)}, seat))
    b.discard(*hand)
    b.hand[seat] = 0
    b.refill(seat)
    return _end_turn(b)


def _legal_discard_hand(state: State, seat: int) -> list[dict]:
    """``discard_hand`` when no card can be played."""
    return [] if _can_play(state, seat) else [{"type": "discard_hand"}]


# --------------------------------------------------------------------------
# defend / continue / give_up: the replies in an attack chain
# (docs/games/mauw.md, "Attacks and chains")
# --------------------------------------------------------------------------


def _reply(state: State, seat: int, action: Mapping[str, Any], rng: random.Random, defending: bool) -> list[Event]:
    """A ``defend`` (the defender) or ``continue`` (the attacker): the
    identical card or a Joker; then the other side is awaited, or gives up
    at once under ``auto_give_up`` when it cannot reply."""
    chain = state.chain
    assert chain is not None  # decide calls this in the CHAIN phase only
    card = _card_field(action, state.hands[seat])
    as_ = action.get("as")
    if card != chain.value and card != JOKER:
        raise IllegalAction("not_identical", "a reply must be the identical Warrior or a Joker")
    if as_ is not None and (card != JOKER or as_ != chain.value):
        raise IllegalAction("bad_declaration", "a Joker in a chain stands for the identical Warrior")
    if not defending and _at_limit(state):
        raise IllegalAction("chain_limit", "this chain has reached its limit of attack cards: give up")
    b = _Batch(state, rng)
    b.hand[seat] -= 1
    if defending:
        b.events.append(Event("AttackDefended", {"card": card}, seat))
        attack = chain.card
        assert attack is not None  # the defender replies to an attack card
        b.discard(PHYSICAL[attack], card)
        b.refill(seat)
        other = chain.attacker
    else:
        b.events.append(Event("AttackContinued", {"card": card}, seat))
        b.refill(seat)
        other = chain.defender
    if state.auto_give_up and (
        not _holds(state.hands[other], chain.value) or (other == chain.attacker and _at_limit(state))
    ):
        b.events.append(Event("GaveUp", {"auto": True}, other))
        if other == chain.defender:
            top = state.areas[chain.defender][chain.column].top
            assert top is not None  # the attacked Warrior
            entry = entry_of(card, chain.value)
            if _associate(b, chain.attacker, chain.defender, chain.column, top, entry, chain.place):
                return b.events
        return _end_turn(b)
    return b.events


def _decide_defend(state: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """The defender's reply (:func:`_reply`)."""
    return _reply(state, seat, action, rng, defending=True)


def _decide_continue(state: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """The attacker's reply (:func:`_reply`)."""
    return _reply(state, seat, action, rng, defending=False)


def _replies(state: State, seat: int, kind: str) -> list[dict]:
    """The ``kind`` replies ``seat`` holds: the identical card, a Joker."""
    chain = state.chain
    assert chain is not None  # asked in the CHAIN phase only
    hand = state.hands[seat]
    out = []
    if chain.value in hand:
        out.append({"type": kind, "card": chain.value})
    if JOKER in hand:
        out.append({"type": kind, "card": JOKER})
    return out


def _legal_defend(state: State, seat: int) -> list[dict]:
    return _replies(state, seat, "defend")


def _legal_continue(state: State, seat: int) -> list[dict]:
    """None once the attacker has played ``chain_limit`` attack cards."""
    return [] if _at_limit(state) else _replies(state, seat, "continue")


def _decide_give_up(state: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """Either side stops the chain; when the defender gives up, the attack
    card makes the association for the attacker."""
    chain = state.chain
    assert chain is not None  # decide calls this in the CHAIN phase only
    b = _Batch(state, rng)
    b.events.append(Event("GaveUp", {"auto": False}, seat))
    if seat == chain.defender:
        top = state.areas[chain.defender][chain.column].top
        attack = chain.card
        # The attacked Warrior, and the attack card on it (the defender is to reply: none defended yet).
        assert top is not None and attack is not None
        if _associate(b, chain.attacker, chain.defender, chain.column, top, attack, chain.place):
            return b.events
    return _end_turn(b)


def _legal_give_up(state: State, seat: int) -> list[dict]:
    """Either side may always give up."""
    return [{"type": "give_up"}]


# --------------------------------------------------------------------------
# decide and legal_actions
# --------------------------------------------------------------------------

#: Action type -> its decide and legal handlers.
ACTIONS: dict[str, ActionRule] = {
    "play": ActionRule(_decide_play, _legal_play,
                       {"card": str, "player": int, "column": int, "as": (str, None), "place": (int, None)}),
    "discard_hand": ActionRule(_decide_discard_hand, _legal_discard_hand),
    "defend": ActionRule(_decide_defend, _legal_defend, {"card": str}),
    "continue": ActionRule(_decide_continue, _legal_continue, {"card": str}),
    "give_up": ActionRule(_decide_give_up, _legal_give_up),
}

#: The action types open to the awaited seat, in the order legal_actions
#: lists them: on its turn; in a chain, the defender's and the attacker's.
ON_TURN: tuple[str, ...] = ("play", "discard_hand")
DEFENDING: tuple[str, ...] = ("defend", "give_up")
ATTACKING: tuple[str, ...] = ("continue", "give_up")
#: Their ``legal`` handlers, keyed by the types (what legal_actions walks).
LISTERS = listers(ACTIONS, {t: t for t in (ON_TURN, DEFENDING, ATTACKING, ())})


def open_to(state: State, seat: int) -> tuple[str, ...]:
    """The action types ``seat`` may send now (empty unless awaited)."""
    phase = state.phase
    if phase is PLAY:
        return ON_TURN if seat == state.turn else ()
    if phase is CHAIN:
        chain = state.chain
        assert chain is not None  # open through the CHAIN phase
        if seat == chain.waiting:
            return DEFENDING if seat == chain.defender else ATTACKING
    return ()


def decide(state: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """Validate one action of ``seat`` and return its events (never mutates).

    Raises IllegalAction: ``game_over``, ``not_your_turn``,
    ``bad_action`` (malformed, or a type not open now), ``card_not_in_hand``,
    ``bad_declaration`` (a Joker without a card to stand for, or ``as``
    on another card), ``no_such_column``, ``not_a_warrior``,
    ``column_blocked``, ``colour_mismatch``, ``empty_slot``,
    ``bad_placement`` (``place`` missing, not fitting or not wanted),
    ``can_play`` (discarding a hand that can play), ``not_identical``
    (a chain reply that is neither the identical card nor a Joker),
    ``chain_limit`` (continuing a chain past ``chain_limit`` attack cards).
    """
    if state.phase is OVER:
        raise IllegalAction(GAME_OVER, "the game is over")
    if seat != waiting(state):
        raise IllegalAction(NOT_YOUR_TURN, "it is not your turn")
    types = open_to(state, seat)
    kind = action.get("type") if type(action) is dict else None
    if kind not in types:
        require_type(action, types)
    return dispatch(ACTIONS, state, seat, action, rng)


def legal_actions(state: State, seat: int) -> list[dict]:
    """Every action ``seat`` may send now.

    Turn: ``{"type": "play", "card", "player", "column"}`` plus ``"as"``
    for a Joker and ``"place"`` when an association wins cards that fit
    somewhere; ``[{"type": "discard_hand"}]`` when no card can be
    played.  Chain: ``{"type": "defend" | "continue", "card"}`` and
    ``{"type": "give_up"}``.  Empty when ``seat`` is not awaited.
    """
    types = open_to(state, seat)
    if types is ON_TURN:
        # The fast path of listing(LISTERS[ON_TURN], state, seat), the same
        # list: a dead hand is one without a play, so one pass over the
        # hand gives both types (the listing would look for a play twice).
        return _legal_play(state, seat) or [{"type": "discard_hand"}]
    return listing(LISTERS[types], state, seat)


# --------------------------------------------------------------------------
# The game
# --------------------------------------------------------------------------


class Mauw(BaseGame):
    """The Mauw decider: the rules of this module, the state's ``evolve``
    and queries, the views and the scores bound as one game object."""

    name = NAME
    title = "Mauw"
    summary = SUMMARY
    min_players = 2
    max_players = 6
    Options = Options
    actions = ACTIONS
    strategies: Mapping[str, Strategy] = {}  # set by the package (__init__) from bots.STRATEGIES

    start = staticmethod(start)
    decide = staticmethod(decide)
    legal_actions = staticmethod(legal_actions)
    evolve = staticmethod(evolve)
    awaiting = staticmethod(awaiting)
    is_over = staticmethod(is_over)
    view = staticmethod(view)
    redact = staticmethod(redact)
    result = staticmethod(result)
