"""Mauw cards as short string codes, their lookup tables and the deck for
each player count (docs/games/mauw.md, "Cards and codes").

Codes (plain ``str``): a Warrior is its value and colour letter (``"3G"``),
a Spirit ``"SPIRIT"``, a Joker ``"JOKER"``.  A face-up Joker standing for
card ``X`` is the *entry* ``"*X"`` (``"*3G"``, ``"*SPIRIT"``); a face-down
card in a column shows as ``"MAUW"`` (its face is kept in the state only).
Copies of the same card share a code.

Lookup tables (``VALUE``, ``COLOUR``, ``PHYSICAL``, ``SHOWN``, ``BY_COLOUR``)
are built once at import; use them on the hot path.
"""

from __future__ import annotations

#: The eight Warrior codes, by value 1..8 (value + colour letter).
WARRIORS: tuple[str, ...] = ("1R", "2Y", "3G", "4B", "5B", "6G", "7Y", "8R")
SPIRIT = "SPIRIT"
JOKER = "JOKER"
#: What views show for a face-down card in a column.
MAUW = "MAUW"
#: What a Mauw (a card's back) is worth in a column's points.
MAUW_VALUE = 9
#: Colour names by letter.
COLOURS = {"R": "red", "Y": "yellow", "G": "green", "B": "blue"}
#: Cards a Joker may be declared as.
DECLARABLE: tuple[str, ...] = (*WARRIORS, SPIRIT)
#: Physical card codes.
CARDS: tuple[str, ...] = (*WARRIORS, SPIRIT, JOKER)

#: entry -> value shown (0 for a Spirit).  Entries are physical codes or
#: ``"*X"`` for a Joker declared as ``X``.
VALUE: dict[str, int] = {}
#: entry -> colour letter, or None for a Spirit.
COLOUR: dict[str, str | None] = {}
#: entry -> physical card ("*3G" -> "JOKER").
PHYSICAL: dict[str, str] = {}
#: entry -> card it stands for ("*3G" -> "3G").
SHOWN: dict[str, str] = {}
for _code in DECLARABLE:
    for _entry in (_code, "*" + _code):
        VALUE[_entry] = 0 if _code == SPIRIT else int(_code[0])
        COLOUR[_entry] = None if _code == SPIRIT else _code[1]
        PHYSICAL[_entry] = JOKER if _entry[0] == "*" else _code
        SHOWN[_entry] = _code
#: Warrior codes by colour letter.
BY_COLOUR: dict[str, tuple[str, ...]] = {c: tuple(w for w in WARRIORS if w[1] == c) for c in COLOURS}
#: Joker entries by colour (for attacks/associations) and all of them.
JOKER_AS: tuple[str, ...] = tuple("*" + c for c in DECLARABLE)


def deck(players: int) -> list[str]:
    """The cards in play for ``players`` (docs/games/mauw.md, "Cards and
    codes": player-count removals), unshuffled.

    2–3 players: 5 of each Warrior, 8 Spirits, 4 Jokers (52); 4–5: 6 of
    each, 10 Spirits, 4 Jokers (62); 6: 7 of each, 12 Spirits, 4 Jokers (72).
    Raises ValueError outside 2..6.
    """
    if not 2 <= players <= 6:
        raise ValueError("Mauw is for 2 to 6 players")
    removed = 2 if players <= 3 else 1 if players <= 5 else 0
    copies = 7 - removed
    cards = [w for w in WARRIORS for _ in range(copies)]
    cards += [SPIRIT] * (12 - 2 * removed)
    cards += [JOKER] * 4
    return cards


def entry_of(card: str, as_: str | None) -> str:
    """The entry a played card makes: ``card`` itself, or ``"*" + as_`` for a Joker."""
    if card == JOKER:
        assert as_ is not None  # a Joker is always declared
        return "*" + as_
    return card
