"""Maudix bot tournament: mean total points per strategy, 95% intervals, decision times.

    python loadtests/tournament_maudix.py --players 4 --games 500 --workers 2

Every game seats the strategies in rotation (game g, seat i plays
``strategies[(g + i) % k]``), so each strategy meets every other in every
seat.  Games are played in-process through the decider
(:func:`shared.engine.play`), each seat choosing from its own view and
legal actions only.  The
``strong`` bot also gets its seat's redacted feed of the current round (its
memory of what it saw, see shared/games/maudix/bots.py); ``--no-feed`` plays
it from the view alone.  Prints, per strategy: seats played, mean total
points (lower is better) with a 95% interval, mean place, and decision time
p50 / p99 / max in milliseconds, wall clock and CPU time of the deciding
process (CPU time is what the bot costs; wall time also counts whatever
else the machine runs).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shared.engine import play
from shared.games.maudix import GAME, bots

FEED_STRATEGIES = {"strong"}


def play_game(args: tuple[int, int, tuple[str, ...], int, bool, int | None]) -> dict:
    """One seeded game; returns totals, places, lineup and decision times."""
    g, players, strategies, seed, use_feed, budget = args
    if budget:
        bots.PLAY_BUDGET = budget
    lineup = [strategies[(g + i) % len(strategies)] for i in range(players)]
    times: dict[str, list[float]] = {s: [] for s in strategies}
    cpu: dict[str, list[float]] = {s: [] for s in strategies}
    strong_by_phase: dict[str, list[float]] = {}

    def timed(name: str):
        """``name``'s strategy, each decision timed (wall and CPU); it takes
        its seat's feed when it reads one and the feed is on."""
        strat = GAME.strategies[name]

        def clocked(view, legal, rng, **kwargs):
            c0 = time.process_time()
            t0 = time.perf_counter()
            action = strat(view, legal, rng, **kwargs)
            dt = time.perf_counter() - t0
            dc = time.process_time() - c0
            cpu[name].append(dc)
            times[name].append(dt)
            if name == "strong":
                strong_by_phase.setdefault(view["phase"], []).append((dt, dc))
            return action

        if use_feed and name in FEED_STRATEGIES:
            return lambda view, legal, rng, feed: clocked(view, legal, rng, feed=feed)
        return clocked

    seats = [timed(name) for name in lineup]
    res = play(GAME, seats, random.Random(seed * 1_000_003 + g)).result
    return {"lineup": lineup, "scores": list(res.scores), "places": list(res.places), "rounds": res.detail["rounds"],
            "contracts": res.detail["contracts"], "times": times, "cpu": cpu, "strong_phase": strong_by_phase}


def pct(xs: list[float], q: float) -> float:
    """The q-quantile (0..1) of xs, nearest rank."""
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, math.ceil(q * len(xs)) - 1))]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=30)
    ap.add_argument("--strategies", default="strong,heuristic,random")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--no-feed", action="store_true", help="play 'strong' from its view alone")
    ap.add_argument("--budget", type=int, default=None, help="simulated card plays per strong decision (default: bots.PLAY_BUDGET)")
    a = ap.parse_args(argv)
    strategies = tuple(a.strategies.split(","))
    jobs = [(g, a.players, strategies, a.seed, not a.no_feed, a.budget) for g in range(a.games)]
    t0 = time.perf_counter()
    if a.workers > 1:
        with Pool(a.workers) as pool:
            results = pool.map(play_game, jobs, chunksize=1)
    else:
        results = [play_game(j) for j in jobs]
    wall = time.perf_counter() - t0
    totals: dict[str, list[int]] = {s: [] for s in strategies}
    places: dict[str, list[int]] = {s: [] for s in strategies}
    times: dict[str, list[float]] = {s: [] for s in strategies}
    cpu: dict[str, list[float]] = {s: [] for s in strategies}
    phase_t: dict[str, list[float]] = {}
    per_contract: dict[tuple[str, str], list[int]] = {}
    for r in results:
        for contract, pts in zip(r["contracts"], r["rounds"]):
            for name, p in zip(r["lineup"], pts):
                per_contract.setdefault((name, contract), []).append(p)
        for name, score, place in zip(r["lineup"], r["scores"], r["places"]):
            totals[name].append(score)
            places[name].append(place)
        for name, ts in r["times"].items():
            times[name].extend(ts)
        for name, ts in r["cpu"].items():
            cpu[name].extend(ts)
        for ph, ts in r["strong_phase"].items():
            phase_t.setdefault(ph, []).extend(ts)
    print(
        f"Maudix tournament: {a.games} games, {a.players} players, strategies {','.join(strategies)}, "
        f"seed {a.seed}, feed {'off' if a.no_feed else 'on'}, budget {a.budget or bots.PLAY_BUDGET}, "
        f"{wall:.0f} s wall, {a.workers} worker(s)"
    )
    print(f"{'strategy':<10} {'seats':>6} {'mean total':>11} {'95% interval':>17} {'mean place':>11} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'cpu p50':>8} {'cpu p99':>8}")
    for s in strategies:
        xs = totals[s]
        if not xs:
            continue
        m = statistics.fmean(xs)
        h = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else float("nan")
        ts = [t * 1000 for t in times[s]]
        cs = [t * 1000 for t in cpu[s]]
        print(
            f"{s:<10} {len(xs):>6} {m:>11.1f} {f'[{m - h:.1f}, {m + h:.1f}]':>17} {statistics.fmean(places[s]):>11.2f} "
            f"{pct(ts, 0.5):>8.2f} {pct(ts, 0.99):>8.2f} {max(ts):>8.2f} {pct(cs, 0.5):>8.2f} {pct(cs, 0.99):>8.2f}"
        )
    contracts = list(dict.fromkeys(c for _, c in per_contract))
    print("mean points per round: " + " | ".join(
        f"{c}: " + " ".join(f"{s} {statistics.fmean(per_contract[(s, c)]):.1f}" for s in strategies if (s, c) in per_contract)
        for c in contracts
    ))
    if phase_t:
        print("strong decision time by phase, wall p50/p99 | cpu p50/p99 (ms):")
        for ph, ts in sorted(phase_t.items()):
            w = [t[0] * 1000 for t in ts]
            c = [t[1] * 1000 for t in ts]
            print(f"  {ph:<10} n={len(ts):<6} wall {pct(w, 0.5):6.1f} / {pct(w, 0.99):6.1f} | cpu {pct(c, 0.5):6.1f} / {pct(c, 0.99):6.1f}")


if __name__ == "__main__":
    main()
