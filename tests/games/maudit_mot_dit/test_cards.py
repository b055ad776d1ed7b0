"""The word cards shipped in ``cards.json`` (source, "Matériel de jeu";
rulings: 110 cards, 8 words each, one per symbol, backs with 2 symbols,
counts 1-5, bonuses)."""

from __future__ import annotations

import itertools
import json
import unicodedata
from collections import Counter
from importlib import resources

from shared.engine import IllegalAction
from shared.games.maudit_mot_dit import deck, lexicon


def test_there_are_110_cards_of_8_words_one_per_symbol():
    """Matériel: 110 cartes Mots; rulings: 8 words each, one per symbol, 8 symbols."""
    assert len(deck.SYMBOLS) == 8 == len(set(deck.SYMBOLS))
    assert deck.CARD_COUNT == len(deck.FRONTS) == len(deck.BACKS) == 110
    assert all(len(front) == 8 for front in deck.FRONTS)
    raw = json.loads(resources.files("shared.games.maudit_mot_dit").joinpath("cards.json").read_text("utf-8"))
    assert [c["id"] for c in raw["cards"]] == list(range(110))
    assert all(sorted(c["words"]) == sorted(deck.SYMBOLS) for c in raw["cards"])


def test_the_880_words_are_all_different():
    """Rulings: no duplicates across the set."""
    words = [w for front in deck.FRONTS for w in front]
    assert len(words) == 880 == len(set(words)) == len(deck.VOCABULARY)


def test_no_two_words_are_of_one_family_or_match_each_other():
    """Ours: a word of the set never finds another (plural, accents) nor shares its family."""
    words = deck.VOCABULARY
    keys: dict[str, str] = {}
    for w in words:
        for k in lexicon.guess_keys(w):
            assert k not in keys or keys[k] == w, (w, keys.get(k))
            keys[k] = w
    # Family: equal stems/lemmas by index, the prefix rule pairwise on stems.
    clashes = [(a, b) for a, b in itertools.combinations(words, 2) if lexicon.same_family(a, b)]
    assert clashes == []


def test_every_word_is_a_singular_lower_case_nfc_noun_shape_the_clue_checks_accept():
    """Ours: single words, lower case, NFC, letters only, their own lemma (so singular), and accepted as clues elsewhere."""
    for w in deck.VOCABULARY:
        assert w == unicodedata.normalize("NFC", w) == w.lower() and w.isalpha() and len(w) >= 2
        assert lexicon.lemma(w) == w, w
        assert lexicon.clean_text(w, lexicon.CLUE_MAX) == w
        assert not lexicon.is_spelled(w)
    # Each word passes the clue checks for a secret of another family.
    other = "xylophone"
    for w in deck.VOCABULARY:
        try:
            assert lexicon.check_clue(w, other, []) == w
        except IllegalAction as exc:  # pragma: no cover - reported with the word
            raise AssertionError((w, exc.code)) from None


def test_backs_show_two_symbols_with_every_count_from_1_to_5():
    """Rulings: each back shows 2 symbols with a required number of clues 1-5."""
    counts = Counter()
    for back in deck.BACKS:
        assert len(back) == 2 and back[0].symbol != back[1].symbol
        assert all(s.symbol in deck.SYMBOLS for s in back)
        counts.update(s.count for s in back)
    assert sorted(counts) == [1, 2, 3, 4, 5]
    assert sum(counts.values()) == 220


def test_bonuses_sit_under_one_clue_and_four_or_five_clue_symbols():
    """Rulings: play again on a 1-clue word, Mauvais sort on a 4- or 5-clue word; none on 2-3."""
    for back in deck.BACKS:
        for s in back:
            expected = deck.PLAY_AGAIN if s.count == 1 else deck.BAD_LUCK if s.count >= 4 else None
            assert s.bonus == expected
    assert any(all(s.bonus is None for s in back) for back in deck.BACKS)  # "sur certaines"


def test_symbol_codes_are_not_game_words():
    """Ours: symbol codes never collide with a word (views carry both)."""
    assert not set(deck.SYMBOLS) & set(deck.VOCABULARY)
