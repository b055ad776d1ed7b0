"""Mauw (issue 5): columns, associations, blocks and attack chains, 2–6 players.

``GAME`` is the decider (see :mod:`shared.games.mauw.rules` for the rules);
its bots live in :mod:`shared.games.mauw.bots`.  Modules: ``cards`` (codes,
lookup tables, the deck), ``state`` (the state, its queries, ``evolve``),
``rules`` (options, the deal, decide and legal actions, the game class),
``views`` (views and feeds through :mod:`shared.hiding`), ``scoring``
(column points, the result), ``bots`` (strategies).
"""

from shared.games.mauw.bots import STRATEGIES
from shared.games.mauw.rules import Mauw

GAME = Mauw()
GAME.strategies = STRATEGIES

__all__ = ["GAME"]
