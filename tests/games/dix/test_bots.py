"""DIX strategies: they play whole legal games from their view only, and
their key decisions follow the value model (shared/games/dix/bots.py)."""

from __future__ import annotations

import random

import pytest

from shared.games.dix import GAME
from shared.games.dix.bots import (
    Model,
    Turn,
    _crowded_flip_value,
    _denial_joker_value,
    heuristic_strategy,
    strong_strategy,
)
from tests.games.dix.helpers import FLIP, PASS, TAKE_NUMBERS, Table, bid, buy
from tests.invariants import playout

FILL = ["B1"] * 8


@pytest.mark.parametrize("strategy", ["heuristic", "strong"])
@pytest.mark.parametrize("players", [1, 2, 3, 5])
def test_thinking_bots_play_legal_games_to_the_end(strategy, players):
    """Every action a bot sends is accepted; games end (shared invariant playout)."""
    playout(GAME, players, 11 + players, strategy=strategy, check_mutation=False)


def test_every_strategy_answers_with_a_legal_action():
    """A strategy's action is always one of the legal actions it was given."""
    rng = random.Random(3)
    for strategy in GAME.strategies.values():
        t = Table(["R3", "*4", "$2", "Y5", *FILL], players=3)
        for _ in range(12):
            if GAME.result(t.state) is not None:
                break
            seat = t.awaiting[0]
            legal = t.legal(seat)
            action = strategy(t.view(seat), legal, rng)
            assert action in legal
            t.act(seat, action)


def _decide(strategy, t: Table, seat: int) -> dict:
    return strategy(t.view(seat), t.legal(seat), random.Random(0))


@pytest.mark.parametrize("strategy", [heuristic_strategy, strong_strategy])
def test_bots_flip_when_no_unseen_card_can_bust(strategy):
    """Stop/go from the unseen cards: with total 1 nothing can bust, so flip again."""
    t = Table(["R1", *FILL], players=2)
    t.act(0, FLIP)
    assert _decide(strategy, t, 0) == {"type": "flip"}


@pytest.mark.parametrize("strategy", [heuristic_strategy, strong_strategy])
def test_bots_stop_when_most_unseen_cards_bust(strategy):
    """Stop/go from the unseen cards: at total 10 every unseen Number card busts."""
    t = Table(["R4", "Y6", *FILL], players=2)
    t.script((0, FLIP), (0, FLIP))
    assert _decide(strategy, t, 0)["type"] in ("take_numbers", "take_currency")


def test_model_counts_unseen_cards_from_the_public_view():
    """The deck's composition is public: cards in play minus every card shown."""
    t = Table(["R4", "Y6", "$2", *FILL], players=2)
    t.script((0, FLIP), (0, FLIP))
    m = Model(t.view(1))
    unseen = m.unseen_cards()
    # the test deck is made up, but the model counts against the real 2-player deck
    assert sum(unseen.values()) == 96 - 2
    assert unseen["R4"] == 1 and unseen["Y6"] == 1  # 2 copies in play, one on the table


@pytest.mark.parametrize("strategy", [heuristic_strategy, strong_strategy])
def test_bots_buy_the_card_that_extends_a_run(strategy):
    """Market buys that extend runs: holding R1 R2, a red 3 for 3 is bought over a lone card."""
    t = Table(["R3", "G9", "R1", "R2", *FILL], players=2)
    t.script((0, FLIP), (0, FLIP))  # bust: R3, G9 to the market
    t.script((1, FLIP), (1, FLIP), (1, TAKE_NUMBERS))
    assert _decide(strategy, t, 1) == buy("R3")


@pytest.mark.parametrize("strategy", [heuristic_strategy, strong_strategy])
def test_bots_pay_with_a_duplicate_before_tokens(strategy):
    """Paying: a duplicate Number card is the cheapest unit."""
    t = Table(["R2", "R2", "*5", *FILL], players=2)
    t.script((0, FLIP), (0, FLIP), (0, TAKE_NUMBERS), (0, PASS))  # seat 0 owns R2 twice
    t.script((1, FLIP), (0, bid(1)), (1, PASS))
    assert _decide(strategy, t, 0) == {"type": "pay_card", "card": "R2"}


@pytest.mark.parametrize("strategy", [heuristic_strategy, strong_strategy])
def test_bots_bid_for_a_joker_that_bridges_a_gap(strategy):
    """Auction bids from a joker's marginal run value: *3 bridges R1 R2 _ R4 R5."""
    t = Table(["R1", "R2", "R4", "R5", "*3", *FILL], players=2)
    t.script((0, FLIP), (0, FLIP), (0, FLIP), (0, TAKE_NUMBERS), (0, PASS))  # R1 R2 R4 (total 7)
    t.script((1, FLIP), (1, TAKE_NUMBERS), (1, PASS))  # seat 1 takes R5
    t.act(0, FLIP)  # *3: seat 1 speaks first
    t.act(1, PASS)
    action = _decide(strategy, t, 0)
    assert action["type"] == "bid"


@pytest.mark.parametrize("strategy", [heuristic_strategy, strong_strategy])
def test_bots_never_bid_beyond_their_means(strategy):
    """A bid is always one of the legal (affordable) amounts."""
    t = Table(["*3", *FILL], players=3, starting_tokens=1)
    t.act(0, FLIP)
    action = _decide(strategy, t, 1)
    assert action in t.legal(1)


def _five_players_auction_of_star_three() -> Table:
    """5 players: seat 0 holds Y1 Y2 Y4 Y5 (joker *3 would bridge it to a run
    of 5), seats 1-4 one card each; seat 1 flips *3 and seat 2 speaks first."""
    deck = ["Y1", "Y2", "Y4", "G1", "G2", "R1", "R2", "Y5", "*3", *FILL]
    t = Table(deck, players=5)
    t.script((0, FLIP), (0, FLIP), (0, FLIP), (0, TAKE_NUMBERS), (0, PASS))
    for seat in (1, 2, 3, 4):
        t.script((seat, FLIP), (seat, TAKE_NUMBERS), (seat, PASS))
    t.script((0, FLIP), (0, TAKE_NUMBERS), (0, PASS))
    t.act(1, FLIP)
    return t


def test_strong_values_a_joker_for_denial_at_five_players():
    """Crowded table: a joker is worth its value to us plus 0.3 × its value to
    the opponent it helps most, so strong bids higher than the heuristic."""
    t = _five_players_auction_of_star_three()
    view = t.view(2)
    m = Model(view)
    # to seat 2 a run of one joker (1) plus flexibility (0.6 × the 8/128 of the deck left)
    assert m.joker_value("*3") == pytest.approx(1 + 0.6 * 8 / 128)
    # to seat 0 it bridges Y1 Y2 _ Y4 Y5: 2 points more than that
    assert Model(view, 0).joker_value("*3") == pytest.approx(3 + 0.6 * 8 / 128)
    assert _denial_joker_value(m, "*3") == pytest.approx(1.0375 + 0.3 * 3.0375)
    assert _decide(heuristic_strategy, t, 2) == bid(3)
    assert _decide(strong_strategy, t, 2) == bid(6)


def test_strong_stop_go_at_five_players_is_the_heuristic_early_in_the_deck():
    """Crowded table, more than half the deck left: one step, not rollouts."""
    t = Table(["R4", "Y3", *(["B1"] * 80)], players=5)
    t.script((0, FLIP), (0, FLIP))
    m = Model(t.view(0))
    assert m.frac > 0.5
    turn = Turn(m, t.legal(0))
    assert _crowded_flip_value(turn, random.Random(0)) == turn.one_step()
