"""Mauw: what each seat sees — views, the feed, refusal messages (issue 5, Views)."""

import json

from tests.games.mauw.given import deal, given, mauw, pile, refused, reinforced, then, when
from tests.invariants import strings_in
from shared.games.mauw import GAME
from shared.games.mauw.cards import CARDS

# Seat 0 holds reds, seat 1 yellows; the talon alone holds blues; Mauw faces are green.
HANDS = [["1R", "8R", "1R", "SPIRIT"], ["2Y", "7Y", "2Y", "JOKER"]]
DRAW = pile("6G", "3G", "6G", "5B", "4B", "5B", "4B")


def position():
    """Seat 0 has a Mauw (green face) in column 1 and a lone 1R; seat 1 a lone 2Y."""
    return given(
        deal(HANDS, talon=DRAW),
        mauw(0, 1),
        reinforced(0, "1R", 0, "3G", 1),
        reinforced(1, "2Y", 0, "6G", 0),
    )


def test_a_seat_sees_its_own_hand_and_only_its_own():
    """Issue 5, Views: own hand; others only as counts."""
    state = position()
    assert GAME.view(state, 0)["hand"] == ["8R", "1R", "SPIRIT", "3G"]
    assert GAME.view(state, 1)["hand"] == ["7Y", "2Y", "JOKER", "6G"]
    assert GAME.view(state, None)["hand"] is None
    assert GAME.view(state, 0)["hand_sizes"] == [4, 4]
    assert not {"7Y", "JOKER", "6G"} & set(strings_in(GAME.view(state, 0)))
    assert not {"8R", "SPIRIT", "3G"} & set(strings_in(GAME.view(state, 1)))
    assert not {"8R", "SPIRIT", "3G", "7Y", "JOKER", "6G"} & set(strings_in(GAME.view(state, None)))


def test_every_play_area_is_public_but_a_mauw_shows_only_its_back():
    """Issue 5, Views; §Matériel: all backs are identical "Mauw" — even the owner does not see the face."""
    state = position()
    for seat in (0, 1, None):
        view = GAME.view(state, seat)
        assert view["areas"][0][1] == {"cards": ["MAUW"], "mauw": 1, "top": None, "points": 18}
        assert view["areas"][0][0]["cards"] == ["1R"] and view["areas"][1][0]["cards"] == ["2Y"]
        assert view["points"] == [19, 2]
        json.dumps(view)
    # The face (a 6G from the draw pile) appears nowhere but in seat 1's own hand.
    assert "6G" not in strings_in(GAME.view(state, 0)) and "6G" not in strings_in(GAME.view(state, None))


def test_the_talon_is_hidden():
    """Issue 5, Views: the talon (draw pile) shows only its size."""
    state = position()
    for seat in (0, 1, None):
        view = GAME.view(state, seat)
        assert view["talon_size"] == 4
        assert not {"4B", "5B"} & set(strings_in(view))


def test_the_deal_shows_each_seat_only_its_own_hand():
    """§Mise en place: the deal event is redacted per seat; the talon's order stays hidden."""
    event = deal(HANDS, talon=DRAW)
    for seat in (0, 1, None):
        red = GAME.redact(event, seat)
        assert red.data["hands"] == [h if i == seat else None for i, h in enumerate(HANDS)]
        assert "talon" not in red.data and red.data["talon_size"] == 7 and red.data["hand_sizes"] == [4, 4]
    assert event.data["hands"] == HANDS  # the log itself is untouched


def test_a_drawn_card_is_shown_only_to_its_drawer():
    """§Déroulement: the card drawn is seen by its drawer only."""
    state = given(deal(HANDS, talon=DRAW))
    events = when(state, 0, {"type": "play", "card": "1R", "player": 0, "column": 0})
    draw = events[1]
    assert GAME.redact(draw, 0).data == {"cards": ["6G"]}
    assert GAME.redact(draw, 1).data == {"count": 1} and GAME.redact(draw, None).data == {"count": 1}
    assert GAME.redact(events[0], 1) == events[0]  # the played card is public


def test_a_reshuffled_talon_shows_only_its_size():
    """§Déroulement: the reshuffled discard pile becomes a hidden talon."""
    state = given(deal([["SPIRIT"] * 4, ["2Y", "7Y", "2Y", "JOKER"]], talon=[]))
    events = when(state, 0, {"type": "discard_hand"})
    rebuilt = events[1]
    assert rebuilt.type == "TalonReshuffled"
    for seat in (0, 1, None):
        assert GAME.redact(rebuilt, seat).data == {"talon_size": 4}


def test_a_won_mauw_never_carries_its_face():
    """§Association: the Mauw is taken face down from the draw pile — its face is in no event."""
    state = position()
    events = when(state, 0, {"type": "play", "card": "8R", "player": 0, "column": 0, "place": 0})
    won = [e for e in events if e.type == "MauwWon"]
    assert won and all(e.data == {"place": 0} for e in won)


def test_an_attack_in_progress_is_public():
    """Rulings: the chain is public — who attacks whom, the card lying on the target, who must reply."""
    state = given(
        deal([["1R", "8R", "3G", "SPIRIT"], ["8R", "7Y", "2Y", "JOKER"]], talon=pile("6G", "5B")),
        reinforced(0, "1R", 0, "6G", 1),
    )
    state = then(state, when(state, 1, {"type": "play", "card": "8R", "player": 0, "column": 0, "place": 0}))
    chain = GAME.view(state, 0)["chain"]
    assert chain == {"attacker": 1, "defender": 0, "column": 0, "value": "8R", "card": "8R", "place": 0, "waiting": 0, "attacks": 1}
    assert GAME.view(state, None)["awaiting"] == [0] and GAME.view(state, None)["phase"] == "chain"


def test_refusal_messages_never_name_a_card():
    """Contract: an error message never names a card the seat cannot see (ours: none names any card code)."""
    state = position()
    actions = [
        {"type": "play", "card": "7Y", "player": 0, "column": 2},
        {"type": "play", "card": "JOKER", "player": 0, "column": 2},
        {"type": "play", "card": "8R", "as": "4B", "player": 0, "column": 2},
        {"type": "play", "card": "SPIRIT", "player": 0, "column": 2},
        {"type": "play", "card": "8R", "player": 1, "column": 0},
        {"type": "play", "card": "8R", "player": 1, "column": 2},
        {"type": "play", "card": "8R", "player": 0, "column": 0, "place": 5},
        {"type": "play", "card": "8R", "player": 0, "column": 9},
        {"type": "play", "card": 7, "player": 0, "column": 0},
        {"type": "discard_hand"},
        {"type": "fly"},
    ]
    codes = set()
    for action in actions:
        err = refused(state, 0, action)
        codes.add(err.code)
        assert not any(code in err.message for code in CARDS + ("MAUW",)), err.message
    assert len(codes) == 9
    err = refused(state, 1, {"type": "play", "card": "2Y", "player": 1, "column": 1})
    assert err.code == "not_your_turn"
