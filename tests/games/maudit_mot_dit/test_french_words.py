"""The packaged French word lists are hunspell-fr's, rebuilt identically
by deploy/build_fr_words.py (skipped without Debian's hunspell-fr, which
.ci/run installs)."""

from __future__ import annotations

import importlib.util
import lzma
from importlib import resources
from pathlib import Path

import pytest

from shared.games.maudit_mot_dit import lexicon

DIC = Path("/usr/share/hunspell/fr.dic")
TOOL = Path(__file__).resolve().parents[3] / "deploy" / "build_fr_words.py"


@pytest.mark.skipif(not DIC.exists(), reason="hunspell-fr is not installed (apt-get install -y hunspell-fr)")
def test_the_packaged_word_lists_rebuild_identically_from_hunspell_fr():
    spec = importlib.util.spec_from_file_location("build_fr_words", TOOL)
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    words = tool.folded_words(str(DIC.with_suffix("")))
    packaged = resources.files(lexicon.__package__)
    assert words == lzma.decompress(packaged.joinpath(lexicon.WORDS_FILE).read_bytes()).decode().split()
    verbs = tool.infinitives(DIC)
    assert verbs == lzma.decompress(packaged.joinpath(lexicon.VERBS_FILE).read_bytes()).decode().split()


def test_a_missing_word_list_fails_clearly(monkeypatch):
    """Without its data file the check raises LexiconMissing naming the
    file and how to rebuild it, not a bare KeyError."""
    monkeypatch.setattr(lexicon, "WORDS_FILE", "no_such_file.txt.xz")
    lexicon.french_words.cache_clear()
    try:
        with pytest.raises(lexicon.LexiconMissing, match="no_such_file.txt.xz.*build_fr_words.py"):
            lexicon.french_words()
    finally:
        monkeypatch.undo()
        lexicon.french_words.cache_clear()
    assert "vendeur" in lexicon.french_words()
