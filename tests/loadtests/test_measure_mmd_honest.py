"""The honest Maudit Mot Dit measure (loadtests/measure_mmd_honest.py):
the hand-written clue sets are valid play, the thesaurus guesser reads
Debian's mythes-fr as documented, and turns are scored as the game does."""

from __future__ import annotations

from collections import Counter

import pytest

from loadtests import measure_mmd_honest as honest
from loadtests.mmd_thesaurus import THESAURUS, Thesaurus
from shared.games.maudit_mot_dit import deck, lexicon


def test_people_clues_are_legal_clue_sets_for_game_words() -> None:
    entries = honest.people_clues()
    assert Counter(e["count"] for e in entries) == {1: 20, 2: 20, 3: 20, 4: 20, 5: 20}
    assert len({e["word"] for e in entries}) == 100
    for e in entries:
        assert e["word"] in deck.VOCABULARY
        assert len(e["clues"]) == e["count"]
        earlier: list[str] = []
        for clue in e["clues"]:
            assert lexicon.check_clue(clue, e["word"], earlier) == clue  # raises if the table would refuse it
            earlier.append(clue)


def fixed(*answers: list[str]):
    """A ranking that answers the k-th call with ``answers[k]`` and records its inputs."""
    calls: list[tuple[list[str], set[str]]] = []

    def ranking(clues, exclude):
        calls.append((list(clues), set(exclude)))
        return answers[len(calls) - 1]

    return ranking, calls


def test_people_turn_outcomes() -> None:
    entry = {"word": "loup", "count": 3, "clues": ["forêt", "nuit", "meute"]}
    ranking, calls = fixed(["chien", "arbre", "ours"], ["loup", "lune"], [])
    assert honest.guess_people(entry, ranking, proposals=3) == "early"  # found on clue 2 of 3
    assert calls == [(["forêt"], set()), (["forêt", "nuit"], {"chien", "arbre", "ours"})]
    ranking, _ = fixed(["chien"], ["lune"], ["ours", "loups"])
    assert honest.guess_people(entry, ranking, proposals=3) == "exact"  # a plural matches, as at the table
    ranking, _ = fixed(["chien"], ["lune"], ["ours", "renard", "chat", "loup"])
    assert honest.guess_people(entry, ranking, proposals=3) == "miss"  # 4th best is not proposed


def test_give_turn_stops_at_the_find_and_shows_the_giver_the_proposals() -> None:
    seen: list[tuple[list[str], list[str]]] = []

    def giver(secret, clues, count, per_clue, taken):
        seen.append((list(clues), list(taken)))
        return ["mer", "aileron", "dent"][len(clues)]

    ranking, _ = fixed(["poisson", "bateau", "vague"], ["requin"])
    assert honest.give_turn("requin", 3, giver, {"judge": ranking}, 3) == {"judge": "early"}
    assert seen == [([], []), (["mer"], ["poisson", "bateau", "vague"])]


def test_slots_draw_the_counts_asked_from_the_cards() -> None:
    pairs = honest.slots(per_count=7, seed=3)
    assert Counter(c for _w, c in pairs) == {c: 7 for c in honest.COUNTS}
    assert all(w in deck.VOCABULARY for w, _c in pairs)
    assert pairs == honest.slots(per_count=7, seed=3)


def test_rate_is_a_share_with_its_95_percent_half_width() -> None:
    assert honest.rate(25, 100) == "25% ± 8"  # 1.96 * sqrt(.25 * .75 / 100) = 0.0849
    assert honest.rate(0, 0) == "-"


@pytest.mark.skipif(not THESAURUS.exists(), reason="mythes-fr is not installed (apt-get install mythes-fr)")
def test_thesaurus_links_and_ranks() -> None:
    t = Thesaurus()
    assert t.relatedness("forteresse", "château") == 1.0  # listed under château
    assert t.relatedness("château", "forteresse") == 1.0  # links are symmetric
    assert t.relatedness("barreaux", "barreau") in (0.0, 1.0)  # plural read through its lemma; no self link
    assert 0 < t.relatedness("hibou", "chouette") <= 1.0
    assert t.relatedness("zzzz", "château") == 0.0
    ranked = t.ranked_guesses(["forteresse", "donjon"], exclude={"tour"})
    assert ranked[0] == "château" and "tour" not in ranked


def test_proposals_follow_the_player_count() -> None:
    assert [honest.proposals_for(n) for n in (3, 4, 5, 6)] == [2, 3, 3, 3]


def test_holdout_slots_draw_only_odd_numbered_words() -> None:
    odd = set(deck.VOCABULARY[1::2])
    pairs = honest.slots(per_count=20, seed=5, holdout=True)
    assert Counter(c for _w, c in pairs) == {c: 20 for c in honest.COUNTS}
    assert all(w in odd for w, _c in pairs)
    assert not all(w in odd for w, _c in honest.slots(per_count=20, seed=5))


def test_every_pair_takes_each_word_at_each_count_once() -> None:
    pairs = honest.every_pair(holdout=True)
    odd = deck.VOCABULARY[1::2]
    assert len(pairs) == 5 * len(odd) == 2200
    assert len(set(pairs)) == len(pairs)
    assert {w for w, _c in pairs} == set(odd)
    assert Counter(c for _w, c in pairs) == {c: len(odd) for c in (1, 2, 3, 4, 5)}
    assert pairs[:6] == [(odd[0], 1), (odd[0], 2), (odd[0], 3), (odd[0], 4), (odd[0], 5), (odd[1], 1)]
    assert len(honest.every_pair()) == 5 * 880


def test_paired_counts_the_turns_each_giver_alone_finds_exactly() -> None:
    a = [(1, "exact"), (1, "exact"), (2, "early"), (3, "exact"), (3, "miss"), (4, "exact")]
    b = [(1, "exact"), (1, "miss"), (2, "exact"), (3, "early"), (3, "miss"), (4, "miss")]
    # a alone: turns 2, 4, 6 (3); b alone: turn 3 (1); z = (3 - 1) / sqrt(4) = 1.0
    assert honest.paired(a, b) == "exact on 3 turns the other missed exactly, 1 the other way (McNemar z = 1.0)"
    assert honest.paired(a[:1], b[:1]).endswith("0 the other way (McNemar z = 0.0)")


def test_interval_gives_the_count_and_one_decimal() -> None:
    # 484 / 2200 = 22.0%; 1.96 * sqrt(.22 * .78 / 2200) = 0.0173
    assert honest.interval(484, 2200) == "484 / 2200: 22.0% [20.3, 23.7]"


def test_interval_stays_within_0_and_100() -> None:
    assert honest.interval(1, 5) == "1 / 5: 20.0% [0.0, 55.1]"
    assert honest.interval(5, 5) == "5 / 5: 100.0% [100.0, 100.0]"
