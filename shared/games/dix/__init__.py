"""DIX, the push-your-luck card game for 1–5 players (issue 4).

``GAME`` is the decider (:mod:`shared.games.dix.rules`, which binds the
state and ``evolve`` of :mod:`shared.games.dix.state`, the views and feeds
of :mod:`shared.games.dix.views` and the result of
:mod:`shared.games.dix.scoring`); its strategies live in
:mod:`shared.games.dix.bots`.  Card codes: :mod:`shared.games.dix.cards`.
"""

from shared.games.dix.bots import STRATEGIES
from shared.games.dix.rules import DixGame, Options
from shared.games.dix.state import Phase, State

GAME = DixGame()
GAME.strategies = STRATEGIES

__all__ = ["GAME", "DixGame", "Options", "Phase", "State"]
