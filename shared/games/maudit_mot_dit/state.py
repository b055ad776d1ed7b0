"""Maudit Mot Dit's state and how events change it.

In this module, in order: the event names, the phases (:class:`Phase`),
the table options as plain values (:class:`Rules`) and the state
(:class:`State`); then the queries on a state that the rules and the views
both need (the left card, the candidate words, the secret, the guessers,
the proposals allowed per clue, whether the Malédiction is open,
:func:`awaiting`, :func:`to_act`, :func:`is_over`); last :func:`evolve`,
one ``_on_<event>`` handler per event type gathered in :data:`EVENTS`.

Scores and the result are in :mod:`.scoring`; the decisions in
:mod:`.rules`; what each seat sees in :mod:`.views`.  The rules as
implemented: docs/games/maudit_mot_dit.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from shared.engine import FastEnum
from shared.events import Event

from . import deck
from .deck import BACKS, BAD_LUCK, FRONTS, SYMBOL_INDEX

# Event types (past-tense facts; docs/games/maudit_mot_dit.md, "Events").
GAME_STARTED = "GameStarted"
CARD_TURNED = "CardTurned"
WORD_CHOSEN = "WordChosen"
CLUE_GIVEN = "ClueGiven"
GUESS_PROPOSED = "GuessProposed"
GUESS_PASSED = "GuessPassed"
GUESSES_REVEALED = "GuessesRevealed"
CURSE_PROPOSED = "CurseProposed"
CURSE_VOTED = "CurseVoted"
CURSE_DECIDED = "CurseDecided"
TURN_SCORED = "TurnScored"
BAD_LUCK_GIVEN = "BadLuckGiven"
GAME_ENDED = "GameEnded"

#: From this many players the proposals after a clue are capped in all
#: (docs/games/maudit_mot_dit.md, "A turn", step 4).
CAPPED_FROM = 5


class Phase(FastEnum):
    """Where the turn stands."""

    CHOOSE = "choose"  # the active player picks one of two symbols
    CLUE = "clue"  # the active player gives the next clue
    GUESS = "guess"  # the guessers propose (sealed) after a clue
    VOTE = "vote"  # the guessers vote on a proposed Malédiction
    BAD_LUCK = "bad_luck"  # the active player hands a Mauvais sort card
    OVER = "over"


@dataclass(slots=True)
class Rules:
    """The table options as plain values (hot path: no pydantic)."""

    trips: int
    proposals_in_all_5_6: int
    curse_ends_turn: bool
    end_when_centre_empty: bool


@dataclass(slots=True)
class State:
    """The whole truth of one table (views project it per seat).

    ``box``: the left pile of the box, top first, as (front card id, back
    card id); during a turn ``box[0]`` is the left card whose back shows.
    ``active``: the seat holding the box (the clue-giver; the views' ``turn``).
    ``passes``: times the box has passed; ``turn``: turns begun (the views'
    ``turns``).
    ``right``: front card id in the right part (its words: active only).
    ``choice``: 0/1 into the left card's back once chosen.
    ``acted``: guessers who proposed or passed on the current clue, in
    order; ``sealed``: their sealed proposals.  ``proposals``: revealed
    proposals of this turn as (clue number, seat, text, found).
    ``voted_clue``: clue number of this turn's last Malédiction vote.
    ``resume``: the phase a vote interrupted.  ``last``: the public
    summary (TurnScored data) of the last turn.
    """

    players: int
    rules: Rules
    box: list[tuple[int, int]]
    centre: int
    first: int
    active: int
    passes: int
    turn: int
    phase: Phase
    right: int | None
    choice: int | None
    clues: list[str]
    acted: list[int]
    sealed: dict[int, str]
    proposals: list[tuple[int, int, str, bool]]
    vote_by: int | None
    votes: dict[int, bool]
    voted_clue: int | None
    resume: Phase | None
    points: list[int]
    bad_luck: list[int]
    bad_luck_left: int
    curse_holder: int | None
    last: dict[str, Any] | None
    ended: str | None


# --------------------------------------------------------------------------
# Queries
# --------------------------------------------------------------------------


def left_back(state: State) -> tuple[deck.BackSlot, deck.BackSlot]:
    """The two symbols showing on the left card (public)."""
    return BACKS[state.box[0][1]]


def candidates(state: State) -> list[dict[str, Any]]:
    """The two candidate words (docs, "A turn", step 2): for each symbol on
    the left card, the word under it on the right card, with count and
    bonus."""
    right = state.right
    assert right is not None  # a turn is under way
    front = FRONTS[right]
    return [
        {"symbol": b.symbol, "word": front[SYMBOL_INDEX[b.symbol]], "count": b.count, "bonus": b.bonus}
        for b in left_back(state)
    ]


def secret(state: State) -> tuple[str, int, deck.BackSlot]:
    """(secret word, required count, chosen back slot) once chosen."""
    choice, right = state.choice, state.right
    assert choice is not None and right is not None  # a word is chosen during a turn
    slot = left_back(state)[choice]
    return FRONTS[right][SYMBOL_INDEX[slot.symbol]], slot.count, slot


def guessers(state: State) -> list[int]:
    """Every seat but the active player's, in seat order."""
    return [s for s in range(state.players) if s != state.active]


def proposal_cap(state: State) -> int:
    """Proposals allowed in all after one clue (docs, "A turn", step 4)."""
    if state.players >= CAPPED_FROM:
        return state.rules.proposals_in_all_5_6
    return state.players - 1


def curse_open(state: State) -> bool:
    """May a guesser propose the Malédiction now?  After a clue, until the
    next clue or the end of the turn, once per clue, and not when the
    active player already holds the tile (docs, "The Malédiction")."""
    return (
        (state.phase is Phase.GUESS or state.phase is Phase.CLUE)
        and len(state.clues) > 0
        and state.voted_clue != len(state.clues)
        and state.curse_holder != state.active
    )


def trip(state: State) -> int:
    """The box's current trip round the table, 1-based (at most ``trips``)."""
    return min(state.passes // state.players + 1, state.rules.trips)


def awaiting(state: State) -> frozenset[int]:
    """Seats that may act now.  Phase choose/clue/bad_luck: the active
    player; phase guess: every guesser who has not yet proposed or passed
    on this clue.  While the Malédiction may be proposed
    (:func:`curse_open`), every guesser too (an optional move).  Phase
    vote: the guessers who have not voted."""
    phase = state.phase
    if phase is Phase.OVER:
        return _NOBODY
    if phase is Phase.VOTE:
        return _others(state.players, state.active).difference(state.votes)
    if curse_open(state):  # phase clue or guess: every guesser, and in phase clue the active player
        if phase is Phase.CLUE:
            return _others(state.players, -1)
        return _others(state.players, state.active)
    if phase is Phase.GUESS:
        return _others(state.players, state.active).difference(state.acted)
    return frozenset((state.active,))


_NOBODY: frozenset[int] = frozenset()
#: (players, seat) -> every seat but ``seat`` (seat -1: every seat); built on first use.
_OTHERS: dict[tuple[int, int], frozenset[int]] = {}


def _others(players: int, seat: int) -> frozenset[int]:
    seats = _OTHERS.get((players, seat))
    if seats is None:
        seats = _OTHERS[players, seat] = frozenset(s for s in range(players) if s != seat)
    return seats


def to_act(state: State) -> frozenset[int]:
    """The awaited seats without those whose only move is proposing the
    Malédiction (optional)."""
    phase = state.phase
    if phase is Phase.OVER:
        return frozenset()
    if phase is Phase.VOTE:
        return frozenset(s for s in guessers(state) if s not in state.votes)
    if phase is Phase.GUESS:
        return frozenset(s for s in guessers(state) if s not in state.acted)
    return frozenset((state.active,))


def is_over(state: State) -> bool:
    """True once the game is over (:func:`.scoring.result` is not None)."""
    return state.phase is Phase.OVER


# --------------------------------------------------------------------------
# evolve: one handler per event type
# --------------------------------------------------------------------------


def evolve(state: State | None, event: Event) -> State:
    """Apply one event (pure: no randomness, no clock); ``state`` is None
    for the first event, ``GameStarted``.  Raises KeyError for an event
    type the game does not know."""
    return EVENTS[event.type](state, event)


def _on_game_started(_: State | None, e: Event) -> State:
    d = e.data
    o = d["options"]
    n = d["players"]
    return State(
        players=n,
        rules=Rules(
            int(o["trips"]),
            int(o["proposals_in_all_5_6"]),
            bool(o["curse_ends_turn"]),
            bool(o["end_when_centre_empty"]),
        ),
        box=[(int(f), int(b)) for f, b in d["box"]],
        centre=int(d["centre"]),
        first=int(d["first"]),
        active=int(d["first"]),
        passes=0,
        turn=0,
        phase=Phase.CHOOSE,
        right=None,
        choice=None,
        clues=[],
        acted=[],
        sealed={},
        proposals=[],
        vote_by=None,
        votes={},
        voted_clue=None,
        resume=None,
        points=[0] * n,
        bad_luck=[0] * n,
        bad_luck_left=int(d["bad_luck"]),
        curse_holder=None,
        last=None,
        ended=None,
    )


def _on_card_turned(s: State, e: Event) -> State:
    s.active = e.data["active"]
    s.passes = e.data["passes"]
    s.right = s.box.pop(0)[0]
    s.turn += 1
    s.phase = Phase.CHOOSE
    s.choice = None
    s.clues = []
    s.acted = []
    s.sealed = {}
    s.proposals = []
    s.vote_by = None
    s.votes = {}
    s.voted_clue = None
    s.resume = None
    return s


def _on_word_chosen(s: State, e: Event) -> State:
    s.choice = int(e.data["choice"])
    s.phase = Phase.CLUE
    return s


def _on_clue_given(s: State, e: Event) -> State:
    s.clues.append(e.data["clue"])
    s.acted = []
    s.sealed = {}
    s.phase = Phase.GUESS
    return s


def _on_guess_proposed(s: State, e: Event) -> State:
    seat = e.seat
    assert seat is not None  # proposed by a seat
    s.acted.append(seat)
    s.sealed[seat] = e.data["word"]
    return s


def _on_guess_passed(s: State, e: Event) -> State:
    seat = e.seat
    assert seat is not None  # passed by a seat
    s.acted.append(seat)
    return s


def _on_guesses_revealed(s: State, e: Event) -> State:
    n = e.data["clue"]
    for p in e.data["proposals"]:
        s.proposals.append((n, p["seat"], p["word"], p["found"]))
    s.acted = []
    s.sealed = {}
    s.phase = Phase.CLUE
    return s


def _on_curse_proposed(s: State, e: Event) -> State:
    s.resume = s.phase
    s.phase = Phase.VOTE
    seat = e.seat
    assert seat is not None  # proposed by a seat
    s.vote_by = seat
    s.votes = {seat: True}
    s.voted_clue = len(s.clues)
    return s


def _on_curse_voted(s: State, e: Event) -> State:
    seat = e.seat
    assert seat is not None  # voted by a seat
    s.votes[seat] = bool(e.data["agree"])
    return s


def _on_curse_decided(s: State, e: Event) -> State:
    if e.data["agreed"]:
        s.curse_holder = e.data["to"]
    resume = s.resume
    assert resume is not None  # set when the vote began
    s.phase = resume
    s.resume = None
    s.vote_by = None
    return s


def _on_turn_scored(s: State, e: Event) -> State:
    d = e.data
    gained = 0
    for seat, p in enumerate(d["points"]):
        s.points[seat] += p
        gained += p
    s.centre = max(0, s.centre - gained)
    s.last = dict(d)
    s.acted = []
    s.sealed = {}  # answers still sealed when a Malédiction ends the turn are dropped
    s.phase = Phase.BAD_LUCK if d["bonus"] == BAD_LUCK else Phase.CLUE
    return s


def _on_bad_luck_given(s: State, e: Event) -> State:
    s.bad_luck[e.data["to"]] += 1
    s.bad_luck_left -= 1
    return s


def _on_game_ended(s: State, e: Event) -> State:
    s.phase = Phase.OVER
    s.ended = e.data["reason"]
    return s


#: The handler of each event type (:func:`evolve`).
EVENTS: dict[str, Callable[[Any, Event], State]] = {
    GAME_STARTED: _on_game_started,
    CARD_TURNED: _on_card_turned,
    WORD_CHOSEN: _on_word_chosen,
    CLUE_GIVEN: _on_clue_given,
    GUESS_PROPOSED: _on_guess_proposed,
    GUESS_PASSED: _on_guess_passed,
    GUESSES_REVEALED: _on_guesses_revealed,
    CURSE_PROPOSED: _on_curse_proposed,
    CURSE_VOTED: _on_curse_voted,
    CURSE_DECIDED: _on_curse_decided,
    TURN_SCORED: _on_turn_scored,
    BAD_LUCK_GIVEN: _on_bad_luck_given,
    GAME_ENDED: _on_game_ended,
}
