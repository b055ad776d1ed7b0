"""Mauw: turns, drawing, the draw pile and the dead hand (§Déroulement)."""

from tests.games.mauw.given import E, deal, drawn, ended, given, mauw, played, refused, then, when
from shared.games.mauw import GAME

HANDS = [["1R", "8R", "3G", "SPIRIT"], ["2Y", "7Y", "6G", "JOKER"]]


def test_after_playing_a_card_the_player_draws_a_new_one():
    """§Déroulement: "Après avoir joué une carte, le joueur doit alors piocher directement une nouvelle carte"."""
    state = given(deal(HANDS, talon=["4B", "5B"]))
    events = when(state, 0, {"type": "play", "card": "1R", "player": 0, "column": 0})
    assert events == [
        E("CardPlayed", {"card": "1R", "as": None, "player": 0, "column": 0, "move": "reinforce"}, 0),
        E("CardsDrawn", {"cards": ["5B"]}, 0),
        E("TurnEnded", {"next": 1}),
    ]
    after = then(state, events)
    assert GAME.view(after, 0)["hand"] == ["8R", "3G", "SPIRIT", "5B"]


def test_a_player_always_holds_4_cards_at_the_end_of_a_turn():
    """§Déroulement: "Un joueur doit toujours avoir 4 cartes en main"."""
    state = given(deal(HANDS, talon=["4B", "5B", "4B"]))
    state = then(state, when(state, 0, {"type": "play", "card": "1R", "player": 0, "column": 0}))
    state = then(state, when(state, 1, {"type": "play", "card": "2Y", "player": 1, "column": 0}))
    assert GAME.view(state, None)["hand_sizes"] == [4, 4]


def test_players_take_turns_clockwise():
    """§Déroulement: players play in turn, clockwise (to the left: seat + 1, wrapping round)."""
    hands = [["1R", "8R", "3G", "6G"], ["2Y", "7Y", "6G", "3G"], ["4B", "5B", "4B", "5B"]]
    state = given(deal(hands, talon=["1R", "2Y", "3G"], first=1))
    assert GAME.awaiting(state) == {1}
    state = then(state, when(state, 1, {"type": "play", "card": "2Y", "player": 1, "column": 0}))
    assert GAME.awaiting(state) == {2}
    events = when(state, 2, {"type": "play", "card": "4B", "player": 2, "column": 0})
    assert events[-1] == E("TurnEnded", {"next": 0})


def test_only_the_player_whose_turn_it_is_may_play():
    """§Déroulement: "tour à tour" — another seat is refused with not_your_turn."""
    state = given(deal(HANDS, talon=["4B"]))
    assert refused(state, 1, {"type": "play", "card": "2Y", "player": 1, "column": 0}).code == "not_your_turn"
    assert GAME.legal_actions(state, 1) == []


def _empty_draw_pile_with_two_discards():
    hands = [["1R", "8R", "3G", "3G"], ["2Y", "2Y", "2Y", "2Y"]]
    return given(
        deal(hands, talon=["6G", "7Y", "4B", "5B"]),
        played(0, "1R", 0),
        drawn(0, "5B"),
        ended(1),
        played(1, "2Y", 0),
        drawn(1, "4B"),
        ended(0),
        played(0, "8R", 0, move="associate"),
        E("WarriorsAssociated", {"player": 0, "column": 0, "same": False}, 0),
        mauw(0, 0),
        drawn(0, "6G"),
        ended(1),
    )


def test_an_empty_draw_pile_is_rebuilt_by_shuffling_the_discard_pile():
    """§Déroulement: "Si la pioche est vide, celle-ci est reformée en mélangeant la défausse"."""
    state = _empty_draw_pile_with_two_discards()
    view = GAME.view(state, None)
    assert (view["talon_size"], view["discard_size"]) == (0, 2)
    orders = set()
    for seed in range(12):
        state = _empty_draw_pile_with_two_discards()
        events = when(state, 1, {"type": "play", "card": "2Y", "player": 1, "column": 1}, seed=seed)
        rebuilt = events[1]
        assert rebuilt.type == "TalonReshuffled" and sorted(rebuilt.data["talon"]) == ["1R", "8R"]
        assert events[2] == E("CardsDrawn", {"cards": [rebuilt.data["talon"][-1]]}, 1)
        orders.add(tuple(rebuilt.data["talon"]))
        after = then(state, events)
        view = GAME.view(after, None)
        assert (view["talon_size"], view["discard_size"]) == (1, 0)
    assert len(orders) == 2  # really shuffled


def test_a_player_who_cannot_play_discards_the_whole_hand_and_draws_4():
    """§Déroulement: "Un joueur qui, à son tour, ne peut pas jouer de carte doit défausser toute sa main puis piocher 4 nouvelles cartes"."""
    hands = [["SPIRIT", "SPIRIT", "SPIRIT", "JOKER"], ["2Y", "7Y", "6G", "3G"]]
    state = given(deal(hands, talon=["1R", "2Y", "3G", "4B", "5B"]))
    # The Joker could stand for a Warrior on an empty slot: not a dead hand yet.
    assert {"type": "discard_hand"} not in GAME.legal_actions(state, 0)
    hands = [["SPIRIT", "SPIRIT", "SPIRIT", "SPIRIT"], ["2Y", "7Y", "6G", "3G"]]
    state = given(deal(hands, talon=["1R", "2Y", "3G", "4B", "5B"]))
    assert GAME.legal_actions(state, 0) == [{"type": "discard_hand"}]
    events = when(state, 0, {"type": "discard_hand"})
    assert events == [
        E("HandDiscarded", {"cards": ["SPIRIT", "SPIRIT", "SPIRIT", "SPIRIT"]}, 0),
        E("CardsDrawn", {"cards": ["5B"]}, 0),
        E("CardsDrawn", {"cards": ["4B"]}, 0),
        E("CardsDrawn", {"cards": ["3G"]}, 0),
        E("CardsDrawn", {"cards": ["2Y"]}, 0),
        E("TurnEnded", {"next": 1}),
    ]
    after = then(state, events)
    assert GAME.view(after, 0)["hand"] == ["5B", "4B", "3G", "2Y"]
    assert GAME.view(after, None)["discard_size"] == 4


def test_warriors_with_nowhere_to_go_make_a_dead_hand():
    """§Déroulement: a hand is dead when no card has a legal place (own slots full of Warriors of other colours)."""
    state = given(
        deal([["1R", "8R", "2Y", "7Y"], ["1R", "2Y", "8R", "7Y"]], talon=["SPIRIT", "5B", "8R", "4B", "2Y", "6G", "1R", "3G"]),
        played(0, "1R", 0), drawn(0, "3G"), ended(1),
        played(1, "1R", 0), drawn(1, "1R"), ended(0),
        played(0, "8R", 1), drawn(0, "6G"), ended(1),
        played(1, "2Y", 1), drawn(1, "2Y"), ended(0),
        played(0, "2Y", 2), drawn(0, "4B"), ended(1),
        played(1, "8R", 2), drawn(1, "8R"), ended(0),
        played(0, "7Y", 3), drawn(0, "5B"), ended(1),
        played(1, "7Y", 3), drawn(1, "SPIRIT"), ended(0),
    )  # fmt: skip
    assert GAME.view(state, 0)["hand"] == ["3G", "6G", "4B", "5B"]
    assert GAME.legal_actions(state, 0) == [{"type": "discard_hand"}]


def test_discarding_the_hand_is_refused_when_a_card_can_be_played():
    """§Déroulement: only a player who cannot play discards the hand (refusal can_play)."""
    state = given(deal(HANDS, talon=["4B"]))
    assert refused(state, 0, {"type": "discard_hand"}).code == "can_play"
