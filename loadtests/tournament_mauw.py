"""Mauw bot tournament: mean points and win rate with 95% intervals.

Usage::

    python loadtests/tournament_mauw.py                     # 500 games at 2, 4 and 6 players
    python loadtests/tournament_mauw.py --players 4 --games 500 --workers 2

Every game is played in-process through the game contract
(:func:`shared.engine.play`); each bot sees only its seat's view and legal
actions.  Seats are filled by rotating the list of
strategies (game ``g``, seat ``s`` plays ``strategies[(g + s) % k]``), so
every strategy sits in every seat equally often and, at 4 or 6 players,
meets the others in every arrangement.  Each seat-game counts once for its
strategy: points are the final column points; a win is first place, shared
equally on ties.  Intervals: mean ± 1.96 standard errors.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shared.engine import play  # noqa: E402
from shared.games.mauw import GAME  # noqa: E402


def play_one(lineup: tuple[str, ...], seed: int) -> tuple[tuple[int, ...], tuple[int, ...], str]:
    """One seeded game; returns (scores, places, ending)."""
    out = play(GAME, lineup, random.Random(seed))
    return tuple(out.result.scores), tuple(out.result.places), out.state.ending


def _job(args: tuple[tuple[str, ...], int]) -> tuple[tuple[str, ...], tuple, tuple, str]:
    lineup, seed = args
    return (lineup, *play_one(lineup, seed))


def interval(values: list[float]) -> tuple[float, float]:
    """Mean and 95% half-width (normal approximation)."""
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else float("inf")
    return mean, half


def run(players: int, games: int, names: list[str], workers: int, seed: int) -> dict[str, dict[str, list[float]]]:
    jobs = [(tuple(names[(g + s) % len(names)] for s in range(players)), seed + g) for g in range(games)]
    stats = {n: {"points": [], "wins": []} for n in names}
    endings: dict[str, int] = {}
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            results = list(pool.map(_job, jobs, chunksize=4))
    else:
        results = [_job(j) for j in jobs]
    for lineup, scores, places, ending in results:
        firsts = places.count(1)
        endings[ending] = endings.get(ending, 0) + 1
        for s, name in enumerate(lineup):
            stats[name]["points"].append(scores[s])
            stats[name]["wins"].append(1.0 / firsts if places[s] == 1 else 0.0)
    stats["_endings"] = endings  # type: ignore[assignment]
    return stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4, 6])
    parser.add_argument("--games", type=int, default=500, help="games per player count")
    parser.add_argument("--strategies", nargs="+", default=["strong", "heuristic", "random"])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"Mauw tournament: {args.games} games per player count, strategies {', '.join(args.strategies)}, seed {args.seed}")
    for players in args.players:
        t0 = time.perf_counter()
        stats = run(players, args.games, args.strategies, args.workers, args.seed)
        endings = stats.pop("_endings")
        took = time.perf_counter() - t0
        print(f"\n{players} players ({args.games} games, {took:.0f} s; endings {endings})")
        print(f"  {'strategy':10s} {'seat-games':>10s} {'mean points (95%)':>22s} {'win rate (95%)':>20s}")
        rows = {}
        for name in args.strategies:
            pts, pts_h = interval(stats[name]["points"])
            win, win_h = interval(stats[name]["wins"])
            rows[name] = (pts, pts_h, win, win_h)
            n = len(stats[name]["points"])
            print(f"  {name:10s} {n:10d} {pts:10.1f} ± {pts_h:5.1f}      {win:7.3f} ± {win_h:5.3f}")
        order = args.strategies
        for a, b in zip(order, order[1:]):
            pa, pah, wa, wah = rows[a]
            pb, pbh, wb, wbh = rows[b]
            points_sep = pa - pah > pb + pbh
            wins_sep = wa - wah > wb + wbh
            print(
                f"  {a} > {b}: points {'separated' if points_sep else 'NOT separated'}, "
                f"win rate {'separated' if wins_sep else 'NOT separated'}"
            )


if __name__ == "__main__":
    main()
