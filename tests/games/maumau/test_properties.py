"""Random playouts of Mau Mau (issue 2, "Done when": properties).

Over many seeded random games with 2–12 players and mixed options:
fold(events) == live state, snapshots round-trip, decide never mutates
(all by :func:`tests.invariants.playout`); plus, for Mau Mau, cards are
conserved through reshuffles (hands + talon + discard == the shoe), hands
respect the rules' limits, and no view, redacted event or error message of
a seat holds a card of another seat's hand or of the talon.

The default run plays ``CI_GAMES`` = 500 games, the issue's count (about
70 s of CPU on the 2-core machine); set ``TAPIS_PROPERTY_GAMES=N`` to play
N more (the ``slow`` soak, skipped otherwise).
"""

from __future__ import annotations

import json
import os
import re
import random
from collections import Counter
from itertools import chain

import pytest

from shared.cards import shoe
from shared.engine import IllegalAction, fold
from shared.games.maumau import GAME
from shared.games.maumau.rules import CARD_NOT_IN_HAND, NOT_YOUR_TURN, Phase
from tests.invariants import playout, strings_in

#: A JSON string that looks like a card code ("10H", "QS").
CARD_TOKEN = re.compile(r'"((?:10|[2-9JQKA])[SHDC])"')

CI_GAMES = 500  # the issue asks for >= 500 seeded games
FULL_GAMES = int(os.environ.get("TAPIS_PROPERTY_GAMES", "0"))

#: Option sets the seeded games cycle through (defaults first).
OPTION_SETS = [
    {},
    {"hand_size": 7},
    {"skat_deck": True},
    {"ace_power": "draw"},
    {"ace_power": "skip", "seven_stack_cap": 2},
    {"seven_stack_cap": 1, "target_score": 50},
    {"skat_deck": True, "hand_size": 7, "ace_power": "draw"},
    {"decks": 1, "hand_size": 3, "target_score": 30},
]


def game_setup(seed: int) -> tuple[int, dict]:
    """Players (2..12, every count covered) and options for one seed."""
    return 2 + seed % 11, OPTION_SETS[(seed // 11) % len(OPTION_SETS)]


def hidden_cards(state) -> set[str]:
    """Every card code in a hand or in the talon."""
    hidden = set(state.talon)
    for h in state.hands:
        hidden.update(h)
    return hidden


def forbidden_for(state, seat: int | None, hidden: set[str] | None = None) -> set[str]:
    """Card codes ``seat`` must not see: other hands and the talon, except
    codes it legitimately sees elsewhere (its own hand, the discard's top:
    with two decks the same code can be in both places)."""
    bad = (hidden_cards(state) if hidden is None else hidden) - {state.discard[-1]}
    if seat is not None:
        bad.difference_update(state.hands[seat])
    return bad


def leaks(obj, bad: set[str]) -> list[str]:
    """Codes of ``bad`` present as a string anywhere in a JSON-ready value
    (same answer as ``strings_in``, faster: every JSON string that looks
    like a card code is found by one regular-expression scan)."""
    found = bad.intersection(CARD_TOKEN.findall(json.dumps(obj)))
    if found:  # confirm with the shared helper
        found = found.intersection(strings_in(obj))
    return sorted(found)


def make_checks(players: int, options: dict, *, check_legal: bool = False):
    """An ``on_step`` checking conservation, limits, views and errors (and,
    with ``check_legal``, that decide accepts every listed legal action of
    every awaited seat)."""
    opts = GAME.Options(**options)
    full: Counter | None = None
    step = 0

    def on_step(state, new_events):
        nonlocal full, step
        step += 1
        if full is None:
            full = Counter(shoe(state.rules.decks, short=opts.skat_deck))
        held = Counter(chain(state.talon, state.discard, *state.hands))
        assert held == full, "cards not conserved"
        assert state.discard, "the discard pile always has a top card"
        assert state.penalty % 2 == 0 and state.penalty >= 0
        if opts.seven_stack_cap is not None:
            assert state.penalty <= 2 * opts.seven_stack_cap
        for i in range(players):
            if i not in state.seats:
                assert not state.hands[i]
        if state.phase is not Phase.OVER:
            assert state.hands[state.turn], "the player on turn holds cards"
        # views of the spectator, the seat on turn and one more seat in
        # rotation (every seat is checked many times over a game)
        hidden = hidden_cards(state)
        for s in {None, state.turn, step % players}:
            leaked = leaks(GAME.view(state, s), forbidden_for(state, s, hidden))
            assert not leaked, f"view of {s} leaks {leaked}"
        if check_legal:
            for s in GAME.awaiting(state):
                for action in GAME.legal_actions(state, s):
                    assert GAME.decide(state, s, action, random.Random(0)), action
        # an error message never names a card the seat cannot see
        if state.phase is not Phase.OVER:
            turn = state.turn
            for other in range(players):
                if other != turn and state.hands[other]:
                    probe = state.hands[other][0]
                    if probe in state.hands[turn]:
                        continue
                    with pytest.raises(IllegalAction) as err:
                        GAME.decide(state, turn, {"type": "play", "card": probe}, random.Random(0))
                    assert err.value.code in (CARD_NOT_IN_HAND, "suit_wish_pending")
                    assert probe not in err.value.message
                    with pytest.raises(IllegalAction) as err:
                        GAME.decide(state, other, {"type": "play", "card": probe}, random.Random(0))
                    assert err.value.code == NOT_YOUR_TURN and probe not in err.value.message
                    break

    return on_step


def check_feed(events, players: int) -> None:
    """Replay the log one event at a time: every event as redacted for each
    seat (and spectators) shows no card hidden from that seat right after
    it is applied; the talon order is shown to nobody."""
    state = None
    for e in events:
        state = GAME.evolve(state, e)
        hidden = hidden_cards(state)
        tokens: dict[int, set[str]] = {}  # card-like strings per distinct redacted payload
        seen = []  # keeps the payloads alive so their ids stay unique
        for s in [None, *range(players)]:
            r = GAME.redact(e, s)
            if r is None:
                continue
            key = id(r.data)
            if key not in tokens:
                seen.append(r)
                tokens[key] = set(CARD_TOKEN.findall(json.dumps(r.data)))
                if e.type == "TalonReshuffled":
                    assert not tokens[key], "the talon order is never shown"
            leaked = tokens[key] & forbidden_for(state, s, hidden)
            if leaked:
                leaked &= set(strings_in(r.data))
            assert not leaked, f"{e.type} redacted for {s} leaks {leaked}"
    assert GAME.restore(GAME.snapshot(state)) == state


def run_game(seed: int) -> None:
    players, options = game_setup(seed)
    checks = make_checks(players, options, check_legal=seed % 5 == 0)
    out = playout(GAME, players, seed, options=options, on_step=checks)
    check_feed(out.events, players)
    res = GAME.result(out.state)
    assert res is not None and res.lower_wins
    assert max(res.scores) >= options.get("target_score", 100)
    assert fold(GAME, out.events).totals == list(res.scores)


@pytest.mark.parametrize("chunk", range(10))
def test_random_games_keep_the_invariants(chunk):
    """Seeded random games (2–12 players, mixed options) keep every invariant."""
    for seed in range(chunk, CI_GAMES, 10):
        run_game(seed)


@pytest.mark.slow
@pytest.mark.skipif(FULL_GAMES == 0, reason="set TAPIS_PROPERTY_GAMES (e.g. 500) for the full count")
def test_random_games_keep_the_invariants_full():
    """The issue's ≥ 500 seeded random games (TAPIS_PROPERTY_GAMES of them)."""
    for seed in range(CI_GAMES, CI_GAMES + FULL_GAMES):
        run_game(seed)


@pytest.mark.parametrize("players", [2, 4, 7, 12])
def test_heuristic_games_keep_the_invariants(players):
    """Heuristic bots on every seat finish games with the same invariants."""
    for seed in range(3):
        out = playout(GAME, players, seed, strategy="heuristic", on_step=make_checks(players, {}))
        check_feed(out.events, players)


def test_heuristic_beats_random_clearly():
    """The heuristic bot (one seat) beats random bots far above the 1-in-n baseline."""
    from shared.games.maumau.bots import play_match

    for players, games, floor in [(2, 30, 0.8), (4, 30, 0.6)]:
        wins = 0
        for g in range(games):
            seats = ["random"] * players
            seats[g % players] = "heuristic"
            res, _ = play_match(GAME, seats, g)
            wins += res.places[g % players] == 1
        assert wins / games >= floor, (players, wins, games)
