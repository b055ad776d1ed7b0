"""French text checks for Maudit Mot Dit: free text, clue checks, guess matching.

Everything here is pure (no clock; the only read is the packaged word
lists, once, like ``cards.json``) and cached, so ``decide`` can call it on
the hot path.  Word families come first from two well-kept libraries:

* ``simplemma`` (French lemmatizer: "chants" -> "chant", "chevaux" ->
  "cheval", "pièces" -> "pièce");
* ``snowballstemmer`` (Snowball French stemmer: "chanter" -> "chant",
  "boulangerie" -> "boulanger").

Two words are of the same family (source, Notes: "des mots de la même
famille") when, after folding case and accents, they share a lemma or a
stem, or when one stem (at least :data:`FAMILY_MIN_STEM` letters) begins the
other's stem or lemma with at most :data:`FAMILY_MAX_EXTRA` more letters
("chant" / "chanteur", "fleur" / "fleuriste").  The prefix rule is the
stemmer's own output compared, not a list of suffixes; it errs on the side
of refusing (see docs/games/maudit_mot_dit.md, "Clue checks").

On top of that, :func:`derivation_roots` strips French derivation
affixes (infinitive endings of the dictionary's verbs only, suffixes such
as ``-eur``, ``-on``, ``-u``, ``-elain``/``-eau``, verb prefixes
``en-``/``em-``/``a-``/``re-``, and ``re-``/``r-`` from any word, "réveil"
-> "éveil") and :func:`derived_family` compares an
underived root of one word with the other's roots, so that
"vendre"/"vendeur", "château"/"châtelain", "tête"/"têtu", "pont"/"ponton",
"cercle"/"encercler" and "chanson"/"chanter" share a root.

A clue must also be a French word (:func:`is_french`): the packaged
``fr_words.txt.xz`` lists every form of the hunspell-fr dictionary
(Dicollecte, MPL 2.0), folded; ``deploy/build_fr_words.py`` rebuilds it.
A word of another language that is not also French ("war", "castle",
"Kopf") is refused that way, which is how translations are caught.

Refusal codes raised here (all map to HTTP 422):

``text_empty``, ``text_too_long``, ``text_control_characters`` (free text);
``clue_not_one_word``, ``clue_spelled``, ``clue_not_a_word``,
``clue_not_french``, ``clue_repeated``, ``clue_same_family``,
``clue_same_family_as_earlier`` (clues).
"""

from __future__ import annotations

import lzma
import re
import threading
import unicodedata
from functools import lru_cache
from importlib import resources

import simplemma
import snowballstemmer

from shared.engine import IllegalAction

#: Longest clue, in characters after normalisation (the longest French word
#: in common use, "anticonstitutionnellement", has 25 letters).
CLUE_MAX = 30
#: Longest proposal, in characters ("la pomme de terre" and the like).
GUESS_MAX = 40
#: Shortest stem the prefix rule of :func:`same_family` applies to.
FAMILY_MIN_STEM = 5
#: Most letters the longer word may add to the shorter stem in that rule.
FAMILY_MAX_EXTRA = 4

TEXT_EMPTY = "text_empty"
TEXT_TOO_LONG = "text_too_long"
TEXT_CONTROL = "text_control_characters"
CLUE_NOT_ONE_WORD = "clue_not_one_word"
CLUE_SPELLED = "clue_spelled"
CLUE_NOT_A_WORD = "clue_not_a_word"
CLUE_NOT_FRENCH = "clue_not_french"
CLUE_REPEATED = "clue_repeated"
CLUE_SAME_FAMILY = "clue_same_family"
CLUE_SAME_FAMILY_AS_EARLIER = "clue_same_family_as_earlier"

# A Snowball stemmer object keeps state while it stems: one per thread
# (bots decide in threads while a worker checks clues).
_LOCAL = threading.local()


def stem(word: str) -> str:
    """The Snowball French stem of ``word`` ("peinture" -> "peintur"); one
    stemmer per thread."""
    stemmer = getattr(_LOCAL, "stemmer", None)
    if stemmer is None:
        stemmer = _LOCAL.stemmer = snowballstemmer.stemmer("french")
    return stemmer.stemWord(word)

_SPACES = re.compile(r"\s+")
#: Separators a speller puts between letters: "c-h-a-t", "c.h.a.t", "c h a t".
_SPELL_SPLIT = re.compile(r"[\s\-‐‑–—.·_/,;:'’*+]+")
#: Hyphen and apostrophe split a compound word into its parts.
_PARTS = re.compile(r"[-']")
#: Leading articles a guess may carry ("Les Pièces", "l'oie", "une pomme").
_ARTICLE = re.compile(r"^(?:(?:le|la|les|un|une|des|du)\s+|de\s+la\s+|de\s+l'\s*|l'\s*|d'\s*)")
_APOSTROPHES = str.maketrans({"’": "'", "ʼ": "'", "‘": "'", "`": "'"})
_HYPHENS = str.maketrans({"‐": "-", "‑": "-", "–": "-", "—": "-"})
_LIGATURES = {"œ": "oe", "æ": "ae"}


def clean_text(raw: object, max_len: int) -> str:
    """Normalise one free-text field: NFC, trimmed, inner whitespace
    collapsed to single spaces, typographic apostrophes and hyphens made
    plain.

    Raises :class:`IllegalAction` ``bad_action`` (not a string),
    ``text_control_characters`` (any Unicode control, format, private-use,
    surrogate or unassigned character), ``text_empty`` or
    ``text_too_long`` (more than ``max_len`` characters).
    """
    if type(raw) is not str:
        raise IllegalAction("bad_action", "the text must be a string")
    if len(raw) > 4 * max_len + 16:  # refuse huge payloads before any work
        raise IllegalAction(TEXT_TOO_LONG, f"at most {max_len} characters")
    return _clean(raw, max_len)


@lru_cache(maxsize=65536)
def _clean(raw: str, max_len: int) -> str:
    text = unicodedata.normalize("NFC", raw)
    for ch in text:
        if unicodedata.category(ch)[0] == "C" and ch not in "\t\n\r":
            raise IllegalAction(TEXT_CONTROL, "control or invisible characters are not allowed")
    if any(ch in "\t\n\r" for ch in text.strip(" \t\n\r")):
        raise IllegalAction(TEXT_CONTROL, "tabs and line breaks are not allowed")
    text = _SPACES.sub(" ", text).strip().translate(_APOSTROPHES).translate(_HYPHENS)
    if not text:
        raise IllegalAction(TEXT_EMPTY, "the text is empty")
    if len(text) > max_len:
        raise IllegalAction(TEXT_TOO_LONG, f"at most {max_len} characters")
    return text


@lru_cache(maxsize=65536)
def fold(text: str) -> str:
    """Case- and accent-insensitive key: "Pièce" -> "piece", "Œuf" -> "oeuf"."""
    low = text.casefold()
    for lig, rep in _LIGATURES.items():
        low = low.replace(lig, rep)
    return "".join(c for c in unicodedata.normalize("NFD", low) if unicodedata.category(c) != "Mn")


@lru_cache(maxsize=65536)
def lemma(word: str) -> str:
    """French lemma (simplemma), lower-cased: "Chevaux" -> "cheval"."""
    low = word.casefold()
    return simplemma.lemmatize(low, lang="fr").casefold()


@lru_cache(maxsize=65536)
def _family_keys(word: str) -> tuple[frozenset[str], frozenset[str]]:
    """(forms, stems) of one word, folded: its own form and lemma, and the
    Snowball stems of both."""
    low = word.casefold()
    lem = lemma(low)
    forms = frozenset({fold(low), fold(lem)})
    stems = frozenset({fold(stem(low)), fold(stem(lem))})
    return forms, stems


@lru_cache(maxsize=262144)
def same_family(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` are of the same word family (module doc).

    ``same_family("chant", "chanter")``, ``same_family("chant", "chants")``
    and ``same_family("chant", "chanteur")`` are all true;
    ``same_family("chant", "oiseau")`` is false.
    """
    return stem_family(a, b) or derived_family(a, b)


@lru_cache(maxsize=262144)
def stem_family(a: str, b: str) -> bool:
    """The lemma/stem half of :func:`same_family`: a shared folded lemma or
    Snowball stem, or the prefix rule on stems (module doc)."""
    fa, sa = _family_keys(a)
    fb, sb = _family_keys(b)
    if fa & fb or sa & sb:
        return True
    for stems, others in ((sa, fb | sb), (sb, fa | sa)):
        for s in stems:
            if len(s) < FAMILY_MIN_STEM:
                continue
            for o in others:
                if len(o) > len(s) and o.startswith(s) and len(o) - len(s) <= FAMILY_MAX_EXTRA:
                    return True
    return False


#: The packaged French word list (deploy/build_fr_words.py writes it).
WORDS_FILE = "fr_words.txt.xz"
#: A leading elision a clue may carry ("l'arbre", "qu'importe").
_ELISION = re.compile(r"^(?:l|d|j|m|n|s|t|c|qu|jusqu|lorsqu|puisqu|quoiqu)'")


class LexiconMissing(RuntimeError):
    """The packaged French word list is missing or unreadable."""


@lru_cache(maxsize=1)
def french_words() -> frozenset[str]:
    """Every French word form of hunspell-fr, folded (see :func:`fold`),
    read once from the packaged :data:`WORDS_FILE` (about 430,000 forms).

    Raises :class:`LexiconMissing` when the file is not installed.
    """
    try:
        data = resources.files(__package__).joinpath(WORDS_FILE).read_bytes()
        text = lzma.decompress(data).decode("utf-8")
    except (OSError, lzma.LZMAError) as exc:
        raise LexiconMissing(
            f"the French word list {WORDS_FILE} of {__package__} is missing or broken ({exc}); "
            "rebuild it with: apt-get install -y hunspell-fr && python deploy/build_fr_words.py"
        ) from exc
    return frozenset(text.split())


@lru_cache(maxsize=65536)
def is_french(word: str) -> bool:
    """True when ``word`` is a French word form of the lexicon, case and
    accents ignored ("Châteaux", "tete", "porte-monnaie", "aujourd'hui"),
    with or without a leading elision ("l'arbre").  Proper nouns of the
    dictionary (towns, first names) count as words."""
    words = french_words()
    key = fold(word)
    if key in words:
        return True
    m = _ELISION.match(key)
    return m is not None and key[m.end():] in words


#: The packaged infinitives (verbs of hunspell-fr), beside :data:`WORDS_FILE`.
VERBS_FILE = "fr_verbs.txt.xz"


@lru_cache(maxsize=1)
def french_verbs() -> frozenset[str]:
    """The infinitives of hunspell-fr, lower case with accents ("chanter",
    "vendre", "encercler"), read once from :data:`VERBS_FILE`.

    Raises :class:`LexiconMissing` when the file is not installed.
    """
    try:
        data = resources.files(__package__).joinpath(VERBS_FILE).read_bytes()
        return frozenset(lzma.decompress(data).decode("utf-8").split())
    except (OSError, lzma.LZMAError) as exc:
        raise LexiconMissing(
            f"the French verb list {VERBS_FILE} of {__package__} is missing or broken ({exc}); "
            "rebuild it with: apt-get install -y hunspell-fr && python deploy/build_fr_words.py"
        ) from exc


#: Infinitive endings, stripped from verbs of :func:`french_verbs` only.
_VERB_ENDINGS = ("er", "ir", "ïr", "re", "oir")
#: Derivation suffixes, each with the endings its root may take instead
#: ("chanson" -> "chan" and "chant"; "châtelain" -> "chât").
_SUFFIXES: dict[str, tuple[str, ...]] = {
    "eur": ("",), "euse": ("",), "rice": ("",), "on": ("",), "onne": ("",),
    "son": ("", "t"), "u": ("",), "ue": ("",), "elain": ("",), "elaine": ("",),
    "el": ("",), "elle": ("",), "elet": ("",), "et": ("",), "ette": ("",),
    "ier": ("",), "ière": ("",), "age": ("",), "erie": ("",), "ment": ("",),
    "iste": ("",), "isme": ("",), "ure": ("",), "ture": ("",), "ade": ("",), "ée": ("",),
    "eux": ("",), "aire": ("",), "ial": ("",),
}
#: Verb prefixes stripped when a root of 4 letters or more is left
#: ("encercler" -> "cercl").
_PREFIXES = ("en", "em", "a", "re", "ré", "dé")
#: The re- prefix as stripped from any word, verb or not ("réveil" ->
#: "éveil"; "r-" before a vowel), when what stays is a French word of
#: :data:`RE_REST_MIN` letters or more, accents as written, that is its
#: own lemma ("réseau" keeps "seau", 4 letters; "recette" keeps "cette",
#: whose lemma is "ce"; "requin" keeps "equin", no word without accent).
_RE_PREFIXES = ("re", "ré", "r")
RE_REST_MIN = 5
_VOWELS = frozenset("aâeéèêiîoôuûy")
#: Shortest root; a 3-letter root is derived only with a suffix of at most
#: 2 letters ("têtu" -> "têt", "raton" -> "rat", not "moteur" -> "mot").
ROOT_MIN = 3
#: Shortest root of the "-eau" / "-el-" alternation ("château" -> "chât").
EAU_ROOT_MIN = 4


def _lower(word: str) -> str:
    return unicodedata.normalize("NFC", word.casefold())


def _verb_stems(verb: str) -> set[str]:
    """Roots of an infinitive: without its ending, then without a prefix
    when 4 letters stay ("encercler" -> "encercl", "cercl"; "atterrir" ->
    "atterr", "terr"), and with a final double consonant made single
    ("ensoleiller" -> "soleil")."""
    for end in _VERB_ENDINGS:
        if verb.endswith(end) and len(verb) - len(end) >= ROOT_MIN:
            stem = verb[: -len(end)]
            break
    else:
        return set()
    stems = {stem}
    for p in _PREFIXES:
        rest = stem[len(p):]
        if stem.startswith(p) and len(rest) >= 4:
            stems.add(rest)
            if p == "a" and rest[0] == rest[1]:  # at-terrir, al-longer
                stems.add(rest[1:])
    if stem[-1] == stem[-2] and stem[-1] not in "aeiouy":
        stems.update(r[:-1] for r in list(stems) if len(r) >= 5)
    return stems


def _re_roots(word: str) -> set[str]:
    """``word`` without a prefix re-/ré-/r- (before a vowel) when what
    stays is a French word of :data:`RE_REST_MIN` letters or more, with
    its accents as written (simplemma knows it: "requin" keeps "equin",
    no word without its accent), that is its own lemma: "réveil" ->
    "éveil", "reprise" -> "prise"."""
    out = set()
    for p in _RE_PREFIXES:
        rest = word[len(p):]
        if (word.startswith(p) and len(rest) >= RE_REST_MIN and (p != "r" or rest[0] in _VOWELS)
                and is_french(rest) and simplemma.is_known(rest, lang="fr") and lemma(rest) == rest):
            out.add(rest)
    return out


@lru_cache(maxsize=65536)
def derivation_roots(word: str) -> tuple[frozenset[str], frozenset[str], frozenset[str], frozenset[str]]:
    """(base roots, derived roots, verb roots, weak roots) of ``word``,
    lower case, accents kept (so "château" does not meet "chat").

    Base roots: the word and its lemma, without a final ``-e``, without
    ``-eau`` ("château" -> "chât"), without a prefix re-/ré-/r-
    (:func:`_re_roots`: "réveil" -> "éveil"), and the verb roots.  Verb roots: for a
    verb of :func:`french_verbs` (or its past participle: "enneigé"), its
    stem ("vendre" -> "vend"; "cadre" is no verb, so no "cad") without a
    prefix en-/em-/a-/re-/ré-/dé- (:func:`_verb_stems`).  Derived roots: a
    base root without one derivation suffix, 4 letters or more, or 3 with
    a suffix of at most 2 letters ("vendeur" -> "vend", "châtelain" ->
    "chât", "têtu" -> "têt", "ponton" -> "pont", "chanson" -> "chant");
    weak roots: 3 letters left by a longer suffix ("nageur" -> "nag"),
    which only a verb root may meet.
    """
    verbs = french_verbs()
    base: set[str] = set()
    verb_roots: set[str] = set()
    for b in {_lower(word), _lower(lemma(word))}:
        base.add(b)
        if len(b) <= ROOT_MIN:
            continue
        if b.endswith("e") and len(b) - 1 >= ROOT_MIN:
            base.add(b[:-1])
        if b.endswith("eau") and len(b) - 3 >= EAU_ROOT_MIN:
            base.add(b[:-3])
        for v in (b, b[:-1] + "er" if b.endswith("é") else ""):
            if v in verbs:
                verb_roots |= _verb_stems(v)
        base |= _re_roots(b)
    base |= verb_roots
    derived: set[str] = set()
    weak: set[str] = set()
    for b in base:
        for suf, alts in _SUFFIXES.items():
            if not b.endswith(suf) or b == suf or b.endswith("eau"):
                continue
            root = b[: -len(suf)]
            if len(root) >= 4 or (len(root) == ROOT_MIN and len(suf) <= 2):
                derived.update(root + a for a in alts)
            elif len(root) == ROOT_MIN:
                weak.update(root + a for a in alts)
    keep = frozenset(r for r in base if len(r) >= ROOT_MIN)
    return keep, frozenset(derived - base), frozenset(verb_roots), frozenset(weak - base)


@lru_cache(maxsize=262144)
def derived_family(a: str, b: str) -> bool:
    """True when one word's base root is a root of the other: the two
    share a root and at least one of them is not derived to reach it
    ("vendre"/"vendeur", "pont"/"ponton"; not "anneau"/"année", both
    derived from "ann"); a weak root counts against a verb root only
    ("nager"/"nageur")."""
    base_a, der_a, verb_a, weak_a = derivation_roots(a)
    base_b, der_b, verb_b, weak_b = derivation_roots(b)
    return (bool(base_a & (base_b | der_b)) or bool(base_b & der_a)
            or bool(verb_a & weak_b) or bool(verb_b & weak_a))


def is_spelled(text: str) -> bool:
    """True for a word given letter by letter: "c-h-a-t", "C.H.A.T", "c h a t"."""
    parts = [p for p in _SPELL_SPLIT.split(text) if p]
    return len(parts) >= 2 and all(len(p) == 1 for p in parts)


def _word_parts(clue: str) -> list[str]:
    """The parts of a compound clue worth a family check ("porte-monnaie"
    -> ["porte-monnaie", "porte", "monnaie"]; "aujourd'hui" -> its parts of
    3 letters or more)."""
    parts = [p for p in _PARTS.split(clue) if len(p) >= 3]
    return [clue, *parts] if len(parts) > 1 else [clue]


def check_clue(raw: object, secret: str, earlier: tuple[str, ...] | list[str]) -> str:
    """Validate one clue for the secret word ``secret`` given the clues
    already given this turn; return the normalised clue.

    Checks in order (source, Notes; rulings "Maudit Mot Dit"): free text
    (:func:`clean_text`, at most :data:`CLUE_MAX` characters), spelled
    letter by letter (``clue_spelled``), more than one word
    (``clue_not_one_word``), characters other than letters, inner hyphens
    and apostrophes (``clue_not_a_word``), not a French word of the
    lexicon, which also refuses most translations (``clue_not_french``,
    :func:`is_french`), the same clue again
    (``clue_repeated``), the same family as the secret word
    (``clue_same_family``) or as an earlier clue
    (``clue_same_family_as_earlier``).  Messages name only the clue and
    earlier clues, which the giver typed, and never the secret word.
    """
    clue = clean_text(raw, CLUE_MAX)
    if is_spelled(clue):
        raise IllegalAction(CLUE_SPELLED, "spelling a word letter by letter is not a clue")
    if " " in clue:
        raise IllegalAction(CLUE_NOT_ONE_WORD, "a clue is one single word")
    if not all(ch.isalpha() or ch in "-'" for ch in clue) or clue[0] in "-'" or clue[-1] in "-'":
        raise IllegalAction(CLUE_NOT_A_WORD, "a clue is a word: letters, with inner hyphens or apostrophes only")
    if not is_french(clue):
        raise IllegalAction(CLUE_NOT_FRENCH, f"{clue!r} is not a French word of the game's dictionary")
    key = fold(clue)
    for e in earlier:
        if fold(e) == key:
            raise IllegalAction(CLUE_REPEATED, f"{e!r} was already given as a clue")
    parts = _word_parts(clue)
    if any(same_family(p, secret) for p in parts):
        raise IllegalAction(CLUE_SAME_FAMILY, f"{clue!r} is of the same family as the secret word")
    for e in earlier:
        if any(same_family(p, q) for p in parts for q in _word_parts(e)):
            raise IllegalAction(
                CLUE_SAME_FAMILY_AS_EARLIER, f"{clue!r} is of the same family as the earlier clue {e!r}"
            )
    return clue


def _deplural(key: str) -> str:
    """Folded key without a plural ending: "pieces" -> "piece",
    "chevaux" -> "cheval", "jeux" -> "jeu"."""
    if len(key) > 4 and key.endswith("aux"):
        return key[:-3] + "al"
    if len(key) > 2 and key[-1] in "sx":
        return key[:-1]
    return key


@lru_cache(maxsize=65536)
def guess_keys(text: str) -> frozenset[str]:
    """Keys under which a proposal or a secret word matches (case, accents,
    a leading article and the plural ignored): "Les Pièces" -> {"piece",
    "pieces"}."""
    low = text.casefold().strip()
    low = _ARTICLE.sub("", low, count=1).strip()
    keys = {fold(low), _deplural(fold(low))}
    if " " not in low and low:
        keys.add(fold(lemma(low)))
    return frozenset(k for k in keys if k)


def guess_matches(guess: str, secret: str) -> bool:
    """True when the proposal ``guess`` finds the word ``secret``
    (rulings: "Guesses match ignoring case, accents, articles and
    plural"): ``guess_matches("Les Pièces", "pièce")`` is true."""
    return bool(guess_keys(guess) & guess_keys(secret))
