"""Mau Mau (issue 2): the shedding game with 7s, Jacks, 8s and "Mau!", 2–12 players.

``GAME`` is the decider (:mod:`shared.games.maumau.rules`: the rules,
stated in its module docstring and in docs/games/maumau.md, and the game
class; :mod:`~shared.games.maumau.state`: the state and ``evolve``;
:mod:`~shared.games.maumau.scoring`: points and the result;
:mod:`~shared.games.maumau.views`: views and redaction); its bot
strategies live in :mod:`shared.games.maumau.bots`.
"""

from shared.games.maumau.bots import STRATEGIES
from shared.games.maumau.rules import MauMau

GAME = MauMau()
GAME.strategies = STRATEGIES

__all__ = ["GAME"]
