"""Maudix bots: legal play, heuristic choices, and the strong bot's sampler."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from shared.games.maudix import GAME, bots
from shared.games.maudix.bots import DANGER, heuristic_card, knowledge, sample_hands
from shared.games.maudix.rules import deck_for
from shared.games.maudix.state import CARD_SUIT, JOKERS, Contract
from tests.invariants import playout

from .helpers import given, play, ready


@pytest.mark.parametrize("players", [3, 4, 7, 12])
def test_heuristic_plays_legal_full_games(players):
    """The heuristic only sends actions the rules accept, in every phase."""
    for seed in range(2):
        playout(GAME, players, seed, strategy="heuristic")


def test_strong_plays_legal_full_games_from_the_view_alone(monkeypatch):
    """The strong bot, called as a plain Strategy (no feed), finishes a game legally."""
    monkeypatch.setattr(bots, "PLAY_BUDGET", 600)
    monkeypatch.setattr(bots, "MIN_SAMPLES", 2)
    playout(GAME, 3, 7, strategy="strong", options={"contracts": ["dames", "chasse", "prediction"]}, check_views=False)


def test_heuristic_ducks_under_the_winner_when_avoiding():
    """Avoiding contracts: play the highest card that does not take the trick."""
    d = DANGER[Contract.PLIS]
    assert heuristic_card(["3C", "9C", "KC"], [(0, "10C")], 4, False, d) == "9C"


def test_heuristic_takes_cheaply_in_la_chasse():
    """La Chasse: the last player takes with the cheapest winning card."""
    d = DANGER[Contract.CHASSE]
    assert heuristic_card(["3C", "JC", "KC"], [(0, "10C"), (1, "2C"), (2, "4C")], 4, True, d) == "JC"


def test_heuristic_dumps_a_queen_when_void_in_les_dames():
    """Les Dames: void in the led suit, dump the costliest card (a Queen)."""
    d = DANGER[Contract.DAMES]
    assert heuristic_card(["QH", "KD", "2S"], [(0, "10C")], 4, False, d) == "QH"


def test_heuristic_keeps_the_naufrage_for_a_costly_trick():
    """The Naufragé is the sure way not to take a trick: used when every other card would win."""
    d = DANGER[Contract.MAUDIX]
    assert heuristic_card(["AC", "NAUFRAGE"], [(0, "10C"), (1, "2C")], 4, False, d) == "NAUFRAGE"


def test_heuristic_bid_respects_the_hook():
    """The heuristic bids an allowed number (the hook removes one)."""
    view = {"hand": ["AS", "KS", "QS", "PIRATE", "2C"], "players": 3}
    legal = [{"type": "bid", "tricks": k} for k in (0, 1, 2, 3, 5)]
    assert bots.heuristic_bid(view, legal, random.Random(0)) in legal


# ---------------------------------------------------------------------------
# The sampler
# ---------------------------------------------------------------------------


def _truth_voids(events, n):
    """Voids that really were shown this round (from the unredacted log)."""
    voids = [set() for _ in range(n)]
    trick = []
    for e in events:
        if e.type in ("GameStarted", "RoundDealt"):
            voids = [set() for _ in range(n)]
            trick = []
        elif e.type == "CardPlayed":
            led = next((CARD_SUIT[c] for c in trick if CARD_SUIT[c] is not None), None)
            c = e.data["card"]
            if led is not None and c not in JOKERS and CARD_SUIT[c] != led:
                voids[e.seat].add(led)
            trick.append(c)
        elif e.type == "TrickWon":
            trick = []
        elif e.type == "TheftFailed":
            voids[e.seat].add(e.data["suit"])
    return voids


def _check_sample(state, seat, feed, truth_voids, rng, draws=8):
    view = GAME.view(state, seat)
    k = knowledge(view, feed)
    n = state.n
    # What the seat knows is true.
    for s in range(n):
        assert k.voids[s] <= truth_voids[s], "a void the seat believes in was never shown"
        for c in k.voids[s]:
            assert all(CARD_SUIT[x] != c for x in state.hands[s]), "a shown void is not real"
        assert not (k.known[s] - Counter(state.hands[s])), "a card the seat thinks s holds is not there"
    deck = Counter(deck_for(n))
    for _ in range(draws):
        hands = sample_hands(k, rng)
        assert hands[seat] == view["hand"]
        used = Counter()
        for s in range(n):
            assert len(hands[s]) == len(state.hands[s])
            used.update(hands[s])
            if s != seat:
                assert all(CARD_SUIT[c] not in k.voids[s] for c in hands[s]), "the sampler broke a shown void"
                assert not (k.known[s] - Counter(hands[s])), "a known card is missing from its holder"
        used.update(k.played)
        # Every sampled hand holds its known cards, so a seen card handed to anyone else would exceed the deck.
        assert not (used - deck), "the sampler handed out a card the seat has seen elsewhere"


@pytest.mark.parametrize("players", [3, 4, 7])
def test_sampler_is_consistent_with_what_the_seat_saw(players):
    """The sampler never gives a player a card the seat saw elsewhere and never breaks a shown void."""
    rng = random.Random(players)
    for seed in range(3):
        events_log = []
        checks = 0
        # Same opening as the playout: playout(seed) draws from Random(seed) first.
        opening = GAME.start(GAME.Options(), players, random.Random(seed))

        def on_step(state, new, log=events_log, opening=opening):
            nonlocal checks
            log.extend(new)
            if state.phase.value != "play" or rng.random() > 0.15:
                return
            seat = state.turn
            full = opening + log
            feed = [GAME.redact(e, seat) for e in full]
            _check_sample(state, seat, feed, _truth_voids(full, state.n), rng)
            checks += 1

        playout(GAME, players, seed, on_step=on_step, check_views=False, check_mutation=False)
        assert checks > 5


def test_sampler_respects_a_void_shown_by_failing_to_follow():
    """A seat that discarded on a led suit never gets a card of that suit in a sample."""
    hands = [["2C", "3C", "4C", "5C"], ["2D", "3D", "4D", "5D"], ["6C", "7C", "8C", "9C"]]
    s = given(ready(hands, dealer=2), play(0, "2C"), play(1, "2D"))
    feed = [GAME.redact(e, 2) for e in ready(hands, dealer=2) + [play(0, "2C"), play(1, "2D")]]
    k = knowledge(GAME.view(s, 2), feed)
    assert k.voids[1] == {"C"}
    rng = random.Random(1)
    for _ in range(50):
        h = sample_hands(k, rng)
        assert not any(CARD_SUIT[c] == "C" for c in h[1])
        assert "2C" not in h[0] + h[1] and "2D" not in h[0] + h[1]


def test_knowledge_tracks_cards_passed_in_the_ecart():
    """A card the seat passed stays known in its receiver's hand until played."""
    hands = [["2C", "3C", "4C", "5C"], ["2D", "3D", "4D", "5D"], ["6C", "7C", "8C", "9C"]]
    events = ready(hands, dealer=2)
    s = given(events)
    k = knowledge(GAME.view(s, 0), [GAME.redact(e, 0) for e in events])
    # seat 0 passed the first three cards of seat 1's final hand to seat 1
    assert k.known[1] == Counter(["2D", "3D", "4D"])
    h = sample_hands(k, random.Random(0))
    assert Counter(["2D", "3D", "4D"]) <= Counter(h[1])
