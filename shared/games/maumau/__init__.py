"""Mau Mau (issue 2): the shedding game with 7s, Jacks, 8s and "Mau!", 2–12 players.

``GAME`` is the decider (rules in :mod:`shared.games.maumau.rules`, stated
in its module docstring and in docs/games/maumau.md); its bot strategies
live in :mod:`shared.games.maumau.bots`.
"""

from shared.games.maumau.bots import STRATEGIES
from shared.games.maumau.rules import MauMau

GAME = MauMau()
GAME.strategies = STRATEGIES

__all__ = ["GAME"]
