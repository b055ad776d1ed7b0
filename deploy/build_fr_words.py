"""Build the French word list of Maudit Mot Dit from hunspell-fr.

Usage (Debian: ``apt-get install -y hunspell-fr``)::

    python deploy/build_fr_words.py [/usr/share/hunspell/fr] \
        [shared/games/maudit_mot_dit/fr_words.txt.xz]

It also writes ``fr_verbs.txt.xz`` beside the output: the dictionary's
infinitives (entries tagged ``po:v``), which the family check uses to
strip verb endings only from real verbs.

Reads the Hunspell dictionary (``fr.dic`` + ``fr.aff``, Dicollecte
"Grammalecte" French dictionary, MPL 2.0) and writes every word form it
accepts, expanded by its suffix rules (plurals, feminines, conjugations),
folded (lower case, no accents, "œ" -> "oe") and sorted, one per line,
xz-compressed.  Elided prefixes (``l'``, ``d'``, ``qu'``...) and the unit
prefixes of the .aff (``kilo``, ``méga``...) are left out: the clue check
strips a leading elision itself.  The output is deterministic for a given
dictionary, so the file in the repository can be rebuilt and compared
(tests/games/maudit_mot_dit/test_french_words.py does when hunspell-fr is
installed).
"""

from __future__ import annotations

import lzma
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shared.games.maudit_mot_dit.lexicon import fold

DEFAULT_BASE = "/usr/share/hunspell/fr"
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "shared/games/maudit_mot_dit/fr_words.txt.xz"
#: The infinitives file, written beside the word list.
VERBS_NAME = "fr_verbs.txt.xz"


def _flags(text: str) -> list[str]:
    """Long (two-character) flags, as declared by ``FLAG long``."""
    return [text[i : i + 2] for i in range(0, len(text) - 1, 2)]


def read_aff(path: Path) -> tuple[dict[str, list[tuple[str, str, list[str], re.Pattern[str]]]], set[str], str, str]:
    """Suffix rules by flag: (strip, add, continuation flags, condition);
    the PFX flags; the NEEDAFFIX and FORBIDDENWORD flags."""
    sfx: dict[str, list[tuple[str, str, list[str], re.Pattern[str]]]] = {}
    pfx: set[str] = set()
    needaffix = forbidden = ""
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "FLAG" and parts[1] != "long":
            raise SystemExit("this builder reads FLAG long dictionaries only")
        if parts[0] == "NEEDAFFIX":
            needaffix = parts[1]
        elif parts[0] == "FORBIDDENWORD":
            forbidden = parts[1]
        elif parts[0] == "PFX":
            pfx.add(parts[1])
        elif parts[0] == "SFX" and len(parts) >= 5:
            flag, strip, add, cond = parts[1], parts[2], parts[3], parts[4]
            strip = "" if strip == "0" else strip
            add, _, cont = add.partition("/")
            add = "" if add == "0" else add
            sfx.setdefault(flag, []).append((strip, add, _flags(cont), re.compile("(?:" + cond + ")$")))
    return sfx, pfx, needaffix, forbidden


def expand(dic: Path, aff: Path) -> set[str]:
    """Every word form (not folded) the dictionary accepts, elisions and
    unit prefixes left out."""
    sfx, _pfx, needaffix, forbidden = read_aff(aff)
    words: set[str] = set()

    def apply(word: str, flags: list[str], depth: int) -> None:
        for flag in flags:
            for strip, add, cont, cond in sfx.get(flag, ()):
                if not cond.search(word) or (strip and not word.endswith(strip)):
                    continue
                form = word[: len(word) - len(strip)] + add
                if form:
                    words.add(form)
                    if depth == 0 and cont:
                        apply(form, cont, 1)

    lines = dic.read_text(encoding="utf-8").splitlines()
    for line in lines[1:]:
        entry = line.split("\t")[0].split(" ")[0]
        if not entry:
            continue
        word, _, flagtext = entry.partition("/")
        flags = _flags(flagtext)
        if forbidden and forbidden in flags:
            continue
        if not (needaffix and needaffix in flags):
            words.add(word)
        apply(word, flags, 0)
    return words


def infinitives(dic: Path) -> list[str]:
    """The dictionary's verbs (entries tagged ``po:v``) in the infinitive,
    lower case with accents, sorted."""
    out = set()
    for line in dic.read_text(encoding="utf-8").splitlines()[1:]:
        if "po:v" not in line:
            continue
        word = line.split("\t")[0].split(" ")[0].partition("/")[0]
        if word.endswith(("er", "ir", "re", "ïr")) and word.islower():
            out.add(word)
    return sorted(out)


def folded_words(base: str) -> list[str]:
    """The sorted, folded, deduplicated list written to the data file."""
    forms = expand(Path(base + ".dic"), Path(base + ".aff"))
    keep = set()
    for form in forms:
        key = fold(form.replace("’", "'"))
        if key and key.replace("-", "").replace("'", "").isalpha():
            keep.add(key)
    return sorted(keep)


def main() -> None:
    """Build the file (arguments: dictionary base path, output path)."""
    base = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_BASE
    out = Path(sys.argv[2]) if len(sys.argv) > 2 else DEFAULT_OUT
    words = folded_words(base)
    data = ("\n".join(words) + "\n").encode("utf-8")
    out.write_bytes(lzma.compress(data, preset=9 | lzma.PRESET_EXTREME))
    print(f"{len(words)} words, {out.stat().st_size} bytes -> {out}")
    verbs = infinitives(Path(base + ".dic"))
    vout = out.with_name(VERBS_NAME)
    vout.write_bytes(lzma.compress(("\n".join(verbs) + "\n").encode("utf-8"), preset=9 | lzma.PRESET_EXTREME))
    print(f"{len(verbs)} infinitives, {vout.stat().st_size} bytes -> {vout}")


if __name__ == "__main__":
    main()
