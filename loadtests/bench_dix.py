"""DIX engine benchmark (in-process, no services).

Prints, for each player count:

* random full games per second (start + the random bot's choices +
  legal_actions + decide + evolve, until the result);
* decide+evolve actions per second (the same games, the clock only from
  the bot's choice to the end of the ``evolve`` of its events);
* the time to rebuild one finished game from its events (``fold``).

Usage: ``python loadtests/bench_dix.py [--games N] [--players 1,2,3,4,5]``.
Times are CPU time of this process (``time.process_time``), so the figures
hold on a machine shared with other jobs; docs/bots-dix.md records a run.
"""

from __future__ import annotations

import argparse
import random
import time

from shared.engine import fold, play
from shared.games.dix import GAME


def random_game(players: int, seed: int, timed: list[float]) -> tuple[list, int]:
    """One random game (:func:`shared.engine.play`, no views: the random
    bot ignores them); adds decide+evolve seconds to ``timed[0]``."""
    clock = time.process_time
    choose = GAME.strategies["random"]
    t0: float | None = None
    spent = 0.0

    def timed_choice(view, legal, rng):
        nonlocal t0
        action = choose(view, legal, rng)
        t0 = clock()  # the clock runs from here to the end of evolve
        return action

    def stop(state, new):
        nonlocal spent
        if t0 is not None:  # not the opening
            spent += clock() - t0

    out = play(GAME, [timed_choice] * players, random.Random(seed), views=False, on_step=stop)
    timed[0] += spent
    return out.events, out.steps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--players", default="1,2,3,4,5")
    args = ap.parse_args()
    print(f"DIX engine benchmark: {args.games} random games per player count")
    print(f"{'players':>7} {'games/s':>9} {'actions/s':>11} {'events/game':>12} {'rebuild ms':>11}")
    for n in (int(x) for x in args.players.split(",")):
        timed = [0.0]
        total_actions = 0
        n_events = 0
        last = None
        t0 = time.process_time()
        for seed in range(args.games):
            last, acts = random_game(n, seed, timed)
            total_actions += acts
            n_events += len(last)
        wall = time.process_time() - t0
        reps = 20
        t1 = time.process_time()
        for _ in range(reps):
            fold(GAME, last)
        rebuild = (time.process_time() - t1) / reps
        print(
            f"{n:>7} {args.games / wall:>9.0f} {total_actions / timed[0]:>11.0f} "
            f"{n_events / args.games:>12.0f} {rebuild * 1000:>11.2f}"
        )


if __name__ == "__main__":
    main()
