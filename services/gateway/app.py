"""The FastAPI gateway: app factory, shared context, middleware.

Routes live in :mod:`services.gateway.routes_games`,
:mod:`services.gateway.routes_tables` and :mod:`services.gateway.routes_ops`;
they stay thin and call the store, the table cache and the submitter kept
on :class:`GatewayContext`, which they receive, with the table and the
caller's seat, from the dependencies of :mod:`services.gateway.deps`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fastapi import FastAPI
from redis.asyncio import Redis

from services.config import Settings
from services.gateway import errors
from services.gateway.fast_routes import HotRoutes
from services.gateway.middleware import BodyLimit, RedMetrics
from services.gateway.ratelimit import RateLimits
from services.gateway.streams import StreamSlots
from services.health import Heartbeats
from services.messaging import Submitter
from services.store.store import EventStore
from services.store.tables import Tables
from services.worker.direct import DirectSubmitter
from services.worker.worker import BotScheduler

if TYPE_CHECKING:
    from services.archive.db import Archive

DESCRIPTION = """
Tapis hosts card tables of five games (Maudix, Mau Mau, DIX, Mauw, Maudit
Mot Dit). Create a table, take a seat (you get a secret seat token), read
your view and legal actions, and send actions. Every accepted action is
appended as events to the table's log; `GET /tables/{T}/events` and the
SSE stream replay them, redacted for the caller.

Authentication: `Authorization: Bearer <seat token>` from `POST
/tables/{T}/join`. Without a token you are a spectator.

Errors are `application/problem+json` with a stable `code` (see docs/api.md).
"""


@dataclass
class GatewayContext:
    """What every route needs."""

    settings: Settings
    redis: Redis
    store: EventStore
    tables: Tables
    submitter: Submitter | DirectSubmitter
    streams: StreamSlots
    heartbeats: Heartbeats
    limits: RateLimits
    #: The archive of finished games (``TAPIS_ARCHIVE_URL``), or None.
    archive: Archive | None = None


async def _archive_schema(archive: Archive, timeout_s: float = 15.0) -> None:
    """Bring the archive's schema up to date (``tapis archive migrate``'s
    work; safe when many processes start together), or log why not: a
    gateway starts anyway, and answers 503 ``archive_unavailable`` for what
    needs the archive until it can be read."""
    try:
        await asyncio.wait_for(archive.ensure_schema(), timeout_s)
    except Exception as exc:  # noqa: BLE001 -- the gateway serves the live tables meanwhile
        logging.getLogger("tapis.gateway").warning(
            "the archive's schema could not be checked (%s); run `tapis archive migrate`", exc.__class__.__name__)


def create_app(
    settings: Settings,
    redis: Redis,
    *,
    tables: Tables | None = None,
    listener_redis: Redis | None = None,
    extra_lifespan=None,
    heartbeats: Heartbeats | None = None,
    bots: BotScheduler | None = None,
) -> FastAPI:
    """Build the gateway app over ``redis``.

    ``tables``: a shared projection cache (the all-in-one ``serve`` shares
    it with its worker); ``extra_lifespan``: an async context manager
    factory run inside the app's lifespan (``serve`` starts its workers
    and bots there); ``heartbeats``: the loops ``/healthz`` reports (``serve``
    shares them with its workers); ``bots``: where bot turns go when this
    gateway decides actions itself (``settings.decide_in_gateway``)."""
    store = EventStore.from_settings(redis, settings)
    heartbeats = heartbeats or Heartbeats()
    if tables is None:
        tables = Tables.from_settings(store, settings)
    submitter: Submitter | DirectSubmitter
    if settings.decide_in_gateway:
        submitter = DirectSubmitter(redis, settings, tables, bots=bots)
    else:
        submitter = Submitter(redis, settings.shards, reply_timeout_s=settings.reply_timeout_s,
                              listener_redis=listener_redis, heartbeats=heartbeats)
    ctx = GatewayContext(
        settings=settings,
        redis=redis,
        store=store,
        tables=tables,
        submitter=submitter,
        streams=StreamSlots(settings.max_streams, settings.max_streams_per_client),
        heartbeats=heartbeats,
        limits=RateLimits(settings),
        archive=tables.archive,
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        await ctx.submitter.start()
        if ctx.archive is not None:
            await _archive_schema(ctx.archive)
        try:
            if extra_lifespan is not None:
                async with extra_lifespan(app):
                    yield
            else:
                yield
        finally:
            await ctx.submitter.stop()
            if ctx.archive is not None:
                await ctx.archive.close()

    app = FastAPI(
        title="Tapis",
        version="0.1.0",
        description=DESCRIPTION,
        lifespan=lifespan,
        # no 307 from /tables/ to /tables: its Location would be built from
        # the request's Host header (an open redirect); such paths get 404
        redirect_slashes=False,
        # /docs and /redoc: services.gateway.apidocs, with no CDN
        docs_url=None,
        redoc_url=None,
        openapi_tags=[
            {"name": "games", "description": "The games hosted, their options and bot strategies."},
            {"name": "tables", "description": "Lobby, creating and joining tables, views, actions, event feeds."},
            {"name": "history", "description": "Finished games kept in the archive: who played, who won, when."},
            {"name": "operations", "description": "Health, readiness and Prometheus metrics."},
        ],
    )
    app.state.ctx = ctx
    errors.install(app)

    from services.gateway import (
        apidocs,
        openapi,
        routes_games,
        routes_history,
        routes_ops,
        routes_replay,
        routes_tables,
        web,
    )

    # Added first = innermost: the hot routes' plainly valid requests are
    # answered here, inside the limits and the metrics (fast_routes).
    app.add_middleware(HotRoutes, app=app, routes=routes_tables.router.routes)
    # Added last = outermost: metrics see every response, 413s included.
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes, max_header_bytes=settings.max_header_bytes,
                       body_timeout_s=settings.body_timeout_s)
    app.add_middleware(RedMetrics)
    if settings.cors_origins:  # off unless origins are named
        from starlette.middleware.cors import CORSMiddleware

        app.add_middleware(CORSMiddleware, allow_origins=settings.cors_origins, allow_methods=["GET", "POST"],
                           allow_headers=["Authorization", "Content-Type", "Last-Event-ID"], max_age=600)

    app.include_router(routes_games.router)
    app.include_router(routes_tables.router)
    app.include_router(routes_replay.router)
    app.include_router(routes_history.router)
    app.include_router(routes_ops.router)
    web.install(app)
    apidocs.install(app)
    openapi.install(app)
    return app
