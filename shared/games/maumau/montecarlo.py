"""Mau Mau's ``strong`` bot: information-set Monte Carlo (issue 15).

The bot sees only its seat's view and, when given, its seat's feed.  From
them it knows its own hand, every hand's size, the talon's size and the
discard pile: its top card from the view, the cards below it from the
feed (every card played since the last deal or reshuffle; without a feed
they are unknown and dealt like the other unseen cards).  The feed also
tells when an opponent drew because nothing fitted: that opponent then
held none of the cards that fitted, apart from the cards drawn since
(:class:`Memory`).

A decision (:func:`choose`) starts from the heuristic bot's own choice.
It deals the unseen cards at random into the other hands, the talon and
the hidden part of the discard pile (:func:`determinise`), several times;
for each candidate action it plays the round on to its end on every deal
(:func:`rollout`) with the heuristic for every seat (:func:`heuristic_move`,
the same bot read off the state), and scores the outcome: the mean of the
other players' round points minus its own (:func:`outcome`).  Every
candidate is tried on the same deals with the same dice (common random
numbers), and another candidate replaces the heuristic's choice only when
its mean gain over it exceeds :data:`MARGIN` standard errors of the
paired differences.  The budget is a count of rollouts (:data:`ROLLOUTS`),
never a clock.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from shared.cards import JACK, RANK, SUIT, SUITS, shoe
from shared.engine import Strategy
from shared.games.maumau.rules import decide
from shared.games.maumau.scoring import POINTS
from shared.games.maumau.state import (
    EIGHT,
    MAU,
    MAUMAU,
    PLAYABLE_ON,
    PLAYABLE_WISHED,
    SEVEN,
    Call,
    Phase,
    State,
    Window,
    clone,
    evolve,
    playable_set,
    rules_from,
)

#: Hand size at or under which an opponent is a threat (as the heuristic's).
THREAT = 2
#: Rollouts per decision, shared out among the candidate actions.
ROLLOUTS = 240
#: Deals per candidate at least (more rollouts than the budget when many candidates).
MIN_DEALS = 6
#: Standard errors by which a candidate must beat the policy's own choice.
MARGIN = 1.0
#: Actions a rollout plays at most before it scores the hands as they are.
HORIZON = 300


@dataclass(slots=True)
class Memory:
    """What a seat's feed tells beyond its view: ``discard`` (the discard
    pile bottom to top, since the last deal or reshuffle) and, per
    opponent, ``voids[seat] = (cards, new)``: at its last draw for want of
    a playable card it held none of ``cards``; ``new`` cards came into its
    hand since then (the drawn card included), which may be any."""

    discard: list[str] = field(default_factory=list)
    voids: dict[int, tuple[frozenset[str], int]] = field(default_factory=dict)


def remember(feed: Sequence[Any]) -> Memory:
    """Replay the seat's feed (redacted events) into a :class:`Memory`
    of the current round."""
    m = Memory()
    wish: str | None = None
    for e in feed:
        t = e.type
        d = e.data
        if t == "CardPlayed":
            m.discard.append(d["card"])
            wish = d["suit"]
        elif t == "CardsDrawn":
            seat = e.seat
            n = d["count"] if "count" in d else len(d.get("cards", ()))
            if d["reason"] == "draw" and m.discard:
                fits = PLAYABLE_WISHED[wish] if wish else PLAYABLE_ON[m.discard[-1]]
                m.voids[seat] = (fits, n)
            elif seat in m.voids:
                cards, new = m.voids[seat]
                m.voids[seat] = (cards, new + n)
        elif t == "SuitWished":
            wish = d["suit"]
        elif t == "TalonReshuffled":
            m.discard = m.discard[-1:]
        elif t in ("RoundDealt", "GameStarted"):
            deal = d["deal"] if t == "GameStarted" else d
            m.discard = [deal["upcard"]]
            m.voids = {}
            wish = None
    return m


@cache
def _shoe(decks: int, short: bool) -> tuple[str, ...]:
    return tuple(shoe(decks, short=short))


def unseen(view: Mapping[str, Any], discard: Sequence[str]) -> list[str]:
    """The cards the seat has not seen: the whole shoe less its hand and
    the known part of the discard pile (one copy each)."""
    opts = view["options"]
    left = Counter(_shoe(opts["decks"], opts["skat_deck"]))
    left.subtract(view["hand"])
    left.subtract(discard)
    return [c for c, k in sorted(left.items()) if k > 0 for _ in range(k)]


def determinise(view: Mapping[str, Any], memory: Memory, rng: random.Random) -> State:
    """A full :class:`State` consistent with ``view`` and ``memory``: the
    unseen cards dealt at random to the other hands (each of the sizes
    shown; an opponent's void respected as far as the cards allow), the
    hidden part of the discard pile and the talon."""
    me = view["seat"]
    top = view["discard_top"]
    known = memory.discard if memory.discard and memory.discard[-1] == top else [top]
    known = known[-view["discard_size"]:]
    pool = unseen(view, known)
    rng.shuffle(pool)
    n = view["players"]
    sizes = view["hand_sizes"]
    hands: list[list[str]] = [[] for _ in range(n)]
    hands[me] = list(view["hand"])
    order = sorted((x for x in range(n) if x != me and sizes[x]), key=lambda x: x not in memory.voids)
    for seat in order:  # the constrained hands first
        need = sizes[seat]
        void = memory.voids.get(seat)
        if void is None:
            hands[seat] = pool[-need:]
            del pool[-need:]
            continue
        cards, free = void
        take: list[str] = []
        rest: list[str] = []
        for c in pool:
            if len(take) < need and (free > 0 or c not in cards):
                free -= c in cards
                take.append(c)
            else:
                rest.append(c)
        short = need - len(take)  # the memory cannot be met: any card will do
        if short > 0:
            take += rest[:short]
            del rest[:short]
        hands[seat] = take
        pool = rest
    hidden = view["discard_size"] - len(known)
    discard = pool[:hidden] + known
    talon = pool[hidden:]
    seats = tuple(view["round_seats"])
    left: list[int | None] = [None] * n
    for i, x in enumerate(seats):
        left[x] = seats[(i + 1) % len(seats)]
    w = view["callout"]
    return State(
        rules=rules_from(view["options"], view["options"]["decks"]),
        players=n,
        round=view["round"],
        decider=view["decider"],
        dealer=view["dealer"],
        seats=seats,
        left=tuple(left),
        hands=hands,
        talon=talon,
        discard=discard,
        phase=Phase(view["phase"]),
        turn=view["turn"],
        wish=view["wish"],
        penalty=view["penalty"],
        skipped=tuple(view["skipped"]),
        drawn=view["drawn"],
        window=None if w is None else Window(w["offender"], Call(w["missed"])),
        lapsed=None,
        idle=0,
        announced=list(view["announcements"]),
        scores=[list(p) for p in view["scores"]],
        winners=list(view["round_winners"]),
        totals=list(view["totals"]),
        decider_points=None if view["decider_points"] is None else list(view["decider_points"]),
    )


def _play(s: State, hand: list[str], card: str, wish: str | None) -> dict:
    """The play of ``card`` with the announcement it owes and, for a Jack
    whose play does not end the round, the wish ``wish``."""
    left = len(hand) - 1
    action: dict[str, Any] = {"type": "play", "card": card}
    if left <= 1:
        action["announce"] = MAU if left == 1 else MAUMAU
    if RANK[card] == JACK:
        w = s.window
        if left and not (w is not None and not s.hands[w.offender]):
            action["suit"] = wish
    return action


def _strongest(hand: Sequence[str], without: str) -> str:
    """:func:`shared.games.maumau.bots.strongest_suit` of ``hand`` less one ``without``."""
    count = dict.fromkeys(SUITS, 0)
    points = dict.fromkeys(SUITS, 0)
    skipped = False
    for c in hand:
        if c == without and not skipped:
            skipped = True
            continue
        if RANK[c] != JACK:
            count[SUIT[c]] += 1
            points[SUIT[c]] += POINTS[c]
    return max(SUITS, key=lambda x: (count[x], points[x]))


def heuristic_move(s: State, seat: int) -> dict:
    """What the ``heuristic`` bot plays for ``seat`` in ``s``, read off the
    state directly (the rollouts' fast path: no view, no listing; the
    tests check it agrees with the bot on every decision of whole games).
    ``seat`` is on turn, or may call out the open window."""
    w = s.window
    if w is not None and seat != w.offender:
        return {"type": "callout", "seat": w.offender}
    hand = s.hands[seat]
    phase = s.phase
    if phase is Phase.WISH:
        return {"type": "wish", "suit": _strongest(hand, "")}
    if phase is Phase.DRAWN:
        card = s.drawn
        assert card is not None  # set with the DRAWN phase
        if RANK[card] == JACK and len(hand) > THREAT + 1:
            return {"type": "keep"}
        return _play(s, hand, card, _strongest(hand, card))
    ok = playable_set(s)
    cards = [c for c in hand if c in ok]
    if not cards:
        return {"type": "draw"}
    if s.penalty:
        return _play(s, hand, cards[0], None)
    nxt = None
    seats = s.seats
    i = seats.index(seat)
    for k in range(1, len(seats)):
        size = len(s.hands[seats[(i + k) % len(seats)]])
        if size:
            nxt = size
            break
    threatened = nxt is not None and nxt <= THREAT
    two = s.players == 2 or len(seats) == 2
    length = dict.fromkeys(SUITS, 0)
    for c in hand:
        if RANK[c] != JACK:
            length[SUIT[c]] += 1
    best, top = "", -1e9
    for c in dict.fromkeys(cards):
        r = RANK[c]
        if r == JACK:
            sc = 100.0 if len(hand) <= THREAT else -100.0
        else:
            sc = POINTS[c] + 2.0 * length[SUIT[c]]
            if r == EIGHT and (threatened or two):
                sc += 40
            elif r == SEVEN and threatened:
                sc += 30
        if sc > top:
            best, top = c, sc
    return _play(s, hand, best, _strongest(hand, best) if RANK[best] == JACK else None)


def rollout(s: State, rng: random.Random) -> list[int | None]:
    """Play the round of ``s`` (changed in place) to its end with the
    heuristic (:func:`heuristic_move`) for every seat; return the round's
    points per seat (after :data:`HORIZON` actions: the hands' points as
    they are)."""
    for _ in range(HORIZON):
        w = s.window
        seat = s.turn
        if w is not None and w.offender == seat:  # someone else calls it out
            seat = next(x for x in s.seats if x != seat)
        action = heuristic_move(s, seat)
        if action.get("announce") == MAUMAU:  # out: the round's points without dealing the next
            return [0 if x == seat else sum(POINTS[c] for c in s.hands[x]) if x in s.seats else None
                    for x in range(s.players)]
        for e in decide(s, seat, action, rng):
            if e.type == "RoundScored":
                return list(e.data["points"])
            s = evolve(s, e)
    return [sum(POINTS[c] for c in s.hands[x]) if x in s.seats else None for x in range(s.players)]


def outcome(points: Sequence[int | None], me: int) -> float:
    """The rollout's value for seat ``me``: the other players' mean round
    points less its own (higher is better)."""
    others = [p for x, p in enumerate(points) if x != me and p is not None]
    mine = points[me] or 0
    return (sum(others) / len(others) if others else 0.0) - mine


def candidates(legal: Sequence[Mapping[str, Any]], wish: str | None) -> list[dict]:
    """The actions worth comparing: every distinct play, with its
    announcement whenever one is owed (a Jack with the wish ``wish`` only,
    or without one when its play ends the round), and ``draw``, ``keep``
    or ``wish`` as listed; call-outs are left out."""
    best: dict[tuple, dict] = {}
    for a in legal:
        kind = a["type"]
        if kind == "callout":
            continue
        suit = a.get("suit")
        if kind == "play" and suit is not None and wish is not None and suit != wish:
            continue
        key = (kind, a.get("card"), suit)
        if key not in best or "announce" in a:
            best[key] = dict(a)
    return list(best.values())


def choose(
    view: Mapping[str, Any],
    legal: Sequence[Mapping[str, Any]],
    rng: random.Random,
    feed: Sequence[Any] | None,
    policy: Strategy,
    wish_for: Callable[[Sequence[str]], str],
    rollouts: int = ROLLOUTS,
) -> dict | None:
    """The strong bot's action (see module doc): a call-out whenever one
    is open (an opponent who missed draws 2), the only candidate when there
    is one, else ``policy``'s own choice unless another candidate's mean
    rollout outcome beats it by more than :data:`MARGIN` standard errors
    of the paired differences.  A Jack is tried with ``policy``'s wish,
    else ``wish_for(hand)``."""
    for a in legal:
        if a["type"] == "callout":
            return dict(a)
    default = policy(view, legal, rng)
    assert default is not None  # the seat is on turn
    wish = default.get("suit") if default.get("type") == "play" else None
    if view["phase"] != "wish" and wish is None:
        wish = wish_for(view["hand"])
    options = candidates(legal, wish)
    if len(options) == 1:
        return options[0]
    key = (default["type"], default.get("card"), default.get("suit"))
    keys = [(a["type"], a.get("card"), a.get("suit")) for a in options]
    if key not in keys:
        return default
    d = keys.index(key)
    memory = remember(feed) if feed is not None else Memory()
    me = view["seat"]
    deals = max(MIN_DEALS, rollouts // len(options))
    diffs: list[list[float]] = [[] for _ in options]
    for _ in range(deals):
        base = determinise(view, memory, rng)
        seed = rng.getrandbits(32)
        values = [play_out(base, me, action, random.Random(seed)) for action in options]
        for i, v in enumerate(values):
            diffs[i].append(v - values[d])
    best, gain = d, 0.0
    for i, ds in enumerate(diffs):
        if i == d:
            continue
        mean = sum(ds) / deals
        var = sum((x - mean) ** 2 for x in ds) / (deals - 1)
        if mean > MARGIN * math.sqrt(var / deals) and mean > gain:
            best, gain = i, mean
    return options[best]


def play_out(base: State, me: int, action: Mapping[str, Any], dice: random.Random) -> float:
    """:func:`outcome` of playing ``action`` for ``me`` on a copy of the
    deal ``base``, then the round to its end (:func:`rollout`)."""
    s = clone(base)
    for e in decide(s, me, action, dice):
        if e.type == "RoundScored":
            return outcome(e.data["points"], me)
        s = evolve(s, e)
    return outcome(rollout(s, dice), me)
