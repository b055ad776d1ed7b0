"""Mauw engine benchmark (docs/architecture.md, "Performance budgets"): plain
Python, prints figures.

Usage::

    python loadtests/bench_mauw.py [--games 300] [--players 2 4 6]

Figures, in-process, per player count:

* random full games/s — ``start`` then, until the end, ``legal_actions``,
  a uniformly random choice, ``decide`` and ``evolve`` for every action;
* random actions/s over the same loop;
* decide+evolve actions/s — the recorded actions of those games decided
  and applied again (same seeds, so the same games), without choosing;
* rebuild — the time to fold one finished game from its event log.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shared.engine import fold, play  # noqa: E402
from shared.games.mauw import GAME  # noqa: E402


def _pick(view, legal, rng):
    return rng.choice(legal)


def random_game(players: int, seed: int):
    """One random game (:func:`shared.engine.play`, no views); returns
    (events, [(seat, action)...])."""
    actions = []
    out = play(GAME, [_pick] * players, random.Random(seed + 1_000_003),  # the players' choices
               dice=random.Random(seed),  # the game's randomness (shuffles), replayable
               views=False, on_decide=lambda state, seat, action, new: actions.append((seat, action)))
    return out.events, actions


def replay_decisions(players: int, seed: int, actions) -> int:
    rng = random.Random(seed)
    state = fold(GAME, GAME.start(GAME.Options(), players, rng))
    decide, evolve = GAME.decide, GAME.evolve
    for seat, action in actions:
        for e in decide(state, seat, action, rng):
            state = evolve(state, e)
    assert state.ending is not None
    return len(actions)


def main() -> None:
    parser = argparse.ArgumentParser(description="Mauw engine benchmark")
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4, 6])
    args = parser.parse_args()
    print(f"Mauw engine benchmark, {args.games} random games per player count, Python {sys.version.split()[0]}")
    print(f"{'players':>7} {'games/s':>9} {'actions/s':>10} {'decide+evolve/s':>16} {'actions/game':>13} {'rebuild ms':>11}")
    for players in args.players:
        t0 = time.perf_counter()
        games = [random_game(players, seed) for seed in range(args.games)]
        t_random = time.perf_counter() - t0
        n_actions = sum(len(a) for _, a in games)

        t0 = time.perf_counter()
        for seed, (_, actions) in enumerate(games):
            replay_decisions(players, seed, actions)
        t_decide = time.perf_counter() - t0

        t0 = time.perf_counter()
        for events, _ in games:
            fold(GAME, events)
        t_fold = time.perf_counter() - t0

        print(
            f"{players:>7} {args.games / t_random:>9.0f} {n_actions / t_random:>10.0f} "
            f"{n_actions / t_decide:>16.0f} {n_actions / args.games:>13.0f} {1000 * t_fold / args.games:>11.3f}"
        )


if __name__ == "__main__":
    main()
