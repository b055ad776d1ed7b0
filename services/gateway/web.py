"""The web client: the lobby at ``/``, a table's page at ``/play/{table}``,
a finished game's replay at ``/replay/{table}`` and their static files
(HTML, CSS, ES modules) at ``/static``, all shipped in the package
(``services/gateway/web/``), no build step and nothing fetched from
elsewhere (README, "Play in a browser").

Every response of these routes carries a Content-Security-Policy that
allows only this origin, ``X-Content-Type-Options: nosniff``,
``Referrer-Policy: no-referrer`` (a table's URL never leaks to another
site) and a cache policy: pages are revalidated each time (``no-cache``),
static files may be kept an hour.  The pages hold no secret: a seat's
token lives in the browser's ``localStorage`` and is sent only in the
``Authorization`` header (the live stream is read with ``fetch``, which can
send it, so no token ever goes into a URL or a log line).
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse
from starlette.staticfiles import StaticFiles

from services.gateway.deps import check_table_id

#: Where the client's files are, inside the package.
WEB_DIR = Path(__file__).with_name("web")

#: Only this origin: scripts, styles, images, fetches; no frames, no plugins.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "font-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")

SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}

router = APIRouter(include_in_schema=False)


def _page(name: str) -> FileResponse:
    return FileResponse(WEB_DIR / name, media_type="text/html; charset=utf-8",
                        headers={**SECURITY_HEADERS, "Cache-Control": "no-cache"})


@router.api_route("/", methods=["GET", "HEAD"])
async def lobby_page() -> FileResponse:
    """The lobby: games, tables, the create form."""
    return _page("lobby.html")


@router.api_route("/play/{table}", methods=["GET", "HEAD"])
async def table_page(table: str) -> FileResponse:
    """A table's page (404 ``table_not_found`` for an id that cannot be a
    table's; an unknown table is told by the page itself)."""
    check_table_id(table)
    return _page("play.html")


@router.api_route("/replay/{table}", methods=["GET", "HEAD"])
async def replay_page(table: str) -> FileResponse:
    """A finished game's replay, move by move, from a seat or the
    spectator's place (404 ``table_not_found`` for an id that cannot be a
    table's; the page tells an unknown or unfinished table itself)."""
    check_table_id(table)
    return _page("replay.html")


class WebStatic:
    """The static files (Starlette's ``StaticFiles``, which answers
    ``ETag`` and ``Last-Modified`` revalidations) with the security headers
    and ``Cache-Control: public, max-age=3600, must-revalidate``: a
    browser keeps the modules an hour, so an upgrade shows within one."""

    def __init__(self) -> None:
        self.files = StaticFiles(directory=WEB_DIR, follow_symlink=False)

    async def __call__(self, scope, receive, send):
        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                for name, value in SECURITY_HEADERS.items():
                    headers.append((name.lower().encode(), value.encode()))
                headers.append((b"cache-control", b"public, max-age=3600, must-revalidate"))
                message = {**message, "headers": headers}
            await send(message)

        await self.files(scope, receive, send_with_headers)


def install(app: FastAPI) -> None:
    """Mount the web client on ``app``."""
    app.include_router(router)
    app.mount("/static", WebStatic(), name="static")
