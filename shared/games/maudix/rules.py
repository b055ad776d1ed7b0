"""Maudix: seven trick-taking contracts for 3 to 12 players, lowest total wins.

The rules as implemented, with the rulings and the choices made where the
rules are silent, are documented in ``docs/games/maudix.md``.  Sections
§01–§10 below refer to the numbered parts of the publisher's French rules,
which are not in this repository (docs/architecture.md, "Game rules").

The rules as implemented
------------------------
Cards (§02).  One deck of 52 cards plus two jokers, the Pirate and the
Naufragé (``"PIRATE"``, ``"NAUFRAGE"``), for 3–6 players; two such decks
(108 cards, every code twice) for 7–12.  Ranks run 2 < 3 < ... < 10 < J < Q <
K < A.  Each player gets ``floor(total / n)`` cards; the ``total mod n``
surplus is removed at random, face down, and never revealed to anyone.

Rounds (§03, §04).  Seven rounds, one per contract, always in this order:
Les Plis, Les Dames, Les Têtes, L'Association, La Chasse, La Prédiction,
Maudix.  The first dealer is drawn at random; the deal passes left (to the
next seat number) every round.  Each round: deal → écart → (round 4:
secret designations; round 6: bids) → trick play → scoring.

Écart (§04.02).  Every player sends 3 cards and a recipient in one action.
Actions count in arrival order.  A recipient must be an opponent nobody has
chosen yet, and the choice must leave the players still to send a way to
finish (nobody may be left with only themselves to give to).  Cards move
only once everybody has sent: nobody sees what they receive before their
own écart is down.  Who gives to whom is public; the cards are seen by the
giver and the receiver only.

Designations (§09.04).  In L'Association, after the écart, every player
secretly designates an opponent; the designations are revealed together
once all are in.

Bids (§09.06).  In La Prédiction, after the écart, each player bids the
exact number of tricks they expect to win, in turn order starting with the
opening leader.  The hook: the last bidder may not bid the number that
would make the bids add up to the number of tricks of the round.

Trick play (§04.03, §05, §07).  The player left of the dealer leads the
first trick; a trick's winner leads the next.  The first non-joker card of
a trick sets the led suit.  A player holding a card of the led suit must
play that suit or a joker; otherwise anything.  Spades are permanent trumps
and trumping is never forced.  A joker may be played at any time.  Winner:
the last Pirate played, if any; otherwise the highest spade, if any;
otherwise the highest card of the led suit.  A Naufragé never wins.  With two
decks, between identical cards the first played wins.

Voleur (§08).  When the card that wins a trick is a Jack (and it is not the
last trick of the round) its winner may, before leading, name an opponent,
a suit the thief holds, and "low" or "high"; the target hands over its
lowest/highest card of that suit, then the thief hands back one card of
that suit of their choice.  A target void in that suit says so publicly and
the power is lost.  The thief may decline.  The table sees who, which suit,
low/high and "void", never the cards.

Scoring (§06, §09).  Jokers are worth nothing.  Each captured 10♥ adds +10
to its captor in rounds 1–6.  Per contract:

1. Les Plis: points per trick won by player count (3:3, 4:5, 5:7, 6:8,
   7:4, 8:5, 9:6, 10:7, 11:8, 12:8).
2. Les Dames: +20 per Queen captured.
3. Les Têtes: +5 per Jack, Queen, King or Ace captured.
4. L'Association: pile = +5 per heart captured (the 10♥ included); a
   player scores max(own pile, designated opponent's pile), then their own
   10♥ bonus is added.
5. La Chasse: +20 per suit of which the player captured no card.
6. La Prédiction: +10 per trick of difference between bid and tricks won.
7. Maudix: +20 per 10 captured, +50 for a 10♥ instead of +20, and for each
   trick but the last, each 10 in it gives +5 to the winner of the next
   trick (contamination).

After the last round the lowest total wins; equal totals share the place.

Module layout (OpenSpiel style): constants and lookup tables, small pure
helpers (``card_suit``, ``trick_winner``, ``round_points``...), the state
dataclass, then :class:`Maudix`, the decider.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from itertools import combinations
from typing import Any, Literal

from pydantic import BaseModel, Field

from shared.cards import RANK, SUIT, SUITS, shoe
from shared.engine import BAD_ACTION, BaseGame, IllegalAction, Result, Strategy, places_from
from shared.events import Event

# ---------------------------------------------------------------------------
# Constants and lookup tables (built once)
# ---------------------------------------------------------------------------

PIRATE = "PIRATE"
NAUFRAGE = "NAUFRAGE"
JOKERS: tuple[str, ...] = (PIRATE, NAUFRAGE)
TEN_HEARTS = "10H"
ECART_SIZE = 3
JACK, QUEEN = 11, 12

#: Les Plis: points per trick by player count (rulings; 3, 4, 6 from §09.01).
POINTS_PER_TRICK: dict[int, int] = {3: 3, 4: 5, 5: 7, 6: 8, 7: 4, 8: 5, 9: 6, 10: 7, 11: 8, 12: 8}

#: Suit of every code; jokers belong to no suit (None).
CARD_SUIT: dict[str, str | None] = {**SUIT, PIRATE: None, NAUFRAGE: None}
#: Rank of every code; jokers 0.
CARD_RANK: dict[str, int] = {**RANK, PIRATE: 0, NAUFRAGE: 0}
#: Display/sort order of hands: spades, hearts, diamonds, clubs, low to high, jokers last.
CARD_ORDER: dict[str, int] = {c: SUITS.index(SUIT[c]) * 20 + RANK[c] for c in RANK} | {PIRATE: 98, NAUFRAGE: 99}
HEADS: frozenset[str] = frozenset(c for c in RANK if RANK[c] >= JACK)
QUEENS: frozenset[str] = frozenset(c for c in RANK if RANK[c] == QUEEN)
TENS: frozenset[str] = frozenset(c for c in RANK if RANK[c] == 10)
HEARTS: frozenset[str] = frozenset(c for c in RANK if SUIT[c] == "H")


class Contract(Enum):
    """The seven contracts, in their fixed order of play (§03)."""

    PLIS = "plis"
    DAMES = "dames"
    TETES = "tetes"
    ASSOCIATION = "association"
    CHASSE = "chasse"
    PREDICTION = "prediction"
    MAUDIX = "maudix"


CONTRACT_ORDER: tuple[Contract, ...] = tuple(Contract)
ContractName = Literal["plis", "dames", "tetes", "association", "chasse", "prediction", "maudix"]


class Phase(Enum):
    """Where a round stands."""

    ECART = "ecart"  # everybody sends 3 cards + a recipient (simultaneous)
    DESIGNATE = "designate"  # round 4: secret designations (simultaneous)
    BID = "bid"  # round 6: bids in turn order
    PLAY = "play"  # trick play
    STEAL = "steal"  # Voleur: the trick winner may steal (or decline)
    GIVE_BACK = "give_back"  # Voleur: the thief hands a card back
    OVER = "over"  # the game is finished


ACTION_TYPES: dict[Phase, str] = {
    Phase.ECART: "ecart",
    Phase.DESIGNATE: "designate",
    Phase.BID: "bid",
    Phase.PLAY: "play",
    Phase.GIVE_BACK: "give_back",
}
ALL_ACTION_TYPES = frozenset(("ecart", "designate", "bid", "play", "steal", "decline", "give_back"))

# Refusal codes (besides not_your_turn, game_over, bad_action).
WRONG_PHASE = "wrong_phase"
WRONG_CARD_COUNT = "wrong_card_count"
CARD_NOT_IN_HAND = "card_not_in_hand"
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

SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}


class Options(BaseModel):
    """Table options of Maudix (defaults follow the source and rulings)."""

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
# Small pure helpers
# ---------------------------------------------------------------------------


def deck_for(players: int) -> list[str]:
    """The unshuffled cards for ``players``: one 54-card deck up to 6, two from 7 (§02)."""
    return shoe(1 if players <= 6 else 2, jokers=JOKERS)


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
    best_i, best_key = 0, (-1, -1)
    for i, (_, c) in enumerate(trick):
        if c == PIRATE:
            key = (3, i)
        else:
            s = CARD_SUIT[c]
            if s == "S":
                key = (2, CARD_RANK[c])
            elif s is not None and s == led:
                key = (1, CARD_RANK[c])
            else:
                key = (0, 0)
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


def count_in(cards: Sequence[str], code: str) -> int:
    """How many copies of ``code`` are in ``cards``."""
    return sum(1 for c in cards if c == code)


def has_all(hand: Sequence[str], cards: Sequence[str]) -> bool:
    """True when ``cards`` (a multiset) is contained in ``hand``."""
    need: dict[str, int] = {}
    for c in cards:
        need[c] = need.get(c, 0) + 1
    return all(count_in(hand, c) >= k for c, k in need.items())


def remove_cards(hand: list[str], cards: Sequence[str]) -> None:
    """Remove one copy of each of ``cards`` from ``hand`` in place."""
    for c in cards:
        hand.remove(c)


def prediction_penalty(bid: int, tricks: int) -> int:
    """La Prédiction (§09.06): +10 per trick of difference (bid 3: 3→0, 2/4→10, 1/5→20, 0/6→30)."""
    return 10 * abs(bid - tricks)


def association_scores(piles: Sequence[int], targets: Sequence[int]) -> list[int]:
    """L'Association (§09.04): each scores max(own pile, designated opponent's pile).

    ``piles`` are heart points (5 per heart, 10♥ included), ``targets[s]``
    the seat ``s`` designated.  The 10♥ bonus is added after, by the caller.
    Example: piles (David 15, Lula 40, Alice 25), David→Lula, Lula→Alice,
    Alice→David → (40, 40, 25).
    """
    return [max(piles[s], piles[targets[s]]) for s in range(len(piles))]


def round_points(
    contract: Contract,
    captured: Sequence[Sequence[str]],
    tricks_won: Sequence[int],
    *,
    per_trick: int,
    bids: Sequence[int | None] = (),
    designations: Sequence[int | None] = (),
    contamination: Sequence[int] = (),
) -> list[int]:
    """Points of one round per seat (§06, §09), from the cards each captured.

    ``captured[s]``: every card of the tricks ``s`` won; ``tricks_won[s]``:
    their number; ``bids``/``designations`` for rounds 6/4;
    ``contamination[s]``: the Maudix contamination points already counted.
    """
    n = len(captured)
    tens_h = [count_in(captured[s], TEN_HEARTS) for s in range(n)]
    if contract is Contract.MAUDIX:
        return [
            sum(50 if c == TEN_HEARTS else 20 for c in captured[s] if c in TENS) + contamination[s] for s in range(n)
        ]
    if contract is Contract.PLIS:
        base = [per_trick * tricks_won[s] for s in range(n)]
    elif contract is Contract.DAMES:
        base = [20 * sum(1 for c in captured[s] if c in QUEENS) for s in range(n)]
    elif contract is Contract.TETES:
        base = [5 * sum(1 for c in captured[s] if c in HEADS) for s in range(n)]
    elif contract is Contract.ASSOCIATION:
        piles = [5 * sum(1 for c in captured[s] if c in HEARTS) for s in range(n)]
        base = association_scores(piles, [t if t is not None else s for s, t in enumerate(designations)])
    elif contract is Contract.CHASSE:
        base = [20 * sum(1 for su in SUITS if not any(CARD_SUIT[c] == su for c in captured[s])) for s in range(n)]
    else:  # PREDICTION
        base = [prediction_penalty(bids[s] or 0, tricks_won[s]) for s in range(n)]
    return [base[s] + 10 * tens_h[s] for s in range(n)]


# ---------------------------------------------------------------------------
# State
# ---------------------------------------------------------------------------


@dataclass(slots=True)
class State:
    """The whole truth of a Maudix table (never shown as is; see ``view``).

    Seats are ``0..n-1``; per-seat lists are indexed by seat.  ``round`` is
    the 0-based index into ``contracts``.  ``None`` means "not yet".
    """

    n: int
    contracts: tuple[Contract, ...]
    voleur: bool
    hook: bool
    return_stolen: bool
    per_trick: int
    options: dict
    round: int
    dealer: int
    phase: Phase
    tricks_total: int
    hands: list[list[str]]
    removed: list[str]
    ecart_to: list[int | None]
    ecart_cards: list[tuple[str, ...] | None]
    ecart_order: list[int]
    ecart_from: list[int | None]
    designations: list[int | None]
    revealed: bool
    bids: list[int | None]
    turn: int | None
    leader: int
    trick: list[tuple[int, str]]
    led: str | None
    trick_no: int
    tricks_won: list[int]
    captured: list[list[str]]
    contamination: list[int]
    pending_tens: int
    last_winner: int | None
    thief: int | None
    theft_target: int | None
    theft_suit: str | None
    theft_end: str | None
    stolen: str | None
    round_scores: list[list[int]]
    totals: list[int]

    @property
    def contract(self) -> Contract:
        """The contract of the current round."""
        return self.contracts[self.round]


def _new_round(st: State, rnd: int, dealer: int, hands: list[list[str]], removed: list[str]) -> None:
    n = st.n
    st.round = rnd
    st.dealer = dealer
    st.phase = Phase.ECART
    st.hands = [list(h) for h in hands]
    st.removed = list(removed)
    st.tricks_total = len(hands[0])
    st.ecart_to = [None] * n
    st.ecart_cards = [None] * n
    st.ecart_order = []
    st.ecart_from = [None] * n
    st.designations = [None] * n
    st.revealed = False
    st.bids = [None] * n
    st.leader = (dealer + 1) % n
    st.turn = None
    st.trick = []
    st.led = None
    st.trick_no = 0
    st.tricks_won = [0] * n
    st.captured = [[] for _ in range(n)]
    st.contamination = [0] * n
    st.pending_tens = 0
    st.last_winner = None
    st.thief = st.theft_target = None
    st.theft_suit = st.theft_end = st.stolen = None


# ---------------------------------------------------------------------------
# The game
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


class Maudix(BaseGame):
    """The Maudix decider (docs/architecture.md, "The game contract").  See the module doc for the rules.

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
    min_players = 3
    max_players = 12
    Options = Options
    strategies: Mapping[str, Strategy] = {}  # set by the package (__init__) from bots.STRATEGIES

    # -- opening ----------------------------------------------------------

    def start(self, options: BaseModel, players: int, rng: random.Random) -> list[Event]:
        """Opening event ``GameStarted``: options, players, first dealer and the round-1 deal.

        Raises ``ValueError`` for a player count outside 3..12 or a
        ``first_dealer`` that is not a seat.
        """
        if not self.min_players <= players <= self.max_players:
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

    # -- who acts -----------------------------------------------------------

    def awaiting(self, state: State) -> frozenset[int]:
        """Seats that may act: all who have not sent their écart / designation;
        the bidder or player whose turn it is; the thief."""
        ph = state.phase
        if ph is Phase.PLAY or ph is Phase.BID:
            turn = state.turn
            assert turn is not None  # someone is on turn through the bidding and the play
            return frozenset((turn,))
        if ph is Phase.ECART:
            return frozenset(s for s, t in enumerate(state.ecart_to) if t is None)
        if ph is Phase.DESIGNATE:
            return frozenset(s for s, t in enumerate(state.designations) if t is None)
        if ph is Phase.STEAL or ph is Phase.GIVE_BACK:
            thief = state.thief
            assert thief is not None  # set with the STEAL phase, cleared when the theft ends
            return frozenset((thief,))
        return frozenset()

    def is_over(self, state: State) -> bool:
        """True once the game is over (``result`` is not None)."""
        return state.phase is Phase.OVER

    def result(self, state: State) -> Result | None:
        """Final totals and places (lowest total wins, equal totals share) once over."""
        if state.phase is not Phase.OVER:
            return None
        totals = tuple(state.totals)
        return Result(
            scores=totals,
            places=places_from(totals, lower_wins=True),
            lower_wins=True,
            detail={"rounds": [list(r) for r in state.round_scores], "contracts": [c.value for c in state.contracts]},
        )

    # -- decide ---------------------------------------------------------------

    def decide(self, state: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
        """Validate ``action`` of ``seat`` and return the resulting events.

        Raises :class:`IllegalAction`: ``game_over``, ``not_your_turn``,
        ``bad_action`` (malformed), ``wrong_phase`` (a Maudix action of
        another phase), then the phase's own codes (see the class doc and
        ``docs/games/maudix.md``).  Never mutates ``state``.
        """
        self.check_turn(state, seat)
        if not isinstance(action, Mapping):
            raise _bad("an action is a JSON object with a 'type'")
        kind = action.get("type")
        ph = state.phase
        if ph is Phase.STEAL:
            if kind == "steal":
                return self._decide_steal(state, seat, action)
            if kind == "decline":
                return [Event("TheftDeclined", {}, seat)]
        elif kind == ACTION_TYPES.get(ph):
            if ph is Phase.PLAY:
                return self._decide_play(state, seat, action, rng)
            if ph is Phase.ECART:
                return self._decide_ecart(state, seat, action)
            if ph is Phase.BID:
                return self._decide_bid(state, seat, action)
            if ph is Phase.DESIGNATE:
                return self._decide_designate(state, seat, action)
            return self._decide_give_back(state, seat, action)
        if kind in ALL_ACTION_TYPES:
            raise IllegalAction(WRONG_PHASE, f"'{kind}' is not possible now: the table is in the {ph.value} phase")
        raise _bad(f"unknown action type {kind!r}")

    def _decide_ecart(self, st: State, seat: int, action: Mapping[str, Any]) -> list[Event]:
        cards = action.get("cards")
        if not isinstance(cards, list) or not all(type(c) is str for c in cards):
            raise _bad("'cards' must be a list of card codes")
        if len(cards) != ECART_SIZE:
            raise IllegalAction(WRONG_CARD_COUNT, "an écart is exactly 3 cards")
        to = _seat_field(action, "to", st.n)
        if not has_all(st.hands[seat], cards):
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

    def _decide_designate(self, st: State, seat: int, action: Mapping[str, Any]) -> list[Event]:
        target = _seat_field(action, "target", st.n)
        if target == seat:
            raise IllegalAction(NOT_AN_OPPONENT, "you designate an opponent, not yourself")
        events = [Event("DesignationMade", {"target": target}, seat)]
        if sum(1 for t in st.designations if t is None) == 1:
            targets = list(st.designations)
            targets[seat] = target
            events.append(Event("DesignationsRevealed", {"targets": targets}))
        return events

    def _decide_bid(self, st: State, seat: int, action: Mapping[str, Any]) -> list[Event]:
        k = action.get("tricks")
        if type(k) is not int:
            raise _bad("'tricks' must be a whole number")
        if not 0 <= k <= st.tricks_total:
            raise IllegalAction(BID_OUT_OF_RANGE, f"a bid is between 0 and {st.tricks_total} tricks")
        last = sum(1 for b in st.bids if b is None) == 1
        if st.hook and last and sum(b for b in st.bids if b is not None) + k == st.tricks_total:
            raise IllegalAction(HOOK_BID, f"the last bid may not make the bids add up to {st.tricks_total} (the hook)")
        return [Event("BidMade", {"tricks": k}, seat)]

    def _decide_play(self, st: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
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
        captured = list(st.captured)
        captured[winner] = captured[winner] + [c for _, c in trick]
        tricks = list(st.tricks_won)
        tricks[winner] += 1
        contamination = list(st.contamination)
        if st.contract is Contract.MAUDIX:
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
        events.append(
            Event(
                "RoundScored",
                {
                    "round": st.round + 1,
                    "contract": st.contract.value,
                    "points": pts,
                    "totals": totals,
                    "tricks": tricks,
                },
            )
        )
        if st.round + 1 < len(st.contracts):
            hands, removed = deal(st.n, rng)
            nxt = st.round + 1
            events.append(
                Event(
                    "RoundDealt",
                    {
                        "round": nxt + 1,
                        "contract": st.contracts[nxt].value,
                        "dealer": (st.dealer + 1) % st.n,
                        "hands": hands,
                        "removed": removed,
                    },
                )
            )
        else:
            places = places_from(totals, lower_wins=True)
            events.append(Event("GameEnded", {"totals": totals, "places": list(places)}))
        return events

    def _decide_steal(self, st: State, seat: int, action: Mapping[str, Any]) -> list[Event]:
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

    def _decide_give_back(self, st: State, seat: int, action: Mapping[str, Any]) -> list[Event]:
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

    # -- evolve ---------------------------------------------------------------

    def evolve(self, state: State | None, event: Event) -> State:
        """Apply one event (pure: no randomness, no clock); mutates and returns ``state``."""
        handler = _HANDLERS.get(event.type)
        if handler is None:
            raise ValueError(f"unknown Maudix event {event.type!r}")
        if state is None:
            return _on_game_started(state, event)
        return handler(state, event)

    # -- legal actions -----------------------------------------------------------

    def legal_actions(self, state: State, seat: int) -> list[dict]:
        """Every action ``seat`` may send now, in the shapes ``decide`` accepts; ``[]`` when not awaited."""
        ph = state.phase
        if ph is Phase.PLAY:
            if seat != state.turn:
                return []
            hand = state.hands[seat]
            cards = playable(hand, state.led)
            if len(cards) > 1:
                cards = list(dict.fromkeys(cards))
            return [{"type": "play", "card": c} for c in cards]
        if seat not in self.awaiting(state):
            return []
        if ph is Phase.ECART:
            recips = ecart_recipients(state.n, state.ecart_to, seat)
            combos = list(dict.fromkeys(combinations(state.hands[seat], ECART_SIZE)))
            return [{"type": "ecart", "cards": list(cs), "to": r} for cs in combos for r in recips]
        if ph is Phase.DESIGNATE:
            return [{"type": "designate", "target": t} for t in range(state.n) if t != seat]
        if ph is Phase.BID:
            out = []
            last = sum(1 for b in state.bids if b is None) == 1
            others = sum(b for b in state.bids if b is not None)
            for k in range(state.tricks_total + 1):
                if state.hook and last and others + k == state.tricks_total:
                    continue
                out.append({"type": "bid", "tricks": k})
            return out
        if ph is Phase.STEAL:
            suits = [s for s in SUITS if any(CARD_SUIT[c] == s for c in state.hands[seat])]
            out = [
                {"type": "steal", "target": t, "suit": s, "end": e}
                for t in range(state.n)
                if t != seat
                for s in suits
                for e in ("low", "high")
            ]
            out.append({"type": "decline"})
            return out
        if ph is Phase.GIVE_BACK:
            hand = state.hands[seat]
            cards = list(dict.fromkeys(c for c in hand if CARD_SUIT[c] == state.theft_suit))
            stolen = state.stolen
            if not state.return_stolen and stolen is not None and count_in(hand, stolen) == 1:
                cards.remove(stolen)
            return [{"type": "give_back", "card": c} for c in cards]
        return []

    # -- views -----------------------------------------------------------------

    def view(self, state: State, seat: int | None) -> dict:
        """What ``seat`` (None: a spectator) may see, JSON-ready.

        Shape: ``players, seat, round (1-based), rounds, contract, contracts,
        dealer, phase, awaiting, hand (seat only), hand_sizes, removed_count,
        tricks_total, ecarts`` (public routing: ``[{"from", "to"}]`` in
        arrival order), ``my_ecart`` (seat only: cards sent, to, cards
        received, from), ``designations`` (own only before the reveal, all
        after), ``bids``, ``leader, turn, trick`` (current trick only:
        ``[{"seat", "card"}]``), ``led_suit, trick_no, tricks_won,
        last_trick_winner, theft`` (who, target, suit, end; the card only
        for thief and target), ``scores`` (per finished round), ``totals``,
        ``points_per_trick``, ``result``.  Gathered tricks, other hands,
        removed cards and secret choices never appear.
        """
        st = state
        n = st.n
        v: dict[str, Any] = {
            "game": "maudix",
            "players": n,
            "seat": seat,
            "round": st.round + 1,
            "rounds": len(st.contracts),
            "contract": st.contract.value,
            "contracts": [c.value for c in st.contracts],
            "dealer": st.dealer,
            "phase": st.phase.value,
            "awaiting": sorted(self.awaiting(st)),
            "hand_sizes": [len(h) for h in st.hands],
            "removed_count": len(st.removed),
            "tricks_total": st.tricks_total,
            "points_per_trick": st.per_trick,
            "hook": st.hook,
            "voleur": st.voleur,
            "ecarts": [{"from": g, "to": st.ecart_to[g]} for g in st.ecart_order],
            "bids": list(st.bids),
            "leader": st.leader,
            "turn": st.turn,
            "trick": [{"seat": s, "card": c} for s, c in st.trick],
            "led_suit": st.led,
            "tricks_played": st.trick_no,
            "tricks_won": list(st.tricks_won),
            "last_trick_winner": st.last_winner,
            "scores": [list(r) for r in st.round_scores],
            "totals": list(st.totals),
        }
        if st.revealed:
            v["designations"] = list(st.designations)
        else:
            v["designations"] = [(t if s == seat else None) for s, t in enumerate(st.designations)]
        v["designated"] = [t is not None for t in st.designations]
        if seat is not None:
            v["hand"] = list(st.hands[seat])
            mine: dict[str, Any] = {
                "to": st.ecart_to[seat], "cards": None, "from": st.ecart_from[seat], "received": None
            }
            sent = st.ecart_cards[seat]
            if sent is not None:
                mine["cards"] = list(sent)
            g = st.ecart_from[seat]
            if g is not None:
                received = st.ecart_cards[g]
                assert received is not None  # the giver's écart, exchanged
                mine["received"] = list(received)
            v["my_ecart"] = mine
        if st.thief is not None:
            theft: dict[str, Any] = {
                "thief": st.thief,
                "target": st.theft_target,
                "suit": st.theft_suit,
                "end": st.theft_end,
            }
            if seat is not None and seat in (st.thief, st.theft_target) and st.stolen is not None:
                theft["card"] = st.stolen
            v["theft"] = theft
        else:
            v["theft"] = None
        res = self.result(st)
        v["result"] = res.to_json() if res is not None else None
        return v

    def redact(self, event: Event, seat: int | None) -> Event | None:
        """The event as ``seat`` may see it (a copy with secret data removed).

        Deals keep only the seat's own hand and the number of removed
        cards; an écart's cards only for its giver; the exchange only the
        passes the seat gave or received; a designation's target only for
        its author until ``DesignationsRevealed``; a stolen or returned
        card only for thief and target.
        """
        t = event.type
        d = event.data
        if t == "GameStarted" or t == "RoundDealt":
            hands = d["hands"]
            nd = {k: v for k, v in d.items() if k not in ("hands", "removed")}
            nd["hands"] = [(list(h) if i == seat else None) for i, h in enumerate(hands)]
            nd["hand_sizes"] = [len(h) for h in hands]
            nd["removed_count"] = len(d["removed"])
            return replace(event, data=nd)
        if t == "EcartMade":
            if seat == event.seat:
                return event
            return replace(event, data={"to": d["to"]})
        if t == "EcartsExchanged":
            passes = [[g, r, (list(cs) if seat in (g, r) else None)] for g, r, cs in d["passes"]]
            return replace(event, data={"passes": passes})
        if t == "DesignationMade":
            if seat == event.seat:
                return event
            return replace(event, data={})
        if t == "CardStolen" or t == "CardReturned":
            if seat is not None and seat in (event.seat, d["target"]):
                return event
            return replace(event, data={"target": d["target"]})
        return event


# ---------------------------------------------------------------------------
# Event handlers (evolve): one per event type
# ---------------------------------------------------------------------------


def _on_game_started(_: State | None, e: Event) -> State:
    d = e.data
    opts = Options.model_validate(d["options"])
    n = d["players"]
    st = State(
        n=n,
        contracts=tuple(Contract(c) for c in opts.contracts),
        voleur=opts.voleur,
        hook=opts.hook,
        return_stolen=opts.return_stolen,
        per_trick=opts.points_per_trick or POINTS_PER_TRICK[n],
        options=dict(d["options"]),
        round=0,
        dealer=d["dealer"],
        phase=Phase.ECART,
        tricks_total=0,
        hands=[],
        removed=[],
        ecart_to=[],
        ecart_cards=[],
        ecart_order=[],
        ecart_from=[],
        designations=[],
        revealed=False,
        bids=[],
        turn=None,
        leader=0,
        trick=[],
        led=None,
        trick_no=0,
        tricks_won=[],
        captured=[],
        contamination=[],
        pending_tens=0,
        last_winner=None,
        thief=None,
        theft_target=None,
        theft_suit=None,
        theft_end=None,
        stolen=None,
        round_scores=[],
        totals=[0] * n,
    )
    _new_round(st, d["round"] - 1, d["dealer"], d["hands"], d["removed"])
    return st


def _on_round_dealt(st: State, e: Event) -> State:
    d = e.data
    _new_round(st, d["round"] - 1, d["dealer"], d["hands"], d["removed"])
    return st


def _on_ecart_made(st: State, e: Event) -> State:
    s = e.seat
    assert s is not None  # made by a seat
    cards = tuple(e.data["cards"])
    st.ecart_to[s] = e.data["to"]
    st.ecart_cards[s] = cards
    st.ecart_order.append(s)
    remove_cards(st.hands[s], cards)
    return st


def _on_ecarts_exchanged(st: State, e: Event) -> State:
    for g, r, cards in e.data["passes"]:
        st.hands[r].extend(cards)
        st.ecart_from[r] = g
    for h in st.hands:
        h.sort(key=CARD_ORDER.__getitem__)
    c = st.contract
    if c is Contract.ASSOCIATION:
        st.phase = Phase.DESIGNATE
    elif c is Contract.PREDICTION:
        st.phase = Phase.BID
        st.turn = st.leader
    else:
        st.phase = Phase.PLAY
        st.turn = st.leader
    return st


def _on_designation_made(st: State, e: Event) -> State:
    s = e.seat
    assert s is not None  # made by a seat
    st.designations[s] = e.data["target"]
    return st


def _on_designations_revealed(st: State, e: Event) -> State:
    st.designations = list(e.data["targets"])
    st.revealed = True
    st.phase = Phase.PLAY
    st.turn = st.leader
    return st


def _on_bid_made(st: State, e: Event) -> State:
    s = e.seat
    assert s is not None  # made by a seat
    st.bids[s] = e.data["tricks"]
    if any(b is None for b in st.bids):
        st.turn = (s + 1) % st.n
    else:
        st.phase = Phase.PLAY
        st.turn = st.leader
    return st


def _on_card_played(st: State, e: Event) -> State:
    s = e.seat
    assert s is not None  # played by a seat
    card = e.data["card"]
    st.hands[s].remove(card)
    st.trick.append((s, card))
    if st.led is None:
        st.led = CARD_SUIT[card]
    st.turn = (s + 1) % st.n
    return st


def _on_trick_won(st: State, e: Event) -> State:
    w = e.data["winner"]
    trick = st.trick
    cards = [c for _, c in trick]
    st.captured[w].extend(cards)
    st.tricks_won[w] += 1
    st.trick_no += 1
    last = st.trick_no >= st.tricks_total
    if st.contract is Contract.MAUDIX:
        if st.pending_tens:
            st.contamination[w] += 5 * st.pending_tens
        st.pending_tens = 0 if last else sum(1 for c in cards if c in TENS)
    st.trick = []
    st.led = None
    st.leader = w
    st.turn = w
    st.last_winner = w
    if st.voleur and not last and CARD_RANK[e.data["card"]] == JACK:
        st.phase = Phase.STEAL
        st.thief = w
    return st


def _on_theft_announced(st: State, e: Event) -> State:
    st.theft_target = e.data["target"]
    st.theft_suit = e.data["suit"]
    st.theft_end = e.data["end"]
    return st


def _end_theft(st: State) -> None:
    st.phase = Phase.PLAY
    st.thief = st.theft_target = None
    st.theft_suit = st.theft_end = st.stolen = None


def _on_theft_declined(st: State, e: Event) -> State:
    _end_theft(st)
    return st


def _on_theft_failed(st: State, e: Event) -> State:
    _end_theft(st)
    return st


def _on_card_stolen(st: State, e: Event) -> State:
    card = e.data["card"]
    st.hands[e.data["target"]].remove(card)
    s = e.seat
    assert s is not None  # the thief
    hand = st.hands[s]
    hand.append(card)
    hand.sort(key=CARD_ORDER.__getitem__)
    st.stolen = card
    st.phase = Phase.GIVE_BACK
    return st


def _on_card_returned(st: State, e: Event) -> State:
    card = e.data["card"]
    s = e.seat
    assert s is not None  # the thief
    st.hands[s].remove(card)
    hand = st.hands[e.data["target"]]
    hand.append(card)
    hand.sort(key=CARD_ORDER.__getitem__)
    _end_theft(st)
    return st


def _on_round_scored(st: State, e: Event) -> State:
    pts = e.data["points"]
    st.round_scores.append(list(pts))
    st.totals = [t + p for t, p in zip(st.totals, pts, strict=True)]
    st.turn = None
    return st


def _on_game_ended(st: State, e: Event) -> State:
    st.phase = Phase.OVER
    st.turn = None
    return st


_HANDLERS: dict[str, Callable[[State, Event], State]] = {
    "GameStarted": _on_game_started,
    "RoundDealt": _on_round_dealt,
    "EcartMade": _on_ecart_made,
    "EcartsExchanged": _on_ecarts_exchanged,
    "DesignationMade": _on_designation_made,
    "DesignationsRevealed": _on_designations_revealed,
    "BidMade": _on_bid_made,
    "CardPlayed": _on_card_played,
    "TrickWon": _on_trick_won,
    "TheftAnnounced": _on_theft_announced,
    "TheftDeclined": _on_theft_declined,
    "TheftFailed": _on_theft_failed,
    "CardStolen": _on_card_stolen,
    "CardReturned": _on_card_returned,
    "RoundScored": _on_round_scored,
    "GameEnded": _on_game_ended,
}
