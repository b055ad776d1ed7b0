"""Random playouts of Mauw (issue 5, properties) — placeholder, expanded below."""

import pytest

from shared.games.mauw import GAME
from tests.invariants import playout


@pytest.mark.parametrize("players", range(2, 7))
def test_random_games_finish_with_invariants(players):
    """Random seeded games end, replay equals live, snapshots round-trip."""
    for seed in range(10):
        playout(GAME, players, seed)
