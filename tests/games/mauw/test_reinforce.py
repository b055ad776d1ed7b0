"""Mauw: reinforcing the play area and the associations (§Renforcer, §Association)."""

from tests.games.mauw.given import E, column, deal, given, mauw, pile, points, refused, reinforced, then, when
from shared.games.mauw import GAME


def lone_1r(draw: tuple[str, ...] = ("5B", "4B")):
    """Seat 0 has a lone 1R in column 0 and holds 8R, 1R, SPIRIT; seat 1 a lone 2Y."""
    hands = [["1R", "8R", "1R", "SPIRIT"], ["2Y", "7Y", "6G", "JOKER"]]
    return given(
        deal(hands, talon=pile("6G", "3G", *draw)),
        reinforced(0, "1R", 0, "6G", 1),
        reinforced(1, "2Y", 0, "3G", 0),
    )


def test_reinforce_with_a_warrior_on_an_empty_slot():
    """§Renforcer: play a Warrior "sur un emplacement vide"; a Warrior alone is worth its value."""
    state = given(deal([["3G", "8R", "1R", "SPIRIT"], ["2Y", "7Y", "6G", "JOKER"]], talon=["4B"]))
    events = when(state, 0, {"type": "play", "card": "3G", "player": 0, "column": 2})
    assert events[0] == E("CardPlayed", {"card": "3G", "as": None, "player": 0, "column": 2, "move": "reinforce"}, 0)
    after = then(state, events)
    assert column(after, 0, 2) == ["3G"] and points(after) == [3, 0]


def test_reinforce_with_a_warrior_on_an_own_mauw_column():
    """§Renforcer: play a Warrior "sur une colonne de Mauw" (rulings: a Warrior 3 on two Mauw scores 12)."""
    state = given(deal([["3G", "8R", "1R", "SPIRIT"], ["2Y", "7Y", "6G", "JOKER"]], talon=["4B", "5B", "5B"]), mauw(0, 1, 2))
    assert points(state) == [36, 0]
    events = when(state, 0, {"type": "play", "card": "3G", "player": 0, "column": 1})
    assert events[0].data["move"] == "reinforce"
    after = then(state, events)
    assert column(after, 0, 1) == ["MAUW", "MAUW", "3G"] and points(after) == [12, 0]


def test_a_spirit_does_not_reinforce():
    """§Renforcer: reinforcing is playing a Warrior — a Spirit on an own slot is refused (not_a_warrior)."""
    state = lone_1r()
    assert refused(state, 0, {"type": "play", "card": "SPIRIT", "player": 0, "column": 1}).code == "not_a_warrior"
    assert refused(state, 0, {"type": "play", "card": "SPIRIT", "player": 0, "column": 0}).code == "not_a_warrior"


def test_a_warrior_goes_on_an_own_warrior_only_of_the_same_colour():
    """§Renforcer: "sur un guerrier de même couleur" — another colour is refused (colour_mismatch)."""
    hands = [["1R", "3G", "1R", "SPIRIT"], ["2Y", "7Y", "6G", "JOKER"]]
    state = given(deal(hands, talon=pile("6G", "3G", "4B")), reinforced(0, "1R", 0, "6G", 1), reinforced(1, "2Y", 0, "3G", 0))
    assert refused(state, 0, {"type": "play", "card": "3G", "player": 0, "column": 0}).code == "colour_mismatch"


def test_an_association_of_different_values_discards_both_and_wins_the_top_of_the_draw_pile_as_a_mauw():
    """§Association de valeur différente: both Warriors are discarded, the player takes 1 Mauw from the top of the draw pile."""
    state = lone_1r()
    events = when(state, 0, {"type": "play", "card": "8R", "player": 0, "column": 0, "place": 0})
    assert events == [
        E("CardPlayed", {"card": "8R", "as": None, "player": 0, "column": 0, "move": "associate"}, 0),
        E("WarriorsAssociated", {"player": 0, "column": 0, "same": False}, 0),
        E("MauwWon", {"place": 0}, 0),  # the 5B on top of the draw pile, face down
        E("CardsDrawn", {"cards": ["4B"]}, 0),
        E("TurnEnded", {"next": 1}),
    ]
    after = then(state, events)
    assert column(after, 0, 0) == ["MAUW"] and points(after) == [18, 2]
    view = GAME.view(after, None)
    assert (view["discard_size"], view["discard_top"], view["talon_size"]) == (2, "8R", 0)


def test_an_association_of_the_same_value_turns_one_card_into_a_mauw_and_places_both_together():
    """§Association de même valeur: one card is turned to its Mauw side, both are placed together."""
    state = lone_1r()
    events = when(state, 0, {"type": "play", "card": "1R", "player": 0, "column": 0, "place": 2})
    assert events == [
        E("CardPlayed", {"card": "1R", "as": None, "player": 0, "column": 0, "move": "associate"}, 0),
        E("WarriorsAssociated", {"player": 0, "column": 0, "same": True}, 0),
        E("PairPlaced", {"place": 2}, 0),
        E("CardsDrawn", {"cards": ["5B"]}, 0),
        E("TurnEnded", {"next": 1}),
    ]
    after = then(state, events)
    assert column(after, 0, 0) == [] and column(after, 0, 2) == ["MAUW", "1R"]
    assert points(after) == [2, 2] and GAME.view(after, None)["discard_size"] == 0


def test_the_won_mauw_goes_on_an_empty_slot_or_a_mauw_column():
    """§Association: the Mauw is placed "sur un emplacement vide ou une colonne de Mauw" — never on a lone Warrior."""
    hands = [["1R", "8R", "3G", "SPIRIT"], ["2Y", "7Y", "6G", "JOKER"]]
    state = given(
        deal(hands, talon=pile("6G", "3G", "5B", "5B", "4B", "4B")),
        reinforced(0, "1R", 0, "6G", 1),
        reinforced(1, "2Y", 0, "3G", 0),
        reinforced(0, "3G", 1, "5B", 1),
        reinforced(1, "7Y", 1, "5B", 0),
    )
    wins = sorted(a["place"] for a in GAME.legal_actions(state, 0) if a.get("card") == "8R" and a["column"] == 0)
    assert wins == [0, 2, 3]
    for place in (1, 4, None, "0"):
        action = {"type": "play", "card": "8R", "player": 0, "column": 0, "place": place}
        assert refused(state, 0, action).code == "bad_placement"


def test_a_column_holds_at_most_3_mauw_and_a_fourth_card_is_never_a_mauw():
    """§Mise en place: at most 4 cards, at most 3 Mauw; the fourth (top) card is never a Mauw."""
    hands = [["1R", "8R", "3G", "SPIRIT"], ["2Y", "7Y", "6G", "JOKER"]]
    state = given(
        deal(hands, talon=pile("6G", "6G", "6G", "4B", "5B", "5B", "4B")),
        mauw(0, 1, 3),
        reinforced(0, "1R", 0, "4B", 1),
        reinforced(1, "2Y", 0, "5B", 0),
    )
    # No Mauw on a column of three Mauw...
    assert refused(state, 0, {"type": "play", "card": "8R", "player": 0, "column": 0, "place": 1}).code == "bad_placement"
    # ...but a Warrior may be the fourth card.
    after = then(state, when(state, 0, {"type": "play", "card": "3G", "player": 0, "column": 1}))
    assert column(after, 0, 1) == ["MAUW", "MAUW", "MAUW", "3G"] and points(after)[0] == 1 + 24


def test_a_play_area_has_at_most_4_columns():
    """§Mise en place: up to 4 columns — a fifth is refused (no_such_column)."""
    state = lone_1r()
    assert refused(state, 0, {"type": "play", "card": "8R", "player": 0, "column": 4}).code == "no_such_column"
    assert refused(state, 0, {"type": "play", "card": "8R", "player": 2, "column": 0}).code == "no_such_column"


def _full_area():
    """Seat 0: column 0 is three Mauw under its own 1R, columns 1–3 lone Warriors; it holds 8R and 1R."""
    hands = [["2Y", "7Y", "3G", "1R"], ["4B", "5B", "4B", "5B"]]
    return given(
        deal(hands, talon=pile("6G", "6G", "6G", "8R", "4B", "2Y", "5B", "6G", "4B", "1R", "5B", "SPIRIT", "7Y")),
        mauw(0, 0, 3),
        reinforced(0, "2Y", 1, "8R", 1),
        reinforced(1, "4B", 0, "4B", 0),
        reinforced(0, "7Y", 2, "2Y", 1),
        reinforced(1, "5B", 1, "5B", 0),
        reinforced(0, "3G", 3, "6G", 1),
        reinforced(1, "4B", 2, "4B", 0),
        reinforced(0, "1R", 0, "1R", 1),
        reinforced(1, "5B", 3, "5B", 0),
    )


def test_a_won_mauw_that_cannot_be_placed_is_lost_and_discarded():
    """§Débloquer, Remarque: "Si les cartes gagnées lors d'une association ne peuvent être posées, elles sont perdues et défaussées"."""
    state = _full_area()
    assert column(state, 0, 0) == ["MAUW", "MAUW", "MAUW", "1R"]
    legal = [a for a in GAME.legal_actions(state, 0) if a.get("card") == "8R"]
    assert legal == [{"type": "play", "card": "8R", "player": 0, "column": 0}]
    events = when(state, 0, {"type": "play", "card": "8R", "player": 0, "column": 0})
    assert events == [
        E("CardPlayed", {"card": "8R", "as": None, "player": 0, "column": 0, "move": "associate"}, 0),
        E("WarriorsAssociated", {"player": 0, "column": 0, "same": False}, 0),
        E("MauwLost", {"card": "SPIRIT"}, 0),
        E("CardsDrawn", {"cards": ["7Y"]}, 0),
        E("TurnEnded", {"next": 1}),
    ]
    after = then(state, events)
    assert column(after, 0, 0) == ["MAUW"] * 3
    view = GAME.view(after, None)
    assert (view["discard_size"], view["discard_top"]) == (3, "SPIRIT")
    placed = {"type": "play", "card": "8R", "player": 0, "column": 0, "place": 0}
    assert refused(_full_area(), 0, placed).code == "bad_placement"


def test_a_won_pair_that_cannot_be_placed_is_lost_and_discarded():
    """§Débloquer, Remarque: a same-value pair with nowhere to go is discarded too."""
    state = _full_area()
    events = when(state, 0, {"type": "play", "card": "1R", "player": 0, "column": 0})
    assert events[1:3] == [
        E("WarriorsAssociated", {"player": 0, "column": 0, "same": True}, 0),
        E("PairLost", {}, 0),
    ]
    after = then(state, events)
    assert column(after, 0, 0) == ["MAUW"] * 3
    assert GAME.view(after, None)["discard_size"] == 2


def test_a_joker_is_declared_as_a_specific_card_and_stays_that_card():
    """§Matériel, rulings: a Joker replaces any card, declared when played, and stays that card."""
    hands = [["JOKER", "6G", "1R", "SPIRIT"], ["2Y", "7Y", "6G", "JOKER"]]
    state = given(deal(hands, talon=pile("8R", "3G", "5B", "4B")))
    events = when(state, 0, {"type": "play", "card": "JOKER", "as": "3G", "player": 0, "column": 0})
    assert events[0] == E("CardPlayed", {"card": "JOKER", "as": "3G", "player": 0, "column": 0, "move": "reinforce"}, 0)
    state = then(state, events)
    assert column(state, 0, 0) == ["*3G"] and points(state) == [3, 0]
    state = then(state, when(state, 1, {"type": "play", "card": "2Y", "player": 1, "column": 0}))
    # It is a green 3 for the association: 6G makes a different-value association.
    events = when(state, 0, {"type": "play", "card": "6G", "player": 0, "column": 0, "place": 0})
    assert events[1] == E("WarriorsAssociated", {"player": 0, "column": 0, "same": False}, 0)
    after = then(state, events)
    assert GAME.view(after, None)["discard_top"] == "6G" and GAME.view(after, None)["discard_size"] == 2


def test_a_joker_played_on_a_warrior_makes_an_association():
    """§Renforcer, Important: "Un Guerrier (ou un Joker) joué sur un autre Guerrier de même couleur entraine une association"."""
    hands = [["1R", "JOKER", "3G", "SPIRIT"], ["2Y", "7Y", "6G", "JOKER"]]
    state = given(deal(hands, talon=pile("6G", "3G", "5B", "4B")), reinforced(0, "1R", 0, "6G", 1), reinforced(1, "2Y", 0, "3G", 0))
    declared = sorted(a["as"] for a in GAME.legal_actions(state, 0) if a.get("card") == "JOKER" and a["column"] == 0 and a["player"] == 0)
    assert set(declared) == {"1R", "8R"}
    events = when(state, 0, {"type": "play", "card": "JOKER", "as": "1R", "player": 0, "column": 0, "place": 0})
    assert events[1] == E("WarriorsAssociated", {"player": 0, "column": 0, "same": True}, 0)
    after = then(state, events)
    assert column(after, 0, 0) == ["MAUW", "*1R"] and points(after)[0] == 2
