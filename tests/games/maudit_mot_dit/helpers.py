"""Given-events builders for Maudit Mot Dit rule tests.

Positions are built by folding events (Given), never by poking fields.  A
"turn" is chosen from the card data: :func:`pick_turn` finds a (front,
back) pair whose first back slot has the wanted count; the box is then laid
so that turn ``k`` turns over that front with that back on the left card.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from shared.engine import IllegalAction, fold
from shared.events import Event
from shared.games.maudit_mot_dit import GAME
from shared.games.maudit_mot_dit.deck import BACKS, CARD_COUNT, FRONTS, SYMBOL_INDEX
from tests import given as shared
from tests.invariants import Secrets as SecretsBase, strings_in

RNG = random.Random(0)
OPTS = {"trips": 2, "proposals_in_all_5_6": 3, "curse_ends_turn": True, "end_when_centre_empty": False}


def hidden_from(state, seat: int | None) -> set[str]:
    """Words ``seat`` must not see: those of the cards still in the box and
    of the card turned over (unless ``seat`` is its active player), less
    the words its view shows."""
    hidden: set[str] = set()
    for front, _back in state.box:
        hidden.update(FRONTS[front])
    if state.right is not None and seat != state.active:
        hidden.update(FRONTS[state.right])
    return hidden - set(strings_in(GAME.view(state, seat)))


@dataclass(frozen=True)
class Turn:
    """One planned turn: the right card's front, the left card's back, and
    the secret word/count/bonus under the back's first slot."""

    front: int
    back: int
    symbol: str
    word: str
    count: int
    bonus: str | None
    other_symbol: str
    other_word: str


def pick_turn(count: int, nth: int = 0) -> Turn:
    """The ``nth`` turn whose left card's first slot needs ``count`` clues:
    the ``nth`` such back, with a front derived from the back's id (so
    distinct picks never share a card)."""
    backs = [b for b in range(CARD_COUNT) if BACKS[b][0].count == count]
    b = backs[nth]
    s0, s1 = BACKS[b]
    f = (b * 7 + 3) % CARD_COUNT
    front = FRONTS[f]
    return Turn(f, b, s0.symbol, front[SYMBOL_INDEX[s0.symbol]], s0.count, s0.bonus,
                s1.symbol, front[SYMBOL_INDEX[s1.symbol]])


def make_box(turns: list[Turn]) -> list[list[int]]:
    """55 [front, back] pairs so that turn i shows ``turns[i]``: box[i]'s
    front is turn i's, box[i+1]'s back is turn i's."""
    fronts = [t.front for t in turns]
    backs = [None] + [t.back for t in turns]
    assert len(set(fronts)) == len(fronts) and len(set(backs[1:])) == len(backs) - 1
    spare_f = [f for f in range(CARD_COUNT) if f not in fronts]
    spare_b = [b for b in range(CARD_COUNT) if b not in backs]
    box = []
    for i in range(CARD_COUNT // 2):
        f = fronts[i] if i < len(fronts) else spare_f.pop()
        b = backs[i] if i < len(backs) and backs[i] is not None else spare_b.pop()
        box.append([f, b])
    return box


def started(players: int, first: int, turns: list[Turn], **options: Any) -> Event:
    """GameStarted with the box laid for ``turns``."""
    return Event("GameStarted", {
        "options": {**OPTS, **options},
        "players": players,
        "first": first,
        "box": make_box(turns),
        "centre": CARD_COUNT // 2,
        "bad_luck": 10,
    })


def card_turned(active: int, turn_no: int, passes: int, t: Turn, players: int, trips: int = 2) -> Event:
    """CardTurned as the engine writes it (the event's documented shape)."""
    back = BACKS[t.back]
    front = FRONTS[t.front]
    return Event("CardTurned", {
        "active": active,
        "turn": turn_no,
        "passes": passes,
        "trip": min(passes // players + 1, trips),
        "left": [{"symbol": s.symbol, "count": s.count, "bonus": s.bonus} for s in back],
        "candidates": [
            {"symbol": s.symbol, "word": front[SYMBOL_INDEX[s.symbol]], "count": s.count, "bonus": s.bonus}
            for s in back
        ],
    }, active)


def chosen(active: int, t: Turn) -> Event:
    """WordChosen of the turn's first slot."""
    return Event("WordChosen", {"choice": 0, "symbol": t.symbol, "word": t.word, "count": t.count, "bonus": t.bonus}, active)


def clue(active: int, word: str, number: int) -> Event:
    return Event("ClueGiven", {"clue": word, "number": number}, active)


def proposed(seat: int, word: str) -> Event:
    return Event("GuessProposed", {"word": word}, seat)


def passed(seat: int) -> Event:
    return Event("GuessPassed", {}, seat)


def revealed(number: int, *props: tuple[int, str, bool]) -> Event:
    return Event("GuessesRevealed", {
        "clue": number, "proposals": [{"seat": s, "word": w, "found": f} for s, w, f in props],
    })


def scored(active: int, t: Turn, outcome: str, clues: int, finders: list[int], points: list[int],
           bonus: str | None = None) -> Event:
    return Event("TurnScored", {
        "active": active, "word": t.word, "symbol": t.symbol, "count": t.count, "clues": clues,
        "outcome": outcome, "finders": finders, "points": points, "bonus": bonus,
    })


def given(*events: Event):
    """The state after folding ``events``."""
    return shared.given(GAME, *events)


def opening(players: int, first: int, turns: list[Turn], **options: Any) -> list[Event]:
    """GameStarted + the first CardTurned + WordChosen of turn 0."""
    return [
        started(players, first, turns, **options),
        card_turned(first, 1, 0, turns[0], players, options.get("trips", 2)),
        chosen(first, turns[0]),
    ]


def when(state, seat: int, action: dict) -> list[Event]:
    """Decide one action (decide must not mutate the state; its rng is never used)."""
    return shared.when(GAME, state, seat, action, RNG)


def refused(state, seat: int, action: dict) -> IllegalAction:
    """The IllegalAction raised by the action (fails if accepted, if the
    state changed or if it names a word hidden from ``seat``)."""
    return shared.refused(GAME, state, seat, action, hidden_from=hidden_from, rng=RNG)


#: Field names of events and views that are also words of the cards.
SCHEMA = frozenset({"centre"})


class Secrets(SecretsBase):
    """Maudit Mot Dit's secrets for the hidden-information property: the
    words of the cards in the box and of the cards turned over (only their
    secret is revealed), and sealed proposals of other seats; less the
    strings anybody has seen (clues, revealed proposals, revealed secrets),
    a seat's own sealed proposal and the active player's own card."""

    def __init__(self) -> None:
        self.public: set[str] = set()
        self.sealed_by: dict[int, str] = {}
        self.turned: set[int] = set()

    def learn(self, state, events) -> None:
        if state.right is not None:
            self.turned.add(state.right)
        for e in events:
            d = e.data
            if e.type == "ClueGiven":
                self.public.add(d["clue"])
                self.sealed_by = {}
            elif e.type == "GuessProposed":
                self.sealed_by[e.seat] = d["word"]
            elif e.type == "GuessesRevealed":
                self.public.update(p["word"] for p in d["proposals"])
                self.sealed_by = {}
            elif e.type == "TurnScored":
                self.public.add(d["word"])
                self.sealed_by = {}

    def secret(self, s, seat) -> set[str]:
        from shared.games.maudit_mot_dit import Phase

        hidden: set[str] = set()
        for front, _back in s.box:
            hidden.update(FRONTS[front])
        for front in self.turned:
            if front != s.right or seat != s.active:
                hidden.update(FRONTS[front])
        for author, text in self.sealed_by.items():
            if author != seat:
                hidden.add(text)
        legit = self.public | SCHEMA
        if seat is not None and seat in self.sealed_by:
            legit.add(self.sealed_by[seat])
        if seat is not None and seat == s.active and s.right is not None and s.phase is not Phase.OVER:
            legit.update(FRONTS[s.right])
        return hidden - legit


def secrets() -> Secrets:
    return Secrets()
