"""DIX cards as short string codes, and the deck for each player count.

Codes (all plain ``str``, hashable, msgpack/JSON-native):

* Number card: colour letter + number, ``"R7"`` (red 7).  Colours are
  ``R`` red, ``Y`` yellow, ``G`` green, ``B`` blue; numbers 1..9.
* Colour joker ("#" joker, *joker dièse*): colour letter + ``#``,
  ``"G#"`` — any number, but only in its colour.
* Numbered joker: ``*`` + number, ``"*4"`` — that number, in any colour.
* Currency card (*carte Monnaie*): ``$`` + value, ``"$3"``.

Copies of the same card share a code (there are three ``"R2"`` in the
full deck), so piles are multisets of codes.

Deck composition (rulings, ``docs/games/dix.md``; the publisher's rules
are silent): per colour, Number cards 1–3 ×3, 4–6 ×3, 7–9 ×1 (21) and two
colour jokers; nine numbered jokers 1–9; 27 Currency cards: value 1 ×7,
2 ×6, 3 ×6, 4 ×4, 5 ×4 — 128 cards.  Player-count removal (source p. 4):
at 3 players the "4+" cards leave the game (one 1, 2 and 3 of each colour,
one Currency card of each value 1–4: 112 cards left); at 2 players (and
solo) also the "3+" cards (one 4, 5 and 6 of each colour, one Currency
card of each value 2–5: 96 cards left).

Lookup tables (``KIND``, ``NUMBER``, ``COLOUR``, ``VALUE``) are built once
at import; use them on the hot path.
"""

from __future__ import annotations

from shared.engine import FastEnum

#: Colour letters, in display order.
COLOURS: tuple[str, ...] = ("R", "Y", "G", "B")
COLOUR_NAMES: dict[str, str] = {"R": "red", "Y": "yellow", "G": "green", "B": "blue"}
COLOUR_INDEX: dict[str, int] = {c: i for i, c in enumerate(COLOURS)}
NUMBERS: tuple[int, ...] = tuple(range(1, 10))
CURRENCY_VALUES: tuple[int, ...] = (1, 2, 3, 4, 5)


class Kind(FastEnum):
    """What a card is (source: "cartes Nombre", "cartes Monnaie", jokers)."""

    NUMBER = "number"
    CURRENCY = "currency"
    COLOUR_JOKER = "colour_joker"
    NUMBER_JOKER = "number_joker"


#: code -> Kind, for every code that exists.
KIND: dict[str, Kind] = {}
#: code -> number 1..9 for Number cards and numbered jokers.
NUMBER: dict[str, int] = {}
#: code -> colour letter for Number cards and colour jokers.
COLOUR: dict[str, str] = {}
#: code -> value 1..5 for Currency cards.
VALUE: dict[str, int] = {}

for _c in COLOURS:
    for _n in NUMBERS:
        KIND[f"{_c}{_n}"] = Kind.NUMBER
        NUMBER[f"{_c}{_n}"] = _n
        COLOUR[f"{_c}{_n}"] = _c
    KIND[f"{_c}#"] = Kind.COLOUR_JOKER
    COLOUR[f"{_c}#"] = _c
for _n in NUMBERS:
    KIND[f"*{_n}"] = Kind.NUMBER_JOKER
    NUMBER[f"*{_n}"] = _n
for _v in CURRENCY_VALUES:
    KIND[f"${_v}"] = Kind.CURRENCY
    VALUE[f"${_v}"] = _v
del _c, _n, _v

#: Every code, in a stable display order.
ALL_CODES: tuple[str, ...] = tuple(KIND)
_ORDER = {code: i for i, code in enumerate(ALL_CODES)}
JOKER_KINDS = frozenset({Kind.COLOUR_JOKER, Kind.NUMBER_JOKER})

_FULL_COPIES_NUMBER = {1: 3, 2: 3, 3: 3, 4: 3, 5: 3, 6: 3, 7: 1, 8: 1, 9: 1}
_FULL_COPIES_CURRENCY = {1: 7, 2: 6, 3: 6, 4: 4, 5: 4}
#: Removed at 3 players and fewer: the "4+" (four-lozenge) cards.
_REMOVED_BELOW_4 = ([1, 2, 3], [1, 2, 3, 4])
#: Also removed at 2 players and solo: the "3+" cards.
_REMOVED_BELOW_3 = ([4, 5, 6], [2, 3, 4, 5])


def is_joker(code: str) -> bool:
    """True for colour jokers and numbered jokers."""
    return KIND.get(code) in JOKER_KINDS


def sort_key(code: str) -> int:
    """Stable display order: colours R Y G B by number, colour jokers,
    numbered jokers, Currency cards."""
    return _ORDER[code]


def sorted_cards(codes) -> list[str]:
    """``codes`` sorted in display order (a new list)."""
    return sorted(codes, key=_ORDER.__getitem__)


def full_deck() -> list[str]:
    """All 128 cards of the box, in display order."""
    out: list[str] = []
    for c in COLOURS:
        for n in NUMBERS:
            out += [f"{c}{n}"] * _FULL_COPIES_NUMBER[n]
        out += [f"{c}#"] * 2
    out += [f"*{n}" for n in NUMBERS]
    for v in CURRENCY_VALUES:
        out += [f"${v}"] * _FULL_COPIES_CURRENCY[v]
    return out


def removed_cards(players: int) -> list[str]:
    """The cards taken out of the box before play (source p. 4).

    ``players`` 1..5; 4 and 5 players remove nothing; 3 players remove the
    "4+" cards (16); 2 players and solo also the "3+" cards (32 in all).
    Raises ``ValueError`` outside 1..5.
    """
    if not 1 <= players <= 5:
        raise ValueError("DIX is for 1 to 5 players")
    out: list[str] = []
    stages = []
    if players <= 3:
        stages.append(_REMOVED_BELOW_4)
    if players <= 2:
        stages.append(_REMOVED_BELOW_3)
    for numbers, values in stages:
        out += [f"{c}{n}" for c in COLOURS for n in numbers]
        out += [f"${v}" for v in values]
    return sorted_cards(out)


def deck_for(players: int) -> list[str]:
    """The cards in play for ``players`` (full box minus :func:`removed_cards`),
    in display order: 128 at 4–5 players, 112 at 3, 96 at 2 and solo."""
    deck = full_deck()
    for code in removed_cards(players):
        deck.remove(code)
    return deck


def display(code: str) -> str:
    """Human name: ``"red 7"``, ``"green #"``, ``"joker 4"``, ``"currency 3"``."""
    kind = KIND[code]
    if kind is Kind.NUMBER:
        return f"{COLOUR_NAMES[code[0]]} {code[1]}"
    if kind is Kind.COLOUR_JOKER:
        return f"{COLOUR_NAMES[code[0]]} #"
    if kind is Kind.NUMBER_JOKER:
        return f"joker {code[1]}"
    return f"currency {code[1]}"
