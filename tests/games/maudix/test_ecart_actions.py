"""The écart's legal actions read on demand (rules.EcartActions): the same
actions, in the same order, as listing every 3-card combination of the
hand with every allowed recipient."""

from __future__ import annotations

import json
import random
from itertools import combinations

import pytest

from shared.events import Event
from shared.games.maudix import GAME
from shared.games.maudix.rules import EcartActions, nth_combination

from .helpers import given, started


def listed(hand: list[str], recipients: list[int]) -> list[dict]:
    combos = list(dict.fromkeys(combinations(hand, 3)))
    return [{"type": "ecart", "cards": list(cs), "to": r} for cs in combos for r in recipients]


@pytest.mark.parametrize("size", [3, 4, 9, 13, 18])
def test_nth_combination_is_the_combinations_order(size):
    items = [f"c{i}" for i in range(size)]
    everyone = list(combinations(items, 3))
    assert [nth_combination(items, 3, k) for k in range(len(everyone))] == everyone


def test_a_hand_of_distinct_cards():
    hand = ["2S", "3S", "4H", "9D", "PIRATE"]
    legal = EcartActions(hand, [1, 3])
    assert len(legal) == 10 * 2
    assert legal[0] == {"type": "ecart", "cards": ["2S", "3S", "4H"], "to": 1}
    assert legal[1] == {"type": "ecart", "cards": ["2S", "3S", "4H"], "to": 3}
    assert legal[-1] == {"type": "ecart", "cards": ["4H", "9D", "PIRATE"], "to": 3}
    assert legal[2:4] == listed(hand, [1, 3])[2:4]
    assert legal == listed(hand, [1, 3])
    assert json.loads(json.dumps(list(legal))) == listed(hand, [1, 3])
    with pytest.raises(IndexError):
        legal[20]


def test_a_hand_with_a_card_twice_lists_each_combination_once():
    hand = ["2S", "2S", "3S", "4H"]  # two decks from 7 players
    legal = EcartActions(hand, [0])
    # combinations() gives 2S 3S 4H twice (once per 2S); it is one écart.
    assert [a["cards"] for a in legal] == [["2S", "2S", "3S"], ["2S", "2S", "4H"], ["2S", "3S", "4H"]]
    assert len(legal) == 3


def test_legal_actions_in_the_ecart_phase_are_those_of_the_hand():
    s = given(started([["2S", "3S", "4S", "5S"], ["2H", "3H", "4H", "5H"],
                       ["2D", "3D", "4D", "5D"], ["2C", "3C", "4C", "5C"]]),
              Event("EcartMade", {"to": 1, "cards": ["2S", "3S", "4S"]}, 0))
    legal = GAME.legal_actions(s, 2)
    assert isinstance(legal, EcartActions)
    assert legal == listed(["2D", "3D", "4D", "5D"], [0, 3])
    assert random.Random(7).choice(legal) == listed(["2D", "3D", "4D", "5D"], [0, 3])[random.Random(7).randrange(8)]
