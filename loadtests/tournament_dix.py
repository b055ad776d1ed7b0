"""DIX bot tournament: mean score and win rate with 95% intervals.

Mixed tables, in-process (no services):

* 2 players: every ordered pair of two different strategies, in turn;
* 3 players: one seat each for random, heuristic and strong, the six
  seatings in turn;
* 5 players: two seats for two strategies and one for the third, the
  single seat rotating, seats shuffled (each strategy fills the same
  number of seats over every three games);
* solo: each strategy alone (mean score, share of games at 25+).

Win rate = share of a strategy's seats that won (a shared first place
counts 1/k to each of the k winners).  Intervals: normal approximation,
mean ± 1.96 standard errors.

Usage::

    python loadtests/tournament_dix.py [--games 500] [--players 2,3,5] [--solo 500] [--jobs 1]

docs/bots-dix.md records a run.
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import time
from concurrent.futures import ProcessPoolExecutor

from shared.engine import play
from shared.games.dix import GAME

NAMES = ("random", "heuristic", "strong")


def play_one(lineup: tuple[str, ...], seed: int) -> tuple[tuple[float, ...], tuple[int, ...]]:
    """One seeded game with ``lineup[seat]`` playing each seat: (scores, places)."""
    result = play(GAME, lineup, random.Random(seed)).result
    return result.scores, result.places


def lineups(players: int, games: int) -> list[tuple[str, ...]]:
    """The seatings of each game (see module doc)."""
    if players == 1:
        raise ValueError("solo has its own loop")
    if players == 2:
        cycle = [p for p in itertools.permutations(NAMES, 2)]
    elif players == 3:
        cycle = list(itertools.permutations(NAMES))
    else:
        cycle = []
        for single in NAMES:
            doubles = [n for n in NAMES if n != single]
            base = [single] + [d for d in doubles for _ in range(2)]
            base += [NAMES[i % 3] for i in range(players - 5)]  # more than 5: pad evenly
            cycle.append(tuple(base[:players]))
    out = []
    shuffler = random.Random(players)
    for g in range(games):
        seats = list(cycle[g % len(cycle)])
        if players > 3:
            shuffler.shuffle(seats)
        out.append(tuple(seats))
    return out


def interval(values: list[float]) -> tuple[float, float]:
    """(mean, half-width of the 95% interval)."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, float("nan")
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, 1.96 * math.sqrt(var / n)


def _job(args):
    lineup, seed = args
    return lineup, play_one(lineup, seed)


def run_table(players: int, games: int, jobs: int) -> dict[str, dict[str, list[float]]]:
    stats = {n: {"score": [], "win": []} for n in NAMES}
    work = [(lineup, 10_000 * players + g) for g, lineup in enumerate(lineups(players, games))]
    results = _map(work, jobs)
    for lineup, (scores, places) in results:
        winners = sum(1 for p in places if p == 1)
        for seat, name in enumerate(lineup):
            stats[name]["score"].append(scores[seat])
            stats[name]["win"].append(1 / winners if places[seat] == 1 else 0.0)
    return stats


def _map(work, jobs):
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            return list(pool.map(_job, work, chunksize=8))
    return [_job(w) for w in work]


def main() -> None:
    ap = argparse.ArgumentParser(description="DIX bot tournament")
    ap.add_argument("--games", type=int, default=500, help="games per table size")
    ap.add_argument("--players", default="2,3,5")
    ap.add_argument("--solo", type=int, default=500, help="solo games per strategy (0: skip)")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    args = ap.parse_args()
    print(f"DIX tournament: {args.games} games per table size, solo {args.solo} per strategy")
    print()
    print("| players | strategy | seats | mean score (95% CI) | win rate (95% CI) |")
    print("|---|---|---|---|---|")
    for players in (int(x) for x in args.players.split(",")):
        t0 = time.perf_counter()
        stats = run_table(players, args.games, args.jobs)
        for name in sorted(NAMES, key=lambda n: -sum(stats[n]["win"]) / max(len(stats[n]["win"]), 1)):
            s = stats[name]
            if not s["score"]:
                continue
            m, h = interval(s["score"])
            w, hw = interval(s["win"])
            print(f"| {players} | {name} | {len(s['score'])} | {m:.2f} ± {h:.2f} | {w:.3f} ± {hw:.3f} |")
        print(f"<!-- {players} players: {time.perf_counter() - t0:.0f} s -->")
    if args.solo:
        print()
        print("| solo | strategy | games | mean score (95% CI) | games at 25+ (95% CI) |")
        print("|---|---|---|---|---|")
        for name in NAMES:
            results = _map([((name,), 900_000 + g) for g in range(args.solo)], args.jobs)
            scores = [r[1][0][0] for r in results]
            wins = [1.0 if r[1][1][0] == 1 else 0.0 for r in results]
            m, h = interval(scores)
            w, hw = interval(wins)
            print(f"| 1 | {name} | {len(scores)} | {m:.2f} ± {h:.2f} | {w:.3f} ± {hw:.3f} |")


if __name__ == "__main__":
    main()
