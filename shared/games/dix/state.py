"""DIX state: what a table holds, the queries on it, and ``evolve``.

* the state dataclasses (:class:`State`, :class:`Seat`, :class:`Auction`,
  :class:`Debt`), the plain :class:`Rules` copy of the table options and
  the enums :class:`Phase` and :class:`After`;
* the queries that the decider (:mod:`shared.games.dix.rules`), the views
  (:mod:`shared.games.dix.views`) and the scoring
  (:mod:`shared.games.dix.scoring`) share: :func:`awaiting`,
  :func:`is_over`, :func:`wealth`, :func:`money`, :func:`owns_number`,
  :func:`can_buy`, :func:`received`;
* :func:`evolve` and its one handler per event type (``_on_<event>``),
  gathered in :data:`EVENTS`.  The events are listed in
  ``docs/games/dix.md``, "Events".

Plain slotted dataclasses: the hot path (``evolve`` mutates and returns
the state it is given).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from shared.engine import FastEnum
from shared.events import Event
from shared.games.dix.cards import ALL_CODES, KIND, NUMBER, VALUE, Kind

# --------------------------------------------------------------------------
# State (plain slotted dataclasses: the hot path).


class Phase(FastEnum):
    """Who is awaited for what."""

    TURN = "turn"  # active player: flip, or stop (take_numbers / take_currency)
    AUCTION = "auction"  # the current bidder: bid or pass
    JOKER_OFFER = "joker_offer"  # solo: take_joker or pass
    PAYMENT = "payment"  # the debtor: pay_* until the price is covered
    BUY = "buy"  # active player after taking Number cards: buy or pass
    FINAL_BUY = "final_buy"  # the last buy round: buy or pass, one seat at a time
    OVER = "over"


class After(FastEnum):
    """Where play goes once a payment is complete."""

    TURN = "turn"  # a joker: the active player's turn goes on
    CLOSE = "close"  # a turn's buy: the turn ends (next event closes it)
    FINAL = "final"  # a last-round buy: the next seat's last buy


@dataclass(slots=True)
class Rules:
    """The option values the engine reads (a plain copy of
    :class:`shared.games.dix.rules.Options`)."""

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
    """The whole truth of one DIX table.  ``deck[-1]`` is the next card;
    ``active`` the seat whose turn it is (the view's ``turn``), ``turns``
    the turn counter (the view's ``turns``)."""

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
# Queries.


def awaiting(state: State) -> frozenset[int]:
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


def is_over(state: State) -> bool:
    """True once the game is over (``GameEnded`` folded)."""
    return state.phase is Phase.OVER


def wealth(seat: Seat, rules: Rules) -> int:
    """Everything a player could pay with: tokens, consolation tokens and
    one per Number card in the collection (docs/games/dix.md, "Paying")."""
    cards = 0
    for code in seat.collection:
        if KIND[code] is Kind.NUMBER:
            cards += 1
    return seat.tokens + rules.consolation_value * seat.consolation + cards


def money(seat: Seat, rules: Rules) -> int:
    """Money for the tie-break: tokens plus consolation tokens at their
    value, not cards (docs/games/dix.md, "Scoring")."""
    return seat.tokens + rules.consolation_value * seat.consolation


def owns_number(seat: Seat, card: str) -> bool:
    """True when the collection already holds a Number card of that colour and number."""
    return card in seat.collection


def can_buy(state: State, seat: int, card: str) -> bool:
    """True when ``seat`` may buy ``card`` from the market now (ignoring phase)."""
    s = state.seats[seat]
    return card in state.market and not owns_number(s, card) and wealth(s, state.rules) >= NUMBER[card]


def received(seat: Seat, amount: int, cap: int) -> int:
    """Tokens a seat actually receives of ``amount`` under the cap
    (docs/games/dix.md, "Money and the cap")."""
    room = cap - seat.tokens
    return amount if amount <= room else max(room, 0)


_SORT = {c: i for i, c in enumerate(ALL_CODES)}


# --------------------------------------------------------------------------
# evolve: one handler per event type, (state, event) -> state.  Pure (no
# randomness, no clock); they may mutate the state they are given.


def evolve(state: State | None, event: Event) -> State:
    """Apply one event; returns the state (``None`` only before
    ``GameStarted``).  Raises ``KeyError`` for an event type DIX does not
    have."""
    return EVENTS[event.type](state, event)


def _on_game_started(state: State | None, e: Event) -> State:
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


def _on_card_flipped(state: State, e: Event) -> State:
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


def _on_busted(state: State, e: Event) -> State:
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


def _on_numbers_taken(state: State, e: Event) -> State:
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


def _on_currency_taken(state: State, e: Event) -> State:
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


def _on_turn_ended(state: State, e: Event) -> State:
    state.active = e.data["next"]
    state.phase = Phase.TURN
    state.turns += 1
    return state


def _on_final_buy_round_began(state: State, e: Event) -> State:
    state.final_order = tuple(e.data["order"])
    state.final_pos = 0
    state.phase = Phase.FINAL_BUY
    return state


def _on_bid_made(state: State, e: Event) -> State:
    a = state.auction
    assert a is not None  # open through the AUCTION phase
    a.high = e.data["amount"]
    a.high_seat = e.seat
    a.bids.append(a.high)
    a.pos += 1
    return state


def _on_bid_passed(state: State, e: Event) -> State:
    a = state.auction
    assert a is not None  # open through the AUCTION phase
    a.bids.append(None)
    a.pos += 1
    return state


def _on_joker_discarded(state: State, e: Event) -> State:
    a = state.auction
    assert a is not None  # the auction (or solo offer) it ends
    state.discard.append(a.joker)
    state.auction = None
    state.phase = Phase.TURN
    return state


def _on_auction_won(state: State, e: Event) -> State:
    seat = e.seat
    a = state.auction
    assert seat is not None and a is not None  # the winner, and the auction (or solo offer) it ends
    state.debt = Debt(seat, e.data["price"], a.joker, After.TURN)
    state.auction = None
    state.phase = Phase.PAYMENT
    return state


def _on_joker_taken(state: State, e: Event) -> State:
    """Solo: the flipped joker kept at its price, paid as an auction won."""
    return _on_auction_won(state, e)


def _on_card_bought(state: State, e: Event) -> State:
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


def _on_tokens_paid(state: State, e: Event) -> State:
    count = e.data["count"]
    seat = e.seat
    assert seat is not None  # the payer
    state.seats[seat].tokens -= count
    state.bank += count
    return _paid(state, count)


def _on_consolation_paid(state: State, e: Event) -> State:
    seat = e.seat
    assert seat is not None  # the payer
    state.seats[seat].consolation -= 1
    state.consolation_spent += 1
    return _paid(state, state.rules.consolation_value)


def _on_card_paid(state: State, e: Event) -> State:
    card = e.data["card"]
    seat = e.seat
    assert seat is not None  # the payer
    state.seats[seat].collection.remove(card)
    state.discard.append(card)
    return _paid(state, 1)


def _on_buy_passed(state: State, e: Event) -> State:
    if state.phase is Phase.FINAL_BUY:
        state.final_pos += 1
    return state


def _on_game_ended(state: State, e: Event) -> State:
    state.phase = Phase.OVER
    state.final_pos = len(state.final_order)
    return state


#: Event type -> its evolve handler (the state is None only for ``GameStarted``).
EVENTS: dict[str, Callable[[Any, Event], State]] = {
    "GameStarted": _on_game_started,
    "CardFlipped": _on_card_flipped,
    "Busted": _on_busted,
    "NumbersTaken": _on_numbers_taken,
    "CurrencyTaken": _on_currency_taken,
    "TurnEnded": _on_turn_ended,
    "FinalBuyRoundBegan": _on_final_buy_round_began,
    "BidMade": _on_bid_made,
    "BidPassed": _on_bid_passed,
    "JokerDiscarded": _on_joker_discarded,
    "AuctionWon": _on_auction_won,
    "JokerTaken": _on_joker_taken,
    "CardBought": _on_card_bought,
    "TokensPaid": _on_tokens_paid,
    "ConsolationPaid": _on_consolation_paid,
    "CardPaid": _on_card_paid,
    "BuyPassed": _on_buy_passed,
    "GameEnded": _on_game_ended,
}
