"""The hidden-information property, one for the five games (issue 11).

Over seeded random games played through :func:`shared.engine.play`, after
every step (the opening included), for every seat and the spectator, no
card code the seat may not see appears in its view nor in the new events
as its feed shows them (:func:`tests.invariants.check_hidden_information`).
Each game supplies only what is secret (its test helpers' ``secrets()``).

``HIDDEN_GAMES`` games per player count (3 by default; more with
``TAPIS_PROPERTY_GAMES``).
"""

from __future__ import annotations

import pytest

from shared.games.dix import GAME as DIX
from shared.games.maudit_mot_dit import GAME as MAUDIT
from shared.games.maudix import GAME as MAUDIX
from shared.games.maumau import GAME as MAUMAU
from shared.games.mauw import GAME as MAUW
from tests.games.dix import helpers as dix
from tests.games.maudit_mot_dit import helpers as maudit
from tests.games.maudix import helpers as maudix
from tests.games.maumau import helpers as maumau
from tests.games.mauw import given as mauw
from tests.invariants import HIDDEN_GAMES, check_hidden_information

CASES = [
    ("maumau", MAUMAU, maumau.secrets, [2, 4, 7]),
    ("dix", DIX, dix.secrets, [1, 2, 5]),
    ("mauw", MAUW, mauw.secrets, [2, 4, 6]),
    ("maudix", MAUDIX, maudix.secrets, [3, 5, 7]),
    ("maudit_mot_dit", MAUDIT, maudit.secrets, [3, 6]),
]


@pytest.mark.parametrize(
    "game,secrets,players",
    [pytest.param(g, s, n, id=f"{name}-{n}p") for name, g, s, counts in CASES for n in counts],
)
def test_no_seat_sees_a_card_hidden_from_it(game, secrets, players):
    for seed in range(HIDDEN_GAMES):
        check_hidden_information(game, players, 11_000 + 100 * players + seed, secrets())
