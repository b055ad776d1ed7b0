"""Mauw: the two endings, column points and ranking (§But, §Fin, rulings)."""

import pytest

from tests.games.mauw.given import E, column, deal, drawn, ended, given, mauw, pile, played, points, refused, reinforced, then, when
from shared.games.mauw import GAME


def three_columns_position(**options):
    """Seat 0: three Mauw in columns 0 and 1 (both covered by seat 1's Spirits), two in column 2, a lone 1R in column 3."""
    hands = [["1R", "8R", "2Y", "2Y"], ["SPIRIT", "SPIRIT", "4B", "4B"]]
    faces0 = ["7Y"] * 8
    faces1 = ["6G"] * 7
    return given(
        deal(hands, talon=pile(*faces0, *faces1, "5B", "3G", "5B", "2Y", "1R"), first=1, **options),
        mauw(0, 0, 3),
        mauw(0, 1, 3),
        mauw(0, 2, 2),
        mauw(1, 0, 2),
        mauw(1, 1, 2),
        mauw(1, 2, 2),
        mauw(1, 3, 1),
        played(1, "SPIRIT", 0, player=0, move="block"),
        drawn(1, "5B"),
        ended(0),
        reinforced(0, "1R", 3, "3G", 1),
        played(1, "SPIRIT", 1, player=0, move="block"),
        drawn(1, "5B"),
        ended(0),
    )


def test_three_columns_of_three_mauw_win_at_once():
    """§But, §Fin: the game ends "immédiatement dès qu'un joueur possède 3 colonnes comprenant chacune 3 Mauw" — that player wins."""
    state = three_columns_position()
    assert points(state) == [0 + 0 + 36 + 1, 36 * 3 + 18]
    events = when(state, 0, {"type": "play", "card": "8R", "player": 0, "column": 3, "place": 2})
    assert events == [
        E("CardPlayed", {"card": "8R", "as": None, "player": 0, "column": 3, "move": "associate"}, 0),
        E("WarriorsAssociated", {"player": 0, "column": 3, "same": False}, 0),
        E("MauwWon", {"place": 2}, 0),
        E("GameEnded", {"reason": "three_columns", "winner": 0}),
    ]
    after = then(state, events)
    result = GAME.result(after)
    # The winner is first even with fewer column points (rulings: "that player wins").
    assert result.scores == (72, 126) and result.places == (1, 2) and result.winners == (0,)
    assert result.detail["ending"] == "three_columns"


def test_a_covered_column_of_three_mauw_counts_unless_the_table_says_otherwise():
    """§Fin: "3 colonnes comprenant chacune 3 Mauw" — a Spirit on top does not remove the Mauw; option covered_columns_count=false."""
    state = three_columns_position(covered_columns_count=False)
    events = when(state, 0, {"type": "play", "card": "8R", "player": 0, "column": 3, "place": 2})
    assert [e.type for e in events][-2:] == ["CardsDrawn", "TurnEnded"]
    assert GAME.view(then(state, events), None)["full_columns"] == [1, 0]


def _short_piles(card1: str):
    """A table whose piles hold a single card (the rule does not depend on the deck: the piles are shortened to reach it)."""
    hands = [["2Y", "1R", "8R", "3G"], [card1, "6G", "3G", "4B"]]
    state = given(deal(hands, talon=["5B"]))
    return then(state, when(state, 0, {"type": "play", "card": "2Y", "player": 0, "column": 0}))


def test_the_game_ends_when_a_player_cannot_draw_back_to_4_at_the_end_of_a_turn():
    """§Fin: the game ends "dès qu'un joueur ne peut pas refaire sa main de 4 cartes en fin de tour"; most points wins."""
    state = _short_piles("7Y")
    events = when(state, 1, {"type": "play", "card": "7Y", "player": 1, "column": 0})
    assert events == [
        E("CardPlayed", {"card": "7Y", "as": None, "player": 1, "column": 0, "move": "reinforce"}, 1),
        E("GameEnded", {"reason": "cannot_refill", "winner": None}),
    ]
    result = GAME.result(then(state, events))
    assert result.scores == (2, 7) and result.places == (2, 1) and not result.lower_wins


def test_equal_totals_share_the_place():
    """§Fin, rulings: highest points wins; ties are shared."""
    state = _short_piles("2Y")
    result = GAME.result(then(state, when(state, 1, {"type": "play", "card": "2Y", "player": 1, "column": 0})))
    assert result.scores == (2, 2) and result.places == (1, 1) and result.winners == (0, 1)


def test_no_action_is_accepted_once_the_game_is_over():
    """§Fin: the game is over — every action is refused with game_over and nobody is awaited."""
    state = _short_piles("7Y")
    state = then(state, when(state, 1, {"type": "play", "card": "7Y", "player": 1, "column": 0}))
    assert GAME.awaiting(state) == set() and GAME.legal_actions(state, 0) == []
    assert refused(state, 0, {"type": "play", "card": "1R", "player": 0, "column": 1}).code == "game_over"
    assert refused(state, 1, {"type": "give_up"}).code == "game_over"


def test_a_stalemate_ends_the_game_after_rounds_without_a_mauw_placed():
    """Ours (option stalemate_rounds): no Mauw placed for that many rounds ends the game with column points."""
    hands = [["1R", "8R", "3G", "4B"], ["2Y", "7Y", "6G", "5B"]]
    state = given(deal(hands, talon=pile("1R", "2Y", "SPIRIT", "1R", "2Y", "1R", "2Y", "1R"), stalemate_rounds=2))
    turns = [
        (0, {"card": "1R", "column": 0}),
        (1, {"card": "2Y", "column": 0}),
        (0, {"card": "8R", "column": 0, "place": 0}),  # a Mauw: the count starts again
        (1, {"card": "7Y", "column": 1}),
        (0, {"card": "3G", "column": 1}),
        (1, {"card": "6G", "column": 2}),
    ]
    for seat, action in turns:
        events = when(state, seat, {"type": "play", "player": seat, **action})
        assert events[-1].type == "TurnEnded"
        state = then(state, events)
    events = when(state, 0, {"type": "play", "card": "4B", "player": 0, "column": 2})
    assert events[-1] == E("GameEnded", {"reason": "stalemate", "winner": None})
    result = GAME.result(then(state, events))
    assert result.scores == (18 + 3 + 4, 2 + 7 + 6) and result.places == (1, 2)


def _blocked(k: int, card: str | None, as_: str | None = None):
    """Seat 0 has ``k`` Mauw in column 0; seat 1 then covered it with ``card`` (or played elsewhere)."""
    hands = [["2Y", "7Y", "2Y", "7Y"], ["3G", "SPIRIT", "JOKER", "5B"]]
    state = given(deal(hands, talon=pile(*["8R"] * k, "4B"), first=1), mauw(0, 0, k))
    if card is None:
        return state
    return then(state, when(state, 1, {"type": "play", "card": card, "as": as_, "player": 0, "column": 0}))


@pytest.mark.parametrize(
    "k,card,as_,expected",
    [
        (1, None, None, 18),  # one Mauw
        (2, None, None, 36),
        (3, None, None, 72),  # three Mauw
        (2, "SPIRIT", None, 0),  # a Spirit on top
        (2, "3G", None, 12),  # a Warrior 3 on two Mauw
        (1, "5B", None, 10),
        (3, "JOKER", "SPIRIT", 0),
        (3, "JOKER", "8R", 64),
    ],
)
def test_column_points_are_the_value_on_top_times_2_per_mauw(k, card, as_, expected):
    """Rulings: points = value on top (9 for a Mauw, a Warrior's value, 0 for a Spirit) × 2 per Mauw."""
    state = _blocked(k, card, as_)
    assert GAME.view(state, None)["areas"][0][0]["points"] == expected
    assert points(state)[0] == expected


def test_a_lone_warrior_is_worth_its_value():
    """Rulings: "A Warrior alone on a slot is worth its value"."""
    hands = [["7Y", "8R", "2Y", "3G"], ["3G", "SPIRIT", "JOKER", "5B"]]
    state = given(deal(hands, talon=pile("4B", "4B")), reinforced(0, "7Y", 0, "4B", 1))
    state = then(state, when(state, 1, {"type": "play", "card": "JOKER", "as": "6G", "player": 1, "column": 3}))
    assert points(state) == [7, 6]
    assert column(state, 1, 3) == ["*6G"]
