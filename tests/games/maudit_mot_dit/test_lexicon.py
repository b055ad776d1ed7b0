"""Clue checks, guess matching and free text (source, Notes; rulings:
"A clue of the same family as the secret word or an earlier clue, a
spelling, or a translation is refused. Guesses match ignoring case,
accents, articles and plural.")."""

from __future__ import annotations

import pytest

from shared.engine import IllegalAction
from shared.games.maudit_mot_dit import lexicon


def code_of(clue, secret="chant", earlier=()):
    try:
        lexicon.check_clue(clue, secret, list(earlier))
    except IllegalAction as exc:
        return exc.code
    return None


@pytest.mark.parametrize("clue", ["chanter", "chants", "Chant", "CHANTS", "chanteur", "chantée"])
def test_a_clue_of_the_secret_words_family_is_refused(clue):
    """Notes: no word of the secret word's family ("chanter" or "chants" for "chant")."""
    assert code_of(clue) == "clue_same_family"


@pytest.mark.parametrize("clue,earlier", [
    ("fleuriste", ["fleur"]),
    ("fleurs", ["fleur"]),
    ("boulangerie", ["boulanger"]),
    ("chevaux", ["cheval"]),
    ("nationale", ["nation"]),
])
def test_a_clue_of_an_earlier_clues_family_is_refused(clue, earlier):
    """Notes: "ou qu'un mot précédent"."""
    assert code_of(clue, "oiseau", earlier) == "clue_same_family_as_earlier"


def test_a_compound_clue_is_checked_part_by_part():
    """Ours: "porte-voix" hides "porte"."""
    assert code_of("porte-voix", "porte") == "clue_same_family"
    assert code_of("porte-monnaie", "pièce") is None


@pytest.mark.parametrize("clue", ["c-h-a-t", "C-H-A-T", "c.h.a.t", "c h a t", "c—h—a—t", "o-s"])
def test_a_spelled_clue_is_refused(clue):
    """Notes: "ne peut pas ... épeler le mot"."""
    assert code_of(clue, "oiseau") == "clue_spelled"


@pytest.mark.parametrize("clue", ["deux mots", "pomme de", "très  grand"])
def test_a_clue_of_more_than_one_word_is_refused(clue):
    """Rulings: clues are one word each."""
    assert code_of(clue, "oiseau") == "clue_not_one_word"


@pytest.mark.parametrize("clue", ["42", "chat2", "!", "-chat", "chat'", "😀"])
def test_a_clue_must_be_made_of_letters(clue):
    """Ours: letters with inner hyphens or apostrophes only."""
    assert code_of(clue, "oiseau") == "clue_not_a_word"


def test_a_repeated_clue_is_refused_whatever_the_case_and_accents():
    """Ours: the same clue twice is no new clue."""
    assert code_of("Été", "oiseau", ["ete"]) == "clue_repeated"


@pytest.mark.parametrize("clue,secret", [
    ("musique", "chant"), ("oiseau", "chant"), ("aujourd'hui", "soleil"), ("arc-en-ciel", "pluie"),
    ("chat", "château"), ("mer", "marin"),
])
def test_unrelated_clues_are_accepted(clue, secret):
    """The checks let ordinary clues through."""
    assert code_of(clue, secret) is None


def test_accepted_clues_are_returned_normalised():
    """Ours: NFC, trimmed, typographic apostrophes made plain."""
    assert lexicon.check_clue("  aujourd’hui ", "soleil", []) == "aujourd'hui"
    assert lexicon.check_clue("e\u0301te\u0301", "soleil", []) == "été"


@pytest.mark.parametrize("guess,secret", [
    ("Les Pièces", "pièce"), ("pieces", "pièce"), ("PIÈCE", "pièce"), ("la pièce", "pièce"),
    ("l'oiseau", "oiseau"), ("L’Oiseau", "oiseau"), ("des oiseaux", "oiseau"), ("chevaux", "cheval"),
    ("un œuf", "œuf"), ("oeufs", "œuf"), ("  Une   Pomme ", "pomme"), ("du pain", "pain"),
])
def test_a_proposal_matches_ignoring_case_accents_article_and_plural(guess, secret):
    """Rulings: "Les Pièces" finds "pièce"."""
    assert lexicon.guess_matches(lexicon.clean_text(guess, lexicon.GUESS_MAX), secret)


@pytest.mark.parametrize("guess,secret", [
    ("pièce", "pièces montées"), ("chanter", "chant"), ("chat", "château"), ("pomme de terre", "pomme"),
    ("mer", "mère"), ("lapin", "pain"),
])
def test_a_proposal_of_another_word_does_not_match(guess, secret):
    """Matching is not family: "chanter" does not find "chant"."""
    assert not lexicon.guess_matches(guess, secret)


@pytest.mark.parametrize("raw,code", [
    ("", "text_empty"), ("\u00a0 ", "text_empty"), ("a" * 31, "text_too_long"), ("a" * 10_000, "text_too_long"),
    ("ch\u0000at", "text_control_characters"), ("chat\u202e", "text_control_characters"),
    ("ch\tat", "text_control_characters"), (None, "bad_action"), (["chat"], "bad_action"),
])
def test_free_text_is_bounded(raw, code):
    """Ours: at most 30 characters for a clue, no control or invisible characters."""
    with pytest.raises(IllegalAction) as err:
        lexicon.clean_text(raw, lexicon.CLUE_MAX)
    assert err.value.code == code
