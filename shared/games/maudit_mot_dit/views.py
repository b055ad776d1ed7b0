"""What each seat sees of Maudit Mot Dit: its view of the state and its
feed of events (docs/games/maudit_mot_dit.md, "Events" and "Views").

The secrets are declared with :mod:`shared.hiding`, once:

* :data:`SECRETS` — per event type: the box order nobody's (``GameStarted``
  keeps its size as ``talon_size``); the candidate words of ``CardTurned``
  and the whole of ``WordChosen`` the active player's (the event's seat);
  a sealed ``GuessProposed`` its author's until ``GuessesRevealed``.
  :data:`redact` is ``redactor(SECRETS)``.
* :data:`VIEW_SECRETS` — the candidate words and the chosen secret are the
  active player's entries (nobody's once the game is over); each guesser
  sees only their own sealed proposal (``my_proposal``).

:func:`view` builds the whole view, secret fields included, and passes it
through :func:`shared.hiding.hide`.
"""

from __future__ import annotations

from typing import Any

from shared.hiding import PerSeat, Pile, Private, Secret, hide, redactor

from . import lexicon
from .deck import BACKS
from .scoring import CURSE_PENALTY, result, totals
from .state import (
    CARD_TURNED,
    GAME_STARTED,
    GUESS_PROPOSED,
    WORD_CHOSEN,
    Phase,
    State,
    awaiting,
    candidates,
    curse_open,
    proposal_cap,
    trip,
)

#: The game id (``game`` in every view).
NAME = "maudit_mot_dit"

#: What each event hides, per event type (the others are public).
SECRETS: dict[str, tuple[Secret, ...]] = {
    GAME_STARTED: (Pile("box", "talon_size"),),
    CARD_TURNED: (Private(("candidates",)),),
    WORD_CHOSEN: (Private(),),
    GUESS_PROPOSED: (Private(),),
}

#: What a view hides: per-seat entries only their seat sees.
VIEW_SECRETS: tuple[Secret, ...] = (
    PerSeat("candidates", own="candidates"),
    PerSeat("chosen", own="chosen"),
    PerSeat("sealed", own="my_proposal"),
)

#: Lookup tables built once: a phase's name, a card back's JSON (``left_card``).
_PHASE_NAME: dict[Phase, str] = {p: p.value for p in Phase}
_BACK_JSON: tuple[tuple[dict[str, Any], ...], ...] = tuple(tuple(b.to_json() for b in back) for back in BACKS)

#: ``redact(event, seat)``: the event as ``seat`` (None: a spectator) sees
#: it; ``redactor(SECRETS)``.
redact = redactor(SECRETS)


def view(state: State, seat: int | None) -> dict[str, Any]:
    """What ``seat`` (None: a spectator) sees.

    Public: ``game, seat, players, phase``, ``turn`` (the active player,
    None once over), ``turns`` (turns begun), ``awaiting``, ``options``,
    ``trip``/``trips``, ``talon_size`` (cards left in the box),
    ``centre_pile``, ``left_card`` (the two symbols showing), ``clues``,
    ``clue_number``, ``answered``, ``proposals_in_all``, ``proposals`` (the
    revealed ones of this turn), ``curse`` (holder, penalty, whether it
    may be proposed, the open vote), ``bad_luck_left``, ``standings``
    (points, Mauvais sort cards, Malédiction per seat), ``totals``,
    ``last_turn`` (the last ``TurnScored``), ``limits``, ``result`` (None
    until over), ``seats`` (per seat: ``seat``, ``cards`` None (no hand),
    ``score`` its total).  The active player only: ``candidates`` and ``chosen``
    (None for the others).  Each guesser only: ``my_proposal``."""
    n = state.players
    active = state.active
    over = state.phase is Phase.OVER
    rules = state.rules
    mine: list[Any] = [None] * n  # the candidate words, the active player's entry
    chosen: list[Any] = [None] * n  # the secret, the active player's entry
    # Built only when the reader is the active player: no other reader's
    # view ever holds them (PerSeat below keeps the reader's entry only).
    if not over and state.right is not None and seat == active:
        mine[active] = words = candidates(state)
        if state.choice is not None:  # the secret: the chosen candidate (state.secret)
            chosen[active] = dict(words[state.choice])
    sealed: list[str | None] = [None] * n  # the sealed proposals, each its author's entry
    for author, text in state.sealed.items():
        sealed[author] = text
    holder = state.curse_holder
    points, bad_luck = state.points, state.bad_luck
    res = result(state) if over else None
    sums = totals(state)
    whole: dict[str, Any] = {
        "game": NAME,
        "players": n,
        "seat": seat,
        "phase": _PHASE_NAME[state.phase],
        "turn": None if over else active,
        "turns": state.turn,
        "awaiting": sorted(awaiting(state)),
        "options": {
            "trips": rules.trips,
            "proposals_in_all_5_6": rules.proposals_in_all_5_6,
            "curse_ends_turn": rules.curse_ends_turn,
            "end_when_centre_empty": rules.end_when_centre_empty,
        },
        "trip": trip(state),
        "trips": rules.trips,
        "talon_size": len(state.box),
        "centre_pile": state.centre,
        "left_card": [dict(b) for b in _BACK_JSON[state.box[0][1]]] if state.box else [],
        "clues": list(state.clues),
        "clue_number": len(state.clues),
        "answered": list(state.acted),
        "proposals_in_all": proposal_cap(state),
        "proposals": [{"clue": c, "seat": s, "word": w, "found": f} for c, s, w, f in state.proposals],
        "sealed": sealed,
        "curse": {
            "holder": holder,
            "penalty": CURSE_PENALTY,
            "open": curse_open(state),
            "vote": None if state.vote_by is None else {
                "by": state.vote_by,
                "votes": [{"seat": s, "agree": a} for s, a in state.votes.items()],
            },
        },
        "bad_luck_left": state.bad_luck_left,
        "standings": [
            {"seat": s, "points": points[s], "bad_luck": bad_luck[s], "curse": s == holder}
            for s in range(n)
        ],
        "totals": sums,
        "last_turn": state.last,
        "limits": {"clue": lexicon.CLUE_MAX, "proposal": lexicon.GUESS_MAX},
        "candidates": mine,
        "chosen": chosen,
        "result": None if res is None else res.to_json(),
        "seats": [{"seat": s, "cards": None, "score": sums[s]} for s in range(n)],
    }
    return hide(whole, VIEW_SECRETS, seat, fresh=True)
