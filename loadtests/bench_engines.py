"""Tapis' engines against peers, side by side in one process (issue 14).

    python loadtests/bench_engines.py [--rounds 10] [--actions 20000] [--folds 200]

Random playouts, counted the same way on every engine: an **action** is one
move of a player through the engine's public API — its legal actions
listed, one chosen uniformly at random (``random.Random``), applied:

* Tapis (Mau Mau 4 players, Maudix 4, DIX 3, Mauw 4): :func:`shared.engine.play`
  with a strategy returning ``rng.choice(legal)`` (``views=False``): each
  step asks ``awaiting``, ``legal_actions``, then ``decide`` and ``evolve``.
  Dealing is done inside the action that ends a round.
* RLCard UNO (pure Python, 4 players): ``UnoGame.get_legal_actions()``,
  ``UnoGame.step(choice)`` until ``is_over()``.
* OpenSpiel hearts (C++ through pybind11, 4 players, one deal):
  ``state.legal_actions()``, ``state.apply_action(choice)`` until terminal.
  Its deal is 52 chance nodes (plus the pass direction) played the same
  way; their time counts, but they are not counted as actions (as Tapis'
  deals are not).

Rates are actions per CPU second of this process (``time.process_time``),
which holds better than wall time on a shared machine. The engines run in
``--rounds`` rounds; in each, every engine plays whole games until it has
played ``--actions`` actions, the order rotated every round, so that the
machine's drift hits every engine alike; the table sums the rounds.
Each Tapis engine is set beside its peer (Mau Mau / RLCard UNO, Maudix /
OpenSpiel hearts); DIX and Mauw have none here.

Last line: the median time to rebuild (``fold``) a finished 4-player
Maudix game from its events, over ``--folds`` rebuilds of 10 games.

The peers are the ``bench`` extra (``pip install -e '.[bench]'``); a
missing peer is left out of the table.
"""

from __future__ import annotations

import argparse
import importlib
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shared.engine import fold, play

#: A playout: seed -> actions played.
Playout = Callable[[int], int]


def _pick(view, legal, rng):
    return rng.choice(legal)


def tapis(game_name: str, players: int) -> Playout:
    """Random playouts of a Tapis game through :func:`shared.engine.play`."""
    game = importlib.import_module(f"shared.games.{game_name}").GAME
    strategies = [_pick] * players

    def playout(seed: int) -> int:
        return play(game, strategies, random.Random(seed), views=False, feed=False).steps

    return playout


def rlcard_uno(players: int = 4) -> Playout | None:
    """Random playouts of RLCard's UNO game engine (None without rlcard)."""
    try:
        import numpy as np
        from rlcard.games.uno.game import UnoGame
    except ImportError:
        return None

    def playout(seed: int) -> int:
        rng = random.Random(seed)
        game = UnoGame(num_players=players)
        game.np_random = np.random.RandomState(seed)
        game.init_game()
        n = 0
        while not game.is_over():
            game.step(rng.choice(game.get_legal_actions()))
            n += 1
        return n

    return playout


def openspiel_hearts() -> Playout | None:
    """Random playouts of OpenSpiel's hearts (None without open_spiel)."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("hearts")

    def playout(seed: int) -> int:
        rng = random.Random(seed)
        state = game.new_initial_state()
        n = 0
        while not state.is_terminal():
            chance = state.is_chance_node()
            state.apply_action(rng.choice(state.legal_actions()))
            if not chance:
                n += 1
        return n

    return playout


@dataclass
class Engine:
    """One engine of the table and its running totals."""

    label: str
    players: int
    playout: Playout
    peer: str | None = None  # label of the engine it is set beside
    games: int = 0
    actions: int = 0
    cpu: float = 0.0

    @property
    def rate(self) -> float:
        """Actions per CPU second so far."""
        return self.actions / self.cpu if self.cpu else 0.0


def engines() -> list[Engine]:
    """The engines measured: Tapis' four card games and the installed peers."""
    out = [
        Engine("Tapis Mau Mau", 4, tapis("maumau", 4), peer="RLCard UNO"),
        Engine("Tapis Maudix", 4, tapis("maudix", 4), peer="OpenSpiel hearts"),
        Engine("Tapis DIX", 3, tapis("dix", 3)),
        Engine("Tapis Mauw", 4, tapis("mauw", 4)),
    ]
    uno, hearts = rlcard_uno(4), openspiel_hearts()
    if uno is not None:
        out.append(Engine("RLCard UNO", 4, uno))
    if hearts is not None:
        out.append(Engine("OpenSpiel hearts", 4, hearts))
    return out


def run(rounds: int, actions: int) -> list[Engine]:
    """Play ``rounds`` rounds, each engine in turn playing whole games
    (seeds 0, 1, 2... per engine) until it has played ``actions`` actions
    in the round, the engines' order rotated each round; returns the
    engines with their totals."""
    table = engines()
    clock = time.process_time
    for r in range(rounds):
        order = table[r % len(table):] + table[: r % len(table)]
        for eng in order:
            playout, seed = eng.playout, eng.games
            n = 0
            t0 = clock()
            while n < actions:
                n += playout(seed)
                seed += 1
            eng.cpu += clock() - t0
            eng.actions += n
            eng.games = seed
    return table


def ratios(table: list[Engine]) -> dict[str, float | None]:
    """Per engine with a peer: its rate over the peer's (None: peer missing)."""
    rates = {e.label: e.rate for e in table}
    return {e.label: (e.rate / rates[e.peer] if e.peer in rates and rates[e.peer] else None)
            for e in table if e.peer is not None}


def maudix_fold_ms(games: int = 10, folds: int = 200) -> tuple[float, float]:
    """Median milliseconds (CPU) to fold a finished 4-player Maudix game,
    over ``folds`` rebuilds of ``games`` random games; and their mean event count."""
    from shared.games.maudix import GAME

    logs = [play(GAME, [_pick] * 4, random.Random(seed), views=False, feed=False).events for seed in range(games)]
    clock = time.process_time
    times = []
    for i in range(folds):
        events = logs[i % games]
        t0 = clock()
        fold(GAME, events)
        times.append(clock() - t0)
    return statistics.median(times) * 1000, statistics.fmean(len(e) for e in logs)


def render(table: list[Engine], fold_ms: float, fold_events: float) -> str:
    """The table as Markdown, then the fold line."""
    ratio = ratios(table)
    lines = ["| engine | players | games | actions | CPU s | actions/CPU s | vs peer |",
             "|---|---|---|---|---|---|---|"]
    for e in table:
        r = ratio.get(e.label)
        vs = "" if e.peer is None else (f"{r:.2f}x {e.peer}" if r is not None else f"({e.peer} not installed)")
        lines.append(f"| {e.label} | {e.players} | {e.games} | {e.actions:,} | {e.cpu:.2f} | {e.rate:,.0f} | {vs} |")
    lines.append("")
    lines.append(f"rebuild (fold) of a finished 4-player Maudix game: {fold_ms:.3f} ms median "
                 f"({fold_events:.0f} events)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> str:
    """Run the bench, print the table and return it."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--actions", type=int, default=20_000, help="actions per engine per round (whole games)")
    ap.add_argument("--folds", type=int, default=200)
    a = ap.parse_args(argv)
    table = run(a.rounds, a.actions)
    fold_ms, fold_events = maudix_fold_ms(folds=a.folds)
    out = render(table, fold_ms, fold_events)
    print(f"random playouts, {a.rounds} rounds of >= {a.actions:,} actions per engine, interleaved")
    print(out)
    return out


if __name__ == "__main__":
    main()
