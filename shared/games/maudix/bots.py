"""Maudix bots: ``random``, ``heuristic`` and ``strong`` (docs/bots-maudix.md).

A strategy is ``(view, legal_actions, rng) -> action`` (shared.engine.Strategy):
it sees only its seat's view and legal actions.

* ``random``: any legal action, uniformly.
* ``heuristic``: per contract.  In the avoiding contracts (1–4, 7, and 6
  once the bid is reached) it ducks under the current winner, dumps its most
  costly cards when void, and passes its most dangerous cards in the écart;
  in La Chasse (and in 6 while short of its bid) it takes tricks with its
  cheapest winning card.  Bids estimate sure tricks (Pirate, high spades,
  aces); designations go to the player who passed it cards; the Voleur
  swaps a dangerous card for a low one (or a low one for a high one when
  taking).
* ``strong``: determinized Monte Carlo for card play and bids.  It samples
  the unseen cards consistently with what its seat knows (its hand, the
  cards seen played, voids shown by failing to follow or by a failed theft,
  cards it passed or that changed hands with it), plays every candidate to
  the end of the round with the heuristic on every seat, and keeps the
  candidate with the lowest mean points for itself.  The number of samples
  is a fixed work budget (no clock: games never read the time), sized to
  stay well under 250 ms per decision.

Memory.  The rules let players remember but not consult gathered tricks,
so views do not list past tricks.  ``strong`` therefore takes an optional
``feed`` keyword: the seat's own redacted events of the current round (what
it saw happen).  Without it (the plain Strategy call) it samples from the
view alone: its hand, the current trick, the hand sizes.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from shared.games.maudix.rules import deck_for, playable
from shared.games.maudix.scoring import round_points
from shared.games.maudix.state import CARD_RANK, CARD_SUIT, JOKERS, NAUFRAGE, PIRATE, TEN_HEARTS, TENS, Contract

SUITS = ("S", "H", "D", "C")
AVOID_CONTRACTS = frozenset({Contract.PLIS, Contract.DAMES, Contract.TETES, Contract.ASSOCIATION, Contract.MAUDIX})


def _danger_table(contract: Contract) -> dict[str, int]:
    """Points a card costs its captor in ``contract`` (the 10♥ bonus included)."""
    table = {c: 0 for c in CARD_SUIT}
    for c in CARD_SUIT:
        s, r = CARD_SUIT[c], CARD_RANK[c]
        if contract is Contract.DAMES and r == 12:
            table[c] = 20
        elif contract is Contract.TETES and r >= 11 or contract is Contract.ASSOCIATION and s == "H":
            table[c] = 5
        elif contract is Contract.MAUDIX and r == 10:
            table[c] = 20
    table[TEN_HEARTS] = 50 if contract is Contract.MAUDIX else table[TEN_HEARTS] + 10
    return table


DANGER: dict[Contract, dict[str, int]] = {c: _danger_table(c) for c in Contract}


# ---------------------------------------------------------------------------
# Trick helpers (incremental winner key, as rules.trick_winner)
# ---------------------------------------------------------------------------


def card_key(card: str, led: str | None, pos: int) -> tuple[int, int]:
    """Strength of ``card`` in a trick led in ``led`` (None: not set yet), played at ``pos``."""
    if card == PIRATE:
        return (3, pos)
    s = CARD_SUIT[card]
    if s == "S":
        return (2, CARD_RANK[card])
    if s is not None and (s == led or led is None):
        return (1, CARD_RANK[card])
    return (0, 0)


def best_of(trick: Sequence[tuple[int, str]]) -> tuple[tuple[int, int], int | None, str | None]:
    """``(best key, winning seat, led suit)`` of a partial trick."""
    best, seat, led = (-1, -1), None, None
    for i, (s, c) in enumerate(trick):
        if led is None and CARD_SUIT[c] is not None:
            led = CARD_SUIT[c]
        k = card_key(c, led, i)
        if k > best:
            best, seat = k, s
    return best, seat, led


def beats(card: str, best: tuple[int, int], led: str | None, pos: int) -> bool:
    """Would ``card`` played at ``pos`` take the lead from ``best``?"""
    return card_key(card, led, pos) > best


# ---------------------------------------------------------------------------
# The heuristic, on plain values (also the rollout policy of ``strong``)
# ---------------------------------------------------------------------------


def heuristic_card(
    cards: Sequence[str],
    trick: Sequence[tuple[int, str]],
    n: int,
    take: bool,
    danger: Mapping[str, int],
    best: tuple[int, int] | None = None,
    led: str | None = None,
) -> str:
    """Choose a card among the legal ``cards`` for the current ``trick``.

    ``take``: the seat wants this trick (La Chasse, or short of its bid).
    ``danger``: points per card for the contract (see ``DANGER``).
    ``best``/``led``: the trick's current best key and led suit when the
    caller tracks them (rollouts); computed from ``trick`` otherwise.
    """
    if len(cards) == 1:
        return cards[0]
    if not trick:
        return _lead_to_take(cards, danger) if take else _lead_to_duck(cards, danger)
    if best is None:
        best, _, led = best_of(trick)
    winners, losers = _split_by_lead(cards, best, led)
    last = len(trick) == n - 1
    if take:
        return _follow_to_take(winners, losers, last, danger)
    return _follow_to_duck(trick, winners, losers, last, danger)


def _lead_to_take(cards: Sequence[str], danger: Mapping[str, int]) -> str:
    """The lead of a seat that wants the trick: the Pirate, else a spade Q or higher,
    else its least costly card (the highest among equals); ``cards``: two or more."""
    if PIRATE in cards:
        return PIRATE
    rank = CARD_RANK
    spades = [c for c in cards if CARD_SUIT[c] == "S"]
    if spades:
        top = max(spades, key=rank.__getitem__)
        if rank[top] >= 12:
            return top
    normal = [c for c in cards if c not in JOKERS]
    if normal:
        return max(normal, key=lambda c: (-danger[c], rank[c]))
    return cards[0]


def _lead_to_duck(cards: Sequence[str], danger: Mapping[str, int]) -> str:
    """The lead of a seat avoiding the trick: its lowest harmless non-spade card, or the
    Naufragé when that card is a head or costly; ``cards``: two or more."""
    rank, suit = CARD_RANK, CARD_SUIT
    normal = [c for c in cards if c not in JOKERS]
    if normal:
        low = min(normal, key=lambda c: (danger[c] > 0, suit[c] == "S", rank[c]))
        if NAUFRAGE in cards and (rank[low] >= 11 or danger[low] > 0):
            return NAUFRAGE
        return low
    return NAUFRAGE if NAUFRAGE in cards else cards[0]


def _split_by_lead(cards: Sequence[str], best: tuple[int, int], led: str | None) -> tuple[list[str], list[str]]:
    """``(winners, losers)``: the ``cards`` that would take the lead from ``best`` in a
    trick led in ``led``, and the others, each in ``cards`` order (card_key, inlined)."""
    rank, suit = CARD_RANK, CARD_SUIT
    b0, b1 = best
    winners: list[str] = []
    losers: list[str] = []
    for c in cards:
        if c == PIRATE:
            winners.append(c)
            continue
        s = suit[c]
        if s == "S":
            w = b0 < 2 or (b0 == 2 and rank[c] > b1)
        elif s is not None and (s == led or led is None):
            w = b0 < 1 or (b0 == 1 and rank[c] > b1)
        else:
            w = False
        (winners if w else losers).append(c)
    return winners, losers


def _follow_to_take(winners: list[str], losers: list[str], last: bool, danger: Mapping[str, int]) -> str:
    """Following a trick the seat wants: its cheapest winner when it plays last (or has
    one winner), else its highest least costly non-Pirate winner; without a winner, the
    Naufragé or its cheapest loser.  ``last``: the seat closes the trick."""
    rank = CARD_RANK
    if winners:
        if last or len(winners) == 1:
            return min(winners, key=lambda c: (danger[c], c == PIRATE, rank[c]))
        non_p = [c for c in winners if c != PIRATE]
        if non_p:
            return max(non_p, key=lambda c: (-danger[c], rank[c]))
        return PIRATE
    if NAUFRAGE in losers:
        return NAUFRAGE
    return min(losers, key=lambda c: (danger[c], rank[c]))


def _follow_to_duck(
    trick: Sequence[tuple[int, str]], winners: list[str], losers: list[str], last: bool, danger: Mapping[str, int]
) -> str:
    """Following a trick the seat avoids: dump its costliest (then highest, spades first)
    loser other than the Naufragé; when every other card would win, see :func:`_forced_to_win`."""
    rank, suit = CARD_RANK, CARD_SUIT
    non_n = [c for c in losers if c != NAUFRAGE]
    if non_n:
        return max(non_n, key=lambda c: (danger[c], rank[c] + (20 if suit[c] == "S" else 0)))
    return _forced_to_win(trick, winners, losers, last, danger)


def _forced_to_win(
    trick: Sequence[tuple[int, str]], winners: list[str], losers: list[str], last: bool, danger: Mapping[str, int]
) -> str:
    """Avoiding, with every card but perhaps the Naufragé (``losers``) winning: the
    Naufragé unless a harmless trick can be taken last; else the cheapest winner, the
    highest when last (the trick is then settled), the lowest otherwise."""
    if losers:
        trick_danger = 0
        for _, c in trick:
            trick_danger += danger[c]
        if trick_danger > 0 or not last or len(winners) == 0:
            return NAUFRAGE
    rank = CARD_RANK
    if last:
        return min(winners, key=lambda c: (danger[c], -(15 if c == PIRATE else rank[c])))
    return min(winners, key=lambda c: (danger[c], 15 if c == PIRATE else rank[c]))


def wants_trick(contract: Contract, suits_captured: Iterable[str] | None, bid: int | None, won: int) -> bool:
    """Does a seat play to take tricks now?  La Chasse until it holds every suit; La Prédiction below its bid."""
    if contract is Contract.CHASSE:
        return suits_captured is None or len(set(suits_captured)) < 4
    if contract is Contract.PREDICTION:
        return bid is not None and won < bid
    return False


def ecart_score(card: str, contract: Contract) -> float:
    """How much a seat wants to pass ``card`` in ``contract`` (higher: pass first)."""
    r = CARD_RANK[card]
    s = CARD_SUIT[card]
    if card == PIRATE:
        return -50 if contract in (Contract.CHASSE,) else 16
    if card == NAUFRAGE:
        return 40 if contract is Contract.CHASSE else -50
    d = DANGER[contract][card]
    if contract is Contract.CHASSE:
        return (15 - r) + (-10 if s == "S" else 0) + d
    if contract is Contract.PREDICTION:
        return -abs(r - 9) + d
    spade_bonus = 3 if s == "S" else 0
    return d * 2 + r + spade_bonus


def estimate_tricks(hand: Sequence[str], n: int) -> float:
    """A bid estimate: Pirate, high spades, long spades, aces and guarded kings."""
    est = 0.0
    spades = sorted((CARD_RANK[c] for c in hand if CARD_SUIT[c] == "S"), reverse=True)
    if PIRATE in hand:
        est += 1.0
    for r in spades:
        est += {14: 0.95, 13: 0.8, 12: 0.6, 11: 0.4, 10: 0.25}.get(r, 0.0)
    est += max(0, len(spades) - 3) * 0.5
    by_suit = Counter(CARD_SUIT[c] for c in hand if CARD_SUIT[c] not in (None, "S"))
    for c in hand:
        s = CARD_SUIT[c]
        if s in (None, "S"):
            continue
        if CARD_RANK[c] == 14:
            est += 0.75 if by_suit[s] <= 4 else 0.5
        elif CARD_RANK[c] == 13 and 2 <= by_suit[s] <= 4:
            est += 0.35
    return est * (4 / n) ** 0.3


# ---------------------------------------------------------------------------
# Strategies on views
# ---------------------------------------------------------------------------


def random_strategy(view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], rng: random.Random) -> dict:
    """Any legal action, uniformly at random."""
    return dict(rng.choice(legal))


def _contract(view: Mapping[str, Any]) -> Contract:
    return Contract(view["contract"])


def _take_from_view(view: Mapping[str, Any]) -> bool:
    c = _contract(view)
    me = view["seat"]
    if c is Contract.CHASSE:
        return True
    if c is Contract.PREDICTION:
        return wants_trick(c, None, view["bids"][me], view["tricks_won"][me])
    return False


def heuristic_ecart(view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], rng: random.Random) -> dict:
    """Pass the three cards the contract makes most dangerous (or least useful) to a random allowed recipient."""
    c = _contract(view)
    hand = list(view["hand"])
    chosen = sorted(hand, key=lambda x: -ecart_score(x, c))[:3]
    recips = sorted({a["to"] for a in legal})
    return {"type": "ecart", "cards": chosen, "to": rng.choice(recips)}


def heuristic_designate(view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], rng: random.Random) -> dict:
    """Designate the player who passed us cards (they shed theirs), else at random."""
    giver = (view.get("my_ecart") or {}).get("from")
    targets = [a["target"] for a in legal]
    return {"type": "designate", "target": giver if giver in targets else rng.choice(targets)}


def heuristic_bid(view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], rng: random.Random) -> dict:
    """Bid the rounded trick estimate; the nearest allowed bid under the hook."""
    est = estimate_tricks(view["hand"], view["players"])
    allowed = [a["tricks"] for a in legal]
    k = min(allowed, key=lambda b: (abs(b - est), b))
    return {"type": "bid", "tricks": k}


def heuristic_steal(view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], rng: random.Random) -> dict:
    """As the Voleur: trade a costly card for a low one (avoiding), or a low one for a high one (taking)."""
    steals = [a for a in legal if a["type"] == "steal"]
    if not steals:
        return {"type": "decline"}
    c = _contract(view)
    danger = DANGER[c]
    suits = {a["suit"] for a in steals}
    hand = [x for x in view["hand"] if CARD_SUIT[x] in suits]
    targets = sorted({a["target"] for a in steals})
    target = rng.choice(targets)
    if _take_from_view(view):
        low = min(hand, key=lambda x: (-danger[x], CARD_RANK[x]))
        if CARD_RANK[low] > 9:
            return {"type": "decline"}
        return {"type": "steal", "target": target, "suit": CARD_SUIT[low], "end": "high"}
    worst = max(hand, key=lambda x: (danger[x], CARD_RANK[x]))
    if danger[worst] == 0 and CARD_RANK[worst] < 11:
        return {"type": "decline"}
    return {"type": "steal", "target": target, "suit": CARD_SUIT[worst], "end": "low"}


def heuristic_give_back(view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], rng: random.Random) -> dict:
    """Hand back the costliest card of the suit (avoiding) or the lowest (taking)."""
    c = _contract(view)
    danger = DANGER[c]
    cards = [a["card"] for a in legal]
    if _take_from_view(view):
        pick = min(cards, key=lambda x: (danger[x], CARD_RANK[x]))
    else:
        pick = max(cards, key=lambda x: (danger[x], CARD_RANK[x]))
    return {"type": "give_back", "card": pick}


def heuristic_play_view(view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], rng: random.Random) -> dict:
    """Trick play by :func:`heuristic_card` from the view."""
    c = _contract(view)
    cards = [a["card"] for a in legal]
    trick = [(t["seat"], t["card"]) for t in view["trick"]]
    return {"type": "play", "card": heuristic_card(cards, trick, view["players"], _take_from_view(view), DANGER[c])}


_PHASE_HEURISTIC = {
    "ecart": heuristic_ecart,
    "designate": heuristic_designate,
    "bid": heuristic_bid,
    "steal": heuristic_steal,
    "give_back": heuristic_give_back,
    "play": heuristic_play_view,
}


def heuristic_strategy(view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], rng: random.Random) -> dict:
    """The per-contract heuristic (module doc)."""
    return _PHASE_HEURISTIC[view["phase"]](view, legal, rng)


# ---------------------------------------------------------------------------
# What a seat knows: from its view and (optionally) its feed of the round
# ---------------------------------------------------------------------------


@dataclass
class Knowledge:
    """What seat ``me`` knows about the current round.

    ``played``: every card seen played this round (a Counter);
    ``voids[s]``: suits seat ``s`` has shown it lacks; ``known[s]``: cards
    ``me`` knows ``s`` holds (passed by ``me``, or moved in ``me``'s thefts);
    ``captured[s]``: cards of the tricks ``s`` won this round (from the
    feed); ``pending_tens``: 10s in the last gathered trick (Maudix).
    """

    me: int
    n: int
    contract: Contract
    hand: list[str]
    hand_sizes: list[int]
    played: Counter = field(default_factory=Counter)
    voids: list[set] = field(default_factory=list)
    known: list[Counter] = field(default_factory=list)
    captured: list[list[str]] = field(default_factory=list)
    pending_tens: int = 0
    from_feed: bool = False


def _round_events(feed: Sequence[Any]) -> list[Any]:
    start = 0
    for i, e in enumerate(feed):
        if _etype(e) in ("GameStarted", "RoundDealt"):
            start = i
    return list(feed[start:])


def _etype(e: Any) -> str:
    return e.type if hasattr(e, "type") else e["type"]


def _edata(e: Any) -> dict:
    return e.data if hasattr(e, "data") else e["data"]


def _eseat(e: Any) -> int | None:
    return e.seat if hasattr(e, "seat") else e.get("seat")


def knowledge(view: Mapping[str, Any], feed: Sequence[Any] | None = None) -> Knowledge:
    """Build the seat's :class:`Knowledge` from its view and (optionally) its redacted feed.

    ``feed``: the seat's redacted events (``Event`` objects or their JSON
    form), at least since the current round's deal.
    """
    me = view["seat"]
    n = view["players"]
    k = Knowledge(
        me=me,
        n=n,
        contract=Contract(view["contract"]),
        hand=list(view["hand"]),
        hand_sizes=list(view["hand_sizes"]),
        voids=[set() for _ in range(n)],
        known=[Counter() for _ in range(n)],
        captured=[[] for _ in range(n)],
    )
    if feed:
        _read_feed(k, feed)
    else:
        _read_trick(k, [(t["seat"], t["card"]) for t in view["trick"]])
    k.known[me] = Counter()
    return k


def _read_feed(k: Knowledge, feed: Sequence[Any]) -> None:
    """Fill ``k`` from the current round's events of ``feed`` (cards passed, played,
    gathered and moved by thefts; voids shown), in order."""
    k.from_feed = True
    trick: list[tuple[int, str]] = []  # the trick in progress, as (seat, card)
    theft: tuple[int, int, str] | None = None  # the last announced (thief, target, suit)
    for e in _round_events(feed):
        t, d, s = _etype(e), _edata(e), _eseat(e)
        if t == "EcartsExchanged":
            _note_ecarts(k, d["passes"])
        elif t == "CardPlayed":
            assert s is not None  # played by a seat
            _note_play(k, trick, s, d["card"])
        elif t == "TrickWon":
            _note_trick_won(k, trick, d["winner"])
            trick = []
        elif t == "TheftAnnounced":
            assert s is not None  # the thief
            theft = (s, d["target"], d["suit"])
        elif t == "TheftFailed":
            assert s is not None  # the target, void in the suit
            k.voids[s].add(d["suit"])
        elif t in ("CardStolen", "CardReturned") and theft is not None:
            _note_theft_move(k, theft, t == "CardStolen", d.get("card"))
    k.known = [+c for c in k.known]


def _note_ecarts(k: Knowledge, passes: Sequence[Any]) -> None:
    """The cards ``k.me`` passed: known in their recipient's hand.  ``passes``: ``(giver, recipient, cards | None)``."""
    for g, r, cards in passes:
        if g == k.me and cards is not None:
            k.known[r].update(cards)


def _note_play(k: Knowledge, trick: list[tuple[int, str]], seat: int, card: str) -> None:
    """``seat`` plays ``card`` on ``trick`` (appended): seen played, no longer known in
    its hand, and a void in the led suit when it does not follow (a Joker always may)."""
    led = next((CARD_SUIT[x] for _, x in trick if CARD_SUIT[x] is not None), None)
    if led is not None and card not in JOKERS and CARD_SUIT[card] != led:
        k.voids[seat].add(led)
    trick.append((seat, card))
    k.played[card] += 1
    if k.known[seat][card] > 0:
        k.known[seat][card] -= 1


def _note_trick_won(k: Knowledge, trick: Sequence[tuple[int, str]], winner: int) -> None:
    """``winner`` gathers ``trick``: its captured cards, and the 10s now pending (Maudix)."""
    k.captured[winner].extend(c for _, c in trick)
    k.pending_tens = sum(1 for _, c in trick if c in TENS)


def _note_theft_move(k: Knowledge, theft: tuple[int, int, str], stolen: bool, card: str | None) -> None:
    """A card of ``theft`` (``(thief, target, suit)``) changes hands: taken by the thief
    (``stolen``) or handed back to the target.  ``card``: None when ``k.me`` may not see
    it, then what ``k.me`` knew of that suit in both hands is forgotten."""
    thief, target, suit = theft
    giver, taker = (target, thief) if stolen else (thief, target)
    if card is None:
        for p in (thief, target):
            for x in [x for x in k.known[p] if CARD_SUIT[x] == suit]:
                del k.known[p][x]
        return
    if k.known[giver][card] > 0:
        k.known[giver][card] -= 1
    if taker != k.me:
        k.known[taker][card] += 1


def _read_trick(k: Knowledge, trick: Sequence[tuple[int, str]]) -> None:
    """Without a feed: the cards of the current ``trick`` (``(seat, card)``) are seen
    played, and a seat that did not follow the led suit is void in it."""
    led = None
    for s, c in trick:
        k.played[c] += 1
        if led is not None and c not in JOKERS and CARD_SUIT[c] != led:
            k.voids[s].add(led)
        if led is None and CARD_SUIT[c] is not None:
            led = CARD_SUIT[c]


def sample_hands(k: Knowledge, rng: random.Random, tries: int = 20) -> list[list[str]]:
    """One determinization: a hand for every seat consistent with ``k``.

    ``me`` keeps its own hand.  Every other seat gets the cards ``me`` knows
    it holds, then unseen cards drawn so that nobody gets a card of a suit
    it has shown void in; the unseen cards left over are the removed ones
    (or, without a feed, cards already gathered).  Never hands out a card
    ``me`` has seen elsewhere (its hand, played, or known in another hand).
    Cards are placed most constrained first, at random among the seats that
    may hold them, with a one-swap repair when a card finds no room.
    """
    n, me = k.n, k.me
    pool = Counter(deck_for(n))
    pool.subtract(k.hand)
    pool.subtract(k.played)
    for s in range(n):
        if s != me:
            pool.subtract(k.known[s])
    unseen = list((+pool).elements())
    need = [0] * (n + 1)  # index n: the cards out of play (removed / gathered)
    for s in range(n):
        if s != me:
            need[s] = max(0, k.hand_sizes[s] - sum(k.known[s].values()))
    need[n] = len(unseen) - sum(need)
    voids = [frozenset(v) for v in k.voids] + [frozenset()]
    holders = [s for s in range(n + 1) if s != me and need[s] > 0]
    by_suit = {su: [s for s in holders if su not in voids[s]] for su in (*SUITS, None)}
    for _ in range(tries):
        rng.shuffle(unseen)
        order = sorted(unseen, key=lambda c: len(by_suit[CARD_SUIT[c]]))
        left = list(need)
        drawn: list[list[str]] = [[] for _ in range(n + 1)]
        ok = True
        for c in order:
            seats = [s for s in by_suit[CARD_SUIT[c]] if left[s]]
            if seats:
                x = rng.randrange(sum(left[s] for s in seats))
                for s in seats:
                    if x < left[s]:
                        break
                    x -= left[s]
                drawn[s].append(c)
                left[s] -= 1
                continue
            # Repair: a seat that may hold c gives one of its cards to a seat with room for it.
            su = CARD_SUIT[c]
            done = False
            free = [t for t in holders if left[t]]
            for s in rng.sample(by_suit[su], len(by_suit[su])):
                for i, d in enumerate(drawn[s]):
                    t = next((t for t in free if CARD_SUIT[d] not in voids[t]), None)
                    if t is not None:
                        drawn[s][i] = c
                        drawn[t].append(d)
                        left[t] -= 1
                        done = True
                        break
                if done:
                    break
            if not done:
                ok = False
                break
        if ok:
            return [list(k.hand) if s == me else list(k.known[s].elements()) + drawn[s] for s in range(n)]
    raise RuntimeError("no deal consistent with what the seat knows")


# ---------------------------------------------------------------------------
# Rollouts
# ---------------------------------------------------------------------------


@dataclass
class Rollout:
    """A determinized position to play out to the end of the round."""

    contract: Contract
    n: int
    me: int
    per_trick: int
    tricks_total: int
    tricks_played: int
    trick: list[tuple[int, str]]
    turn: int
    bids: list[int | None]
    designations: list[int | None]
    tricks_won: list[int]
    captured: list[list[str]]
    pending_tens: int


def rollout(r: Rollout, hands: list[list[str]], first: str | None) -> int:
    """Play the round out with the heuristic on every seat; ``me``'s points.

    ``first``: the card ``me`` plays now (None: the heuristic chooses).
    Mutates ``hands``.  The Voleur is not simulated.
    """
    n = r.n
    contract = r.contract
    danger = DANGER[contract]
    trick = list(r.trick)
    tricks_won = list(r.tricks_won)
    captured = [list(c) for c in r.captured]
    contamination = [0] * n
    pending = r.pending_tens
    played = r.tricks_played
    total = r.tricks_total
    turn = r.turn
    bids = r.bids
    chasse = contract is Contract.CHASSE
    # Suits captured per seat, kept (and read) in La Chasse only.
    suits_got = [{CARD_SUIT[c] for c in pile if CARD_SUIT[c] is not None} for pile in captured] if chasse else []
    best, lead, led = best_of(trick)
    # Every card beats the (-1, -1) of an empty trick: its first card leads, and ``turn`` plays it.
    w = turn if lead is None else lead
    while True:
        hand = hands[turn]
        if first is not None:
            card, first = first, None
        else:
            cards = playable(hand, led)
            if contract is Contract.PREDICTION:
                bid = bids[turn]
                take = bid is not None and tricks_won[turn] < bid
            elif chasse:
                take = len(suits_got[turn]) < 4
            else:
                take = False
            card = heuristic_card(cards, trick, n, take, danger, best, led)
        hand.remove(card)
        if led is None:
            led = CARD_SUIT[card]
        k = card_key(card, led, len(trick))
        if k > best:
            best, w = k, turn
        trick.append((turn, card))
        if len(trick) < n:
            turn = (turn + 1) % n
            continue
        cards_t = [c for _, c in trick]
        captured[w].extend(cards_t)
        tricks_won[w] += 1
        played += 1
        if chasse:
            suits_got[w].update(CARD_SUIT[c] for c in cards_t if CARD_SUIT[c] is not None)
        if contract is Contract.MAUDIX:
            contamination[w] += 5 * pending
            pending = sum(1 for c in cards_t if c in TENS)
        if played >= total:
            break
        trick = []
        led = None
        turn = w
        best = (-1, -1)  # w stays the leader, who plays the next trick's first card
    return round_points(
        contract,
        captured,
        tricks_won,
        per_trick=r.per_trick,
        bids=bids,
        designations=r.designations,
        contamination=contamination,
    )[r.me]


def _rollout_base(view: Mapping[str, Any], k: Knowledge) -> Rollout:
    me = view["seat"]
    return Rollout(
        contract=k.contract,
        n=k.n,
        me=me,
        per_trick=view["points_per_trick"],
        tricks_total=view["tricks_total"],
        tricks_played=view["tricks_played"],
        trick=[(t["seat"], t["card"]) for t in view["trick"]],
        turn=view["turn"] if view["turn"] is not None else me,
        bids=list(view["bids"]),
        designations=[d if d is not None else s for s, d in enumerate(view["designations"])],
        tricks_won=list(view["tricks_won"]),
        captured=k.captured if k.from_feed else [[] for _ in range(k.n)],
        pending_tens=k.pending_tens if k.from_feed else 0,
    )


#: Simulated card plays per decision (sets the strong bot's thinking time).
PLAY_BUDGET = 18000
MIN_SAMPLES, MAX_SAMPLES = 6, 60


def strong_play(view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], rng: random.Random, feed=None) -> dict:
    """Determinized Monte Carlo over the legal cards (common samples for every candidate)."""
    cards = list(dict.fromkeys(a["card"] for a in legal))
    if len(cards) == 1:
        return {"type": "play", "card": cards[0]}
    k = knowledge(view, feed)
    base = _rollout_base(view, k)
    remaining = sum(k.hand_sizes) + len(base.trick)
    samples = max(MIN_SAMPLES, min(MAX_SAMPLES, PLAY_BUDGET // max(1, len(cards) * remaining)))
    totals = dict.fromkeys(cards, 0)
    fallback = heuristic_play_view(view, legal, rng)["card"]
    for _ in range(samples):
        try:
            hands = sample_hands(k, rng)
        except RuntimeError:  # pragma: no cover - knowledge always admits the real deal
            return {"type": "play", "card": fallback}
        for c in cards:
            totals[c] += rollout(base, [list(h) for h in hands], c)
    best = min(cards, key=lambda c: (totals[c], c != fallback))
    return {"type": "play", "card": best}


def strong_bid(view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], rng: random.Random, feed=None) -> dict:
    """Try the bids near the estimate in rollouts that aim at each; keep the lowest mean penalty."""
    allowed = [a["tricks"] for a in legal]
    est = estimate_tricks(view["hand"], view["players"])
    cands = sorted(allowed, key=lambda b: (abs(b - est), b))[:4]
    k = knowledge(view, feed)
    base = _rollout_base(view, k)
    remaining = sum(k.hand_sizes)
    samples = max(MIN_SAMPLES, min(30, PLAY_BUDGET // max(1, len(cands) * remaining)))
    totals = dict.fromkeys(cands, 0)
    me = view["seat"]
    for _ in range(samples):
        try:
            hands = sample_hands(k, rng)
        except RuntimeError:  # pragma: no cover
            return heuristic_bid(view, legal, rng)
        # Unknown later bids: the others bid their estimate.
        bids = list(base.bids)
        for s in range(k.n):
            if s != me and bids[s] is None:
                bids[s] = round(estimate_tricks(hands[s], k.n))
        for b in cands:
            bids[me] = b
            r = Rollout(**{**base.__dict__, "bids": list(bids), "turn": view["leader"]})
            totals[b] += rollout(r, [list(h) for h in hands], None)
    best = min(cands, key=lambda b: (totals[b], abs(b - est)))
    return {"type": "bid", "tricks": best}


#: Simulated card plays for an écart decision (once per round).
ECART_BUDGET = 16000
ECART_TOP = 6


def strong_ecart(view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], rng: random.Random, feed=None) -> dict:
    """Monte Carlo over the 3-card sets drawn from the six cards the heuristic most wants to pass.

    Each sample deals the unseen cards at random (3 of them to this seat as
    its receipt, the rest to the others and the removed pile), gives the
    candidate set to the recipient, and plays the round out with the
    heuristic; the set with the lowest mean points for this seat wins.
    """
    contract = _contract(view)
    me, n = view["seat"], view["players"]
    hand = list(view["hand"])
    recips = sorted({a["to"] for a in legal})
    to = rng.choice(recips)
    ranked = sorted(hand, key=lambda x: -ecart_score(x, contract))
    heur = ranked[:3]
    top = ranked[:ECART_TOP]
    cands: list[tuple[str, ...]] = list(dict.fromkeys(tuple(sorted(c)) for c in _triples(top)))
    h = len(hand)
    samples = max(3, min(24, ECART_BUDGET // max(1, len(cands) * h * n)))
    pool_all = Counter(deck_for(n))
    pool_all.subtract(hand)
    pool = list((+pool_all).elements())
    totals = dict.fromkeys(cands, 0)
    leader = (view["dealer"] + 1) % n
    for _ in range(samples):
        rng.shuffle(pool)
        received = pool[:3]
        rest = pool[3:]
        others: dict[int, list[str]] = {}
        i = 0
        for s in range(n):
            if s == me:
                continue
            size = h - 3 if s == to else h
            others[s] = rest[i : i + size]
            i += size
        bids: list[int | None] = [None] * n
        designations: list[int | None] = [None] * n
        for cand in cands:
            mine = list(hand)
            for x in cand:
                mine.remove(x)
            mine += received
            hands = [mine if s == me else (others[s] + list(cand) if s == to else list(others[s])) for s in range(n)]
            if contract is Contract.PREDICTION:
                bids = [round(estimate_tricks(hands[s], n)) for s in range(n)]
            elif contract is Contract.ASSOCIATION:
                designations = [(s + 1) % n for s in range(n)]
            r = Rollout(
                contract=contract,
                n=n,
                me=me,
                per_trick=view["points_per_trick"],
                tricks_total=h,
                tricks_played=0,
                trick=[],
                turn=leader,
                bids=bids,
                designations=designations,
                tricks_won=[0] * n,
                captured=[[] for _ in range(n)],
                pending_tens=0,
            )
            totals[cand] += rollout(r, hands, None)
    heur_t = tuple(sorted(heur))
    best = min(cands, key=lambda c: (totals[c], c != heur_t))
    return {"type": "ecart", "cards": list(best), "to": to}


def _triples(cards: Sequence[str]) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    k = len(cards)
    for a in range(k):
        for b in range(a + 1, k):
            for c in range(b + 1, k):
                out.append((cards[a], cards[b], cards[c]))
    return out


def strong_strategy(
    view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], rng: random.Random, feed: Sequence[Any] | None = None
) -> dict:
    """Monte Carlo for the écart, bids and card play; the heuristic elsewhere (module doc)."""
    phase = view["phase"]
    if phase == "play":
        return strong_play(view, legal, rng, feed)
    if phase == "bid":
        return strong_bid(view, legal, rng, feed)
    if phase == "ecart":
        return strong_ecart(view, legal, rng, feed)
    return _PHASE_HEURISTIC[phase](view, legal, rng)


STRATEGIES = {"random": random_strategy, "heuristic": heuristic_strategy, "strong": strong_strategy}
