"""shared.engine.play: one game to its end with a strategy per seat, and is_over."""

from __future__ import annotations

import random

import pytest

from shared.engine import PlayError, fold, play
from shared.events import decode, encode
from shared.games import get_game
from tests.toygame import GAME as TOY

GAMES = ("maumau", "mauw", "dix", "maudix", "maudit_mot_dit")


def first(view, legal, rng):
    return legal[0]


def test_plays_to_the_end_and_the_log_rebuilds_the_state():
    out = play(TOY, ["random", first, "first"], random.Random(1), options={"target": 9})
    assert TOY.is_over(out.state) and out.result == TOY.result(out.state)
    assert out.steps == len(out.events) - 1 and out.events[0].type == "GameStarted"
    assert TOY.view(fold(TOY, out.events), None) == TOY.view(out.state, None)


def test_same_seed_same_game_and_one_awaited_seat_draws_nothing():
    rng = random.Random(5)
    play(TOY, [first, first], rng, options=TOY.Options(target=6))
    after_start = random.Random(5)
    TOY.start(TOY.Options(target=6), 2, after_start)
    assert rng.getstate() == after_start.getstate()  # first() draws nothing, nor does play with one seat awaited
    again = play(TOY, ["random", "random"], random.Random(7))
    assert again.events == play(TOY, ["random", "random"], random.Random(7)).events


def test_hooks_see_the_opening_then_every_action():
    seen = []

    def on_decide(state, seat, action, events):
        seen.append(("decide", state.count, seat, action["n"], [e.type for e in events]))

    def on_step(state, events):
        seen.append(("step", state.count, [e.type for e in events]))

    out = play(TOY, [first, first], random.Random(0), options={"target": 2}, on_decide=on_decide, on_step=on_step)
    assert seen == [
        ("step", 0, ["GameStarted"]),
        ("decide", 0, 0, 1, ["Added"]),  # before evolve
        ("step", 1, ["Added"]),
        ("decide", 1, 1, 1, ["Added"]),
        ("step", 2, ["Added"]),
    ]
    assert out.steps == 2


def test_given_opening_and_codec():
    opening = TOY.start(TOY.Options(target=4), 2, random.Random(3))
    out = play(TOY, ["random"] * 2, random.Random(3), opening=opening, codec=True)
    assert out.events[0] == decode(encode(opening[0])) and len(out.events) == out.steps + 1


def test_a_strategy_taking_feed_gets_its_seats_redacted_events():
    feeds = []

    def reader(view, legal, rng, feed):
        feeds.append((view["secret"], [e.to_json() for e in feed]))
        return legal[0]

    out = play(TOY, [reader, first], random.Random(2), options={"target": 3})
    secret = out.state.secrets[0]
    assert [len(f) for _, f in feeds] == [1, 3]  # the opening, then two more actions seen
    for mine, feed in feeds:
        assert mine == secret and feed[0]["data"]["secrets"] == [secret, None]
    no_feed = []
    play(TOY, [lambda v, legal, r, feed=None: no_feed.append(feed) or legal[0], first], random.Random(2),
         options={"target": 3}, feed=False)
    assert no_feed == [None, None]


def test_views_off_gives_none():
    views = []
    play(TOY, [lambda v, legal, r: views.append(v) or legal[0]], random.Random(0), options={"target": 2}, views=False)
    assert views == [None, None]


def test_errors():
    with pytest.raises(PlayError, match="no result after 3 actions"):
        play(TOY, [first], random.Random(0), options={"target": 10}, max_steps=3)
    with pytest.raises(PlayError, match="declined"):
        play(TOY, [lambda v, legal, r: None], random.Random(0))
    assert issubclass(PlayError, RuntimeError)


def test_a_declining_seat_is_asked_again_once_someone_acts():
    """Mau Mau's random bot declines call-outs; play asks the other awaited seats first."""
    game = get_game("maumau")
    declined = []

    def random_bot(view, legal, rng):
        action = game.strategies["random"](view, legal, rng)
        if action is None:
            declined.append(view["seat"])
        return action

    out = play(game, [random_bot] * 4, random.Random(3))
    assert declined and game.is_over(out.state)


@pytest.mark.parametrize("name", GAMES)
def test_is_over_agrees_with_result(name):
    game = get_game(name)

    def check(state, _events):
        assert game.is_over(state) == (game.result(state) is not None)

    for seed in range(2):
        play(game, ["random"] * max(2, game.min_players), random.Random(seed), on_step=check)
