"""History: the archived games (issue 22; docs/api.md, "History").

``GET /history`` lists finished games the archive holds (``TAPIS_ARCHIVE_URL``),
newest first, filtered by game, player name, bot strategy and date, a page
at a time; ``GET /history/{table}`` is one of them.  Both answer from the
archive's summaries (:class:`services.archive.model.GameSummary`): never a
log, a meta hash nor a token hash.  (``GET /games`` stays the catalogue of
the games hosted.)

Without an archive configured the list is an empty page and every game is
404 ``no_such_game``: nothing is archived, finished tables stay in Redis for
``TAPIS_FINISHED_RETENTION_S`` and the lobby lists them (``GET
/tables?status=finished``).  An archive that cannot be read is 503
``archive_unavailable`` (:mod:`services.gateway.errors`).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from fastapi import APIRouter, Query

from services.gateway.deps import Ctx
from services.gateway.errors import ApiError
from services.gateway.schemas import HistoryGame, HistoryList
from services.history import game_json, parse_when
from services.store import keys
from shared.games import UnknownGame, get_game

router = APIRouter(prefix="/history", tags=["history"])

#: A bot strategy's name, as the games name theirs.
_STRATEGY = re.compile(r"[A-Za-z0-9_-]{1,40}", re.ASCII)

_ERR: dict[str, Any] = {"content": {"application/problem+json": {}}}
R503: dict[int | str, dict[str, Any]] = {
    503: {"description": "`archive_unavailable`: the archive's database cannot be read now; retry shortly.", **_ERR}}


def _bad_query(field: str, msg: str) -> ApiError:
    """422 ``invalid_request`` naming the query parameter ``field``."""
    return ApiError(422, "invalid_request", f"{field}: {msg}",
                    extra={"errors": [{"loc": ["query", field], "msg": msg, "type": "value_error"}]})


def _when(field: str, text: str | None, *, end: bool) -> int | None:
    if text is None or not text.strip():
        return None
    try:
        return parse_when(text, end=end)
    except ValueError as exc:
        raise _bad_query(field, str(exc)) from None


@router.get("", response_model=HistoryList, summary="Archived games", responses={
    422: {"description": "`unknown_game` (a `game` not hosted); `invalid_request` (a `since` or `until` that is not "
                         "an ISO 8601 date or datetime, `since` after `until`, a `limit` out of 1-200, a `cursor` "
                         "this route did not give; `errors` names the parameter).", **_ERR},
    **R503})
async def history(
    ctx: Ctx,
    game: str | None = Query(None, max_length=64, description="Only games of this game (`maumau`); empty: every game."),
    player: str | None = Query(None, max_length=40, description="Only games where a seat had this name (exact, as "
                                                                "given at join; a bot's name too)."),
    strategy: str | None = Query(None, max_length=40,
                                 description="Only games with a bot seat of this strategy (`heuristic`)."),
    since: str | None = Query(None, max_length=40, description="Only games ended at or after this ISO 8601 date "
                              "(`2026-12-01`: from its start) or datetime (`2026-12-01T18:30:00Z`; no offset: UTC)."),
    until: str | None = Query(None, max_length=40, description="Only games ended up to this ISO 8601 date (included: "
                              "the whole day) or datetime (included; no offset: UTC)."),
    limit: int = Query(50, ge=1, le=200, description="At most this many games."),
    cursor: str | None = Query(None, max_length=200, description="Where the previous page ended: its `next`."),
) -> HistoryList:
    """Finished games the archive holds, newest first (by the time they
    ended), with their players (name, kind, strategy, place, score), winners
    and dates, a page at a time: pass `next` as `cursor` for the next page
    (null: no more). Filters combine (a player's games against a strategy,
    in one month). Finished tables not archived yet (the archiver moves them
    `TAPIS_ARCHIVE_AFTER_S` after their end) are in the lobby, `GET
    /tables?status=finished`, until then; a table may show in both for a
    moment. A service with no archive configured answers an empty page."""
    game = game or None
    if game is not None:
        try:
            get_game(game)
        except UnknownGame:
            raise ApiError(422, "unknown_game", f"no game {game!r}; see GET /games") from None
    # names are stored as the join stored them: NFC, without surrounding space
    if player is not None:
        player = unicodedata.normalize("NFC", player).strip() or None
    strategy = strategy or None
    if strategy is not None and not _STRATEGY.fullmatch(strategy):
        raise _bad_query("strategy", "a strategy's name: letters, digits, _ and -")
    since_ms = _when("since", since, end=False)
    until_ms = _when("until", until, end=True)
    if since_ms is not None and until_ms is not None and since_ms >= until_ms:
        raise _bad_query("since", "since is after until")
    cursor = cursor or None
    if ctx.archive is None:
        if cursor is not None:
            raise _bad_query("cursor", "not a cursor this history gave")
        return HistoryList(items=[], next=None)
    try:
        page = await ctx.archive.search(game=game, player=player, strategy=strategy, since_ms=since_ms,
                                        until_ms=until_ms, limit=limit, cursor=cursor)
    except ValueError:
        if cursor is None:
            raise
        raise _bad_query("cursor", "not a cursor this history gave") from None
    return HistoryList.model_validate({"items": [game_json(s) for s in page.items], "next": page.next})


@router.get("/{table}", response_model=HistoryGame, summary="An archived game", responses={
    404: {"description": "`no_such_game`: the archive holds no such table (not finished, not archived yet, or no "
                         "archive configured).", **_ERR},
    **R503})
async def archived_game(ctx: Ctx, table: str) -> HistoryGame:
    """One archived game as `GET /history` lists it: players, places,
    scores, winners, dates, the number of events. Its events are at `GET
    /tables/{table}/events` (redacted for the caller, as during the game)."""
    if not keys.TABLE_ID_RE.match(table):
        raise ApiError(404, "no_such_game", "no archived game with that id")
    if ctx.archive is None:
        raise ApiError(404, "no_such_game", "this service keeps no archive of finished games (TAPIS_ARCHIVE_URL)")
    summary = await ctx.archive.summary(table)
    if summary is None:
        raise ApiError(404, "no_such_game", f"no archived game {table!r} (a table is archived a few minutes after "
                                            "it ends; GET /tables/{table} answers for it until then)")
    return HistoryGame.model_validate(game_json(summary))
