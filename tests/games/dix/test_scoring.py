"""DIX final scoring (p. 6, 11, 12): runs per colour and the joker optimiser.

Expected values are computed by hand in each docstring; the optimiser is
also cross-checked against the literal brute force on random collections.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from shared.games.dix.cards import COLOURS
from shared.games.dix.scoring import brute_force_score, score, score_detail


def test_longest_run_per_colour_scores_one_point_a_card():
    """p. 12: each card of your longest run in each colour is worth 1 point (R 1-2-3 and 5: 3; Y 7: 1)."""
    assert score(["R1", "R2", "R3", "R5", "Y7"]) == 4


def test_full_run_earns_one_bonus_point():
    """p. 12: 1 bonus point for a run from 1 to 9."""
    assert score([f"R{n}" for n in range(1, 10)]) == 10
    assert score([f"R{n}" for n in range(1, 9)]) == 8


def test_duplicates_add_nothing():
    """p. 12: a run counts each number once (R2 R2 R3 is a run of 2)."""
    assert score(["R2", "R2", "R3"]) == 2


def test_empty_collection_scores_nothing():
    """No cards, no run."""
    assert score([]) == 0


def test_numbered_joker_fills_a_gap_in_any_colour():
    """p. 6: a numbered joker stands for its number in any colour (R 1 2 _ 4 5 + *3 = 5)."""
    assert score(["R1", "R2", "R4", "R5", "*3"]) == 5
    assert score(["G1", "G2", "G4", "G5", "*3"]) == 5


def test_numbered_joker_goes_to_the_colour_where_it_scores_most():
    """Optimisation: *3 in red joins 1 2 | 4 5 into 5 (+3); in yellow 2 | 4 into 3 (+2): red, total 5 + 1 = 6."""
    hand = ["R1", "R2", "R4", "R5", "Y2", "Y4", "*3"]
    assert score(hand) == 6
    assert score_detail(hand)["numbered_jokers"] == {"*3": "R"}


def test_colour_joker_only_joins_its_own_colour():
    """p. 6: a # joker replaces any number but must join a run of its colour (G# cannot fill red 3)."""
    assert score(["R1", "R2", "R4", "G#"]) == 2 + 1
    assert score(["R1", "R2", "R4", "R#"]) == 4


def test_colour_joker_fills_the_gap_that_makes_the_longest_run():
    """Optimisation: R 1 2 _ 4 5 _ 7 8 9 + R#: filling 3 gives 5, filling 6 gives 4..9 = 6."""
    assert score(["R1", "R2", "R4", "R5", "R7", "R8", "R9", "R#"]) == 6


def test_numbered_joker_and_colour_joker_share_the_work():
    """Optimisation: R and Y both 1 2 _ 4 5; *3 and Y#: *3 to red, Y# on yellow 3 = 5 + 5 = 10
    (greedy *3 and Y# both in yellow would give 6 + 2 = 8)."""
    hand = ["R1", "R2", "R4", "R5", "Y1", "Y2", "Y4", "Y5", "*3", "Y#"]
    assert score(hand) == 10
    detail = score_detail(hand)
    assert detail["colours"] == {"R": 5, "Y": 5, "G": 0, "B": 0}


def test_joker_completing_a_full_run_earns_the_bonus():
    """p. 12: a full 1–9 run made with a joker still earns the bonus (1..8 + *9 = 9 + 1)."""
    assert score([f"B{n}" for n in range(1, 9)] + ["*9"]) == 10


def test_two_colour_jokers_of_a_colour_bridge_two_gaps():
    """p. 6: each # joker fills one gap of its colour (G 1 _ 3 _ 5 + G# G# = 5)."""
    assert score(["G1", "G3", "G5", "G#", "G#"]) == 5


def test_jokers_alone_make_a_run():
    """Ours: a run may be made of jokers only (*4 *5 in one colour = 2; plus G# extends it to 3)."""
    assert score(["*4", "*5"]) == 2
    assert score(["*4", "*5", "G#"]) == 3


def test_numbered_jokers_each_placed_once():
    """p. 6: a joker has one place: *3 cannot fill red 3 and yellow 3 at once (best 5 + 2 = 7)."""
    assert score(["R1", "R2", "R4", "R5", "Y1", "Y2", "Y4", "Y5", "*3"]) == 7


def test_score_ignores_currency_and_order():
    """The score depends only on the collection's Number cards and jokers."""
    assert score(["R3", "*2", "R1"]) == score(["R1", "*2", "R3"]) == 3


number_cards = st.sampled_from([f"{c}{n}" for c in COLOURS for n in range(1, 10)])
colour_jokers = st.sampled_from([f"{c}#" for c in COLOURS])
numbered_jokers = st.sets(st.sampled_from([f"*{n}" for n in range(1, 10)]), max_size=3)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(number_cards, max_size=16),
    st.lists(colour_jokers, max_size=2),
    numbered_jokers,
    st.integers(0, 2),
)
def test_optimiser_matches_brute_force(numbers, wilds, jokers, bonus):
    """The optimiser equals the literal rule: try every placement, keep the best."""
    hand = numbers + wilds + sorted(jokers)
    assert score(hand, bonus) == brute_force_score(hand, bonus)
