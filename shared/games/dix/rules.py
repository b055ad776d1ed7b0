"""DIX — push-your-luck for 1 to 5 players (Molly Johnson, AEG 2021).

Rules as implemented (documented, with the rulings, in ``docs/games/dix.md``;
page numbers are those of the publisher's rules booklet, which is not in
this repository, see docs/architecture.md, "Game rules"; choices where the
rules are silent are marked *ours* and listed in ``docs/games/dix.md``).

Setup.  The deck for the player count (see :mod:`shared.games.dix.cards`:
128 cards, minus the "4+" cards at 3 players and also the "3+" cards at 2
players and solo, p. 4) is shuffled face down.  Everyone starts with 5
currency tokens; the market is empty.  The first player is drawn at random
(*ours*), play goes to the left (increasing seat number).

A turn (p. 8–9).  The active player flips the top card of the deck into
their tableau, one card at a time, and after each card either flips again
or stops.  The tableau total is the sum of its Number cards minus the sum
of its Currency cards.  The player busts when a flipped card brings the
total to 11 or more, or brings the Currency cards alone to 11 or more
(frequent mistake: currency subtracts from the total but its own sum must
stay under eleven too).  On stopping the player chooses:

* take the Number cards into their collection; every other player then
  receives from the bank as many tokens as the tableau's Currency cards
  are worth (p. 8; frequent mistake "leaving the others without money");
  then the player may buy one card of the market (p. 10);
* or take the currency: tokens worth the Currency cards; the Number cards
  go to the market (*ours*, option ``numbers_on_currency``).

Currency cards leave the tableau to the discard pile either way.

Bust (p. 9).  The tableau's Number cards go to the market and the player
takes one consolation token.  Only when the *total* went past 10 do the
other players receive the currency's value; a bust by currency alone pays
nobody.  The Currency cards are discarded and the turn ends (no buy).

Jokers (p. 6, 11).  A flipped joker never enters the tableau total: it is
auctioned at once.  Starting left of the active player each player speaks
once, bidding strictly more than the highest bid so far or passing; the
active player speaks last.  The highest bidder pays and takes the joker;
if everybody passes it is discarded.  Then the active player's turn goes
on (flip or stop).  Solo: the player may take the joker for 2 or discard it.

Paying (p. 10–11).  A price (a bid, a market card's number, the solo
joker) may be paid with any mix of currency tokens (1), consolation tokens
(3 each, spent whole, no change) and Number cards from the collection (1
each whatever their number; they go to the discard pile).  A payment is
made of steps (``pay_tokens``, ``pay_consolation``, ``pay_card``) until
the price is covered; only the last step may overshoot, and only a
consolation token can (that is the "no change" rule).  A bid or a buy must
be affordable with everything the player could pay with.

Market buy (p. 10).  At most one card per turn, at a price equal to its
number, only after taking the Number cards without busting, never a number
the player already owns in that colour (frequent mistake).

Money (p. 10).  Currency tokens held are capped at 10: tokens beyond the
cap stay in the bank.  Consolation tokens are outside the cap.  The bank
holds 10 tokens a seat, so it can never run dry (*ours*).

End (p. 12).  When the last card of the deck is flipped the active player
finishes the turn without flipping again (stop: take Number cards or
currency, then the buy).  Then every player, in turn order from the active
player's left and the active player last, has one last buy.  Then the
score: per colour the longest run of consecutive numbers, 1 point a card,
+1 for a full 1–9 run, jokers placed to maximise the score
(:mod:`shared.games.dix.scoring`).  Ties: more money (tokens + 3 per
consolation token, not cards), then fewer cards in the collection; else
the place is shared.

Solo (ruling).  Deck of 2 players, nobody receives the currency "the
others" would get, a flipped joker may be bought for 2 or discarded, the
result is the score and counts as a win at 25 points or more (option).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from shared.engine import (
    BAD_ACTION,
    BaseGame,
    IllegalAction,
    Result,
    places_from,
    require_type,
)
from shared.events import Event
from shared.games.dix.cards import (
    ALL_CODES,
    KIND,
    NUMBER,
    VALUE,
    Kind,
    deck_for,
    removed_cards,
    sorted_cards,
)
from shared.games.dix.scoring import score as score_collection
from shared.games.dix.scoring import score_detail

# --------------------------------------------------------------------------
# Refusal codes (stable; API clients switch on them).

WRONG_PHASE = "wrong_phase"
DECK_EMPTY = "deck_empty"
TABLEAU_EMPTY = "tableau_empty"
BID_TOO_LOW = "bid_too_low"
CANNOT_AFFORD = "cannot_afford"
BUY_NOT_ALLOWED = "buy_not_allowed"
CARD_NOT_IN_MARKET = "card_not_in_market"
ALREADY_OWN_NUMBER = "already_own_number"
OVERPAID = "overpaid"
CARD_NOT_IN_COLLECTION = "card_not_in_collection"
NOT_A_NUMBER_CARD = "not_a_number_card"

ACTION_TYPES = (
    "flip",
    "take_numbers",
    "take_currency",
    "bid",
    "pass",
    "take_joker",
    "buy",
    "pay_tokens",
    "pay_consolation",
    "pay_card",
)

BUST_AT = 11  # a total or a currency sum of 11 or more busts (p. 9)


# --------------------------------------------------------------------------
# Options (pydantic: the edge only).


class Options(BaseModel):
    """Table options for DIX; every default is the source's rule or a ruling."""

    starting_tokens: int = Field(5, ge=0, le=50, description="Currency tokens each player starts with (ruling: 5).")
    token_cap: int = Field(
        10, ge=1, le=50, description="Most currency tokens a player may hold; the excess stays in the bank (p. 10)."
    )
    consolation_value: int = Field(
        3, ge=1, le=10, description="What a consolation token is worth when paying; spent whole, no change (p. 10)."
    )
    min_bid: int = Field(1, ge=1, le=20, description="Lowest opening bid in a joker auction (ours: 1).")
    full_run_bonus: int = Field(1, ge=0, le=5, description="Bonus points for a full 1–9 run in a colour (p. 12).")
    numbers_on_currency: Literal["market", "discard"] = Field(
        "market",
        description="Where the tableau's Number cards go when the player takes the currency instead (ours: market).",
    )
    random_first_player: bool = Field(
        True, description="Draw the first player at random (ours); false: seat 0 starts."
    )
    solo_joker_price: int = Field(2, ge=1, le=20, description="Solo: price to keep a flipped joker (ruling: 2).")
    solo_target: int = Field(
        25, ge=0, le=60, description="Solo: the game counts as won at this score or more (ruling: 25)."
    )

    @model_validator(mode="after")
    def _start_within_cap(self) -> Options:
        if self.starting_tokens > self.token_cap:
            raise ValueError("starting_tokens may not exceed token_cap")
        return self


# --------------------------------------------------------------------------
# State (plain slotted dataclasses: the hot path).


class Phase(Enum):
    """Who is awaited for what."""

    TURN = "turn"  # active player: flip, or stop (take_numbers / take_currency)
    AUCTION = "auction"  # the current bidder: bid or pass
    JOKER_OFFER = "joker_offer"  # solo: take_joker or pass
    PAYMENT = "payment"  # the debtor: pay_* until the price is covered
    BUY = "buy"  # active player after taking Number cards: buy or pass
    FINAL_BUY = "final_buy"  # the last buy round: buy or pass, one seat at a time
    OVER = "over"


class After(Enum):
    """Where play goes once a payment is complete."""

    TURN = "turn"  # a joker: the active player's turn goes on
    CLOSE = "close"  # a turn's buy: the turn ends (next event closes it)
    FINAL = "final"  # a last-round buy: the next seat's last buy


@dataclass(slots=True)
class Rules:
    """The option values the engine reads (a plain copy of :class:`Options`)."""

    starting_tokens: int = 5
    token_cap: int = 10
    consolation_value: int = 3
    min_bid: int = 1
    full_run_bonus: int = 1
    numbers_on_currency: str = "market"
    random_first_player: bool = True
    solo_joker_price: int = 2
    solo_target: int = 25


@dataclass(slots=True)
class Seat:
    """One player's public holdings."""

    tokens: int
    consolation: int = 0
    collection: list[str] = field(default_factory=list)  # Number cards and jokers, display order


@dataclass(slots=True)
class Auction:
    """A joker auction in progress: ``order`` speaks in turn, ``pos`` is next."""

    joker: str
    order: tuple[int, ...]
    pos: int = 0
    high: int = 0
    high_seat: int | None = None
    bids: list[int | None] = field(default_factory=list)  # per speaker so far: amount or None (passed)


@dataclass(slots=True)
class Debt:
    """A price being paid by ``seat``; ``item`` joins the collection when paid."""

    seat: int
    owed: int
    item: str
    after: After


@dataclass(slots=True)
class State:
    """The whole truth of one DIX table.  ``deck[-1]`` is the next card."""

    players: int
    rules: Rules
    phase: Phase
    active: int
    deck: list[str]
    seats: list[Seat]
    bank: int
    removed: list[str]
    tableau: list[str] = field(default_factory=list)
    total: int = 0  # Number cards minus Currency cards
    currency: int = 0  # Currency cards alone
    market: list[str] = field(default_factory=list)
    discard: list[str] = field(default_factory=list)
    auction: Auction | None = None
    debt: Debt | None = None
    final_order: tuple[int, ...] = ()
    final_pos: int = 0
    consolation_given: int = 0
    consolation_spent: int = 0
    turns: int = 1


# --------------------------------------------------------------------------
# Small pure helpers.


def wealth(seat: Seat, rules: Rules) -> int:
    """Everything a player could pay with: tokens, consolation tokens and
    one per Number card in the collection (p. 10–11)."""
    cards = 0
    for code in seat.collection:
        if KIND[code] is Kind.NUMBER:
            cards += 1
    return seat.tokens + rules.consolation_value * seat.consolation + cards


def money(seat: Seat, rules: Rules) -> int:
    """Money for the tie-break: tokens plus consolation tokens at their value, not cards (p. 12)."""
    return seat.tokens + rules.consolation_value * seat.consolation


def owns_number(seat: Seat, card: str) -> bool:
    """True when the collection already holds a Number card of that colour and number."""
    return card in seat.collection


def can_buy(state: State, seat: int, card: str) -> bool:
    """True when ``seat`` may buy ``card`` from the market now (ignoring phase)."""
    s = state.seats[seat]
    return card in state.market and not owns_number(s, card) and wealth(s, state.rules) >= NUMBER[card]


def _received(seat: Seat, amount: int, cap: int) -> int:
    """Tokens a seat actually receives of ``amount`` under the cap."""
    room = cap - seat.tokens
    return amount if amount <= room else max(room, 0)


_SORT = {c: i for i, c in enumerate(ALL_CODES)}


# --------------------------------------------------------------------------
# The game.


class DixGame(BaseGame):
    """DIX as a decider (docs/architecture.md, "The game contract").  See the module docstring for the rules.

    Actions (``legal_actions`` lists them exactly):

    * ``{"type": "flip"}`` — reveal the top card (TURN).
    * ``{"type": "take_numbers"}`` / ``{"type": "take_currency"}`` — stop (TURN).
    * ``{"type": "bid", "amount": int}`` / ``{"type": "pass"}`` — auction.
    * ``{"type": "take_joker"}`` / ``{"type": "pass"}`` — solo joker offer.
    * ``{"type": "buy", "card": code}`` / ``{"type": "pass"}`` — market buy.
    * ``{"type": "pay_tokens", "count": int}``, ``{"type": "pay_consolation"}``,
      ``{"type": "pay_card", "card": code}`` — paying a price.
    """

    name = "dix"
    title = "DIX"
    min_players = 1
    max_players = 5
    Options = Options

    # ------------------------------------------------------------------ start

    def start(self, options: BaseModel, players: int, rng: random.Random) -> list[Event]:
        """Shuffle the deck for ``players`` and choose the first player.

        Returns ``[GameStarted]`` whose data holds the options, the player
        count, the first seat, the removed cards and the shuffled deck in
        draw order (redacted for every seat).  Raises ``ValueError`` for a
        player count outside 1..5.
        """
        if not self.min_players <= players <= self.max_players:
            raise ValueError("DIX is for 1 to 5 players")
        opts = options if isinstance(options, Options) else Options.model_validate(options or {})
        deck = deck_for(players)
        rng.shuffle(deck)
        first = rng.randrange(players) if opts.random_first_player else 0
        return [
            Event(
                "GameStarted",
                {
                    "options": opts.model_dump(),
                    "players": players,
                    "first": first,
                    "removed": removed_cards(players),
                    "deck": deck,
                },
            )
        ]

    # ------------------------------------------------------------------ queries

    def awaiting(self, state: State) -> frozenset[int]:
        """The one seat that may act now (empty when the game is over)."""
        phase = state.phase
        if phase is Phase.TURN or phase is Phase.BUY or phase is Phase.JOKER_OFFER:
            return frozenset((state.active,))
        if phase is Phase.AUCTION:
            a = state.auction
            assert a is not None  # open through the AUCTION phase
            return frozenset((a.order[a.pos],))
        if phase is Phase.PAYMENT:
            d = state.debt
            assert d is not None  # owed through the PAYMENT phase
            return frozenset((d.seat,))
        if phase is Phase.FINAL_BUY:
            return frozenset((state.final_order[state.final_pos],))
        return frozenset()

    def legal_actions(self, state: State, seat: int) -> list[dict]:
        """Every action ``seat`` may send now, in the shape ``decide`` accepts."""
        if seat not in self.awaiting(state):
            return []
        phase = state.phase
        rules = state.rules
        me = state.seats[seat]
        if phase is Phase.TURN:
            out: list[dict] = []
            if state.deck:
                out.append({"type": "flip"})
            if state.tableau or not state.deck:
                out.append({"type": "take_numbers"})
                out.append({"type": "take_currency"})
            return out
        if phase is Phase.AUCTION:
            auction = state.auction
            assert auction is not None  # open through the AUCTION phase
            low = max(auction.high + 1, rules.min_bid)
            return [{"type": "pass"}] + [{"type": "bid", "amount": a} for a in range(low, wealth(me, rules) + 1)]
        if phase is Phase.JOKER_OFFER:
            out = [{"type": "pass"}]
            if wealth(me, rules) >= rules.solo_joker_price:
                out.append({"type": "take_joker"})
            return out
        if phase is Phase.BUY or phase is Phase.FINAL_BUY:
            out = [{"type": "pass"}]
            w = wealth(me, rules)
            seen = set()
            for card in state.market:
                if card in seen:
                    continue
                seen.add(card)
                if card not in me.collection and NUMBER[card] <= w:
                    out.append({"type": "buy", "card": card})
            return out
        if phase is Phase.PAYMENT:
            d = state.debt
            assert d is not None  # owed through the PAYMENT phase
            owed = d.owed
            out = [{"type": "pay_tokens", "count": k} for k in range(1, min(owed, me.tokens) + 1)]
            if me.consolation:
                out.append({"type": "pay_consolation"})
            seen = set()
            for card in me.collection:
                if card not in seen and KIND[card] is Kind.NUMBER:
                    seen.add(card)
                    out.append({"type": "pay_card", "card": card})
            return out
        return []

    def is_over(self, state: State) -> bool:
        """True once the game is over (``result`` is not None)."""
        return state.phase is Phase.OVER

    def result(self, state: State) -> Result | None:
        """Scores and places once the game is over (p. 12), else None.

        Scores are the run points; places rank by (score, money, fewer
        cards), equal keys share.  Solo: place 1 when the score reaches
        ``solo_target``, else place 2 (no winner).
        """
        if state.phase is not Phase.OVER:
            return None
        rules = state.rules
        scores = [score_collection(s.collection, rules.full_run_bonus) for s in state.seats]
        moneys = [money(s, rules) for s in state.seats]
        cards = [len(s.collection) for s in state.seats]
        detail: dict[str, Any] = {
            "money": moneys,
            "cards": cards,
            "runs": [score_detail(s.collection, rules.full_run_bonus) for s in state.seats],
        }
        if state.players == 1:
            won = scores[0] >= rules.solo_target
            detail["solo_target"] = rules.solo_target
            detail["solo_won"] = won
            return Result((scores[0],), (1 if won else 2,), False, detail)
        keys = [(scores[i], moneys[i], -cards[i]) for i in range(state.players)]
        return Result(tuple(scores), places_from(keys, lower_wins=False), False, detail)

    # ------------------------------------------------------------------ decide

    def decide(self, state: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
        """Validate ``action`` of ``seat`` and return the resulting events.

        Never mutates ``state``; draws no randomness (the deck order was
        fixed at start).  Raises :class:`IllegalAction` with ``game_over``,
        ``not_your_turn``, ``bad_action``, ``wrong_phase`` or the rule's own
        code (see ``docs/games/dix.md``).
        """
        self.check_turn(state, seat)
        kind = require_type(action, ACTION_TYPES)
        return _HANDLERS[kind](state, seat, action)

    # ------------------------------------------------------------------ evolve

    def evolve(self, state: State | None, event: Event) -> State:
        """Apply one event (pure: no randomness, no clock); returns the state."""
        if state is None:
            return _ev_started(state, event)
        return _EVOLVERS[event.type](state, event)

    # ------------------------------------------------------------------ views

    def view(self, state: State, seat: int | None) -> dict:
        """What ``seat`` (None: a spectator) sees.  Everything is public in
        DIX except the order of the deck, of which only its size shows:
        tableau, totals, market, discard pile, removed cards, every
        collection, tokens, consolation tokens, auctions and debts."""
        rules = state.rules
        a = state.auction
        d = state.debt
        res = self.result(state)
        return {
            "game": self.name,
            "seat": seat,
            "players": state.players,
            "phase": state.phase.value,
            "active": state.active,
            "turn": state.turns,
            "awaiting": sorted(self.awaiting(state)),
            "deck_size": len(state.deck),
            "tableau": list(state.tableau),
            "total": state.total,
            "currency": state.currency,
            "market": list(state.market),
            "discard": sorted_cards(state.discard),
            "removed": list(state.removed),
            "bank": state.bank,
            "seats": [
                {
                    "tokens": s.tokens,
                    "consolation": s.consolation,
                    "money": money(s, rules),
                    "wealth": wealth(s, rules),
                    "collection": list(s.collection),
                    "score": score_collection(s.collection, rules.full_run_bonus),
                }
                for s in state.seats
            ],
            "auction": None
            if a is None
            else {
                "joker": a.joker,
                "order": list(a.order),
                "next": a.order[a.pos] if a.pos < len(a.order) else None,
                "high": a.high,
                "high_seat": a.high_seat,
                "bids": list(a.bids),
            },
            "debt": None if d is None else {"seat": d.seat, "owed": d.owed, "item": d.item},
            "final_order": list(state.final_order),
            "options": {k: getattr(rules, k) for k in Rules.__slots__},
            "result": None if res is None else res.to_json(),
        }

    def redact(self, event: Event, seat: int | None) -> Event | None:
        """The event as ``seat`` sees it.  Only ``GameStarted`` hides
        something: the deck order, replaced by its size, for everyone."""
        if event.type == "GameStarted":
            data = {k: v for k, v in event.data.items() if k != "deck"}
            data["deck_size"] = len(event.data["deck"])
            return Event(event.type, data, event.seat, event.ts, event.cmd)
        return event


# ==========================================================================
# decide handlers: (state, seat, action) -> events.  None of them mutates.


def _wrong_phase(what: str) -> IllegalAction:
    return IllegalAction(WRONG_PHASE, f"you cannot {what} now")


def _close_turn(state: State, deck_left: int) -> Event:
    """The event that ends the active player's turn: the next turn, or the
    last buy round when the deck is empty (p. 12)."""
    n = state.players
    if deck_left == 0:
        order = [(state.active + 1 + i) % n for i in range(n)]
        return Event("FinalBuyRoundBegan", {"order": order})
    return Event("TurnEnded", {"next": (state.active + 1) % n})


def _do_flip(state: State, seat: int, action) -> list[Event]:
    if state.phase is not Phase.TURN:
        raise _wrong_phase("flip a card")
    if not state.deck:
        raise IllegalAction(DECK_EMPTY, "the deck is empty: stop and take the Number cards or the currency")
    card = state.deck[-1]
    events = [Event("CardFlipped", {"card": card}, seat)]
    kind = KIND[card]
    if kind is Kind.NUMBER:
        total, currency, cause = state.total + NUMBER[card], state.currency, "total"
    elif kind is Kind.CURRENCY:
        total, currency, cause = state.total - VALUE[card], state.currency + VALUE[card], "currency"
    else:
        return events  # a joker: evolve opens the auction (or the solo offer)
    if total >= BUST_AT or currency >= BUST_AT:
        numbers = [c for c in state.tableau if KIND[c] is Kind.NUMBER]
        coins = [c for c in state.tableau if KIND[c] is Kind.CURRENCY]
        (numbers if kind is Kind.NUMBER else coins).append(card)
        paid = _others_paid(state, seat, currency) if cause == "total" else [0] * state.players
        events.append(Event("Busted", {"cause": cause, "market": numbers, "discard": coins, "paid": paid}, seat))
        events.append(_close_turn(state, len(state.deck) - 1))
    return events


def _others_paid(state: State, seat: int, amount: int) -> list[int]:
    """Tokens each other seat receives from the bank (cap applied); solo: none."""
    cap = state.rules.token_cap
    return [0 if i == seat else _received(s, amount, cap) for i, s in enumerate(state.seats)]


def _check_stop(state: State) -> None:
    if state.phase is not Phase.TURN:
        raise _wrong_phase("stop")
    if not state.tableau and state.deck:
        raise IllegalAction(TABLEAU_EMPTY, "flip at least one card into your tableau before stopping")


def _do_take_numbers(state: State, seat: int, action) -> list[Event]:
    _check_stop(state)
    numbers = [c for c in state.tableau if KIND[c] is Kind.NUMBER]
    coins = [c for c in state.tableau if KIND[c] is Kind.CURRENCY]
    paid = _others_paid(state, seat, state.currency)
    return [Event("NumbersTaken", {"cards": numbers, "discard": coins, "paid": paid}, seat)]


def _do_take_currency(state: State, seat: int, action) -> list[Event]:
    _check_stop(state)
    numbers = [c for c in state.tableau if KIND[c] is Kind.NUMBER]
    coins = [c for c in state.tableau if KIND[c] is Kind.CURRENCY]
    me = state.seats[seat]
    got = _received(me, state.currency, state.rules.token_cap)
    to = state.rules.numbers_on_currency
    return [
        Event(
            "CurrencyTaken",
            {"value": state.currency, "tokens": got, "numbers": numbers, "numbers_to": to, "discard": coins},
            seat,
        ),
        _close_turn(state, len(state.deck)),
    ]


def _int_field(action, key: str) -> int:
    v = action.get(key)
    if type(v) is not int:
        raise IllegalAction(BAD_ACTION, f"'{key}' must be an integer")
    return v


def _card_field(action) -> str:
    v = action.get("card")
    if type(v) is not str or v not in KIND:
        raise IllegalAction(BAD_ACTION, "'card' must be a DIX card code such as 'R7'")
    return v


def _end_auction(state: State, high: int, high_seat: int | None, joker: str) -> Event:
    if high_seat is None:
        return Event("JokerDiscarded", {"joker": joker})
    return Event("AuctionWon", {"joker": joker, "price": high}, high_seat)


def _do_bid(state: State, seat: int, action) -> list[Event]:
    if state.phase is not Phase.AUCTION:
        raise _wrong_phase("bid")
    amount = _int_field(action, "amount")
    a = state.auction
    assert a is not None  # open through the AUCTION phase
    low = max(a.high + 1, state.rules.min_bid)
    if amount < low:
        raise IllegalAction(BID_TOO_LOW, f"a bid must be at least {low}")
    if amount > wealth(state.seats[seat], state.rules):
        raise IllegalAction(CANNOT_AFFORD, "you cannot pay that much")
    events = [Event("BidPlaced", {"amount": amount}, seat)]
    if a.pos == len(a.order) - 1:
        events.append(_end_auction(state, amount, seat, a.joker))
    return events


def _do_pass(state: State, seat: int, action) -> list[Event]:
    phase = state.phase
    if phase is Phase.AUCTION:
        a = state.auction
        assert a is not None  # open through the AUCTION phase
        events = [Event("BidPassed", {}, seat)]
        if a.pos == len(a.order) - 1:
            events.append(_end_auction(state, a.high, a.high_seat, a.joker))
        return events
    if phase is Phase.JOKER_OFFER:
        a = state.auction
        assert a is not None  # the solo offer is an auction of one
        return [Event("JokerDiscarded", {"joker": a.joker}, seat)]
    if phase is Phase.BUY:
        return [Event("BuyPassed", {}, seat), _close_turn(state, len(state.deck))]
    if phase is Phase.FINAL_BUY:
        events = [Event("BuyPassed", {}, seat)]
        if state.final_pos == len(state.final_order) - 1:
            events.append(Event("GameEnded", {}))
        return events
    raise _wrong_phase("pass")


def _do_take_joker(state: State, seat: int, action) -> list[Event]:
    if state.phase is not Phase.JOKER_OFFER:
        raise _wrong_phase("take a joker")
    price = state.rules.solo_joker_price
    if wealth(state.seats[seat], state.rules) < price:
        raise IllegalAction(CANNOT_AFFORD, f"you cannot pay {price}")
    a = state.auction
    assert a is not None  # the solo offer is an auction of one
    return [Event("JokerTaken", {"joker": a.joker, "price": price}, seat)]


def _do_buy(state: State, seat: int, action) -> list[Event]:
    if state.phase is not Phase.BUY and state.phase is not Phase.FINAL_BUY:
        raise IllegalAction(
            BUY_NOT_ALLOWED, "you may buy only once a turn, after taking the Number cards without busting"
        )
    card = _card_field(action)
    if card not in state.market:
        raise IllegalAction(CARD_NOT_IN_MARKET, "that card is not in the market")
    me = state.seats[seat]
    if owns_number(me, card):
        raise IllegalAction(ALREADY_OWN_NUMBER, "you already own that number in that colour")
    price = NUMBER[card]
    if wealth(me, state.rules) < price:
        raise IllegalAction(CANNOT_AFFORD, f"that card costs {price}")
    return [Event("CardBought", {"card": card, "price": price}, seat)]


def _settled(state: State, paid: int) -> list[Event]:
    """Events that follow a payment step covering ``paid`` of the debt."""
    d = state.debt
    assert d is not None  # owed through the PAYMENT phase
    if paid < d.owed:
        return []
    if d.after is After.CLOSE:
        return [_close_turn(state, len(state.deck))]
    if d.after is After.FINAL and state.final_pos == len(state.final_order) - 1:
        return [Event("GameEnded", {})]
    return []


def _check_paying(state: State) -> None:
    if state.phase is not Phase.PAYMENT:
        raise _wrong_phase("pay")


def _do_pay_tokens(state: State, seat: int, action) -> list[Event]:
    _check_paying(state)
    count = _int_field(action, "count")
    if count < 1:
        raise IllegalAction(BAD_ACTION, "'count' must be at least 1")
    if count > state.seats[seat].tokens:
        raise IllegalAction(CANNOT_AFFORD, "you do not have that many tokens")
    d = state.debt
    assert d is not None  # owed through the PAYMENT phase
    if count > d.owed:
        raise IllegalAction(OVERPAID, f"you owe only {d.owed}")
    return [Event("TokensPaid", {"count": count}, seat), *_settled(state, count)]


def _do_pay_consolation(state: State, seat: int, action) -> list[Event]:
    _check_paying(state)
    if state.seats[seat].consolation < 1:
        raise IllegalAction(CANNOT_AFFORD, "you have no consolation token")
    return [Event("ConsolationPaid", {}, seat), *_settled(state, state.rules.consolation_value)]


def _do_pay_card(state: State, seat: int, action) -> list[Event]:
    _check_paying(state)
    card = _card_field(action)
    if card not in state.seats[seat].collection:
        raise IllegalAction(CARD_NOT_IN_COLLECTION, "that card is not in your collection")
    if KIND[card] is not Kind.NUMBER:
        raise IllegalAction(NOT_A_NUMBER_CARD, "only Number cards may pay, not jokers")
    return [Event("CardPaid", {"card": card}, seat), *_settled(state, 1)]


_HANDLERS = {
    "flip": _do_flip,
    "take_numbers": _do_take_numbers,
    "take_currency": _do_take_currency,
    "bid": _do_bid,
    "pass": _do_pass,
    "take_joker": _do_take_joker,
    "buy": _do_buy,
    "pay_tokens": _do_pay_tokens,
    "pay_consolation": _do_pay_consolation,
    "pay_card": _do_pay_card,
}


# ==========================================================================
# evolve handlers: (state, event) -> state.  Pure; they may mutate state.


def _ev_started(state: State | None, e: Event) -> State:
    d = e.data
    rules = Rules(**{k: d["options"][k] for k in Rules.__slots__ if k in d["options"]})
    n = d["players"]
    deck = list(d["deck"])
    deck.reverse()  # draw from the end
    bank = rules.token_cap * n - rules.starting_tokens * n
    return State(
        players=n,
        rules=rules,
        phase=Phase.TURN,
        active=d["first"],
        deck=deck,
        seats=[Seat(rules.starting_tokens) for _ in range(n)],
        bank=bank,
        removed=list(d["removed"]),
    )


def _ev_flipped(state: State, e: Event) -> State:
    card = state.deck.pop()
    kind = KIND[card]
    if kind is Kind.NUMBER:
        state.tableau.append(card)
        state.total += NUMBER[card]
    elif kind is Kind.CURRENCY:
        state.tableau.append(card)
        state.total -= VALUE[card]
        state.currency += VALUE[card]
    else:
        n = state.players
        if n == 1:
            state.auction = Auction(card, (state.active,))
            state.phase = Phase.JOKER_OFFER
        else:
            order = tuple((state.active + 1 + i) % n for i in range(n))
            state.auction = Auction(card, order)
            state.phase = Phase.AUCTION
    return state


def _pay_out(state: State, paid: list[int]) -> None:
    for i, amount in enumerate(paid):
        if amount:
            state.seats[i].tokens += amount
            state.bank -= amount


def _clear_tableau(state: State) -> None:
    state.tableau = []
    state.total = 0
    state.currency = 0


def _to_market(state: State, cards: list[str]) -> None:
    if cards:
        state.market.extend(cards)
        state.market.sort(key=_SORT.__getitem__)


def _ev_busted(state: State, e: Event) -> State:
    d = e.data
    _to_market(state, d["market"])
    state.discard.extend(d["discard"])
    _pay_out(state, d["paid"])
    seat = e.seat
    assert seat is not None  # the active player
    state.seats[seat].consolation += 1
    state.consolation_given += 1
    _clear_tableau(state)
    return state


def _ev_numbers_taken(state: State, e: Event) -> State:
    d = e.data
    seat = e.seat
    assert seat is not None  # the active player
    me = state.seats[seat]
    if d["cards"]:
        me.collection.extend(d["cards"])
        me.collection.sort(key=_SORT.__getitem__)
    state.discard.extend(d["discard"])
    _pay_out(state, d["paid"])
    _clear_tableau(state)
    state.phase = Phase.BUY
    return state


def _ev_currency_taken(state: State, e: Event) -> State:
    d = e.data
    seat = e.seat
    assert seat is not None  # the active player
    me = state.seats[seat]
    me.tokens += d["tokens"]
    state.bank -= d["tokens"]
    if d["numbers_to"] == "market":
        _to_market(state, d["numbers"])
    else:
        state.discard.extend(d["numbers"])
    state.discard.extend(d["discard"])
    _clear_tableau(state)
    return state


def _ev_turn_ended(state: State, e: Event) -> State:
    state.active = e.data["next"]
    state.phase = Phase.TURN
    state.turns += 1
    return state


def _ev_final_round(state: State, e: Event) -> State:
    state.final_order = tuple(e.data["order"])
    state.final_pos = 0
    state.phase = Phase.FINAL_BUY
    return state


def _ev_bid(state: State, e: Event) -> State:
    a = state.auction
    assert a is not None  # open through the AUCTION phase
    a.high = e.data["amount"]
    a.high_seat = e.seat
    a.bids.append(a.high)
    a.pos += 1
    return state


def _ev_bid_passed(state: State, e: Event) -> State:
    a = state.auction
    assert a is not None  # open through the AUCTION phase
    a.bids.append(None)
    a.pos += 1
    return state


def _ev_joker_discarded(state: State, e: Event) -> State:
    a = state.auction
    assert a is not None  # the auction (or solo offer) it ends
    state.discard.append(a.joker)
    state.auction = None
    state.phase = Phase.TURN
    return state


def _ev_auction_won(state: State, e: Event) -> State:
    seat = e.seat
    a = state.auction
    assert seat is not None and a is not None  # the winner, and the auction (or solo offer) it ends
    state.debt = Debt(seat, e.data["price"], a.joker, After.TURN)
    state.auction = None
    state.phase = Phase.PAYMENT
    return state


def _ev_card_bought(state: State, e: Event) -> State:
    card = e.data["card"]
    state.market.remove(card)
    after = After.FINAL if state.phase is Phase.FINAL_BUY else After.CLOSE
    seat = e.seat
    assert seat is not None  # the buyer
    state.debt = Debt(seat, e.data["price"], card, after)
    state.phase = Phase.PAYMENT
    return state


def _paid(state: State, value: int) -> State:
    d = state.debt
    assert d is not None  # owed through the PAYMENT phase
    d.owed -= value
    if d.owed <= 0:
        me = state.seats[d.seat]
        me.collection.append(d.item)
        me.collection.sort(key=_SORT.__getitem__)
        state.debt = None
        if d.after is After.TURN:
            state.phase = Phase.TURN
        elif d.after is After.FINAL:
            state.phase = Phase.FINAL_BUY
            state.final_pos += 1
        else:
            state.phase = Phase.BUY  # closing: TurnEnded / FinalBuyRoundBegan follows
    return state


def _ev_tokens_paid(state: State, e: Event) -> State:
    count = e.data["count"]
    seat = e.seat
    assert seat is not None  # the payer
    state.seats[seat].tokens -= count
    state.bank += count
    return _paid(state, count)


def _ev_consolation_paid(state: State, e: Event) -> State:
    seat = e.seat
    assert seat is not None  # the payer
    state.seats[seat].consolation -= 1
    state.consolation_spent += 1
    return _paid(state, state.rules.consolation_value)


def _ev_card_paid(state: State, e: Event) -> State:
    card = e.data["card"]
    seat = e.seat
    assert seat is not None  # the payer
    state.seats[seat].collection.remove(card)
    state.discard.append(card)
    return _paid(state, 1)


def _ev_buy_passed(state: State, e: Event) -> State:
    if state.phase is Phase.FINAL_BUY:
        state.final_pos += 1
    return state


def _ev_game_ended(state: State, e: Event) -> State:
    state.phase = Phase.OVER
    state.final_pos = len(state.final_order)
    return state


_EVOLVERS: dict[str, Callable[[State, Event], State]] = {
    "GameStarted": _ev_started,
    "CardFlipped": _ev_flipped,
    "Busted": _ev_busted,
    "NumbersTaken": _ev_numbers_taken,
    "CurrencyTaken": _ev_currency_taken,
    "TurnEnded": _ev_turn_ended,
    "FinalBuyRoundBegan": _ev_final_round,
    "BidPlaced": _ev_bid,
    "BidPassed": _ev_bid_passed,
    "JokerDiscarded": _ev_joker_discarded,
    "AuctionWon": _ev_auction_won,
    "JokerTaken": _ev_auction_won,
    "CardBought": _ev_card_bought,
    "TokensPaid": _ev_tokens_paid,
    "ConsolationPaid": _ev_consolation_paid,
    "CardPaid": _ev_card_paid,
    "BuyPassed": _ev_buy_passed,
    "GameEnded": _ev_game_ended,
}

GAME_CLASS = DixGame
