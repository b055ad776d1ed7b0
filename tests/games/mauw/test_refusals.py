"""Mauw: malformed and illegal actions are refused with stable codes (contract)."""

import pytest

from tests.games.mauw.given import deal, given, mauw, pile, refused, reinforced, then, when
from shared.games.mauw.rules import REFUSAL_CODES

HANDS = [["1R", "8R", "JOKER", "SPIRIT"], ["2Y", "7Y", "6G", "SPIRIT"]]


def position():
    """Seat 0: a lone 1R in column 0; seat 1: a Mauw in column 1 and a lone 2Y in column 0; seat 0 to play."""
    return given(deal(HANDS, talon=pile("4B", "3G", "5B", "5B", "4B")), mauw(1, 1), reinforced(0, "1R", 0, "3G", 1), reinforced(1, "2Y", 0, "5B", 0))


@pytest.mark.parametrize(
    "action",
    [
        "play",
        ["play"],
        {},
        {"type": "fly"},
        {"type": "play", "player": 0, "column": 1},
        {"type": "play", "card": 8, "player": 0, "column": 1},
        {"type": "play", "card": "8R", "player": "0", "column": 1},
        {"type": "play", "card": "8R", "player": 0, "column": 1.0},
        {"type": "play", "card": "8R", "player": 0, "column": True},
        {"type": "play", "card": "8R", "player": 0},
        {"type": "defend", "card": "8R"},
    ],
)
def test_a_malformed_action_is_refused_with_bad_action(action):
    """Contract: a missing or unknown type or field is bad_action."""
    assert refused(position(), 0, action).code == "bad_action"


def test_a_card_must_be_in_the_hand():
    """§Déroulement: a player plays "1 carte de leurs mains" (card_not_in_hand)."""
    assert refused(position(), 0, {"type": "play", "card": "6G", "player": 0, "column": 1}).code == "card_not_in_hand"
    assert refused(position(), 0, {"type": "play", "card": "MAUW", "player": 0, "column": 1}).code == "card_not_in_hand"


@pytest.mark.parametrize("as_", [None, "JOKER", "MAUW", "*3G", "9G", ["3G"], 3])
def test_a_joker_must_be_declared_as_a_card(as_):
    """§Matériel, rulings: a Joker is declared as a specific Warrior or Spirit when played (bad_declaration)."""
    action = {"type": "play", "card": "JOKER", "player": 0, "column": 1, "as": as_}
    assert refused(position(), 0, action).code == "bad_declaration"


def test_only_a_joker_is_declared():
    """Rulings: "as" belongs to a Joker only."""
    action = {"type": "play", "card": "8R", "as": "4B", "player": 0, "column": 1}
    assert refused(position(), 0, action).code == "bad_declaration"


def test_place_is_only_for_won_cards():
    """§Association: only an association (or an attack) wins cards to place (bad_placement)."""
    action = {"type": "play", "card": "8R", "player": 0, "column": 1, "place": 1}
    assert refused(position(), 0, action).code == "bad_placement"


def test_the_player_key_defaults_to_the_own_area():
    """Ours: a play without "player" goes to the player's own area."""
    events = when(position(), 0, {"type": "play", "card": "8R", "column": 2})
    assert events[0].data["player"] == 0 and events[0].data["move"] == "reinforce"


def _chain():
    state = position()
    state = then(state, when(state, 0, {"type": "play", "card": "8R", "player": 0, "column": 2}))
    # Seat 1 attacks nothing of seat 0's red with yellow; seat 1 reinforces, then seat 0 attacks the lone 2Y.
    state = then(state, when(state, 1, {"type": "play", "card": "6G", "player": 1, "column": 2}))
    return then(state, when(state, 0, {"type": "play", "card": "JOKER", "as": "7Y", "player": 1, "column": 0, "place": 3}))


def test_every_refusal_code_is_reachable():
    """Contract: each documented refusal code is raised by some action (and no other code exists)."""
    pos = position()
    chain = _chain()
    over = given(deal([["2Y", "1R", "8R", "3G"], ["7Y", "6G", "3G", "4B"]], talon=["5B"]))
    over = then(over, when(over, 0, {"type": "play", "card": "2Y", "player": 0, "column": 0}))
    over = then(over, when(over, 1, {"type": "play", "card": "7Y", "player": 1, "column": 0}))
    cases = [
        (over, 0, {"type": "discard_hand"}),
        (pos, 1, {"type": "discard_hand"}),
        (pos, 0, {"type": "fly"}),
        (pos, 0, {"type": "play", "card": "6G", "player": 0, "column": 1}),
        (pos, 0, {"type": "play", "card": "JOKER", "player": 0, "column": 1}),
        (pos, 0, {"type": "play", "card": "8R", "player": 0, "column": 4}),
        (pos, 0, {"type": "play", "card": "SPIRIT", "player": 0, "column": 1}),
        (pos, 0, {"type": "play", "card": "8R", "player": 1, "column": 0}),
        (pos, 0, {"type": "play", "card": "SPIRIT", "player": 1, "column": 2}),
        (pos, 0, {"type": "play", "card": "8R", "player": 0, "column": 0}),
        (pos, 0, {"type": "discard_hand"}),
        (chain, 1, {"type": "defend", "card": "SPIRIT"}),
    ]
    codes = [refused(state, seat, action).code for state, seat, action in cases]
    assert "column_blocked" not in codes
    blocked = then(position(), when(position(), 0, {"type": "play", "card": "SPIRIT", "player": 1, "column": 1}))
    codes.append(refused(blocked, 1, {"type": "play", "card": "7Y", "player": 1, "column": 1}).code)
    limited = given(deal([["6G", "6G", "2Y", "2Y"], ["3G", "6G", "1R", "1R"]], talon=pile("4B", "7Y", "7Y"), first=1, chain_limit=1))
    limited = then(limited, when(limited, 1, {"type": "play", "card": "3G", "player": 1, "column": 0}))
    limited = then(limited, when(limited, 0, {"type": "play", "card": "6G", "player": 1, "column": 0, "place": 0}))
    limited = then(limited, when(limited, 1, {"type": "defend", "card": "6G"}))
    codes.append(refused(limited, 0, {"type": "continue", "card": "6G"}).code)
    assert sorted(codes) == sorted(REFUSAL_CODES)
