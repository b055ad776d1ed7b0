"""Maudit Mot Dit, the French word-guessing game (3-6 players).

``GAME`` is the decider (:mod:`.rules`: decide and legal actions; the state
and evolve in :mod:`.state`; views and feeds in :mod:`.views`; scores in
:mod:`.scoring`); the cards are :mod:`.deck` (``cards.json``); clue checks
and guess matching are :mod:`.lexicon`; the bots are :mod:`.bots`.  Rules
as implemented: docs/games/maudit_mot_dit.md.
"""

from .rules import GAME, MauditMotDit, Options
from .state import Phase, State

__all__ = ["GAME", "MauditMotDit", "Options", "Phase", "State"]
