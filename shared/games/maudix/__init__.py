"""Maudix: seven trick-taking contracts, 3–12 players, lowest total wins.

The package (docs/games/maudix.md, "Code map"): :mod:`.state` (cards,
state, ``evolve``), :mod:`.rules` (rules, ``decide``, legal actions and the
game class), :mod:`.views` (views and redaction), :mod:`.scoring`, and the
bots in :mod:`.bots`.  ``GAME`` is the decider the services use.
"""

from shared.games.maudix.bots import STRATEGIES
from shared.games.maudix.rules import Maudix

GAME = Maudix()
GAME.strategies = STRATEGIES

__all__ = ["GAME", "Maudix"]
