"""Maudix rule tests: Given events / When action / Then exact events.

Sections (§) are those of docs/games/maudix.md (the numbered parts of the
publisher's rules); "rulings" are the ones recorded there.
"""

from __future__ import annotations

import random

import pytest

from shared.events import Event
from shared.games.maudix import GAME
from shared.games.maudix.rules import deal, deck_for, hand_size, trick_winner
from shared.games.maudix.scoring import association_scores, prediction_penalty, round_points
from shared.games.maudix.state import Contract, Phase

from .helpers import apply, given, play, ready, refused, started, when, won

# ---------------------------------------------------------------------------
# Setup (§02, rulings)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "players,cards,removed",
    [(3, 18, 0), (4, 13, 2), (5, 10, 4), (6, 9, 0), (7, 15, 3), (8, 13, 4), (9, 12, 0), (10, 10, 8), (11, 9, 9), (12, 9, 0)],
)
def test_equal_hands_and_surplus_removed(players, cards, removed):
    """Rulings: each player gets floor(total / n) cards; total mod n are removed."""
    hands, gone = deal(players, random.Random(players))
    assert hand_size(players) == cards
    assert [len(h) for h in hands] == [cards] * players
    assert len(gone) == removed
    assert sorted([c for h in hands for c in h] + gone) == sorted(deck_for(players))


def test_one_deck_up_to_six_two_decks_from_seven():
    """§02: one deck (52 + Pirate + Naufragé) up to 6 players, a second deck beyond."""
    assert len(deck_for(6)) == 54 and deck_for(6).count("PIRATE") == 1
    assert len(deck_for(7)) == 108 and deck_for(7).count("QS") == 2 and deck_for(7).count("NAUFRAGE") == 2


def test_removed_cards_are_never_revealed():
    """§02: the surplus is removed face down and never looked at, not even by spectators."""
    opening = GAME.start(GAME.Options(), 4, random.Random(5))[0]
    removed = opening.data["removed"]
    assert len(removed) == 2
    state = given(opening)
    for seat in (None, 0, 1, 2, 3):
        r = GAME.redact(opening, seat)
        assert "removed" not in r.data and r.data["removed_size"] == 2
        assert r.data["hands"] == [(opening.data["hands"][s] if s == seat else None) for s in range(4)]
        assert GAME.view(state, seat)["removed_size"] == 2
        assert "removed" not in GAME.view(state, seat)


def test_first_dealer_random_then_deal_passes_left():
    """Rulings: the first dealer is drawn at random; the deal passes left each round."""
    dealers = {GAME.start(GAME.Options(), 5, random.Random(seed))[0].data["dealer"] for seed in range(40)}
    assert dealers == {0, 1, 2, 3, 4}
    # A one-trick-per-player round ending: the next RoundDealt has dealer + 1.
    hands = [["AC", "2D", "7H"], ["2C", "AD", "5H"], ["3C", "3D", "AH"], ["4C", "4D", "6H"]]
    s = given(ready(hands, contracts=("plis", "dames"), dealer=3))
    s = apply(s, [play(0, "AC"), play(1, "2C"), play(2, "3C"), play(3, "4C"), won(0, "AC", 1)])
    s = apply(s, [play(0, "2D"), play(1, "AD"), play(2, "3D"), play(3, "4D"), won(1, "AD", 2)])
    s = apply(s, [play(1, "5H"), play(2, "AH"), play(3, "6H")])
    events = when(s, 0, {"type": "play", "card": "7H"}, seed=9)
    hands2, removed2 = deal(4, random.Random(9))
    assert events[-1] == Event(
        "RoundDealt", {"round": 2, "contract": "dames", "dealer": 0, "hands": hands2, "removed": removed2}
    )


def test_player_left_of_dealer_leads_first_trick():
    """§04.03: the player to the left of the dealer leads the first trick."""
    s = given(ready([["2C", "3C", "4C"], ["2D", "3D", "4D"], ["2H", "3H", "4H"]], dealer=1))
    assert GAME.awaiting(s) == {2}
    assert refused(s, 0, {"type": "play", "card": "2C"}) == "not_your_turn"


# ---------------------------------------------------------------------------
# Écart (§04.02, rulings)
# ---------------------------------------------------------------------------

HANDS4 = [["2S", "3S", "4S", "5S"], ["2H", "3H", "4H", "5H"], ["2D", "3D", "4D", "5D"]]


def test_ecart_is_three_cards():
    """§04.02: each player chooses 3 cards."""
    s = given(started(HANDS4))
    assert refused(s, 0, {"type": "ecart", "cards": ["2S", "3S"], "to": 1}) == "wrong_card_count"


def test_ecart_cards_must_be_in_hand():
    """§04.02: the 3 cards come from your own hand."""
    s = given(started(HANDS4))
    assert refused(s, 0, {"type": "ecart", "cards": ["2S", "3S", "2H"], "to": 1}) == "card_not_in_hand"
    assert refused(s, 0, {"type": "ecart", "cards": ["2S", "2H", "3S"], "to": 1}) == "card_not_in_hand"


def test_ecart_naming_a_card_twice_from_one_deck_is_duplicate_card():
    """An écart is three different cards when each is held once (tester's
    report, item 16: `["3S", "3S", "5S"]` was refused as not in hand)."""
    s = given(started(HANDS4))
    hand = s.hands[0]
    assert "2S" in hand and "3S" in hand and hand.count("2S") == 1
    for cards in (["2S", "2S", "3S"], ["2S", "2S", "2S"], ["3S", "2S", "3S"]):
        assert refused(s, 0, {"type": "ecart", "cards": cards, "to": 1}) == "duplicate_card"
    # A card not held at all stays card_not_in_hand, even beside a repeat.
    assert refused(s, 0, {"type": "ecart", "cards": ["2S", "2S", "2H"], "to": 1}) == "card_not_in_hand"


def test_ecart_may_repeat_a_code_held_twice_with_two_decks():
    """Rulings: with two decks a hand may hold the same card twice, and may pass both."""
    hands = [["KH", "KH", "2C"]] + [["2S", "3S", "4S"]] * 6
    s = given(started(hands))
    events = when(s, 0, {"type": "ecart", "cards": ["KH", "KH", "2C"], "to": 3})
    assert events == [Event("EcartMade", {"to": 3, "cards": ["KH", "KH", "2C"]}, 0)]



def test_ecart_with_two_decks_names_a_card_at_most_as_often_as_it_is_held():
    """Two decks (7 players): a card held twice may be named twice, not
    three times; a card held once not twice (duplicate_card)."""
    hands = [["KH", "KH", "2C", "3C"]] + [["2S", "3S", "4S", "5S"]] * 6
    s = given(started(hands))
    assert refused(s, 0, {"type": "ecart", "cards": ["KH", "KH", "KH"], "to": 3}) == "duplicate_card"
    assert refused(s, 0, {"type": "ecart", "cards": ["2C", "2C", "KH"], "to": 3}) == "duplicate_card"
    events = when(s, 0, {"type": "ecart", "cards": ["KH", "2C", "KH"], "to": 3})
    assert events == [Event("EcartMade", {"to": 3, "cards": ["KH", "2C", "KH"]}, 0)]


def test_ecart_goes_to_an_opponent():
    """§04.02: you give your 3 cards to someone else."""
    s = given(started(HANDS4))
    assert refused(s, 1, {"type": "ecart", "cards": ["2H", "3H", "4H"], "to": 1}) == "recipient_self"


def test_a_seat_sends_one_ecart_only():
    """§04.02: each player makes one écart; afterwards the seat waits for the others."""
    s = given(started(HANDS4), Event("EcartMade", {"to": 1, "cards": ["2S", "3S", "4S"]}, 0))
    assert refused(s, 0, {"type": "ecart", "cards": ["5S", "5S", "5S"], "to": 2}) == "not_your_turn"
    assert GAME.legal_actions(s, 0) == []


def test_start_checks_the_player_count():
    """§01: Maudix is played by 3 to 12 players."""
    for n in (2, 13):
        with pytest.raises(ValueError):
            GAME.start(GAME.Options(), n, random.Random(0))
    with pytest.raises(ValueError):
        GAME.start(GAME.Options(first_dealer=5), 4, random.Random(0))


def test_recipient_taken():
    """Rulings: a recipient must be an opponent who has not yet been chosen."""
    s = given(started(HANDS4), Event("EcartMade", {"to": 1, "cards": ["2S", "3S", "4S"]}, 0))
    assert refused(s, 2, {"type": "ecart", "cards": ["2D", "3D", "4D"], "to": 1}) == "recipient_taken"


def test_recipient_must_leave_the_others_a_way_to_finish():
    """Rulings: nobody may be left with only themselves to give to (feasibility rule)."""
    s = given(started(HANDS4), Event("EcartMade", {"to": 1, "cards": ["2S", "3S", "4S"]}, 0))
    assert refused(s, 1, {"type": "ecart", "cards": ["2H", "3H", "4H"], "to": 0}) == "recipient_strands"
    assert {a["to"] for a in GAME.legal_actions(s, 1)} == {2}
    assert {a["to"] for a in GAME.legal_actions(s, 2)} == {0}


def test_ecart_counts_in_arrival_order():
    """§04.02: the first player to make their écart chooses first, whatever the seat order."""
    s = given(started(HANDS4))
    events = when(s, 2, {"type": "ecart", "cards": ["2D", "3D", "4D"], "to": 0})
    assert events == [Event("EcartMade", {"to": 0, "cards": ["2D", "3D", "4D"]}, 2)]
    s = apply(s, events)
    assert GAME.awaiting(s) == {0, 1}
    assert refused(s, 1, {"type": "ecart", "cards": ["2H", "3H", "4H"], "to": 0}) == "recipient_taken"
    assert GAME.view(s, None)["ecarts"] == [{"from": 2, "to": 0}]


def test_cards_move_only_once_everybody_has_sent():
    """Rulings: you choose your 3 cards before seeing what you receive; cards move at the end."""
    s = given(started(HANDS4), Event("EcartMade", {"to": 1, "cards": ["2S", "3S", "4S"]}, 0))
    assert GAME.view(s, 1)["hand"] == ["2H", "3H", "4H", "5H"]
    assert GAME.view(s, 0)["hand"] == ["5S"]
    assert GAME.view(s, 1)["my_ecart"]["received"] is None
    s = apply(s, [Event("EcartMade", {"to": 2, "cards": ["2H", "3H", "4H"]}, 1)])
    events = when(s, 2, {"type": "ecart", "cards": ["2D", "3D", "4D"], "to": 0})
    assert events == [
        Event("EcartMade", {"to": 0, "cards": ["2D", "3D", "4D"]}, 2),
        Event(
            "EcartsExchanged",
            {"passes": [[0, 1, ["2S", "3S", "4S"]], [1, 2, ["2H", "3H", "4H"]], [2, 0, ["2D", "3D", "4D"]]]},
        ),
    ]
    s = apply(s, events)
    assert GAME.view(s, 1)["hand"] == ["2S", "3S", "4S", "5H"]
    assert GAME.view(s, 1)["my_ecart"] == {"to": 2, "cards": ["2H", "3H", "4H"], "from": 0, "received": ["2S", "3S", "4S"]}
    assert s.phase is Phase.PLAY


def test_ecart_routing_is_public_cards_are_private():
    """Rulings: who gave to whom is public; the cards are seen only by giver and receiver."""
    e = Event("EcartMade", {"to": 1, "cards": ["2S", "3S", "4S"]}, 0)
    assert GAME.redact(e, 0) == e
    assert GAME.redact(e, 1).data == {"to": 1}  # not even the receiver before the exchange
    assert GAME.redact(e, None).data == {"to": 1}
    x = Event("EcartsExchanged", {"passes": [[0, 1, ["2S", "3S", "4S"]], [1, 2, ["2H", "3H", "4H"]], [2, 0, ["2D", "3D", "4D"]]]})
    assert GAME.redact(x, 1).data["passes"] == [[0, 1, ["2S", "3S", "4S"]], [1, 2, ["2H", "3H", "4H"]], [2, 0, None]]
    assert GAME.redact(x, None).data["passes"] == [[0, 1, None], [1, 2, None], [2, 0, None]]


# ---------------------------------------------------------------------------
# Designations, round 4 (§09.04)
# ---------------------------------------------------------------------------

FINAL3 = [["2C", "3C", "4C"], ["2D", "3D", "4D"], ["2H", "3H", "4H"]]


def test_designate_an_opponent():
    """§09.04: each player secretly designates an opponent."""
    s = given(ready(FINAL3, contracts=("association",)))
    assert s.phase is Phase.DESIGNATE and GAME.awaiting(s) == {0, 1, 2}
    assert refused(s, 0, {"type": "designate", "target": 0}) == "not_an_opponent"
    assert refused(s, 0, {"type": "designate", "target": 3}) == "bad_action"
    assert refused(s, 1, {"type": "play", "card": "2D"}) == "wrong_phase"


def test_designations_stay_secret_until_revealed_together():
    """§09.04: everyone reveals their target at the same time."""
    s = given(ready(FINAL3, contracts=("association",)))
    e = when(s, 0, {"type": "designate", "target": 2})
    assert e == [Event("DesignationMade", {"target": 2}, 0)]
    assert GAME.redact(e[0], 1).data == {} and GAME.redact(e[0], None).data == {}
    s = apply(s, e)
    assert GAME.view(s, 0)["designations"] == [2, None, None]
    assert GAME.view(s, 1)["designations"] == [None, None, None]
    assert GAME.view(s, None)["designations"] == [None, None, None]
    s = apply(s, [Event("DesignationMade", {"target": 0}, 2)])
    e = when(s, 1, {"type": "designate", "target": 0})
    assert e == [Event("DesignationMade", {"target": 0}, 1), Event("DesignationsRevealed", {"targets": [2, 0, 0]})]
    s = apply(s, e)
    assert GAME.view(s, None)["designations"] == [2, 0, 0]
    assert s.phase is Phase.PLAY and GAME.awaiting(s) == {1}


# ---------------------------------------------------------------------------
# Bids, round 6 (§09.06)
# ---------------------------------------------------------------------------

FINAL4 = [["2C", "3C", "4C", "5C"], ["2D", "3D", "4D", "5D"], ["2H", "3H", "4H", "5H"]]


def test_bids_in_turn_order_from_the_opening_leader():
    """§09.06: bids are made in play order starting with the player who leads."""
    s = given(ready(FINAL4, contracts=("prediction",), dealer=0))
    assert GAME.awaiting(s) == {1}
    assert refused(s, 0, {"type": "bid", "tricks": 1}) == "not_your_turn"
    e = when(s, 1, {"type": "bid", "tricks": 2})
    assert e == [Event("BidMade", {"tricks": 2}, 1)]
    assert GAME.awaiting(apply(s, e)) == {2}


def test_bid_between_zero_and_the_tricks_of_the_round():
    """§09.06: a bid is a number of tricks of the round."""
    s = given(ready(FINAL4, contracts=("prediction",), dealer=0))
    assert refused(s, 1, {"type": "bid", "tricks": 5}) == "bid_out_of_range"
    assert refused(s, 1, {"type": "bid", "tricks": -1}) == "bid_out_of_range"
    assert refused(s, 1, {"type": "bid", "tricks": "2"}) == "bad_action"
    assert refused(s, 1, {"type": "bid", "tricks": True}) == "bad_action"


def test_hook_last_bidder_may_not_make_the_total():
    """§09.06 the hook: the last bid may not make the bids add up to the number of tricks."""
    s = given(ready(FINAL4, contracts=("prediction",), dealer=0), Event("BidMade", {"tricks": 1}, 1), Event("BidMade", {"tricks": 1}, 2))
    assert refused(s, 0, {"type": "bid", "tricks": 2}) == "hook_bid"
    assert [a["tricks"] for a in GAME.legal_actions(s, 0)] == [0, 1, 3, 4]
    e = when(s, 0, {"type": "bid", "tricks": 3})
    assert e == [Event("BidMade", {"tricks": 3}, 0)]
    s = apply(s, e)
    assert s.phase is Phase.PLAY and GAME.awaiting(s) == {1}


def test_hook_is_a_table_option():
    """Option hook=False: the last bidder may bid anything."""
    s = given(ready(FINAL4, contracts=("prediction",), dealer=0, hook=False), Event("BidMade", {"tricks": 1}, 1), Event("BidMade", {"tricks": 1}, 2))
    assert when(s, 0, {"type": "bid", "tricks": 2}) == [Event("BidMade", {"tricks": 2}, 0)]


# ---------------------------------------------------------------------------
# Trick play (§05, §07, rulings)
# ---------------------------------------------------------------------------

TRUMP4 = [["10C", "2D", "3D"], ["KC", "4D", "5D"], ["4S", "6D", "7D"], ["AC", "8D", "9D"]]


def test_spade_trumps_the_source_example():
    """§05 example: 10♣ / R♣ / 4♠ / A♣ — the 4♠ wins: the lowest trump beats the highest card led."""
    s = given(ready(TRUMP4, dealer=3), play(0, "10C"), play(1, "KC"), play(2, "4S"))
    assert when(s, 3, {"type": "play", "card": "AC"}) == [
        Event("CardPlayed", {"card": "AC"}, 3),
        Event("TrickWon", {"winner": 2, "card": "4S", "trick": 1}),
    ]
    assert trick_winner([(0, "10C"), (1, "KC"), (2, "4S"), (3, "AC")]) == 2


def test_winner_leads_next_trick():
    """§05 C: the winner gathers and leads the next trick."""
    s = given(ready(TRUMP4, dealer=3), play(0, "10C"), play(1, "KC"), play(2, "4S"), play(3, "AC"), won(2, "4S", 1))
    assert GAME.awaiting(s) == {2}
    v = GAME.view(s, 0)
    assert v["trick"] == [] and v["tricks_won"] == [0, 0, 1, 0] and v["last_trick_winner"] == 2


def test_must_follow_suit():
    """§05 A: each player must follow the led suit if they can."""
    s = given(ready(TRUMP4, dealer=3), play(0, "10C"), play(1, "KC"), play(2, "4S"))
    assert refused(s, 3, {"type": "play", "card": "8D"}) == "must_follow_suit"
    assert GAME.legal_actions(s, 3) == [{"type": "play", "card": "AC"}]


def test_trumping_is_never_forced():
    """§05 B: a void player may play any card, not necessarily a spade."""
    s = given(ready(TRUMP4, dealer=3), play(0, "10C"), play(1, "KC"))
    assert {a["card"] for a in GAME.legal_actions(s, 2)} == {"4S", "6D", "7D"}
    s = apply(s, [play(2, "6D")])
    assert when(s, 3, {"type": "play", "card": "AC"})[-1] == won(3, "AC", 1)  # a discard never wins


def test_card_not_in_hand():
    """A player can only play a card they hold."""
    s = given(ready(TRUMP4, dealer=3))
    assert refused(s, 0, {"type": "play", "card": "KC"}) == "card_not_in_hand"
    assert refused(s, 0, {"type": "play", "card": "ZZ"}) == "bad_action"
    assert refused(s, 0, {"type": "play"}) == "bad_action"
    assert refused(s, 0, {"type": "dance"}) == "bad_action"
    assert refused(s, 0, {"type": "bid", "tricks": 1}) == "wrong_phase"


JOKER3 = [["5H", "2C", "3C"], ["PIRATE", "9H", "4C"], ["AS", "KC", "5C"]]


def test_pirate_beats_every_card_spades_included():
    """§07: the Pirate beats all normal cards, spades included, and may be played while holding the led suit."""
    s = given(ready(JOKER3, dealer=2), play(0, "5H"))
    assert {a["card"] for a in GAME.legal_actions(s, 1)} == {"9H", "PIRATE"}
    s = apply(s, when(s, 1, {"type": "play", "card": "PIRATE"}))
    assert when(s, 2, {"type": "play", "card": "AS"})[-1] == won(1, "PIRATE", 1)


def test_naufrage_never_wins_and_first_normal_card_sets_the_led_suit():
    """§07 / rulings: a Naufragé loses to every normal card; after a joker lead the first normal card sets the suit."""
    hands = [["NAUFRAGE", "2C", "3C"], ["3H", "4C", "5C"], ["2H", "KC", "6C"]]
    s = given(ready(hands, dealer=2), play(0, "NAUFRAGE"))
    assert {a["card"] for a in GAME.legal_actions(s, 1)} == {"3H", "4C", "5C"}
    s = apply(s, [play(1, "3H")])
    assert refused(s, 2, {"type": "play", "card": "KC"}) == "must_follow_suit"
    assert when(s, 2, {"type": "play", "card": "2H"})[-1] == won(1, "3H", 1)


def test_pirate_beats_naufrage():
    """§07: Pirate + Naufragé — the Pirate wins."""
    assert trick_winner([(0, "NAUFRAGE"), (1, "2D"), (2, "PIRATE")]) == 2
    assert trick_winner([(0, "PIRATE"), (1, "NAUFRAGE"), (2, "AS")]) == 0


def test_second_pirate_wins():
    """§07: Pirate + Pirate — the second Pirate wins (two decks)."""
    assert trick_winner([(0, "PIRATE"), (1, "2H"), (2, "PIRATE"), (3, "AS")]) == 2


def test_two_naufrages_a_normal_card_wins():
    """§07: Naufragé + Naufragé — a normal card wins."""
    assert trick_winner([(0, "NAUFRAGE"), (1, "NAUFRAGE"), (2, "5D"), (3, "9D"), (4, "3C")]) == 3


def test_identical_cards_first_played_wins():
    """Rulings: with two decks, between identical cards the first played wins."""
    hands = [["KH", "2C", "3C"], ["KH", "4C", "5C"]] + [["2D", "3D", "4D"]] * 5
    s = given(ready(hands, dealer=6), play(0, "KH"), play(1, "KH"), play(2, "2D"), play(3, "2D"), play(4, "2D"), play(5, "2D"))
    assert when(s, 6, {"type": "play", "card": "2D"})[-1] == won(0, "KH", 1)


def test_jokers_carry_no_points():
    """§07: a joker is never worth points, in any contract."""
    captured = [["PIRATE", "NAUFRAGE"], [], []]
    for c in (Contract.DAMES, Contract.TETES, Contract.ASSOCIATION, Contract.MAUDIX):
        assert round_points(c, captured, [1, 0, 0], per_trick=3, designations=[1, 2, 0], contamination=[0, 0, 0]) == [0, 0, 0]
    # La Chasse: jokers belong to no suit, so they do not save a suit.
    assert round_points(Contract.CHASSE, captured, [1, 0, 0], per_trick=3)[0] == 80


# ---------------------------------------------------------------------------
# Voleur (§08, rulings)
# ---------------------------------------------------------------------------

THIEF3 = [["JH", "2C", "9D", "3S"], ["5H", "AC", "4D", "KD"], ["3H", "7C", "QC", "6D"]]


def thief_state(**kw):
    """Seat 0 has just won trick 1 with the J♥."""
    return given(ready(THIEF3, dealer=2, **kw), play(0, "JH"), play(1, "5H"), play(2, "3H"), won(0, "JH", 1))


def test_trick_won_by_a_jack_makes_its_winner_the_voleur():
    """§08: win a trick with a Jack and you immediately become the Voleur."""
    s = thief_state()
    assert s.phase is Phase.STEAL and GAME.awaiting(s) == {0}
    legal = GAME.legal_actions(s, 0)
    assert {"type": "decline"} in legal
    assert {(a["target"], a["suit"], a["end"]) for a in legal if a["type"] == "steal"} == {
        (t, su, e) for t in (1, 2) for su in ("S", "D", "C") for e in ("low", "high")
    }
    assert refused(s, 0, {"type": "play", "card": "2C"}) == "wrong_phase"
    assert refused(s, 1, {"type": "decline"}) == "not_your_turn"


def test_steal_then_give_back_a_card_of_that_suit():
    """§08: ask the lowest or highest card of a suit; hand back a card of that suit of your choice."""
    s = thief_state()
    e = when(s, 0, {"type": "steal", "target": 1, "suit": "C", "end": "low"})
    assert e == [
        Event("TheftAnnounced", {"target": 1, "suit": "C", "end": "low"}, 0),
        Event("CardStolen", {"target": 1, "card": "AC"}, 0),
    ]
    s = apply(s, e)
    assert s.phase is Phase.GIVE_BACK
    assert sorted(GAME.view(s, 0)["hand"]) == sorted(["2C", "AC", "9D", "3S"])
    assert {a["card"] for a in GAME.legal_actions(s, 0)} == {"2C", "AC"}
    assert refused(s, 0, {"type": "give_back", "card": "9D"}) == "wrong_suit"
    assert refused(s, 0, {"type": "give_back", "card": "7C"}) == "card_not_in_hand"
    e = when(s, 0, {"type": "give_back", "card": "2C"})
    assert e == [Event("CardReturned", {"target": 1, "card": "2C"}, 0)]
    s = apply(s, e)
    assert sorted(GAME.view(s, 1)["hand"]) == sorted(["2C", "4D", "KD"])
    assert s.phase is Phase.PLAY and GAME.awaiting(s) == {0}


def test_steal_high_takes_the_highest_card():
    """§08: 'haute' asks the highest card of the suit."""
    s = thief_state()
    e = when(s, 0, {"type": "steal", "target": 2, "suit": "C", "end": "high"})
    assert e[-1] == Event("CardStolen", {"target": 2, "card": "QC"}, 0)
    e = when(s, 0, {"type": "steal", "target": 2, "suit": "C", "end": "low"})
    assert e[-1] == Event("CardStolen", {"target": 2, "card": "7C"}, 0)


def test_cannot_steal_in_a_suit_you_do_not_hold():
    """§08: you cannot steal in a suit where you are void."""
    s = thief_state()
    assert refused(s, 0, {"type": "steal", "target": 1, "suit": "H", "end": "low"}) == "suit_not_held"
    assert refused(s, 0, {"type": "steal", "target": 0, "suit": "C", "end": "low"}) == "not_an_opponent"
    assert refused(s, 0, {"type": "steal", "target": 1, "suit": "X", "end": "low"}) == "bad_action"
    assert refused(s, 0, {"type": "steal", "target": 1, "suit": "C", "end": "middle"}) == "bad_action"


def test_void_target_says_so_publicly_and_the_power_is_lost():
    """§08: a target with no card of the suit announces it publicly; the power is lost."""
    s = thief_state()
    e = when(s, 0, {"type": "steal", "target": 1, "suit": "S", "end": "high"})
    assert e == [
        Event("TheftAnnounced", {"target": 1, "suit": "S", "end": "high"}, 0),
        Event("TheftFailed", {"thief": 0, "suit": "S"}, 1),
    ]
    assert all(GAME.redact(x, 2) == x for x in e)  # public
    s = apply(s, e)
    assert s.phase is Phase.PLAY and GAME.awaiting(s) == {0}


def test_voleur_may_decline():
    """Rulings: the Voleur may decline; then they lead."""
    s = thief_state()
    e = when(s, 0, {"type": "decline"})
    assert e == [Event("TheftDeclined", {}, 0)]
    s = apply(s, e)
    assert s.phase is Phase.PLAY and GAME.legal_actions(s, 0)[0]["type"] == "play"


def test_stolen_and_returned_cards_are_seen_only_by_thief_and_target():
    """Rulings: others see who, which suit, low/high, never the cards."""
    stolen = Event("CardStolen", {"target": 1, "card": "AC"}, 0)
    back = Event("CardReturned", {"target": 1, "card": "2C"}, 0)
    for e in (stolen, back):
        assert GAME.redact(e, 0) == e and GAME.redact(e, 1) == e
        assert GAME.redact(e, 2).data == {"target": 1} and GAME.redact(e, None).data == {"target": 1}
    s = apply(thief_state(), [Event("TheftAnnounced", {"target": 1, "suit": "C", "end": "low"}, 0), stolen])
    assert GAME.view(s, 0)["theft"]["card"] == "AC" and GAME.view(s, 1)["theft"]["card"] == "AC"
    assert "card" not in GAME.view(s, 2)["theft"] and "card" not in GAME.view(s, None)["theft"]


def test_returning_the_stolen_card_is_a_table_option():
    """Option return_stolen=False: the thief must hand back another card of the suit."""
    s = apply(
        thief_state(return_stolen=False),
        [Event("TheftAnnounced", {"target": 1, "suit": "C", "end": "low"}, 0), Event("CardStolen", {"target": 1, "card": "AC"}, 0)],
    )
    assert refused(s, 0, {"type": "give_back", "card": "AC"}) == "cannot_return_stolen"
    assert GAME.legal_actions(s, 0) == [{"type": "give_back", "card": "2C"}]


def test_voleur_is_a_table_option():
    """Option voleur=False: a Jack wins a trick like any other card."""
    s = given(ready(THIEF3, dealer=2, voleur=False), play(0, "JH"), play(1, "5H"), play(2, "3H"), won(0, "JH", 1))
    assert s.phase is Phase.PLAY


def test_no_voleur_on_the_last_trick():
    """Rulings: no power on the last trick (the thief has no cards left)."""
    hands = [["JH", "2C", "3C"], ["5H", "4C", "5C"], ["3H", "6C", "7C"]]
    s = given(ready(hands, dealer=2), play(0, "2C"), play(1, "4C"), play(2, "7C"), won(2, "7C", 1))
    s = apply(s, [play(2, "6C"), play(0, "3C"), play(1, "5C"), won(2, "6C", 2), play(2, "3H"), play(0, "JH")])
    e = when(s, 1, {"type": "play", "card": "5H"})
    assert [x.type for x in e] == ["CardPlayed", "TrickWon", "RoundScored", "GameEnded"]


# ---------------------------------------------------------------------------
# Scoring (§06, §09, rulings)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("players,per_trick", [(3, 3), (4, 5), (5, 7), (6, 8), (7, 4), (8, 5), (9, 6), (10, 7),
                                               (11, 8), (12, 8)])
def test_per_trick_values_by_player_count(players, per_trick):
    """§09.01 + rulings: 3:+3, 4:+5, 6:+8 per trick (source); 5, 7–12 ours.
    A game started at that count scores a Plis round at that rate: two
    tricks without the 10 of hearts cost twice the per-trick value."""
    from shared.engine import fold

    state = fold(GAME, GAME.start(GAME.Options(), players, random.Random(players)))
    assert state.per_trick == per_trick
    captured = [["2C", "3C", "4C", "5C", "2D", "3D", "4D", "5D"], ["6C", "7C", "8C", "9C"]] + [[]] * (players - 2)
    tricks = [2, 1] + [0] * (players - 2)
    points = round_points(Contract.PLIS, captured, tricks, per_trick=state.per_trick)
    assert points == [2 * per_trick, per_trick] + [0] * (players - 2)


def test_final_ranking_lowest_total_wins_equal_totals_share():
    """§01 / rulings: lowest total wins; equal totals share the place."""
    hands = [["AC", "2D", "7H"], ["2C", "AD", "5H"], ["3C", "3D", "AH"], ["4C", "4D", "6H"]]
    s = given(ready(hands, dealer=3))
    s = apply(s, [play(0, "AC"), play(1, "2C"), play(2, "3C"), play(3, "4C"), won(0, "AC", 1)])
    s = apply(s, [play(0, "2D"), play(1, "AD"), play(2, "3D"), play(3, "4D"), won(1, "AD", 2)])
    s = apply(s, [play(1, "5H"), play(2, "AH"), play(3, "6H")])
    e = when(s, 0, {"type": "play", "card": "7H"})
    assert e == [
        Event("CardPlayed", {"card": "7H"}, 0),
        Event("TrickWon", {"winner": 2, "card": "AH", "trick": 3}),
        Event("RoundScored", {"round": 1, "contract": "plis", "points": [5, 5, 5, 0], "totals": [5, 5, 5, 0], "tricks": [1, 1, 1, 0]}),
        Event("GameEnded", {"totals": [5, 5, 5, 0], "places": [2, 2, 2, 1]}),
    ]
    s = apply(s, e)
    r = GAME.result(s)
    assert r.scores == (5, 5, 5, 0) and r.places == (2, 2, 2, 1) and r.lower_wins and r.winners == (3,)
    assert refused(s, 3, {"type": "play", "card": "4C"}) == "game_over"
    assert GAME.awaiting(s) == frozenset() and GAME.legal_actions(s, 3) == []


def _full_deal_split(players: int, removed: tuple[str, ...], seed: int) -> list[list[str]]:
    """Captured piles: the deck minus ``removed``, split at random between ``players``."""
    cards = [c for c in deck_for(players)]
    for c in removed:
        cards.remove(c)
    random.Random(seed).shuffle(cards)
    return [cards[i::players] for i in range(players)]


def test_les_plis_total_75_at_four_players():
    """§09.01: 75 points at 4 players: 13 tricks × 5 = 65 + the 10♥ bonus."""
    piles = _full_deal_split(4, ("2C", "3D"), 1)
    tricks = [4, 3, 5, 1]
    assert sum(round_points(Contract.PLIS, piles, tricks, per_trick=5)) == 75


def test_les_dames_total_90():
    """§09.02: +20 per Queen: 90 points (80 + the 10♥ bonus)."""
    piles = _full_deal_split(4, ("2C", "3D"), 2)
    pts = round_points(Contract.DAMES, piles, [0] * 4, per_trick=5)
    assert sum(pts) == 90
    assert round_points(Contract.DAMES, [["QS", "QH", "10H", "AS"], ["QD"], []], [0] * 3, per_trick=3) == [50, 20, 0]


def test_les_tetes_total_90():
    """§09.03: +5 per J, Q, K, A: 90 points (16 × 5 + the 10♥ bonus)."""
    piles = _full_deal_split(4, ("2C", "3D"), 3)
    assert sum(round_points(Contract.TETES, piles, [0] * 4, per_trick=5)) == 90
    assert round_points(Contract.TETES, [["JC", "QS", "KD", "AH", "10S"], [], []], [0] * 3, per_trick=3) == [20, 0, 0]


def test_association_source_example():
    """§09.04: David → Lula, Lula → Alice, Alice → David: David 15 → 40, Lula 40 → 40, Alice 25 → 25."""
    assert association_scores([15, 40, 25], [1, 2, 0]) == [40, 40, 25]


def test_association_ten_of_hearts_bonus_added_after_the_max():
    """Rulings: the 10♥ counts as a heart in the pile, and its +10 is added after the max()."""
    # The source's piles (15, 40, 25) need 16 hearts: two decks, so codes repeat.
    david = ["2H", "3H", "4H", "AS"]  # 15
    lula = ["5H", "6H", "7H", "8H", "9H", "10H", "JH", "QH"]  # 40, the 10♥ included
    alice = ["KH", "AH", "2H", "3H", "4H", "2C"]  # 25
    pts = round_points(Contract.ASSOCIATION, [david, lula, alice], [0] * 3, per_trick=4, designations=[1, 2, 0])
    # David max(15, 40) = 40 (Lula's bonus is hers); Lula max(40, 25) = 40, + 10; Alice max(25, 15) = 25.
    assert pts == [40, 50, 25]


def test_la_chasse_per_suit_not_captured():
    """§09.05: +20 for each suit of which you captured no card; 80 max for who wins nothing."""
    captured = [["2S", "3H", "4D", "5C"], ["2S", "AH"], [], ["10H", "PIRATE"]]
    assert round_points(Contract.CHASSE, captured, [1, 1, 0, 1], per_trick=5) == [0, 40, 80, 60 + 10]


def test_prediction_table():
    """§09.06: bid 3 — 3 tricks 0; 2 or 4 +10; 1 or 5 +20; 0 or 6 +30."""
    assert [prediction_penalty(3, t) for t in range(7)] == [30, 20, 10, 0, 10, 20, 30]
    captured = [["10H"], [], []]
    assert round_points(Contract.PREDICTION, captured, [2, 0, 4], per_trick=3, bids=[2, 1, 1]) == [10, 10, 30]


def test_ten_of_hearts_adds_ten_in_rounds_one_to_six():
    """§06 A: capturing the 10♥ adds +10 whatever the contract before Maudix."""
    captured = [["10H"], ["2C"], []]
    for c in (Contract.PLIS, Contract.DAMES, Contract.TETES):
        assert round_points(c, captured, [1, 1, 0], per_trick=3)[0] - round_points(c, [["9H"], ["2C"], []], [1, 1, 0], per_trick=3)[0] == 10


MAUDIX7 = [
    ["2C", "6C", "QC", "2D", "6D", "8H", "4S"],
    ["3C", "7C", "8C", "3D", "10D", "7H", "10C"],
    ["4C", "5C", "9C", "4D", "5D", "9H", "3H"],
]


def test_maudix_contamination_source_example():
    """§09.07: Nico takes 10♦ at trick 5 (+20); the winner of trick 6 takes +5; a 10 in the last trick propagates nothing."""
    s = given(ready(MAUDIX7, contracts=("maudix",), dealer=2))
    tricks = [
        [(0, "2C"), (1, "3C"), (2, "4C")],
        [(2, "5C"), (0, "6C"), (1, "7C")],
        [(1, "8C"), (2, "9C"), (0, "QC")],
        [(0, "2D"), (1, "3D"), (2, "4D")],
        [(2, "5D"), (0, "6D"), (1, "10D")],
        [(1, "7H"), (2, "9H"), (0, "8H")],
        [(2, "3H"), (0, "4S")],
    ]
    for t in tricks:
        for seat, c in t:
            s = apply(s, when(s, seat, {"type": "play", "card": c}))
    assert GAME.view(s, None)["tricks_won"] == [1, 2, 3]
    e = when(s, 1, {"type": "play", "card": "10C"})
    assert e[1] == won(0, "4S", 7)
    assert e[2] == Event(
        "RoundScored", {"round": 1, "contract": "maudix", "points": [20, 20, 5], "totals": [20, 20, 5], "tricks": [2, 2, 3]}
    )


def test_maudix_ten_of_hearts_fifty_and_contaminations_add_up():
    """§09.07: the 10♥ is +50 instead of +20; several 10s in one trick add their contaminations."""
    hands = [["10H", "3C", "6C"], ["10D", "4C", "5C"], ["AH", "2C", "7C"]]
    s = given(ready(hands, contracts=("maudix",), dealer=2))
    for seat, c in [(0, "10H"), (1, "10D"), (2, "AH"), (2, "2C"), (0, "3C"), (1, "4C"), (1, "5C"), (2, "7C")]:
        s = apply(s, when(s, seat, {"type": "play", "card": c}))
    e = when(s, 0, {"type": "play", "card": "6C"})
    assert e[2].data["points"] == [0, 10, 70]


def test_rounds_follow_the_fixed_contract_order():
    """§03: seven rounds, one contract each, always in the same order."""
    opening = GAME.start(GAME.Options(), 4, random.Random(1))[0]
    assert opening.data["contract"] == "plis"
    assert GAME.view(given(opening), None)["contracts"] == ["plis", "dames", "tetes", "association", "chasse", "prediction", "maudix"]


def test_view_shows_the_table_options_and_no_hand_to_a_spectator():
    """Views: every seat and spectators see the table's options; a spectator has no hand and no écart."""
    opening = GAME.start(GAME.Options(hook=False, points_per_trick=7), 4, random.Random(2))[0]
    state = given(opening)
    for seat in (None, 0, 3):
        assert GAME.view(state, seat)["options"] == opening.data["options"]
    assert GAME.view(state, None)["hand"] is None and GAME.view(state, None)["my_ecart"] is None
    assert GAME.view(state, 3)["hand"] == opening.data["hands"][3]
