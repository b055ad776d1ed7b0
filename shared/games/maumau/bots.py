"""Mau Mau bot strategies (issue 2, item 7).

A strategy is ``(view, legal_actions, rng) -> action | None``: it sees only
its seat's view and legal actions (never the state), and returns None only
to decline an optional call-out.

* ``random``: a uniformly random legal action; declines a call-out half of
  the time when a call-out is all it may do.
* ``heuristic``: calls out every missed announcement, always announces,
  stacks 7s, keeps a Jack in reserve (plays it only when nothing else
  fits or when two cards or fewer are left), skips (8) or punishes (7) the
  next opponent when that opponent holds two cards or fewer, sheds high
  cards of its longest suit first, and wishes its strongest suit.

:func:`play_match` plays one game with a strategy per seat (tournaments,
tests).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from shared.cards import JACK, RANK, SUIT, SUITS
from shared.engine import Game, Result, Strategy, passing, play
from shared.games.maumau import montecarlo
from shared.games.maumau.scoring import POINTS
from shared.games.maumau.state import EIGHT, SEVEN

#: Hand size at or under which an opponent is a threat (source: *Conseils*).
THREAT = 2


def random_strategy(view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], rng: random.Random) -> dict | None:
    """A uniformly random legal action; a seat that may only call out
    declines half of the time (returns None)."""
    if legal[0]["type"] == "callout" and rng.random() < 0.5:
        return None
    return dict(rng.choice(legal))


def strongest_suit(hand: Sequence[str]) -> str:
    """The suit to wish: most cards held (Jacks aside), then most points
    (spades for an empty hand)."""
    count = dict.fromkeys(SUITS, 0)
    points = dict.fromkeys(SUITS, 0)
    for c in hand:
        if RANK[c] != JACK:
            count[SUIT[c]] += 1
            points[SUIT[c]] += POINTS[c]
    return max(SUITS, key=lambda s: (count[s], points[s]))


def next_opponent_size(view: Mapping[str, Any]) -> int | None:
    """Hand size of the next opponent who still holds cards (None if none)."""
    seats = view["round_seats"]
    me = view["seat"]
    sizes = view["hand_sizes"]
    i = seats.index(me)
    for k in range(1, len(seats)):
        other = seats[(i + k) % len(seats)]
        if sizes[other]:
            return sizes[other]
    return None


def _variant(legal: Sequence[Mapping[str, Any]], card: str, suit: str | None) -> dict:
    """The play of ``card`` that announces when an announcement is owed and
    wishes ``suit`` for a Jack (a Jack that ends the round is listed
    without a suit, so none is sent)."""
    best = None
    for a in legal:
        if a["type"] != "play" or a["card"] != card:
            continue
        if suit is not None and a.get("suit") not in (None, suit):
            continue
        if best is None or "announce" in a:
            best = a
    assert best is not None, "the card must be playable"
    return dict(best)


def heuristic_strategy(view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], rng: random.Random) -> dict | None:
    """The heuristic bot (see module doc)."""
    for a in legal:
        if a["type"] == "callout":
            return dict(a)
    hand: list[str] = view["hand"]
    first = legal[0]["type"]
    if first == "wish":
        return {"type": "wish", "suit": strongest_suit(hand)}
    if view["phase"] == "drawn":
        card = view["drawn"]
        if RANK[card] == JACK and len(hand) > THREAT + 1:
            return {"type": "keep"}
        rest = list(hand)
        rest.remove(card)
        return _variant(legal, card, strongest_suit(rest))
    cards = list(dict.fromkeys(a["card"] for a in legal if a["type"] == "play"))
    if not cards:
        return {"type": "draw"}
    if view["penalty"]:
        return _variant(legal, cards[0], None)  # stack the 7: pass the penalty on
    threat = next_opponent_size(view)
    threatened = threat is not None and threat <= THREAT
    length = dict.fromkeys(SUITS, 0)
    for c in hand:
        if RANK[c] != JACK:
            length[SUIT[c]] += 1
    two = view["players"] == 2 or len(view["round_seats"]) == 2

    def score(c: str) -> float:
        r = RANK[c]
        if r == JACK:
            return 100.0 if len(hand) <= THREAT else -100.0
        sc = POINTS[c] + 2.0 * length[SUIT[c]]
        if r == EIGHT and (threatened or two):
            sc += 40
        elif r == SEVEN and threatened:
            sc += 30
        return sc

    card = max(cards, key=score)
    rest = list(hand)
    rest.remove(card)
    return _variant(legal, card, strongest_suit(rest) if RANK[card] == JACK else None)


def strong_strategy(
    view: Mapping[str, Any],
    legal: Sequence[Mapping[str, Any]],
    rng: random.Random,
    feed: Sequence[Any] | None = None,
) -> dict | None:
    """The strong bot: information-set Monte Carlo over the unseen cards,
    the heuristic playing every seat in the rollouts
    (:mod:`shared.games.maumau.montecarlo`); ``feed`` tells it the discard
    pile below the top card and which opponents drew for want of a card."""
    return montecarlo.choose(view, legal, rng, feed, heuristic_strategy, strongest_suit)


#: ``pass``: the natural pass as a stand-in for an away person (draw, then keep).
STRATEGIES: dict[str, Strategy] = {"random": random_strategy, "heuristic": heuristic_strategy,
                                   "strong": strong_strategy,
                                   "pass": passing(("draw", "keep"), random_strategy)}


def play_match(
    game: Game,
    seat_strategies: Sequence[Strategy | str],
    seed: int,
    *,
    options: Mapping[str, Any] | None = None,
    max_steps: int = 50_000,
) -> tuple[Result, int]:
    """Play one seeded game with one strategy per seat (a name of
    ``game.strategies`` or a callable) through :func:`shared.engine.play`;
    returns the result and the number of accepted actions.  Raises
    ``RuntimeError`` (:class:`shared.engine.PlayError`) when the game does
    not end within ``max_steps``."""
    out = play(game, seat_strategies, random.Random(seed), options=options, max_steps=max_steps)
    return out.result, out.steps
