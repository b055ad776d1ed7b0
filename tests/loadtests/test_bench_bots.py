"""The bot decision benchmark (loadtests/bench_bots.py): its helpers, and
one run at a CI size (``TAPIS_BOT_BENCH_GAMES`` games per row, default 1,
at 3 players) whose table must hold every game × strategy row with sane
figures (no timing bounds: the machine decides those)."""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "loadtests"))

import bench_bots as bench

from shared.games import REGISTRY

GAMES = int(os.environ.get("TAPIS_BOT_BENCH_GAMES", "1"))

#: Every game's benchmarked strategies (those of random, heuristic, strong it has).
EXPECTED = {
    ("maumau", "random"), ("maumau", "heuristic"), ("maumau", "strong"),
    ("mauw", "random"), ("mauw", "heuristic"), ("mauw", "strong"),
    ("dix", "random"), ("dix", "heuristic"), ("dix", "strong"),
    ("maudix", "random"), ("maudix", "heuristic"), ("maudix", "strong"),
    ("maudit_mot_dit", "random"), ("maudit_mot_dit", "heuristic"), ("maudit_mot_dit", "strong"),
}


def test_percentile_is_the_nearest_rank():
    values = [5.0, 1.0, 4.0, 2.0, 3.0]
    assert bench.percentile(values, 0.5) == 3.0
    assert bench.percentile(values, 0.99) == 5.0
    assert bench.percentile(values, 0.2) == 1.0
    assert bench.percentile([7.0], 0.99) == 7.0


def test_cells_skip_missing_strategies_and_unseated_counts():
    # Every game has a strong strategy now (Maudit Mot Dit's came last): "expert" stands for a missing one.
    cells = bench.cells(["maudit_mot_dit", "dix"], ["heuristic", "expert", "strong"], [3, 6])
    assert cells == [
        ("maudit_mot_dit", "heuristic", 3), ("maudit_mot_dit", "heuristic", 6),
        ("maudit_mot_dit", "strong", 3), ("maudit_mot_dit", "strong", 6),
        ("dix", "heuristic", 3), ("dix", "strong", 3),
    ]


def test_a_row_is_markdown():
    r = {"game": "dix", "strategy": "strong", "players": 3, "games": 2, "decisions": 40,
         "p50": 1.23456, "p99": 20.0, "max": 31.5, "cpu_p99": 19.0}
    assert bench.row(r) == "| dix | strong | 3 | 2 | 40 | 1.235 | 20.000 | 31.500 | 19.000 |"


@pytest.mark.slow
def test_a_small_run_has_every_game_and_strategy(capsys):
    real = [name for name in REGISTRY if name != "toy"]  # tests/conftest.py registers the toy game
    assert {g for g, _ in EXPECTED} == set(real)
    rows = bench.main(["--games", str(GAMES), "--players", "3", "--games-list", ",".join(real)])
    out = capsys.readouterr().out
    assert {(r["game"], r["strategy"]) for r in rows} == EXPECTED
    assert len(rows) == len(EXPECTED)
    for r in rows:
        assert r["players"] == 3 and r["games"] == GAMES
        assert r["decisions"] > 0
        assert 0 <= r["p50"] <= r["p99"] <= r["max"] and math.isfinite(r["max"])
        assert 0 <= r["cpu_p99"] and math.isfinite(r["cpu_p99"])
        assert bench.row(r) in out
    assert bench.HEADER in out
