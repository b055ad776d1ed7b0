"""Random playouts of Maudix through the shared invariant suite, with every table option."""

import pytest

from shared.games.maudix import GAME
from tests.invariants import playout

VARIANTS = [
    {"voleur": False},
    {"hook": False, "return_stolen": False},
    {"points_per_trick": 10, "first_dealer": 2},
    {"contracts": ["maudix", "plis", "association"]},
]


@pytest.mark.parametrize("options", VARIANTS)
@pytest.mark.parametrize("players", [3, 4, 7, 12])
def test_random_games_finish_and_replay_with_every_option(players, options):
    """Seeded random games with each table option finish, replay and round-trip."""
    out = playout(GAME, players, 11, options=options)
    result = GAME.result(out.state)
    assert len(result.detail["rounds"]) == len(options.get("contracts", range(7)))
