"""What each seat of a Mau Mau table may see: views and feeds
(docs/games/maumau.md, "Events and redaction" and "Views").

The secrets are declared here and hidden by :mod:`shared.hiding`:

* a deal (``GameStarted``'s ``deal``, ``RoundDealt``): each seat sees its
  own hand and every hand's size, nobody the talon (its size only);
* ``CardsDrawn``: the cards only for the drawer (the others: ``count``);
* ``TalonReshuffled``: the new talon's size only, for everyone;
* a view: the seat's own ``hand``, every hand's size, the talon's size,
  and the card just drawn only for the seat on turn.
"""

from __future__ import annotations

from typing import Any

from shared.games.maumau.scoring import result
from shared.games.maumau.state import SEVEN_PENALTY, Phase, Rules, State, awaiting
from shared.hiding import PerSeat, Pile, Private, Secret, Within, hide, redactor

#: A deal's secrets: the hands (each seat its own; sizes for all), the talon (its size).
DEAL: tuple[Secret, ...] = (PerSeat("hands", sizes="hand_sizes"), Pile("talon", "talon_size"))

#: Event type -> its secrets (other events are public).
SECRETS: dict[str, tuple[Secret, ...]] = {
    "GameStarted": (Within("deal", DEAL),),
    "RoundDealt": DEAL,
    "CardsDrawn": (Private(("cards",), size="count"),),
    "TalonReshuffled": (Pile("talon", "talon_size"),),
}

#: ``redact(event, seat)``: the event as ``seat`` (None: a spectator) may see it.
redact = redactor(SECRETS)

#: A view's secrets: the own hand (``hand``) and every hand's size, the
#: talon's size, the card just drawn for the seat on turn only.
VIEW_SECRETS: tuple[Secret, ...] = (
    PerSeat("hands", sizes="hand_sizes", own="hand"),
    Pile("talon", "talon_size"),
    Private(("drawn",), readers=("turn",)),
)


def view(state: State, seat: int | None) -> dict:
    """What ``seat`` (None: a spectator) sees, JSON-ready: its own hand,
    every hand's size, the discard's top card, the wished suit, the
    pending 7 penalty, skipped seats, whose turn and the phase, the
    announcements and the open call-out window, the talon and discard
    sizes, the score sheet and, once over, the result; ``round_seats``: the
    seats playing this round; ``seats``: per seat ``seat``, ``cards`` in
    hand, ``score`` (its total).  Never another
    hand nor the talon's cards; ``drawn`` is None but for the seat on
    turn."""
    s = state
    w = s.window
    over = s.phase is Phase.OVER
    res = result(s) if over else None
    hands, totals = s.hands, s.totals
    whole = {
        "game": "maumau",
        "seat": seat,
        "players": s.players,
        "round": s.round,
        "decider": s.decider,
        "dealer": s.dealer,
        "round_seats": list(s.seats),
        "phase": s.phase.value,
        "turn": None if over else s.turn,
        "awaiting": sorted(awaiting(s)),
        "hands": s.hands,
        "discard_top": s.discard[-1],
        "wish": s.wish,
        "penalty": s.penalty,
        "sevens": s.penalty // SEVEN_PENALTY,
        "skipped": list(s.skipped),
        "drawn": s.drawn,
        "talon": s.talon,
        "discard_size": len(s.discard),
        "announcements": list(s.announced),
        "callout": None if w is None else {"offender": w.offender, "missed": w.missed.value},
        "scores": [list(p) for p in s.scores],
        "round_winners": list(s.winners),
        "totals": list(s.totals),
        "decider_points": None if s.decider_points is None else list(s.decider_points),
        "target_score": s.rules.target_score,
        "options": options_json(s.rules),
        "result": None if res is None else res.to_json(),
        "seats": [{"seat": i, "cards": len(hands[i]), "score": totals[i]} for i in range(s.players)],
    }
    out = hide(whole, VIEW_SECRETS, seat, fresh=True)
    out.setdefault("drawn", None)  # the key stays, empty, for the seats not on turn
    return out


def options_json(r: Rules) -> dict[str, Any]:
    """The table's options as JSON (as ``GameStarted`` holds them)."""
    return {
        "hand_size": r.hand_size,
        "skat_deck": r.skat_deck,
        "decks": r.decks,
        "ace_power": r.ace_power.value,
        "seven_stack_cap": r.seven_stack_cap,
        "target_score": r.target_score,
    }
