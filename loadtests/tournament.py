"""Duplicate tournament of two strategies of any game (issue 15, "Bots").

Two strategies, ``A`` (default ``strong``) and ``B`` (default
``heuristic``), play mixed tables in-process (no services).  Luck of the
deal is taken out the way bridge and poker bot contests do it
(*duplicate*): each **deal** (a seed for the game's dice: the same
shuffle, deck and first player) is played by ``2n`` seatings at ``n``
players — the ``n`` rotations of ``A B A B ...`` and of its mirror
``B A B A ...`` — so each strategy holds every seat of every deal equally
often.  The players' own choices use a separate random stream.

Per game, a strategy's **win share** is the share of its seats that
placed first (a first place shared by ``k`` counts ``1/k``); its **place**
is the mean place of its seats (1 is best).  Figures are averaged per deal
first; the 95% intervals are mean ± 1.96 standard errors over deals (the
deals are independent, the seatings of one deal are not).  ``A − B`` is
the paired difference of win shares, per deal.

Usage::

    python loadtests/tournament.py --game maumau --players 3,4 --games 500 --jobs 2
    python loadtests/tournament.py --game dix --players 3,5 --games 500 --a strong --b heuristic

``--games`` is rounded up to whole deals (``2n`` games each).  Prints a
Markdown table; docs/bots.md records runs.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shared.engine import Result, play
from shared.games import get_game


def seatings(players: int, a: str, b: str) -> list[tuple[str, ...]]:
    """The ``2n`` seatings of one deal: rotations of ``a b a b ...`` and of its mirror.

    >>> seatings(3, "A", "B")[:3]
    [('A', 'B', 'A'), ('B', 'A', 'A'), ('A', 'A', 'B')]
    """
    if players < 2:
        raise ValueError("a duplicate tournament needs at least 2 players")
    base = tuple(a if i % 2 == 0 else b for i in range(players))
    mirror = tuple(b if s == a else a for s in base)
    out = []
    for pattern in (base, mirror):
        for r in range(players):
            out.append(pattern[r:] + pattern[:r])
    return out


def play_one(game_name: str, lineup: tuple[str, ...], deal: int, index: int) -> Result:
    """One game: ``lineup[seat]`` on each seat, the deal's dice, the seating's
    own decision stream.  Returns its :class:`shared.engine.Result`."""
    game = get_game(game_name)
    played = play(game, list(lineup), random.Random(1_000_003 * deal + index), dice=random.Random(deal))
    assert played.result is not None
    return played.result


def _job(args: tuple[str, tuple[str, ...], int, int]) -> tuple[int, tuple[str, ...], Result]:
    game_name, lineup, deal, index = args
    return deal, lineup, play_one(game_name, lineup, deal, index)


@dataclass
class Side:
    """One strategy's per-deal means."""

    win: list[float]
    place: list[float]
    score: list[float]


def interval(values: Sequence[float]) -> tuple[float, float]:
    """(mean, half-width of the 95% interval: 1.96 standard errors)."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, float("nan")
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, 1.96 * math.sqrt(var / n)


def run(game_name: str, players: int, games: int, a: str, b: str, jobs: int = 1, first_deal: int = 1) -> dict:
    """Play ``games`` (rounded up to whole deals) and return the per-deal
    figures: ``{"deals", "games", a: Side, b: Side, "diff": [...]}``."""
    seats = seatings(players, a, b)
    deals = max(1, math.ceil(games / len(seats)))
    work = [(game_name, lineup, first_deal + d, i) for d in range(deals) for i, lineup in enumerate(seats)]
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            results = list(pool.map(_job, work, chunksize=4))
    else:
        results = [_job(w) for w in work]
    per_deal: dict[int, dict[str, list[tuple[float, int, float]]]] = {}
    lower_wins = False
    for deal, lineup, result in results:
        places, scores, lower_wins = result.places, result.scores, result.lower_wins
        winners = sum(1 for p in places if p == 1)
        bucket = per_deal.setdefault(deal, {a: [], b: []})
        for seat, name in enumerate(lineup):
            bucket[name].append((1 / winners if places[seat] == 1 else 0.0, places[seat], scores[seat]))
    sides = {name: Side([], [], []) for name in (a, b)}
    diff = []
    for deal in sorted(per_deal):
        for name in (a, b):
            rows = per_deal[deal][name]
            sides[name].win.append(sum(r[0] for r in rows) / len(rows))
            sides[name].place.append(sum(r[1] for r in rows) / len(rows))
            sides[name].score.append(sum(r[2] for r in rows) / len(rows))
        diff.append(sides[a].win[-1] - sides[b].win[-1])
    return {"deals": deals, "games": len(work), a: sides[a], b: sides[b], "diff": diff, "lower_wins": lower_wins}


def table(results: dict[int, dict], a: str, b: str) -> str:
    """Markdown rows: players, strategy, seats, win share, mean place, mean score; and A − B."""
    lower = "lower wins" if any(r["lower_wins"] for r in results.values()) else "higher wins"
    lines = [f"| players | games (deals) | strategy | win share (95% CI) | mean place | mean score ({lower}) |",
             "|---:|---:|---|---|---:|---:|"]
    for players, res in results.items():
        for name in (a, b):
            side: Side = res[name]
            w, wh = interval(side.win)
            p, ph = interval(side.place)
            s, sh = interval(side.score)
            lines.append(f"| {players} | {res['games']} ({res['deals']}) | {name} | {w:.3f} ± {wh:.3f} "
                         f"| {p:.2f} ± {ph:.2f} | {s:.1f} ± {sh:.1f} |")
        d, dh = interval(res["diff"])
        lines.append(f"| {players} | | {a} − {b} | {d:+.3f} ± {dh:.3f} | | |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", required=True)
    ap.add_argument("--players", default="3", help="comma-separated table sizes (default 3)")
    ap.add_argument("--games", type=int, default=500, help="games per table size, rounded up to whole deals")
    ap.add_argument("--a", default="strong")
    ap.add_argument("--b", default="heuristic")
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args(argv)
    game = get_game(args.game)
    for s in (args.a, args.b):
        if s not in game.strategies:
            ap.error(f"{args.game} has no strategy {s!r} (it has {', '.join(game.strategies)})")
    sizes = [int(p) for p in args.players.split(",")]
    for n in sizes:
        if not game.min_players <= n <= game.max_players:
            ap.error(f"{args.game} seats {game.min_players}-{game.max_players} players, not {n}")
    results = {}
    for n in sizes:
        t0 = time.perf_counter()
        results[n] = run(args.game, n, args.games, args.a, args.b, args.jobs)
        print(f"{n} players: {results[n]['games']} games in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    print(table(results, args.a, args.b))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
