"""A French thesaurus for Maudit Mot Dit: knowledge the word vectors do not share.

The ``heuristic`` clue-giver and guesser (:mod:`.bots`) both rank words with
the same spaCy word vectors, so measuring one against the other measures
shared knowledge (issue 15).  This guesser reads a different resource
instead: LibreOffice's French thesaurus as Debian ships
it (package ``mythes-fr``, ``/usr/share/mythes/thes_fr.dat``, MPL-2.0; read
at run time, not copied into the repository).

Every entry of the thesaurus links a word to its synonyms; the links are
made symmetric.  A game word ``w`` scores, for the clues ``c_1..c_k``,
``sum(rel(c_i, w))`` where ``rel`` is 1 when the clue (or its lemma) is a
neighbour of ``w``, else the cosine of their neighbour sets (words that
share synonyms are related), 0 when the thesaurus knows neither.  Words
the thesaurus does not know (53 of the 880 game words) can never be found
by it: the measure reports them apart.

Used by ``loadtests/measure_mmd_honest.py`` to judge clue-givers (never by
a clue-giver) and by the ``strong`` guesser (:mod:`.bots`), which adds it
to the vectors; :func:`thesaurus` loads it once per process.
"""

from __future__ import annotations

import logging
import math
import threading
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path

from . import deck, lexicon

#: Where Debian's ``mythes-fr`` puts the French thesaurus.
THESAURUS = Path("/usr/share/mythes/thes_fr.dat")


class Thesaurus:
    """Symmetric synonym links of one-word entries: ``neighbours[word]``
    is a set of words.  Raises FileNotFoundError when ``path`` is missing
    (``apt-get install mythes-fr``)."""

    def __init__(self, path: Path | None = None) -> None:
        path = THESAURUS if path is None else path
        links: dict[str, set[str]] = defaultdict(set)
        with path.open(encoding="utf-8") as f:
            f.readline()  # the encoding line
            head = ""
            for line in f:
                line = line.rstrip("\n")
                if not line.startswith("("):
                    head = line.split("|")[0]
                    continue
                for syn in line.split("|")[1:]:
                    syn = syn.strip()
                    if syn and syn != head and " " not in syn:
                        links[head].add(syn)
                        links[syn].add(head)
        self.neighbours: dict[str, frozenset[str]] = {w: frozenset(s) for w, s in links.items()}
        self.words = list(deck.VOCABULARY)

    def knows(self, word: str) -> bool:
        """Does the thesaurus link ``word`` to anything?"""
        return word in self.neighbours

    def _entry(self, clue: str) -> str | None:
        for form in (clue, clue.lower(), lexicon.lemma(clue.lower())):
            if form in self.neighbours:
                return form
        return None

    def relatedness(self, clue: str, word: str) -> float:
        """1.0 for a direct link, else the cosine of the two neighbour sets (0..1)."""
        c = self._entry(clue)
        nw = self.neighbours.get(word)
        if c is None or not nw:
            return 0.0
        nc = self.neighbours[c]
        if c in nw:
            return 1.0
        shared = len(nc & nw)
        return shared / math.sqrt(len(nc) * len(nw)) if shared else 0.0

    def scores(self, clues: Sequence[str]) -> list[float]:
        """Each game word's summed :meth:`relatedness` to the clues, in
        vocabulary order."""
        return [sum(self.relatedness(c, w) for c in clues) for w in self.words]

    def ranked_guesses(self, clues: Sequence[str], exclude: Iterable[str] = ()) -> list[str]:
        """Game words best first for these clues (ties in vocabulary order),
        leaving out ``exclude`` (folded words), the clues and their families,
        and words no clue relates to."""
        gone = {lexicon.fold(w) for w in exclude}
        scored = []
        for i, w in enumerate(self.words):
            if lexicon.fold(w) in gone or any(lexicon.same_family(w, c) for c in clues):
                continue
            s = sum(self.relatedness(c, w) for c in clues)
            if s > 0:
                scored.append((-s, i, w))
        scored.sort()
        return [w for _s, _i, w in scored]


_LOG = logging.getLogger("tapis.bots.maudit_mot_dit")
_LOCK = threading.Lock()
_LOADED: list[Thesaurus | None] = []


def thesaurus() -> Thesaurus | None:
    """The shared :class:`Thesaurus`, read on first use (thread-safe), or
    None when :data:`THESAURUS` is not installed."""
    if not _LOADED:
        with _LOCK:
            if not _LOADED:
                try:
                    _LOADED.append(Thesaurus())
                except FileNotFoundError:
                    _LOADED.append(None)
                except (OSError, ValueError) as exc:  # a damaged optional file: logged, left out
                    _LOG.warning("Maudit Mot Dit: the thesaurus %s could not be read (%r)", THESAURUS, exc)
                    _LOADED.append(None)
    return _LOADED[0]
