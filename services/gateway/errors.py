"""Errors as ``application/problem+json`` (RFC 9457) with a stable ``code``.

Every error the API returns has: ``type`` (a URN naming the code),
``title``, ``status``, ``detail`` and ``code``.  Clients switch on
``code``; the full list is in docs/api.md.
"""

from __future__ import annotations

from collections.abc import Mapping

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from redis.exceptions import RedisError
from starlette.exceptions import HTTPException as StarletteHTTPException

PROBLEM = "application/problem+json"

#: Refusal codes a game or the worker returns that are not "illegal move"
#: (422) but a conflict with the table's current state (409).
CONFLICT_CODES = frozenset({"not_your_turn", "game_over", "stale_version", "not_started", "too_many_conflicts",
                            "not_a_person", "not_a_bot_seat", "not_due", "seat_left"})


class ApiError(Exception):
    """An error response: HTTP ``status``, stable ``code``, human ``detail``."""

    def __init__(self, status: int, code: str, detail: str, *, title: str | None = None, extra: dict | None = None,
                 headers: dict[str, str] | None = None):
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.headers = headers
        self.title = title or code.replace("_", " ").capitalize()
        self.extra = extra or {}


def problem_body(status: int, code: str, detail: str, title: str | None = None, **extra) -> dict:
    """The problem+json document of an error (RFC 9457 with ``code``)."""
    return {
        "type": f"urn:tapis:error:{code}",
        "title": title or code.replace("_", " ").capitalize(),
        "status": status,
        "detail": detail,
        "code": code,
        **extra,
    }


def problem(status: int, code: str, detail: str, title: str | None = None, *,
            headers: Mapping[str, str] | None = None, **extra) -> JSONResponse:
    """A problem+json response (``headers``: added to the response's)."""
    body = problem_body(status, code, detail, title, **extra)
    out = dict(headers or {})
    if status == 401:
        out["WWW-Authenticate"] = "Bearer"
    return JSONResponse(body, status_code=status, media_type=PROBLEM, headers=out or None)


def status_for_refusal(code: str) -> int:
    """HTTP status for a game/worker refusal code: 404, 409 or 422."""
    if code == "table_not_found":
        return 404
    if code in CONFLICT_CODES:
        return 409
    if code == "internal_error":
        return 500
    return 422


def install(app: FastAPI) -> None:
    """Register the handlers that turn every error into problem+json."""

    @app.exception_handler(ApiError)
    async def _api_error(_req: Request, exc: ApiError):
        return problem(exc.status, exc.code, exc.detail, exc.title, headers=exc.headers, **exc.extra)

    @app.exception_handler(RequestValidationError)
    async def _validation(_req: Request, exc: RequestValidationError):
        errors = exc.errors()
        if any(e.get("type") == "json_invalid" for e in errors):
            return problem(400, "malformed_json", "the request body is not valid JSON", "Malformed JSON")
        fields = [
            {"loc": [str(p) for p in e.get("loc", ())], "msg": e.get("msg", ""), "type": e.get("type", "")}
            for e in errors
        ]
        if isinstance(exc.body, bytes | bytearray) and exc.body:
            # FastAPI hands a body over as bytes when its Content-Type is not JSON
            return problem(422, "invalid_request", "the body was not read as JSON: send it with the header "
                           "`Content-Type: application/json`", errors=fields)
        return problem(422, "invalid_request", "the request does not match the schema", errors=fields)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_req: Request, exc: StarletteHTTPException):
        code = {400: "malformed_json", 404: "not_found", 405: "method_not_allowed"}.get(
            exc.status_code, f"http_{exc.status_code}")
        detail = "the request body is not valid JSON" if exc.status_code == 400 else str(exc.detail)
        title = "Malformed JSON" if exc.status_code == 400 else None
        return problem(exc.status_code, code, detail, title, headers=exc.headers)  # 405 keeps its Allow

    from services.archive.db import ArchiveUnavailable

    @app.exception_handler(ArchiveUnavailable)
    async def _archive_down(_req: Request, exc: ArchiveUnavailable):
        # the archive's database (TAPIS_ARCHIVE_URL): history, and reads of archived tables
        return problem(503, "archive_unavailable", "the archive of finished games is unavailable; retry shortly")

    @app.exception_handler(RedisError)
    async def _store_down(_req: Request, exc: RedisError):
        return problem(503, "store_unavailable", "the event store is unavailable or saturated; retry shortly")

    @app.exception_handler(OSError)
    async def _network_down(_req: Request, exc: OSError):
        return problem(503, "store_unavailable", "the event store is unreachable; retry shortly")

    @app.exception_handler(Exception)
    async def _bug(_req: Request, exc: Exception):
        # A bug: Starlette logs the traceback; the client gets problem+json.
        return problem(500, "internal_error", "the server failed on this request; it was logged")
