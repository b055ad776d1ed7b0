"""Maudix: seven trick-taking contracts for 3 to 12 players, lowest total wins.

The rules as implemented, with the rulings and our choices where the
publisher's rules are silent, are in ``docs/games/maudix.md``; the section
marks below (§02, §04.02...) are the ones that page uses for the numbered
parts of the publisher's rules.  In short:

Cards and deal (§02).  One deck of 52 cards plus two jokers, the Pirate and
the Naufragé (``"PIRATE"``, ``"NAUFRAGE"``), for 3–6 players; two such decks
(every code twice) for 7–12.  Ranks run 2 < ... < 10 < J < Q < K < A.  Each
player gets ``floor(total / n)`` cards; the surplus is set aside at random,
face down, and never shown.  A fresh deal every round; the first dealer is
drawn at random and the deal passes to the next seat each round.

Round sequence (§03, §04).  Seven rounds, one per contract, in a fixed
order: Les Plis, Les Dames, Les Têtes, L'Association, La Chasse, La
Prédiction, Maudix.  Each round: deal, écart, (round 4: designations; round
6: bids), trick play, scoring.

Écart (§04.02).  Every player sends 3 cards and names a recipient in one
action, counted in arrival order; a recipient is an opponent nobody has
chosen yet, and no choice may leave the last sender only themselves to give
to.  The cards move once everybody has sent.  Who gives to whom is public;
the cards are seen by giver and receiver only.

Designations (§09.04) and bids (§09.06).  In L'Association every player
secretly designates an opponent; all are revealed together once all are
in.  In La Prédiction each player, in turn from the opening leader, bids
the exact number of tricks they will win; with the hook, the last bidder
may not make the bids add up to the number of tricks.

Trick play (§04.03, §05, §07).  Left of the dealer leads first, a trick's
winner leads the next.  The first non-joker card sets the led suit; a
player holding that suit plays it or a joker, otherwise anything.  Spades
are trumps (never forced).  The last Pirate wins the trick, else the highest
spade, else the highest card of the led suit; a Naufragé never wins;
between identical cards the first played wins.

The Voleur (§08).  A trick won by a Jack (not the round's last) lets its
winner name an opponent, a suit the thief holds and "low" or "high": the
target hands over that card of the suit, the thief hands back one card of
the suit.  A target void in the suit says so publicly.  The thief may
decline.  The table sees who, which suit, which end, never the cards.

Scoring (§06, §09) is in :mod:`shared.games.maudix.scoring`: penalty points
per contract, the lowest total after the last round wins.

This module: constants and refusal codes, :class:`Options`, the deal and
trick helpers, :func:`start`, one ``_decide_<type>`` and one
``_legal_<type>`` per action type gathered in :data:`ACTIONS`, then
:func:`decide`, :func:`legal_actions` and the game class :class:`Maudix`
binding them to ``state`` (evolve, awaiting), ``views`` (view, redact) and
``scoring`` (result).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from itertools import combinations
from math import comb
from typing import Any, Literal, overload

from pydantic import BaseModel, ConfigDict, Field

from shared.cards import SUITS, shoe
from shared.engine import (
    BAD_ACTION,
    GAME_OVER,
    NOT_YOUR_TURN,
    ActionRule,
    BaseGame,
    IllegalAction,
    Strategy,
    card_schema,
    listers,
    listing,
    places_from,
)
from shared.events import Event
from shared.games.maudix.scoring import result, round_points
from shared.games.maudix.state import (
    BID,
    CARD_ORDER,
    CARD_RANK,
    CARD_SUIT,
    CONTRACT_ORDER,
    ECART,
    JOKERS,
    MAUDIX_CONTRACT,
    OVER,
    PIRATE,
    PLAY,
    Phase,
    State,
    awaiting,
    count_in,
    evolve,
    is_over,
)
from shared.games.maudix.summary import SUMMARY
from shared.games.maudix.views import redact, view

# ---------------------------------------------------------------------------
# Constants and refusal codes
# ---------------------------------------------------------------------------

MIN_PLAYERS, MAX_PLAYERS = 3, 12
ECART_SIZE = 3
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
ContractName = Literal["plis", "dames", "tetes", "association", "chasse", "prediction", "maudix"]

# Refusal codes (besides not_your_turn, game_over, bad_action).
WRONG_PHASE = "wrong_phase"
WRONG_CARD_COUNT = "wrong_card_count"
CARD_NOT_IN_HAND = "card_not_in_hand"
DUPLICATE_CARD = "duplicate_card"
RECIPIENT_SELF = "recipient_self"
RECIPIENT_TAKEN = "recipient_taken"
RECIPIENT_STRANDS = "recipient_strands"
NOT_AN_OPPONENT = "not_an_opponent"
BID_OUT_OF_RANGE = "bid_out_of_range"
HOOK_BID = "hook_bid"
MUST_FOLLOW_SUIT = "must_follow_suit"
SUIT_NOT_HELD = "suit_not_held"
WRONG_SUIT = "wrong_suit"
CANNOT_RETURN_STOLEN = "cannot_return_stolen"


class Options(BaseModel):
    """Table options of Maudix (docs/games/maudix.md, "Options"; defaults follow the rules and rulings)."""

    model_config = ConfigDict(extra="forbid")

    contracts: list[ContractName] = Field(
        default_factory=lambda: [c.value for c in CONTRACT_ORDER],
        min_length=1,
        description="Contracts played, one round each, in this order (default: the seven of §03, in order).",
    )
    voleur: bool = Field(True, description="The Voleur power (§08): a trick won by a Jack lets its winner steal.")
    hook: bool = Field(
        True,
        description="The hook of La Prédiction (§09.06): the last bid may not make the bids add up to the tricks.",
    )
    return_stolen: bool = Field(
        True,
        description="The thief may hand back the very card just stolen "
        "(§08 says 'a card of that suit, of your choice').",
    )
    points_per_trick: int | None = Field(
        None,
        ge=1,
        le=50,
        description="Les Plis: points per trick; None uses the table by player count (3:3, 4:5, 6:8...).",
    )
    first_dealer: int | None = Field(
        None, ge=0, le=11, description="Seat of the first dealer; None draws it at random."
    )


# ---------------------------------------------------------------------------
# The deal and the tricks (pure helpers)
# ---------------------------------------------------------------------------


def deck_for(players: int) -> list[str]:
    """The unshuffled cards for ``players``: one 54-card deck up to 6, two from 7 (§02)."""
    return list(_DECKS[players > 6])


#: The unshuffled one-deck and two-deck shoes (built once: a round deals from a copy).
_DECKS: tuple[tuple[str, ...], tuple[str, ...]] = (tuple(shoe(1, jokers=JOKERS)), tuple(shoe(2, jokers=JOKERS)))


def hand_size(players: int) -> int:
    """Cards per player: ``floor(deck / players)`` (rulings): 3:18, 4:13, 5:10, 6:9, 7:15 ... 12:9."""
    return len(deck_for(players)) // players


def sort_hand(cards: Sequence[str]) -> list[str]:
    """Cards sorted for display: spades, hearts, diamonds, clubs, low to high, jokers last."""
    return sorted(cards, key=CARD_ORDER.__getitem__)


def deal(players: int, rng: random.Random) -> tuple[list[list[str]], list[str]]:
    """Shuffle, remove the surplus at random, deal equal hands (§04.01).

    Returns ``(hands, removed)``: ``hands[seat]`` sorted, ``removed`` sorted.
    """
    cards = deck_for(players)
    rng.shuffle(cards)
    size = len(cards) // players
    removed = cards[size * players :]
    hands = [sort_hand(cards[i * size : (i + 1) * size]) for i in range(players)]
    return hands, sort_hand(removed)


def led_suit_of(trick: Sequence[tuple[int, str]]) -> str | None:
    """The led suit: that of the first non-joker card (rulings), or None."""
    for _, c in trick:
        s = CARD_SUIT[c]
        if s is not None:
            return s
    return None


def trick_winner(trick: Sequence[tuple[int, str]]) -> int:
    """Index in ``trick`` (a list of ``(seat, card)``) of the winning card (§05, §07).

    The last Pirate wins; else the highest spade; else the highest card of
    the led suit; a Naufragé never wins; between identical cards the first
    played wins.  Example: 10♣, K♣, 4♠, A♣ → index 2 (the 4♠).
    """
    led = led_suit_of(trick)
    best_i, best_key = 0, -1
    for i, (_, c) in enumerate(trick):
        # One number per card: a Pirate 300 + its place, a spade 200 + rank,
        # a card of the led suit 100 + rank, anything else (a Naufragé) 0.
        if c == PIRATE:
            key = 300 + i
        else:
            s = CARD_SUIT[c]
            if s == "S":
                key = 200 + CARD_RANK[c]
            elif s is not None and s == led:
                key = 100 + CARD_RANK[c]
            else:
                key = 0
        if key > best_key:
            best_i, best_key = i, key
    return best_i


def playable(hand: Sequence[str], led: str | None) -> list[str]:
    """Cards of ``hand`` that may be played on a trick whose led suit is ``led`` (§05 A).

    Following suit is compulsory when possible; jokers are always playable.
    """
    if led is None:
        return list(hand)
    follow = [c for c in hand if CARD_SUIT[c] == led]
    if not follow:
        return list(hand)
    return follow + [c for c in hand if c in JOKERS]


def ecart_recipients(n: int, ecart_to: Sequence[int | None], seat: int) -> list[int]:
    """Recipients ``seat`` may choose now (rulings: arrival order, feasibility rule).

    A recipient is an opponent not yet chosen, and after the choice the
    remaining givers can still be matched to the remaining recipients with
    nobody giving to themselves — which fails only when exactly one giver
    would be left with only themselves to give to.
    """
    taken = {t for t in ecart_to if t is not None}
    givers = [s for s in range(n) if ecart_to[s] is None and s != seat]
    out = []
    for r in range(n):
        if r == seat or r in taken:
            continue
        if len(givers) == 1 and givers[0] != r and givers[0] not in taken:
            # The last giver would have only themselves left.
            continue
        out.append(r)
    return out


def has_all(hand: Sequence[str], cards: Sequence[str]) -> bool:
    """True when ``cards`` (a multiset) is contained in ``hand``."""
    need: dict[str, int] = {}
    for c in cards:
        need[c] = need.get(c, 0) + 1
    return all(count_in(hand, c) >= k for c, k in need.items())


# ---------------------------------------------------------------------------
# start
# ---------------------------------------------------------------------------


def start(options: BaseModel, players: int, rng: random.Random) -> list[Event]:
    """Opening event ``GameStarted``: options (dumped whole), players, first
    dealer and the round-1 deal (``hands``, ``removed``).

    Raises ``ValueError`` for a player count outside 3..12 or a
    ``first_dealer`` that is not a seat.
    """
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"Maudix is played by 3 to 12 players, not {players}")
    opts = options if isinstance(options, Options) else Options.model_validate(options.model_dump())
    if opts.first_dealer is not None and opts.first_dealer >= players:
        raise ValueError("first_dealer must be a seat of the table")
    dealer = opts.first_dealer if opts.first_dealer is not None else rng.randrange(players)
    hands, removed = deal(players, rng)
    data = {
        "options": opts.model_dump(),
        "players": players,
        "round": 1,
        "contract": opts.contracts[0],
        "dealer": dealer,
        "hands": hands,
        "removed": removed,
    }
    return [Event("GameStarted", data)]


# ---------------------------------------------------------------------------
# One decide and one legal handler per action type
# ---------------------------------------------------------------------------


def _bad(message: str) -> IllegalAction:
    return IllegalAction(BAD_ACTION, message)


def _seat_field(action: Mapping[str, Any], key: str, n: int) -> int:
    v = action.get(key)
    if type(v) is not int or not 0 <= v < n:
        raise _bad(f"'{key}' must be a seat number 0..{n - 1}")
    return v


def _card_field(action: Mapping[str, Any], key: str = "card") -> str:
    v = action.get(key)
    if type(v) is not str or v not in CARD_SUIT:
        raise _bad(f"'{key}' must be a card code such as '10H' or 'PIRATE'")
    return v


def _decide_ecart(st: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """``{"type": "ecart", "cards": [c1, c2, c3], "to": seat}`` (§04.02): ``EcartMade``, and
    ``EcartsExchanged`` (rows ``[giver, receiver, cards]`` in arrival order) with the last one."""
    cards = action.get("cards")
    if not isinstance(cards, list) or not all(type(c) is str for c in cards):
        raise _bad("'cards' must be a list of card codes")
    if len(cards) != ECART_SIZE:
        raise IllegalAction(WRONG_CARD_COUNT, "an écart is exactly 3 cards")
    to = _seat_field(action, "to", st.n)
    if not has_all(st.hands[seat], cards):
        if all(c in st.hands[seat] for c in cards):  # each is held, one is named more often than held
            raise IllegalAction(DUPLICATE_CARD, "an écart names three different cards (a card twice only when you "
                                "hold two copies of it)")
        raise IllegalAction(CARD_NOT_IN_HAND, "every card of an écart must come from your hand")
    if to == seat:
        raise IllegalAction(RECIPIENT_SELF, "you give your écart to an opponent")
    if to in st.ecart_to:
        raise IllegalAction(RECIPIENT_TAKEN, "that player already receives another écart")
    if to not in ecart_recipients(st.n, st.ecart_to, seat):
        raise IllegalAction(RECIPIENT_STRANDS, "that choice would leave the last player only themselves to give to")
    events = [Event("EcartMade", {"to": to, "cards": list(cards)}, seat)]
    if sum(1 for t in st.ecart_to if t is None) == 1:
        passes: list[list[object]] = []
        for g in st.ecart_order:
            sent = st.ecart_cards[g]
            assert sent is not None  # every seat of ecart_order has sent its écart
            passes.append([g, st.ecart_to[g], list(sent)])
        passes.append([seat, to, list(cards)])
        events.append(Event("EcartsExchanged", {"passes": passes}))
    return events


class EcartActions(Sequence[dict]):
    """Every écart ``seat`` may send: each distinct 3-card combination of
    its hand (in the order of ``itertools.combinations``) with each allowed
    recipient, combination by combination, as ``[{"type": "ecart",
    "cards": [...], "to": r}, ...]``.

    A sequence that builds an action when it is read: a 13-card hand has
    286 combinations, up to 858 actions with three recipients, and a random
    playout reads one of them (``rng.choice``).  Reading every item gives
    the list the listing would be; equal to that list.  A hand without a
    card held twice (one deck, up to 6 players) is not even enumerated: the
    i-th combination is computed (:func:`nth_combination`)."""

    __slots__ = ("_hand", "_combos", "_count", "_recips")

    def __init__(self, hand: Sequence[str], recipients: list[int]) -> None:
        self._hand = tuple(hand)
        self._recips = recipients
        if len(set(hand)) == len(hand):
            self._combos: list[tuple[str, ...]] | None = None
            self._count = comb(len(hand), ECART_SIZE)
        else:  # two decks: the same three cards may come twice
            self._combos = list(dict.fromkeys(combinations(hand, ECART_SIZE)))
            self._count = len(self._combos)

    def __len__(self) -> int:
        return self._count * len(self._recips)

    @overload
    def __getitem__(self, i: int) -> dict: ...

    @overload
    def __getitem__(self, i: slice) -> list[dict]: ...

    def __getitem__(self, i: int | slice) -> dict | list[dict]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        size = len(self)
        if i < 0:
            i += size
        if not 0 <= i < size:
            raise IndexError("écart index out of range")
        k, r = divmod(i, len(self._recips))
        cards = self._combos[k] if self._combos is not None else nth_combination(self._hand, ECART_SIZE, k)
        return {"type": "ecart", "cards": list(cards), "to": self._recips[r]}

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, EcartActions)):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # like a list

    def __repr__(self) -> str:
        return f"EcartActions({list(self)!r})"


def nth_combination(items: Sequence[str], size: int, index: int) -> tuple[str, ...]:
    """The ``index``-th ``size``-combination of ``items`` in the order of
    ``itertools.combinations`` (``list(combinations(items, size))[index]``,
    without listing them): walk the items, skipping each block of
    combinations that starts with an item not chosen."""
    out: list[str] = []
    left = len(items)
    for item in items:
        if size == 0:
            break
        left -= 1
        starting_here = comb(left, size - 1)  # combinations that take this item next
        if index < starting_here:
            out.append(item)
            size -= 1
        else:
            index -= starting_here
    return tuple(out)


def _legal_ecart(st: State, seat: int) -> list[dict]:
    return list(ecart_actions(st, seat))


def ecart_actions(st: State, seat: int) -> EcartActions:
    """The écarts of ``seat``, read on demand (what ``legal_actions`` returns in the écart phase)."""
    return EcartActions(st.hands[seat], ecart_recipients(st.n, st.ecart_to, seat))


def _decide_designate(st: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """``{"type": "designate", "target": seat}`` (§09.04): ``DesignationMade``, and
    ``DesignationsRevealed`` with the last one."""
    target = _seat_field(action, "target", st.n)
    if target == seat:
        raise IllegalAction(NOT_AN_OPPONENT, "you designate an opponent, not yourself")
    events = [Event("DesignationMade", {"target": target}, seat)]
    if sum(1 for t in st.designations if t is None) == 1:
        targets = list(st.designations)
        targets[seat] = target
        events.append(Event("DesignationsRevealed", {"targets": targets}))
    return events


def _legal_designate(st: State, seat: int) -> list[dict]:
    return [{"type": "designate", "target": t} for t in range(st.n) if t != seat]


def _decide_bid(st: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """``{"type": "bid", "tricks": k}`` (§09.06, the hook): ``BidMade``."""
    k = action.get("tricks")
    if type(k) is not int:
        raise _bad("'tricks' must be a whole number")
    if not 0 <= k <= st.tricks_total:
        raise IllegalAction(BID_OUT_OF_RANGE, f"a bid is between 0 and {st.tricks_total} tricks")
    last = sum(1 for b in st.bids if b is None) == 1
    if st.hook and last and sum(b for b in st.bids if b is not None) + k == st.tricks_total:
        raise IllegalAction(HOOK_BID, f"the last bid may not make the bids add up to {st.tricks_total} (the hook)")
    return [Event("BidMade", {"tricks": k}, seat)]


def _legal_bid(st: State, seat: int) -> list[dict]:
    out = []
    last = sum(1 for b in st.bids if b is None) == 1
    others = sum(b for b in st.bids if b is not None)
    for k in range(st.tricks_total + 1):
        if st.hook and last and others + k == st.tricks_total:
            continue
        out.append({"type": "bid", "tricks": k})
    return out


def _decide_play(st: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """``{"type": "play", "card": c}`` (§05): ``CardPlayed``; ``TrickWon`` with the trick's
    last card; after the round's last trick ``RoundScored``, then ``RoundDealt``
    (a fresh deal, drawn from ``rng``) or ``GameEnded``."""
    card = _card_field(action)
    hand = st.hands[seat]
    if card not in hand:
        raise IllegalAction(CARD_NOT_IN_HAND, "that card is not in your hand")
    led = st.led
    if led is not None and card not in JOKERS and CARD_SUIT[card] != led:
        for c in hand:
            if CARD_SUIT[c] == led:
                raise IllegalAction(MUST_FOLLOW_SUIT, f"you must follow {SUIT_NAMES[led]} (or play a joker)")
    events = [Event("CardPlayed", {"card": card}, seat)]
    if len(st.trick) + 1 < st.n:
        return events
    trick = st.trick + [(seat, card)]
    wi = trick_winner(trick)
    winner, wcard = trick[wi]
    events.append(Event("TrickWon", {"winner": winner, "card": wcard, "trick": st.trick_no + 1}))
    if st.trick_no + 1 < st.tricks_total:
        return events
    # Last trick: score the round, then deal the next or end the game.
    events.extend(_round_end(st, winner, trick, rng))
    return events


def _round_end(st: State, winner: int, trick: list[tuple[int, str]], rng: random.Random) -> list[Event]:
    """``RoundScored`` once ``winner`` takes the round's last ``trick``, then
    ``RoundDealt`` or ``GameEnded``."""
    captured = list(st.captured)
    captured[winner] = captured[winner] + [c for _, c in trick]
    tricks = list(st.tricks_won)
    tricks[winner] += 1
    contamination = list(st.contamination)
    if st.contract is MAUDIX_CONTRACT:
        contamination[winner] += 5 * st.pending_tens
    pts = round_points(
        st.contract,
        captured,
        tricks,
        per_trick=st.per_trick,
        bids=st.bids,
        designations=st.designations,
        contamination=contamination,
    )
    totals = [t + p for t, p in zip(st.totals, pts, strict=True)]
    scored = {"round": st.round + 1, "contract": st.contract.value, "points": pts, "totals": totals, "tricks": tricks}
    events = [Event("RoundScored", scored)]
    if st.round + 1 < len(st.contracts):
        hands, removed = deal(st.n, rng)
        nxt = st.round + 1
        dealt = {
            "round": nxt + 1,
            "contract": st.contracts[nxt].value,
            "dealer": (st.dealer + 1) % st.n,
            "hands": hands,
            "removed": removed,
        }
        events.append(Event("RoundDealt", dealt))
    else:
        places = places_from(totals, lower_wins=True)
        events.append(Event("GameEnded", {"totals": totals, "places": list(places)}))
    return events


def _legal_play(st: State, seat: int) -> list[dict]:
    cards = playable(st.hands[seat], st.led)
    if st.n > 6 and len(cards) > 1:  # two decks from 7 players: a card may be held twice
        cards = list(dict.fromkeys(cards))
    return [{"type": "play", "card": c} for c in cards]


def _decide_steal(st: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """``{"type": "steal", "target": seat, "suit": "S|H|D|C", "end": "low|high"}`` (§08):
    ``TheftAnnounced``, then ``CardStolen`` or (a void target) ``TheftFailed``."""
    target = _seat_field(action, "target", st.n)
    suit = action.get("suit")
    end = action.get("end")
    if suit not in SUIT_NAMES:
        raise _bad("'suit' must be one of S, H, D, C")
    if end not in ("low", "high"):
        raise _bad("'end' must be 'low' or 'high'")
    if target == seat:
        raise IllegalAction(NOT_AN_OPPONENT, "you steal from an opponent, not yourself")
    if not any(CARD_SUIT[c] == suit for c in st.hands[seat]):
        raise IllegalAction(SUIT_NOT_HELD, f"you may only name a suit you hold; you hold no {SUIT_NAMES[suit]}")
    events = [Event("TheftAnnounced", {"target": target, "suit": suit, "end": end}, seat)]
    held = [c for c in st.hands[target] if CARD_SUIT[c] == suit]
    if not held:
        events.append(Event("TheftFailed", {"thief": seat, "suit": suit}, target))
        return events
    pick = (min if end == "low" else max)(held, key=CARD_RANK.__getitem__)
    events.append(Event("CardStolen", {"target": target, "card": pick}, seat))
    return events


def _legal_steal(st: State, seat: int) -> list[dict]:
    suits = [s for s in SUITS if any(CARD_SUIT[c] == s for c in st.hands[seat])]
    return [
        {"type": "steal", "target": t, "suit": s, "end": e}
        for t in range(st.n)
        if t != seat
        for s in suits
        for e in ("low", "high")
    ]


def _decide_decline(st: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """``{"type": "decline"}`` (§08): the Voleur lets the power go: ``TheftDeclined``."""
    return [Event("TheftDeclined", {}, seat)]


def _legal_decline(st: State, seat: int) -> list[dict]:
    return [{"type": "decline"}]


def _decide_give_back(st: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """``{"type": "give_back", "card": c}`` (§08): a card of the stolen suit back to the
    target: ``CardReturned``."""
    card = _card_field(action)
    hand = st.hands[seat]
    if card not in hand:
        raise IllegalAction(CARD_NOT_IN_HAND, "that card is not in your hand")
    if CARD_SUIT[card] != st.theft_suit:
        suit = st.theft_suit
        assert suit is not None  # named with the theft, kept until the card is handed back
        raise IllegalAction(WRONG_SUIT, f"you hand back a card of {SUIT_NAMES[suit]}")
    if not st.return_stolen and card == st.stolen and count_in(hand, card) == 1:
        raise IllegalAction(CANNOT_RETURN_STOLEN, "this table does not let you hand back the card you just took")
    return [Event("CardReturned", {"target": st.theft_target, "card": card}, seat)]


def _legal_give_back(st: State, seat: int) -> list[dict]:
    hand = st.hands[seat]
    cards = list(dict.fromkeys(c for c in hand if CARD_SUIT[c] == st.theft_suit))
    stolen = st.stolen
    if not st.return_stolen and stolen is not None and count_in(hand, stolen) == 1:
        cards.remove(stolen)
    return [{"type": "give_back", "card": c} for c in cards]


#: Action type -> its decide and legal handlers (docs/games/maudix.md, "Actions").
ACTIONS: dict[str, ActionRule] = {
    "ecart": ActionRule(_decide_ecart, _legal_ecart, {"cards": list[str], "to": int}),
    "designate": ActionRule(_decide_designate, _legal_designate, {"target": int}),
    "bid": ActionRule(_decide_bid, _legal_bid, {"tricks": int}),
    "play": ActionRule(_decide_play, _legal_play, {"card": str}),
    "steal": ActionRule(_decide_steal, _legal_steal, {"target": int, "suit": str, "end": str}),
    "decline": ActionRule(_decide_decline, _legal_decline),
    "give_back": ActionRule(_decide_give_back, _legal_give_back, {"card": str}),
}

#: The action types open in each phase, in the order ``legal_actions`` lists them.
OPEN: dict[Phase, tuple[str, ...]] = {
    Phase.ECART: ("ecart",),
    Phase.DESIGNATE: ("designate",),
    Phase.BID: ("bid",),
    Phase.PLAY: ("play",),
    Phase.STEAL: ("steal", "decline"),
    Phase.GIVE_BACK: ("give_back",),
    Phase.OVER: (),
}
#: Their ``legal`` handlers, per phase (what legal_actions walks).
LISTERS = listers(ACTIONS, OPEN)
#: Action type -> its ``decide`` handler (what ``decide`` calls once the type is open).
DECIDERS = {kind: rule.decide for kind, rule in ACTIONS.items()}


def decide(state: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """Validate ``action`` of ``seat`` and return the resulting events.

    Raises :class:`IllegalAction`: ``game_over``, ``not_your_turn``,
    ``bad_action`` (malformed), ``wrong_phase`` (a Maudix action of
    another phase), then the action's own codes (docs/games/maudix.md,
    "Refusal codes").  Never mutates ``state``.
    """
    ph = state.phase
    if ph is PLAY or ph is BID:  # the seat on turn only (awaiting, without its set)
        if seat != state.turn:
            raise IllegalAction(NOT_YOUR_TURN, "it is not your turn")
    elif ph is OVER:
        raise IllegalAction(GAME_OVER, "the game is over")
    elif seat not in awaiting(state):
        raise IllegalAction(NOT_YOUR_TURN, "it is not your turn")
    if type(action) is not dict and not isinstance(action, Mapping):
        raise _bad("an action is a JSON object with a 'type'")
    kind = action.get("type")
    if kind not in OPEN[ph]:
        if type(kind) is str and kind in ACTIONS:
            raise IllegalAction(WRONG_PHASE, f"'{kind}' is not possible now: the table is in the {ph.value} phase")
        raise _bad(f"unknown action type {kind!r}")
    return DECIDERS[kind](state, seat, action, rng)


def legal_actions(state: State, seat: int) -> Sequence[dict]:
    """Every action ``seat`` may send now, in the shapes ``decide`` accepts
    (docs/games/maudix.md, "Actions"); ``[]`` when not awaited.  A list,
    except the écart's: an :class:`EcartActions`, read on demand."""
    ph = state.phase
    if ph is PLAY:  # the hot path: one type, for the seat on turn
        return _legal_play(state, seat) if seat == state.turn else []
    if seat not in awaiting(state):
        return []
    if ph is ECART:  # up to 858 actions: listed on demand
        return ecart_actions(state, seat)
    return listing(LISTERS[ph], state, seat)


def choices(state: State, seat: int) -> list[dict]:
    """The écart described instead of enumerated (it is every 3-card
    combination of the hand times every recipient): ``[{"type": "ecart",
    "schema", "hint"}]`` while ``seat`` has its écart to send, else ``[]``
    (docs/games/maudix.md, "Actions")."""
    if state.phase is not ECART or seat not in awaiting(state):
        return []
    recips = ecart_recipients(state.n, state.ecart_to, seat)
    schema = card_schema("ecart", state.hands[seat], ECART_SIZE, {"to": {"enum": recips}})
    return [{"type": "ecart", "schema": schema,
             "hint": "Choose 3 cards of your hand to pass and the opponent (to) who gets them."}]


def client_actions(state: State, seat: int) -> tuple[Sequence[dict], list[dict]]:
    """:func:`shared.engine.client_actions` without enumerating the écart
    first: in the écart phase nothing else is open."""
    ch = choices(state, seat)
    if ch:
        return [], ch
    return legal_actions(state, seat), []


# ---------------------------------------------------------------------------
# The game
# ---------------------------------------------------------------------------


class Maudix(BaseGame):
    """The Maudix decider (docs/architecture.md, "The game contract"): binds
    ``start``, ``decide`` and ``legal_actions`` (this module), ``evolve``,
    ``awaiting`` and ``is_over`` (:mod:`.state`), ``view`` and ``redact``
    (:mod:`.views`) and ``result`` (:mod:`.scoring`).

    Actions (``legal_actions`` lists them exactly in these shapes):

    * ``{"type": "ecart", "cards": [c1, c2, c3], "to": seat}`` — écart phase.
    * ``{"type": "designate", "target": seat}`` — L'Association.
    * ``{"type": "bid", "tricks": k}`` — La Prédiction.
    * ``{"type": "play", "card": c}`` — trick play.
    * ``{"type": "steal", "target": seat, "suit": "S|H|D|C", "end": "low|high"}``
      or ``{"type": "decline"}`` — the Voleur.
    * ``{"type": "give_back", "card": c}`` — the Voleur hands a card back.
    """

    name = "maudix"
    title = "Maudix"
    summary = SUMMARY
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    Options = Options
    actions = ACTIONS
    strategies: Mapping[str, Strategy] = {}  # set by the package (__init__) from bots.STRATEGIES

    start = staticmethod(start)
    decide = staticmethod(decide)
    legal_actions = staticmethod(legal_actions)
    choices = staticmethod(choices)
    client_actions = staticmethod(client_actions)
    evolve = staticmethod(evolve)
    awaiting = staticmethod(awaiting)
    is_over = staticmethod(is_over)
    view = staticmethod(view)
    redact = staticmethod(redact)  # shared.hiding.redactor(views.SECRETS)
    result = staticmethod(result)
