"""shared.hiding: each declaration hides exactly what it says, for views
and events alike, and never changes its input."""

import pytest

from shared.engine import ActionRule, IllegalAction, dispatch, listers, listing
from shared.events import Event
from shared.hiding import PerSeat, Pile, Private, Rows, Within, hide, redactor

DEAL = (PerSeat("hands", sizes="hand_sizes"), Pile("talon", "talon_size"))


def test_per_seat_and_pile_hide_others_hands_and_the_talon():
    data = {"hands": [["7H"], ["KS", "QS"]], "talon": ["AD", "9C"], "round": 1}
    assert hide(data, DEAL, 1) == {"hands": [None, ["KS", "QS"]], "hand_sizes": [1, 2], "talon_size": 2, "round": 1}
    assert hide(data, DEAL, None) == {"hands": [None, None], "hand_sizes": [1, 2], "talon_size": 2, "round": 1}
    assert data == {"hands": [["7H"], ["KS", "QS"]], "talon": ["AD", "9C"], "round": 1}  # input untouched


def test_per_seat_own_gives_the_seat_its_entry_under_another_key():
    view = {"hands": [["7H"], ["KS"]]}
    rule = (PerSeat("hands", sizes="hand_sizes", own="hand"),)
    assert hide(view, rule, 0) == {"hand": ["7H"], "hand_sizes": [1, 1]}
    assert hide(view, rule, None) == {"hand": None, "hand_sizes": [1, 1]}


def test_private_keys_for_author_and_named_readers_only():
    drawn = Event("CardsDrawn", {"cards": ["7H", "8H"], "reason": "penalty"}, 2)
    stolen = Event("CardStolen", {"card": "AS", "target": 1}, 0)
    redact = redactor({"CardsDrawn": (Private(("cards",), size="count"),),
                       "CardStolen": (Private(("card",), readers=("target",)),),
                       "WordChosen": (Private(),)})
    assert redact(drawn, 2) is drawn  # all its secrets readable by the drawer: the event itself
    assert redact(stolen, 1) is stolen and redact(stolen, 0) is stolen
    assert redact(drawn, 0).data == {"reason": "penalty", "count": 2}
    assert redact(drawn, None).data == {"reason": "penalty", "count": 2}
    assert redact(stolen, 1).data == {"card": "AS", "target": 1}
    assert redact(stolen, 0).data == {"card": "AS", "target": 1}
    assert redact(stolen, 2).data == {"target": 1}
    assert redact(Event("WordChosen", {"word": "chat"}, 3), 1).data == {}
    chosen = Event("WordChosen", {"word": "chat"}, 3)
    assert redact(chosen, 3) is chosen
    assert drawn.data == {"cards": ["7H", "8H"], "reason": "penalty"}  # never changed in place
    played = Event("CardPlayed", {"card": "7H"}, 0)
    assert redact(played, 1) is played  # public: the event itself


def test_rows_and_within():
    passes = {"passes": [[0, 1, ["AS"]], [1, 2, ["KD"]]]}
    rows = (Rows("passes", readers=(0, 1), secret=2),)
    assert hide(passes, rows, 1) == {"passes": [[0, 1, ["AS"]], [1, 2, ["KD"]]]}
    assert hide(passes, rows, 2) == {"passes": [[0, 1, None], [1, 2, ["KD"]]]}
    assert hide(passes, rows, None) == {"passes": [[0, 1, None], [1, 2, None]]}
    started = {"deal": {"hands": [["7H"], ["KS"]], "talon": ["AD"]}, "players": 2}
    assert hide(started, (Within("deal", DEAL),), 0) == {
        "deal": {"hands": [["7H"], None], "hand_sizes": [1, 1], "talon_size": 1}, "players": 2}


def test_dispatch_and_listing():
    actions = {
        "pass": ActionRule(lambda s, seat, a, rng: [Event("Passed", {}, seat)], lambda s, seat: [{"type": "pass"}]),
        "bid": ActionRule(lambda s, seat, a, rng: [Event("BidMade", {"amount": a["amount"]}, seat)],
                          lambda s, seat: [{"type": "bid", "amount": n} for n in (1, 2)]),
    }
    assert dispatch(actions, None, 1, {"type": "bid", "amount": 2}, None) == [Event("BidMade", {"amount": 2}, 1)]
    by_phase = listers(actions, {"auction": ("pass", "bid"), "over": ()})
    assert listing(by_phase["auction"], None, 0) == [{"type": "pass"}, {"type": "bid", "amount": 1},
                                                     {"type": "bid", "amount": 2}]
    assert listing(by_phase["over"], None, 0) == []
    for bad in ({"type": "fold"}, {"type": ["bid"]}, {}, ["bid"]):
        with pytest.raises(IllegalAction) as e:
            dispatch(actions, None, 0, bad, None)
        assert e.value.code == "bad_action"
