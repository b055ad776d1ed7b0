"""Mauw: the cards and the deal (§Matériel, §Mise en place, rulings)."""

import random
from collections import Counter

import pytest

from shared.games.mauw import GAME
from shared.games.mauw.cards import BY_COLOUR, COLOUR, VALUE, WARRIORS, deck


def test_the_game_has_72_cards_56_warriors_12_spirits_and_4_jokers():
    """§Matériel: 72 cards — 56 Warriors of value 1 to 8, 12 Spirits of value 0, 4 Jokers."""
    cards = Counter(deck(6))
    assert sum(cards.values()) == 72
    assert sum(cards[w] for w in WARRIORS) == 56
    assert cards["SPIRIT"] == 12 and VALUE["SPIRIT"] == 0
    assert cards["JOKER"] == 4
    assert sorted(VALUE[w] for w in WARRIORS) == [1, 2, 3, 4, 5, 6, 7, 8]


def test_each_value_has_seven_copies_in_a_single_colour():
    """§Matériel: each value is in 7 copies and in one colour only (all the 6s are green)."""
    cards = Counter(deck(6))
    for value in range(1, 9):
        codes = [w for w in WARRIORS if VALUE[w] == value]
        assert len(codes) == 1 and cards[codes[0]] == 7
    assert COLOUR["6G"] == "G"


def test_warriors_go_in_same_colour_duos_summing_to_9():
    """§Matériel: duos of one colour summing to 9 — 1 and 8, 2 and 7, 3 and 6, 4 and 5 (rulings: red, yellow, green, blue)."""
    assert {c: tuple(VALUE[w] for w in ws) for c, ws in BY_COLOUR.items()} == {
        "R": (1, 8),
        "Y": (2, 7),
        "G": (3, 6),
        "B": (4, 5),
    }


@pytest.mark.parametrize(
    "players,total,copies,spirits",
    [(2, 52, 5, 8), (3, 52, 5, 8), (4, 62, 6, 10), (5, 62, 6, 10), (6, 72, 7, 12)],
)
def test_dotted_cards_are_removed_by_player_count(players, total, copies, spirits):
    """§Mise en place: one-dot cards out at 2–3 players, two-dot cards out at 4–5, none at 6 (rulings: dots)."""
    cards = Counter(deck(players))
    assert sum(cards.values()) == total
    assert all(cards[w] == copies for w in WARRIORS)
    assert cards["SPIRIT"] == spirits and cards["JOKER"] == 4


def test_each_player_is_dealt_4_cards_from_the_shuffled_draw_pile():
    """§Mise en place: shuffle the cards into a face-down draw pile, deal 4 cards to each player."""
    (event,) = GAME.start(GAME.Options(), 4, random.Random(3))
    assert event.type == "GameStarted" and event.data["players"] == 4
    hands, draw = event.data["hands"], event.data["talon"]
    assert [len(h) for h in hands] == [4, 4, 4, 4]
    assert len(draw) == 62 - 16
    assert Counter(sum(hands, []) + draw) == Counter(deck(4))
    assert sum(hands, []) + draw != deck(4)  # shuffled


def test_the_first_player_is_drawn_at_random_unless_the_table_names_one():
    """§Mise en place: "le joueur le plus poilu commence" — ours: a random seat, or the option first_seat."""
    firsts = {GAME.start(GAME.Options(), 5, random.Random(s))[0].data["first"] for s in range(40)}
    assert firsts == {0, 1, 2, 3, 4}
    (event,) = GAME.start(GAME.Options(first_seat=2), 3, random.Random(0))
    state = GAME.evolve(None, event)
    assert event.data["first"] == 2 and GAME.awaiting(state) == {2}


@pytest.mark.parametrize("players,options", [(1, {}), (7, {}), (3, {"first_seat": 3})])
def test_a_table_is_2_to_6_players(players, options):
    """§Titre: Mauw is for 2 to 6 players; the first seat must be one of them."""
    with pytest.raises(ValueError):
        GAME.start(GAME.Options(**options), players, random.Random(0))
