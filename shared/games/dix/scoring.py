"""DIX final scoring with optimally placed jokers, and the game's result
(docs/games/dix.md, "Scoring" and "End of the game").

Rule: in each colour only the longest run of consecutive numbers scores,
1 point a card, +1 bonus for a full 1–9 run.  Jokers are placed only at
the final count, each in one place: a numbered joker (``"*4"``) stands for
its number in any colour; a colour joker (``"G#"``) stands for any number
of its own colour.  The player gets the placement that maximises the total.
Duplicates add nothing; a run may be made of jokers only.

Method.  A colour's run is a window ``[a, b]`` of 1..9.  With owned
numbers ``S`` and ``g`` colour jokers, the window is reachable when its
missing numbers ``[a, b] - S`` number at most ``g`` plus the numbered
jokers spent on it.  Numbered jokers are shared between colours, so the
optimiser runs a small dynamic programme over the four colours with the
set of numbered jokers already spent (9-bit mask) as its state; for each
colour it lists the Pareto-minimal joker sets that reach each window.
Everything works on 9-bit masks (bit ``n-1`` = number ``n``) and results
are memoised, so bots may call it freely.

:func:`brute_force_score` is the literal definition (try every placement
of every joker, measure the longest run) used by the tests to check the
optimiser.

:func:`result` turns a finished table into its :class:`~shared.engine.Result`:
the run points per seat, places by (score, money, fewer cards); solo, a
win at the target score.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from itertools import combinations, product
from typing import Any

from shared.engine import Result, places_from
from shared.games.dix.cards import COLOUR, COLOUR_INDEX, COLOURS, KIND, NUMBER, Kind
from shared.games.dix.state import Phase, State, money

FULL = (1 << 9) - 1

#: Every window [a, b] of 1..9 as (mask, length), longest first.
WINDOWS: tuple[tuple[int, int], ...] = tuple(
    sorted(
        ((((1 << b) - 1) ^ ((1 << (a - 1)) - 1), b - a + 1) for a in range(1, 10) for b in range(a, 10)),
        key=lambda w: -w[1],
    )
)
# Check the table once: mask of [a, b] has bits a-1..b-1.
assert all(m.bit_count() == n for m, n in WINDOWS)


def _bits(mask: int) -> list[int]:
    return [1 << i for i in range(9) if mask >> i & 1]


def _subsets_of_size(mask: int, k: int) -> list[int]:
    out = []
    for combo in combinations(_bits(mask), k):
        s = 0
        for b in combo:
            s |= b
        out.append(s)
    return out


@lru_cache(maxsize=1 << 16)
def colour_options(owned: int, wild: int, jokers: int, bonus: int) -> tuple[tuple[int, int], ...]:
    """Pareto options ``(points, numbered-joker mask used)`` for one colour.

    ``owned``: 9-bit mask of numbers held in the colour; ``wild``: colour
    jokers of the colour; ``jokers``: mask of numbered jokers available;
    ``bonus``: points added for a full 1–9 run.  Always includes the
    option that spends no numbered joker.
    """
    best: dict[int, int] = {}
    for window, length in WINDOWS:
        missing = window & ~owned
        need = missing.bit_count() - wild
        points = length + (bonus if length == 9 else 0)
        if need <= 0:
            if best.get(0, -1) < points:
                best[0] = points
            continue
        usable = missing & jokers
        if usable.bit_count() < need:
            continue
        for used in _subsets_of_size(usable, need):
            if best.get(used, -1) < points:
                best[used] = points
    best.setdefault(0, 0)
    # Drop options dominated by one using a subset of its jokers.
    items = sorted(best.items(), key=lambda kv: (kv[0].bit_count(), -kv[1]))
    kept: list[tuple[int, int]] = []
    for used, points in items:
        if any(p >= points and (u & used) == u for p, u in kept):
            continue
        kept.append((points, used))
    return tuple(kept)


@lru_cache(maxsize=1 << 16)
def best_score(owned: tuple[int, ...], wild: tuple[int, ...], jokers: int, bonus: int = 1) -> int:
    """Best total over the four colours.

    ``owned``: one 9-bit mask per colour (R Y G B); ``wild``: colour jokers
    per colour; ``jokers``: mask of numbered jokers held; ``bonus``: the
    full-run bonus.  Returns the maximal score.
    """
    return _solve(owned, wild, jokers, bonus)[0]


def _solve(owned, wild, jokers, bonus) -> tuple[int, list[tuple[int, int]]]:
    options = [colour_options(owned[i], wild[i], jokers, bonus) for i in range(4)]
    memo: dict[tuple[int, int], tuple[int, int]] = {}

    def go(i: int, used: int) -> tuple[int, int]:
        """Best points for colours i.. given used jokers; returns (points, choice)."""
        if i == 4:
            return 0, -1
        key = (i, used)
        hit = memo.get(key)
        if hit is not None:
            return hit
        best = (-1, -1)
        for k, (points, need) in enumerate(options[i]):
            if need & used:
                continue
            total = points + go(i + 1, used | need)[0]
            if total > best[0]:
                best = (total, k)
        memo[key] = best
        return best

    total = go(0, 0)[0]
    # Recover the choice per colour: (points, jokers used).
    picks: list[tuple[int, int]] = []
    used = 0
    for i in range(4):
        k = go(i, used)[1]
        points, need = options[i][k]
        picks.append((points, need))
        used |= need
    return total, picks


def collection_key(collection: Iterable[str]) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """``(owned masks, colour jokers per colour, numbered-joker mask)`` of a
    collection of card codes (Currency codes are ignored)."""
    owned = [0, 0, 0, 0]
    wild = [0, 0, 0, 0]
    jokers = 0
    for code in collection:
        kind = KIND[code]
        if kind is Kind.NUMBER:
            owned[COLOUR_INDEX[COLOUR[code]]] |= 1 << (NUMBER[code] - 1)
        elif kind is Kind.COLOUR_JOKER:
            wild[COLOUR_INDEX[COLOUR[code]]] += 1
        elif kind is Kind.NUMBER_JOKER:
            jokers |= 1 << (NUMBER[code] - 1)
    return tuple(owned), tuple(wild), jokers


def score(collection: Iterable[str], bonus: int = 1) -> int:
    """Final score of a collection (list of codes) with jokers placed best."""
    return _score_tuple(tuple(collection), bonus)


@lru_cache(maxsize=1 << 16)
def _score_tuple(collection: tuple[str, ...], bonus: int) -> int:
    owned, wild, jokers = collection_key(collection)
    return best_score(owned, wild, jokers, bonus)


def score_detail(collection: Iterable[str], bonus: int = 1) -> dict:
    """JSON-ready breakdown: total, points per colour and where each
    numbered joker went (``{"*4": "R"}``; unplaced jokers are absent)."""
    owned, wild, jokers = collection_key(collection)
    total, picks = _solve(owned, wild, jokers, bonus)
    placed: dict[str, str] = {}
    for i, (_, need) in enumerate(picks):
        for n in range(9):
            if need >> n & 1:
                placed[f"*{n + 1}"] = COLOURS[i]
    return {
        "total": total,
        "colours": {COLOURS[i]: picks[i][0] for i in range(4)},
        "numbered_jokers": placed,
    }


def longest_run(numbers: set[int]) -> int:
    """Length of the longest run of consecutive numbers in ``numbers``."""
    best = run = 0
    for n in range(1, 10):
        run = run + 1 if n in numbers else 0
        best = max(best, run)
    return best


def brute_force_score(collection: Iterable[str], bonus: int = 1) -> int:
    """The literal rule: try every placement of every joker (each numbered
    joker in each colour or unused, each colour joker on each number) and
    keep the best total.  Exponential: tests only, small collections."""
    collection = list(collection)
    base: dict[str, set[int]] = {c: set() for c in COLOURS}
    wilds: list[str] = []
    numbered: list[int] = []
    for code in collection:
        kind = KIND[code]
        if kind is Kind.NUMBER:
            base[COLOUR[code]].add(NUMBER[code])
        elif kind is Kind.COLOUR_JOKER:
            wilds.append(COLOUR[code])
        elif kind is Kind.NUMBER_JOKER:
            numbered.append(NUMBER[code])
    best = 0
    for placing in product([None, *COLOURS], repeat=len(numbered)):
        for wild_numbers in product(range(1, 10), repeat=len(wilds)):
            sets = {c: set(s) for c, s in base.items()}
            for n, c in zip(numbered, placing, strict=True):
                if c is not None:
                    sets[c].add(n)
            for c, n in zip(wilds, wild_numbers, strict=True):
                sets[c].add(n)
            total = 0
            for c in COLOURS:
                run = longest_run(sets[c])
                total += run + (bonus if run == 9 else 0)
            best = max(best, total)
    return best


def result(state: State) -> Result | None:
    """Scores and places once the game is over, else None
    (docs/games/dix.md, "Scoring").

    Scores are the run points; places rank by (score, money, fewer
    cards), equal keys share.  Solo: place 1 when the score reaches
    ``solo_target``, else place 2 (no winner).  ``detail``: ``money``,
    ``cards`` and ``runs`` (:func:`score_detail`) per seat.
    """
    if state.phase is not Phase.OVER:
        return None
    rules = state.rules
    scores = [score(s.collection, rules.full_run_bonus) for s in state.seats]
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
