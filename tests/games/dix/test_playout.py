"""Invariant playouts of DIX (tests/invariants.py) at every player count."""

import pytest

from shared.games.dix import GAME
from tests.invariants import playout


@pytest.mark.parametrize("players", [1, 2, 3, 4, 5])
def test_random_games_keep_the_invariants(players):
    """Seeded random games end, replay equals live, snapshots round-trip."""
    for seed in range(5):
        playout(GAME, players, seed)
