"""Mau Mau bot tournament: win rate and mean points with 95% intervals.

Usage::

    python loadtests/tournament_maumau.py                        # 500 games at 3 and 4 players
    python loadtests/tournament_maumau.py --players 3 --games 20 --jobs 2

Every game (default options: 5 cards, target 100) is played in-process
through the game contract (:func:`shared.engine.play`); each bot sees only
its seat's view, legal actions and, if it asks, its seat's feed.  Seats
are filled by rotating the list of strategies (game ``g``, seat ``s``
plays ``strategies[(g + s) % k]``), so every strategy sits in every seat
equally often; at 4 players with three strategies one of them holds two
seats, each in turn.  Each seat-game counts once for its strategy: a win
is first place (shared equally on a tie), points are the game's final
total (lower is better).  Intervals: mean ± 1.96 standard errors (normal
approximation).  docs/games/maumau.md, "Bots", records a run.
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

from shared.engine import play
from shared.games.maumau import GAME


def play_one(lineup: tuple[str, ...], seed: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """One seeded game; returns (final totals, places)."""
    out = play(GAME, lineup, random.Random(seed))
    return tuple(out.result.scores), tuple(out.result.places)


def _job(args: tuple[tuple[str, ...], int]) -> tuple[tuple[str, ...], tuple, tuple]:
    lineup, seed = args
    return (lineup, *play_one(lineup, seed))


def lineups(players: int, games: int, names: list[str]) -> list[tuple[str, ...]]:
    """Game ``g``'s seating: seat ``s`` plays ``names[(g + s) % len(names)]``."""
    return [tuple(names[(g + s) % len(names)] for s in range(players)) for g in range(games)]


def interval(values: list[float]) -> tuple[float, float]:
    """Mean and 95% half-width (normal approximation)."""
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else float("inf")
    return mean, half


def run(
    players: int, games: int, names: list[str], jobs: int, seed: int, start: int = 0
) -> list[tuple[tuple[str, ...], tuple, tuple]]:
    """Play games ``start`` to ``start + games - 1`` at ``players`` seats:
    (lineup, totals, places) each."""
    work = [(lineup, seed + 1000 * players + g) for g, lineup in enumerate(lineups(players, start + games, names))]
    work = work[start:]
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            return list(pool.map(_job, work, chunksize=2))
    return [_job(w) for w in work]


def tally(names: list[str], results: list[tuple[tuple[str, ...], tuple, tuple]]) -> dict[str, dict[str, list[float]]]:
    """Per strategy, its seat-games' final ``points`` and ``wins``."""
    stats: dict[str, dict[str, list[float]]] = {n: {"points": [], "wins": []} for n in names}
    for lineup, scores, places in results:
        firsts = places.count(1)
        for s, name in enumerate(lineup):
            stats[name]["points"].append(scores[s])
            stats[name]["wins"].append(1.0 / firsts if places[s] == 1 else 0.0)
    return stats


def table(players: int, games: int, names: list[str], stats: dict[str, dict[str, list[float]]]) -> list[str]:
    """Markdown rows: one per strategy, then whether each neighbour pair's
    intervals are apart."""
    rows = []
    summary = {}
    for name in names:
        win, win_h = interval(stats[name]["wins"])
        pts, pts_h = interval(stats[name]["points"])
        summary[name] = (win, win_h, pts, pts_h)
        n = len(stats[name]["wins"])
        rows.append(f"| {players} | {games} | {name} | {n} | {win:.3f} ± {win_h:.3f} | {pts:.1f} ± {pts_h:.1f} |")
    for a, b in zip(names, names[1:], strict=False):
        wa, wah, pa, pah = summary[a]
        wb, wbh, pb, pbh = summary[b]
        wins_apart = wa - wah > wb + wbh
        points_apart = pa + pah < pb - pbh
        rows.append(
            f"<!-- {players} players, {a} ahead of {b}: win rate intervals "
            f"{'apart' if wins_apart else 'OVERLAP'}, points intervals {'apart' if points_apart else 'OVERLAP'} -->"
        )
    return rows


def main() -> None:
    """Run the tournament and print the Markdown table."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[3, 4])
    parser.add_argument("--games", type=int, default=500, help="games per player count")
    parser.add_argument("--strategies", nargs="+", default=["strong", "heuristic", "random"])
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--report-every", type=int, default=0, help="print the table so far every N games")
    args = parser.parse_args()
    print(f"Mau Mau tournament: {args.games} games per player count, {', '.join(args.strategies)}, seed {args.seed}")
    print()
    print("| players | games | strategy | seat-games | win rate (95%) | mean final points (95%) |")
    print("|---|---|---|---|---|---|")
    for players in args.players:
        t0 = time.perf_counter()
        results: list[tuple[tuple[str, ...], tuple, tuple]] = []
        step = args.report_every or args.games
        while len(results) < args.games:
            chunk = min(step, args.games - len(results))
            results += run(players, chunk, args.strategies, args.jobs, args.seed, start=len(results))
            if len(results) < args.games:
                print(f"<!-- {players} players, after {len(results)} games ({time.perf_counter() - t0:.0f} s) -->")
            else:
                print(f"<!-- {players} players: {time.perf_counter() - t0:.0f} s -->")
            for row in table(players, len(results), args.strategies, tally(args.strategies, results)):
                print(row)
            sys.stdout.flush()


if __name__ == "__main__":
    main()
