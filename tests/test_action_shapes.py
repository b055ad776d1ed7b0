"""Each game's declared action shapes (ActionRule.fields, checked by the
gateway, services/gateway/actions.py) accept every legal action of many
seeded random games, and refuse unknown keys and wrong types naming the
field (issue 12)."""

from __future__ import annotations

import random

import pytest

from services.gateway import actions
from services.gateway.errors import ApiError
from shared.engine import play
from shared.games import get_game

GAMES = ["maumau", "maudix", "dix", "mauw", "maudit_mot_dit"]


@pytest.mark.parametrize("name", GAMES)
def test_every_legal_action_has_a_declared_shape(name):
    game = get_game(name)
    assert actions.adapter(game) is not None
    seen: set[str] = set()

    def step(state, _new):
        for seat in range(players):
            for a in game.legal_actions(state, seat):
                actions.check(game, a)
                seen.add(a["type"])

    for i in range(6):
        players = [game.min_players, min(game.max_players, 4)][i % 2] or 2
        players = max(players, 2) if game.max_players >= 2 else 1
        play(game, ["random"] * players, random.Random(i), on_step=step)
    assert seen  # something was checked


@pytest.mark.parametrize(("name", "action", "where"), [
    ("maumau", {"type": "play", "card": "AS", "extra": 1}, "play.extra"),
    ("maumau", {"type": "play", "card": 7}, "play.card"),
    ("maumau", {"type": "callout", "seat": "1"}, "callout.seat"),
    ("dix", {"type": "bid", "amount": True}, "bid.amount"),
    ("maudix", {"type": "ecart", "cards": "AS", "to": 1}, "ecart.cards"),
    ("mauw", {"type": "give_up", "card": "x"}, "give_up.card"),
    ("maudit_mot_dit", {"type": "vote", "agree": 1}, "vote.agree"),
    ("maumau", {"type": "fly"}, ""),
])
def test_unknown_keys_and_wrong_types_are_refused_naming_the_field(name, action, where):
    with pytest.raises(ApiError) as e:
        actions.check(get_game(name), action)
    assert (e.value.status, e.value.code) == (422, "bad_action")
    locs = [".".join(x["loc"][2:]) for x in e.value.extra["errors"]]
    assert where in locs or (not where and locs)
