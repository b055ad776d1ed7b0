"""The game registry: find a game object by its name.

Each game lives in its own package ``shared.games.<name>`` exposing
``GAME``.  Games are imported lazily so one broken or heavy game (word
vectors) does not slow or break the others.
"""

from __future__ import annotations

import importlib
from functools import cache

from shared.engine import Game

#: name -> module path; the module exposes ``GAME``.
REGISTRY: dict[str, str] = {
    "maumau": "shared.games.maumau",
    "mauw": "shared.games.mauw",
    "dix": "shared.games.dix",
    "maudix": "shared.games.maudix",
    "maudit_mot_dit": "shared.games.maudit_mot_dit",
}


class UnknownGame(KeyError):
    """Raised for a game name that is not registered."""


@cache
def get_game(name: str) -> Game:
    """Return the ``GAME`` object registered as ``name``.

    Raises :class:`UnknownGame` when no such game is registered.
    """
    path = REGISTRY.get(name)
    if path is None:
        raise UnknownGame(name)
    return importlib.import_module(path).GAME


def available() -> list[str]:
    """Names of all registered games that import cleanly, sorted."""
    names = []
    for name in sorted(REGISTRY):
        try:
            get_game(name)
        except ImportError:
            continue
        names.append(name)
    return names
