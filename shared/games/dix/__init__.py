"""DIX, the push-your-luck card game for 1–5 players (issue 4).

``GAME`` is the decider (:mod:`shared.games.dix.rules`); its strategies
live in :mod:`shared.games.dix.bots`.  Card codes: :mod:`shared.games.dix.cards`.
"""

from shared.games.dix.bots import STRATEGIES
from shared.games.dix.rules import DixGame, Options, Phase, State

GAME = DixGame()
GAME.strategies = STRATEGIES

__all__ = ["GAME", "DixGame", "Options", "Phase", "State"]
