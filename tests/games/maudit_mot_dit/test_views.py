"""What each seat sees (issue 6, "Views"): the candidate words and the
secret choice only to the active player; clues, proposals (once revealed),
votes and scores public; the box order nobody's."""

from __future__ import annotations

import json
import random

from shared.engine import play
from shared.events import Event
from shared.games.maudit_mot_dit import GAME
from shared.games.maudit_mot_dit.deck import BACKS
from tests.invariants import strings_in

from .helpers import OPTS, card_turned, clue, given, opening, passed, pick_turn, proposed, revealed, started

T2, T3 = pick_turn(2), pick_turn(3)


def test_only_the_active_player_sees_the_candidates_and_the_choice():
    """Tour, 2: the active player chooses secretly."""
    state = given(*opening(4, 0, [T2, T3]), clue(0, "zigzag", 1))
    mine = GAME.view(state, 0)
    assert {c["word"] for c in mine["candidates"]} == {T2.word, T2.other_word}
    assert mine["chosen"] == {"symbol": T2.symbol, "word": T2.word, "count": T2.count, "bonus": T2.bonus}
    for seat in (None, 1, 2, 3):
        v = GAME.view(state, seat)
        assert v["candidates"] is None and v["chosen"] is None
        assert T2.word not in strings_in(v) and T2.other_word not in strings_in(v)
        json.dumps(v)


def test_the_left_card_the_clues_and_the_scores_are_public():
    """Tour, 1-4: the left card's back shows to all; clues are spoken aloud."""
    state = given(*opening(4, 0, [T2, T3]), clue(0, "zigzag", 1))
    v = GAME.view(state, None)
    assert v["left_card"] == [{"symbol": s.symbol, "count": s.count, "bonus": s.bonus} for s in BACKS[T2.back]]
    assert v["clues"] == ["zigzag"] and v["phase"] == "guess" and v["turn"] == 0
    assert v["talon_size"] == 54 and v["centre_pile"] == 55 and v["trip"] == 1 and v["trips"] == 2
    assert v["totals"] == [0, 0, 0, 0]


def test_every_view_has_the_keys_the_games_share():
    """Views: game, seat, players, phase, turn (the clue-giver), turns, awaiting, options, result;
    standings per seat and totals."""
    state = given(*opening(4, 0, [T2, T3]), clue(0, "zigzag", 1))
    v = GAME.view(state, 2)
    assert (v["game"], v["seat"], v["players"], v["phase"]) == ("maudit_mot_dit", 2, 4, "guess")
    assert v["turn"] == 0 and v["turns"] == 1 and v["awaiting"] == [1, 2, 3]
    assert v["options"] == OPTS and v["result"] is None
    assert v["standings"] == [{"seat": s, "points": 0, "bad_luck": 0, "curse": False} for s in range(4)]
    assert v["totals"] == [0, 0, 0, 0]
    assert not {"active", "box_size", "scores"} & set(v)


def test_once_over_nobody_has_the_turn_and_the_view_shows_the_result():
    """End: no turn, nobody awaited, the result in every view."""
    out = play(GAME, ["random"] * 3, random.Random(1))
    for seat in (None, 0, 1, 2):
        v = GAME.view(out.state, seat)
        assert v["turn"] is None and v["awaiting"] == [] and v["phase"] == "over"
        assert v["result"] == out.result.to_json() and v["candidates"] is None and v["chosen"] is None
        json.dumps(v)


def test_a_sealed_proposal_is_seen_only_by_its_author_until_revealed():
    """Ours: proposals are sealed until every guesser answered, then public."""
    state = given(*opening(4, 0, [T2, T3]), clue(0, "zigzag", 1), proposed(2, "pomme"))
    assert GAME.view(state, 2)["my_proposal"] == "pomme"
    for seat in (None, 0, 1, 3):
        v = GAME.view(state, seat)
        assert "pomme" not in strings_in(v) and v["answered"] == [2]
    e = proposed(2, "pomme")
    assert GAME.redact(e, 2) == e
    assert GAME.redact(e, 1) == Event("GuessProposed", {}, 2) == GAME.redact(e, None) == GAME.redact(e, 0)
    state = given(*opening(4, 0, [T2, T3]), clue(0, "zigzag", 1), proposed(2, "pomme"), passed(1), passed(3),
                  revealed(1, (2, "pomme", False)))
    assert GAME.view(state, 1)["proposals"] == [{"clue": 1, "seat": 2, "word": "pomme", "found": False}]


def test_the_deal_is_redacted_for_everybody():
    """Contract: the first event carries the shuffled box; no seat sees its order."""
    events = GAME.start(GAME.Options(), 3, random.Random(1))
    for seat in (None, 0, 1, 2):
        r = GAME.redact(events[0], seat)
        assert "box" not in r.data and r.data["talon_size"] == 55 and r.data["players"] == 3
    assert "box" in events[0].data


def test_the_turned_card_and_the_choice_are_redacted_for_the_others():
    """Tour, 1-2: the right card and the choice are the active player's."""
    turned = card_turned(1, 1, 0, T2, 3)
    assert GAME.redact(turned, 1) == turned
    for seat in (None, 0, 2):
        r = GAME.redact(turned, seat)
        assert "candidates" not in r.data and r.data["left"] == turned.data["left"]
    chose = opening(3, 1, [T2, T3])[2]
    assert GAME.redact(chose, 1) == chose
    assert GAME.redact(chose, 0).data == {} and GAME.redact(chose, None).seat == 1


def test_public_events_are_shown_as_they_are():
    """Issue 6: clues, proposals, votes and scores are public."""
    for e in (clue(0, "zigzag", 1), revealed(1, (1, "pomme", False)), Event("CurseVoted", {"agree": True}, 2),
              Event("TurnScored", {"word": T2.word, "points": [0, 0, 0]})):
        assert GAME.redact(e, None) == e == GAME.redact(e, 1)


def test_the_secret_word_is_revealed_once_the_turn_is_over():
    """Ours: players expect to learn the word at the end of the turn (found or not)."""
    state = given(*opening(3, 0, [T2, T3]), clue(0, "zigzag", 1), passed(1), passed(2), revealed(1),
                  clue(0, "zouave", 2), passed(1))
    events = GAME.decide(state, 2, {"type": "pass"}, random.Random(0))
    scored = events[2]
    assert scored.type == "TurnScored" and GAME.redact(scored, 1).data["word"] == T2.word
    after = given(*opening(3, 0, [T2, T3]), clue(0, "zigzag", 1), passed(1), passed(2), revealed(1),
                  clue(0, "zouave", 2), passed(1), *events)
    assert GAME.view(after, 2)["last_turn"]["word"] == T2.word
    assert T2.other_word not in strings_in(GAME.view(after, 2))


def test_nobody_is_offered_an_action_when_not_awaited():
    """Contract: legal_actions is empty for a seat that is not awaited."""
    state = given(started(3, 0, [T2, T3]), card_turned(0, 1, 0, T2, 3))
    assert GAME.awaiting(state) == {0}
    assert GAME.legal_actions(state, 1) == [] == GAME.legal_actions(state, 2)
    assert GAME.legal_actions(state, 7) == []
