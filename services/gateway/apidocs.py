"""The API's documentation pages, ``/docs`` (Swagger UI) and ``/redoc``
(ReDoc), served with no request to another site: their scripts, style
sheet and icon come from the ``fastapi-offline`` package (MIT; Swagger UI
5 and ReDoc's standalone bundle) under ``/docs-assets``, instead of
FastAPI's defaults on cdn.jsdelivr.net and Google Fonts, so the pages work
offline (tester's report, item 14)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from starlette.staticfiles import StaticFiles

#: Where the pages' files are served from.
ASSETS = "/docs-assets"

router = APIRouter(include_in_schema=False)


def assets_dir() -> Path:
    """The directory of Swagger UI's and ReDoc's files in ``fastapi-offline``."""
    return Path(str(resources.files("fastapi_offline").joinpath("static")))


@router.get("/docs")
async def swagger_ui() -> HTMLResponse:
    """Swagger UI on ``/openapi.json``."""
    return get_swagger_ui_html(
        openapi_url="/openapi.json", title="Tapis - API",
        swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js", swagger_css_url=f"{ASSETS}/swagger-ui.css",
        swagger_favicon_url=f"{ASSETS}/favicon.png")


@router.get("/redoc")
async def redoc() -> HTMLResponse:
    """ReDoc on ``/openapi.json`` (no web fonts)."""
    return get_redoc_html(openapi_url="/openapi.json", title="Tapis - API",
                          redoc_js_url=f"{ASSETS}/redoc.standalone.js", redoc_favicon_url=f"{ASSETS}/favicon.png",
                          with_google_fonts=False)


def install(app: FastAPI) -> None:
    """Serve ``/docs``, ``/redoc`` and their files (the app is built with
    ``docs_url=None, redoc_url=None``)."""
    app.include_router(router)
    app.mount(ASSETS, StaticFiles(directory=assets_dir(), follow_symlink=False), name="docs-assets")
