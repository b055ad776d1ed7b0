"""Maudix: seven trick-taking contracts, 3–12 players, lowest total wins.

The rules live in :mod:`shared.games.maudix.rules`, the bots in
:mod:`shared.games.maudix.bots`.  ``GAME`` is the decider the services use.
"""

from shared.games.maudix.bots import STRATEGIES
from shared.games.maudix.rules import Maudix

GAME = Maudix()
GAME.strategies = STRATEGIES

__all__ = ["GAME", "Maudix"]
