"""Bot decision benchmark: time per decision of every game's strategies.

Usage::

    python loadtests/bench_bots.py                               # 10 games per cell, 3 and 5 players
    python loadtests/bench_bots.py --games 4 --games-list maumau,dix --strategies heuristic,strong

For each game (``--games-list``, default every registered game), each of
its strategies among ``--strategies`` (default random, heuristic, strong;
a game without one is skipped) and each player count of ``--players``
(default 3 and 5, the counts every game seats; a count the game does not
seat is skipped), ``--games`` seeded games are played in-process
(:func:`shared.engine.play`, default options) with the strategy under test
in one seat (game ``g``: seat ``g % players``) and ``heuristic`` in the
others, and every call of the tested strategy is timed
(``time.perf_counter``, and ``time.process_time`` for the CPU column,
which a shared machine inflates less; declined optional moves included), after one
untimed warm-up game per game (Maudit Mot Dit loads its word vectors on
first use).  The table
gives p50, p99 and max in ms per game × strategy × players, over all the
decisions of its games; docs/bots.md, "Decision time", records a run.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shared.engine import Strategy, play, wants_feed
from shared.games import REGISTRY, get_game

STRATEGIES = ("random", "heuristic", "strong")
PLAYERS = (3, 5)
#: The strategy in the seats not under test.
OTHERS = "heuristic"


def timed(strategy: Strategy, times: list[float], cpu: list[float]) -> Callable[..., Any]:
    """``strategy`` wrapped so that each call's wall-clock duration (s) is
    appended to ``times`` and its CPU time to ``cpu``; it takes ``feed``
    exactly when ``strategy`` does."""
    clock, cpu_clock = time.perf_counter, time.process_time
    if wants_feed(strategy):

        def with_feed(
            view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], rng: random.Random, feed: Any
        ) -> Any:
            t0, c0 = clock(), cpu_clock()
            out = strategy(view, legal, rng, feed=feed)  # type: ignore[call-arg]
            cpu.append(cpu_clock() - c0)
            times.append(clock() - t0)
            return out

        return with_feed

    def without(view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], rng: random.Random) -> Any:
        t0, c0 = clock(), cpu_clock()
        out = strategy(view, legal, rng)
        cpu.append(cpu_clock() - c0)
        times.append(clock() - t0)
        return out

    return without


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``, nearest rank."""
    ordered = sorted(values)
    k = max(0, math.ceil(q * len(ordered)) - 1)
    return ordered[k]


def bench_cell(game_name: str, strategy: str, players: int, games: int, seed: int = 0) -> dict[str, Any]:
    """Play ``games`` games of ``game_name`` at ``players`` seats with
    ``strategy`` in one seat (rotating); its decision times in ms:
    ``decisions``, wall-clock ``p50``, ``p99``, ``max``, and ``cpu_p99``
    (CPU time of this process: what the decision costs on a busy machine)."""
    game = get_game(game_name)
    times: list[float] = []
    cpu: list[float] = []
    tested = timed(game.strategies[strategy], times, cpu)
    for g in range(games):
        lineup: list[Any] = [OTHERS] * players
        lineup[g % players] = tested
        play(game, lineup, random.Random(seed + g))
    ms = [t * 1000 for t in times]
    return {
        "game": game_name,
        "strategy": strategy,
        "players": players,
        "games": games,
        "decisions": len(ms),
        "p50": percentile(ms, 0.50) if ms else math.nan,
        "p99": percentile(ms, 0.99) if ms else math.nan,
        "max": max(ms) if ms else math.nan,
        "cpu_p99": percentile([t * 1000 for t in cpu], 0.99) if cpu else math.nan,
    }


def cells(games_list: Sequence[str], strategies: Sequence[str], players: Sequence[int]) -> list[tuple[str, str, int]]:
    """The (game, strategy, players) cells to run: the strategies each
    game has, at the counts it seats."""
    out = []
    for name in games_list:
        game = get_game(name)
        for strategy in strategies:
            if strategy not in game.strategies:
                continue
            for n in players:
                if game.min_players <= n <= game.max_players:
                    out.append((name, strategy, n))
    return out


HEADER = (
    "| game | strategy | players | games | decisions | p50 ms | p99 ms | max ms | p99 CPU ms |\n"
    "|---|---|---|---|---|---|---|---|---|"
)


def row(r: Mapping[str, Any]) -> str:
    """One Markdown row of :func:`bench_cell`'s figures."""
    return (
        f"| {r['game']} | {r['strategy']} | {r['players']} | {r['games']} | {r['decisions']} "
        f"| {r['p50']:.3f} | {r['p99']:.3f} | {r['max']:.3f} | {r['cpu_p99']:.3f} |"
    )


def main(argv: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Run the benchmark and print the Markdown table; returns its rows."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--games", type=int, default=10, help="games per game × strategy × players")
    ap.add_argument("--games-list", default=",".join(REGISTRY), help="comma-separated game names")
    ap.add_argument("--strategies", default=",".join(STRATEGIES), help="comma-separated strategy names")
    ap.add_argument("--players", type=int, nargs="+", default=list(PLAYERS))
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    todo = cells(args.games_list.split(","), args.strategies.split(","), args.players)
    print(f"Bot decision times: {args.games} games per row, the tested strategy in one seat, {OTHERS} in the others")
    print()
    print(HEADER)
    rows = []
    for name in dict.fromkeys(c[0] for c in todo):  # warm up: data a strategy loads on first use
        game = get_game(name)
        play(game, [OTHERS] * max(game.min_players, 3), random.Random(-1))
    for name, strategy, n in todo:
        r = bench_cell(name, strategy, n, args.games, args.seed)
        rows.append(r)
        print(row(r), flush=True)
    return rows


if __name__ == "__main__":
    main()
