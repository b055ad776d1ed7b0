"""Mauw: blocking an opponent's Mauw column and unblocking (§Bloquer, §Débloquer)."""

from tests.games.mauw.given import E, column, deal, drawn, ended, given, mauw, pile, played, points, refused, then, when
from shared.games.mauw import GAME

HANDS = [["SPIRIT", "3G", "JOKER", "1R"], ["SPIRIT", "6G", "JOKER", "2Y"]]


def seat1_has_mauw(hands=HANDS, players: int = 2, **options):
    """Seat 1 has one Mauw in column 0 and two in column 1; seat 0 to play."""
    hands = hands + [["4B", "4B", "5B", "5B"]] * (players - 2)
    return given(deal(hands, talon=pile("7Y", "7Y", "7Y", "8R", "2Y", "5B", "4B"), **options), mauw(1, 0), mauw(1, 1, 2))


def blocked_by_a_spirit(hands=HANDS):
    """As above, then seat 0 covered seat 1's column 0 with a Spirit; seat 1 to play."""
    return given(
        deal(hands, talon=pile("7Y", "7Y", "7Y", "8R", "2Y", "5B", "4B")),
        mauw(1, 0),
        mauw(1, 1, 2),
        played(0, "SPIRIT", 0, player=1, move="block"),
        drawn(0, "8R"),
        ended(1),
    )


def test_a_spirit_on_an_opponents_mauw_column_brings_its_points_to_0():
    """§Bloquer 1: "L'esprit posé réduit les points de la colonne à 0"."""
    state = seat1_has_mauw()
    assert points(state) == [0, 18 + 36]
    events = when(state, 0, {"type": "play", "card": "SPIRIT", "player": 1, "column": 0})
    assert events == [
        E("CardPlayed", {"card": "SPIRIT", "as": None, "player": 1, "column": 0, "move": "block"}, 0),
        E("CardsDrawn", {"cards": ["8R"]}, 0),
        E("TurnEnded", {"next": 1}),
    ]
    after = then(state, events)
    assert column(after, 1, 0) == ["MAUW", "SPIRIT"] and points(after) == [0, 0 + 36]


def test_a_warrior_on_an_opponents_mauw_column_covers_the_9_with_its_value():
    """§Bloquer 2: "le 9 est recouvert par une nouvelle valeur" — a 3 on two Mauw scores 12."""
    state = seat1_has_mauw()
    events = when(state, 0, {"type": "play", "card": "3G", "player": 1, "column": 1})
    assert events[0] == E("CardPlayed", {"card": "3G", "as": None, "player": 1, "column": 1, "move": "block"}, 0)
    after = then(state, events)
    assert column(after, 1, 1) == ["MAUW", "MAUW", "3G"] and points(after) == [0, 18 + 12]


def test_a_joker_blocks_as_the_card_it_is_declared():
    """§Matériel, §Bloquer: a Joker declared as a Spirit blocks to 0; declared as a Warrior, to its value."""
    state = seat1_has_mauw()
    declared = {a["as"] for a in GAME.legal_actions(state, 0) if a.get("card") == "JOKER" and a["player"] == 1 and a["column"] == 0}
    assert declared == {"1R", "2Y", "3G", "4B", "5B", "6G", "7Y", "8R", "SPIRIT"}
    after = then(state, when(state, 0, {"type": "play", "card": "JOKER", "as": "SPIRIT", "player": 1, "column": 0}))
    assert column(after, 1, 0) == ["MAUW", "*SPIRIT"] and points(after)[1] == 36
    state = seat1_has_mauw()
    after = then(state, when(state, 0, {"type": "play", "card": "JOKER", "as": "5B", "player": 1, "column": 1}))
    assert points(after)[1] == 18 + 5 * 4


def test_only_an_opponents_uncovered_mauw_column_can_be_blocked():
    """§Bloquer: a block goes "sur une colonne de Mauw adverse" — not an empty slot, not a covered column, not one's own."""
    state = seat1_has_mauw()
    assert refused(state, 0, {"type": "play", "card": "SPIRIT", "player": 1, "column": 2}).code == "empty_slot"
    assert refused(state, 0, {"type": "play", "card": "3G", "player": 1, "column": 3}).code == "empty_slot"
    hands = [["SPIRIT", "3G", "JOKER", "1R"], ["SPIRIT", "6G", "JOKER", "2Y"]]
    state = given(
        deal(hands, talon=pile("7Y", "7Y", "7Y", "8R", "2Y", "5B", "4B"), first=1),
        mauw(0, 0),
        played(1, "SPIRIT", 0, player=0, move="block"),
        drawn(1, "7Y"),
        ended(0),
        played(0, "1R", 1),
        drawn(0, "7Y"),
        ended(1),
    )
    # Seat 1 may not cover seat 0's Spirit-covered column 0 again, nor put a Spirit on its lone 1R.
    assert refused(state, 1, {"type": "play", "card": "JOKER", "as": "SPIRIT", "player": 0, "column": 0}).code == "column_blocked"
    assert refused(state, 1, {"type": "play", "card": "6G", "player": 0, "column": 0}).code == "column_blocked"
    assert refused(state, 1, {"type": "play", "card": "JOKER", "as": "SPIRIT", "player": 0, "column": 1}).code == "not_a_warrior"


def test_a_spirit_cannot_block_ones_own_column():
    """§Bloquer: only an opponent's column is blocked; a Spirit on one's own Mauw column is refused."""
    hands = [["SPIRIT", "3G", "JOKER", "1R"], ["SPIRIT", "6G", "JOKER", "2Y"]]
    state = given(deal(hands, talon=pile("7Y", "5B")), mauw(0, 0))
    assert refused(state, 0, {"type": "play", "card": "SPIRIT", "player": 0, "column": 0}).code == "not_a_warrior"


def test_a_blocked_player_waits_for_their_turn_to_unblock():
    """§Bloquer, Important: "il doit attendre son tour de jeu pour se débloquer"."""
    state = seat1_has_mauw(players=3)
    state = then(state, when(state, 0, {"type": "play", "card": "SPIRIT", "player": 1, "column": 0}))
    assert GAME.awaiting(state) == {1}
    hands = [HANDS[0], ["4B", "4B", "5B", "5B"], HANDS[1]]
    state = given(deal(hands, talon=pile("7Y", "7Y", "7Y", "8R", "2Y", "5B", "4B")), mauw(2, 0))
    state = then(state, when(state, 0, {"type": "play", "card": "SPIRIT", "player": 2, "column": 0}))
    assert GAME.awaiting(state) == {1}
    assert refused(state, 2, {"type": "play", "card": "SPIRIT", "player": 2, "column": 0}).code == "not_your_turn"


def test_unblocking_a_spirit_with_a_spirit_discards_both_and_ends_the_turn():
    """§Débloquer: "un autre Esprit dessus ... les 2 Esprits sont défaussés et le tour du joueur prend fin"."""
    state = blocked_by_a_spirit()
    assert points(state) == [0, 36]
    events = when(state, 1, {"type": "play", "card": "SPIRIT", "player": 1, "column": 0})
    assert events == [
        E("CardPlayed", {"card": "SPIRIT", "as": None, "player": 1, "column": 0, "move": "unblock"}, 1),
        E("CardsDrawn", {"cards": ["2Y"]}, 1),
        E("TurnEnded", {"next": 0}),
    ]
    after = then(state, events)
    assert column(after, 1, 0) == ["MAUW"] and points(after) == [0, 18 + 36]
    view = GAME.view(after, None)
    assert (view["discard_size"], view["discard_top"]) == (2, "SPIRIT")


def test_a_joker_also_unblocks_a_spirit():
    """§Débloquer: "jouer un autre Esprit dessus (ou un Joker)" — both go to the discard pile."""
    state = blocked_by_a_spirit()
    assert {"type": "play", "card": "JOKER", "as": "SPIRIT", "player": 1, "column": 0} in GAME.legal_actions(state, 1)
    events = when(state, 1, {"type": "play", "card": "JOKER", "as": "SPIRIT", "player": 1, "column": 0})
    assert events[0].data["move"] == "unblock"
    after = then(state, events)
    assert column(after, 1, 0) == ["MAUW"]
    assert GAME.view(after, None)["discard_top"] == "JOKER"


def test_only_a_spirit_unblocks_a_spirit():
    """§Débloquer: a Warrior on one's own Spirit-covered column is refused (column_blocked)."""
    state = blocked_by_a_spirit()
    assert refused(state, 1, {"type": "play", "card": "6G", "player": 1, "column": 0}).code == "column_blocked"
    assert refused(state, 1, {"type": "play", "card": "JOKER", "as": "6G", "player": 1, "column": 0}).code == "column_blocked"


def test_a_warrior_block_is_lifted_by_an_association_of_its_owner():
    """§Bloquer 2 with §Renforcer: the owner plays a Warrior of the same colour on the blocking Warrior — an association for the owner."""
    state = seat1_has_mauw()
    state = then(state, when(state, 0, {"type": "play", "card": "3G", "player": 1, "column": 1}))
    events = when(state, 1, {"type": "play", "card": "6G", "player": 1, "column": 1, "place": 1})
    assert events[:3] == [
        E("CardPlayed", {"card": "6G", "as": None, "player": 1, "column": 1, "move": "associate"}, 1),
        E("WarriorsAssociated", {"player": 1, "column": 1, "same": False}, 1),
        E("MauwWon", {"place": 1}, 1),
    ]
    after = then(state, events)
    assert column(after, 1, 1) == ["MAUW"] * 3 and points(after) == [0, 18 + 72]
