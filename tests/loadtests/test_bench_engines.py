"""The engines-against-peers bench (loadtests/bench_engines.py) at a CI
size: every engine plays the seeded games it says, the ratios are its own
figures divided, the table has one row per engine. No timing bound. The
peers (the ``bench`` extra) are optional: without them their rows are
left out and the ratio cells say so."""

from __future__ import annotations

import importlib.util
import random

import pytest

from loadtests import bench_engines as bench
from shared.engine import play
from shared.games.maudix import GAME as MAUDIX

PEERS = {
    "RLCard UNO": importlib.util.find_spec("rlcard") is not None,
    "OpenSpiel hearts": importlib.util.find_spec("pyspiel") is not None,
}


@pytest.fixture(scope="module")
def table() -> list[bench.Engine]:
    return bench.run(rounds=2, actions=1)  # one game per engine and round


def test_one_row_per_engine_each_with_its_games(table: list[bench.Engine]) -> None:
    labels = [e.label for e in table]
    expected = ["Tapis Mau Mau", "Tapis Maudix", "Tapis DIX", "Tapis Mauw"]
    expected += [p for p, installed in PEERS.items() if installed]
    assert labels == expected
    assert all(e.games == 2 and e.actions > 0 and e.cpu > 0 for e in table)


def test_tapis_actions_are_the_steps_of_the_seeded_games(table: list[bench.Engine]) -> None:
    # Round 0 plays seed 0, round 1 seed 1: the same games as play() gives.
    maudix = next(e for e in table if e.label == "Tapis Maudix")
    pick = bench._pick
    steps = sum(play(MAUDIX, [pick] * 4, random.Random(s), views=False, feed=False).steps for s in (0, 1))
    assert maudix.actions == steps
    assert maudix.rate == maudix.actions / maudix.cpu


def test_ratios_are_the_rates_divided(table: list[bench.Engine]) -> None:
    rates = {e.label: e.rate for e in table}
    got = bench.ratios(table)
    assert set(got) == {"Tapis Mau Mau", "Tapis Maudix"}
    for label, peer in (("Tapis Mau Mau", "RLCard UNO"), ("Tapis Maudix", "OpenSpiel hearts")):
        if PEERS[peer]:
            assert got[label] == rates[label] / rates[peer]
        else:
            assert got[label] is None


def test_rendered_table(table: list[bench.Engine]) -> None:
    text = bench.render(table, 0.5, 536.0)
    lines = text.splitlines()
    assert lines[0] == "| engine | players | games | actions | CPU s | actions/CPU s | vs peer |"
    assert len(lines) == 2 + len(table) + 2
    mau = lines[2]
    assert mau.startswith("| Tapis Mau Mau | 4 | 2 | ")
    if not PEERS["RLCard UNO"]:
        assert mau.endswith("| (RLCard UNO not installed) |")
    else:
        assert mau.endswith(f"| {bench.ratios(table)['Tapis Mau Mau']:.2f}x RLCard UNO |")
    assert lines[-1] == "rebuild (fold) of a finished 4-player Maudix game: 0.500 ms median (536 events)"


def test_fold_figure_is_over_real_games() -> None:
    ms, events = bench.maudix_fold_ms(games=2, folds=4)
    lengths = [len(play(MAUDIX, [bench._pick] * 4, random.Random(s), views=False, feed=False).events) for s in (0, 1)]
    assert events == sum(lengths) / 2
    assert ms > 0
