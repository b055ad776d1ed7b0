"""Maudit Mot Dit properties over many seeded random games, at 3-6 players.

Every game runs through ``tests.invariants.playout`` (decide never mutates,
JSON views, replay == live, snapshot round-trip) with :class:`Watch` as its
``on_step`` check:

* cards are conserved: box + cards turned over == 55; the centre pile is
  55 minus the points taken (never below 0); Mauvais sort cards given +
  left == 10;
* limits: clues <= the required count; at most one answer per guesser per
  clue and at most the proposals allowed in all; the passes of the box never
  exceed trips x players; the Malédiction holder is a seat or None;
* hidden information (the shared property, :func:`tests.invariants.hidden_checker`
  with the helpers' ``secrets()``): no view or redacted event of a seat (or a spectator)
  contains a word of a card turned over (the candidates, the secret) unless
  the seat is the active player of that card's turn, nor a word of a card
  still in the box, nor
  another seat's sealed proposal, unless that very string is public
  elsewhere (a clue, a revealed proposal, a secret revealed at the end of a
  turn) — free text may name any game word.

Two strategies: ``random`` (the shared one) and an oracle guesser that
knows the secret now and then (test-only), so exact finds, early finds,
play-again, Mauvais sort and the Malédiction all happen.

By default each player count runs ``CI_GAMES`` oracle games and half as
many random ones (env ``TAPIS_CI_GAMES``, default 40); the ``slow`` test
runs ``TAPIS_PROPERTY_GAMES`` games per player count when that variable is
set (the full count: 500, i.e. 2,000 games).
"""

from __future__ import annotations

import copy
import os
import random
from collections import Counter

import pytest

from shared.events import Event
from shared.games.maudit_mot_dit import GAME, Phase
from shared.games.maudit_mot_dit.bots import random_clue, random_strategy
from shared.games.maudit_mot_dit.deck import BAD_LUCK, CARD_COUNT, FRONTS
from shared.games.maudit_mot_dit.state import proposal_cap, secret
from tests.games.maudit_mot_dit.helpers import secrets
from tests.invariants import playout

CI_GAMES = int(os.environ.get("TAPIS_CI_GAMES", "40"))
FULL_GAMES = int(os.environ.get("TAPIS_PROPERTY_GAMES", "0"))


class Oracle:
    """A test-only game copy whose ``oracle`` strategy peeks at the live
    state (kept up to date by :meth:`Watch.__call__`): guessers propose the
    secret word half the time on the last clue (8% before), curse 5% of the time and vote yes 80%."""

    def __init__(self) -> None:
        self.state = None
        self.game = copy.copy(GAME)
        self.game.strategies = {"oracle": self.strategy, "random": random_strategy}

    def strategy(self, view, legal, rng: random.Random):
        kinds = {a["type"] for a in legal}
        if "vote" in kinds:
            return {"type": "vote", "agree": rng.random() < 0.8}
        if "curse" in kinds and rng.random() < 0.05:
            return {"type": "curse"}
        if "propose" in kinds and self.state is not None and self.state.phase is Phase.GUESS:
            word, count, _slot = secret(self.state)
            if rng.random() < (0.5 if len(self.state.clues) == count else 0.08):
                return {"type": "propose", "word": rng.choice([word, word.upper(), "le " + word])}
        if "clue" in kinds:
            return {"type": "clue", "word": random_clue(view, rng)}
        return random_strategy(view, legal, rng)


class Watch:
    """``on_step`` checker (module doc)."""

    def __init__(self, players: int, oracle: Oracle | None = None) -> None:
        self.n = players
        self.oracle = oracle
        self.outcomes: Counter = Counter()

    def __call__(self, state, new: list[Event]) -> None:
        if self.oracle is not None:
            self.oracle.state = state
        for e in new:
            self._learn(e)
        self._check_counts(state)
        self._check_candidates(state)

    def _learn(self, e: Event) -> None:
        d = e.data
        if e.type == "TurnScored":
            self.outcomes[d["outcome"]] += 1
            if d["bonus"]:
                self.outcomes[d["bonus"]] += 1
        elif e.type == "CurseDecided":
            self.outcomes["curse_" + ("agreed" if d["agreed"] else "rejected")] += 1

    def _check_counts(self, s) -> None:
        n = self.n
        assert len(s.box) + s.turn == CARD_COUNT // 2
        assert s.centre == max(0, CARD_COUNT // 2 - sum(s.points))
        assert sum(s.bad_luck) + s.bad_luck_left == 10 and s.bad_luck_left >= 0
        assert s.curse_holder is None or 0 <= s.curse_holder < n
        assert 0 <= s.passes <= s.rules.trips * n
        assert all(p >= 0 for p in s.points)
        if s.phase in (Phase.CLUE, Phase.GUESS, Phase.VOTE) and s.choice is not None:
            count = secret(s)[1]
            assert len(s.clues) <= count
        assert len(s.acted) == len(set(s.acted)) and s.active not in s.acted
        assert len(s.sealed) <= proposal_cap(s)
        per_clue = Counter((c, seat) for c, seat, _w, _f in s.proposals)
        assert all(v == 1 for v in per_clue.values())
        per_clue_total = Counter(c for c, _s, _w, _f in s.proposals)
        assert all(v <= proposal_cap(s) for v in per_clue_total.values())

    def _check_candidates(self, s) -> None:
        """The active player sees its chosen secret and its card's candidates
        (the words hidden from the others: the shared property, ``playout(secrets=...)``)."""
        if s.phase is not Phase.OVER and s.right is not None and s.choice is not None and s.phase is not Phase.BAD_LUCK:
            word = secret(s)[0]
            active_view = GAME.view(s, s.active)
            assert active_view["chosen"]["word"] == word
            assert {c["word"] for c in active_view["candidates"]} <= set(FRONTS[s.right])


def _run(players: int, seed: int, oracle: bool) -> Watch:
    o = Oracle() if oracle else None
    w = Watch(players, o)
    game = o.game if o else GAME
    out = playout(game, players, seed, strategy="oracle" if oracle else "random", on_step=w, secrets=secrets())
    result = GAME.result(out.state)
    assert result is not None and out.state.ended in ("trips", "box_empty")
    assert sorted(result.places)[0] == 1 and len(result.scores) == players
    return w


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_random_games_keep_the_invariants(players):
    """Shared invariants + conservation, limits and hidden information (random bots)."""
    for seed in range(CI_GAMES // 2):
        _run(players, 1000 * players + seed, oracle=False)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_oracle_games_reach_every_outcome_and_keep_the_invariants(players):
    """Same checks with finds: exact, early, miss, play again, Mauvais sort and the Malédiction all occur."""
    seen: Counter = Counter()
    for seed in range(CI_GAMES):
        seen += _run(players, 2000 * players + seed, oracle=True).outcomes
    for outcome in ("exact", "early", "miss", "cursed", "play_again", BAD_LUCK, "curse_rejected"):
        assert seen[outcome] > 0, (outcome, seen)


@pytest.mark.slow
@pytest.mark.skipif(FULL_GAMES == 0, reason="set TAPIS_PROPERTY_GAMES (e.g. 500) for the full count")
@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_many_games_keep_the_invariants(players):
    """The full count (TAPIS_PROPERTY_GAMES per player count, half random, half oracle)."""
    for seed in range(FULL_GAMES):
        _run(players, 10_000 * players + seed, oracle=bool(seed % 2))
