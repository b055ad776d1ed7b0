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
