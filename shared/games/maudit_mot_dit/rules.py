"""Maudit Mot Dit — the French word-guessing game, 3 to 6 players.

The rules as implemented, rulings included, are documented in
``docs/games/maudit_mot_dit.md``.  "(source, ...)" below names the part of
the publisher's French rules followed; that text is not in this
repository (docs/architecture.md, "Game rules").

Setup (source, "Mise en place").  The 110 word cards are shuffled; half (55)
go face down to the centre of the table as the score pile, the other half
(55) into the left part of the box, backs up.  The first player is drawn at
random and takes the box.  Ten Mauvais sort cards and one Malédiction tile
lie beside.  Because our cards are public data, a card's front and back are
shuffled apart: a visible back tells nothing about the words on the card
beneath (docs/games/maudit_mot_dit.md, "Cards").

A turn (source, "Tour d'un joueur").  The player holding the box is the
active player (the clue-giver); the others are the guessers.

1. The active player turns the first card of the left pile over into the
   right part of the box: only they see its 8 words.  The next card of the
   left pile now shows its back to everybody: two symbols, each with a
   required number of clues (1-5) and maybe a bonus.
2. The active player secretly picks one of those two symbols: the secret
   word is the word under that symbol on the right card and the required
   count is the number under it on the left card.
3. The active player gives one-word clues, one at a time.  After each clue
   the guessers propose, sealed: at 3-4 players each guesser proposes one
   word or passes; at 5-6 players at most 3 proposals in all (an option),
   first come, each guesser at most one.  The proposals are revealed
   together when every guesser has proposed or passed, or when the
   proposals allowed in all are in.
4. If nobody found the word and clues remain, the next clue follows.

Scoring (source).  Found with exactly the required number of clues: the
active player and each finder score that number.  Found earlier: only the
finders score, as many points as clues given.  Not found when the clues run
out: nobody scores.  Points are cards taken from the centre pile.

Bonuses (rulings, the source's page 6 being missing): a 1-clue word found
exactly lets the active player play again (the box does not pass); a 4- or
5-clue word found exactly lets the active player give a Mauvais sort card
(-1 at the end) to an opponent of their choice, while cards remain.

The Malédiction (source, Notes; rulings): after a clue, until the next clue
or the end of the turn, any guesser may propose that the clue does not fit
the secret word.  The other guessers vote, publicly, one at a time; the
first "no" rejects it; when all the guessers agree the tile goes to the
active player (-4 at the end; the single tile moves from its previous
holder).  One vote per clue.  By default the turn then ends with no points
(option ``curse_ends_turn``).

Clues (source, Notes): one word, not spelled, not of the family of the
secret word or of an earlier clue, not repeated — see :mod:`.lexicon`.
Proposals match ignoring case, accents, a leading article and the plural.

End (source, "Fin de partie"): when the box has gone round the table twice
(each player has been active twice, extra turns not counted), the highest
total wins: points, minus 1 per Mauvais sort card, minus 4 for the
Malédiction.  Equal totals share the place.  The game also ends if the box
runs out of cards (never at the default sizes) or, with the option
``end_when_centre_empty``, after the turn that empties the centre pile.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from pydantic import BaseModel, Field

from shared.engine import (
    BAD_ACTION,
    BaseGame,
    IllegalAction,
    Result,
    places_from,
    require_type,
)
from shared.events import Event

from . import deck, lexicon
from .deck import BACKS, BAD_LUCK, FRONTS, PLAY_AGAIN, SYMBOL_INDEX

# --------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------

#: Material (source, "Matériel de jeu").
BAD_LUCK_CARDS = 10
CURSE_PENALTY = 4
BAD_LUCK_PENALTY = 1
#: Players at which the proposals per clue are capped in all (source: "jusqu'à
#: 3 mots en cas de partie à 5 ou 6 joueurs").
CAPPED_FROM = 5

# Event types (past-tense facts).
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

# Outcomes of a turn.
EXACT = "exact"
EARLY = "early"
MISS = "miss"
CURSED = "cursed"

# Refusal codes of this game (besides not_your_turn, game_over, bad_action and
# the text/clue codes of .lexicon).
WRONG_PHASE = "wrong_phase"
UNKNOWN_SYMBOL = "unknown_symbol"
ALREADY_PROPOSED = "already_proposed"
GUESS_NOT_A_WORD = "guess_not_a_word"
GIVER_CANNOT_PROPOSE = "giver_cannot_propose"
CURSE_NOT_ALLOWED = "curse_not_allowed"
BAD_TARGET = "bad_target"

ACTION_TYPES = ("choose", "clue", "propose", "pass", "curse", "vote", "give_bad_luck")


class Phase(Enum):
    """Where the turn stands."""

    CHOOSE = "choose"  # the active player picks one of two symbols
    CLUE = "clue"  # the active player gives the next clue
    GUESS = "guess"  # the guessers propose (sealed) after a clue
    VOTE = "vote"  # the guessers vote on a proposed Malédiction
    BAD_LUCK = "bad_luck"  # the active player hands a Mauvais sort card
    OVER = "over"


class Options(BaseModel):
    """Table options (every default is the source's or the rulings')."""

    trips: int = Field(2, ge=1, le=4, description="Trips of the box around the table (source: 2).")
    proposals_in_all_5_6: int = Field(
        3, ge=1, le=5,
        description="At 5-6 players, proposals allowed in all after each clue, first come, one per guesser "
        "(source: up to 3).",
    )
    curse_ends_turn: bool = Field(
        True, description="When the Malédiction is given, the turn ends at once with no points (else the clues go on)."
    )
    end_when_centre_empty: bool = Field(
        False,
        description="End the game after the turn that empties the centre pile "
        "(else points keep counting beyond the pile).",
    )


# --------------------------------------------------------------------------
# State
# --------------------------------------------------------------------------


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
# Small pure helpers
# --------------------------------------------------------------------------


def left_back(state: State) -> tuple[deck.BackSlot, deck.BackSlot]:
    """The two symbols showing on the left card (public)."""
    return BACKS[state.box[0][1]]


def candidates(state: State) -> list[dict[str, Any]]:
    """The two candidate words (source, step 2): for each symbol on the left
    card, the word under it on the right card, with count and bonus."""
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
    """Proposals allowed in all after one clue (source, step 4)."""
    if state.players >= CAPPED_FROM:
        return state.rules.proposals_in_all_5_6
    return state.players - 1


def curse_open(state: State) -> bool:
    """May a guesser propose the Malédiction now?  After a clue, until the
    next clue or the end of the turn, once per clue, and not when the
    active player already holds the tile."""
    return (
        (state.phase is Phase.GUESS or state.phase is Phase.CLUE)
        and len(state.clues) > 0
        and state.voted_clue != len(state.clues)
        and state.curse_holder != state.active
    )


def totals(state: State) -> list[int]:
    """Final totals (source, "Fin de partie"): points, -1 per Mauvais sort,
    -4 for the Malédiction."""
    return [
        state.points[s] - BAD_LUCK_PENALTY * state.bad_luck[s] - (CURSE_PENALTY if state.curse_holder == s else 0)
        for s in range(state.players)
    ]


def _trip(state: State) -> int:
    return min(state.passes // state.players + 1, state.rules.trips)


def _text_field(action: Mapping[str, Any], name: str) -> Any:
    if name not in action:
        raise IllegalAction(BAD_ACTION, f"the action needs a {name!r} field")
    return action[name]


# --------------------------------------------------------------------------
# The game
# --------------------------------------------------------------------------


class MauditMotDit(BaseGame):
    """The Maudit Mot Dit decider (see module doc for the rules)."""

    name = "maudit_mot_dit"
    title = "Maudit Mot Dit"
    min_players = 3
    max_players = 6
    Options = Options

    def __init__(self) -> None:
        from . import bots

        self.strategies = dict(bots.STRATEGIES)
        self._evolvers: dict[str, Callable[[State, Event], State]] = {
            CARD_TURNED: self._on_card_turned,
            WORD_CHOSEN: self._on_word_chosen,
            CLUE_GIVEN: self._on_clue_given,
            GUESS_PROPOSED: self._on_guess_proposed,
            GUESS_PASSED: self._on_guess_passed,
            GUESSES_REVEALED: self._on_guesses_revealed,
            CURSE_PROPOSED: self._on_curse_proposed,
            CURSE_VOTED: self._on_curse_voted,
            CURSE_DECIDED: self._on_curse_decided,
            TURN_SCORED: self._on_turn_scored,
            BAD_LUCK_GIVEN: self._on_bad_luck_given,
            GAME_ENDED: self._on_game_ended,
        }

    # ---- start ------------------------------------------------------------

    def start(self, options: BaseModel, players: int, rng: random.Random) -> list[Event]:
        """Opening events: ``GameStarted`` (options, players, first player,
        the shuffled box as [front id, back id] pairs, the centre pile size)
        and the first ``CardTurned``.

        Raises ValueError for a player count outside 3-6.
        """
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"Maudit Mot Dit is for {self.min_players} to {self.max_players} players")
        opts = options if isinstance(options, Options) else Options.model_validate(options.model_dump())
        fronts = list(range(deck.CARD_COUNT))
        backs = list(range(deck.CARD_COUNT))
        rng.shuffle(fronts)
        rng.shuffle(backs)
        centre = deck.CARD_COUNT // 2
        box = [[f, b] for f, b in zip(fronts[centre:], backs[centre:], strict=True)]
        first = rng.randrange(players)
        started = Event(
            GAME_STARTED,
            {
                "options": opts.model_dump(),
                "players": players,
                "first": first,
                "box": box,
                "centre": centre,
                "bad_luck": BAD_LUCK_CARDS,
            },
        )
        state = self.evolve(None, started)
        return [started, self._turn_event(state, first, state.passes)]

    # ---- decide -----------------------------------------------------------

    def decide(self, state: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
        """Validate one action of ``seat``; return the events it causes.

        Actions: ``{"type": "choose", "symbol": s}`` (active, phase choose);
        ``{"type": "clue", "word": text}`` (active, phase clue);
        ``{"type": "propose", "word": text}`` and ``{"type": "pass"}``
        (guessers, phase guess); ``{"type": "curse"}`` (a guesser, after a
        clue); ``{"type": "vote", "agree": bool}`` (guessers, phase vote);
        ``{"type": "give_bad_luck", "to": seat}`` (active, phase bad_luck).

        Raises :class:`IllegalAction`: ``game_over``, ``not_your_turn``,
        ``bad_action``, ``wrong_phase``, ``unknown_symbol``, the text and
        clue codes of :mod:`.lexicon`, ``already_proposed``,
        ``guess_not_a_word``, ``giver_cannot_propose``,
        ``curse_not_allowed``, ``bad_target``.
        """
        self.check_turn(state, seat)
        kind = action.get("type") if type(action) is dict else None
        if kind not in ACTION_TYPES:
            kind = require_type(action, ACTION_TYPES)
        phase = state.phase
        if kind == "curse":
            return self._decide_curse(state, seat)
        if kind == "choose":
            self._need(phase is Phase.CHOOSE, "choose a symbol")
            sym = action.get("symbol")
            slots = left_back(state)
            for i, slot in enumerate(slots):
                if slot.symbol == sym:
                    right = state.right
                    assert right is not None  # the turn's right card is turned in CHOOSE
                    word = FRONTS[right][SYMBOL_INDEX[sym]]
                    data = {"choice": i, "symbol": sym, "word": word, "count": slot.count, "bonus": slot.bonus}
                    return [Event(WORD_CHOSEN, data, seat)]
            names = ", ".join(s.symbol for s in slots)
            raise IllegalAction(UNKNOWN_SYMBOL, f"choose one of the symbols on the left card: {names}")
        if kind == "clue":
            self._need(phase is Phase.CLUE and seat == state.active, "give a clue")
            word, _count, _slot = secret(state)
            clue = lexicon.check_clue(_text_field(action, "word"), word, state.clues)
            return [Event(CLUE_GIVEN, {"clue": clue, "number": len(state.clues) + 1}, seat)]
        if kind in ("propose", "pass"):
            if seat == state.active:
                raise IllegalAction(GIVER_CANNOT_PROPOSE, "the active player gives the clues and does not propose")
            self._need(phase is Phase.GUESS, "propose a word")
            if seat in state.acted:
                raise IllegalAction(ALREADY_PROPOSED, "you already answered this clue")
            if kind == "pass":
                return self._close_if_done(state, [Event(GUESS_PASSED, {}, seat)], seat, None)
            text = lexicon.clean_text(_text_field(action, "word"), lexicon.GUESS_MAX)
            if not any(ch.isalpha() for ch in text):
                raise IllegalAction(GUESS_NOT_A_WORD, "a proposal must contain a word")
            return self._close_if_done(state, [Event(GUESS_PROPOSED, {"word": text}, seat)], seat, text)
        if kind == "vote":
            self._need(phase is Phase.VOTE, "vote on the Malédiction")
            agree = action.get("agree")
            if not isinstance(agree, bool):
                raise IllegalAction(BAD_ACTION, "a vote needs 'agree': true or false")
            events = [Event(CURSE_VOTED, {"agree": agree}, seat)]
            votes = dict(state.votes)
            votes[seat] = agree
            voters = [s for s in guessers(state)]
            if agree and len(votes) < len(voters):
                return events
            agreed = agree and all(votes.get(s, False) for s in voters)
            events.append(
                Event(CURSE_DECIDED, {
                    "agreed": agreed,
                    "to": state.active if agreed else None,
                    "votes": [{"seat": s, "agree": votes[s]} for s in voters if s in votes],
                })
            )
            if agreed and state.rules.curse_ends_turn:
                events.extend(self._end_turn(state, CURSED, [], len(state.clues), curse_to=state.active))
            return events
        # give_bad_luck
        self._need(phase is Phase.BAD_LUCK, "give a Mauvais sort card")
        to = action.get("to")
        if type(to) is not int or not 0 <= to < state.players or to == state.active:
            raise IllegalAction(BAD_TARGET, "give the Mauvais sort card to an opponent (a seat number)")
        events = [Event(BAD_LUCK_GIVEN, {"to": to}, seat)]
        events.extend(self._next_turn(state, state.passes + 1, (state.active + 1) % state.players, 0))
        return events

    @staticmethod
    def _need(ok: bool, what: str) -> None:
        if not ok:
            raise IllegalAction(WRONG_PHASE, f"you cannot {what} now")

    def _decide_curse(self, state: State, seat: int) -> list[Event]:
        if seat == state.active:
            raise IllegalAction(CURSE_NOT_ALLOWED, "only a guesser may propose the Malédiction")
        if not curse_open(state):
            raise IllegalAction(
                CURSE_NOT_ALLOWED,
                "the Malédiction may be proposed once per clue, after a clue, to a player not already holding it",
            )
        return [Event(CURSE_PROPOSED, {"clue": len(state.clues)}, seat)]

    def _close_if_done(self, state: State, events: list[Event], seat: int, text: str | None) -> list[Event]:
        """Append the reveal (and the end of the turn) when this answer is
        the last one of the clue (module doc, step 3)."""
        acted = len(state.acted) + 1
        made = len(state.sealed) + (text is not None)
        if acted < len(guessers(state)) and made < proposal_cap(state):
            return events
        word, count, _slot = secret(state)
        sealed = dict(state.sealed)
        if text is not None:
            sealed[seat] = text
        order = [s for s in (*state.acted, seat) if s in sealed]
        found = [s for s in order if lexicon.guess_matches(sealed[s], word)]
        number = len(state.clues)
        events.append(
            Event(GUESSES_REVEALED, {
                "clue": number,
                "proposals": [{"seat": s, "word": sealed[s], "found": s in found} for s in order],
            })
        )
        if found:
            events.extend(self._end_turn(state, EXACT if number == count else EARLY, found, number))
        elif number == count:
            events.extend(self._end_turn(state, MISS, [], number))
        return events

    def _end_turn(
        self, state: State, outcome: str, finders: list[int], clues: int, curse_to: int | None = None
    ) -> list[Event]:
        """TurnScored (source, scoring; rulings, bonuses) and what follows:
        a bad-luck choice, the next turn, or the end of the game."""
        word, count, slot = secret(state)
        points = [0] * state.players
        if outcome == EXACT:
            for s in (state.active, *finders):
                points[s] = count
        elif outcome == EARLY:
            for s in finders:
                points[s] = clues
        bonus = None
        if outcome == EXACT and slot.bonus == PLAY_AGAIN:
            bonus = PLAY_AGAIN
        elif outcome == EXACT and slot.bonus == BAD_LUCK and state.bad_luck_left > 0:
            bonus = BAD_LUCK
        scored = Event(TURN_SCORED, {
            "active": state.active,
            "word": word,
            "symbol": slot.symbol,
            "count": count,
            "clues": clues,
            "outcome": outcome,
            "finders": list(finders),
            "points": points,
            "bonus": bonus,
        })
        events = [scored]
        if bonus == BAD_LUCK:
            return events
        gained = sum(points)
        if bonus == PLAY_AGAIN:
            events.extend(self._next_turn(state, state.passes, state.active, gained))
        else:
            events.extend(self._next_turn(state, state.passes + 1, (state.active + 1) % state.players, gained))
        return events

    def _next_turn(self, state: State, passes: int, active: int, gained: int) -> list[Event]:
        """The event that follows a scored turn: the next CardTurned, or
        GameEnded (``trips`` done, ``box_empty``, or ``centre_empty`` with
        the option).  ``gained``: points of the turn not yet in ``state``."""
        reason = None
        if passes >= state.rules.trips * state.players:
            reason = "trips"
        elif state.rules.end_when_centre_empty and state.centre - gained <= 0:
            reason = "centre_empty"
        elif len(state.box) < 2:
            reason = "box_empty"
        if reason is not None:
            return [Event(GAME_ENDED, {"reason": reason})]
        return [self._turn_event(state, active, passes)]

    def _turn_event(self, state: State, active: int, passes: int) -> Event:
        """CardTurned for ``active`` (source, step 1): the top card of the
        left pile goes right (its words for the active player only); the
        next one's back shows.  ``passes``: times the box has passed."""
        front = FRONTS[state.box[0][0]]
        back = BACKS[state.box[1][1]]
        return Event(CARD_TURNED, {
            "active": active,
            "turn": state.turn + 1,
            "passes": passes,
            "trip": min(passes // state.players + 1, state.rules.trips),
            "left": [b.to_json() for b in back],
            "candidates": [
                {"symbol": b.symbol, "word": front[SYMBOL_INDEX[b.symbol]], "count": b.count, "bonus": b.bonus}
                for b in back
            ],
        }, active)

    # ---- evolve -----------------------------------------------------------

    def evolve(self, state: State | None, event: Event) -> State:
        """Apply one event (pure: no randomness, no clock)."""
        if state is None:
            return self._on_game_started(event)
        return self._evolvers[event.type](state, event)

    @staticmethod
    def _on_game_started(e: Event) -> State:
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

    @staticmethod
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

    @staticmethod
    def _on_word_chosen(s: State, e: Event) -> State:
        s.choice = int(e.data["choice"])
        s.phase = Phase.CLUE
        return s

    @staticmethod
    def _on_clue_given(s: State, e: Event) -> State:
        s.clues.append(e.data["clue"])
        s.acted = []
        s.sealed = {}
        s.phase = Phase.GUESS
        return s

    @staticmethod
    def _on_guess_proposed(s: State, e: Event) -> State:
        seat = e.seat
        assert seat is not None  # proposed by a seat
        s.acted.append(seat)
        s.sealed[seat] = e.data["word"]
        return s

    @staticmethod
    def _on_guess_passed(s: State, e: Event) -> State:
        seat = e.seat
        assert seat is not None  # passed by a seat
        s.acted.append(seat)
        return s

    @staticmethod
    def _on_guesses_revealed(s: State, e: Event) -> State:
        n = e.data["clue"]
        for p in e.data["proposals"]:
            s.proposals.append((n, p["seat"], p["word"], p["found"]))
        s.acted = []
        s.sealed = {}
        s.phase = Phase.CLUE
        return s

    @staticmethod
    def _on_curse_proposed(s: State, e: Event) -> State:
        s.resume = s.phase
        s.phase = Phase.VOTE
        seat = e.seat
        assert seat is not None  # proposed by a seat
        s.vote_by = seat
        s.votes = {seat: True}
        s.voted_clue = len(s.clues)
        return s

    @staticmethod
    def _on_curse_voted(s: State, e: Event) -> State:
        seat = e.seat
        assert seat is not None  # voted by a seat
        s.votes[seat] = bool(e.data["agree"])
        return s

    @staticmethod
    def _on_curse_decided(s: State, e: Event) -> State:
        if e.data["agreed"]:
            s.curse_holder = e.data["to"]
        resume = s.resume
        assert resume is not None  # set when the vote began
        s.phase = resume
        s.resume = None
        s.vote_by = None
        return s

    @staticmethod
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

    @staticmethod
    def _on_bad_luck_given(s: State, e: Event) -> State:
        s.bad_luck[e.data["to"]] += 1
        s.bad_luck_left -= 1
        return s

    @staticmethod
    def _on_game_ended(s: State, e: Event) -> State:
        s.phase = Phase.OVER
        s.ended = e.data["reason"]
        return s

    # ---- queries ----------------------------------------------------------

    def awaiting(self, state: State) -> frozenset[int]:
        """Seats that may act now.  Phase choose/clue/bad_luck: the active
        player; phase guess: every guesser who has not yet proposed or
        passed on this clue.  While the Malédiction may be proposed
        (:func:`curse_open`), every guesser too (an optional move).  Phase
        vote: the guessers who have not voted."""
        phase = state.phase
        if phase is Phase.OVER:
            return frozenset()
        if phase is Phase.VOTE:
            return frozenset(s for s in guessers(state) if s not in state.votes)
        seats: set[int] = set()
        if phase is Phase.GUESS:
            seats.update(s for s in guessers(state) if s not in state.acted)
        else:
            seats.add(state.active)
        if curse_open(state):
            seats.update(guessers(state))
        return frozenset(seats)

    def to_act(self, state: State) -> frozenset[int]:
        """The awaited seats without those whose only move is proposing
        the Malédiction (optional)."""
        phase = state.phase
        if phase is Phase.OVER:
            return frozenset()
        if phase is Phase.VOTE:
            return frozenset(s for s in guessers(state) if s not in state.votes)
        if phase is Phase.GUESS:
            return frozenset(s for s in guessers(state) if s not in state.acted)
        return frozenset((state.active,))

    def legal_actions(self, state: State, seat: int) -> list[dict]:
        """Every action ``seat`` may send now.  Free text is described
        compactly: ``{"type": "clue", "word": ""}`` and ``{"type":
        "propose", "word": ""}`` stand for any text (limits in the view)."""
        phase = state.phase
        if phase is Phase.OVER or not 0 <= seat < state.players:
            return []
        out: list[dict] = []
        if seat == state.active:
            if phase is Phase.CHOOSE:
                out = [{"type": "choose", "symbol": b.symbol} for b in left_back(state)]
            elif phase is Phase.CLUE:
                out = [{"type": "clue", "word": ""}]
            elif phase is Phase.BAD_LUCK:
                out = [{"type": "give_bad_luck", "to": s} for s in guessers(state)]
            return out
        if phase is Phase.VOTE:
            if seat not in state.votes:
                out = [{"type": "vote", "agree": True}, {"type": "vote", "agree": False}]
            return out
        if phase is Phase.GUESS and seat not in state.acted:
            out = [{"type": "propose", "word": ""}, {"type": "pass"}]
        if curse_open(state):
            out.append({"type": "curse"})
        return out

    def view(self, state: State, seat: int | None) -> dict:
        """What ``seat`` (None: a spectator) sees.  Public: phase, active
        player, turn and trip, sizes of the box and centre pile, the left
        card's back, the clues, who has answered the current clue, the
        revealed proposals, the Malédiction and its votes, scores, the last
        turn's summary.  The active player only: the two candidate words
        and the chosen one.  Each guesser only: their own sealed proposal."""
        active = state.active
        mine = seat is not None and seat == active and state.phase is not Phase.OVER
        v: dict[str, Any] = {
            "game": self.name,
            "players": state.players,
            "seat": seat,
            "phase": state.phase.value,
            "active": active,
            "turn": state.turn,
            "trip": _trip(state),
            "trips": state.rules.trips,
            "box_size": len(state.box),
            "centre_pile": state.centre,
            "left_card": [b.to_json() for b in left_back(state)] if state.box else [],
            "clues": list(state.clues),
            "clue_number": len(state.clues),
            "answered": list(state.acted),
            "proposals_in_all": proposal_cap(state),
            "proposals": [{"clue": n, "seat": s, "word": w, "found": f} for n, s, w, f in state.proposals],
            "my_proposal": state.sealed.get(seat) if seat is not None else None,
            "curse": {
                "holder": state.curse_holder,
                "penalty": CURSE_PENALTY,
                "open": curse_open(state),
                "vote": None if state.vote_by is None else {
                    "by": state.vote_by,
                    "votes": [{"seat": s, "agree": a} for s, a in state.votes.items()],
                },
            },
            "bad_luck_left": state.bad_luck_left,
            "scores": [
                {"seat": s, "points": state.points[s], "bad_luck": state.bad_luck[s],
                 "curse": state.curse_holder == s, "total": t}
                for s, t in enumerate(totals(state))
            ],
            "last_turn": state.last,
            "limits": {"clue": lexicon.CLUE_MAX, "proposal": lexicon.GUESS_MAX},
            "candidates": None,
            "chosen": None,
        }
        if mine and state.right is not None:
            v["candidates"] = candidates(state)
            if state.choice is not None:
                word, count, slot = secret(state)
                v["chosen"] = {"symbol": slot.symbol, "word": word, "count": count, "bonus": slot.bonus}
        if state.phase is Phase.OVER:
            res = self.result(state)
            assert res is not None  # a game over has its result
            v["result"] = res.to_json()
        return v

    def redact(self, event: Event, seat: int | None) -> Event | None:
        """The event as ``seat`` sees it: the box order is nobody's
        (GameStarted keeps its size); candidates (CardTurned) and the
        choice (WordChosen) are the active player's; a sealed proposal
        (GuessProposed) is its author's until GuessesRevealed."""
        t = event.type
        if t == GAME_STARTED:
            data = {k: v for k, v in event.data.items() if k != "box"}
            data["box_size"] = len(event.data["box"])
            return Event(t, data, event.seat, event.ts, event.cmd)
        if t == CARD_TURNED:
            if seat is not None and seat == event.seat:
                return event
            data = {k: v for k, v in event.data.items() if k != "candidates"}
            return Event(t, data, event.seat, event.ts, event.cmd)
        if t == WORD_CHOSEN or t == GUESS_PROPOSED:
            if seat is not None and seat == event.seat:
                return event
            return Event(t, {}, event.seat, event.ts, event.cmd)
        return event

    def is_over(self, state: State) -> bool:
        """True once the game is over (``result`` is not None)."""
        return state.phase is Phase.OVER

    def result(self, state: State) -> Result | None:
        """Final totals and places (most points wins, equal totals share),
        once the game is over; detail gives points, Mauvais sort cards and
        the Malédiction holder."""
        if state.phase is not Phase.OVER:
            return None
        t = totals(state)
        return Result(
            scores=tuple(float(x) for x in t),
            places=places_from(t, lower_wins=False),
            lower_wins=False,
            detail={
                "points": list(state.points),
                "bad_luck": list(state.bad_luck),
                "curse_holder": state.curse_holder,
                "reason": state.ended,
                "turns": state.turn,
            },
        )


GAME = MauditMotDit()
