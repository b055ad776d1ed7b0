"""Maudit Mot Dit — the French word-guessing game, 3 to 6 players.

The rules as implemented, rulings included, are in
``docs/games/maudit_mot_dit.md``; the section names below are that page's.

Setup ("Setup", "Cards").  Half of the 110 word cards go face down to the
centre as the score pile, the other half into the box.  The first player
is drawn at random and holds the box.  Ten Mauvais sort cards and one
Malédiction tile lie beside.  Since our card list is public, a card's
front (its 8 words) and its back (two symbols with their counts) are
shuffled apart, so a visible back tells nothing about the words beneath.

A turn ("A turn").  The player holding the box is the active player (the
clue-giver), the others are the guessers.  The active player turns the
top card of the box to the right, where only they read its words; the
next card shows its back to everybody.  They secretly pick one of the two
symbols on that back: the secret word is the word under that symbol on
the turned card, and the number under the symbol is the count of clues
required.  They give one-word clues one at a time; after each, the
guessers answer, sealed: at 3-4 players each proposes one word or passes;
at 5-6 players at most a few proposals in all (an option, 3 by default),
first come, one per guesser.  The answers are revealed together once all
are in; if nobody found the word and clues remain, the next clue follows.

Scoring ("Scoring", :mod:`.scoring`).  Found on exactly the required clue:
the active player and every finder score the count.  Found earlier: only
the finders score, one point per clue given.  Not found when the clues run
out: nobody scores.  Points are cards taken from the centre pile.
Bonuses ("Bonuses", rulings): a 1-clue word found exactly lets the active
player play again; a 4- or 5-clue word found exactly lets them hand a
Mauvais sort card (-1 at the end) to an opponent, while cards remain.

The Malédiction ("The Malédiction").  After a clue, until the next clue or
the end of the turn, any guesser may propose that the clue does not fit.
The other guessers vote in public, one at a time; the first "no" rejects
it; when all guessers agree the single tile goes to the active player (-4
at the end).  One vote per clue.  By default the turn then ends with no
points (option ``curse_ends_turn``).

Clues ("Clue checks", :mod:`.lexicon`) are one word, not spelled out, not
of the family of the secret word or of an earlier clue, not repeated.
Proposals ("Guess matching") find the word ignoring case, accents, a
leading article and the plural.

End ("End").  Once the box has gone round the table ``trips`` times (2 by
default; extra turns do not count) the highest total wins: points, minus 1
per Mauvais sort card, minus 4 for the Malédiction; equal totals share the
place.  The game also ends if the box runs short of cards or, with the
option ``end_when_centre_empty``, after the turn that empties the centre
pile.

In this module: constants and refusal codes, :class:`Options`,
:func:`start`, one ``_decide_<type>`` and one ``_legal_<type>`` handler per
action type gathered in :data:`ACTIONS` (:data:`OPEN`: the types open in
each phase, in the order they are listed), :func:`decide`,
:func:`legal_actions`, and the game class binding them with
:mod:`.state`, :mod:`.views` and :mod:`.scoring`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from shared.engine import (
    BAD_ACTION,
    GAME_OVER,
    NOT_YOUR_TURN,
    ActionRule,
    BaseGame,
    IllegalAction,
    dispatch,
    listers,
    listing,
)
from shared.events import Event

from . import deck, lexicon, scoring, state, views
from .deck import BACKS, BAD_LUCK, FRONTS, PLAY_AGAIN, SYMBOL_INDEX
from .scoring import CURSED, EARLY, EXACT, MISS
from .state import (
    BAD_LUCK_GIVEN,
    CARD_TURNED,
    CLUE_GIVEN,
    CURSE_DECIDED,
    CURSE_PROPOSED,
    CURSE_VOTED,
    GAME_ENDED,
    GAME_STARTED,
    GUESS_PASSED,
    GUESS_PROPOSED,
    GUESSES_REVEALED,
    TURN_SCORED,
    WORD_CHOSEN,
    Phase,
    Rules,
    State,
    awaiting,
    curse_open,
    evolve,
    guessers,
    left_back,
    proposal_cap,
    secret,
)
from .summary import SUMMARY

# Phase, Rules and State are named here too: snapshots taken before the state
# moved to .state name their classes as ``shared.games.maudit_mot_dit.rules:...``.
__all__ = ["ACTIONS", "GAME", "OPEN", "MauditMotDit", "Options", "Phase", "Rules", "State", "decide",
           "legal_actions", "start"]

# --------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------

MIN_PLAYERS = 3
MAX_PLAYERS = 6
#: Mauvais sort cards in the game (docs, "Cards").
BAD_LUCK_CARDS = 10

# Refusal codes of this game (besides not_your_turn, game_over, bad_action and
# the text/clue codes of .lexicon).
WRONG_PHASE = "wrong_phase"
UNKNOWN_SYMBOL = "unknown_symbol"
ALREADY_PROPOSED = "already_proposed"
GUESS_NOT_A_WORD = "guess_not_a_word"
GIVER_CANNOT_PROPOSE = "giver_cannot_propose"
CURSE_NOT_ALLOWED = "curse_not_allowed"
BAD_TARGET = "bad_target"


class Options(BaseModel):
    """Table options (docs, "Options"; every default is the rules' or the rulings')."""

    model_config = ConfigDict(extra="forbid")

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
# start
# --------------------------------------------------------------------------


def start(options: BaseModel, players: int, rng: random.Random) -> list[Event]:
    """Opening events (docs, "Setup"): ``GameStarted`` (options, players,
    first player, the shuffled box as [front id, back id] pairs, the
    centre pile size, the Mauvais sort cards) and the first ``CardTurned``.

    Raises ValueError for a player count outside 3-6.
    """
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"Maudit Mot Dit is for {MIN_PLAYERS} to {MAX_PLAYERS} players")
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
    s = evolve(None, started)
    return [started, _turn_event(s, first, s.passes)]


# --------------------------------------------------------------------------
# Helpers of the decisions: the close of a clue, the end of a turn
# --------------------------------------------------------------------------


def _need(ok: bool, what: str) -> None:
    if not ok:
        raise IllegalAction(WRONG_PHASE, f"you cannot {what} now")


def _text_field(action: Mapping[str, Any], name: str) -> Any:
    if name not in action:
        raise IllegalAction(BAD_ACTION, f"the action needs a {name!r} field")
    return action[name]


def _close_if_done(s: State, events: list[Event], seat: int, text: str | None) -> list[Event]:
    """Append the reveal (and the end of the turn) when this answer is the
    last one of the clue (docs, "A turn", step 4)."""
    acted = len(s.acted) + 1
    made = len(s.sealed) + (text is not None)
    if acted < len(guessers(s)) and made < proposal_cap(s):
        return events
    word, count, _slot = secret(s)
    sealed = dict(s.sealed)
    if text is not None:
        sealed[seat] = text
    order = [p for p in (*s.acted, seat) if p in sealed]
    found = [p for p in order if lexicon.guess_matches(sealed[p], word)]
    number = len(s.clues)
    events.append(
        Event(GUESSES_REVEALED, {
            "clue": number,
            "proposals": [{"seat": p, "word": sealed[p], "found": p in found} for p in order],
        })
    )
    if found:
        events.extend(_end_turn(s, EXACT if number == count else EARLY, found, number))
    elif number == count:
        events.extend(_end_turn(s, MISS, [], number))
    return events


def _end_turn(s: State, outcome: str, finders: list[int], clues: int) -> list[Event]:
    """TurnScored (docs, "Scoring" and "Bonuses") and what follows: a
    Mauvais sort to give, the next turn, or the end of the game."""
    word, count, slot = secret(s)
    points = scoring.turn_points(s.players, s.active, outcome, finders, count, clues)
    bonus = None
    if outcome == EXACT and slot.bonus == PLAY_AGAIN:
        bonus = PLAY_AGAIN
    elif outcome == EXACT and slot.bonus == BAD_LUCK and s.bad_luck_left > 0:
        bonus = BAD_LUCK
    scored = Event(TURN_SCORED, {
        "active": s.active,
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
        events.extend(_next_turn(s, s.passes, s.active, gained))
    else:
        events.extend(_next_turn(s, s.passes + 1, (s.active + 1) % s.players, gained))
    return events


def _next_turn(s: State, passes: int, active: int, gained: int) -> list[Event]:
    """The event that follows a scored turn: the next CardTurned, or
    GameEnded (``trips`` done, ``box_empty``, or ``centre_empty`` with the
    option; docs, "End").  ``gained``: points of the turn not yet in ``s``."""
    reason = None
    if passes >= s.rules.trips * s.players:
        reason = "trips"
    elif s.rules.end_when_centre_empty and s.centre - gained <= 0:
        reason = "centre_empty"
    elif len(s.box) < 2:
        reason = "box_empty"
    if reason is not None:
        return [Event(GAME_ENDED, {"reason": reason})]
    return [_turn_event(s, active, passes)]


def _turn_event(s: State, active: int, passes: int) -> Event:
    """CardTurned for ``active`` (docs, "A turn", step 1): the top card of
    the box goes right (its words for the active player only); the next
    one's back shows.  ``passes``: times the box has passed."""
    front = FRONTS[s.box[0][0]]
    back = BACKS[s.box[1][1]]
    return Event(CARD_TURNED, {
        "active": active,
        "turn": s.turn + 1,
        "passes": passes,
        "trip": min(passes // s.players + 1, s.rules.trips),
        "left": [b.to_json() for b in back],
        "candidates": [
            {"symbol": b.symbol, "word": front[SYMBOL_INDEX[b.symbol]], "count": b.count, "bonus": b.bonus}
            for b in back
        ],
    }, active)


# --------------------------------------------------------------------------
# One decide and one legal handler per action type
# --------------------------------------------------------------------------


def _decide_choose(s: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """``{"type": "choose", "symbol": s}`` (the active player, phase
    choose; docs, "A turn", step 2): ``WordChosen``.  Refuses
    ``wrong_phase``, ``unknown_symbol``."""
    _need(s.phase is Phase.CHOOSE, "choose a symbol")
    sym = action.get("symbol")
    slots = left_back(s)
    for i, slot in enumerate(slots):
        if slot.symbol == sym:
            right = s.right
            assert right is not None  # the turn's right card is turned in CHOOSE
            word = FRONTS[right][SYMBOL_INDEX[sym]]
            data = {"choice": i, "symbol": sym, "word": word, "count": slot.count, "bonus": slot.bonus}
            return [Event(WORD_CHOSEN, data, seat)]
    names = ", ".join(b.symbol for b in slots)
    raise IllegalAction(UNKNOWN_SYMBOL, f"choose one of the symbols on the left card: {names}")


def _legal_choose(s: State, seat: int) -> list[dict]:
    if seat != s.active:
        return []
    return [{"type": "choose", "symbol": b.symbol} for b in left_back(s)]


def _decide_clue(s: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """``{"type": "clue", "word": text}`` (the active player, phase clue;
    docs, "A turn", step 3 and "Clue checks"): ``ClueGiven``.  Refuses
    ``wrong_phase``, ``bad_action``, the text and clue codes of
    :mod:`.lexicon`."""
    _need(s.phase is Phase.CLUE and seat == s.active, "give a clue")
    word, _count, _slot = secret(s)
    clue = lexicon.check_clue(_text_field(action, "word"), word, s.clues)
    return [Event(CLUE_GIVEN, {"clue": clue, "number": len(s.clues) + 1}, seat)]


def _legal_clue(s: State, seat: int) -> list[dict]:
    return [{"type": "clue", "word": ""}] if seat == s.active else []


def _may_answer(s: State, seat: int) -> None:
    """The checks of ``propose`` and ``pass``: a guesser, phase guess, not
    yet answered this clue."""
    if seat == s.active:
        raise IllegalAction(GIVER_CANNOT_PROPOSE, "the active player gives the clues and does not propose")
    _need(s.phase is Phase.GUESS, "propose a word")
    if seat in s.acted:
        raise IllegalAction(ALREADY_PROPOSED, "you already answered this clue")


def _decide_propose(s: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """``{"type": "propose", "word": text}`` (a guesser, phase guess; docs,
    "A turn", step 4 and "Free text"): ``GuessProposed``, then the reveal
    and the end of the turn when it closes the clue.  Refuses
    ``giver_cannot_propose``, ``wrong_phase``, ``already_proposed``,
    ``bad_action``, the text codes, ``guess_not_a_word``."""
    _may_answer(s, seat)
    text = lexicon.clean_text(_text_field(action, "word"), lexicon.GUESS_MAX)
    if not any(ch.isalpha() for ch in text):
        raise IllegalAction(GUESS_NOT_A_WORD, "a proposal must contain a word")
    return _close_if_done(s, [Event(GUESS_PROPOSED, {"word": text}, seat)], seat, text)


def _legal_propose(s: State, seat: int) -> list[dict]:
    return [{"type": "propose", "word": ""}] if seat != s.active and seat not in s.acted else []


def _decide_pass(s: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """``{"type": "pass"}`` (a guesser, phase guess): ``GuessPassed``, then
    the reveal when it closes the clue.  Refuses as ``propose``."""
    _may_answer(s, seat)
    return _close_if_done(s, [Event(GUESS_PASSED, {}, seat)], seat, None)


def _legal_pass(s: State, seat: int) -> list[dict]:
    return [{"type": "pass"}] if seat != s.active and seat not in s.acted else []


def _decide_curse(s: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """``{"type": "curse"}`` (a guesser, after a clue; docs, "The
    Malédiction"): ``CurseProposed``.  Refuses ``curse_not_allowed``."""
    if seat == s.active:
        raise IllegalAction(CURSE_NOT_ALLOWED, "only a guesser may propose the Malédiction")
    if not curse_open(s):
        raise IllegalAction(
            CURSE_NOT_ALLOWED,
            "the Malédiction may be proposed once per clue, after a clue, to a player not already holding it",
        )
    return [Event(CURSE_PROPOSED, {"clue": len(s.clues)}, seat)]


def _legal_curse(s: State, seat: int) -> list[dict]:
    return [{"type": "curse"}] if seat != s.active and curse_open(s) else []


def _decide_vote(s: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """``{"type": "vote", "agree": bool}`` (a guesser who has not voted,
    phase vote; docs, "The Malédiction"): ``CurseVoted``, then
    ``CurseDecided`` at the first "no" or once all agree (and the end of
    the turn with ``curse_ends_turn``).  Refuses ``wrong_phase``,
    ``bad_action``."""
    _need(s.phase is Phase.VOTE, "vote on the Malédiction")
    agree = action.get("agree")
    if not isinstance(agree, bool):
        raise IllegalAction(BAD_ACTION, "a vote needs 'agree': true or false")
    events = [Event(CURSE_VOTED, {"agree": agree}, seat)]
    votes = dict(s.votes)
    votes[seat] = agree
    voters = guessers(s)
    if agree and len(votes) < len(voters):
        return events
    agreed = agree and all(votes.get(v, False) for v in voters)
    events.append(
        Event(CURSE_DECIDED, {
            "agreed": agreed,
            "to": s.active if agreed else None,
            "votes": [{"seat": v, "agree": votes[v]} for v in voters if v in votes],
        })
    )
    if agreed and s.rules.curse_ends_turn:
        events.extend(_end_turn(s, CURSED, [], len(s.clues)))
    return events


def _legal_vote(s: State, seat: int) -> list[dict]:
    if seat == s.active or seat in s.votes:
        return []
    return [{"type": "vote", "agree": True}, {"type": "vote", "agree": False}]


def _decide_give_bad_luck(s: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """``{"type": "give_bad_luck", "to": seat}`` (the active player, phase
    bad_luck; docs, "Bonuses"): ``BadLuckGiven`` then the next turn (or
    the end).  Refuses ``wrong_phase``, ``bad_target``."""
    _need(s.phase is Phase.BAD_LUCK, "give a Mauvais sort card")
    to = action.get("to")
    if type(to) is not int or not 0 <= to < s.players or to == s.active:
        raise IllegalAction(BAD_TARGET, "give the Mauvais sort card to an opponent (a seat number)")
    events = [Event(BAD_LUCK_GIVEN, {"to": to}, seat)]
    events.extend(_next_turn(s, s.passes + 1, (s.active + 1) % s.players, 0))
    return events


def _legal_give_bad_luck(s: State, seat: int) -> list[dict]:
    if seat != s.active:
        return []
    return [{"type": "give_bad_luck", "to": g} for g in guessers(s)]


#: The handlers of each action type (docs, "Actions").
ACTIONS: dict[str, ActionRule] = {
    "choose": ActionRule(_decide_choose, _legal_choose, {"symbol": str}),
    "clue": ActionRule(_decide_clue, _legal_clue, {"word": str}),
    "propose": ActionRule(_decide_propose, _legal_propose, {"word": str}),
    "pass": ActionRule(_decide_pass, _legal_pass),
    "curse": ActionRule(_decide_curse, _legal_curse),
    "vote": ActionRule(_decide_vote, _legal_vote, {"agree": bool}),
    "give_bad_luck": ActionRule(_decide_give_bad_luck, _legal_give_bad_luck, {"to": int}),
}

#: The action types open in each phase, in the order they are listed.
OPEN: dict[Phase, tuple[str, ...]] = {
    Phase.CHOOSE: ("choose",),
    Phase.CLUE: ("clue", "curse"),
    Phase.GUESS: ("propose", "pass", "curse"),
    Phase.VOTE: ("vote",),
    Phase.BAD_LUCK: ("give_bad_luck",),
    Phase.OVER: (),
}
#: Their ``legal`` handlers, per phase (what legal_actions walks).
LISTERS = listers(ACTIONS, OPEN)


def decide(s: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """Validate one action of ``seat``; return the events it causes.

    Actions: ``{"type": "choose", "symbol": s}`` (active, phase choose);
    ``{"type": "clue", "word": text}`` (active, phase clue);
    ``{"type": "propose", "word": text}`` and ``{"type": "pass"}``
    (guessers, phase guess); ``{"type": "curse"}`` (a guesser, after a
    clue); ``{"type": "vote", "agree": bool}`` (guessers, phase vote);
    ``{"type": "give_bad_luck", "to": seat}`` (active, phase bad_luck).
    Guessers act out of turn (they answer a clue together; any of them
    may propose the Malédiction): the seat must be awaited, and each
    handler checks the seat's role.

    Raises :class:`IllegalAction`: ``game_over``, ``not_your_turn``,
    ``bad_action``, ``wrong_phase``, ``unknown_symbol``, the text and
    clue codes of :mod:`.lexicon`, ``already_proposed``,
    ``guess_not_a_word``, ``giver_cannot_propose``,
    ``curse_not_allowed``, ``bad_target``.
    """
    if s.phase is Phase.OVER:
        raise IllegalAction(GAME_OVER, "the game is over")
    if seat not in awaiting(s):
        raise IllegalAction(NOT_YOUR_TURN, "it is not your turn")
    return dispatch(ACTIONS, s, seat, action, rng)


def legal_actions(s: State, seat: int) -> list[dict]:
    """Every action ``seat`` may send now, in the order of :data:`OPEN`.
    Free text is described compactly: ``{"type": "clue", "word": ""}`` and
    ``{"type": "propose", "word": ""}`` stand for any text (limits in the
    view)."""
    if not 0 <= seat < s.players:
        return []
    return listing(LISTERS[s.phase], s, seat)


def _text_schema(kind: str, limit: int) -> dict[str, Any]:
    return {"type": "object",
            "properties": {"type": {"const": kind}, "word": {"type": "string", "minLength": 1, "maxLength": limit}},
            "required": ["type", "word"], "additionalProperties": False}


def choices(state: State, seat: int) -> list[dict]:
    """The free-text actions of ``seat`` now, described (docs, "Free
    text"): the clue of the active player in phase clue, the proposal of a
    guesser who has not answered in phase guess; ``[]`` otherwise.  Their
    placeholders (an empty ``word``) stay in :func:`legal_actions` for the
    bots only."""
    s = state
    if not 0 <= seat < s.players or seat not in awaiting(s):
        return []
    if s.phase is Phase.CLUE and seat == s.active:
        return [{"type": "clue", "schema": _text_schema("clue", lexicon.CLUE_MAX),
                 "hint": "Type one French word that leads the others to your secret word, not of its family."}]
    if s.phase is Phase.GUESS and seat != s.active and seat not in s.acted:
        return [{"type": "propose", "schema": _text_schema("propose", lexicon.GUESS_MAX),
                 "hint": "Type the word you think the clues point to."}]
    return []


# --------------------------------------------------------------------------
# The game
# --------------------------------------------------------------------------


class MauditMotDit(BaseGame):
    """The Maudit Mot Dit decider (module doc): decide and legal actions
    from here, evolve and the queries from :mod:`.state`, views and feeds
    from :mod:`.views`, the result from :mod:`.scoring`."""

    name = views.NAME
    title = "Maudit Mot Dit"
    summary = SUMMARY
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    Options = Options
    actions = ACTIONS

    start = staticmethod(start)
    decide = staticmethod(decide)
    legal_actions = staticmethod(legal_actions)
    choices = staticmethod(choices)
    evolve = staticmethod(state.evolve)
    awaiting = staticmethod(state.awaiting)
    to_act = staticmethod(state.to_act)
    is_over = staticmethod(state.is_over)
    view = staticmethod(views.view)
    redact = staticmethod(views.redact)
    result = staticmethod(scoring.result)

    def __init__(self) -> None:
        super().__init__()
        from . import bots

        self.strategies = dict(bots.STRATEGIES)
        self.strategy_notes = bots.strategy_notes


GAME = MauditMotDit()
