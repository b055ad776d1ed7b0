"""Maudix state: the cards and contracts, the state of a table, who acts,
and ``evolve`` (docs/games/maudix.md, "Code map").

In order: the card tables every module reads (suits, ranks, hand order,
the jokers), the seven contracts and the phases of a round, the
:class:`State` dataclass, the queries on a state that the rules and the
views both need (:func:`awaiting`, :func:`is_over`, small card helpers),
then :func:`evolve` with one handler ``_on_<event>`` per event type,
gathered in :data:`EVENTS`.

The table options (``rules.Options``) are not imported here: the
``GameStarted`` event carries them dumped whole (every key, defaults
included: ``rules.start``), and :func:`_on_game_started` reads the plain
values into the state.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from shared.cards import RANK, SUIT, SUITS
from shared.engine import FastEnum
from shared.events import Event

# ---------------------------------------------------------------------------
# Cards (docs/games/maudix.md, "Cards and deal")
# ---------------------------------------------------------------------------

PIRATE = "PIRATE"
NAUFRAGE = "NAUFRAGE"
JOKERS: tuple[str, ...] = (PIRATE, NAUFRAGE)
TEN_HEARTS = "10H"
JACK, QUEEN = 11, 12

#: Suit of every code; jokers belong to no suit (None).
CARD_SUIT: dict[str, str | None] = {**SUIT, PIRATE: None, NAUFRAGE: None}
#: Rank of every code; jokers 0.
CARD_RANK: dict[str, int] = {**RANK, PIRATE: 0, NAUFRAGE: 0}
#: Display/sort order of hands: spades, hearts, diamonds, clubs, low to high, jokers last.
CARD_ORDER: dict[str, int] = {c: SUITS.index(SUIT[c]) * 20 + RANK[c] for c in RANK} | {PIRATE: 98, NAUFRAGE: 99}
TENS: frozenset[str] = frozenset(c for c in RANK if RANK[c] == 10)

#: Les Plis: points per trick by player count (rulings; 3, 4, 6 from §09.01).
#: Here because the state keeps the per-trick value of its table.
POINTS_PER_TRICK: dict[int, int] = {3: 3, 4: 5, 5: 7, 6: 8, 7: 4, 8: 5, 9: 6, 10: 7, 11: 8, 12: 8}


class Contract(FastEnum):
    """The seven contracts, in their fixed order of play (§03)."""

    PLIS = "plis"
    DAMES = "dames"
    TETES = "tetes"
    ASSOCIATION = "association"
    CHASSE = "chasse"
    PREDICTION = "prediction"
    MAUDIX = "maudix"


CONTRACT_ORDER: tuple[Contract, ...] = tuple(Contract)


class Phase(FastEnum):
    """Where a round stands."""

    ECART = "ecart"  # everybody sends 3 cards + a recipient (simultaneous)
    DESIGNATE = "designate"  # round 4: secret designations (simultaneous)
    BID = "bid"  # round 6: bids in turn order
    PLAY = "play"  # trick play
    STEAL = "steal"  # Voleur: the trick winner may steal (or decline)
    GIVE_BACK = "give_back"  # Voleur: the thief hands a card back
    OVER = "over"  # the game is finished


#: The phases (and the Maudix contract) as plain module names, for the code
#: run on every action: on Python 3.11 reading a member off an Enum class
#: (``Phase.PLAY``) goes through ``EnumType.__getattr__``'s slow attribute
#: hook, ~300 ns against ~20 ns for a module global.
ECART, DESIGNATE, BID, PLAY = Phase.ECART, Phase.DESIGNATE, Phase.BID, Phase.PLAY
STEAL, GIVE_BACK, OVER = Phase.STEAL, Phase.GIVE_BACK, Phase.OVER
MAUDIX_CONTRACT = Contract.MAUDIX


# ---------------------------------------------------------------------------
# State
# ---------------------------------------------------------------------------


@dataclass(slots=True)
class State:
    """The whole truth of a Maudix table (never shown as is; see ``views.view``).

    Seats are ``0..n-1``; per-seat lists are indexed by seat.  ``round`` is
    the 0-based index into ``contracts``.  ``None`` means "not yet".
    (Snapshots name this class and rebuild it field by field in this order.)
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


# ---------------------------------------------------------------------------
# Queries (rules and views)
# ---------------------------------------------------------------------------


#: ``ALONE[seat] == frozenset((seat,))``, built once (12 seats at most).
ALONE: tuple[frozenset[int], ...] = tuple(frozenset((seat,)) for seat in range(12))


def awaiting(state: State) -> frozenset[int]:
    """Seats that may act: all who have not sent their écart / designation;
    the bidder or player whose turn it is; the thief."""
    ph = state.phase
    if ph is PLAY or ph is BID:
        turn = state.turn
        assert turn is not None  # someone is on turn through the bidding and the play
        return ALONE[turn]
    if ph is ECART:
        return frozenset(s for s, t in enumerate(state.ecart_to) if t is None)
    if ph is DESIGNATE:
        return frozenset(s for s, t in enumerate(state.designations) if t is None)
    if ph is STEAL or ph is GIVE_BACK:
        thief = state.thief
        assert thief is not None  # set with the STEAL phase, cleared when the theft ends
        return ALONE[thief]
    return frozenset()


def is_over(state: State) -> bool:
    """True once the game is over (``scoring.result`` is not None)."""
    return state.phase is OVER


def count_in(cards: Sequence[str], code: str) -> int:
    """How many copies of ``code`` are in ``cards``."""
    return sum(1 for c in cards if c == code)


def remove_cards(hand: list[str], cards: Sequence[str]) -> None:
    """Remove one copy of each of ``cards`` from ``hand`` in place."""
    for c in cards:
        hand.remove(c)


# ---------------------------------------------------------------------------
# evolve: one handler per event type
# ---------------------------------------------------------------------------


def evolve(state: State | None, event: Event) -> State:
    """Apply one event (pure: no randomness, no clock); mutates and returns
    ``state`` (None before ``GameStarted``).

    Raises ``ValueError`` for an event type Maudix does not have."""
    try:
        handler = EVENTS[event.type]
    except KeyError:
        raise ValueError(f"unknown Maudix event {event.type!r}") from None
    return handler(state, event)


def _new_round(st: State, rnd: int, dealer: int, hands: list[list[str]], removed: list[str]) -> None:
    n = st.n
    st.round = rnd
    st.dealer = dealer
    st.phase = ECART
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


def _on_game_started(_: State | None, e: Event) -> State:
    d = e.data
    opts = d["options"]  # rules.Options dumped whole
    n = d["players"]
    st = State(
        n=n,
        contracts=tuple(Contract(c) for c in opts["contracts"]),
        voleur=opts["voleur"],
        hook=opts["hook"],
        return_stolen=opts["return_stolen"],
        per_trick=opts["points_per_trick"] or POINTS_PER_TRICK[n],
        options=dict(opts),
        round=0,
        dealer=d["dealer"],
        phase=ECART,
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
        st.phase = DESIGNATE
    elif c is Contract.PREDICTION:
        st.phase = BID
        st.turn = st.leader
    else:
        st.phase = PLAY
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
    st.phase = PLAY
    st.turn = st.leader
    return st


def _on_bid_made(st: State, e: Event) -> State:
    s = e.seat
    assert s is not None  # made by a seat
    st.bids[s] = e.data["tricks"]
    if any(b is None for b in st.bids):
        st.turn = (s + 1) % st.n
    else:
        st.phase = PLAY
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
    if st.contract is MAUDIX_CONTRACT:
        if st.pending_tens:
            st.contamination[w] += 5 * st.pending_tens
        st.pending_tens = 0 if last else sum(1 for c in cards if c in TENS)
    st.trick = []
    st.led = None
    st.leader = w
    st.turn = w
    st.last_winner = w
    if st.voleur and not last and CARD_RANK[e.data["card"]] == JACK:
        st.phase = STEAL
        st.thief = w
    return st


def _on_theft_announced(st: State, e: Event) -> State:
    st.theft_target = e.data["target"]
    st.theft_suit = e.data["suit"]
    st.theft_end = e.data["end"]
    return st


def _end_theft(st: State) -> None:
    st.phase = PLAY
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
    st.phase = GIVE_BACK
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
    st.phase = OVER
    st.turn = None
    return st


#: Event type -> its handler ``(state, event) -> state`` (the state is None
#: only for ``GameStarted``).  Events: docs/games/maudix.md, "Events".
EVENTS: dict[str, Callable[[Any, Event], State]] = {
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
