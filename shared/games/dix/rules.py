"""DIX — push-your-luck for 1 to 5 players (Molly Johnson, AEG 2021): the
decider.

The rules as implemented are documented, with the rulings and the choices
of ours where the rules are silent, in ``docs/games/dix.md``; the section
names below are that page's.

Setup ("Cards and codes", "Setup").  The deck for the player count (see
:mod:`shared.games.dix.cards`: 128 cards, fewer at 3 players and fewer
again at 2 players and solo) is shuffled face down; its order is the only
secret of the game.  Everyone starts with 5 currency tokens; the market is
empty.  The first player is drawn at random (ours), play goes to the left
(increasing seat number).

A turn ("A turn").  The active player flips the top card of the deck into
their tableau, one card at a time, and after each card flips again or
stops.  The tableau total is its Number cards minus its Currency cards.
The player busts when a flipped card brings the total to 11 or more, or
the Currency cards alone to 11 or more.  Stopping is either taking the
Number cards into the collection (every other player then receives tokens
worth the tableau's currency, and the player may buy one card of the
market), or taking tokens worth the currency (the Number cards go to the
market, or the discard pile by option).  The Currency cards are discarded
either way.  On a bust the Number cards go to the market, the player takes
one consolation token, and only a bust by the total pays the others the
currency's worth; the turn ends with no buy.

Jokers ("Auctions").  A flipped joker is auctioned at once: from the
active player's left each player bids more than the highest bid or
passes, the active player last; the highest bidder pays and takes it, or
it is discarded when everybody passed.  Solo: the player may take it at a
fixed price or discard it.  Then the turn goes on.

Paying ("Paying", "Money and the cap").  A price (a bid, a market card,
the solo joker) is paid in steps (``pay_tokens``, ``pay_consolation``,
``pay_card``) until covered: tokens count 1, a consolation token its value
(spent whole, no change: only it can overshoot), a Number card of the
collection 1.  A bid or a buy must be affordable with all of these.
Currency tokens held are capped; what exceeds the cap stays in the bank.

The market ("The market").  At most one card a turn, after taking the
Number cards, at a price equal to its number, never a number the buyer
already owns in that colour.

End and scoring ("End of the game", "Scoring").  Once the last card is
flipped the active player finishes the turn without flipping; then every
player from the active player's left, the active player last, has one
last buy.  Per colour the longest run of consecutive numbers scores a
point a card, plus a bonus for a full 1–9 run, jokers placed for the best
total (:mod:`shared.games.dix.scoring`).  Ties: more money, then fewer
cards.  Solo: a win at a target score (option).

This module: the rule constants and refusal codes, :class:`Options`,
:func:`start`, one ``_decide_<type>`` and one ``_legal_<type>`` handler per
action type gathered in :data:`ACTIONS`, :func:`decide`,
:func:`legal_actions`, and :class:`DixGame`, which binds them to the state
(:mod:`shared.games.dix.state`), the views (:mod:`shared.games.dix.views`)
and the result (:mod:`shared.games.dix.scoring`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from shared.engine import (
    BAD_ACTION,
    GAME_OVER,
    NOT_YOUR_TURN,
    ActionRule,
    BaseGame,
    IllegalAction,
    dispatch,
    listers,
    listing,
)
from shared.events import Event
from shared.games.dix import scoring, views
from shared.games.dix import state as st
from shared.games.dix.cards import KIND, NUMBER, VALUE, Kind, deck_for, removed_cards

# Snapshots taken before the state moved to state.py name its classes
# under this module (shared.snapshot stores class paths): keep them here.
from shared.games.dix.state import After, Phase, State, awaiting, owns_number, received, wealth
from shared.games.dix.state import Auction as Auction
from shared.games.dix.state import Debt as Debt
from shared.games.dix.state import Rules as Rules
from shared.games.dix.state import Seat as Seat
from shared.games.dix.summary import SUMMARY

# --------------------------------------------------------------------------
# Constants and refusal codes (stable; API clients switch on them).

MIN_PLAYERS = 1
MAX_PLAYERS = 5
BUST_AT = 11  # a total or a currency sum of 11 or more busts ("A turn")

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


# --------------------------------------------------------------------------
# Options (pydantic: the edge only; the state holds a plain Rules copy).


class Options(BaseModel):
    """Table options for DIX; every default is the source's rule or a ruling
    (docs/games/dix.md, "Options")."""

    model_config = ConfigDict(extra="forbid")

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
# start


def start(options: BaseModel, players: int, rng: random.Random) -> list[Event]:
    """Shuffle the deck for ``players`` and choose the first player
    (docs/games/dix.md, "Setup").

    Returns ``[GameStarted]`` whose data holds the options, the player
    count, the first seat, the removed cards and the shuffled deck in
    draw order (``deck``; redacted to ``talon_size`` for every seat).
    Raises ``ValueError`` for a player count outside 1..5.
    """
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
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


# --------------------------------------------------------------------------
# Helpers of the handlers.  None of them mutates the state.


def _wrong_phase(what: str) -> IllegalAction:
    return IllegalAction(WRONG_PHASE, f"you cannot {what} now")


def _int_field(action: Mapping[str, Any], key: str) -> int:
    v = action.get(key)
    if type(v) is not int:
        raise IllegalAction(BAD_ACTION, f"'{key}' must be an integer")
    return v


def _card_field(action: Mapping[str, Any]) -> str:
    v = action.get("card")
    if type(v) is not str or v not in KIND:
        raise IllegalAction(BAD_ACTION, "'card' must be a DIX card code such as 'R7'")
    return v


def _close_turn(state: State, deck_left: int) -> Event:
    """The event that ends the active player's turn: the next turn, or the
    last buy round when the deck is empty ("End of the game")."""
    n = state.players
    if deck_left == 0:
        order = [(state.active + 1 + i) % n for i in range(n)]
        return Event("FinalBuyRoundBegan", {"order": order})
    return Event("TurnEnded", {"next": (state.active + 1) % n})


def _others_paid(state: State, seat: int, amount: int) -> list[int]:
    """Tokens each other seat receives from the bank (cap applied); solo: none."""
    cap = state.rules.token_cap
    return [0 if i == seat else received(s, amount, cap) for i, s in enumerate(state.seats)]


def _split_tableau(state: State) -> tuple[list[str], list[str]]:
    """The tableau's Number cards and Currency cards."""
    numbers = [c for c in state.tableau if KIND[c] is Kind.NUMBER]
    coins = [c for c in state.tableau if KIND[c] is Kind.CURRENCY]
    return numbers, coins


def _check_stop(state: State) -> None:
    if state.phase is not Phase.TURN:
        raise _wrong_phase("stop")
    if not state.tableau and state.deck:
        raise IllegalAction(TABLEAU_EMPTY, "flip at least one card into your tableau before stopping")


def _end_auction(high: int, high_seat: int | None, joker: str) -> Event:
    if high_seat is None:
        return Event("JokerDiscarded", {"joker": joker})
    return Event("AuctionWon", {"joker": joker, "price": high}, high_seat)


def _check_paying(state: State) -> None:
    if state.phase is not Phase.PAYMENT:
        raise _wrong_phase("pay")


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


# --------------------------------------------------------------------------
# One decide and one legal handler per action type ("Actions").  The legal
# handlers are called by legal_actions only for the awaited seat and in
# the phases OPEN opens their type in.


def _decide_flip(state: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """Reveal the top card ("A turn"); a bust ends the turn, a joker opens
    the auction (in evolve)."""
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
        numbers, coins = _split_tableau(state)
        (numbers if kind is Kind.NUMBER else coins).append(card)
        paid = _others_paid(state, seat, currency) if cause == "total" else [0] * state.players
        events.append(Event("Busted", {"cause": cause, "market": numbers, "discard": coins, "paid": paid}, seat))
        events.append(_close_turn(state, len(state.deck) - 1))
    return events


def _legal_flip(state: State, seat: int) -> list[dict]:
    return [{"type": "flip"}] if state.deck else []


def _decide_take_numbers(state: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """Stop and take the Number cards; the others receive the currency's worth ("A turn")."""
    _check_stop(state)
    numbers, coins = _split_tableau(state)
    paid = _others_paid(state, seat, state.currency)
    return [Event("NumbersTaken", {"cards": numbers, "discard": coins, "paid": paid}, seat)]


def _legal_take_numbers(state: State, seat: int) -> list[dict]:
    return [{"type": "take_numbers"}] if state.tableau or not state.deck else []


def _decide_take_currency(state: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """Stop and take tokens worth the currency (cap applied); the turn ends ("A turn")."""
    _check_stop(state)
    numbers, coins = _split_tableau(state)
    me = state.seats[seat]
    got = received(me, state.currency, state.rules.token_cap)
    to = state.rules.numbers_on_currency
    return [
        Event(
            "CurrencyTaken",
            {"value": state.currency, "tokens": got, "numbers": numbers, "numbers_to": to, "discard": coins},
            seat,
        ),
        _close_turn(state, len(state.deck)),
    ]


def _legal_take_currency(state: State, seat: int) -> list[dict]:
    return [{"type": "take_currency"}] if state.tableau or not state.deck else []


def _decide_bid(state: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """Outbid the highest bid ("Auctions"); the last speaker's bid ends the auction."""
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
    events = [Event("BidMade", {"amount": amount}, seat)]
    if a.pos == len(a.order) - 1:
        events.append(_end_auction(amount, seat, a.joker))
    return events


def _legal_bid(state: State, seat: int) -> list[dict]:
    a = state.auction
    assert a is not None  # open through the AUCTION phase
    rules = state.rules
    low = max(a.high + 1, rules.min_bid)
    return [{"type": "bid", "amount": n} for n in range(low, wealth(state.seats[seat], rules) + 1)]


def _decide_pass(state: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """Pass in an auction ("Auctions"), decline the solo joker, or decline
    a buy ("The market", "End of the game")."""
    phase = state.phase
    if phase is Phase.AUCTION:
        a = state.auction
        assert a is not None  # open through the AUCTION phase
        events = [Event("BidPassed", {}, seat)]
        if a.pos == len(a.order) - 1:
            events.append(_end_auction(a.high, a.high_seat, a.joker))
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


def _legal_pass(state: State, seat: int) -> list[dict]:
    return [{"type": "pass"}]


def _decide_take_joker(state: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """Solo: keep the flipped joker at its price ("Auctions")."""
    if state.phase is not Phase.JOKER_OFFER:
        raise _wrong_phase("take a joker")
    price = state.rules.solo_joker_price
    if wealth(state.seats[seat], state.rules) < price:
        raise IllegalAction(CANNOT_AFFORD, f"you cannot pay {price}")
    a = state.auction
    assert a is not None  # the solo offer is an auction of one
    return [Event("JokerTaken", {"joker": a.joker, "price": price}, seat)]


def _legal_take_joker(state: State, seat: int) -> list[dict]:
    rules = state.rules
    return [{"type": "take_joker"}] if wealth(state.seats[seat], rules) >= rules.solo_joker_price else []


def _decide_buy(state: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """Buy one market card at its number ("The market")."""
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


def _legal_buy(state: State, seat: int) -> list[dict]:
    me = state.seats[seat]
    w = wealth(me, state.rules)
    out: list[dict] = []
    seen = set()
    for card in state.market:
        if card in seen:
            continue
        seen.add(card)
        if card not in me.collection and NUMBER[card] <= w:
            out.append({"type": "buy", "card": card})
    return out


def _decide_pay_tokens(state: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """Pay ``count`` currency tokens, never more than owed ("Paying")."""
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


def _legal_pay_tokens(state: State, seat: int) -> list[dict]:
    d = state.debt
    assert d is not None  # owed through the PAYMENT phase
    return [{"type": "pay_tokens", "count": k} for k in range(1, min(d.owed, state.seats[seat].tokens) + 1)]


def _decide_pay_consolation(state: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """Pay one consolation token, spent whole ("Paying")."""
    _check_paying(state)
    if state.seats[seat].consolation < 1:
        raise IllegalAction(CANNOT_AFFORD, "you have no consolation token")
    return [Event("ConsolationPaid", {}, seat), *_settled(state, state.rules.consolation_value)]


def _legal_pay_consolation(state: State, seat: int) -> list[dict]:
    return [{"type": "pay_consolation"}] if state.seats[seat].consolation else []


def _decide_pay_card(state: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """Pay 1 with a Number card of the collection ("Paying")."""
    _check_paying(state)
    card = _card_field(action)
    if card not in state.seats[seat].collection:
        raise IllegalAction(CARD_NOT_IN_COLLECTION, "that card is not in your collection")
    if KIND[card] is not Kind.NUMBER:
        raise IllegalAction(NOT_A_NUMBER_CARD, "only Number cards may pay, not jokers")
    return [Event("CardPaid", {"card": card}, seat), *_settled(state, 1)]


def _legal_pay_card(state: State, seat: int) -> list[dict]:
    out: list[dict] = []
    seen = set()
    for card in state.seats[seat].collection:
        if card not in seen and KIND[card] is Kind.NUMBER:
            seen.add(card)
            out.append({"type": "pay_card", "card": card})
    return out


#: Action type -> its decide and legal handlers (the order of the keys is
#: the order ``bad_action`` messages list them in).
ACTIONS: dict[str, ActionRule] = {
    "flip": ActionRule(_decide_flip, _legal_flip),
    "take_numbers": ActionRule(_decide_take_numbers, _legal_take_numbers),
    "take_currency": ActionRule(_decide_take_currency, _legal_take_currency),
    "bid": ActionRule(_decide_bid, _legal_bid, {"amount": int}),
    "pass": ActionRule(_decide_pass, _legal_pass),
    "take_joker": ActionRule(_decide_take_joker, _legal_take_joker),
    "buy": ActionRule(_decide_buy, _legal_buy, {"card": str}),
    "pay_tokens": ActionRule(_decide_pay_tokens, _legal_pay_tokens, {"count": int}),
    "pay_consolation": ActionRule(_decide_pay_consolation, _legal_pay_consolation),
    "pay_card": ActionRule(_decide_pay_card, _legal_pay_card, {"card": str}),
}

#: Every action type.
ACTION_TYPES = tuple(ACTIONS)

#: The action types open in each phase, in the order legal_actions lists them.
OPEN: dict[Phase, tuple[str, ...]] = {
    Phase.TURN: ("flip", "take_numbers", "take_currency"),
    Phase.AUCTION: ("pass", "bid"),
    Phase.JOKER_OFFER: ("pass", "take_joker"),
    Phase.BUY: ("pass", "buy"),
    Phase.FINAL_BUY: ("pass", "buy"),
    Phase.PAYMENT: ("pay_tokens", "pay_consolation", "pay_card"),
    Phase.OVER: (),
}
#: Their ``legal`` handlers, per phase (what legal_actions walks).
LISTERS = listers(ACTIONS, OPEN)


def decide(state: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """Validate ``action`` of ``seat`` and return the resulting events.

    Never mutates ``state``; draws no randomness (the deck order was fixed
    at start).  Raises :class:`IllegalAction` with ``game_over``,
    ``not_your_turn``, ``bad_action``, ``wrong_phase`` or the rule's own
    code (docs/games/dix.md, "Refusal codes").
    """
    if state.phase is Phase.OVER:
        raise IllegalAction(GAME_OVER, "the game is over")
    if seat not in awaiting(state):
        raise IllegalAction(NOT_YOUR_TURN, "it is not your turn")
    return dispatch(ACTIONS, state, seat, action, rng)


def legal_actions(state: State, seat: int) -> list[dict]:
    """Every action ``seat`` may send now, in the shape ``decide`` accepts
    (docs/games/dix.md, "Actions"); empty when ``seat`` is not awaited."""
    if seat not in awaiting(state):
        return []
    return listing(LISTERS[state.phase], state, seat)


# --------------------------------------------------------------------------
# The game.


class DixGame(BaseGame):
    """DIX as a decider (docs/architecture.md, "The game contract"): the
    decider of this module, the state's ``evolve`` and queries, the views
    and the result.  See the module docstring for the rules.

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
    summary = SUMMARY
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    Options = Options
    actions = ACTIONS

    start = staticmethod(start)
    decide = staticmethod(decide)
    legal_actions = staticmethod(legal_actions)
    evolve = staticmethod(st.evolve)
    awaiting = staticmethod(st.awaiting)
    is_over = staticmethod(st.is_over)
    view = staticmethod(views.view)
    redact = staticmethod(views.redact)
    result = staticmethod(scoring.result)
