"""Maudit Mot Dit engine benchmark (docs/architecture.md, "Performance budgets"):
plain python, prints figures.

* random full games/s: start + the ``random`` bot on every seat to the end
  (views and legal actions included, as a bot worker would);
* decide+evolve actions/s: the recorded actions of those games applied again
  (``decide`` then ``evolve`` of its events), no bot and no view in the loop;
  clue checks (lemmatizer, stemmer) and guess matching are inside ``decide``;
* rebuild: the time to fold one finished game from its events.

    python loadtests/bench_maudit_mot_dit.py --games 200 --players 4
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shared.engine import fold, play  # noqa: E402
from shared.games.maudit_mot_dit import GAME  # noqa: E402


def random_game(players: int, seed: int):
    """One random game (:func:`shared.engine.play`): (opening events,
    [(seat, action)], all events)."""
    rng = random.Random(seed)
    opening = GAME.start(GAME.Options(), players, rng)
    actions = []
    out = play(GAME, ["random"] * players, rng, opening=opening,
               on_decide=lambda state, seat, action, new: actions.append((seat, action)))
    return opening, actions, out.events


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--players", type=int, default=4)
    args = ap.parse_args()

    random_game(args.players, -1)  # warm the lemmatizer caches' code paths
    t0 = time.perf_counter()
    games = [random_game(args.players, s) for s in range(args.games)]
    dt = time.perf_counter() - t0
    n_actions = sum(len(a) for _, a, _ in games)
    print(f"random full games ({args.players} players): {args.games / dt:,.0f} games/s "
          f"({n_actions / args.games:.0f} actions a game, {n_actions / dt:,.0f} actions/s with bot + views)")

    rng = random.Random(0)
    t0 = time.perf_counter()
    for opening, actions, _ in games:
        state = fold(GAME, opening)
        for seat, action in actions:
            for e in GAME.decide(state, seat, action, rng):
                state = GAME.evolve(state, e)
    dt = time.perf_counter() - t0
    print(f"decide+evolve: {n_actions / dt:,.0f} actions/s")

    times = []
    for _, _, events in games[:50]:
        t0 = time.perf_counter()
        fold(GAME, events)
        times.append(time.perf_counter() - t0)
    sizes = [len(e) for _, _, e in games[:50]]
    print(f"rebuild one finished game from its events: {1e6 * statistics.median(times):,.0f} µs median "
          f"({statistics.median(sizes):.0f} events)")


if __name__ == "__main__":
    main()
