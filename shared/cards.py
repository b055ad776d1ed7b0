"""French-suited playing cards as short string codes.

A card is a plain ``str`` code everywhere inside Tapis (state, events,
views, actions): ``"10H"`` is the ten of hearts, ``"QS"`` the queen of
spades, ``"AC"`` the ace of clubs.  Jokers are named codes such as
``"PIRATE"``, ``"NAUFRAGE"`` or ``"JOKER"``.  Strings are hashable,
msgpack- and JSON-native and cheap to compare, so no conversion is needed
between the engines, the event log and the HTTP edge.  Two-deck shoes
simply hold every code twice.

Ranks are ints: 2..10, J=11, Q=12, K=13, A=14.  Suits are the letters
``S H D C`` (spades, hearts, diamonds, clubs).

Lookups (``RANK``, ``SUIT``) are dicts built once at import; use them on
the hot path instead of :func:`parse`.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum


class Suit(str, Enum):  # noqa: UP042 -- StrEnum would change str()/format() of a suit
    """The four French suits; the value is the one-letter code."""

    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    @property
    def symbol(self) -> str:
        """The Unicode suit symbol (♠ ♥ ♦ ♣)."""
        return _SYMBOLS[self.value]


SUITS: tuple[str, ...] = ("S", "H", "D", "C")
_SYMBOLS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
_FROM_SYMBOL = {v: k for k, v in _SYMBOLS.items()}
# Hollow symbols too (♤ ♡ ♢ ♧) since people type both.
_FROM_SYMBOL.update({"\u2664": "S", "\u2661": "H", "\u2662": "D", "\u2667": "C"})

JACK, QUEEN, KING, ACE = 11, 12, 13, 14
RANKS_52: tuple[int, ...] = tuple(range(2, 15))
RANKS_32: tuple[int, ...] = tuple(range(7, 15))

_RANK_CODE = {r: str(r) for r in range(2, 11)} | {JACK: "J", QUEEN: "Q", KING: "K", ACE: "A"}
_CODE_RANK = {v: k for k, v in _RANK_CODE.items()}
# French face letters are accepted when parsing: V(alet), D(ame), R(oi).
_ALIASES = {"T": 10, "V": JACK, "R": KING, "1": ACE}
_RANK_NAMES_FR = {JACK: "Valet", QUEEN: "Dame", KING: "Roi", ACE: "As"}


def card(rank: int, suit: str) -> str:
    """Return the code of a suited card: ``card(10, "H") == "10H"``.

    Raises ``ValueError`` for a rank outside 2..14 or an unknown suit.
    """
    if rank not in _RANK_CODE or suit not in _SYMBOLS:
        raise ValueError(f"no such card: rank {rank!r}, suit {suit!r}")
    return _RANK_CODE[rank] + suit


RANK: dict[str, int] = {}
SUIT: dict[str, str] = {}
for _s in SUITS:
    for _r in RANKS_52:
        RANK[card(_r, _s)] = _r
        SUIT[card(_r, _s)] = _s
del _s, _r

#: Every suited card code.
ALL_SUITED: frozenset[str] = frozenset(RANK)


def deck52() -> list[str]:
    """A fresh, ordered 52-card French deck (suit-major: spades first)."""
    return list(_DECK52)


def deck32() -> list[str]:
    """A fresh, ordered 32-card Skat deck: 7 to ace in each suit."""
    return list(_DECK32)


#: The two decks' codes in order, built once (every game start copies one).
_DECK52: tuple[str, ...] = tuple(card(r, s) for s in SUITS for r in RANKS_52)
_DECK32: tuple[str, ...] = tuple(card(r, s) for s in SUITS for r in RANKS_32)


def shoe(decks: int = 1, *, short: bool = False, jokers: Iterable[str] = ()) -> list[str]:
    """``decks`` copies of a 52-card (or 32-card when ``short``) deck plus
    the given joker codes once per deck.  Identical cards simply repeat.

    Raises ``ValueError`` when ``decks < 1``.
    """
    if decks < 1:
        raise ValueError("a shoe needs at least one deck")
    one = (deck32() if short else deck52()) + list(jokers)
    return one * decks


def is_suited(code: str) -> bool:
    """True for a suited card code, False for a joker or anything else."""
    return code in RANK


def parse(text: str, *, jokers: Iterable[str] = ()) -> str:
    """Parse a human-typed card into its canonical code.

    Accepts ``"10H"``, ``"10h"``, ``"10♥"``, ``"TH"``, ``"QS"``, ``"q♠"``,
    French ``"VC"`` (valet), ``"RD"`` (roi), with or without spaces, and any
    of the given joker names (case-insensitive).  Returns the canonical
    code (``"10H"``, ``"JC"``, ``"PIRATE"``).

    Raises ``ValueError`` with a message that repeats only the input, for
    anything else.
    """
    raw = text.strip().replace(" ", "").upper()
    for j in jokers:
        if raw == j.upper():
            return j
    if len(raw) < 2:
        raise ValueError(f"not a card: {text!r}")
    suit = raw[-1]
    suit = _FROM_SYMBOL.get(suit, suit)
    rank_text = raw[:-1]
    rank = _CODE_RANK.get(rank_text)
    if rank is None:
        rank = _ALIASES.get(rank_text)
    if rank is None or suit not in _SYMBOLS:
        raise ValueError(f"not a card: {text!r}")
    return card(rank, suit)


def display(code: str) -> str:
    """Pretty form for people: ``"10H"`` → ``"10♥"``; jokers unchanged."""
    if code in RANK:
        return code[:-1] + _SYMBOLS[code[-1]]
    return code


def name_fr(code: str) -> str:
    """French long name, for logs and docs: ``"JD"`` → ``"Valet de carreau"``."""
    if code not in RANK:
        return code
    suits = {"S": "pique", "H": "c\u0153ur", "D": "carreau", "C": "tr\u00e8fle"}
    r = RANK[code]
    return f"{_RANK_NAMES_FR.get(r, str(r))} de {suits[SUIT[code]]}"
