"""Mau Mau, a shedding game for 2–12 players: the rules as implemented.

docs/games/maumau.md is the reference; the section names below are its
headings, where each rule, ruling ("ruling") and choice of ours ("ours")
is stated in full.

Deck and deal ("Deck and deal").  One 52-card deck up to 6 players, two
decks shuffled together from 7 (ruling), more while the deal would leave
fewer talon cards than players (ours); option: the 32-card Skat deck.
Every seat is dealt ``hand_size`` cards one at a time from the dealer's
left, the next card starts the discard pile and the rest is the talon.
The first dealer is drawn at random (ours); the deal passes left.

Play ("Play").  The player on turn plays one card of the rank or the suit
of the discard's top card, or draws one card, which is allowed only
without a playable card (ruling).  A playable drawn card may be played at
once or kept; any other draw ends the turn.

Special ranks ("Special ranks").  A 7 makes the next player draw 2 unless
they answer with a 7, which passes on a penalty grown by 2 (option
``seven_stack_cap``).  A Jack goes on anything but a pending 7 penalty
and names the suit to follow, unless its play ends the round (its last
card with "maumau", or closing the window of an offender left with no
card): then no suit is owed and one sent is ignored (issue 15).  An 8
skips the next player.  An ace does nothing unless option ``ace_power``
is ``draw`` (all others draw 1) or ``skip`` (all others are skipped
once).  A first upcard Jack has the dealer name the suit; a first 7 or 8
acts as if the dealer had played it ("First upcard").

Announcements ("Announcements and call-outs").  The play that leaves one
card carries "mau", the play of the last card "maumau".  Any other player
of the round may call out a missed announcement until the next player's
turn is over; the offender draws 2.  A last card played without "maumau"
ends the round only when that window closes without a call-out.

Talon ("Talon").  A talon too short for a draw is refilled by shuffling
the discard pile but its top card under it; a round in which nobody can
play nor draw for a whole turn of the table is blocked (ours).

Scoring ("Scoring and the game", :mod:`shared.games.maumau.scoring`).
The player who goes out scores 0, the others the cards in hand; rounds go
on until a total reaches ``target_score`` and the lowest total wins, a tie
for it being broken by a decider round among the tied players (ruling).

This module holds the constants and refusal codes, :class:`Options`,
:func:`start`, one ``_decide_<type>`` and one ``_legal_<type>`` handler
per action type gathered in :data:`ACTIONS`, :func:`decide`,
:func:`legal_actions` and the game class :class:`MauMau`.  The state and
``evolve`` are in :mod:`shared.games.maumau.state`, views and redaction in
:mod:`shared.games.maumau.views`.  Everything random (shuffles, the first
dealer) happens in :func:`start` and :func:`decide` and is written into
the events.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from shared.cards import ACE, JACK, RANK, SUITS, deck32, deck52, shoe
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
from shared.games.maumau import scoring, state, views
from shared.games.maumau.scoring import final_places, round_points
from shared.games.maumau.state import (
    DRAWN,
    JACKS,
    MAU,
    MAUMAU,
    OVER,
    PLAY,
    PLAYABLE_ON,
    PLAYABLE_WISHED,
    SEVEN,
    WISH,
    AcePower,
    Phase,
    Rules,
    State,
    clone,
    evolve,
    expected_call,
    playable_set,
    rules_from,
)
from shared.games.maumau.summary import SUMMARY

# ---------------------------------------------------------------------------
# Constants and refusal codes
# ---------------------------------------------------------------------------

MIN_PLAYERS, MAX_PLAYERS = 2, 12
#: Penalty cards for a missed announcement.
CALLOUT_PENALTY = 2

#: Refusal codes of Mau Mau (besides the shared not_your_turn, game_over, bad_action).
CARD_NOT_IN_HAND = "card_not_in_hand"
CARD_DOES_NOT_MATCH = "card_does_not_match"
SUIT_WISH_REQUIRED = "suit_wish_required"
HAS_PLAYABLE_CARD = "has_playable_card"
PENALTY_PENDING = "penalty_pending"
SEVEN_CHAIN_CAPPED = "seven_chain_capped"
PLAY_OR_KEEP = "play_or_keep_drawn_card"
NOTHING_TO_KEEP = "nothing_to_keep"
SUIT_WISH_PENDING = "suit_wish_pending"
NO_WISH_PENDING = "no_wish_pending"
BAD_ANNOUNCEMENT = "bad_announcement"
NOTHING_TO_CALL = "nothing_to_call"
CALLOUT_WINDOW_CLOSED = "callout_window_closed"
CANNOT_CALL_OUT_YOURSELF = "cannot_call_out_yourself"

#: Every refusal code this game raises (documented in docs/games/maumau.md).
CODES = (
    NOT_YOUR_TURN, GAME_OVER, BAD_ACTION, CARD_NOT_IN_HAND, CARD_DOES_NOT_MATCH, SUIT_WISH_REQUIRED,
    HAS_PLAYABLE_CARD, PENALTY_PENDING, SEVEN_CHAIN_CAPPED, PLAY_OR_KEEP, NOTHING_TO_KEEP,
    SUIT_WISH_PENDING, NO_WISH_PENDING, BAD_ANNOUNCEMENT, NOTHING_TO_CALL, CALLOUT_WINDOW_CLOSED,
    CANNOT_CALL_OUT_YOURSELF,
)

_SUIT_SET = frozenset(SUITS)
DECK_SIZE = {False: len(deck52()), True: len(deck32())}

# ---------------------------------------------------------------------------
# Options and the start
# ---------------------------------------------------------------------------


class Options(BaseModel):
    """Table options of Mau Mau; every default is the rulings' default."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    hand_size: int = Field(5, ge=1, le=15, description="Cards dealt to each player (5; 7 is common).")
    skat_deck: bool = Field(False, description="Play with the 32-card Skat deck (7 to ace) instead of 52 cards.")
    decks: int | None = Field(
        None,
        ge=1,
        le=4,
        description="Decks shuffled together; null = automatic: 1 up to 6 players, 2 from 7, "
        "more if the deal would leave fewer talon cards than players.",
    )
    ace_power: AcePower = Field(
        AcePower.NONE,
        description="Ace power: 'none', 'draw' (every other player draws 1) or 'skip' "
        "(every other player is skipped once: the ace's player plays again).",
    )
    seven_stack_cap: int | None = Field(
        None,
        ge=1,
        description="Most 7s one draw-two chain may hold (null = no cap; 1 = no stacking; "
        "2 = the chain stops after one extra player, penalty at most 4).",
    )
    target_score: int = Field(100, ge=1, description="The game ends once a player's total reaches this score.")


def resolve_decks(options: Options, players: int) -> int:
    """Decks used for ``players`` seats under ``options``.

    Automatic (``decks`` null): 1 up to 6 players, 2 from 7 (rulings), plus
    one more while the deal would leave fewer talon cards than players.
    Raises ``ValueError`` when an explicit ``decks`` cannot deal every hand
    and the upcard.
    """
    size = DECK_SIZE[options.skat_deck]
    dealt = players * options.hand_size + 1
    if options.decks is not None:
        if dealt > options.decks * size:
            raise ValueError(
                f"{options.decks} deck(s) of {size} cards cannot deal {players} hands of {options.hand_size}"
            )
        return options.decks
    decks = 1 if players <= 6 else 2
    while dealt + players > decks * size:
        decks += 1
    return decks


def start(options: BaseModel | Mapping[str, Any], players: int, rng: random.Random) -> list[Event]:
    """Opening events: one ``GameStarted`` holding the options (as a dict),
    the player count, the resolved number of decks and the first ``deal``
    (random first dealer).  Raises ``ValueError`` for a player count
    outside 2..12 or options that cannot deal every hand."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"Mau Mau seats 2 to 12 players, not {players}")
    opts = options if isinstance(options, Options) else Options.model_validate(dict(options or {}))
    decks = resolve_decks(opts, players)
    rules = rules_from(opts.model_dump(mode="json"), decks)
    seats = tuple(range(players))
    dealer = rng.randrange(players)
    deal = _deal(rules, players, seats, dealer, 1, False, rng)
    data = {"options": opts.model_dump(mode="json"), "players": players, "decks": decks, "deal": deal}
    return [Event("GameStarted", data)]


def _deal(
    rules: Rules, players: int, seats: tuple[int, ...], dealer: int, round_no: int, decider: bool, rng: random.Random
) -> dict:
    """Shuffle and deal one round ("Deck and deal"): one card at a time
    from the dealer's left, then the upcard; the rest is the talon."""
    cards = shoe(rules.decks, short=rules.skat_deck)
    rng.shuffle(cards)
    k = seats.index(dealer) + 1
    order = seats[k:] + seats[:k]
    hands: list[list[str]] = [[] for _ in range(players)]
    i = 0
    for _ in range(rules.hand_size):
        for seat in order:
            hands[seat].append(cards[i])
            i += 1
    return {
        "round": round_no,
        "decider": decider,
        "dealer": dealer,
        "seats": list(seats),
        "hands": hands,
        "upcard": cards[i],
        "talon": cards[i + 1 :],
    }


# ---------------------------------------------------------------------------
# decide helpers (what an action brings in its wake)
# ---------------------------------------------------------------------------


def _turn_over(s: State, events: list[Event], rng: random.Random, *, idle: bool) -> list[Event]:
    """Events of an action that ends the turn, plus the round's end when
    it closes the window of an offender who has no card left (out), or
    when nobody could play nor draw for a whole turn of the table."""
    w = s.window
    if w is not None and not s.hands[w.offender]:
        return _end_round(s, events, w.offender, rng)
    if idle and s.idle >= len(s.seats):
        return _end_round(s, events, None, rng)
    return events


def _draws(
    s: State, draws: list[tuple[int, int, str]], rng: random.Random, *, whole_discard: bool = False
) -> list[Event]:
    """``CardsDrawn`` events for ``(seat, count, reason)`` draws in order,
    with a ``TalonReshuffled`` when the talon cannot cover a draw: the
    discard except its top (``whole_discard``: the card being played will
    be the top) is shuffled under the rest of the talon; still short, the
    seat draws what there is ("Talon")."""
    talon = s.talon
    if sum(n for _, n, _ in draws) <= len(talon):
        events = []
        i = len(talon)
        for seat, n, reason in draws:
            events.append(Event("CardsDrawn", {"cards": talon[i - n : i][::-1], "reason": reason}, seat))
            i -= n
        return events
    t = list(talon)
    pool = list(s.discard) if whole_discard else s.discard[:-1]
    events = []
    for seat, n, reason in draws:
        if len(t) < n and pool:
            rng.shuffle(pool)
            t = pool + t
            pool = []
            events.append(Event("TalonReshuffled", {"talon": list(t)}))
        k = min(n, len(t))
        got = t[len(t) - k :][::-1]
        del t[len(t) - k :]
        events.append(Event("CardsDrawn", {"cards": got, "reason": reason}, seat))
    return events


def _end_round(s: State, events: list[Event], winner: int | None, rng: random.Random) -> list[Event]:
    """Append the round's scoring ("Scoring and the game") and what comes
    next: the next deal (passing left), a decider round among the players
    tied for the lowest total, or the game's end."""
    scratch = clone(s)
    for e in events:
        scratch = evolve(scratch, e)
    points = round_points(scratch, winner)
    events.append(Event("RoundScored", {"round": s.round, "decider": s.decider, "winner": winner, "points": points}))
    if s.decider:
        events.append(_game_ended(s.totals, points))
        return events
    n = s.players
    totals = [t + (p or 0) for t, p in zip(s.totals, points, strict=True)]
    seats: tuple[int, ...] = tuple(range(n))
    decider = False
    if max(totals) >= s.rules.target_score:
        low = min(totals)
        seats = tuple(i for i, t in enumerate(totals) if t == low)
        if len(seats) == 1:
            events.append(_game_ended(totals, None))
            return events
        decider = True
    dealer = (s.dealer + 1) % n
    while dealer not in seats:
        dealer = (dealer + 1) % n
    deal = _deal(s.rules, n, seats, dealer, s.round + 1, decider, rng)
    events.append(Event("RoundDealt", deal))
    return events


def _game_ended(totals: list[int], decider_points: list[int | None] | None) -> Event:
    places = final_places(totals, decider_points)
    return Event(
        "GameEnded",
        {"totals": list(totals), "places": list(places), "winners": [i for i, p in enumerate(places) if p == 1]},
    )


# ---------------------------------------------------------------------------
# One decide and one legal handler per action type
# ---------------------------------------------------------------------------


def _decide_play(s: State, seat: int, a: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """Play a card ("Play", "Special ranks", "Announcements and call-outs")."""
    card = a.get("card")
    suit = a.get("suit")
    call = a.get("announce")
    if type(card) is not str:
        raise IllegalAction(BAD_ACTION, "a play names the 'card' code of a card you hold")
    if suit is not None and suit not in _SUIT_SET:
        raise IllegalAction(BAD_ACTION, "'suit' is one of S, H, D, C")
    if call is not None and call != MAU and call != MAUMAU:
        raise IllegalAction(BAD_ACTION, "'announce' is 'mau' or 'maumau'")
    phase = s.phase
    if phase is WISH:
        raise IllegalAction(SUIT_WISH_PENDING, "the dealer must first name the suit for the Jack turned up")
    hand = s.hands[seat]
    if card not in hand:
        raise IllegalAction(CARD_NOT_IN_HAND, "you do not hold that card")
    if phase is DRAWN:
        if card != s.drawn:
            raise IllegalAction(PLAY_OR_KEEP, "after drawing you may only play the card you drew, or keep it")
    elif s.penalty:
        if RANK[card] != SEVEN:
            raise IllegalAction(PENALTY_PENDING, "facing a 7 you must play a 7 or draw the penalty")
        if card not in playable_set(s):
            raise IllegalAction(SEVEN_CHAIN_CAPPED, "the chain of 7s is capped: draw the penalty")
    elif card not in (PLAYABLE_WISHED[s.wish] if s.wish else PLAYABLE_ON[s.discard[-1]]):
        raise IllegalAction(CARD_DOES_NOT_MATCH, "that card matches neither the rank nor the suit to follow")
    rank = RANK[card]
    if rank != JACK and suit is not None:
        raise IllegalAction(BAD_ACTION, "only a Jack names a suit")
    left = len(hand) - 1
    if call is not None and call != expected_call(left):
        raise IllegalAction(
            BAD_ANNOUNCEMENT, "say 'mau' with the play that leaves one card, 'maumau' with your last card"
        )
    if rank == JACK:
        if _ends_round(s, left, call):
            suit = None  # nobody will follow a wish: a suit sent is ignored
        elif suit is None:
            raise IllegalAction(SUIT_WISH_REQUIRED, "a Jack names the suit to follow: add 'suit'")
    events = [Event("CardPlayed", {"card": card, "suit": suit, "announce": call}, seat)]
    if left == 0 and call is not None:  # "Mau Mau": out at once
        return _end_round(s, events, seat, rng)
    if rank == ACE and s.rules.ace_power is AcePower.DRAW:
        victims: list[tuple[int, int, str]] = []
        x = s.left[seat]
        while x != seat:
            assert x is not None  # the seats of the round make a ring
            if s.hands[x]:
                victims.append((x, 1, "ace"))
            x = s.left[x]
        # the played ace will be the top card: everything below it may be reshuffled
        events += _draws(s, victims, rng, whole_discard=True)
    w = s.window  # the turn is over: an offender with no card left is out
    if w is not None and not s.hands[w.offender]:
        return _end_round(s, events, w.offender, rng)
    return events


def _ends_round(s: State, left: int, call: str | None) -> bool:
    """Whether a play leaving ``left`` cards, with announcement ``call``
    (already checked), ends the round: the last card with "maumau", or
    any play while the open window's offender waits with an empty hand
    (the play ends the next player's turn, so that offender is out).  A
    Jack played so names no suit ("Special ranks")."""
    if left == 0 and call is not None:
        return True
    w = s.window
    return w is not None and not s.hands[w.offender]


def _legal_play(s: State, seat: int) -> list[dict]:
    """The plays of ``seat`` on turn: in phase PLAY every playable card of
    the hand, in phase DRAWN the card just drawn.  A play that owes an
    announcement is listed with and without it; a Jack once per suit, or
    without a suit when its play ends the round (see :func:`_ends_round`)."""
    if seat != s.turn:
        return []
    phase = s.phase
    hand = s.hands[seat]
    left = len(hand) - 1
    out: list[dict] = []
    w = s.window
    over = w is not None and not s.hands[w.offender]  # any play ends the round
    if phase is PLAY:
        ok = playable_set(s)
        if left > 1 and s.rules.decks == 1 and not over:  # fast path: no announcement owed, no twin cards
            for c in hand:
                if c in ok:
                    if c in JACKS:
                        out += [{"type": "play", "card": c, "suit": x} for x in SUITS]
                    else:
                        out.append({"type": "play", "card": c})
        else:
            for c in dict.fromkeys(c for c in hand if c in ok):
                _play_actions(out, c, left, over)
    elif phase is DRAWN:
        drawn = s.drawn
        assert drawn is not None  # set with the DRAWN phase
        _play_actions(out, drawn, left, over)
    return out


def _play_actions(out: list[dict], card: str, left: int, over: bool) -> None:
    """Append the play actions of ``card`` (with and without the owed
    announcement; a Jack once per suit, but without a suit when its play
    ends the round: ``over``, or its last card with "maumau")."""
    call = expected_call(left)
    if RANK[card] == JACK:
        if over:
            out.append({"type": "play", "card": card})
            if call:
                out.append({"type": "play", "card": card, "announce": call})
        elif call == MAUMAU:  # without "maumau" the round goes on: the wish is owed
            out += [{"type": "play", "card": card, "suit": suit} for suit in SUITS]
            out.append({"type": "play", "card": card, "announce": call})
        else:
            for suit in SUITS:
                out.append({"type": "play", "card": card, "suit": suit})
                if call:
                    out.append({"type": "play", "card": card, "suit": suit, "announce": call})
    else:
        out.append({"type": "play", "card": card})
        if call:
            out.append({"type": "play", "card": card, "announce": call})


def _decide_draw(s: State, seat: int, a: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """Draw one card when nothing is playable ("Play"), or take the whole
    7 penalty, losing the turn ("Special ranks")."""
    if s.phase is WISH:
        raise IllegalAction(SUIT_WISH_PENDING, "the dealer must first name the suit for the Jack turned up")
    if s.phase is DRAWN:
        raise IllegalAction(PLAY_OR_KEEP, "after drawing you may only play the card you drew, or keep it")
    if s.penalty:
        events = _draws(s, [(seat, s.penalty, "penalty")], rng)
        return _turn_over(s, events, rng, idle=not events[-1].data["cards"])
    ok = PLAYABLE_WISHED[s.wish] if s.wish else PLAYABLE_ON[s.discard[-1]]
    for c in s.hands[seat]:
        if c in ok:
            raise IllegalAction(HAS_PLAYABLE_CARD, "you may draw only when you hold no playable card")
    talon = s.talon
    if talon:
        card: str | None = talon[-1]
        events = [Event("CardsDrawn", {"cards": [card], "reason": "draw"}, seat)]
    else:
        events = _draws(s, [(seat, 1, "draw")], rng)
        got = events[-1].data["cards"]
        card = got[0] if got else None
    if card is not None and card in ok:
        return events  # play it or keep it: the turn goes on
    return _turn_over(s, events, rng, idle=card is None)



def _legal_draw(s: State, seat: int) -> list[dict]:
    """``draw`` for ``seat`` on turn in phase PLAY facing a 7 penalty or
    holding no playable card."""
    if seat != s.turn or s.phase is not PLAY:
        return []
    if s.penalty or playable_set(s).isdisjoint(s.hands[seat]):
        return [{"type": "draw"}]
    return []


def _decide_keep(s: State, seat: int, a: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """Keep the playable card just drawn; the turn ends ("Play")."""
    if s.phase is WISH:
        raise IllegalAction(SUIT_WISH_PENDING, "the dealer must first name the suit for the Jack turned up")
    if s.phase is not DRAWN:
        raise IllegalAction(NOTHING_TO_KEEP, "you keep a card only right after drawing a playable one")
    return _turn_over(s, [Event("DrawnCardKept", {}, seat)], rng, idle=False)


def _legal_keep(s: State, seat: int) -> list[dict]:
    """``keep`` for ``seat`` on turn right after drawing a playable card."""
    if seat != s.turn or s.phase is not DRAWN:
        return []
    return [{"type": "keep"}]


def _decide_wish(s: State, seat: int, a: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """The dealer names the suit of a first upcard Jack ("First upcard")."""
    if s.phase is not WISH:
        raise IllegalAction(NO_WISH_PENDING, "a suit is named with the play of a Jack ('suit' on the play)")
    suit = a.get("suit")
    if suit not in _SUIT_SET:
        raise IllegalAction(BAD_ACTION, "'suit' is one of S, H, D, C")
    return [Event("SuitWished", {"suit": suit}, seat)]


def _legal_wish(s: State, seat: int) -> list[dict]:
    """One ``wish`` per suit for the dealer facing a first upcard Jack."""
    if seat != s.turn or s.phase is not WISH:
        return []
    return [{"type": "wish", "suit": x} for x in SUITS]


def _decide_callout(s: State, seat: int, a: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """Call out a missed "mau"/"maumau" ("Announcements and call-outs"):
    any other player of the round, out of turn, until the next player's
    turn is over; the offender draws 2."""
    target = a.get("seat")
    if type(target) is not int or not 0 <= target < s.players:
        raise IllegalAction(BAD_ACTION, "a call-out names the offender's 'seat'")
    if type(seat) is not int or not 0 <= seat < s.players or s.left[seat] is None:
        raise IllegalAction(NOT_YOUR_TURN, "only players of this round may call out")
    if target == seat:
        raise IllegalAction(CANNOT_CALL_OUT_YOURSELF, "you cannot call out your own announcement")
    w = s.window
    if w is None or w.offender != target:
        if s.lapsed == target:
            raise IllegalAction(CALLOUT_WINDOW_CLOSED, "too late: the next player's turn is over")
        raise IllegalAction(NOTHING_TO_CALL, "that player has no missed announcement to call out")
    events = [Event("CalledOut", {"offender": target, "missed": w.missed.value}, seat)]
    events += _draws(s, [(target, CALLOUT_PENALTY, "callout")], rng)
    if not s.hands[target] and not events[-1].data["cards"]:
        return _end_round(s, events, target, rng)  # nothing to draw: out after all
    return events


def _legal_callout(s: State, seat: int) -> list[dict]:
    """The call-out of the open window's offender, for every other seat of
    the round (on turn or not)."""
    w = s.window
    if w is not None and seat != w.offender and 0 <= seat < s.players and s.left[seat] is not None:
        return [{"type": "callout", "seat": w.offender}]
    return []


#: The handlers of each action type, in the order ``legal_actions`` lists them.
ACTIONS: dict[str, ActionRule] = {
    "play": ActionRule(_decide_play, _legal_play, {"card": str, "suit": (str, None), "announce": (str, None)}),
    "draw": ActionRule(_decide_draw, _legal_draw),
    "keep": ActionRule(_decide_keep, _legal_keep),
    "wish": ActionRule(_decide_wish, _legal_wish, {"suit": str}),
    "callout": ActionRule(_decide_callout, _legal_callout, {"seat": int}),
}
ACTION_TYPES = tuple(ACTIONS)
#: The types only the seat on turn may send (``decide`` checks the turn
#: for them before their handler runs): all but the call-out.
ON_TURN_TYPES = frozenset(ACTIONS) - {"callout"}

#: The action types open to the seat on turn in each phase, in listing order
#: (a call-out, open to the other seats of the round too, comes last).
OPEN: dict[Phase, tuple[str, ...]] = {
    Phase.WISH: ("wish", "callout"),
    Phase.PLAY: ("play", "draw", "callout"),
    Phase.DRAWN: ("play", "keep", "callout"),
    Phase.OVER: (),
}
#: The action types open to a seat not on turn.
OFF_TURN: tuple[str, ...] = ("callout",)
#: Their ``legal`` handlers (what legal_actions walks).
LISTERS = listers(ACTIONS, OPEN)
OFF_TURN_LISTERS = listers(ACTIONS, {None: OFF_TURN})[None]
#: Action type -> its ``decide`` handler (what ``decide`` calls).
DECIDERS = {kind: rule.decide for kind, rule in ACTIONS.items()}

# ---------------------------------------------------------------------------
# decide and legal_actions
# ---------------------------------------------------------------------------


def decide(s: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
    """Validate one action of ``seat`` and return its events; never
    mutates ``s``.  Raises :class:`IllegalAction`: ``game_over``,
    ``bad_action`` (not an object, unknown type), ``not_your_turn`` (every
    action but the call-out), then the action's fields (``bad_action``)
    and the rule codes listed in :data:`CODES` (see each action's rule)."""
    if s.phase is OVER:
        raise IllegalAction(GAME_OVER, "the game is over")
    if type(action) is not dict and not isinstance(action, Mapping):
        return dispatch(ACTIONS, s, seat, action, rng)  # refuses it (bad_action)
    kind = action.get("type")
    if seat != s.turn and kind in ON_TURN_TYPES:
        raise IllegalAction(NOT_YOUR_TURN, "it is not your turn")
    decider = DECIDERS.get(kind) if type(kind) is str else None
    if decider is None:
        return dispatch(ACTIONS, s, seat, action, rng)  # refuses it (bad_action, naming the types)
    return decider(s, seat, action, rng)


def legal_actions(s: State, seat: int) -> list[dict]:
    """Every action ``seat`` may send now, in the shape ``decide`` takes
    (empty when the seat is not awaited): the types :data:`OPEN` in the
    phase for the seat on turn, the call-out for the others."""
    if seat != s.turn:
        return listing(OFF_TURN_LISTERS, s, seat)
    if s.phase is PLAY:
        # The fast path of listing(LISTERS[Phase.PLAY], s, seat), the same
        # list: a draw is open facing a 7 penalty or with no playable card,
        # which the plays just listed tell (the listing would look twice).
        out = _legal_play(s, seat)
        if s.penalty or not out:
            out.append({"type": "draw"})
        w = s.window
        if w is not None:
            out += _legal_callout(s, seat)
        return out
    return listing(LISTERS[s.phase], s, seat)


# ---------------------------------------------------------------------------
# The game
# ---------------------------------------------------------------------------


class MauMau(BaseGame):
    """The Mau Mau decider (docs/architecture.md, "The game contract"):
    binds :func:`start`, :func:`decide` and :func:`legal_actions` (here),
    ``evolve``, ``awaiting``, ``to_act``, ``is_over`` and the snapshot
    codec (:mod:`~shared.games.maumau.state`), ``view`` and ``redact``
    (:mod:`~shared.games.maumau.views`), ``result``
    (:mod:`~shared.games.maumau.scoring`).

    Actions (every one a dict; ``legal_actions`` lists them exactly):

    * ``{"type": "play", "card": "7H"}``, plus ``"suit": "S"`` for a Jack
      (the wish; none, or ignored, when the play ends the round) and
      ``"announce": "mau" | "maumau"`` for the play that leaves one card /
      no card;
    * ``{"type": "draw"}``: draw one card (only without a playable card), or
      take the whole pending 7 penalty;
    * ``{"type": "keep"}``: keep the card just drawn (turn over);
    * ``{"type": "wish", "suit": "H"}``: the dealer names the suit of a first
      upcard Jack;
    * ``{"type": "callout", "seat": 2}``: out of turn, call out seat 2's
      missed announcement (it draws 2).

    Events: ``GameStarted`` (options, players, decks and the first deal),
    ``RoundDealt``, ``SuitWished``, ``CardPlayed``, ``CardsDrawn``,
    ``TalonReshuffled``, ``DrawnCardKept``, ``CalledOut``, ``RoundScored``,
    ``GameEnded``.
    """

    name = "maumau"
    title = "Mau Mau"
    summary = SUMMARY
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    Options = Options
    actions = ACTIONS

    start = staticmethod(start)
    decide = staticmethod(decide)
    legal_actions = staticmethod(legal_actions)
    evolve = staticmethod(evolve)
    awaiting = staticmethod(state.awaiting)
    to_act = staticmethod(state.to_act)
    is_over = staticmethod(state.is_over)
    snapshot = staticmethod(state.snapshot)
    restore = staticmethod(state.restore)
    view = staticmethod(views.view)
    redact = staticmethod(views.redact)
    result = staticmethod(scoring.result)
