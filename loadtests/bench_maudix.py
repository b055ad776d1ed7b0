"""Maudix engine benchmark (docs/architecture.md, "Performance budgets"): plain
Python, prints figures.

    python loadtests/bench_maudix.py [--games 200] [--players 4]

* random full 7-round games per second through ``start`` / ``legal_actions``
  / ``decide`` / ``evolve`` with a random choice among the legal actions
  (the same loop as the invariant playout, without its checks);
* decide + evolve actions per second on the card-play actions of those games
  (the hot path: validate one play, apply its events), and over all actions
  (écart, bids, Voleur included);
* the time to rebuild one finished game from its events (``fold``), and
  the snapshot round trip of a finished state.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import msgpack

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shared.engine import fold, play
from shared.events import decode, encode
from shared.games.maudix import GAME


def _pick(view, legal, rng):
    return rng.choice(legal)


def random_game(players: int, seed: int) -> tuple[list, list]:
    """Play one random game; returns (events, [(state-before-events index, seat, action)] for replays)."""
    actions = []
    n_events = 0

    def count(state, new):
        nonlocal n_events
        n_events += len(new)

    def record(state, seat, action, new):
        actions.append((n_events, seat, action))

    out = play(GAME, [_pick] * players, random.Random(seed), views=False, on_decide=record, on_step=count)
    return out.events, actions


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--players", type=int, default=4)
    a = ap.parse_args(argv)
    n = a.players

    # 1. Random full games per second (legal_actions + random choice + decide + evolve).
    t0 = time.perf_counter()
    logs = [random_game(n, seed) for seed in range(a.games)]
    dt = time.perf_counter() - t0
    n_actions = sum(len(acts) for _, acts in logs)
    print(f"Maudix, {n} players, {a.games} random full games (7 rounds)")
    print(f"  random full games/s            {a.games / dt:10.1f}   ({n_actions / a.games:.0f} actions per game)")
    print(f"  random actions/s (with legal)  {n_actions / dt:10.0f}")

    # 2. decide + evolve on recorded positions: rebuild the state before each
    #    action of a few games once, then time decide + evolve alone.
    sample = logs[: min(20, len(logs))]
    plays, others = [], []
    for events, acts in sample:
        state = fold(GAME, events[:1])
        pos = 1
        for idx, seat, action in acts:
            state = fold(GAME, events[pos:idx], state)
            pos = idx
            snap = GAME.snapshot(state)
            (plays if action["type"] == "play" else others).append((snap, seat, action))
    states_p = [(GAME.restore(s), seat, act) for s, seat, act in plays]
    states_o = [(GAME.restore(s), seat, act) for s, seat, act in others]
    rng = random.Random(0)
    decide, evolve = GAME.decide, GAME.evolve
    for label, batch in (("card plays", states_p), ("all other actions", states_o)):
        # decide never mutates, evolve does: time decide on the pristine states,
        # then evolve on them (each state used once).
        t0 = time.perf_counter()
        outs = [decide(st, seat, act, rng) for st, seat, act in batch]
        t_dec = time.perf_counter() - t0
        t0 = time.perf_counter()
        for (st, _, _), evs in zip(batch, outs):
            for e in evs:
                st = evolve(st, e)
        t_ev = time.perf_counter() - t0
        print(
            f"  decide+evolve actions/s ({label:>17}) {len(batch) / (t_dec + t_ev):10.0f}   "
            f"(decide {len(batch) / t_dec:.0f}/s, evolve {len(batch) / t_ev:.0f}/s, n={len(batch)})"
        )

    # 3. Legal actions alone, in play.
    states_p = [(GAME.restore(s), seat) for s, seat, _ in plays]
    t0 = time.perf_counter()
    for st, seat in states_p:
        GAME.legal_actions(st, seat)
    dt = time.perf_counter() - t0
    print(f"  legal_actions/s (card play)    {len(states_p) / dt:10.0f}")

    # 4. Rebuild one finished game from its events (fold), and through the codec.
    times, times_codec = [], []
    for events, _ in logs[:50]:
        raw = [encode(e) for e in events]
        t0 = time.perf_counter()
        fold(GAME, events)
        times.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        fold(GAME, (decode(r) for r in raw))
        times_codec.append(time.perf_counter() - t0)
    n_ev = statistics.fmean(len(e) for e, _ in logs[:50])
    print(
        f"  rebuild one finished game      {statistics.median(times) * 1000:10.2f} ms median "
        f"({n_ev:.0f} events; {statistics.median(times_codec) * 1000:.2f} ms from msgpack bytes)"
    )

    # 5. Snapshot round trip of a finished state.
    state = fold(GAME, logs[0][0])
    t0 = time.perf_counter()
    for _ in range(100):
        blob = msgpack.packb(GAME.snapshot(state), use_bin_type=True)
        GAME.restore(msgpack.unpackb(blob, raw=False, strict_map_key=False))
    print(f"  snapshot dump+load             {(time.perf_counter() - t0) * 10:10.2f} ms ({len(blob)} bytes)")


if __name__ == "__main__":
    main()
