"""Maudix bots (placeholder, replaced below)."""
from __future__ import annotations


def random_strategy(view, legal, rng):
    """Any legal action, uniformly."""
    return rng.choice(list(legal))


STRATEGIES = {"random": random_strategy}
