"""In-process Mau Mau engine benchmark (docs/architecture.md, "Performance
budgets"; issue 2 "Done when").

Prints, for random 4-player games with the default options:

* full games/s and actions/s of the random loop (legal_actions, a uniform
  random pick, decide, evolve; a missed announcement is called out by a
  random other seat half of the time, as the ``random`` bot does);
* decide+evolve actions/s alone (the same recorded actions replayed);
* the time to rebuild one finished game from its events (fold), and to
  snapshot/restore its state;
* a bot tournament: one ``heuristic`` seat against ``random`` seats
  (rotating), its win rate against the 1-in-n baseline.

Rates are per CPU second of this process (``time.process_time``), which
stays meaningful on a shared machine; wall-clock rates are printed too.

Peer figure on this machine (docs/architecture.md, "Performance budgets"):
RLCard's pure-Python UNO runs about 95,000 random actions/s; the aim is at
least twice that.

Usage: ``python loadtests/bench_maumau.py [--games 300] [--players 4] [--duel 200] [--profile]``
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import statistics
import time

from shared.engine import fold
from shared.games.maumau import GAME
from shared.games.maumau.bots import play_match
from shared.games.maumau.state import Phase

PEER_UNO = 95_000


def random_game(players: int, seed: int) -> tuple[list, list]:
    """Play one random game; returns its events and the (seat, action) list."""
    pick = random.Random(seed)
    dice = random.Random(seed + 1_000_003)  # decide's randomness, replayable
    decide, evolve, legal_actions = GAME.decide, GAME.evolve, GAME.legal_actions
    events = GAME.start(GAME.Options(), players, dice)
    state = fold(GAME, events)
    actions = []
    while state.phase is not Phase.OVER:
        w = state.window
        if w is not None and pick.random() < 0.5:
            seat = pick.choice([x for x in state.seats if x != w.offender])
            action = {"type": "callout", "seat": w.offender}
        else:
            seat = state.turn
            action = pick.choice(legal_actions(state, seat))
        new = decide(state, seat, action, dice)
        for e in new:
            state = evolve(state, e)
        events.extend(new)
        actions.append((seat, action))
    return events, actions


def replay_actions(players: int, seed: int, actions: list) -> int:
    """decide+evolve only, over recorded actions (same randomness)."""
    dice = random.Random(seed + 1_000_003)
    decide, evolve = GAME.decide, GAME.evolve
    state = fold(GAME, GAME.start(GAME.Options(), players, dice))
    for seat, action in actions:
        for e in decide(state, seat, action, dice):
            state = evolve(state, e)
    assert state.phase is Phase.OVER
    return len(actions)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--duel", type=int, default=200, help="games per player count in the bot tournament (0: none)")
    ap.add_argument("--profile", action="store_true", help="profile the random loop once with cProfile")
    args = ap.parse_args()
    n, games = args.players, args.games

    # Each game is timed on its own and nothing is kept between games except
    # what the next step needs: a growing heap of old events would make the
    # cyclic GC, not the engine, the cost being measured.
    random_game(n, 0)  # warm up
    loop = loop_wall = core = core_wall = 0.0
    actions = replayed = 0
    rebuild, snap, sizes = [], [], []
    for seed in range(games):
        w0, c0 = time.perf_counter(), time.process_time()
        events, acts = random_game(n, seed)
        loop_wall += time.perf_counter() - w0
        loop += time.process_time() - c0
        actions += len(acts)
        w0, c0 = time.perf_counter(), time.process_time()
        replayed += replay_actions(n, seed, acts)
        core_wall += time.perf_counter() - w0
        core += time.process_time() - c0
        t0 = time.perf_counter()
        state = fold(GAME, events)
        rebuild.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        GAME.restore(GAME.snapshot(state))
        snap.append(time.perf_counter() - t0)
        sizes.append(len(events))
        del events, acts, state
    events_per_game = statistics.mean(sizes)

    print(f"Mau Mau, {n} players, default options, {games} random games (per CPU second; wall clock in brackets)")
    print(f"  random loop (legal_actions + pick + decide + evolve): {games / loop:,.0f} games/s, "
          f"{actions / loop:,.0f} actions/s [{actions / loop_wall:,.0f}/s wall] ({actions / games:.0f} actions/game)")
    print(f"  decide+evolve only (replayed actions):              {replayed / core:,.0f} actions/s "
          f"[{replayed / core_wall:,.0f}/s wall] ({replayed / core / PEER_UNO:.1f}x RLCard UNO's {PEER_UNO:,}/s)")
    print(f"  rebuild a finished game from its events (fold):     {statistics.mean(rebuild) * 1e3:.2f} ms mean "
          f"({events_per_game:.0f} events), max {max(rebuild) * 1e3:.2f} ms")
    print(f"  snapshot + restore of a finished state:             {statistics.mean(snap) * 1e6:.0f} us")

    for players in (2, 4, 6) if args.duel else ():
        wins = places = 0
        for g in range(args.duel):
            seats = ["random"] * players
            seats[g % players] = "heuristic"
            res, _ = play_match(GAME, seats, g)
            wins += res.places[g % players] == 1
            places += res.places[g % players]
        print(f"  tournament, {players} players, 1 heuristic vs {players - 1} random, {args.duel} games: "
              f"heuristic wins {wins / args.duel:.0%} (baseline {1 / players:.0%}), mean place {places / args.duel:.2f}")

    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        for seed in range(min(games, 100)):
            random_game(n, seed)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
