"""Mauw bot strategies (issue 5, Bots).

A strategy is ``(view, legal_actions, rng) -> action``: it sees only its
seat's ``view`` and ``legal_actions`` (never the state).
"""

from __future__ import annotations

import random
from typing import Any, Mapping, Sequence


def random_strategy(view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], rng: random.Random) -> dict:
    """Any legal action, uniformly."""
    return dict(rng.choice(legal))


STRATEGIES = {"random": random_strategy}
