"""Mauw: attacks, defences and chains of replies (§Attaquer, rulings: chains)."""

from tests.games.mauw.given import E, column, deal, given, mauw, pile, points, refused, reinforced, then, when
from shared.games.mauw import GAME

DRAW = pile("1R", "4B", "5B", "8R", "7Y", "2Y", "1R", "4B")


def seat1_lone_3g(hands=None, **options):
    """Seat 1 put a lone 3G in its column 0 (and drew 1R); seat 0 to play."""
    hands = hands or [["6G", "3G", "JOKER", "2Y"], ["3G", "6G", "6G", "JOKER"]]
    return given(deal(hands, talon=DRAW, first=1, **options), reinforced(1, "3G", 0, "1R", 0))


ATTACK = {"type": "play", "card": "6G", "player": 1, "column": 0, "place": 0}


def test_attacking_an_opponents_warrior_gives_the_association_to_the_attacker():
    """§Attaquer 1: "Attaquer un adversaire permet de bénéficier des associations des Guerriers à la place de l'adversaire"."""
    state = seat1_lone_3g()
    events = when(state, 0, ATTACK)
    assert events == [
        E("CardPlayed", {"card": "6G", "as": None, "player": 1, "column": 0, "move": "attack", "place": 0}, 0),
        E("CardsDrawn", {"cards": ["4B"]}, 0),
    ]
    state = then(state, events)
    assert GAME.awaiting(state) == {1}
    assert GAME.legal_actions(state, 1) == [
        {"type": "defend", "card": "6G"},
        {"type": "defend", "card": "JOKER"},
        {"type": "give_up"},
    ]
    events = when(state, 1, {"type": "give_up"})
    assert events == [
        E("GaveUp", {"auto": False}, 1),
        E("WarriorsAssociated", {"player": 1, "column": 0, "same": False}, 0),
        E("MauwWon", {"place": 0}, 0),
        E("TurnEnded", {"next": 1}),
    ]
    after = then(state, events)
    assert column(after, 0, 0) == ["MAUW"] and column(after, 1, 0) == []
    assert points(after) == [18, 0]
    assert GAME.view(after, None)["discard_size"] == 2


def test_an_attack_of_the_same_value_wins_the_pair_for_the_attacker():
    """§Attaquer 1 with §Association de même valeur: the attacker places the Mauw and the Warrior on it."""
    state = seat1_lone_3g()
    state = then(state, when(state, 0, {"type": "play", "card": "3G", "player": 1, "column": 0, "place": 2}))
    events = when(state, 1, {"type": "give_up"})
    assert events[1:3] == [
        E("WarriorsAssociated", {"player": 1, "column": 0, "same": True}, 0),
        E("PairPlaced", {"place": 2}, 0),
    ]
    after = then(state, events)
    assert column(after, 0, 2) == ["MAUW", "3G"] and points(after) == [6, 0]


def test_an_attack_on_a_warrior_covering_mauw_uncovers_them():
    """§Attaquer: a Warrior on an opponent's Mauw column is attackable; once taken the Mauw are uncovered again."""
    hands = [["6G", "3G", "JOKER", "2Y"], ["3G", "6G", "6G", "JOKER"]]
    state = given(deal(hands, talon=DRAW + ["5B"], first=1), mauw(1, 1), reinforced(1, "3G", 1, "1R", 0))
    assert points(state) == [0, 6]
    state = then(state, when(state, 0, {"type": "play", "card": "6G", "player": 1, "column": 1, "place": 3}))
    after = then(state, when(state, 1, {"type": "give_up"}))
    assert column(after, 1, 1) == ["MAUW"] and points(after) == [18, 18]


def test_an_attack_needs_a_warrior_of_the_same_colour():
    """§Attaquer: a Warrior (or Joker) on an opponent's Warrior — an association, so of the same colour."""
    state = seat1_lone_3g()
    assert refused(state, 0, {"type": "play", "card": "2Y", "player": 1, "column": 0}).code == "colour_mismatch"
    spirit = {"type": "play", "card": "JOKER", "as": "SPIRIT", "player": 1, "column": 0}
    assert refused(state, 0, spirit).code == "not_a_warrior"
    assert refused(state, 0, {"type": "play", "card": "6G", "player": 1, "column": 0}).code == "bad_placement"
    jokers = {a["as"] for a in GAME.legal_actions(state, 0) if a.get("card") == "JOKER" and a["player"] == 1}
    assert jokers == {"3G", "6G"}


def test_the_attacked_player_may_defend_with_an_identical_warrior_and_both_cards_are_discarded():
    """§Attaquer 2: "L'adversaire attaqué peut se défendre en jouant un Guerrier identique ... les 2 cartes jouées sont défaussées"."""
    state = then(seat1_lone_3g(), when(seat1_lone_3g(), 0, ATTACK))
    events = when(state, 1, {"type": "defend", "card": "6G"})
    assert events == [E("AttackDefended", {"card": "6G"}, 1), E("CardsDrawn", {"cards": ["5B"]}, 1)]
    after = then(state, events)
    assert column(after, 1, 0) == ["3G"]
    view = GAME.view(after, None)
    assert (view["discard_size"], view["discard_top"]) == (2, "6G")
    assert GAME.awaiting(after) == {0}
    assert GAME.legal_actions(after, 0) == [{"type": "continue", "card": "JOKER"}, {"type": "give_up"}]


def test_a_joker_defends_too():
    """§Attaquer 2: defend with an identical Warrior "(ou un Joker)"."""
    state = then(seat1_lone_3g(), when(seat1_lone_3g(), 0, ATTACK))
    after = then(state, when(state, 1, {"type": "defend", "card": "JOKER"}))
    assert GAME.view(after, None)["discard_top"] == "JOKER" and GAME.awaiting(after) == {0}


def test_a_defence_must_be_identical():
    """§Attaquer 2: only an identical Warrior or a Joker defends (not_identical)."""
    state = then(seat1_lone_3g(), when(seat1_lone_3g(), 0, ATTACK))
    assert refused(state, 1, {"type": "defend", "card": "1R"}).code == "not_identical"
    assert refused(state, 1, {"type": "defend", "card": "3G"}).code == "card_not_in_hand"
    assert refused(state, 1, {"type": "defend", "card": "JOKER", "as": "3G"}).code == "bad_declaration"


def test_the_attackers_turn_ends_when_the_attack_is_defended_and_not_continued():
    """§Attaquer 2: after a defence "le tour du joueur prend fin" unless the attacker goes on."""
    state = then(seat1_lone_3g(), when(seat1_lone_3g(), 0, ATTACK))
    state = then(state, when(state, 1, {"type": "defend", "card": "6G"}))
    events = when(state, 0, {"type": "give_up"})
    assert events == [E("GaveUp", {"auto": False}, 0), E("TurnEnded", {"next": 1})]
    after = then(state, events)
    assert column(after, 1, 0) == ["3G"] and column(after, 0, 0) == [] and GAME.awaiting(after) == {1}


def test_after_a_defence_the_attacker_may_continue_with_an_identical_card_and_take_the_association():
    """§Attaquer, Important: "l'assaillant peut continuer son attaque en jouant une carte identique" — an attack taken over by the attacker."""
    state = then(seat1_lone_3g(), when(seat1_lone_3g(), 0, ATTACK))
    state = then(state, when(state, 1, {"type": "defend", "card": "6G"}))
    events = when(state, 0, {"type": "continue", "card": "JOKER"})
    assert events == [E("AttackContinued", {"card": "JOKER"}, 0), E("CardsDrawn", {"cards": ["8R"]}, 0)]
    state = then(state, events)
    assert GAME.view(state, None)["chain"]["card"] == "*6G" and GAME.awaiting(state) == {1}
    events = when(state, 1, {"type": "give_up"})
    assert events == [
        E("GaveUp", {"auto": False}, 1),
        E("WarriorsAssociated", {"player": 1, "column": 0, "same": False}, 0),
        E("MauwWon", {"place": 0}, 0),
        E("TurnEnded", {"next": 1}),
    ]
    after = then(state, events)
    assert column(after, 0, 0) == ["MAUW"] and column(after, 1, 0) == []
    assert GAME.view(after, None)["discard_size"] == 4  # 6G 6G, then 3G and the Joker


def test_a_chain_of_three_replies_until_one_side_gives_up():
    """§Attaquer, Important: "et ainsi de suite ... jusqu'à ce qu'un des 2 joueurs capitule" — defend, continue, defend, give up."""
    state = then(seat1_lone_3g(), when(seat1_lone_3g(), 0, ATTACK))
    waited = [set(GAME.awaiting(state))]
    for seat, action in [
        (1, {"type": "defend", "card": "6G"}),
        (0, {"type": "continue", "card": "JOKER"}),
        (1, {"type": "defend", "card": "6G"}),
    ]:
        state = then(state, when(state, seat, action))
        waited.append(set(GAME.awaiting(state)))
    assert waited == [{1}, {0}, {1}, {0}]  # the defender, then the attacker, and so on
    assert GAME.legal_actions(state, 0) == [{"type": "give_up"}]
    after = then(state, when(state, 0, {"type": "give_up"}))
    assert column(after, 1, 0) == ["3G"] and points(after) == [0, 3]
    view = GAME.view(after, None)
    assert (view["discard_size"], view["discard_top"], view["chain"]) == (4, "6G", None)
    assert GAME.awaiting(after) == {1}


def test_each_side_draws_back_to_4_after_each_card_of_a_chain():
    """§Attaquer, Important: "sans oublier de compléter sa main" (rulings: each side refills after each card)."""
    state = seat1_lone_3g()
    sizes = []
    for seat, action in [(0, ATTACK), (1, {"type": "defend", "card": "6G"}), (0, {"type": "continue", "card": "JOKER"})]:
        events = when(state, seat, action)
        assert [e for e in events if e.type == "CardsDrawn"] == [events[1]] and events[1].seat == seat
        state = then(state, events)
        sizes.append(GAME.view(state, None)["hand_sizes"])
    assert sizes == [[4, 4]] * 3


def test_a_chain_reply_comes_only_from_the_awaited_side():
    """Rulings: replies are out-of-turn actions of the awaited seat; a normal play is refused meanwhile."""
    state = then(seat1_lone_3g(), when(seat1_lone_3g(), 0, ATTACK))
    assert refused(state, 0, {"type": "continue", "card": "JOKER"}).code == "not_your_turn"
    assert refused(state, 1, {"type": "play", "card": "6G", "player": 1, "column": 1}).code == "bad_action"
    assert refused(state, 1, {"type": "continue", "card": "6G"}).code == "bad_action"
    assert GAME.legal_actions(state, 0) == []


def test_auto_give_up_replies_for_a_side_without_an_identical_card():
    """Option auto_give_up: a side holding neither the identical Warrior nor a Joker gives up at once."""
    hands = [["6G", "3G", "JOKER", "2Y"], ["3G", "1R", "1R", "2Y"]]
    state = seat1_lone_3g(hands, auto_give_up=True)
    events = when(state, 0, ATTACK)
    assert events == [
        E("CardPlayed", {"card": "6G", "as": None, "player": 1, "column": 0, "move": "attack", "place": 0}, 0),
        E("CardsDrawn", {"cards": ["4B"]}, 0),
        E("GaveUp", {"auto": True}, 1),
        E("WarriorsAssociated", {"player": 1, "column": 0, "same": False}, 0),
        E("MauwWon", {"place": 0}, 0),
        E("TurnEnded", {"next": 1}),
    ]
    hands = [["6G", "3G", "1R", "2Y"], ["3G", "6G", "1R", "2Y"]]
    state = seat1_lone_3g(hands, auto_give_up=True)
    state = then(state, when(state, 0, ATTACK))
    events = when(state, 1, {"type": "defend", "card": "6G"})
    assert events[2:] == [E("GaveUp", {"auto": True}, 0), E("TurnEnded", {"next": 1})]
    # Without the option the side without a card still answers (give_up is its only action).
    state = then(seat1_lone_3g(hands), when(seat1_lone_3g(hands), 0, ATTACK))
    state = then(state, when(state, 1, {"type": "defend", "card": "6G"}))
    assert GAME.legal_actions(state, 0) == [{"type": "give_up"}]


def test_a_chain_that_would_recycle_its_own_cards_forever_stops_at_the_chain_limit():
    """Ours (option chain_limit, default 6): with both piles empty a defence's two cards are reshuffled and drawn straight back — the attacker gets at most 6 attack cards."""
    hands = [["6G", "6G", "2Y", "2Y"], ["3G", "6G", "1R", "1R"]]
    state = given(deal(hands, talon=["4B"], first=1), reinforced(1, "3G", 0, "4B", 0))
    state = then(state, when(state, 0, ATTACK))
    attacks, replies = 1, 0
    while True:
        seat = next(iter(GAME.awaiting(state)))
        legal = GAME.legal_actions(state, seat)
        reply = [a for a in legal if a["type"] != "give_up"]
        if not reply:
            break
        state = then(state, when(state, seat, reply[0], seed=replies))
        replies += 1
        attacks += reply[0]["type"] == "continue"
        assert replies < 50, "endless chain"
    view = GAME.view(state, None)
    assert (attacks, view["chain"]["attacks"], seat) == (6, 6, 0)
    assert view["talon_size"] + view["discard_size"] <= 2  # the same 6G went round and round
    assert legal == [{"type": "give_up"}]
    assert refused(state, 0, {"type": "continue", "card": "6G"}).code == "chain_limit"
    after = then(state, when(state, 0, {"type": "give_up"}))
    assert column(after, 1, 0) == ["3G"]
    # The piles are empty and a hand is short: the turn's end is the game's end (§Fin).
    assert GAME.result(after).detail["ending"] == "cannot_refill"


def test_the_chain_limit_can_be_lifted_or_lowered():
    """Option chain_limit: null lifts it; 1 forbids any continuation."""
    state = seat1_lone_3g(chain_limit=1)
    state = then(state, when(state, 0, ATTACK))
    state = then(state, when(state, 1, {"type": "defend", "card": "6G"}))
    assert GAME.legal_actions(state, 0) == [{"type": "give_up"}]
    state = seat1_lone_3g(chain_limit=None)
    state = then(state, when(state, 0, ATTACK))
    state = then(state, when(state, 1, {"type": "defend", "card": "6G"}))
    assert {"type": "continue", "card": "JOKER"} in GAME.legal_actions(state, 0)
