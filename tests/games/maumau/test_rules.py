"""Mau Mau rule tests (the rules and rulings of docs/games/maumau.md).

Given events (a hand-written deal, ``talon[-1]`` on top; the dealer is the
last seat so seat 0 plays first) / When an action / Then exact events or
the exact refusal code.  Every refusal code of the game is exercised here.
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from shared.engine import fold
from shared.events import Event
from shared.games.maumau import GAME
from shared.games.maumau import rules as R
from shared.games.maumau import state as S
from shared.games.maumau.rules import Options, resolve_decks
from shared.games.maumau.scoring import card_points, hand_points
from tests.games.maumau.helpers import Table, deal, started, then
from tests.given import given


def played(seat, card, suit=None, announce=None):
    return ("CardPlayed", seat, {"card": card, "suit": suit, "announce": announce})


def drawn(seat, cards, reason):
    return ("CardsDrawn", seat, {"cards": list(cards), "reason": reason})


# ---------------------------------------------------------------------------
# Matching and drawing (Déroulement du jeu)
# ---------------------------------------------------------------------------


def test_a_card_must_match_the_rank_or_the_suit_of_the_top_card():
    """"Jouez 1 carte assortissant le rang ou la couleur de la défausse."""
    t = Table([["5S", "9S", "5H"], ["2C", "3C", "4C"], ["6C", "7C", "8C"]], "9H")
    t.refuse(0, {"type": "play", "card": "5S"}, R.CARD_DOES_NOT_MATCH)
    assert then(t.act(0, {"type": "play", "card": "9S"})) == [played(0, "9S")]  # same rank
    assert t.turn == 1 and t.view()["discard_top"] == "9S"


def test_a_card_of_the_same_suit_may_be_played():
    """Matching by suit alone is enough."""
    t = Table([["5H", "2S", "3S"], ["2C", "3C", "4C"]], "9H")
    assert then(t.act(0, {"type": "play", "card": "5H"})) == [played(0, "5H")]
    assert t.hand(0) == ["2S", "3S"]


def test_a_card_not_in_hand_is_refused():
    """You can only play a card you hold."""
    t = Table([["5H", "2S", "3S"], ["9C", "3C", "4C"]], "9H")
    t.refuse(0, {"type": "play", "card": "9C"}, R.CARD_NOT_IN_HAND)


def test_playing_out_of_turn_is_refused():
    """Players act in turn; only the awaited seat may play or draw."""
    t = Table([["5H", "2S", "3S"], ["9C", "3C", "4C"]], "9H")
    t.refuse(1, {"type": "play", "card": "9C"}, R.NOT_YOUR_TURN)
    t.refuse(1, {"type": "draw"}, R.NOT_YOUR_TURN)


def test_drawing_while_holding_a_playable_card_is_refused():
    """Rulings: drawing is allowed only when you hold no playable card (a Jack is always playable)."""
    t = Table([["5H", "2S", "3S"], ["JC", "3C", "4C"], ["2D", "3D", "4D"]], "9H")
    t.refuse(0, {"type": "draw"}, R.HAS_PLAYABLE_CARD)
    t.act(0, {"type": "play", "card": "5H"})
    t.refuse(1, {"type": "draw"}, R.HAS_PLAYABLE_CARD)  # only the Jack fits


def test_a_drawn_playable_card_may_be_played_at_once():
    """"Si elle peut être jouée, vous pouvez la jouer immédiatement"."""
    t = Table([["2C", "3C", "4C"], ["2D", "3D", "4D"]], "9H", talon=["KD", "4H"])
    assert then(t.act(0, {"type": "draw"})) == [drawn(0, ["4H"], "draw")]
    assert t.turn == 0 and t.view(0)["phase"] == "drawn" and t.view(0)["drawn"] == "4H"
    assert t.legal(0) == [{"type": "play", "card": "4H"}, {"type": "keep"}]
    assert then(t.act(0, {"type": "play", "card": "4H"})) == [played(0, "4H")]
    assert t.turn == 1


def test_a_drawn_playable_card_may_be_kept():
    """"... ou la garder pour plus tard" — keeping ends the turn."""
    t = Table([["2C", "3C", "4C"], ["2D", "3D", "4D"]], "9H", talon=["KD", "4H"])
    t.act(0, {"type": "draw"})
    assert then(t.act(0, {"type": "keep"})) == [("DrawnCardKept", 0, {})]
    assert t.turn == 1 and t.hand(0) == ["2C", "3C", "4C", "4H"]


def test_after_drawing_only_the_drawn_card_may_be_played_or_kept():
    """Rulings: after a draw the decision is play-the-drawn-card-or-keep, nothing else."""
    t = Table([["2C", "3C", "4H"], ["2D", "3D", "4D"]], "9S", talon=["KD", "4S"])
    t.act(0, {"type": "draw"})
    t.refuse(0, {"type": "draw"}, R.PLAY_OR_KEEP)
    t.refuse(0, {"type": "play", "card": "2C"}, R.PLAY_OR_KEEP)
    t.refuse(0, {"type": "wish", "suit": "S"}, R.NO_WISH_PENDING)


def test_a_drawn_card_that_cannot_be_played_ends_the_turn():
    """"... sinon, votre tour se termine"."""
    t = Table([["2C", "3C", "4C"], ["2D", "3D", "4D"]], "9H", talon=["4H", "KD"])
    assert then(t.act(0, {"type": "draw"})) == [drawn(0, ["KD"], "draw")]
    assert t.turn == 1 and t.view(1)["phase"] == "play"


def test_keeping_without_a_drawn_card_is_refused():
    """Keep exists only right after drawing a playable card."""
    t = Table([["2C", "3C", "4C"], ["2D", "3D", "4D"]], "9H", talon=["4H"])
    t.refuse(0, {"type": "keep"}, R.NOTHING_TO_KEEP)


@pytest.mark.parametrize(
    "action",
    [
        {"type": "fly"},
        {"card": "5H"},
        {"type": "play"},
        {"type": "play", "card": 5},
        {"type": "play", "card": "5H", "suit": "X"},
        {"type": "play", "card": "5H", "announce": "hello"},
        {"type": "callout"},
        {"type": "callout", "seat": 7},
        ["play", "5H"],
    ],
)
def test_malformed_actions_are_refused(action):
    """A malformed action is ``bad_action`` (HTTP 422), whatever the position."""
    t = Table([["5H", "2S", "3S"], ["9C", "3C", "4C"]], "9H")
    t.refuse(0, action, R.BAD_ACTION)


# ---------------------------------------------------------------------------
# Sevens (draw two, stacking, cap)
# ---------------------------------------------------------------------------

FOUR = [["7H", "2D", "3D"], ["7S", "4S", "5S"], ["7C", "8C", "KC"], ["6D", "9D", "QS"]]
TALON8 = ["2S", "3S", "4H", "5H", "6H", "8H", "10S", "QD"]  # top: QD


def test_a_seven_makes_the_next_player_draw_two_and_lose_the_turn():
    """"Le joueur suivant doit piocher 2 cartes dans le talon et perd son tour"."""
    t = Table(FOUR, "2H", talon=TALON8)
    t.act(0, {"type": "play", "card": "7H"})
    assert t.view()["penalty"] == 2 and t.turn == 1
    assert then(t.act(1, {"type": "draw"})) == [drawn(1, ["QD", "10S"], "penalty")]
    assert t.turn == 2 and t.view()["penalty"] == 0
    assert t.legal(2)[0] == {"type": "play", "card": "7C"}  # the 7 on top is an ordinary card now


def test_sevens_stack_to_four():
    """A 7 on a 7 passes the penalty on, now 4: "désormais portée à 4"."""
    t = Table(FOUR, "2H", talon=TALON8)
    t.act(0, {"type": "play", "card": "7H"})
    t.act(1, {"type": "play", "card": "7S"})
    assert t.view()["penalty"] == 4 and t.view()["sevens"] == 2 and t.turn == 2
    assert then(t.act(2, {"type": "draw"})) == [drawn(2, ["QD", "10S", "8H", "6H"], "penalty")]
    assert t.turn == 3 and len(t.hand(2)) == 7


def test_sevens_stack_to_six():
    """The chain goes on around the table: 2, 4, 6."""
    t = Table(FOUR, "2H", talon=TALON8)
    for seat, card in [(0, "7H"), (1, "7S"), (2, "7C")]:
        t.act(seat, {"type": "play", "card": card})
    assert t.view()["penalty"] == 6 and t.turn == 3
    assert t.legal(3) == [{"type": "draw"}]
    assert then(t.act(3, {"type": "draw"})) == [drawn(3, ["QD", "10S", "8H", "6H", "5H", "4H"], "penalty")]
    assert t.turn == 0 and len(t.hand(3)) == 9


def test_facing_a_seven_only_a_seven_may_be_played():
    """Rulings: facing a 7, play a 7 or draw the whole penalty (no Jack, no match)."""
    t = Table([["7H", "2D", "3D"], ["JS", "4H", "7D"]], "2H", talon=TALON8)
    t.act(0, {"type": "play", "card": "7H"})
    t.refuse(1, {"type": "play", "card": "4H"}, R.PENALTY_PENDING)
    t.refuse(1, {"type": "play", "card": "JS", "suit": "S"}, R.PENALTY_PENDING)
    assert t.legal(1) == [{"type": "play", "card": "7D"}, {"type": "draw"}]  # may take it anyway


def test_seven_stack_cap_stops_the_chain():
    """Option seven_stack_cap: with 2, the chain stops after one extra player (penalty 4)."""
    t = Table(FOUR, "2H", talon=TALON8, seven_stack_cap=2)
    t.act(0, {"type": "play", "card": "7H"})
    t.act(1, {"type": "play", "card": "7S"})
    t.refuse(2, {"type": "play", "card": "7C"}, R.SEVEN_CHAIN_CAPPED)
    assert t.legal(2) == [{"type": "draw"}]


def test_seven_stack_cap_of_one_forbids_stacking():
    """seven_stack_cap=1: a 7 cannot be answered; the next player draws 2."""
    t = Table(FOUR, "2H", talon=TALON8, seven_stack_cap=1)
    t.act(0, {"type": "play", "card": "7H"})
    t.refuse(1, {"type": "play", "card": "7S"}, R.SEVEN_CHAIN_CAPPED)


# ---------------------------------------------------------------------------
# Jacks (wild, suit wish)
# ---------------------------------------------------------------------------

JACKS = [["JC", "2D", "3D"], ["5H", "9S", "JD"], ["2C", "3C", "4C"]]


def test_a_jack_is_wild_and_its_wish_must_be_followed():
    """"Le joueur nomme n'importe quelle couleur ... que le joueur suivant devra assortir"."""
    t = Table(JACKS, "9H")
    assert then(t.act(0, {"type": "play", "card": "JC", "suit": "S"})) == [played(0, "JC", "S")]
    assert t.view()["wish"] == "S" and t.view()["discard_top"] == "JC"
    t.refuse(1, {"type": "play", "card": "5H"}, R.CARD_DOES_NOT_MATCH)
    t.act(1, {"type": "play", "card": "9S"})
    assert t.view()["wish"] is None


def test_a_jack_may_be_played_on_a_jack():
    """Rulings: a Jack may be played on anything, Jack included, and names a new suit."""
    t = Table(JACKS, "9H")
    t.act(0, {"type": "play", "card": "JC", "suit": "S"})
    assert then(t.act(1, {"type": "play", "card": "JD", "suit": "C"})) == [played(1, "JD", "C")]
    assert t.view()["wish"] == "C"
    assert [a["card"] for a in t.legal(2)] == ["2C", "3C", "4C"]


def test_a_jack_without_a_suit_wish_is_refused():
    """A Jack names the suit: the play must carry "suit"."""
    t = Table(JACKS, "9H")
    t.refuse(0, {"type": "play", "card": "JC"}, R.SUIT_WISH_REQUIRED)


def test_only_a_jack_names_a_suit():
    """A suit on any other card is a malformed play."""
    t = Table([["9S", "2D", "3D"], ["5H", "9C", "JD"]], "9H")
    t.refuse(0, {"type": "play", "card": "9S", "suit": "D"}, R.BAD_ACTION)


def test_a_jack_may_name_the_suit_already_shown():
    """"Y compris celle déjà affichée"."""
    t = Table(JACKS, "9C")
    t.act(0, {"type": "play", "card": "JC", "suit": "C"})
    assert t.view()["wish"] == "C"


# ---------------------------------------------------------------------------
# Eights (skip)
# ---------------------------------------------------------------------------


def test_an_eight_skips_the_next_player():
    """"Le tour du joueur suivant est entièrement sauté"."""
    t = Table([["8H", "2D", "3D"], ["5H", "9C", "JD"], ["4H", "3C", "4C"]], "9H")
    t.act(0, {"type": "play", "card": "8H"})
    assert t.turn == 2 and t.view()["skipped"] == [1] and t.awaiting == {2}


def test_an_eight_with_two_players_the_same_player_plays_again():
    """Rulings: with 2 players an 8 gives the same player another turn."""
    t = Table([["8H", "2H", "3D"], ["5H", "9C", "JD"]], "9H")
    t.act(0, {"type": "play", "card": "8H"})
    assert t.turn == 0 and t.view()["skipped"] == [1]
    t.refuse(1, {"type": "play", "card": "5H"}, R.NOT_YOUR_TURN)
    t.act(0, {"type": "play", "card": "2H"})
    assert t.turn == 1


# ---------------------------------------------------------------------------
# First upcard (Mise en place)
# ---------------------------------------------------------------------------


def test_first_upcard_jack_the_dealer_names_the_suit():
    """"Si cette première carte est un Valet, le donneur nomme la couleur"."""
    t = Table([["5H", "2D", "3D"], ["5S", "9C", "4D"], ["2C", "3C", "4C"]], "JS")
    assert t.awaiting == {2} and t.view()["phase"] == "wish" and t.view()["dealer"] == 2
    assert t.legal(2) == [{"type": "wish", "suit": s} for s in "SHDC"]
    t.refuse(0, {"type": "play", "card": "5H"}, R.NOT_YOUR_TURN)
    t.refuse(2, {"type": "play", "card": "2C"}, R.SUIT_WISH_PENDING)
    t.refuse(2, {"type": "draw"}, R.SUIT_WISH_PENDING)
    t.refuse(2, {"type": "keep"}, R.SUIT_WISH_PENDING)
    t.refuse(2, {"type": "wish", "suit": "Z"}, R.BAD_ACTION)
    assert then(t.act(2, {"type": "wish", "suit": "D"})) == [("SuitWished", 2, {"suit": "D"})]
    assert t.turn == 0 and t.view()["wish"] == "D"
    t.refuse(0, {"type": "play", "card": "5H"}, R.CARD_DOES_NOT_MATCH)
    t.act(0, {"type": "play", "card": "2D"})


def test_a_wish_without_a_first_upcard_jack_is_refused():
    """The wish action exists only for a first upcard Jack; a played Jack carries its suit."""
    t = Table([["5H", "2D", "3D"], ["5S", "9C", "4D"]], "9H")
    t.refuse(0, {"type": "wish", "suit": "D"}, R.NO_WISH_PENDING)


def test_first_upcard_seven_makes_the_first_player_draw_two():
    """Rulings: a first 7 acts on the first player as if the dealer had played it."""
    t = Table([["5H", "2D", "3D"], ["5S", "9C", "4D"], ["2C", "3C", "4C"]], "7H", talon=["KS", "QS", "AD"])
    assert t.turn == 0 and t.view()["penalty"] == 2
    assert then(t.act(0, {"type": "draw"})) == [drawn(0, ["AD", "QS"], "penalty")]
    assert t.turn == 1


def test_first_upcard_eight_skips_the_first_player():
    """Rulings: a first 8 skips the first player (left of the dealer)."""
    t = Table([["5H", "2D", "3D"], ["5S", "9C", "4D"], ["2C", "3C", "4C"]], "8H")
    assert t.turn == 1 and t.view()["skipped"] == [0]


def test_first_upcard_eight_with_two_players_the_dealer_plays_first():
    """With two players, skipping the first player gives the dealer the first turn."""
    t = Table([["5H", "2D", "3D"], ["5S", "9C", "4D"]], "8H")
    assert t.view()["dealer"] == 1 and t.turn == 1


# ---------------------------------------------------------------------------
# Announcements and call-outs
# ---------------------------------------------------------------------------

MAU3 = [["5H", "6H"], ["2S", "KD", "3C"], ["QC", "10H", "3D"]]
TALON_CALL = ["2C", "9D", "4S", "AS"]  # top: AS


def test_mau_goes_with_the_play_that_leaves_one_card():
    """"Dites « Mau » dès qu'il ne vous reste plus qu'une carte"; said, there is nothing to call."""
    t = Table(MAU3, "9H", talon=TALON_CALL)
    assert {"type": "play", "card": "5H", "announce": "mau"} in t.legal(0)
    assert then(t.act(0, {"type": "play", "card": "5H", "announce": "mau"})) == [played(0, "5H", None, "mau")]
    assert t.view()["announcements"] == ["mau", None, None] and t.view()["callout"] is None
    assert t.awaiting == {1}
    t.refuse(2, {"type": "callout", "seat": 0}, R.NOTHING_TO_CALL)


def test_a_missed_mau_is_called_out_inside_the_window_and_the_offender_draws_two():
    """"Si un autre joueur signale l'erreur avant la fin du tour du joueur suivant, vous devez piocher 2 cartes"."""
    t = Table(MAU3, "9H", talon=TALON_CALL)
    t.act(0, {"type": "play", "card": "5H"})
    assert t.view()["callout"] == {"offender": 0, "missed": "mau"}
    assert t.awaiting == {1, 2}
    assert t.legal(2) == [{"type": "callout", "seat": 0}]
    assert then(t.act(2, {"type": "callout", "seat": 0})) == [
        ("CalledOut", 2, {"offender": 0, "missed": "mau"}),
        drawn(0, ["AS", "4S"], "callout"),
    ]
    assert t.hand(0) == ["6H", "AS", "4S"] and t.view()["callout"] is None
    assert t.awaiting == {1} and t.turn == 1


def test_the_window_stays_open_during_the_next_players_turn():
    """The next player's turn is not over after drawing a playable card: a call-out still counts."""
    t = Table([["5H", "6H"], ["2S", "KC", "3C"], ["QC", "10H", "3D"]], "9H", talon=["2C", "9D", "4S", "8H"])
    t.act(0, {"type": "play", "card": "5H"})
    t.act(1, {"type": "draw"})  # draws the 8H, playable: still its turn
    assert t.view()["phase"] == "drawn" and t.awaiting == {1, 2}
    assert {"type": "callout", "seat": 0} in t.legal(1)  # the next player may call out too
    assert then(t.act(1, {"type": "callout", "seat": 0}))[0] == ("CalledOut", 1, {"offender": 0, "missed": "mau"})


def test_a_call_out_after_the_next_players_turn_is_refused():
    """Once the next player's turn is over the missed "Mau" can no longer be called out."""
    t = Table(MAU3, "9H", talon=TALON_CALL)
    t.act(0, {"type": "play", "card": "5H"})
    t.act(1, {"type": "draw"})  # 2S KD 3C on 5H: nothing fits, draws AS (no match) -> turn over
    assert t.turn == 2 and t.view()["callout"] is None
    t.refuse(2, {"type": "callout", "seat": 0}, R.CALLOUT_WINDOW_CLOSED)
    t.refuse(2, {"type": "callout", "seat": 1}, R.NOTHING_TO_CALL)


def test_calling_out_when_nobody_missed_an_announcement_is_refused():
    """An erroneous call-out (nothing to call) is refused, and costs nothing."""
    t = Table(MAU3, "9H", talon=TALON_CALL)
    t.refuse(1, {"type": "callout", "seat": 0}, R.NOTHING_TO_CALL)


def test_calling_out_yourself_is_refused():
    """Only another player calls out a missed announcement."""
    t = Table(MAU3, "9H", talon=TALON_CALL)
    t.act(0, {"type": "play", "card": "5H"})
    t.refuse(0, {"type": "callout", "seat": 0}, R.CANNOT_CALL_OUT_YOURSELF)


def test_a_wrong_announcement_is_refused():
    """"Mau" only with the play that leaves one card, "Mau Mau" only with the last card."""
    t = Table([["5H", "6H", "7D"], ["2S", "KD", "3C"]], "9H")
    t.refuse(0, {"type": "play", "card": "5H", "announce": "mau"}, R.BAD_ANNOUNCEMENT)
    t2 = Table(MAU3, "9H")
    t2.refuse(0, {"type": "play", "card": "5H", "announce": "maumau"}, R.BAD_ANNOUNCEMENT)


def test_mau_mau_on_the_last_card_ends_the_round_at_once():
    """"Une manche se termine à l'instant où un joueur joue sa dernière carte en annonçant correctement « Mau Mau »"."""
    t = Table([["5H"], ["2S", "KD"], ["QC", "10H", "3D"]], "9H", talon=TALON_CALL)
    new = t.act(0, {"type": "play", "card": "5H", "announce": "maumau"})
    assert then(new[:2]) == [
        played(0, "5H", None, "maumau"),
        ("RoundScored", None, {"round": 1, "decider": False, "winner": 0, "points": [0, 12, 23]}),
    ]
    nxt = new[2]
    assert nxt.type == "RoundDealt" and nxt.data["round"] == 2 and nxt.data["dealer"] == 0  # the deal passes left
    assert [len(h) for h in nxt.data["hands"]] == [5, 5, 5]
    assert t.view()["totals"] == [0, 12, 23] and t.view()["scores"] == [[0, 12, 23]]


def test_a_missed_mau_mau_does_not_end_the_round_until_the_window_closes():
    """Rulings: a last card without "Mau Mau" does not end the round; uncalled, the offender is out when the window closes."""
    t = Table([["5H"], ["2H", "KD"], ["QC", "10H", "3D"]], "9H", talon=TALON_CALL)
    assert then(t.act(0, {"type": "play", "card": "5H"})) == [played(0, "5H")]
    assert t.view()["callout"] == {"offender": 0, "missed": "maumau"}
    assert t.view()["hand_sizes"] == [0, 2, 3] and t.turn == 1 and t.view()["round"] == 1
    new = t.act(1, {"type": "play", "card": "2H"})  # the next player's turn is over
    assert then(new[:2]) == [
        played(1, "2H"),
        ("RoundScored", None, {"round": 1, "decider": False, "winner": 0, "points": [0, 10, 23]}),
    ]
    assert new[2].type == "RoundDealt"


def test_a_missed_mau_mau_called_out_brings_the_offender_back_with_two_cards():
    """Called out in time, the offender draws 2 and the round goes on."""
    t = Table([["5H"], ["2H", "KD"], ["QC", "10H", "3D"]], "9H", talon=TALON_CALL)
    t.act(0, {"type": "play", "card": "5H"})
    assert then(t.act(2, {"type": "callout", "seat": 0})) == [
        ("CalledOut", 2, {"offender": 0, "missed": "maumau"}),
        drawn(0, ["AS", "4S"], "callout"),
    ]
    assert t.view()["hand_sizes"] == [2, 2, 3] and t.turn == 1 and t.view()["round"] == 1


def test_a_player_waiting_with_an_empty_hand_is_passed_over():
    """Two players, last card an 8 without "Mau Mau": the offender holds nothing, so the other plays (ours)."""
    t = Table([["8H"], ["8S", "KD"]], "9H", talon=TALON_CALL)
    t.act(0, {"type": "play", "card": "8H"})
    assert t.turn == 1 and t.awaiting == {1}
    assert t.legal(1)[-1] == {"type": "callout", "seat": 0}
    new = t.act(1, {"type": "play", "card": "8S"})
    assert then(new[1:2]) == [("RoundScored", None, {"round": 1, "decider": False, "winner": 0, "points": [0, 10]})]


# ---------------------------------------------------------------------------
# The last card a Jack (issue 15: a wish only for a next player who must match)
# ---------------------------------------------------------------------------

LAST_JACK = [["JS"], ["2H", "KD"], ["QC", "10H", "3D"]]
LAST_JACK_PLAYS = [
    *[{"type": "play", "card": "JS", "suit": s} for s in "SHDC"],
    {"type": "play", "card": "JS", "announce": "maumau"},
]


def test_last_card_jack_needs_no_suit_wish():
    """Ruling: "Mau Mau" on a last Jack ends the round, so nobody follows a wish: none is owed nor recorded."""
    t = Table(LAST_JACK, "9H", talon=TALON_CALL)
    assert t.legal(0) == LAST_JACK_PLAYS
    new = t.act(0, {"type": "play", "card": "JS", "announce": "maumau"})
    assert then(new[:2]) == [
        played(0, "JS", None, "maumau"),
        # seat 1: 2 + 10 (KD); seat 2: 10 (QC) + 10 + 3
        ("RoundScored", None, {"round": 1, "decider": False, "winner": 0, "points": [0, 12, 23]}),
    ]
    assert [e.type for e in new] == ["CardPlayed", "RoundScored", "RoundDealt"]  # no SuitWished
    assert t.view()["totals"] == [0, 12, 23] and t.view()["round"] == 2 and t.view()["wish"] is None


def test_last_card_jack_suit_sent_with_mau_mau_is_accepted_and_ignored():
    """Ruling: a suit sent with the last Jack and "Mau Mau" is accepted; the play records no wish."""
    t = Table(LAST_JACK, "9H", talon=TALON_CALL)
    new = t.act(0, {"type": "play", "card": "JS", "suit": "D", "announce": "maumau"})
    assert then(new[:2]) == [
        played(0, "JS", None, "maumau"),
        ("RoundScored", None, {"round": 1, "decider": False, "winner": 0, "points": [0, 12, 23]}),
    ]
    assert [e.type for e in new] == ["CardPlayed", "RoundScored", "RoundDealt"]
    ignored = given(GAME, new[0], state=fold(GAME, t.events[:1]))  # the fold of the play alone
    assert ignored.wish is None and ignored.discard[-1] == "JS"
    t2 = Table(LAST_JACK, "9H", talon=TALON_CALL)  # a bad suit is still malformed
    t2.refuse(0, {"type": "play", "card": "JS", "suit": "X", "announce": "maumau"}, R.BAD_ACTION)


def test_last_card_jack_without_mau_mau_still_names_the_suit():
    """Ruling: without "Mau Mau" the round goes on (a call-out window), so the next player must match the wish."""
    t = Table(LAST_JACK, "9H", talon=TALON_CALL)
    t.refuse(0, {"type": "play", "card": "JS"}, R.SUIT_WISH_REQUIRED)
    assert then(t.act(0, {"type": "play", "card": "JS", "suit": "D"})) == [played(0, "JS", "D")]
    assert t.view()["wish"] == "D" and t.view()["callout"] == {"offender": 0, "missed": "maumau"}
    t.refuse(1, {"type": "play", "card": "2H"}, R.CARD_DOES_NOT_MATCH)  # hearts no longer match
    new = t.act(1, {"type": "play", "card": "KD"})  # the window closes uncalled: seat 0 is out
    assert then(new[:2]) == [
        played(1, "KD"),
        ("RoundScored", None, {"round": 1, "decider": False, "winner": 0, "points": [0, 2, 23]}),
    ]


def test_a_jack_that_closes_an_empty_handed_offenders_window_needs_no_suit_wish():
    """Ruling: a play closing the window of an offender who waits with no card ends the round: a Jack names no suit."""
    t = Table([["5H"], ["JC", "KD", "3S"], ["QC", "10H", "3D"]], "9H", talon=TALON_CALL)
    t.act(0, {"type": "play", "card": "5H"})  # "Mau Mau" missed: seat 0 waits with an empty hand
    assert t.legal(1) == [{"type": "play", "card": "JC"}, {"type": "callout", "seat": 0}]
    new = t.act(1, {"type": "play", "card": "JC", "suit": "S"})
    assert then(new[:2]) == [
        played(1, "JC"),
        # seat 1: 10 (KD) + 3; seat 2: 10 + 10 + 3
        ("RoundScored", None, {"round": 1, "decider": False, "winner": 0, "points": [0, 13, 23]}),
    ]
    assert [e.type for e in new] == ["CardPlayed", "RoundScored", "RoundDealt"]


def test_the_bots_play_a_last_jack_with_mau_mau_and_no_suit():
    """The heuristic bot announces its last Jack and sends no suit; the random bot picks a listed play."""
    import random

    from shared.games.maumau.bots import heuristic_strategy, random_strategy

    t = Table(LAST_JACK, "9H", talon=TALON_CALL)
    assert heuristic_strategy(t.view(0), t.legal(0), random.Random(0)) == {
        "type": "play", "card": "JS", "announce": "maumau"}
    rng = random.Random(3)
    picks = [random_strategy(t.view(0), t.legal(0), rng) for _ in range(40)]
    assert all(p in LAST_JACK_PLAYS for p in picks) and LAST_JACK_PLAYS[-1] in picks


def test_every_listed_last_jack_play_is_accepted():
    """legal_actions lists only plays decide accepts: a last Jack with each suit, and with "Mau Mau" without one."""
    import random

    t = Table(LAST_JACK, "9H", talon=TALON_CALL)
    for a in t.legal(0):
        assert GAME.decide(t.state, 0, a, random.Random(0))[0].data["suit"] == a.get("suit")
    t2 = Table([["5H"], ["JC", "KD", "3S"], ["QC", "10H", "3D"]], "9H", talon=TALON_CALL)
    t2.act(0, {"type": "play", "card": "5H"})
    for a in t2.legal(1):
        assert GAME.decide(t2.state, 1, a, random.Random(0))


# ---------------------------------------------------------------------------
# Talon
# ---------------------------------------------------------------------------


def test_an_empty_talon_is_rebuilt_from_the_discard_keeping_its_top_card():
    """"Retournez la défausse face cachée à l'exception de sa carte du dessus, et remélangez-la"."""
    t = Table([["9C", "2S", "3S"], ["9D", "4C", "5C"]], "9H")
    t.act(0, {"type": "play", "card": "9C"})
    t.act(1, {"type": "play", "card": "9D"})
    new = t.act(0, {"type": "draw"})
    assert [e.type for e in new] == ["TalonReshuffled", "CardsDrawn"]
    talon = new[0].data["talon"]
    assert sorted(talon) == ["9C", "9H"]
    assert then(new[1:]) == [drawn(0, [talon[-1]], "draw")]
    v = t.view(0)
    assert v["discard_top"] == "9D" and v["discard_size"] == 1 and v["talon_size"] == 1


def test_still_short_after_the_reshuffle_the_player_draws_what_there_is():
    """Rulings: if still short, draw what there is (a penalty of 4 with 2 cards left to draw)."""
    t = Table([["7S", "2D", "3D"], ["5S", "9C", "4D"], ["2C", "3C", "4C"]], "7H", talon=["2H"])
    t.act(0, {"type": "play", "card": "7S"})
    assert then(t.act(1, {"type": "draw"})) == [
        ("TalonReshuffled", None, {"talon": ["7H", "2H"]}),  # the reshuffled discard goes under the rest
        drawn(1, ["2H", "7H"], "penalty"),
    ]
    assert t.turn == 2 and t.view()["talon_size"] == 0


def test_a_blocked_round_scores_every_hand():
    """Nobody can play nor draw for a whole turn of the table: the round ends, every hand scores (ours)."""
    t = Table([["2C"], ["3C"]], "9H")
    assert then(t.act(0, {"type": "draw"})) == [drawn(0, [], "draw")]
    assert then(t.act(1, {"type": "draw"})) == [drawn(1, [], "draw")]
    new = t.act(0, {"type": "draw"})
    assert then(new[:2]) == [
        drawn(0, [], "draw"),
        ("RoundScored", None, {"round": 1, "decider": False, "winner": None, "points": [2, 3]}),
    ]


# ---------------------------------------------------------------------------
# Ace power option (Variantes courantes)
# ---------------------------------------------------------------------------

ACES = [["AH", "2D", "3D"], ["5S", "9C", "4D"], ["2C", "3C", "4C"]]


def test_the_ace_has_no_power_by_default():
    """Base rules: "les As n'ont aucun pouvoir spécial"."""
    t = Table(ACES, "9H", talon=["3S", "4S"])
    assert then(t.act(0, {"type": "play", "card": "AH"})) == [played(0, "AH")]
    assert t.turn == 1


def test_ace_power_draw_makes_every_other_player_draw_one():
    """Option ace_power=draw: "obligeant chaque autre joueur à piocher 1 carte"."""
    t = Table(ACES, "9H", talon=["3S", "4S"], ace_power="draw")
    assert then(t.act(0, {"type": "play", "card": "AH"})) == [
        played(0, "AH"),
        drawn(1, ["4S"], "ace"),
        drawn(2, ["3S"], "ace"),
    ]
    assert t.turn == 1 and t.view()["hand_sizes"] == [2, 4, 4]


def test_ace_power_draw_passes_over_a_player_waiting_with_an_empty_hand():
    """The draw-ace spares a player whose last card awaits its window; the ace ends the turn, so that player is out (ours)."""
    t = Table([["5H"], ["AH", "2S"], ["QC", "3D"]], "9H", talon=["4S", "KS"], ace_power="draw")
    t.act(0, {"type": "play", "card": "5H"})  # no "Mau Mau": waits with an empty hand
    new = t.act(1, {"type": "play", "card": "AH"})
    assert then(new[:3]) == [
        played(1, "AH"),
        drawn(2, ["KS"], "ace"),
        ("RoundScored", None, {"round": 1, "decider": False, "winner": 0, "points": [0, 2, 23]}),
    ]


def test_ace_power_skip_skips_every_other_player_once():
    """Option ace_power=skip: "faisant sauter le tour de chaque autre joueur": the ace's player plays again."""
    t = Table(ACES, "9H", talon=["3S", "4S"], ace_power="skip")
    t.act(0, {"type": "play", "card": "AH"})
    assert t.turn == 0 and t.view()["skipped"] == [1, 2]


# ---------------------------------------------------------------------------
# Scoring and the game (Décompte des points, Victoire)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("card,points", [("AS", 10), ("KD", 10), ("QC", 10), ("JH", 10), ("10S", 10), ("9D", 9), ("2C", 2)])
def test_card_points_are_ten_for_faces_and_face_value_otherwise(card, points):
    """"As, Roi, Dame, Valet = 10 chacun, cartes numérales de 2 à 10 = valeur faciale"."""
    assert card_points(card) == points


def test_hand_points_add_up():
    """A hand of A, K, 2 and 7 scores 10 + 10 + 2 + 7 = 29."""
    assert hand_points(["AS", "KD", "2C", "7H"]) == 29


def round_over(points, winner=None, round=1):
    """A scored round, as a Given event."""
    return Event("RoundScored", {"round": round, "decider": False, "winner": winner, "points": points})


def test_the_game_ends_when_a_total_reaches_the_target_and_the_lowest_total_wins():
    """"La partie se termine une fois qu'un objectif convenu est atteint, communément 100"; lowest total wins."""
    t = Table([["5H", "6H"], ["2S", "KD"], ["QC", "3D"]], "9H")
    t.given(
        round_over([30, 0, 90], winner=1),
        Event("RoundDealt", deal([["5H"], ["2S", "KD"], ["QC", "3D"]], "9H", round=2, dealer=2)),
    )
    new = t.act(0, {"type": "play", "card": "5H", "announce": "maumau"})
    assert then(new) == [
        played(0, "5H", None, "maumau"),
        ("RoundScored", None, {"round": 2, "decider": False, "winner": 0, "points": [0, 12, 13]}),
        ("GameEnded", None, {"totals": [30, 12, 103], "places": [2, 1, 3], "winners": [1]}),
    ]
    res = GAME.result(t.state)
    assert res.scores == (30, 12, 103) and res.places == (2, 1, 3) and res.lower_wins
    assert res.detail["rounds"] == [[30, 0, 90], [0, 12, 13]]
    assert t.awaiting == frozenset() and t.legal(0) == []
    t.refuse(1, {"type": "draw"}, R.GAME_OVER)
    t.refuse(1, {"type": "callout", "seat": 0}, R.GAME_OVER)


def test_a_tie_for_the_lowest_total_is_played_off_by_the_tied_players_only():
    """"Une manche décisive supplémentaire est jouée entre les seuls joueurs à égalité"."""
    t = Table([["5H"], ["2S"], ["QC"]], "9H")
    t.given(
        round_over([40, 50, 95]),
        Event("RoundDealt", deal([["KD"], ["5H"], ["2C", "3C"]], "9H", round=2, dealer=0)),
    )
    assert t.turn == 1
    new = t.act(1, {"type": "play", "card": "5H", "announce": "maumau"})
    assert then(new[1:2]) == [("RoundScored", None, {"round": 2, "decider": False, "winner": 1, "points": [10, 0, 5]})]
    # totals 50, 50, 100: the target is reached and seats 0 and 1 share the lowest total
    dealt = new[2]
    assert dealt.type == "RoundDealt" and dealt.data["decider"] is True and dealt.data["seats"] == [0, 1]
    assert dealt.data["dealer"] == 1 and [len(h) for h in dealt.data["hands"]] == [5, 5, 0]
    assert t.view()["totals"] == [50, 50, 100] and t.awaiting == {0}
    t.refuse(2, {"type": "draw"}, R.NOT_YOUR_TURN)


def test_the_decider_round_ranks_the_tied_players_and_ends_the_game():
    """The decider's winner takes first place; its points only break the tie (ours)."""
    t = Table([["5H"], ["2S"], ["QC"]], "9H", target_score=100)
    t.given(
        round_over([50, 50, 100]),
        Event("RoundDealt", deal([["5H"], ["KD", "3S"], []], "9H", round=2, dealer=1, decider=True, seats=[0, 1])),
    )
    assert t.awaiting == {0} and t.view()["decider"] is True
    t.refuse(2, {"type": "callout", "seat": 0}, R.NOT_YOUR_TURN)  # not in the decider round
    new = t.act(0, {"type": "play", "card": "5H", "announce": "maumau"})
    assert then(new) == [
        played(0, "5H", None, "maumau"),
        ("RoundScored", None, {"round": 2, "decider": True, "winner": 0, "points": [0, 13, None]}),
        ("GameEnded", None, {"totals": [50, 50, 100], "places": [1, 2, 3], "winners": [0]}),
    ]
    res = GAME.result(t.state)
    assert res.scores == (50, 50, 100) and res.places == (1, 2, 3)
    assert res.detail["decider_points"] == [0, 13, None]


def test_the_first_dealer_is_random_and_the_first_player_sits_left_of_the_dealer():
    """"Le joueur à la gauche du donneur joue en premier" (the first dealer is drawn at random: ours)."""
    import random

    dealers = set()
    for seed in range(40):
        e = GAME.start(Options(), 4, random.Random(seed))[0]
        d = e.data["deal"]
        dealers.add(d["dealer"])
        s = fold(GAME, [e])
        if d["upcard"][:-1] not in ("J", "8"):
            assert GAME.view(s, None)["turn"] == (d["dealer"] + 1) % 4
        assert [len(h) for h in d["hands"]] == [5, 5, 5, 5] and len(d["talon"]) == 52 - 21
    assert dealers == {0, 1, 2, 3}


# ---------------------------------------------------------------------------
# Options, deck, views and redaction
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options,players,decks",
    [({}, 6, 1), ({}, 7, 2), ({}, 12, 2), ({"hand_size": 7}, 6, 1), ({"skat_deck": True}, 4, 1),
     ({"skat_deck": True, "hand_size": 7}, 4, 2), ({"decks": 2}, 2, 2)],
)
def test_decks_are_one_up_to_six_players_and_two_from_seven(options, players, decks):
    """Rulings: two mixed decks from 7 players; automatic decks also leave a talon of at least one card per player."""
    assert resolve_decks(Options(**options), players) == decks


def test_options_that_cannot_deal_every_hand_are_refused():
    """An explicit deck count too small for the deal is refused at start; so are unknown options."""
    import random

    with pytest.raises(ValueError):
        GAME.start(Options(decks=1), 12, random.Random(0))
    with pytest.raises(ValueError):
        GAME.start(Options(), 13, random.Random(0))
    with pytest.raises(ValidationError):
        Options(hand_sise=5)


def test_the_skat_deck_has_only_seven_to_ace():
    """Option skat_deck: 32 cards, 7 to ace."""
    import random

    e = GAME.start(Options(skat_deck=True), 3, random.Random(1))[0]
    cards = [c for h in e.data["deal"]["hands"] for c in h] + [e.data["deal"]["upcard"]] + e.data["deal"]["talon"]
    assert len(cards) == 32 and all(c[:-1] in ("7", "8", "9", "10", "J", "Q", "K", "A") for c in cards)


def test_views_show_the_own_hand_and_hide_other_hands_and_the_talon():
    """A seat sees its hand, hand sizes, the top card and counts; never another hand nor the talon."""
    t = Table([["5H", "6H"], ["2S", "KD", "3C"]], "9H", talon=["4S", "AS"])
    v = t.view(1)
    assert v["hand"] == ["2S", "KD", "3C"] and v["hand_sizes"] == [2, 3]
    assert v["discard_top"] == "9H" and v["talon_size"] == 2 and v["turn"] == 0 and v["phase"] == "play"
    text = repr(v)
    assert "5H" not in text and "6H" not in text and "4S" not in text and "AS" not in text
    assert t.view(None)["hand"] is None


def test_the_deal_is_redacted_per_seat():
    """The first event shows each seat only its own hand, and nobody the talon."""
    e = started([["5H", "6H"], ["2S", "KD"]], "9H", talon=["4S", "AS"])
    mine = GAME.redact(e, 1).data["deal"]
    assert mine["hands"] == [None, ["2S", "KD"]] and mine["hand_sizes"] == [2, 2] and mine["talon_size"] == 2
    assert "talon" not in mine
    assert GAME.redact(e, None).data["deal"]["hands"] == [None, None]
    assert e.data["deal"]["talon"] == ["4S", "AS"]  # the original is untouched


def test_drawn_cards_are_shown_only_to_the_drawer():
    """Others see how many cards were drawn, never which."""
    t = Table([["2C", "3C", "4C"], ["2D", "3D", "4D"]], "9H", talon=["KD", "4H"])
    e = t.act(0, {"type": "draw"})[0]
    assert GAME.redact(e, 0).data == {"cards": ["4H"], "reason": "draw"}
    assert GAME.redact(e, 1).data == {"count": 1, "reason": "draw"}
    assert GAME.redact(e, None).data == {"count": 1, "reason": "draw"}


def test_the_reshuffled_talon_order_is_shown_to_nobody():
    """A reshuffle records the new talon order in the log but every feed sees only its size."""
    e = Event("TalonReshuffled", {"talon": ["9C", "9H"]})
    for seat in (None, 0, 1):
        assert GAME.redact(e, seat).data == {"talon_size": 2}


def test_legal_actions_list_jack_suits_and_announcement_variants():
    """Every legal action is listed in the exact shape decide takes, and each is accepted."""
    t = Table([["JC", "5H"], ["2S", "KD", "3C"]], "9H")
    legal = t.legal(0)
    assert legal == [
        *[a for s in "SHDC" for a in ({"type": "play", "card": "JC", "suit": s},
                                      {"type": "play", "card": "JC", "suit": s, "announce": "mau"})],
        {"type": "play", "card": "5H"},
        {"type": "play", "card": "5H", "announce": "mau"},
    ]
    import random

    for a in legal:
        assert GAME.decide(t.state, 0, a, random.Random(0))
    assert t.legal(1) == []


def test_every_refusal_code_is_exercised():
    """The documented codes are exactly those raised by these tests (a new code needs a test)."""
    import pathlib
    import re

    text = pathlib.Path(__file__).read_text()
    used = set(re.findall(r"R\.([A-Z_]+)\)", text)) - {"CODES"}
    assert {getattr(R, name) for name in used} == set(R.CODES)


def test_the_snapshot_covers_every_state_field():
    """The game's flat snapshot holds one key per State field and restores an equal state."""
    import dataclasses

    t = Table(MAU3, "9H", talon=TALON_CALL, ace_power="skip", seven_stack_cap=3)
    t.act(0, {"type": "play", "card": "5H"})  # a window is open
    snap = GAME.snapshot(t.state)
    assert set(snap) - {"v"} == {f.name for f in dataclasses.fields(S.State)}
    back = GAME.restore(snap)
    assert back == t.state and back.window == S.Window(0, S.Call.MAU) and back.rules.ace_power is S.AcePower.SKIP
    with pytest.raises(ValueError):
        GAME.restore({**snap, "v": 0})
