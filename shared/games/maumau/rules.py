"""Mau Mau, a shedding game for 2–12 players (docs/games/maumau.md).

The rules as implemented (section names are those of the publisher's
French rules, which are not in this repository: docs/architecture.md,
"Game rules"; "R" marks a ruling, "T" a choice of ours, both listed in
docs/games/maumau.md):

Deck and deal (*Jeu de cartes*, *Mise en place*, *Joueurs*).  One 52-card
French deck up to 6 players, two mixed decks (two of every card) from 7
(R); option: the 32-card Skat deck (7 to ace).  Every seat is dealt
``hand_size`` cards (5; option, 7 is common) one at a time from the
dealer's left; the next card is turned up to start the discard pile, the
rest is the face-down talon.  The player left of the dealer plays first.
The first dealer is drawn at random and the deal passes left (T).

Play (*Déroulement du jeu*).  On your turn play one card matching the rank
or the suit of the discard's top card, or draw one card from the talon if
(and only if) you hold no playable card (R).  A drawn card that can be
played may be played at once or kept; otherwise the turn ends.

Special ranks (*Quatre rangs spéciaux*, restored by R).

* 7: the next player draws 2 and loses the turn, unless they play a 7
  themselves, which passes the penalty on, grown by 2 (4, 6, ...).  Facing a
  penalty a player may only play a 7 or take the whole penalty (R).
  Option ``seven_stack_cap``: the most 7s one chain may hold.
* Jack: wild, playable on anything (a Jack included) except on a pending 7
  penalty; its player names any suit (the "wish"), which the next card must
  follow (or be a Jack).
* 8: the next player's turn is skipped (with 2 players the same player
  plays again).
* Ace: no power by default; option ``ace_power``: ``draw`` (every other
  player draws 1) or ``skip`` (every other player is skipped once around:
  the player of the ace plays again).

First upcard (*Mise en place*, R).  A Jack: the dealer names the suit
before anyone plays (the dealer is awaited with a ``wish`` action).  A 7 or
an 8 acts on the first player as if the dealer had played it.  An ace has
no effect (T).

Announcements (*Annoncer « Mau »*, *Pénalité pour annonce oubliée*, R).
"Mau" goes with the play that leaves one card, "Mau Mau" with the play of
the last card (the ``announce`` field of the play).  A missed call can be
called out by any other player of the round until the next player's turn
is over; the offender draws 2.  A last card played without "Mau Mau" does
not end the round: if nobody calls it out before the window closes, the
offender is out then.  While such an offender waits with an empty hand,
turns pass over them (T).

Talon (*Reconstitution du talon*, R).  When the talon cannot cover a draw,
the discard pile except its top card is shuffled under what remains of the
talon; if still short, the player draws what there is.  When nobody can
play or draw for a whole turn of the table the round is blocked (T):
everybody scores their hand.

Scoring (*Décompte des points*, *Victoire*).  The player who goes out
scores 0; every other player scores the cards left in hand: A K Q J = 10,
others face value.  Rounds are played until a total reaches
``target_score`` (100); the lowest total wins.  If several players share
the lowest total they alone play a decider round (R); its points only rank
them (T) and do not change the totals.

Everything random (shuffles, the first dealer) happens in ``start`` and
``decide`` and is written into the events; ``evolve`` only applies them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from enum import Enum, StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from shared.cards import ACE, JACK, RANK, SUIT, SUITS, deck32, deck52, shoe
from shared.engine import BAD_ACTION, GAME_OVER, NOT_YOUR_TURN, BaseGame, IllegalAction, Result, places_from
from shared.events import Event

# ---------------------------------------------------------------------------
# Constants and lookup tables (built once)
# ---------------------------------------------------------------------------

SEVEN, EIGHT = 7, 8
MIN_PLAYERS, MAX_PLAYERS = 2, 12
#: Penalty cards per 7 in a chain, and for a missed announcement.
SEVEN_PENALTY = 2
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

#: Announcement words, as sent in a play's ``announce`` field.
MAU, MAUMAU = "mau", "maumau"
_SUIT_SET = frozenset(SUITS)

#: Penalty points of a card left in hand (*Décompte des points*).
POINTS: dict[str, int] = {c: (10 if r >= JACK else r) for c, r in RANK.items()}

#: Cards playable on a top card when no suit is wished: same suit, same rank, or a Jack.
PLAYABLE_ON: dict[str, frozenset[str]] = {
    top: frozenset(c for c in RANK if RANK[c] == JACK or SUIT[c] == SUIT[top] or RANK[c] == RANK[top])
    for top in RANK
}
#: Cards playable under a suit wish: that suit, or a Jack.
PLAYABLE_WISHED: dict[str, frozenset[str]] = {
    s: frozenset(c for c in RANK if SUIT[c] == s or RANK[c] == JACK) for s in SUITS
}
SEVENS: frozenset[str] = frozenset(c for c in RANK if RANK[c] == SEVEN)
JACKS: frozenset[str] = frozenset(c for c in RANK if RANK[c] == JACK)
_NOTHING: frozenset[str] = frozenset()

DECK_SIZE = {False: len(deck52()), True: len(deck32())}


def card_points(card: str) -> int:
    """Penalty points of one card: A K Q J = 10, others face value."""
    return POINTS[card]


def hand_points(hand: list[str] | tuple[str, ...]) -> int:
    """Penalty points of a hand (*Décompte des points*)."""
    return sum(POINTS[c] for c in hand)


# ---------------------------------------------------------------------------
# Options
# ---------------------------------------------------------------------------


class AcePower(StrEnum):
    """The optional power of the ace (*Variantes courantes*: Pouvoir de l'As)."""

    NONE = "none"
    DRAW = "draw"  # every other player draws 1
    SKIP = "skip"  # every other player is skipped once around


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


# ---------------------------------------------------------------------------
# State
# ---------------------------------------------------------------------------


class Phase(Enum):
    """What the player on turn is asked for."""

    WISH = "wish"  # the dealer names a suit for a first upcard Jack
    PLAY = "play"  # play a card or draw (or take a 7 penalty)
    DRAWN = "drawn"  # play the card just drawn, or keep it
    OVER = "over"  # the game is over


class Call(Enum):
    """The announcement a player missed."""

    MAU = MAU
    MAUMAU = MAUMAU


@dataclass(slots=True)
class Rules:
    """Resolved table options, as plain values for the hot path."""

    hand_size: int
    skat_deck: bool
    decks: int
    ace_power: AcePower
    seven_stack_cap: int | None
    target_score: int


@dataclass(slots=True)
class Window:
    """An open call-out window: ``offender`` missed ``missed``."""

    offender: int
    missed: Call


@dataclass(slots=True)
class State:
    """The whole truth of a Mau Mau table (the views are projections of it).

    ``talon[-1]`` is the talon's top card, ``discard[-1]`` the discard's.
    ``left[s]`` is the next seat of the round after ``s`` (None for a seat
    that sits out a decider round).  ``penalty`` is the number of cards the
    player on turn must draw for a chain of 7s (0: none).  ``idle`` counts
    consecutive turns that ended with nothing played nor drawn (for a
    blocked round).  ``rounds[r][s]`` is seat s's points in round r (None
    when not playing it); ``decider_points`` the same for the decider.
    """

    rules: Rules
    players: int
    round: int
    decider: bool
    dealer: int
    seats: tuple[int, ...]
    left: tuple[int | None, ...]
    hands: list[list[str]]
    talon: list[str]
    discard: list[str]
    phase: Phase
    turn: int
    wish: str | None
    penalty: int
    skipped: tuple[int, ...]
    drawn: str | None
    window: Window | None
    lapsed: int | None
    idle: int
    announced: list[str | None]
    rounds: list[list[int | None]]
    winners: list[int | None]
    totals: list[int]
    decider_points: list[int | None] | None


# ---------------------------------------------------------------------------
# Small pure helpers
# ---------------------------------------------------------------------------


def playable_set(s: State) -> frozenset[str]:
    """Cards the player on turn may play now (phase PLAY): 7s facing a
    penalty (none once the chain is capped), else cards matching the wish or
    the top card."""
    if s.penalty:
        cap = s.rules.seven_stack_cap
        return SEVENS if cap is None or s.penalty // SEVEN_PENALTY < cap else _NOTHING
    wish = s.wish
    return PLAYABLE_WISHED[wish] if wish else PLAYABLE_ON[s.discard[-1]]


def next_seat(s: State, seat: int) -> int:
    """The next seat of the round after ``seat`` that holds cards (a seat
    with an empty hand is waiting out its call-out window: passed over)."""
    left = s.left
    hands = s.hands
    nxt = left[seat]
    assert nxt is not None  # seat plays this round, so its left neighbour does too
    if hands[nxt]:
        return nxt
    for _ in s.seats:
        nxt = left[nxt]
        assert nxt is not None
        if hands[nxt]:
            return nxt
    return nxt


def expected_call(cards_left: int) -> str | None:
    """The announcement owed by a play that leaves ``cards_left`` cards."""
    return MAU if cards_left == 1 else MAUMAU if cards_left == 0 else None


def final_places(totals: list[int], decider_points: list[int | None] | None) -> tuple[int, ...]:
    """Places by total (lower first); a decider round's points break the tie
    among the players who played it."""
    if decider_points is None:
        return places_from(totals, lower_wins=True)
    return places_from([(t, d or 0) for t, d in zip(totals, decider_points, strict=True)], lower_wins=True)


def _deal(
    rules: Rules, players: int, seats: tuple[int, ...], dealer: int, round_no: int, decider: bool, rng: random.Random
) -> dict:
    """Shuffle and deal one round (*Mise en place*): one card at a time
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


def _redact_deal(deal: dict, seat: int | None) -> dict:
    """A deal as ``seat`` may see it: its own hand, the others' sizes, the
    talon's size (never its cards nor their order)."""
    hands = deal["hands"]
    out = {k: v for k, v in deal.items() if k not in ("hands", "talon")}
    out["hands"] = [list(h) if i == seat else None for i, h in enumerate(hands)]
    out["hand_sizes"] = [len(h) for h in hands]
    out["talon_size"] = len(deal["talon"])
    return out


# ---------------------------------------------------------------------------
# The game
# ---------------------------------------------------------------------------

ACTION_TYPES = ("play", "draw", "keep", "wish", "callout")
#: Version of the :meth:`MauMau.snapshot` layout.
SNAPSHOT_VERSION = 1


class MauMau(BaseGame):
    """The Mau Mau decider (docs/architecture.md, "The game contract").

    Actions (every one a dict; ``legal_actions`` lists them exactly):

    * ``{"type": "play", "card": "7H"}``, plus ``"suit": "S"`` for a Jack
      (the wish) and ``"announce": "mau" | "maumau"`` for the play that
      leaves one card / no card;
    * ``{"type": "draw"}``: draw one card (only without a playable card), or
      take the whole pending 7 penalty;
    * ``{"type": "keep"}``: keep the card just drawn (turn over);
    * ``{"type": "wish", "suit": "H"}``: the dealer names the suit of a first
      upcard Jack;
    * ``{"type": "callout", "seat": 2}``: out of turn, call out seat 2's
      missed announcement (it draws 2).

    Events: ``GameStarted`` (options, players, decks and the first deal),
    ``RoundDealt``, ``SuitWished``, ``CardPlayed``, ``Drawn``,
    ``TalonReshuffled``, ``DrawnCardKept``, ``CalledOut``, ``RoundEnded``,
    ``GameEnded``.
    """

    name = "maumau"
    title = "Mau Mau"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    Options = Options

    def __init__(self) -> None:
        self._apply: dict[str, Callable[[State, Event], State]] = {
            "GameStarted": self._on_started,
            "RoundDealt": self._on_dealt,
            "SuitWished": self._on_wished,
            "CardPlayed": self._on_played,
            "Drawn": self._on_drawn,
            "TalonReshuffled": self._on_reshuffled,
            "DrawnCardKept": self._on_kept,
            "CalledOut": self._on_called_out,
            "RoundEnded": self._on_round_ended,
            "GameEnded": self._on_game_ended,
        }
        self._decide = {
            "play": self._decide_play,
            "draw": self._decide_draw,
            "keep": self._decide_keep,
            "wish": self._decide_wish,
        }

    # -- start -------------------------------------------------------------

    def start(self, options: BaseModel | Mapping[str, Any], players: int, rng: random.Random) -> list[Event]:
        """Opening events: one ``GameStarted`` holding the options (as a
        dict), the player count, the resolved number of decks and the first
        deal (random first dealer).  Raises ``ValueError`` for a player count
        outside 2..12 or options that cannot deal every hand."""
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(f"Mau Mau seats 2 to 12 players, not {players}")
        opts = options if isinstance(options, Options) else Options.model_validate(dict(options or {}))
        decks = resolve_decks(opts, players)
        rules = _rules(opts.model_dump(mode="json"), decks)
        seats = tuple(range(players))
        dealer = rng.randrange(players)
        deal = _deal(rules, players, seats, dealer, 1, False, rng)
        data = {"options": opts.model_dump(mode="json"), "players": players, "decks": decks, "deal": deal}
        return [Event("GameStarted", data)]

    # -- who may act -------------------------------------------------------

    def awaiting(self, state: State) -> frozenset[int]:
        """The player on turn, plus every other seat of the round while a
        call-out window is open (they may call it out)."""
        if state.phase is Phase.OVER:
            return frozenset()
        w = state.window
        if w is None:
            return frozenset((state.turn,))
        return frozenset(x for x in state.seats if x != w.offender or x == state.turn)

    def to_act(self, state: State) -> frozenset[int]:
        """The player on turn only: a call-out is optional."""
        if state.phase is Phase.OVER:
            return frozenset()
        return frozenset((state.turn,))

    def legal_actions(self, state: State, seat: int) -> list[dict]:
        """Every action ``seat`` may send now, in the shape ``decide`` takes
        (empty when the seat is not awaited).  Plays that owe an
        announcement are listed with and without it (forgetting is legal,
        and punishable); a Jack is listed once per suit."""
        s = state
        phase = s.phase
        if phase is Phase.OVER:
            return []
        out: list[dict] = []
        if seat == s.turn:
            hand = s.hands[seat]
            left = len(hand) - 1
            if phase is Phase.PLAY:
                ok = playable_set(s)
                if left > 1 and s.rules.decks == 1:  # fast path: no announcement owed, no twin cards
                    for c in hand:
                        if c in ok:
                            if c in JACKS:
                                out += [{"type": "play", "card": c, "suit": x} for x in SUITS]
                            else:
                                out.append({"type": "play", "card": c})
                else:
                    for c in dict.fromkeys(c for c in hand if c in ok):
                        _play_actions(out, c, left)
                if s.penalty or not out:
                    out.append({"type": "draw"})
            elif phase is Phase.DRAWN:
                drawn = s.drawn
                assert drawn is not None  # set with the DRAWN phase
                _play_actions(out, drawn, left)
                out.append({"type": "keep"})
            else:
                out = [{"type": "wish", "suit": x} for x in SUITS]
        w = s.window
        if w is not None and seat != w.offender and 0 <= seat < s.players and s.left[seat] is not None:
            out.append({"type": "callout", "seat": w.offender})
        return out

    # -- decide ------------------------------------------------------------

    def decide(self, state: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> list[Event]:
        """Validate one action of ``seat`` and return its events; never
        mutates ``state``.  Raises :class:`IllegalAction`: ``game_over``,
        ``bad_action`` (malformed), ``not_your_turn``, then the rule codes
        listed in :data:`CODES` (see each action's rule)."""
        s = state
        if s.phase is Phase.OVER:
            raise IllegalAction(GAME_OVER, "the game is over")
        if type(action) is not dict and not isinstance(action, Mapping):
            raise IllegalAction(BAD_ACTION, "an action is a JSON object with a 'type'")
        kind = action.get("type")
        if kind == "callout":
            return self._decide_callout(s, seat, action, rng)
        # kind is any JSON value or None, and dict.get() of a non-str key is just None (typeshed wants a str)
        handler = self._decide.get(kind)  # type: ignore[arg-type]
        if handler is None:
            raise IllegalAction(BAD_ACTION, f"unknown action type {kind!r}; expected one of {', '.join(ACTION_TYPES)}")
        if seat != s.turn:
            raise IllegalAction(NOT_YOUR_TURN, "it is not your turn")
        return handler(s, seat, action, rng)

    def _decide_play(self, s: State, seat: int, a: Mapping[str, Any], rng: random.Random) -> list[Event]:
        """Play a card (*Assortir pour jouer*, special ranks, announcements)."""
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
        if phase is Phase.WISH:
            raise IllegalAction(SUIT_WISH_PENDING, "the dealer must first name the suit for the Jack turned up")
        hand = s.hands[seat]
        if card not in hand:
            raise IllegalAction(CARD_NOT_IN_HAND, "you do not hold that card")
        if phase is Phase.DRAWN:
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
        if rank == JACK:
            if suit is None:
                raise IllegalAction(SUIT_WISH_REQUIRED, "a Jack names the suit to follow: add 'suit'")
        elif suit is not None:
            raise IllegalAction(BAD_ACTION, "only a Jack names a suit")
        left = len(hand) - 1
        if call is not None and call != expected_call(left):
            raise IllegalAction(
                BAD_ANNOUNCEMENT, "say 'mau' with the play that leaves one card, 'maumau' with your last card"
            )
        events = [Event("CardPlayed", {"card": card, "suit": suit, "announce": call}, seat)]
        if left == 0 and call is not None:  # "Mau Mau": out at once
            return self._end_round(s, events, seat, rng)
        if rank == ACE and s.rules.ace_power is AcePower.DRAW:
            victims: list[tuple[int, int, str]] = []
            x = s.left[seat]
            while x != seat:
                assert x is not None  # the seats of the round make a ring
                if s.hands[x]:
                    victims.append((x, 1, "ace"))
                x = s.left[x]
            # the played ace will be the top card: everything below it may be reshuffled
            events += self._draws(s, victims, rng, whole_discard=True)
        w = s.window  # the turn is over: an offender with no card left is out
        if w is not None and not s.hands[w.offender]:
            return self._end_round(s, events, w.offender, rng)
        return events

    def _decide_draw(self, s: State, seat: int, a: Mapping[str, Any], rng: random.Random) -> list[Event]:
        """Draw one card when nothing is playable (*Piocher en cas de
        blocage*), or take the whole 7 penalty (losing the turn)."""
        if s.phase is Phase.WISH:
            raise IllegalAction(SUIT_WISH_PENDING, "the dealer must first name the suit for the Jack turned up")
        if s.phase is Phase.DRAWN:
            raise IllegalAction(PLAY_OR_KEEP, "after drawing you may only play the card you drew, or keep it")
        if s.penalty:
            events = self._draws(s, [(seat, s.penalty, "penalty")], rng)
            return self._turn_over(s, events, rng, idle=not events[-1].data["cards"])
        ok = PLAYABLE_WISHED[s.wish] if s.wish else PLAYABLE_ON[s.discard[-1]]
        for c in s.hands[seat]:
            if c in ok:
                raise IllegalAction(HAS_PLAYABLE_CARD, "you may draw only when you hold no playable card")
        talon = s.talon
        if talon:
            card: str | None = talon[-1]
            events = [Event("Drawn", {"cards": [card], "reason": "draw"}, seat)]
        else:
            events = self._draws(s, [(seat, 1, "draw")], rng)
            got = events[-1].data["cards"]
            card = got[0] if got else None
        if card is not None and card in ok:
            return events  # play it or keep it: the turn goes on
        return self._turn_over(s, events, rng, idle=card is None)

    def _decide_keep(self, s: State, seat: int, a: Mapping[str, Any], rng: random.Random) -> list[Event]:
        """Keep the playable card just drawn; the turn ends."""
        if s.phase is Phase.WISH:
            raise IllegalAction(SUIT_WISH_PENDING, "the dealer must first name the suit for the Jack turned up")
        if s.phase is not Phase.DRAWN:
            raise IllegalAction(NOTHING_TO_KEEP, "you keep a card only right after drawing a playable one")
        return self._turn_over(s, [Event("DrawnCardKept", {}, seat)], rng, idle=False)

    def _decide_wish(self, s: State, seat: int, a: Mapping[str, Any], rng: random.Random) -> list[Event]:
        """The dealer names the suit of a first upcard Jack (*Mise en place*)."""
        if s.phase is not Phase.WISH:
            raise IllegalAction(NO_WISH_PENDING, "a suit is named with the play of a Jack ('suit' on the play)")
        suit = a.get("suit")
        if suit not in _SUIT_SET:
            raise IllegalAction(BAD_ACTION, "'suit' is one of S, H, D, C")
        return [Event("SuitWished", {"suit": suit}, seat)]

    def _decide_callout(self, s: State, seat: int, a: Mapping[str, Any], rng: random.Random) -> list[Event]:
        """Call out a missed "Mau"/"Mau Mau" (*Pénalité pour annonce
        oubliée*): any other player of the round, out of turn, until the
        next player's turn is over; the offender draws 2."""
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
        events += self._draws(s, [(target, CALLOUT_PENALTY, "callout")], rng)
        if not s.hands[target] and not events[-1].data["cards"]:
            return self._end_round(s, events, target, rng)  # nothing to draw: out after all
        return events

    # -- decide helpers ----------------------------------------------------

    def _turn_over(self, s: State, events: list[Event], rng: random.Random, *, idle: bool) -> list[Event]:
        """Events of an action that ends the turn, plus the round's end when
        it closes the window of an offender who has no card left (out), or
        when nobody could play nor draw for a whole turn of the table."""
        w = s.window
        if w is not None and not s.hands[w.offender]:
            return self._end_round(s, events, w.offender, rng)
        if idle and s.idle >= len(s.seats):
            return self._end_round(s, events, None, rng)
        return events

    def _draws(
        self, s: State, draws: list[tuple[int, int, str]], rng: random.Random, *, whole_discard: bool = False
    ) -> list[Event]:
        """``Drawn`` events for ``(seat, count, reason)`` draws in order, with
        a ``TalonReshuffled`` when the talon cannot cover a draw: the discard
        except its top (``whole_discard``: the card being played will be the
        top) is shuffled under the rest of the talon; still short, the seat
        draws what there is (*Reconstitution du talon*)."""
        talon = s.talon
        if sum(n for _, n, _ in draws) <= len(talon):
            events = []
            i = len(talon)
            for seat, n, reason in draws:
                events.append(Event("Drawn", {"cards": talon[i - n : i][::-1], "reason": reason}, seat))
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
            events.append(Event("Drawn", {"cards": got, "reason": reason}, seat))
        return events

    def _end_round(self, s: State, events: list[Event], winner: int | None, rng: random.Random) -> list[Event]:
        """Append the round's scoring (*Décompte des points*) and what comes
        next: the next deal (passing left), a decider round among the players
        tied for the lowest total, or the game's end."""
        scratch = _clone(s)
        for e in events:
            scratch = self.evolve(scratch, e)
        n = s.players
        points: list[int | None] = [None] * n
        for x in s.seats:
            points[x] = 0 if x == winner else hand_points(scratch.hands[x])
        events.append(Event("RoundEnded", {"round": s.round, "decider": s.decider, "winner": winner, "points": points}))
        if s.decider:
            events.append(_game_ended(s.totals, points))
            return events
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

    # -- evolve ------------------------------------------------------------

    def evolve(self, state: State | None, event: Event) -> State:
        """Apply one event (pure: no randomness, no clock); mutates and
        returns ``state`` (``None`` before ``GameStarted``)."""
        if state is None:
            return self._on_started(state, event)
        return self._apply[event.type](state, event)

    def _on_started(self, s: State | None, e: Event) -> State:
        d = e.data
        n = d["players"]
        state = State(
            rules=_rules(d["options"], d["decks"]),
            players=n,
            round=0,
            decider=False,
            dealer=0,
            seats=(),
            left=(),
            hands=[],
            talon=[],
            discard=[],
            phase=Phase.PLAY,
            turn=0,
            wish=None,
            penalty=0,
            skipped=(),
            drawn=None,
            window=None,
            lapsed=None,
            idle=0,
            announced=[None] * n,
            rounds=[],
            winners=[],
            totals=[0] * n,
            decider_points=None,
        )
        return self._deal_into(state, d["deal"])

    def _on_dealt(self, s: State, e: Event) -> State:
        return self._deal_into(s, e.data)

    @staticmethod
    def _deal_into(s: State, d: dict) -> State:
        """A new round: hands, upcard, talon, and the first upcard's effect."""
        n = s.players
        s.round = d["round"]
        s.decider = d["decider"]
        dealer = s.dealer = d["dealer"]
        seats = s.seats = tuple(d["seats"])
        left: list[int | None] = [None] * n
        for i, x in enumerate(seats):
            left[x] = seats[(i + 1) % len(seats)]
        s.left = tuple(left)
        s.hands = [list(h) for h in d["hands"]]
        s.talon = list(d["talon"])
        up = d["upcard"]
        s.discard = [up]
        s.wish = None
        s.penalty = 0
        s.skipped = ()
        s.drawn = None
        s.window = None
        s.lapsed = None
        s.idle = 0
        s.announced = [None] * n
        s.phase = Phase.PLAY
        first = next_seat(s, dealer)
        rank = RANK[up]
        if rank == JACK:  # the dealer names the suit
            s.phase = Phase.WISH
            s.turn = dealer
        elif rank == SEVEN:  # as if the dealer had played it
            s.penalty = SEVEN_PENALTY
            s.turn = first
        elif rank == EIGHT:
            s.skipped = (first,)
            s.turn = next_seat(s, first)
        else:
            s.turn = first
        return s

    @staticmethod
    def _on_wished(s: State, e: Event) -> State:
        s.wish = e.data["suit"]
        s.phase = Phase.PLAY
        s.turn = next_seat(s, s.dealer)
        return s

    def _on_played(self, s: State, e: Event) -> State:
        d = e.data
        seat = e.seat
        assert seat is not None  # played by a seat
        card = d["card"]
        hand = s.hands[seat]
        hand.remove(card)
        s.discard.append(card)
        s.announced[seat] = d["announce"]
        s.idle = 0
        rank = RANK[card]
        if rank == JACK:
            s.wish = d["suit"]
        else:
            s.wish = None
            if rank == SEVEN:
                s.penalty += SEVEN_PENALTY
        _pass_turn(s, seat, rank)
        if len(hand) <= 1 and d["announce"] is None:
            s.window = Window(seat, Call.MAU if hand else Call.MAUMAU)
        return s

    @staticmethod
    def _on_drawn(s: State, e: Event) -> State:
        d = e.data
        seat = e.seat
        assert seat is not None  # drawn by a seat
        cards = d["cards"]
        k = len(cards)
        if k:
            del s.talon[-k:]
            s.hands[seat].extend(cards)
        s.announced[seat] = None
        reason = d["reason"]
        if reason == "draw":
            if k and cards[0] in (PLAYABLE_WISHED[s.wish] if s.wish else PLAYABLE_ON[s.discard[-1]]):
                s.phase = Phase.DRAWN
                s.drawn = cards[0]
                s.idle = 0
            else:
                s.idle = 0 if k else s.idle + 1
                _pass_turn(s, seat, 0)
        elif reason == "penalty":
            s.penalty = 0
            s.idle = 0 if k else s.idle + 1
            _pass_turn(s, seat, 0)
        return s

    @staticmethod
    def _on_reshuffled(s: State, e: Event) -> State:
        s.talon = list(e.data["talon"])
        s.discard = s.discard[-1:]
        return s

    @staticmethod
    def _on_kept(s: State, e: Event) -> State:
        seat = e.seat
        assert seat is not None  # kept by a seat
        _pass_turn(s, seat, 0)
        return s

    @staticmethod
    def _on_called_out(s: State, e: Event) -> State:
        s.window = None
        s.lapsed = None
        return s

    @staticmethod
    def _on_round_ended(s: State, e: Event) -> State:
        d = e.data
        points = list(d["points"])
        s.window = None
        if d["decider"]:
            s.decider_points = points
        else:
            s.rounds.append(points)
            s.winners.append(d["winner"])
            s.totals = [t + (p or 0) for t, p in zip(s.totals, points, strict=True)]
        return s

    @staticmethod
    def _on_game_ended(s: State, e: Event) -> State:
        s.phase = Phase.OVER
        s.drawn = None
        return s

    # -- snapshots ---------------------------------------------------------

    def snapshot(self, state: State) -> dict:
        """msgpack-ready form of ``state``: one key per :class:`State` field
        (plain lists, strings and ints; enums by value).  Flat and about 5×
        faster than the generic :func:`shared.snapshot.dump`, which recurses
        into every card; :meth:`restore` is its inverse."""
        s = state
        r = s.rules
        w = s.window
        return {
            "v": SNAPSHOT_VERSION,
            "rules": [r.hand_size, r.skat_deck, r.decks, r.ace_power.value, r.seven_stack_cap, r.target_score],
            "players": s.players,
            "round": s.round,
            "decider": s.decider,
            "dealer": s.dealer,
            "seats": list(s.seats),
            "left": list(s.left),
            "hands": [list(h) for h in s.hands],
            "talon": list(s.talon),
            "discard": list(s.discard),
            "phase": s.phase.value,
            "turn": s.turn,
            "wish": s.wish,
            "penalty": s.penalty,
            "skipped": list(s.skipped),
            "drawn": s.drawn,
            "window": None if w is None else [w.offender, w.missed.value],
            "lapsed": s.lapsed,
            "idle": s.idle,
            "announced": list(s.announced),
            "rounds": [list(p) for p in s.rounds],
            "winners": list(s.winners),
            "totals": list(s.totals),
            "decider_points": None if s.decider_points is None else list(s.decider_points),
        }

    def restore(self, obj: Mapping[str, Any]) -> State:
        """Inverse of :meth:`snapshot`.  Raises ``ValueError`` for a
        snapshot of another version."""
        if obj.get("v") != SNAPSHOT_VERSION:
            raise ValueError(f"not a Mau Mau snapshot of version {SNAPSHOT_VERSION}")
        hand_size, skat, decks, ace, cap, target = obj["rules"]
        w = obj["window"]
        dp = obj["decider_points"]
        return State(
            rules=Rules(hand_size, skat, decks, AcePower(ace), cap, target),
            players=obj["players"],
            round=obj["round"],
            decider=obj["decider"],
            dealer=obj["dealer"],
            seats=tuple(obj["seats"]),
            left=tuple(obj["left"]),
            hands=[list(h) for h in obj["hands"]],
            talon=list(obj["talon"]),
            discard=list(obj["discard"]),
            phase=Phase(obj["phase"]),
            turn=obj["turn"],
            wish=obj["wish"],
            penalty=obj["penalty"],
            skipped=tuple(obj["skipped"]),
            drawn=obj["drawn"],
            window=None if w is None else Window(w[0], Call(w[1])),
            lapsed=obj["lapsed"],
            idle=obj["idle"],
            announced=list(obj["announced"]),
            rounds=[list(p) for p in obj["rounds"]],
            winners=list(obj["winners"]),
            totals=list(obj["totals"]),
            decider_points=None if dp is None else list(dp),
        )

    # -- projections -------------------------------------------------------

    def view(self, state: State, seat: int | None) -> dict:
        """What ``seat`` (None: a spectator) sees, JSON-ready: its own hand,
        every hand's size, the discard's top card, the wished suit, the
        pending 7 penalty, skipped seats, whose turn and the phase, the
        announcements and the open call-out window, the talon and discard
        sizes, the score sheet and, once over, the result.  Never another
        hand nor the talon's cards."""
        s = state
        hand = s.hands[seat] if seat is not None and 0 <= seat < s.players else None
        mine = hand is not None
        w = s.window
        over = s.phase is Phase.OVER
        res = self.result(s) if over else None
        return {
            "game": self.name,
            "seat": seat,
            "players": s.players,
            "round": s.round,
            "decider": s.decider,
            "dealer": s.dealer,
            "seats": list(s.seats),
            "phase": s.phase.value,
            "turn": None if over else s.turn,
            "awaiting": sorted(self.awaiting(s)),
            "hand": None if hand is None else list(hand),
            "hand_sizes": [len(h) for h in s.hands],
            "top": s.discard[-1],
            "wish": s.wish,
            "penalty": s.penalty,
            "sevens": s.penalty // SEVEN_PENALTY,
            "skipped": list(s.skipped),
            "drawn": s.drawn if mine and seat == s.turn else None,
            "talon_size": len(s.talon),
            "discard_size": len(s.discard),
            "announcements": list(s.announced),
            "callout": None if w is None else {"offender": w.offender, "missed": w.missed.value},
            "rounds": [list(p) for p in s.rounds],
            "round_winners": list(s.winners),
            "totals": list(s.totals),
            "decider_points": None if s.decider_points is None else list(s.decider_points),
            "target_score": s.rules.target_score,
            "options": _options_json(s.rules),
            "result": None if res is None else res.to_json(),
        }

    def redact(self, event: Event, seat: int | None) -> Event | None:
        """The event as ``seat`` may see it: a deal shows only that seat's
        hand (sizes for the others, the talon's size only); a ``Drawn``
        shows its cards only to the drawer (others see the count); a
        ``TalonReshuffled`` shows only the new talon's size, to everyone."""
        t = event.type
        d = event.data
        if t == "Drawn":
            if seat is not None and seat == event.seat:
                return event
            return Event(t, {"count": len(d["cards"]), "reason": d["reason"]}, event.seat, event.ts, event.cmd)
        if t == "TalonReshuffled":
            return Event(t, {"talon_size": len(d["talon"])}, event.seat, event.ts, event.cmd)
        if t == "RoundDealt":
            return Event(t, _redact_deal(d, seat), event.seat, event.ts, event.cmd)
        if t == "GameStarted":
            return Event(t, {**d, "deal": _redact_deal(d["deal"], seat)}, event.seat, event.ts, event.cmd)
        return event

    def is_over(self, state: State) -> bool:
        """True once the game is over (``result`` is not None)."""
        return state.phase is Phase.OVER

    def result(self, state: State) -> Result | None:
        """Totals (penalty points, lower wins) and places once the game is
        over; ``detail`` holds the per-round sheet, round winners and the
        decider round's points (None when there was none)."""
        s = state
        if s.phase is not Phase.OVER:
            return None
        return Result(
            scores=tuple(s.totals),
            places=final_places(s.totals, s.decider_points),
            lower_wins=True,
            detail={
                "rounds": [list(p) for p in s.rounds],
                "round_winners": list(s.winners),
                "decider_points": None if s.decider_points is None else list(s.decider_points),
                "target_score": s.rules.target_score,
            },
        )


# ---------------------------------------------------------------------------
# Module-level helpers used by the game
# ---------------------------------------------------------------------------


def _rules(options: Mapping[str, Any], decks: int) -> Rules:
    return Rules(
        hand_size=options["hand_size"],
        skat_deck=options["skat_deck"],
        decks=decks,
        ace_power=AcePower(options["ace_power"]),
        seven_stack_cap=options["seven_stack_cap"],
        target_score=options["target_score"],
    )


def _options_json(r: Rules) -> dict:
    return {
        "hand_size": r.hand_size,
        "skat_deck": r.skat_deck,
        "decks": r.decks,
        "ace_power": r.ace_power.value,
        "seven_stack_cap": r.seven_stack_cap,
        "target_score": r.target_score,
    }


def _play_actions(out: list[dict], card: str, left: int) -> None:
    """Append the play actions of ``card`` (with and without the owed
    announcement; one per suit for a Jack)."""
    call = expected_call(left)
    if RANK[card] == JACK:
        for suit in SUITS:
            out.append({"type": "play", "card": card, "suit": suit})
            if call:
                out.append({"type": "play", "card": card, "suit": suit, "announce": call})
    else:
        out.append({"type": "play", "card": card})
        if call:
            out.append({"type": "play", "card": card, "announce": call})


def _pass_turn(s: State, seat: int, rank: int) -> None:
    """End ``seat``'s turn: close any open call-out window (its "next
    player's turn" is over), then give the turn to the next player,
    skipping one for an 8 and everyone for a skip-ace."""
    w = s.window
    if w is not None:
        s.window = None
        s.lapsed = w.offender
    s.phase = Phase.PLAY
    s.drawn = None
    nxt = next_seat(s, seat)
    if rank == EIGHT:
        after = next_seat(s, nxt)
        s.skipped = (nxt,) if after != nxt else ()
        nxt = after
    elif rank == ACE and s.rules.ace_power is AcePower.SKIP and s.hands[seat]:
        s.skipped = tuple(x for x in s.seats if x != seat and s.hands[x])
        nxt = seat
    else:
        s.skipped = ()
    s.turn = nxt


def _clone(s: State) -> State:
    """A copy of ``s`` whose mutable parts ``evolve`` may change freely."""
    return replace(
        s,
        hands=[list(h) for h in s.hands],
        talon=list(s.talon),
        discard=list(s.discard),
        announced=list(s.announced),
        rounds=[list(p) for p in s.rounds],
        winners=list(s.winners),
        totals=list(s.totals),
    )


def _game_ended(totals: list[int], decider_points: list[int | None] | None) -> Event:
    places = final_places(totals, decider_points)
    return Event(
        "GameEnded",
        {"totals": list(totals), "places": list(places), "winners": [i for i, p in enumerate(places) if p == 1]},
    )
