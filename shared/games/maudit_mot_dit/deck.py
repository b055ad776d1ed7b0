"""The Maudit Mot Dit word cards, read once from the packaged ``cards.json``.

Source, "Matériel de jeu": 110 cartes Mots.  Rulings: each card has 8
original French words, one per symbol (8 symbols), and a back showing 2
symbols, each with the required number of clues (1-5) and, under some, a
bonus.  The words and backs are ours (see ``cards.json``'s note).

Module constants (built once at import, the only I/O of the package):

* :data:`SYMBOLS` — the 8 symbol codes, in card order;
* :data:`FRONTS` — per card, its 8 words as a tuple in :data:`SYMBOLS` order;
* :data:`BACKS` — per card, its back: a tuple of two :class:`BackSlot`;
* :data:`VOCABULARY` — the 880 words of the set, sorted (the bots' and the
  players' candidate list);
* :data:`SYMBOL_INDEX` — symbol code -> index into a front.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources

#: A bonus under a symbol (rulings): play again, or hand a Mauvais sort.
PLAY_AGAIN = "play_again"
BAD_LUCK = "bad_luck"
BONUSES = (PLAY_AGAIN, BAD_LUCK)


@dataclass(frozen=True, slots=True)
class BackSlot:
    """One symbol on a card's back: ``symbol`` code, required clue
    ``count`` (1-5) and ``bonus`` (:data:`PLAY_AGAIN`, :data:`BAD_LUCK` or
    None)."""

    symbol: str
    count: int
    bonus: str | None

    def to_json(self) -> dict:
        """JSON-ready form: ``{"symbol", "count", "bonus"}``."""
        return {"symbol": self.symbol, "count": self.count, "bonus": self.bonus}


def _back(slots: list[dict]) -> tuple[BackSlot, BackSlot]:
    """A card's back from its JSON: exactly two slots."""
    first, second = (BackSlot(b["symbol"], int(b["count"]), b["bonus"]) for b in slots)
    return first, second


def _load() -> dict:
    raw = resources.files(__package__).joinpath("cards.json").read_text(encoding="utf-8")
    return json.loads(raw)


_DATA = _load()
SYMBOLS: tuple[str, ...] = tuple(_DATA["symbols"])
SYMBOL_INDEX: dict[str, int] = {s: i for i, s in enumerate(SYMBOLS)}
#: Emoji shown by clients for each symbol code.
SYMBOL_GLYPH: dict[str, str] = dict(zip(SYMBOLS, ("🌙", "☀️", "⭐", "❤️", "🍀", "💧", "⚡", "❄️"), strict=True))
FRONTS: tuple[tuple[str, ...], ...] = tuple(tuple(c["words"][s] for s in SYMBOLS) for c in _DATA["cards"])
BACKS: tuple[tuple[BackSlot, BackSlot], ...] = tuple(_back(c["back"]) for c in _DATA["cards"])
VOCABULARY: tuple[str, ...] = tuple(sorted(w for front in FRONTS for w in front))
CARD_COUNT = len(FRONTS)
del _DATA
