"""Random playouts of Maudix through the shared invariant suite."""

import pytest

from shared.games.maudix import GAME
from tests.invariants import playout


@pytest.mark.parametrize("players", range(3, 13))
def test_random_games_finish_and_replay(players):
    """Seeded random games at every player count finish, replay and round-trip."""
    for seed in range(3):
        out = playout(GAME, players, seed)
        assert GAME.result(out.state) is not None
