"""What the API offers a seat (docs/api.md, "Views"): ``legal_actions``
each accepted as it is, ``choices`` (combinations and free text described
by a JSON Schema), ``must_act`` (the awaited seats the game waits for),
and the one ``seats`` shape of every game's view.

The engine-level property plays random games of all five games and, at
every step, for every awaited seat, sends back to ``decide`` every action
of :func:`shared.engine.client_actions`'s ``legal`` and random valid
fillings of each ``choices`` schema; the API-level property is in
``tests/test_client_api.py``."""

from __future__ import annotations

import os
import random

import pytest
from jsonschema import Draft202012Validator

from shared.choices import fill
from shared.engine import IllegalAction, client_actions, must_act, play
from shared.events import Event
from shared.games import get_game
from shared.games.maudix import GAME as MAUDIX
from tests.games.maudit_mot_dit import helpers as mmd
from tests.games.maudix.helpers import started as maudix_started
from tests.games.maumau.helpers import Table as MauMauTable
from tests.given import given
from tests.invariants import check_seats

#: (game, players, options): short games, one per game and size.
CASES = [
    ("maumau", 3, {"target_score": 60}),
    ("maudix", 4, {"contracts": ["plis", "association"]}),
    ("maudix", 7, {"contracts": ["prediction"]}),
    ("dix", 3, {}),
    ("mauw", 2, {}),
    ("maudit_mot_dit", 4, {"trips": 1}),
]
#: Seeds per case: a CI size, more with TAPIS_PROPERTY_GAMES (slow).
GAMES = 2
MANY = int(os.environ.get("TAPIS_PROPERTY_GAMES", "0")) or 4
#: Refusals of a free-text clue that no schema can state: they depend on
#: the secret word (hidden from the schema's reader), on earlier clues or
#: on the French lexicon (a random string of letters is rarely a word).
CLUE_RULES = {"clue_same_family", "clue_same_family_as_earlier", "clue_repeated", "clue_not_french"}


def _check_offer(game, state, players: int, rng: random.Random) -> int:
    """Every legal action and a random filling of every choice of every
    awaited seat is accepted by ``decide``; ``must_act`` is a non-empty part
    of ``awaiting``.  Returns the number of actions sent."""
    sent = 0
    awaited = game.awaiting(state)
    must = must_act(game, state)
    assert must and must <= awaited, (sorted(must), sorted(awaited))
    for seat in sorted(awaited):
        legal, choices = client_actions(game, state, seat)
        assert legal or choices, f"seat {seat} awaited with nothing to send"
        kinds = {c["type"] for c in choices}
        assert not any(a["type"] in kinds for a in legal), "a type both listed and described"
        for action in legal:
            game.decide(state, seat, action, random.Random(0))  # raises if refused
            sent += 1
        for choice in choices:
            assert set(choice) == {"type", "schema", "hint"} and isinstance(choice["hint"], str)
            Draft202012Validator.check_schema(choice["schema"])
            validator = Draft202012Validator(choice["schema"])
            for _ in range(3):
                action = fill(choice["schema"], rng)
                validator.validate(action)
                assert action["type"] == choice["type"]
                try:
                    game.decide(state, seat, action, random.Random(0))
                except IllegalAction as exc:
                    assert action["type"] == "clue" and exc.code in CLUE_RULES, (action, exc.code)
                sent += 1
    for seat in [None, *range(players)]:
        check_seats(game.view(state, seat), players)
    return sent


def _run(name: str, players: int, options: dict, seeds) -> int:
    game = get_game(name)
    checked = 0

    def on_step(state, _events):
        nonlocal checked
        if not game.is_over(state):
            checked += _check_offer(game, state, players, rng)

    for seed in seeds:
        rng = random.Random(seed)
        play(game, ["random"] * players, random.Random(seed), options=options, on_step=on_step)
    return checked


@pytest.mark.parametrize("name,players,options", CASES)
def test_every_offered_action_is_accepted(name, players, options):
    assert _run(name, players, options, range(GAMES)) > 50


@pytest.mark.slow
@pytest.mark.parametrize("name,players,options", CASES)
def test_every_offered_action_is_accepted_over_many_games(name, players, options):
    assert _run(name, players, options, range(100, 100 + MANY)) > 50


# ---------------------------------------------------------------------------
# Exact shapes
# ---------------------------------------------------------------------------

HANDS3 = [["2S", "3S", "4S", "5S"], ["2H", "3H", "4H", "5H"], ["2D", "3D", "4D", "5D"]]


def test_maudix_ecart_is_one_choice_not_an_enumeration():
    s = given(MAUDIX, maudix_started(HANDS3))
    assert len(MAUDIX.legal_actions(s, 0)) == 4 * 2  # the bots' enumeration: 4 combinations x 2 recipients
    legal, choices = client_actions(MAUDIX, s, 0)
    assert legal == []
    assert choices == [{
        "type": "ecart",
        "schema": {
            "type": "object",
            "properties": {
                "type": {"const": "ecart"},
                "cards": {"type": "array", "items": {"enum": ["2S", "3S", "4S", "5S"]},
                          "minItems": 3, "maxItems": 3, "uniqueItems": True},
                "to": {"enum": [1, 2]},
            },
            "required": ["type", "cards", "to"],
            "additionalProperties": False,
        },
        "hint": "Choose 3 cards of your hand to pass and the opponent (to) who gets them.",
    }]
    check = Draft202012Validator(choices[0]["schema"])
    assert check.is_valid({"type": "ecart", "cards": ["2S", "3S", "5S"], "to": 2})
    assert not check.is_valid({"type": "ecart", "cards": ["2S", "3S", "2H"], "to": 2})  # not in the hand
    assert not check.is_valid({"type": "ecart", "cards": ["2S", "2S", "3S"], "to": 2})  # held once
    assert not check.is_valid({"type": "ecart", "cards": ["2S", "3S", "5S"], "to": 0})  # oneself
    # Seat 0 sent to 1: seat 1 may not give to 0 (seat 2 would be left with only itself).
    s = given(MAUDIX, maudix_started(HANDS3), Event("EcartMade", {"to": 1, "cards": ["2S", "3S", "4S"]}, 0))
    assert client_actions(MAUDIX, s, 0) == ([], [])
    assert client_actions(MAUDIX, s, 1)[1][0]["schema"]["properties"]["to"] == {"enum": [2]}


def test_maudix_ecart_schema_of_a_hand_holding_a_card_twice():
    hands = [["KH", "KH", "2C", "3C"]] + [["2S", "3S", "4S", "5S"]] * 6
    s = given(MAUDIX, maudix_started(hands))
    cards = client_actions(MAUDIX, s, 0)[1][0]["schema"]["properties"]["cards"]
    assert cards == {"type": "array", "items": {"enum": ["KH", "2C", "3C"]}, "minItems": 3, "maxItems": 3,
                     "allOf": [{"contains": {"const": "KH"}, "minContains": 0, "maxContains": 2},
                               {"contains": {"const": "2C"}, "minContains": 0, "maxContains": 1},
                               {"contains": {"const": "3C"}, "minContains": 0, "maxContains": 1}]}
    check = Draft202012Validator(cards)
    assert check.is_valid(["KH", "KH", "2C"]) and not check.is_valid(["2C", "2C", "KH"])


def _text(kind: str, limit: int) -> dict:
    return {"type": "object",
            "properties": {"type": {"const": kind}, "word": {"type": "string", "minLength": 1, "maxLength": limit}},
            "required": ["type", "word"], "additionalProperties": False}


def test_maudit_mot_dit_clue_and_guess_are_choices():
    game = get_game("maudit_mot_dit")
    t2, t3 = mmd.pick_turn(2), mmd.pick_turn(3)
    s = mmd.given(*mmd.opening(4, 0, [t2, t3]))  # phase clue, seat 0 active
    assert game.legal_actions(s, 0) == [{"type": "clue", "word": ""}]  # the bots' placeholder
    assert client_actions(game, s, 0) == ([], [{
        "type": "clue", "schema": _text("clue", 30),
        "hint": "Type one French word that leads the others to your secret word, not of its family."}])
    assert client_actions(game, s, 1) == ([], [])  # no clue yet: nothing open to a guesser
    s = mmd.given(*mmd.opening(4, 0, [t2, t3]), mmd.clue(0, "zigzag", 1))  # phase guess
    legal, choices = client_actions(game, s, 1)
    assert legal == [{"type": "pass"}, {"type": "curse"}]
    assert choices == [{"type": "propose", "schema": _text("propose", 40),
                        "hint": "Type the word you think the clues point to."}]
    assert client_actions(game, s, 0) == ([], [])  # the giver waits


def test_must_act_leaves_out_a_mau_mau_call_out():
    t = MauMauTable([["5H", "6H"], ["2S", "KD", "3C"], ["QC", "10H", "3D"]], "9H", talon=["2C", "9D", "4S", "AS"])
    t.act(0, {"type": "play", "card": "5H"})  # one card left, "mau" not said: the window opens
    game = get_game("maumau")
    assert game.awaiting(t.state) == {1, 2}
    assert must_act(game, t.state) == {1}  # seat 2 may call out, the game waits for seat 1 only
    assert client_actions(game, t.state, 2) == ([{"type": "callout", "seat": 0}], [])


def test_must_act_in_maudit_mot_dit_curse_and_vote():
    game = get_game("maudit_mot_dit")
    t2, t3 = mmd.pick_turn(2), mmd.pick_turn(3)
    base = [*mmd.opening(4, 0, [t2, t3]), mmd.clue(0, "zigzag", 1), mmd.proposed(1, "pomme")]
    s = mmd.given(*base)  # seats 2 and 3 still to answer; seat 1 may only propose the Malédiction
    assert game.awaiting(s) == {1, 2, 3} and must_act(game, s) == {2, 3}
    assert client_actions(game, s, 1) == ([{"type": "curse"}], [])
    s = mmd.given(*base, Event("CurseProposed", {"clue": 1}, 2))  # the vote: every other guesser must vote
    assert game.awaiting(s) == {1, 3} and must_act(game, s) == {1, 3}
