"""Mau Mau's strong bot (issue 15): what it knows, what it plays."""

import random
from collections import Counter

import pytest

from shared.cards import shoe
from shared.engine import play
from shared.events import Event
from shared.games.maumau import GAME, montecarlo
from shared.games.maumau.bots import heuristic_strategy, strong_strategy, strongest_suit
from tests.games.maumau.helpers import Table


def cheap(view, legal, rng, feed=None):
    """The strong bot on a small budget (the tests check what it may do, not how well)."""
    return montecarlo.choose(view, legal, rng, feed, heuristic_strategy, strongest_suit, rollouts=12)


def test_strong_is_listed():
    assert list(GAME.strategies) == ["random", "heuristic", "strong", "pass"]
    assert GAME.strategies["strong"] is strong_strategy


def test_strong_says_maumau_with_its_last_card():
    """One card left that fits: it goes out with "Mau Mau" (the variant without is listed too)."""
    t = Table([["9H"], ["2C", "3C"], ["4C", "5C"]], "5H", ["6D", "7D", "8D"])
    assert t.legal(0) == [{"type": "play", "card": "9H"}, {"type": "play", "card": "9H", "announce": "maumau"}]
    assert strong_strategy(t.view(0), t.legal(0), random.Random(0)) == {
        "type": "play", "card": "9H", "announce": "maumau"}


def test_strong_goes_out_with_a_last_jack_rather_than_wish():
    """A last Jack: the play that ends the round (no wish, "Mau Mau") beats every wish."""
    t = Table([["JC"], ["2C", "3C"], ["4C", "5C"]], "5H", ["6D", "7D", "8D"])
    assert strong_strategy(t.view(0), t.legal(0), random.Random(0)) == {
        "type": "play", "card": "JC", "announce": "maumau"}


def test_strong_plays_a_drawn_card_that_leaves_one():
    """Seat 1 drew a playable 9S onto KS holding 2C: it plays it with "mau" (one card left)
    rather than keep two."""
    t = Table([["KS", "2D", "3D"], ["2C"], ["4C", "5C"]], "5S", ["9S"])
    t.act(0, {"type": "play", "card": "KS"})
    t.act(1, {"type": "draw"})
    assert t.view(1)["phase"] == "drawn"
    action = strong_strategy(t.view(1), t.legal(1), random.Random(0))
    assert action == {"type": "play", "card": "9S", "announce": "mau"}


def test_strong_calls_out_a_missed_announcement():
    """A call-out is open: it calls it out at once (the offender draws 2)."""
    t = Table([["9H", "KC"], ["2H", "3C", "QD"], ["4C", "5C"]], "5H", ["6D", "7D", "8D", "9D"])
    t.act(0, {"type": "play", "card": "9H"})  # leaves one card without "mau"
    assert t.legal(1)[-1] == {"type": "callout", "seat": 0}
    assert strong_strategy(t.view(1), t.legal(1), random.Random(0)) == {"type": "callout", "seat": 0}
    assert strong_strategy(t.view(2), t.legal(2), random.Random(0)) == {"type": "callout", "seat": 0}


def test_candidates_keep_one_wish_and_the_announcement():
    legal = [
        {"type": "play", "card": "JC", "suit": s} for s in "SHDC"
    ] + [{"type": "play", "card": "9H"}, {"type": "play", "card": "9H", "announce": "mau"}]
    assert montecarlo.candidates(legal, "D") == [
        {"type": "play", "card": "JC", "suit": "D"},
        {"type": "play", "card": "9H", "announce": "mau"},
    ]


def test_memory_reads_the_discard_pile_and_the_voids():
    """The feed: the discard since the deal (reset by a reshuffle), and who drew for want of a card."""
    deal = {"round": 1, "decider": False, "dealer": 2, "seats": [0, 1, 2], "hands": [["2C"], None, None],
            "upcard": "5H", "hand_sizes": [1, 5, 5], "talon_size": 36}
    feed = [
        Event("GameStarted", {"options": {}, "players": 3, "decks": 1, "deal": deal}),
        Event("CardPlayed", {"card": "9H", "suit": None, "announce": None}, 0),
        Event("CardsDrawn", {"count": 1, "reason": "draw"}, 1),  # nothing on 9H
        Event("CardPlayed", {"card": "JH", "suit": "S", "announce": None}, 2),
        Event("CardsDrawn", {"count": 2, "reason": "callout"}, 1),
    ]
    m = montecarlo.remember(feed)
    assert m.discard == ["5H", "9H", "JH"]
    fits, new = m.voids[1]
    assert new == 3
    assert fits == frozenset({f"{r}H" for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")}
                             | {"9S", "9D", "9C", "JS", "JD", "JC"})
    m = montecarlo.remember(feed + [Event("TalonReshuffled", {"talon_size": 40})])
    assert m.discard == ["JH"]


def test_a_void_opponent_is_dealt_none_of_what_fitted():
    """Seat 1 drew on 9H with no card drawn since it played: it is dealt no heart, no 9, no Jack."""
    t = Table([["2C", "KC", "QC"], ["3C", "4C", "5C"], ["6C", "8C", "10C"]], "9H", ["AD", "6S"], seed=3)
    t.act(0, {"type": "draw"})  # AD: no fit, turn over
    view = t.view(2)
    memory = montecarlo.Memory(discard=["9H"], voids={1: (montecarlo.PLAYABLE_ON["9H"], 0)})
    for seed in range(20):
        s = montecarlo.determinise(view, memory, random.Random(seed))
        assert not set(s.hands[1]) & montecarlo.PLAYABLE_ON["9H"]


@pytest.mark.parametrize("players", [2, 3, 5, 7])
def test_a_deal_reproduces_the_seat_view_exactly(players):
    """Bots see only their view: a determinised state shows that seat the very same view and legal
    actions, and holds the whole shoe (two decks from 7 players)."""
    checked = 0

    def checking(view, legal, rng, feed):
        nonlocal checked
        if checked < 80 and view["turn"] == view["seat"]:
            seat = view["seat"]
            sample = montecarlo.determinise(view, montecarlo.remember(feed), rng)
            assert GAME.view(sample, seat) == view
            assert GAME.legal_actions(sample, seat) == legal
            cards = Counter(sample.talon + sample.discard + [c for h in sample.hands for c in h])
            assert cards == Counter(shoe(view["options"]["decks"]))
            checked += 1
        return heuristic_strategy(view, legal, rng)

    for seed in range(10):
        play(GAME, [checking] + ["heuristic"] * (players - 1), random.Random(seed))
        if checked == 80:
            break
    assert checked == 80


@pytest.mark.parametrize(
    "players, options",
    [(2, {}), (4, {"ace_power": "draw", "seven_stack_cap": 2}), (3, {"ace_power": "skip", "skat_deck": True}),
     (7, {"hand_size": 7, "target_score": 40})],
)
def test_strong_plays_legal_moves_to_the_end(players, options):
    """Every action it returns is one of the legal actions (play refuses anything else)."""
    seen = []

    def checked(view, legal, rng, feed):
        action = cheap(view, legal, rng, feed)
        assert action in legal
        seen.append(action)
        return action

    out = play(GAME, [checked] + ["random"] * (players - 1), random.Random(players), options=options)
    assert out.result is not None and seen


@pytest.mark.parametrize(
    "players, options",
    [(2, {}), (3, {}), (4, {"ace_power": "skip"}), (5, {"seven_stack_cap": 1, "ace_power": "draw"}),
     (8, {"hand_size": 7, "target_score": 60})],
)
def test_the_rollouts_play_exactly_as_the_heuristic(players, options):
    """heuristic_move (the rollouts' fast path, on the state) chooses what the heuristic bot
    chooses from the view, on every decision of whole games (random seats make for odd spots:
    missed announcements, call-outs, 7 chains)."""
    current = {}
    compared = 0

    def keep(state, events):
        current["state"] = state

    def checking(view, legal, rng):
        nonlocal compared
        action = heuristic_strategy(view, legal, rng)
        assert montecarlo.heuristic_move(current["state"], view["seat"]) == action
        compared += 1
        return action

    for seed in range(3):
        lineup = [checking if s % 2 == 0 else "random" for s in range(players)]
        play(GAME, lineup, random.Random(seed), options=options, on_step=keep)
    assert compared > 100
