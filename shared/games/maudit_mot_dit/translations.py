"""Bilingual dictionaries for the ``strong`` clue-giver of Maudit Mot Dit.

Two French words that share translations are often synonyms ("navire" and
"bateau" are both *ship* and *vessel*, *Schiff*), while the word vectors'
nearest neighbours are as often an antonym ("rapidité" for "lenteur") or a
co-hyponym ("chiot" for "chien"), which share none (docs/bots-maudit_mot_dit.md).
This module reads the FreeDict French-English and French-German
dictionaries as Debian ships them for the dict server (packages
``dict-freedict-fra-eng``, ``dict-freedict-eng-fra``,
``dict-freedict-fra-deu``, ``dict-freedict-deu-fra``: ``/usr/share/dictd/``;
the English ones GPL-2+, the German ones made by WikDict from Wiktionary,
CC BY-SA 3.0; read at run time, not copied into the repository).

It is a resource independent of the one that judges the giver
(LibreOffice's thesaurus, :mod:`.thesaurus`): the giver never reads that
one.  The giver never gives a translation either (the rules forbid it, and
:func:`.lexicon.check_clue` refuses them): the dictionaries only tell it
which French words mean alike.
"""

from __future__ import annotations

import gzip
import logging
import math
import re
import threading
import zlib
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

#: Where Debian's dict-freedict packages put their dictionaries.
DICTD = Path("/usr/share/dictd")
#: The pivot languages read (both directions each).
LANGUAGES = ("eng", "deu")

_B64 = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}
_NUMBER = re.compile(r"^\s*\d+\.\s*")
_NUMBERED = re.compile(r"^\s*\d+\.\s*\S")
_TRAILING = re.compile(r"\s+\d+\.?$")
_HEAD = re.compile(r"\s+[/<]")
_ASIDE = re.compile(r"\(.*?\)|\[.*?\]|<.*?>|\"")
_SKIP = ("Note", "Synonym", "see", "Usage")


def _b64(text: str) -> int:
    n = 0
    for ch in text:
        n = n * 64 + _B64[ch]
    return n


def _senses(body: str) -> list[list[str]]:
    """The translation lines of one dictd entry, each split into its
    translations.  Numbered senses ("1.
    …") when there are several, else the first line: a WikDict sense line
    may be followed by a definition in the headword's own language, which
    is not a translation."""
    lines = body.split("\n")[1:]
    numbered = [_NUMBER.sub("", x) for x in lines if _NUMBERED.match(x)]
    senses = []
    for text in numbered or lines[:1]:
        text = text.strip()
        if not text or text.startswith(_SKIP):
            continue
        text = text.replace("\xad", "")  # soft hyphens: "Palm\xadwedel" is "Palmwedel"
        items = (_TRAILING.sub("", x).strip() for x in re.split(r"[,;]", _ASIDE.sub("", text)))
        senses.append([x for x in items if x])
    return senses


def _entries(name: str, root: Path) -> Iterator[tuple[str, list[list[str]]]]:
    """``(headword, senses)`` of one dictd dictionary (``freedict-<name>``),
    see :func:`_senses`; index lines that are not ``word, offset, length``
    are skipped."""
    data = gzip.open(root / f"freedict-{name}.dict.dz").read()
    with (root / f"freedict-{name}.index").open(encoding="utf-8") as index:
        for line in index:
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 3 or fields[0].startswith("00"):  # malformed, or the dictionary's own metadata
                continue
            head, offset, length = fields
            try:
                start, size = _b64(offset), _b64(length)
            except KeyError:
                continue
            body = data[start:start + size].decode("utf-8", "replace")
            # The index folds case; the entry's first line keeps it ("Arm /aʁm/ <n>").
            written = _HEAD.split(body.split("\n", 1)[0], 1)[0].strip()
            yield (written if written.lower() == head.lower() else head), _senses(body)


class Translations:
    """Every French word's translations, ``words[french]`` a set of
    ``(language, word)`` of at most two words (English lower case, German
    as written), from both directions of each dictionary; ``tokens[french]``
    every word of every translation, folded, phrases included ("flash" of
    "flash of lightning").  Raises OSError when a dictionary is missing."""

    def __init__(self, root: Path | None = None) -> None:
        root = DICTD if root is None else root
        words: dict[str, set[tuple[str, str]]] = defaultdict(set)
        tokens: dict[str, set[str]] = defaultdict(set)

        def add(french: str, lang: str, foreign: str) -> None:
            french = french.lower()
            foreign = foreign.lower() if lang == "eng" else foreign
            tokens[french].update(t.casefold() for t in foreign.split())
            if len(foreign.split()) <= 2:
                words[french].add((lang, foreign))

        for lang in LANGUAGES:
            for head, senses in _entries(f"fra-{lang}", root):
                for sense in senses:
                    for x in sense:
                        add(head, lang, x)
            for head, senses in _entries(f"{lang}-fra", root):
                for sense in senses:
                    for x in sense:
                        add(x, lang, head)
        self.words: dict[str, frozenset[tuple[str, str]]] = {w: frozenset(t) for w, t in words.items()}
        self.tokens: dict[str, frozenset[str]] = {w: frozenset(t) for w, t in tokens.items()}
        #: The other way: a translation -> the French words it translates.
        self.french: dict[tuple[str, str], list[str]] = defaultdict(list)
        for w, ts in self.words.items():
            for t in ts:
                self.french[t].append(w)

    def shared(self, a: str, b: str) -> int:
        """How many translations ``a`` and ``b`` share."""
        return len(self.words.get(a, frozenset()) & self.words.get(b, frozenset()))

    def link(self, a: str, b: str) -> float:
        """How alike ``a`` and ``b`` mean: the cosine of their translation
        sets, 0..1 (0 when they share none or a dictionary lacks one)."""
        ta, tb = self.words.get(a), self.words.get(b)
        if not ta or not tb:
            return 0.0
        shared = len(ta & tb)
        return shared / math.sqrt(len(ta) * len(tb)) if shared else 0.0

    def alike(self, word: str) -> dict[str, float]:
        """The French words sharing a translation with ``word``, with their
        :meth:`link` (``word`` itself left out)."""
        near = {w for t in self.words.get(word, ()) for w in self.french[t]}
        near.discard(word)
        return {w: self.link(word, w) for w in near}


_LOG = logging.getLogger("tapis.bots.maudit_mot_dit")
_LOCK = threading.Lock()
_LOADED: list[Translations | None] = []


def translations() -> Translations | None:
    """The shared :class:`Translations`, read on first use (thread-safe), or
    None when the dict-freedict packages are not installed or cannot be
    read (logged: the strong giver then does without them)."""
    with _LOCK:
        if not _LOADED:
            try:
                _LOADED.append(Translations())
            except FileNotFoundError as exc:
                if DICTD.is_dir() and any(DICTD.glob("freedict-*-fra.index")):
                    _LOG.warning("Maudit Mot Dit: a FreeDict dictionary is missing (%s); the strong giver "
                                 "does without them", exc.filename)
                _LOADED.append(None)
            except (OSError, EOFError, ValueError, KeyError, zlib.error) as exc:  # a damaged optional file
                _LOG.warning("Maudit Mot Dit: the FreeDict dictionaries in %s could not be read (%r)", DICTD, exc)
                _LOADED.append(None)
        return _LOADED[0]
