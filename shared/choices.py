"""Random valid fillings of the action schemas a game gives in ``choices``
(:func:`shared.engine.client_actions`), for clients that pick at random:
the load driver and the tests.  The schemas use a small subset of JSON
Schema draft 2020-12: an object of ``properties``, each a ``const``, an
``enum``, an array of enum items with ``minItems``/``maxItems`` and
``uniqueItems`` or per-item ``maxContains`` (in ``allOf``), or a string
with ``minLength``/``maxLength``.  The tests check each filling against
its schema with ``jsonschema``."""

from __future__ import annotations

import random
import string
from typing import Any

#: Strings are filled with words of these letters (a free text the
#: schema admits; the games' own text rules are about words).
LETTERS = string.ascii_lowercase
#: Real French words a string filling is drawn from 3 times in 4 (Maudit
#: Mot Dit refuses a clue that is not a French word, so random letters
#: alone would never get a clue through).
WORDS: tuple[str, ...] = (
    "maison", "arbre", "soleil", "rouge", "froid", "musique", "voyage", "jardin", "rapide", "nuit",
    "montagne", "rivière", "enfant", "lumière", "bateau", "ciel", "chaud", "vieux", "jouer", "manger",
    "couleur", "histoire", "sucre", "orage", "silence", "ville", "forêt", "papier", "hiver", "animal",
)


def fill(schema: dict[str, Any], rng: random.Random) -> Any:
    """One random value valid under ``schema`` (the subset above); a string
    is a French word of :data:`WORDS` (3 times in 4) or 3 to 12 random
    lower-case letters, within its length limits.
    Raises ``ValueError`` for a schema outside the subset."""
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return rng.choice(schema["enum"])
    kind = schema.get("type")
    if kind == "object":
        return {k: fill(sub, rng) for k, sub in schema["properties"].items() if k in schema.get("required", ())}
    if kind == "array":
        items = schema["items"]["enum"]
        k = rng.randint(schema.get("minItems", 0), schema.get("maxItems", schema.get("minItems", 0)))
        if schema.get("uniqueItems"):
            return rng.sample(items, k)
        caps = {c: len(items) for c in items}
        for part in schema.get("allOf", ()):
            caps[part["contains"]["const"]] = part["maxContains"]
        pool = [c for c, n in caps.items() for _ in range(n)]
        return rng.sample(pool, k)
    if kind == "string":
        lo, hi = max(schema.get("minLength", 0), 3), min(schema.get("maxLength", 12), 12)
        words = [w for w in WORDS if lo <= len(w) <= hi]
        if words and rng.random() < 0.75:
            return rng.choice(words)
        return "".join(rng.choice(LETTERS) for _ in range(rng.randint(lo, hi)))
    raise ValueError(f"a schema outside the subset: {schema!r}")
