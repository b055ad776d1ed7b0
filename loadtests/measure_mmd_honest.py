"""Maudit Mot Dit bots measured on knowledge they do not share (issue 15).

The ``heuristic`` clue-giver and guesser rank words with the same spaCy
word vectors, so a game of one against the other (``measure_mmd_bots.py``)
measures shared knowledge.  This script measures each side against
something it did not make:

1. **Guessers on people's clues**: ``loadtests/data/mmd_people_clues.json``
   holds clues written by hand for 100 game words (20 for each required
   count).  Each clue is given in turn; after each, the guessers make
   as many proposals as the table allows (``--players``: 2 at three
   players, 3 from four), each the next best word of its ranking not yet
   proposed this turn.  A word is found *exactly*
   on its last clue, *early* before it, or missed.
2. **Clue-givers judged by a guesser that does not share their
   knowledge**: the thesaurus guesser (``loadtests/mmd_thesaurus.py``,
   Debian's ``mythes-fr``).  ``--per-count`` words for each required count
   1-5 are drawn (seeded) from the game's cards; the giver gives up to
   ``count`` clues (the game's clue checks apply), the guessers answer
   each.  The same turns judged by the vector guessers (shared knowledge)
   are printed beside them (``--judges``), to show how much sharing
   inflates the figure.  ``--holdout`` draws only the odd-numbered words
   of the vocabulary (the ``strong`` giver's few settings were chosen on
   even-numbered ones).  ``--every-word`` takes every word (held-out:
   every odd-numbered one) at each count once instead of drawing: no word
   counts twice, and every (word, count) pair weighs the same (the draw
   weighs a word's counts as the card backs do).  With both givers,
   McNemar's paired test on their exact finds over the same turns follows.

Rates are shares of words with 95% intervals (normal approximation).

    python loadtests/measure_mmd_honest.py                  # 60 words a count, 4 players
    python loadtests/measure_mmd_honest.py --per-count 100 --players 3 --holdout --judges thesaurus
    python loadtests/measure_mmd_honest.py --players 3 --holdout --every-word --judges thesaurus  # no sampling
    python loadtests/measure_mmd_honest.py --per-count 10   # quick

Needs the spaCy model (``pip install -e '.[words]'``) and ``mythes-fr``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from mmd_thesaurus import Thesaurus  # noqa: E402

from shared.games.maudit_mot_dit import bots, deck, lexicon  # noqa: E402

PEOPLE_CLUES = HERE / "data" / "mmd_people_clues.json"
COUNTS = (1, 2, 3, 4, 5)

#: ranking(clues, exclude) -> game words, best first.
Ranking = Callable[[Sequence[str], set[str]], list[str]]
#: giver(secret, clues so far, count, proposals per clue, taken) -> next clue.
Giver = Callable[[str, list[str], int, int, list[str]], str]


def people_clues(path: Path = PEOPLE_CLUES) -> list[dict]:
    """The hand-written clue sets: ``[{"word", "count", "clues"}]``."""
    return json.loads(path.read_text(encoding="utf-8"))["words"]


def answer(ranking: Ranking, clues: Sequence[str], taken: list[str], proposals: int) -> list[str]:
    """The ``proposals`` sealed proposals after ``clues``: the guessers take the
    best words of the ranking not yet proposed this turn, one each."""
    ranked = ranking(clues, {lexicon.fold(t) for t in taken})
    return ranked[:proposals]


def outcome(found_at: int | None, count: int) -> str:
    """``exact``, ``early`` or ``miss`` for a word found on clue ``found_at``."""
    if found_at is None:
        return "miss"
    return "exact" if found_at == count else "early"


def guess_people(entry: dict, ranking: Ranking, proposals: int) -> str:
    """Outcome of one hand-written clue set answered by ``ranking``."""
    secret, clues, taken = entry["word"], entry["clues"], []
    for k in range(1, len(clues) + 1):
        props = answer(ranking, clues[:k], taken, proposals)
        if any(lexicon.guess_matches(p, secret) for p in props):
            return outcome(k, entry["count"])
        taken.extend(props)
    return "miss"


def give_turn(secret: str, count: int, giver: Giver, judges: dict[str, Ranking], proposals: int) -> dict[str, str]:
    """One turn for each judge: the giver's clues, answered by that judge's
    guessers (the giver sees their proposals, as at the table)."""
    out = {}
    for name, ranking in judges.items():
        clues: list[str] = []
        taken: list[str] = []
        result = "miss"
        for k in range(1, count + 1):
            clues.append(giver(secret, clues, count, proposals, taken))
            props = answer(ranking, clues, taken, proposals)
            if any(lexicon.guess_matches(p, secret) for p in props):
                result = outcome(k, count)
                break
            taken.extend(props)
        out[name] = result
    return out


def proposals_for(players: int) -> int:
    """Proposals after each clue at ``players``: every guesser at 3-4, 3 in all at 5-6
    (the default ``proposals_in_all_5_6``)."""
    return min(players - 1, 3)


def slots(per_count: int, seed: int, holdout: bool = False) -> list[tuple[str, int]]:
    """``per_count`` (word, count) pairs for each count, drawn from the cards:
    a random front's word under a random back slot of that count; with
    ``holdout``, only odd-numbered words of the vocabulary (redrawn)."""
    odd = set(deck.VOCABULARY[1::2])
    rng = random.Random(seed)
    by_count: dict[int, list[str]] = defaultdict(list)
    for back in deck.BACKS:
        for slot in back:
            by_count[slot.count].append(slot.symbol)
    out = []
    for count in COUNTS:
        for _ in range(per_count):
            symbol = rng.choice(by_count[count])
            while True:
                word = rng.choice(deck.FRONTS)[deck.SYMBOL_INDEX[symbol]]
                if not holdout or word in odd:
                    break
            out.append((word, count))
    return out


def every_pair(holdout: bool = False) -> list[tuple[str, int]]:
    """Every (word, count) pair once: each vocabulary word (with
    ``holdout``, each odd-numbered one) at each required count 1-5, in
    vocabulary order; no sampling, so no word is drawn twice."""
    words = deck.VOCABULARY[1::2] if holdout else deck.VOCABULARY
    return [(word, count) for word in words for count in COUNTS]


def paired(a: list[tuple[int, str]], b: list[tuple[int, str]]) -> str:
    """McNemar's test on two givers' exact finds over the same turns: the
    turns only ``a`` finds exactly, only ``b`` does, and the normal
    approximation's z (it takes the turns as independent; a word's five
    turns in ``--every-word`` are not, so read z as an upper figure)."""
    only_a = sum(x == "exact" != y for (_c, x), (_d, y) in zip(a, b, strict=True))
    only_b = sum(y == "exact" != x for (_c, x), (_d, y) in zip(a, b, strict=True))
    z = (only_a - only_b) / math.sqrt(only_a + only_b) if only_a + only_b else 0.0
    return f"exact on {only_a} turns the other missed exactly, {only_b} the other way (McNemar z = {z:.1f})"


def interval(k: int, n: int) -> str:
    """``k / n: share% [low, high]`` to one decimal (95%, normal approximation)."""
    p = k / n
    h = 1.96 * math.sqrt(p * (1 - p) / n)
    return f"{k} / {n}: {100 * p:.1f}% [{100 * max(0.0, p - h):.1f}, {100 * min(1.0, p + h):.1f}]"


def tally(outcomes: Sequence[str]) -> tuple[int, int]:
    """(found exactly, found at all) among turn outcomes."""
    exact = sum(o == "exact" for o in outcomes)
    return exact, exact + sum(o == "early" for o in outcomes)


def rate(k: int, n: int) -> str:
    """``share% ± half-width`` (95%, normal approximation)."""
    if not n:
        return "-"
    p = k / n
    return f"{100 * p:.0f}% ± {100 * 1.96 * math.sqrt(p * (1 - p) / n):.0f}"


def table(results: dict[str, list[tuple[int, str]]], title: str) -> str:
    """Markdown: per count (and all), each column's found and exactly rates."""
    names = list(results)
    head = "| clues required | words | " + " | ".join(f"{n}: found | {n}: exactly" for n in names) + " |"
    lines = [f"#### {title}", "", head, "|---:|---:|" + "---:|---:|" * len(names)]
    for count in (*COUNTS, "all"):
        cells = []
        n = 0
        for name in names:
            rows = [o for c, o in results[name] if count == "all" or c == count]
            n = len(rows)
            exact, found = tally(rows)
            cells += [rate(found, n), rate(exact, n)]
        lines.append(f"| {count} | {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def rankings(vec, thesaurus: Thesaurus, rng: random.Random) -> dict[str, Ranking]:
    """The guessers: vectors (the ``heuristic`` one), ``strong`` (vectors and
    thesaurus), thesaurus, random."""

    def random_ranking(clues: Sequence[str], exclude: set[str]) -> list[str]:
        words = [w for w in deck.VOCABULARY if lexicon.fold(w) not in exclude]
        return rng.sample(words, 5)

    out: dict[str, Ranking] = {}
    if vec is not None:
        out["vector guessers"] = vec.ranked_guesses
        out["strong guessers"] = lambda clues, exclude: bots.strong_ranking(vec, clues, exclude)
    out["thesaurus guessers"] = thesaurus.ranked_guesses
    out["random guessers"] = random_ranking
    return out


def givers(vec, rng: random.Random) -> dict[str, Giver]:
    """The clue-givers: ``strong`` and ``heuristic`` (vectors) and ``random``."""

    def random_giver(secret: str, clues: list[str], count: int, per_clue: int, taken: list[str]) -> str:
        return bots.random_clue({"chosen": {"word": secret}, "clues": clues}, rng)

    out: dict[str, Giver] = {}
    if vec is not None:

        def heuristic_giver(secret: str, clues: list[str], count: int, per_clue: int, taken: list[str]) -> str:
            clue = vec.best_clue(secret, clues, count, per_clue, taken)
            return clue if clue is not None else random_giver(secret, clues, count, per_clue, taken)

        def strong_giver(secret: str, clues: list[str], count: int, per_clue: int, taken: list[str]) -> str:
            clue = vec.strong_clue(secret, clues, count, per_clue, taken)
            return clue if clue is not None else heuristic_giver(secret, clues, count, per_clue, taken)

        out["strong"] = strong_giver
        out["heuristic"] = heuristic_giver
    out["random"] = random_giver
    return out


def positive(text: str) -> int:
    """An argument that must be a whole number of at least 1."""
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {n}")
    return n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--per-count", type=positive, default=60, metavar="N",
                    help="giver words per required count, at least 1 (default 60)")
    ap.add_argument("--players", type=int, default=4, choices=(3, 4, 5, 6),
                    help="players at the table: sets the proposals per clue (default 4: 3 proposals)")
    ap.add_argument("--givers", default="strong,heuristic,random", help="clue-givers to measure (comma list)")
    ap.add_argument("--judges", default="vector,thesaurus",
                    help="guessers that judge the givers: vector, thesaurus (comma list)")
    ap.add_argument("--holdout", action="store_true", help="draw only odd-numbered vocabulary words")
    ap.add_argument("--every-word", action="store_true",
                    help="every word (with --holdout: every odd-numbered one) at each count 1-5 once, "
                         "instead of --per-count drawn words")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    args.proposals = proposals_for(args.players)

    t0 = time.perf_counter()
    vec = bots.vectors()
    thesaurus = Thesaurus()
    rng = random.Random(args.seed)
    print(f"Loaded in {time.perf_counter() - t0:.1f} s: vectors {'yes' if vec else 'NO (heuristic plays random)'}, "
          f"thesaurus {len(thesaurus.neighbours)} entries, knows {sum(map(thesaurus.knows, deck.VOCABULARY))} "
          f"of the {len(deck.VOCABULARY)} game words.\n")

    people = people_clues()
    judges = rankings(vec, thesaurus, rng)
    res: dict[str, list[tuple[int, str]]] = {
        name: [(e["count"], guess_people(e, ranking, args.proposals)) for e in people]
        for name, ranking in judges.items()
    }
    print(table(res, f"Guessers on people's clues ({len(people)} words, {args.proposals} proposals a clue)") + "\n")

    pairs = every_pair(args.holdout) if args.every_word else slots(args.per_count, args.seed, args.holdout)
    wanted = {f"{j.strip()} guessers" for j in args.judges.split(",")}
    shown = {k: v for k, v in judges.items() if k in wanted}
    names = {g.strip() for g in args.givers.split(",")}
    measured: dict[str, dict[str, list[tuple[int, str]]]] = {}
    for gname, giver in givers(vec, rng).items():
        if gname not in names:
            continue
        t1 = time.perf_counter()
        per_judge: dict[str, list[tuple[int, str]]] = {name: [] for name in shown}
        for secret, count in pairs:
            for name, result in give_turn(secret, count, giver, shown, args.proposals).items():
                per_judge[name].append((count, result))
        title = (f"{gname} clue-giver, {len(pairs)} turns{' (held-out half)' if args.holdout else ''}, "
                 f"{args.players} players ({time.perf_counter() - t1:.0f} s)")
        print(table(per_judge, title) + "\n")
        measured[gname] = per_judge
        for judge, rows in per_judge.items():
            exact, found = tally([o for _c, o in rows])
            print(f"{gname}, {judge}: exact {interval(exact, len(rows))}; found {interval(found, len(rows))}.\n")
    if "strong" in measured and "heuristic" in measured:
        for judge in shown:
            print(f"Paired, {judge}: strong {paired(measured['strong'][judge], measured['heuristic'][judge])}.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
