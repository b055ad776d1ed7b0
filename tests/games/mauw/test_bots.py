"""Mauw bots (issue 5, Bots): legal play, what they see, their rules of thumb."""

import random

import pytest

from tests.games.mauw.given import deal, drawn, ended, given, mauw, pile, played, reinforced, then, when
from tests.invariants import playout
from shared.engine import play
from shared.games.mauw import GAME
from shared.games.mauw.bots import StrongStrategy, heuristic_strategy, sample_state


def choose(strategy, state, seat, seed=0):
    return strategy(GAME.view(state, seat), GAME.legal_actions(state, seat), random.Random(seed))


@pytest.mark.parametrize("players", range(2, 7))
def test_the_heuristic_plays_legal_moves_to_the_end(players):
    """Bots: heuristic games finish with every invariant of the playout holding."""
    for seed in range(4):
        playout(GAME, players, seed, strategy="heuristic")


def test_the_strong_bot_plays_legal_moves_to_the_end(monkeypatch):
    """Bots: strong (a cheap configuration) finishes games through the same invariant playout."""
    monkeypatch.setitem(GAME.strategies, "strong", StrongStrategy(candidates=2, samples=2, depth_rounds=1))
    for players in (2, 5):
        playout(GAME, players, 1, strategy="strong", check_mutation=False)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_the_monte_carlo_deals_only_what_the_seat_cannot_see(players):
    """Bots see only their view: a sampled state reproduces that seat's view exactly, and all cards."""
    checked = 0

    def sampling_heuristic(view, legal, rng):
        """The heuristic, its first 60 decisions checked against a sampled state."""
        nonlocal checked
        if checked < 60:
            seat = view["seat"]
            sample = sample_state(view, rng)
            assert GAME.view(sample, seat) == view
            assert GAME.legal_actions(sample, seat) == legal
            checked += 1
        return heuristic_strategy(view, legal, rng)

    play(GAME, [sampling_heuristic] * players, random.Random(players))


def test_the_heuristic_completes_pairs():
    """Bots: heuristic completes pairs — a partner on its lone Warrior wins a Mauw."""
    hands = [["1R", "8R", "SPIRIT", "2Y"], ["3G", "7Y", "6G", "4B"]]
    state = given(deal(hands, talon=pile("6G", "4B", "5B", "5B")), reinforced(0, "1R", 0, "6G", 1), reinforced(1, "3G", 0, "4B", 0))
    action = choose(heuristic_strategy, state, 0)
    assert (action["card"], action["player"], action["column"]) == ("8R", 0, 0)


def test_the_heuristic_blocks_the_leaders_best_column():
    """Bots: heuristic blocks the leader's best column with a Spirit."""
    hands = [["SPIRIT", "1R", "2Y", "4B"], ["3G", "7Y", "6G", "4B"], ["5B", "5B", "6G", "4B"]]
    state = given(deal(hands, talon=pile("7Y", "7Y", "7Y", "7Y", "8R", "8R")), mauw(1, 2, 2), mauw(2, 0), mauw(1, 0))
    action = choose(heuristic_strategy, state, 0)
    assert action == {"type": "play", "card": "SPIRIT", "player": 1, "column": 2}


def test_the_heuristic_attacks_exposed_warriors():
    """Bots: heuristic attacks an opponent's exposed Warrior of its colour when it has room for the Mauw."""
    hands = [["6G", "SPIRIT", "SPIRIT", "SPIRIT"], ["3G", "7Y", "1R", "4B"]]
    state = given(deal(hands, talon=pile("2Y", "8R", "8R"), first=1), reinforced(1, "3G", 0, "2Y", 0))
    action = choose(heuristic_strategy, state, 0)
    assert (action["card"], action["player"], action["column"]) == ("6G", 1, 0)


def _warrior_block_attacked():
    """Seat 0 covered seat 1's two Mauw with a 3G, then attacks that 3G with a 6G; seat 1 (holding a 6G) must reply."""
    hands = [["6G", "2Y", "2Y", "2Y"], ["6G", "1R", "1R", "SPIRIT"]]
    state = given(
        deal(hands, talon=pile("7Y", "7Y", "3G", "8R", "8R", "8R")),
        mauw(1, 1, 2),
        reinforced(0, "2Y", 0, "3G", 1),
        reinforced(1, "1R", 0, "8R", 0),
        played(0, "3G", 1, player=1, move="block"),
        drawn(0, "8R"),
        ended(1),
        reinforced(1, "1R", 2, "8R", 0),
    )
    return then(state, when(state, 0, {"type": "play", "card": "6G", "player": 1, "column": 1, "place": 1}))


def test_the_heuristic_defends_when_losing_the_warrior_costs_it():
    """Bots: heuristic defends with the identical Warrior when the attack would swing points to the attacker."""
    hands = [["6G", "2Y", "2Y", "2Y"], ["3G", "6G", "1R", "SPIRIT"]]
    state = given(deal(hands, talon=pile("8R", "7Y", "7Y", "7Y"), first=1), mauw(1, 1, 2), reinforced(1, "3G", 0, "8R", 0))
    state = then(state, when(state, 0, {"type": "play", "card": "6G", "player": 1, "column": 0, "place": 1}))
    assert GAME.awaiting(state) == {1}
    assert choose(heuristic_strategy, state, 1) == {"type": "defend", "card": "6G"}


def test_the_heuristic_lets_an_attack_uncover_its_mauw():
    """Bots: heuristic gives up when the attack removes a Warrior blocking its own Mauw (the column goes back to 9s)."""
    state = _warrior_block_attacked()
    assert GAME.awaiting(state) == {1}
    assert choose(heuristic_strategy, state, 1) == {"type": "give_up"}


def test_the_strong_bot_takes_the_three_column_win():
    """Bots: strong plays the winning association when it has one."""
    hands = [["1R", "8R", "2Y", "2Y"], ["SPIRIT", "SPIRIT", "4B", "4B"]]
    state = given(
        deal(hands, talon=pile(*["7Y"] * 8, "5B", "3G", "1R")),
        mauw(0, 0, 3),
        mauw(0, 1, 3),
        mauw(0, 2, 2),
        reinforced(0, "1R", 3, "5B", 1),
        reinforced(1, "4B", 0, "3G", 0),
    )
    action = choose(StrongStrategy(candidates=3, samples=2), state, 0)
    assert action == {"type": "play", "card": "8R", "player": 0, "column": 3, "place": 2}
