"""`GET /games`: the games hosted, with option schemas and bot strategies."""

from __future__ import annotations

from fastapi import APIRouter

from services.gateway.schemas import GameInfo, RuleSummary
from shared.games import available, get_game

router = APIRouter(tags=["games"])


def _notes(game: object) -> dict[str, str]:
    """The game's ``strategy_notes()`` when it has some (Maudit Mot Dit)."""
    notes = getattr(game, "strategy_notes", None)
    return dict(notes()) if callable(notes) else {}


@router.get("/games", response_model=list[GameInfo], summary="List games")
async def list_games() -> list[GameInfo]:
    """Every game hosted: seat range, a summary of its rules in English and
    French, the JSON Schema of its table options (with defaults and
    descriptions) and its bot strategies."""
    out = []
    for name in available():
        g = get_game(name)
        out.append(
            GameInfo(
                name=g.name,
                title=g.title,
                min_players=g.min_players,
                max_players=g.max_players,
                summary=RuleSummary.model_validate(dict(g.summary)),
                options_schema=g.Options.model_json_schema(),
                strategies=sorted(g.strategies),
                strategy_notes=_notes(g),
            )
        )
    return out
