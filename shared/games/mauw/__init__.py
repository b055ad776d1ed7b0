"""Mauw (issue 5): columns, associations, blocks and attack chains, 2–6 players.

``GAME`` is the decider (see :mod:`shared.games.mauw.rules` for the rules);
its bots live in :mod:`shared.games.mauw.bots`.
"""

from shared.games.mauw.bots import STRATEGIES
from shared.games.mauw.rules import Mauw

GAME = Mauw()
GAME.strategies = STRATEGIES

__all__ = ["GAME"]
