"""Mauw: columns, associations, blocks and attack chains (2–6 players).

The rules as implemented, with the rulings and every choice made where the
rules are silent, are documented in ``docs/games/mauw.md``.  The section
marks below (§But, §Matériel, §Mise en place, §Déroulement, §Renforcer,
§Association, §Bloquer, §Débloquer, §Attaquer, §Fin) name the parts of the
publisher's French rules they follow; that text is not in this repository
(docs/architecture.md, "Game rules").

The rules as implemented
------------------------
Cards (§Matériel, rulings).  72 cards: Warriors of value 1–8, seven copies
of each value, each value in one colour — red 1/8 (``"1R"``, ``"8R"``),
yellow 2/7 (``"2Y"``, ``"7Y"``), green 3/6 (``"3G"``, ``"6G"``), blue 4/5
(``"4B"``, ``"5B"``); 12 Spirits of value 0 (``"SPIRIT"``); 4 Jokers
(``"JOKER"``).  Every back is the same "Mauw", worth 9 × 2.  At 2–3 players
the one-dot cards are removed (two copies of each value and 4 Spirits: 52
cards left), at 4–5 the two-dot cards (one copy of each value and 2
Spirits: 62 left), at 6 none (§Mise en place).

Deal (§Mise en place).  The deck is shuffled into a face-down draw pile;
each player gets 4 cards.  The first player is drawn at random unless the
table option ``first_seat`` names one; play goes to the left.

Play area (§Mise en place).  Each player has 4 slots.  A slot holds a
column of at most 4 cards, at most 3 of them Mauw, the fourth (top) never
a Mauw.  Because a Mauw is only ever placed on an empty slot or on an
uncovered Mauw column, a column is always ``k`` Mauw (0–3) under at most
one face-up card: a lone Warrior (k = 0), or a Warrior or Spirit covering
the Mauw.

A turn (§Déroulement).  The player plays one card of the hand, then draws
back up to 4 (the draw pile is rebuilt by shuffling the discard pile when
it runs out).  A player who cannot play any card discards the whole hand
and draws 4; that is the turn.  The card is played:

* Reinforce (§Renforcer): a Warrior on an own empty slot or on an own
  uncovered Mauw column.  A Warrior on an own Warrior of the same colour
  is an association (below).
* Block (§Bloquer): a Spirit or a Warrior on an opponent's uncovered Mauw
  column.  The column then scores 0 (Spirit) or the Warrior's value in
  place of the 9.
* Unblock (§Débloquer): a Spirit on an own column covered by a Spirit;
  both Spirits are discarded and the turn ends.
* Attack (§Attaquer): a Warrior on an opponent's exposed Warrior of the
  same colour.  The attacked player may defend with an identical card (same
  value) or a Joker: both cards are discarded.  The attacker may then go
  on with another identical card, and so on, each side drawing back to 4
  after each card, until one side gives up.  If the defender gives up the
  association is made for the attacker.

Associations (§Association).  A Warrior on a Warrior of the same colour:
different values — both are discarded and the player takes the top card
of the draw pile, face down, as a Mauw placed on an own empty slot or own
uncovered Mauw column; same value — the lower card is turned face down as
a Mauw and both are placed together (Mauw under the Warrior) on an own
empty slot or uncovered Mauw column.  Won cards that fit nowhere are lost
to the discard pile (§Débloquer, Remarque).

Jokers (§Matériel, rulings) stand for any card, declared when played, and
stay that card while face up.

End (§Fin).  At once when a player holds three columns of three Mauw (that
player wins); or at the end of a turn when a player could not draw back to
4 (draw and discard piles both empty).  Column points: the value shown on
top (9 for a Mauw, the Warrior's value, 0 for a Spirit) × 2 for every
Mauw in the column.  Most points wins, equal totals share the place.
Ours: an attacker plays at most ``chain_limit`` attack cards in one chain
(default 6, binding only when recycled cards would make it endless); the
game also ends (column points) after ``stalemate_rounds``
rounds (default 20) in which nobody placed a Mauw, since cards trapped
under Mauw can leave nobody able to progress.

Codes used in state, events and views: a face-up Joker standing for card
``X`` is ``"*X"`` (``"*3G"``, ``"*SPIRIT"``); a Mauw's face is kept in the
state only (views show ``"MAUW"``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from pydantic import BaseModel, Field

from shared.engine import (
    BAD_ACTION,
    GAME_OVER,
    NOT_YOUR_TURN,
    BaseGame,
    IllegalAction,
    Result,
    Strategy,
    places_from,
    require_type,
)
from shared.events import Event

# --------------------------------------------------------------------------
# Cards and lookup tables (built once)
# --------------------------------------------------------------------------

#: The eight Warrior codes, by value 1..8 (value + colour letter).
WARRIORS: tuple[str, ...] = ("1R", "2Y", "3G", "4B", "5B", "6G", "7Y", "8R")
SPIRIT = "SPIRIT"
JOKER = "JOKER"
#: What views show for a face-down card in a column.
MAUW = "MAUW"
#: Colour names by letter.
COLOURS = {"R": "red", "Y": "yellow", "G": "green", "B": "blue"}
#: Cards a Joker may be declared as.
DECLARABLE: tuple[str, ...] = (*WARRIORS, SPIRIT)
#: Physical card codes.
CARDS: tuple[str, ...] = (*WARRIORS, SPIRIT, JOKER)

SLOTS = 4  # columns per play area
HAND = 4  # cards in hand
MAX_MAUW = 3  # Mauw per column
MAUW_VALUE = 9

#: entry -> value shown (0 for a Spirit).  Entries are physical codes or
#: ``"*X"`` for a Joker declared as ``X``.
VALUE: dict[str, int] = {}
#: entry -> colour letter, or None for a Spirit.
COLOUR: dict[str, str | None] = {}
#: entry -> physical card ("*3G" -> "JOKER").
PHYSICAL: dict[str, str] = {}
#: entry -> card it stands for ("*3G" -> "3G").
SHOWN: dict[str, str] = {}
for _code in DECLARABLE:
    for _entry in (_code, "*" + _code):
        VALUE[_entry] = 0 if _code == SPIRIT else int(_code[0])
        COLOUR[_entry] = None if _code == SPIRIT else _code[1]
        PHYSICAL[_entry] = JOKER if _entry[0] == "*" else _code
        SHOWN[_entry] = _code
#: Warrior codes by colour letter.
BY_COLOUR: dict[str, tuple[str, ...]] = {c: tuple(w for w in WARRIORS if w[1] == c) for c in COLOURS}
#: Joker entries by colour (for attacks/associations) and all of them.
JOKER_AS: tuple[str, ...] = tuple("*" + c for c in DECLARABLE)


def deck(players: int) -> list[str]:
    """The cards in play for ``players`` (§Mise en place, rulings), unshuffled.

    2–3 players: 5 of each Warrior, 8 Spirits, 4 Jokers (52); 4–5: 6 of
    each, 10 Spirits, 4 Jokers (62); 6: 7 of each, 12 Spirits, 4 Jokers (72).
    Raises ValueError outside 2..6.
    """
    if not 2 <= players <= 6:
        raise ValueError("Mauw is for 2 to 6 players")
    removed = 2 if players <= 3 else 1 if players <= 5 else 0
    copies = 7 - removed
    cards = [w for w in WARRIORS for _ in range(copies)]
    cards += [SPIRIT] * (12 - 2 * removed)
    cards += [JOKER] * 4
    return cards


def entry_of(card: str, as_: str | None) -> str:
    """The entry a played card makes: ``card`` itself, or ``"*" + as_`` for a Joker."""
    if card == JOKER:
        assert as_ is not None  # a Joker is always declared
        return "*" + as_
    return card


# --------------------------------------------------------------------------
# State
# --------------------------------------------------------------------------


class Phase(Enum):
    """Where the game is: a normal turn, an attack chain, or over."""

    PLAY = "play"
    CHAIN = "chain"
    OVER = "over"


class Move(Enum):
    """What a played card does, given where it goes (§Déroulement)."""

    REINFORCE = "reinforce"
    ASSOCIATE = "associate"
    BLOCK = "block"
    UNBLOCK = "unblock"
    ATTACK = "attack"


@dataclass(slots=True)
class Column:
    """One slot of a play area: ``mauw`` faces (bottom first, shown as
    backs) under ``top``, the face-up entry or None (empty slot when
    ``mauw`` is empty too)."""

    mauw: list[str]
    top: str | None = None


@dataclass(slots=True)
class Chain:
    """An attack in progress (§Attaquer).

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
    draw: list[str]  # top is the last element
    discard: list[str]  # top is the last element
    chain: Chain | None = None
    won: list[str] | None = None  # same-value pair awaiting placement: [mauw face, top entry]
    winner: int | None = None
    ending: str | None = None


# --------------------------------------------------------------------------
# Small pure helpers
# --------------------------------------------------------------------------


def column_points(col: Column) -> int:
    """Points of one column (rulings): the value on top (9 for a Mauw, 0
    for a Spirit or an empty slot) × 2 per Mauw.  One Mauw 18, three 72,
    a Warrior 3 on two Mauw 12, a lone Warrior its value."""
    k = len(col.mauw)
    top = col.top
    if top is None:
        return MAUW_VALUE << k if k else 0
    return VALUE[top] << k


def area_points(area: list[Column]) -> int:
    """Sum of the column points of one play area."""
    return sum(column_points(c) for c in area)


def full_columns(area: list[Column], covered_count: bool) -> int:
    """How many columns hold three Mauw (§But); covered ones count only
    when ``covered_count``."""
    return sum(1 for c in area if len(c.mauw) == MAX_MAUW and (covered_count or c.top is None))


def places(area: list[Column], freed: int | None = None) -> list[int]:
    """Slots of ``area`` that can take won cards (§Association): an empty
    slot or an uncovered Mauw column with at most 2 Mauw (room for one more
    Mauw, or for a Mauw and the Warrior on it).  ``freed``: a column whose
    top is about to leave (own association)."""
    return [i for i, c in enumerate(area) if (c.top is None or i == freed) and len(c.mauw) < MAX_MAUW]


def move_for(state: State, seat: int, entry: str, owner: int, column: int) -> Move | str:
    """Classify ``entry`` played by ``seat`` on ``owner``'s ``column``.

    Returns the :class:`Move`, or the refusal code as a str:
    ``not_a_warrior`` (a Spirit can only block or unblock),
    ``column_blocked`` (a Spirit-covered column takes only its owner's
    Spirit), ``colour_mismatch`` (a Warrior on a Warrior of another colour),
    ``empty_slot`` (nothing to block in an opponent's empty slot).
    """
    col = state.areas[owner][column]
    top = col.top
    spirit = COLOUR[entry] is None
    if owner == seat:
        if top is None:
            return "not_a_warrior" if spirit else Move.REINFORCE
        top_colour = COLOUR[top]
        if top_colour is None:
            return Move.UNBLOCK if spirit else "column_blocked"
        if spirit:
            return "not_a_warrior"
        return Move.ASSOCIATE if COLOUR[entry] == top_colour else "colour_mismatch"
    if top is None:
        return Move.BLOCK if col.mauw else "empty_slot"
    top_colour = COLOUR[top]
    if top_colour is None:
        return "column_blocked"
    if spirit:
        return "not_a_warrior"
    return Move.ATTACK if COLOUR[entry] == top_colour else "colour_mismatch"


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
# Options
# --------------------------------------------------------------------------


class Options(BaseModel):
    """Table options of Mauw (see docs/games/mauw.md)."""

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


# --------------------------------------------------------------------------
# Decide-time cursor over the piles (no copies of the state)
# --------------------------------------------------------------------------


class _Batch:
    """Events of one decision plus what they will do to the piles and hands."""

    __slots__ = ("state", "rng", "events", "draw", "n", "discard_used", "extra", "hand", "placed")

    def __init__(self, state: State, rng: random.Random) -> None:
        self.state = state
        self.rng = rng
        self.events: list[Event] = []
        self.draw = state.draw
        self.n = len(state.draw)
        self.discard_used = False
        self.extra: list[str] = []  # cards discarded by this batch
        self.hand = [len(h) for h in state.hands]
        self.placed = False  # a Mauw was placed by this batch

    def discard(self, *cards: str) -> None:
        self.extra.extend(cards)

    def pop(self) -> str | None:
        """Take the top of the draw pile, rebuilding it first if empty."""
        if self.n == 0:
            pool = self.extra if self.discard_used else [*self.state.discard, *self.extra]
            if not pool:
                return None
            pool = list(pool)
            self.rng.shuffle(pool)
            self.events.append(Event("DrawPileRebuilt", {"order": pool}, None))
            self.draw = pool
            self.n = len(pool)
            self.discard_used = True
            self.extra = []
        self.n -= 1
        return self.draw[self.n]

    def refill(self, seat: int) -> None:
        """Draw back up to 4 (§Déroulement), as far as the piles allow."""
        while self.hand[seat] < HAND:
            card = self.pop()
            if card is None:
                return
            self.events.append(Event("CardDrawn", {"card": card}, seat))
            self.hand[seat] += 1


# --------------------------------------------------------------------------
# The game
# --------------------------------------------------------------------------


class Mauw(BaseGame):
    """The Mauw decider (see module doc for the rules)."""

    name = "mauw"
    title = "Mauw"
    min_players = 2
    max_players = 6
    Options = Options
    strategies: Mapping[str, Strategy] = {}  # set by the package (__init__) from bots.STRATEGIES

    # ---------------------------------------------------------------- start

    def start(self, options: BaseModel, players: int, rng: random.Random) -> list[Event]:
        """Shuffle and deal (§Mise en place): one ``CardsDealt`` event with
        the options, the player count, the first seat, the four hands and
        the draw pile (top last).  Raises ValueError for a bad player count
        or a ``first_seat`` outside the table."""
        opts = options if isinstance(options, Options) else Options(**dict(options or {}))
        cards = deck(players)
        rng.shuffle(cards)
        hands = [cards[i * HAND : (i + 1) * HAND] for i in range(players)]
        draw = cards[players * HAND :]
        if opts.first_seat is not None:
            if opts.first_seat >= players:
                raise ValueError("first_seat is not a seat of this table")
            first = opts.first_seat
        else:
            first = rng.randrange(players)
        data = {"options": opts.model_dump(), "players": players, "first": first, "hands": hands, "draw": draw}
        return [Event("CardsDealt", data, None)]

    # --------------------------------------------------------------- turns

    def awaiting(self, state: State) -> frozenset[int]:
        """The player whose turn it is, or the seat that must reply in a chain."""
        if state.phase is Phase.PLAY:
            return frozenset((state.turn,))
        if state.phase is Phase.CHAIN:
            chain = state.chain
            assert chain is not None  # open through the CHAIN phase
            return frozenset((chain.waiting,))
        return frozenset()

    def check_turn(self, state: State, seat: int) -> None:
        """Raise ``game_over`` or ``not_your_turn`` unless ``seat`` is awaited
        (the base class's check without building a Result or a set)."""
        phase = state.phase
        if phase is Phase.OVER:
            raise IllegalAction(GAME_OVER, "the game is over")
        if phase is Phase.PLAY:
            waiting = state.turn
        else:
            chain = state.chain
            assert chain is not None  # open through the CHAIN phase
            waiting = chain.waiting
        if seat != waiting:
            raise IllegalAction(NOT_YOUR_TURN, "it is not your turn")

    def legal_actions(self, state: State, seat: int) -> list[dict]:
        """Every action ``seat`` may send now.

        Turn: ``{"type": "play", "card", "player", "column"}`` plus ``"as"``
        for a Joker and ``"place"`` when an association wins cards that fit
        somewhere; ``[{"type": "discard_hand"}]`` when no card can be
        played.  Chain: ``{"type": "defend" | "continue", "card"}`` and
        ``{"type": "give_up"}``.  Empty when ``seat`` is not awaited.
        """
        phase = state.phase
        if phase is Phase.PLAY:
            if seat != state.turn:
                return []
            plays = self._plays(state, seat)
            return plays if plays else [{"type": "discard_hand"}]
        if phase is Phase.CHAIN:
            chain = state.chain
            assert chain is not None  # open through the CHAIN phase
            if seat != chain.waiting:
                return []
            kind = "defend" if seat == chain.defender else "continue"
            value = chain.value
            out = []
            hand = state.hands[seat]
            if kind == "continue" and _at_limit(state):
                return [{"type": "give_up"}]
            if value in hand:
                out.append({"type": kind, "card": value})
            if JOKER in hand:
                out.append({"type": kind, "card": JOKER})
            out.append({"type": "give_up"})
            return out
        return []

    def _plays(self, state: State, seat: int, first_only: bool = False) -> list[dict]:
        """Every ``play`` of ``seat``: each target column is classified once
        (the same cases as :func:`move_for`), then matched with the hand."""
        out: list[dict] = []
        hand = state.hands[seat]
        cards = list(dict.fromkeys(hand))  # distinct, in hand order
        joker = JOKER in cards
        warriors = [c for c in cards if c in COLOUR and COLOUR[c] is not None]
        spirit = SPIRIT in cards
        own = state.areas[seat]
        attack_spots: list[int] | None = None
        by_colour: dict[str, list[tuple[str, str | None]]] = {}
        for owner, area in enumerate(state.areas):
            mine = owner == seat
            for column, col in enumerate(area):
                top = col.top
                if mine:
                    if top is None:  # reinforce: any Warrior
                        for w in warriors:
                            out.append({"type": "play", "card": w, "player": owner, "column": column})
                        if joker:
                            for w in WARRIORS:
                                out.append({"type": "play", "card": JOKER, "player": owner, "column": column, "as": w})
                        if out and first_only:
                            return out
                        continue
                    colour = COLOUR[top]
                    if colour is None:  # unblock
                        if spirit:
                            out.append({"type": "play", "card": SPIRIT, "player": owner, "column": column})
                        if joker:
                            out.append({"type": "play", "card": JOKER, "player": owner, "column": column, "as": SPIRIT})
                        if out and first_only:
                            return out
                        continue
                    spots = places(own, column)
                else:
                    if top is None:  # block: any card, on a Mauw column
                        if not col.mauw:
                            continue
                        for c in cards:
                            if c == JOKER:
                                for d in DECLARABLE:
                                    out.append(
                                        {"type": "play", "card": JOKER, "player": owner, "column": column, "as": d}
                                    )
                            else:
                                out.append({"type": "play", "card": c, "player": owner, "column": column})
                        if out and first_only:
                            return out
                        continue
                    colour = COLOUR[top]
                    if colour is None:
                        continue
                    if attack_spots is None:
                        attack_spots = places(own)
                    spots = attack_spots
                # association or attack: Warriors of the top's colour
                matching = by_colour.get(colour)
                if matching is None:
                    matching = [(w, None) for w in warriors if COLOUR[w] == colour]
                    if joker:
                        matching.extend((JOKER, w) for w in BY_COLOUR[colour])
                    by_colour[colour] = matching
                for card, as_ in matching:
                    action: dict[str, Any] = {"type": "play", "card": card, "player": owner, "column": column}
                    if as_ is not None:
                        action["as"] = as_
                    if spots:
                        for p in spots:
                            out.append({**action, "place": p})
                    else:
                        out.append(action)
                if out and first_only:
                    return out
        return out

    def _can_play(self, state: State, seat: int) -> bool:
        return bool(self._plays(state, seat, first_only=True))

    # --------------------------------------------------------------- decide

    def decide(self, state: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
        """Validate one action of ``seat`` and return its events (never mutates).

        Raises IllegalAction: ``game_over``, ``not_your_turn``,
        ``bad_action`` (malformed), ``card_not_in_hand``,
        ``bad_declaration`` (a Joker without a card to stand for, or ``as``
        on another card), ``no_such_column``, ``not_a_warrior``,
        ``column_blocked``, ``colour_mismatch``, ``empty_slot``,
        ``bad_placement`` (``place`` missing, not fitting or not wanted),
        ``can_play`` (discarding a hand that can play), ``not_identical``
        (a chain reply that is neither the identical card nor a Joker),
        ``chain_limit`` (continuing a chain past ``chain_limit`` attack cards).
        """
        self.check_turn(state, seat)
        if state.phase is Phase.CHAIN:
            return self._decide_chain(state, seat, action, rng)
        kind = action.get("type") if type(action) is dict else None
        if kind != "play" and kind != "discard_hand":
            kind = require_type(action, ("play", "discard_hand"))
        b = _Batch(state, rng)
        if kind == "discard_hand":
            if self._can_play(state, seat):
                raise IllegalAction("can_play", "a player discards the hand only when no card can be played")
            hand = state.hands[seat]
            b.events.append(Event("HandDiscarded", {"cards": list(hand)}, seat))
            b.discard(*hand)
            b.hand[seat] = 0
            b.refill(seat)
            return self._end_turn(b)
        card = _card_field(action, state.hands[seat])
        as_ = action.get("as")
        if card == JOKER:
            if type(as_) is not str or as_ not in SHOWN or as_[0] == "*":
                raise IllegalAction(
                    "bad_declaration", "a Joker must be declared ('as') as the Warrior or Spirit it stands for"
                )
        elif as_ is not None:
            raise IllegalAction("bad_declaration", "only a Joker is declared as another card")
        entry = entry_of(card, as_)
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
        if mv is Move.ASSOCIATE or mv is Move.ATTACK:
            spots = places(state.areas[seat], column if mv is Move.ASSOCIATE else None)
            _check_place(place, spots)
        elif place is not None:
            raise IllegalAction("bad_placement", "only an association or an attack wins cards to place")
        data: dict[str, Any] = {"card": card, "as": as_, "player": owner, "column": column, "move": mv.value}
        if mv is Move.ATTACK:
            data["place"] = place
        b.events.append(Event("CardPlayed", data, seat))
        b.hand[seat] -= 1
        if mv is Move.UNBLOCK:
            spirit = state.areas[seat][column].top
            assert spirit is not None  # move_for: an unblock lifts a Spirit
            b.discard(PHYSICAL[spirit], card)
        elif mv is Move.ASSOCIATE:
            top = state.areas[seat][column].top
            assert top is not None  # move_for: an association is on a Warrior
            if self._associate(b, seat, seat, column, top, entry, place):
                return b.events
        elif mv is Move.ATTACK:
            b.refill(seat)
            value = SHOWN[entry]
            if state.auto_give_up and not _holds(state.hands[owner], value):
                b.events.append(Event("GaveUp", {"auto": True}, owner))
                top = state.areas[owner][column].top
                assert top is not None  # move_for: an attack is on a Warrior
                if self._associate(b, seat, owner, column, top, entry, place):
                    return b.events
                return self._end_turn(b)
            return b.events
        b.refill(seat)
        return self._end_turn(b)

    def _decide_chain(self, state: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
        chain = state.chain
        assert chain is not None  # decide calls this in the CHAIN phase only
        defending = seat == chain.defender
        reply = "defend" if defending else "continue"
        kind = action.get("type") if type(action) is dict else None
        if kind != reply and kind != "give_up":
            kind = require_type(action, (reply, "give_up"))
        b = _Batch(state, rng)
        if kind == "give_up":
            b.events.append(Event("GaveUp", {"auto": False}, seat))
            if defending:
                top = state.areas[chain.defender][chain.column].top
                attack = chain.card
                # The attacked Warrior, and the attack card on it (the defender is to reply: none defended yet).
                assert top is not None and attack is not None
                if self._associate(b, chain.attacker, chain.defender, chain.column, top, attack, chain.place):
                    return b.events
            return self._end_turn(b)
        card = _card_field(action, state.hands[seat])
        as_ = action.get("as")
        if card != chain.value and card != JOKER:
            raise IllegalAction("not_identical", "a reply must be the identical Warrior or a Joker")
        if as_ is not None and (card != JOKER or as_ != chain.value):
            raise IllegalAction("bad_declaration", "a Joker in a chain stands for the identical Warrior")
        if not defending and _at_limit(state):
            raise IllegalAction("chain_limit", "this chain has reached its limit of attack cards: give up")
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
                if self._associate(b, chain.attacker, chain.defender, chain.column, top, entry, chain.place):
                    return b.events
            return self._end_turn(b)
        return b.events

    def _associate(
        self, b: _Batch, winner: int, owner: int, column: int, top: str, entry: str, place: int | None
    ) -> bool:
        """Events resolving an association won by ``winner`` (§Association).
        ``top`` is the Warrior on ``owner``'s ``column``, ``entry`` the card
        played on it.  Returns True when the game ended (three columns)."""
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
            face = b.pop()
            assert face is not None  # two cards were just discarded
            if place is None:
                b.events.append(Event("MauwLost", {"card": face}, winner))
                b.discard(face)
                return False
            b.events.append(Event("MauwWon", {"place": place}, winner))
            b.placed = True
        # Three columns of three Mauw after the placement? (§Fin: at once)
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

    def _end_turn(self, b: _Batch) -> list[Event]:
        """Close the turn: the game ends when a hand is short of 4 (§Fin) or
        after ``stalemate_rounds`` rounds without a Mauw placed (ours);
        otherwise the next player's turn."""
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

    # --------------------------------------------------------------- evolve

    def evolve(self, state: State | None, event: Event) -> State:
        """Apply one event (pure; mutates and returns ``state``)."""
        if state is None:
            return _dealt(state, event)
        return _HANDLERS[event.type](state, event)

    # ---------------------------------------------------------------- views

    def view(self, state: State, seat: int | None) -> dict:
        """What ``seat`` (None: a spectator) sees.

        ``turns`` played, ``quiet_turns`` since the last Mauw was placed
        (stalemate count); ``hand``: own cards (None for spectators);
        ``hand_sizes``; ``areas``:
        per player 4 columns ``{"cards", "mauw", "top", "points"}`` with
        Mauw shown as ``"MAUW"``; ``points`` per player; ``draw_count``;
        ``discard_count`` and ``discard_top``; ``chain`` (attack in
        progress) or None; ``result`` once over.
        """
        chain = state.chain
        areas = []
        for area in state.areas:
            cols = []
            for c in area:
                k = len(c.mauw)
                cards = [MAUW] * k
                if c.top is not None:
                    cards.append(c.top)
                cols.append({"cards": cards, "mauw": k, "top": c.top, "points": column_points(c)})
            areas.append(cols)
        res = self.result(state)
        return {
            "game": self.name,
            "players": state.players,
            "seat": seat,
            "phase": state.phase.value,
            "turn": state.turn,
            "turns": state.turns,
            "quiet_turns": state.turns - state.last_mauw,
            "first": state.first,
            "awaiting": sorted(self.awaiting(state)),
            "hand": list(state.hands[seat]) if seat is not None else None,
            "hand_sizes": [len(h) for h in state.hands],
            "areas": areas,
            "points": [area_points(a) for a in state.areas],
            "full_columns": [full_columns(a, state.covered_columns_count) for a in state.areas],
            "draw_count": len(state.draw),
            "discard_count": len(state.discard),
            "discard_top": state.discard[-1] if state.discard else None,
            "chain": None
            if chain is None
            else {
                "attacker": chain.attacker,
                "defender": chain.defender,
                "column": chain.column,
                "value": chain.value,
                "card": chain.card,
                "place": chain.place,
                "waiting": chain.waiting,
                "attacks": chain.attacks,
            },
            "options": {
                "covered_columns_count": state.covered_columns_count,
                "auto_give_up": state.auto_give_up,
                "stalemate_rounds": state.stalemate_rounds,
                "chain_limit": state.chain_limit,
            },
            "result": res.to_json() if res is not None else None,
        }

    def redact(self, event: Event, seat: int | None) -> Event | None:
        """The event as ``seat`` may see it: the deal shows only that seat's
        hand; a drawn card only to its drawer; a rebuilt draw pile only its
        size.  Everything else is played face up."""
        t = event.type
        if t == "CardsDealt":
            d = event.data
            data = dict(d)
            data["hands"] = [h if i == seat else None for i, h in enumerate(d["hands"])]
            data["hand_sizes"] = [len(h) for h in d["hands"]]
            data["draw"] = None
            data["draw_count"] = len(d["draw"])
            return Event(t, data, event.seat, event.ts, event.cmd)
        if t == "CardDrawn" and event.seat != seat:
            return Event(t, {}, event.seat, event.ts, event.cmd)
        if t == "DrawPileRebuilt":
            return Event(t, {"count": len(event.data["order"])}, event.seat, event.ts, event.cmd)
        return event

    def is_over(self, state: State) -> bool:
        """True once the game is over (``result`` is not None)."""
        return state.phase is Phase.OVER

    def result(self, state: State) -> Result | None:
        """Scores (column points) and places once over: the three-column
        winner first, the others by points; equal keys share a place."""
        if state.phase is not Phase.OVER:
            return None
        scores = tuple(area_points(a) for a in state.areas)
        keys = [(1 if s == state.winner else 0, p) for s, p in enumerate(scores)]
        return Result(
            scores=scores,
            places=places_from(keys, lower_wins=False),
            lower_wins=False,
            detail={"ending": state.ending, "winner": state.winner, "turns": state.turns},
        )


# --------------------------------------------------------------------------
# Decide helpers
# --------------------------------------------------------------------------


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
# Evolve handlers (one per event type)
# --------------------------------------------------------------------------


def _dealt(_: State | None, e: Event) -> State:
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
        phase=Phase.PLAY,
        turn=d["first"],
        turns=0,
        last_mauw=0,
        hands=[list(h) for h in d["hands"]],
        areas=[[Column([]) for _ in range(SLOTS)] for _ in range(n)],
        draw=list(d["draw"]),
        discard=[],
    )


def _drawn(s: State, e: Event) -> State:
    seat = e.seat
    assert seat is not None  # drawn by a seat
    s.hands[seat].append(s.draw.pop())
    return s


def _rebuilt(s: State, e: Event) -> State:
    s.draw = list(e.data["order"])
    s.discard = []
    return s


def _associate_state(s: State, owner: int, column: int, entry: str) -> None:
    col = s.areas[owner][column]
    top = col.top
    assert top is not None  # an association is on a Warrior
    col.top = None
    if VALUE[top] == VALUE[entry]:
        s.won = [PHYSICAL[top], entry]
    else:
        s.discard.append(PHYSICAL[top])
        s.discard.append(PHYSICAL[entry])


def _played(s: State, e: Event) -> State:
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
        _associate_state(s, seat, d["column"], entry)
    else:  # attack
        s.phase = Phase.CHAIN
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


def _defended(s: State, e: Event) -> State:
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


def _continued(s: State, e: Event) -> State:
    chain = s.chain
    seat = e.seat
    assert chain is not None and seat is not None  # the attacker's reply in a chain
    card = e.data["card"]
    s.hands[seat].remove(card)
    chain.card = entry_of(card, chain.value)
    chain.waiting = chain.defender
    chain.attacks += 1
    return s


def _gave_up(s: State, e: Event) -> State:
    chain = s.chain
    assert chain is not None  # a chain is given up
    s.chain = None
    s.phase = Phase.PLAY
    if e.seat == chain.defender:
        card = chain.card
        assert card is not None  # the defender gives up facing an attack card
        _associate_state(s, chain.defender, chain.column, card)
    return s


def _associated(s: State, e: Event) -> State:
    # The association itself was applied with the card that caused it
    # (CardPlayed or GaveUp); this event announces it for the feed.
    return s


def _mauw_won(s: State, e: Event) -> State:
    seat = e.seat
    assert seat is not None  # won by a seat
    s.areas[seat][e.data["place"]].mauw.append(s.draw.pop())
    s.last_mauw = s.turns + 1
    return s


def _mauw_lost(s: State, e: Event) -> State:
    s.discard.append(s.draw.pop())
    return s


def _pair_placed(s: State, e: Event) -> State:
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


def _pair_lost(s: State, e: Event) -> State:
    won = s.won
    assert won is not None  # the pair just won
    face, top = won
    s.discard.append(face)
    s.discard.append(PHYSICAL[top])
    s.won = None
    return s


def _hand_discarded(s: State, e: Event) -> State:
    seat = e.seat
    assert seat is not None  # discarded by a seat
    hand = s.hands[seat]
    s.discard.extend(hand)
    hand.clear()
    return s


def _turn_ended(s: State, e: Event) -> State:
    s.turn = e.data["next"]
    s.turns += 1
    return s


def _game_ended(s: State, e: Event) -> State:
    s.phase = Phase.OVER
    s.chain = None
    s.ending = e.data["reason"]
    s.winner = e.data["winner"]
    s.turns += 1
    return s


_HANDLERS: dict[str, Callable[[State, Event], State]] = {
    "CardsDealt": _dealt,
    "CardDrawn": _drawn,
    "DrawPileRebuilt": _rebuilt,
    "CardPlayed": _played,
    "AttackDefended": _defended,
    "AttackContinued": _continued,
    "GaveUp": _gave_up,
    "WarriorsAssociated": _associated,
    "MauwWon": _mauw_won,
    "MauwLost": _mauw_lost,
    "PairPlaced": _pair_placed,
    "PairLost": _pair_lost,
    "HandDiscarded": _hand_discarded,
    "TurnEnded": _turn_ended,
    "GameEnded": _game_ended,
}
