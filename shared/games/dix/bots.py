"""DIX strategies: ``random`` for now."""

from __future__ import annotations

import random
from typing import Any, Mapping, Sequence


def random_strategy(view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], rng: random.Random) -> dict:
    """Any legal action, uniformly."""
    return dict(rng.choice(legal))


STRATEGIES = {"random": random_strategy}
