"""`GET /games` gives every game a summary of its rules in English and
French (shared/games/<game>/summary.py), for the lobby."""

from __future__ import annotations

from shared.games import get_game
from tests.test_strict_bodies import GAMES


async def test_games_give_every_game_a_rule_summary_in_english_and_french(service):
    games = {g["name"]: g for g in (await service.get("/games")).json()}
    assert set(GAMES) <= set(games)
    for game in GAMES:
        summary = games[game]["summary"]
        assert set(summary) == {"en", "fr"}, game
        # A few sentences each, and two different texts (not one language twice).
        for lang in ("en", "fr"):
            assert 4 <= summary[lang].count(". ") + 1 <= 7, (game, lang)
            assert summary[lang].endswith("."), (game, lang)
        assert summary["en"] != summary["fr"]
        assert summary == dict(get_game(game).summary)
    assert games["maumau"]["summary"]["en"].startswith("Be the first to empty your hand.")
    assert games["maudix"]["summary"]["fr"].startswith("Sept manches, un contrat chacune")
    spec = (await service.get("/openapi.json")).json()
    info = spec["components"]["schemas"]["GameInfo"]
    assert "summary" in info["required"]
    assert spec["components"]["schemas"]["RuleSummary"]["required"] == ["en", "fr"]


async def test_games_say_that_the_word_bots_play_at_random_without_the_word_model(service, monkeypatch):
    """Tester's report, item 13: without the model (TAPIS_MMD_NO_VECTORS=1)
    Maudit Mot Dit's `heuristic` is marked as playing at random; no other
    game or strategy has a note."""
    monkeypatch.setenv("TAPIS_MMD_NO_VECTORS", "1")
    games = {g["name"]: g for g in (await service.get("/games")).json()}
    note = "plays at random: the word model is missing (TAPIS_MMD_NO_VECTORS=1)"
    assert games["maudit_mot_dit"]["strategy_notes"] == {"heuristic": note, "strong": note}
    assert "heuristic" in games["maudit_mot_dit"]["strategies"]
    assert {name: g["strategy_notes"] for name, g in games.items() if name != "maudit_mot_dit"} == {
        name: {} for name in games if name != "maudit_mot_dit"}
    monkeypatch.delenv("TAPIS_MMD_NO_VECTORS")
    from shared.games.maudit_mot_dit import bots

    if bots.model_missing() is None:  # the model is installed here: no note
        games = {g["name"]: g for g in (await service.get("/games")).json()}
        assert games["maudit_mot_dit"]["strategy_notes"] == {}
