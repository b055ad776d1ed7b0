"""The ``tapis`` command: serve, gateway, worker, bots, demo, replay, archive.

Every role reads the same settings (``TAPIS_*`` environment variables,
see :mod:`services.config`); flags override them.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from pathlib import Path
from typing import Any

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Tapis: an open game service for card tables.")


#: ``tapis serve`` on its embedded store archives a finished game this many
#: seconds after its end (unless TAPIS_ARCHIVE_AFTER_S says otherwise).
EMBEDDED_ARCHIVE_AFTER_S = 10


def _freeze_heap() -> None:
    """Move everything the imports and the app's construction allocated
    (~90,000 objects) out of the garbage collector's sight
    (:func:`gc.freeze`): its full passes then walk only what requests
    allocate, instead of 40-90 ms pauses that land on whichever request is
    running (docs/performance.md, "History")."""
    import gc

    gc.collect()
    gc.freeze()


def _settings(redis: str | None, shards: int | None = None):
    from services.config import Settings

    overrides: dict[str, Any] = {}
    if redis is not None:
        overrides["redis_url"] = redis
        # Roles built from the environment (the Celery app: the bot broker
        # defaults to the Redis URL) must see the flag too.
        os.environ["TAPIS_REDIS_URL"] = redis
        from services.config import get_settings

        get_settings.cache_clear()
    if shards is not None:
        overrides["shards"] = shards
    return Settings(**overrides)


def _logging(level: str) -> None:
    logging.basicConfig(level=level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def warn_word_model() -> None:
    """At startup: a warning when Maudit Mot Dit's word model is missing
    (its heuristic bots then play at random)."""
    from shared.games.maudit_mot_dit import bots

    bots.warn_if_model_missing()


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", help="Address to listen on."),
    port: int = typer.Option(8000, help="Port to listen on."),
    redis: str | None = typer.Option(
        None, help="Redis URL. Omitted (and no TAPIS_REDIS_URL): embedded in-process store."),
    workers: int = typer.Option(1, min=1, max=16, help="In-process workers."),
    bots: str = typer.Option("inprocess", help="Bot runner: inprocess, celery (needs `tapis bots`), or none."),
    forwarded_allow_ips: str | None = typer.Option(
        None, help="Proxies trusted to name the client in X-Forwarded-For: comma list of addresses or networks,"
        " or '*' (or TAPIS_FORWARDED_ALLOW_IPS). Default: none, the client is the TCP peer."),
    archive: str | None = typer.Option(
        None, help="Archive of finished games: postgresql://… or sqlite:///path (or TAPIS_ARCHIVE_URL; 'none': off)."
        " Default on the embedded store: a SQLite file under ~/.local/share/tapis/, kept across restarts."),
    log_level: str = typer.Option("info", help="Log level."),
) -> None:
    """Gateway + workers + bots in one process. With no Redis URL everything
    runs on an embedded store (fakeredis): nothing else to install or start;
    finished games are archived to a SQLite file, so they can be looked at
    after a restart (`GET /history`, `/replay/<table>`, `tapis replay`)."""
    import uvicorn

    from services.config import archive_enabled, default_archive_url, safe_url
    from services.gateway.server import uvicorn_config
    from services.serve import build_serve_app

    _logging(log_level)
    warn_word_model()
    settings = _settings(redis)
    if archive is not None:
        settings = settings.model_copy(update={"archive_url": archive})
    elif settings.redis_url is None and settings.archive_url is None:
        settings = settings.model_copy(update={"archive_url": default_archive_url()})
    if settings.redis_url is None and "TAPIS_ARCHIVE_AFTER_S" not in os.environ:
        # One process, in memory: no page is served by another gateway's
        # cache, so a finished game can go to the archive (and /history) soon.
        settings = settings.model_copy(update={"archive_after_s": EMBEDDED_ARCHIVE_AFTER_S})
    if bots not in ("inprocess", "celery", "none"):
        raise typer.BadParameter("--bots must be inprocess, celery or none")
    where = settings.redis_url or "embedded store (live tables are lost when the process stops)"
    kept = safe_url(settings.archive_url) if archive_enabled(settings) else "none (finished tables stay in the store)"
    typer.echo(f"Tapis serving on http://{host}:{port} (docs at /docs), store: {where}, archive: {kept}")
    app_ = build_serve_app(settings, workers=workers, bots=bots)
    _freeze_heap()
    uvicorn.Server(uvicorn_config(app_, settings, host=host, port=port, log_level=log_level,
                                  forwarded_allow_ips=forwarded_allow_ips)).run()


@app.command()
def gateway(
    host: str = typer.Option("127.0.0.1", help="Address to listen on."),
    port: int = typer.Option(8000, help="Port to listen on."),
    redis: str | None = typer.Option(None, help="Redis URL (or TAPIS_REDIS_URL)."),
    forwarded_allow_ips: str | None = typer.Option(
        None, help="Proxies trusted to name the client in X-Forwarded-For: comma list of addresses or networks,"
        " or '*' (or TAPIS_FORWARDED_ALLOW_IPS). Default: none, the client is the TCP peer."),
    log_level: str = typer.Option("info", help="Log level."),
) -> None:
    """The HTTP gateway only (workers run as `tapis worker`)."""
    import uvicorn

    from services.gateway.app import create_app
    from services.gateway.server import uvicorn_config
    from services.runtime import make_redis

    _logging(log_level)
    settings = _settings(redis)
    if settings.redis_url is None:
        typer.echo("tapis gateway needs --redis or TAPIS_REDIS_URL (use `tapis serve` for the embedded mode)", err=True)
        raise typer.Exit(2)
    bots = None
    if settings.decide_in_gateway:  # this gateway enqueues the bot turns its own decisions make due
        from services.bots.celery_app import app as celery_app
        from services.bots.scheduler import CeleryBots

        bots = CeleryBots(celery_app, delay_ms=settings.bot_delay_ms)
    app_ = create_app(settings, make_redis(settings), bots=bots)
    _freeze_heap()
    uvicorn.Server(uvicorn_config(app_, settings, host=host, port=port, log_level=log_level,
                                  forwarded_allow_ips=forwarded_allow_ips)).run()


@app.command()
def worker(
    redis: str | None = typer.Option(None, help="Redis URL (or TAPIS_REDIS_URL)."),
    metrics_port: int | None = typer.Option(None, help="Serve /metrics on this port."),
    metrics_host: str = typer.Option("127.0.0.1", help="Address of the /metrics server (0.0.0.0 in containers)."),
    bots: str = typer.Option("celery", help="Where bot turns go: celery or none."),
    log_level: str = typer.Option("info", help="Log level."),
) -> None:
    """A command consumer: rebuild, decide, append, reply, and sweep due
    tables. Exits 3 when a loop stalls (TAPIS_LOOP_STALL_EXIT_S)."""
    from services.health import Heartbeats, serve_metrics
    from services.runtime import make_redis
    from services.worker.worker import BotScheduler, NoBots, Worker

    _logging(log_level)
    warn_word_model()
    settings = _settings(redis)
    if settings.redis_url is None:
        typer.echo("tapis worker needs --redis or TAPIS_REDIS_URL", err=True)
        raise typer.Exit(2)
    port = metrics_port or settings.metrics_port
    heartbeats = Heartbeats()
    if port:
        serve_metrics(port, metrics_host, heartbeats, settings.loop_stall_exit_s)
    scheduler: BotScheduler = NoBots()
    if bots == "celery":
        from services.bots.celery_app import app as celery_app
        from services.bots.scheduler import CeleryBots

        scheduler = CeleryBots(celery_app, delay_ms=settings.bot_delay_ms)

    async def main():
        import signal

        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        w = Worker(make_redis(settings), settings, bots=scheduler, heartbeats=heartbeats)
        logging.getLogger("tapis.worker").info("worker %s consuming %d shards", w.name, settings.shards)
        await w.run(stop)
        return w.failed

    try:
        import uvloop

        failed = uvloop.run(main())
    except ImportError:
        failed = asyncio.run(main())
    if failed:
        raise typer.Exit(3)


@app.command()
def bots(
    redis: str | None = typer.Option(None, help="Redis URL for the store (or TAPIS_REDIS_URL)."),
    concurrency: int = typer.Option(2, min=1, help="Bot worker processes/threads."),
    pool: str = typer.Option("threads", help="Celery pool: threads, prefork or solo."),
    metrics_port: int | None = typer.Option(None, help="Serve /metrics on this port."),
    metrics_host: str = typer.Option("127.0.0.1", help="Address of the /metrics server (0.0.0.0 in containers)."),
    log_level: str = typer.Option("info", help="Log level."),
) -> None:
    """The Celery bot workers (queue `bots`, task `tapis.bots.take_turn`).
    Exits with Celery's exit code (non-zero after an unrecoverable error)."""
    if redis:
        os.environ["TAPIS_REDIS_URL"] = redis
    from services.config import get_settings

    get_settings.cache_clear()
    if get_settings().redis_url is None:
        typer.echo("tapis bots needs --redis or TAPIS_REDIS_URL", err=True)
        raise typer.Exit(2)
    warn_word_model()
    port = metrics_port or get_settings().metrics_port
    if port:
        from prometheus_client import start_http_server

        start_http_server(port, addr=metrics_host)
    from services.bots.celery_app import app as celery_app

    # Celery's own command line, run so that its exit code comes back
    # (app.worker_main and app.start drop it): after an "Unrecoverable
    # error" (kombu can die on a Redis restart) `tapis bots` exits non-zero
    # and an on-failure supervisor restarts it.
    code = run_celery_worker(celery_app, ["-Q", "bots", f"--loglevel={log_level.upper()}", "-c", str(concurrency),
                                          "-P", pool])
    raise typer.Exit(code)


def run_celery_worker(celery_app, args: list[str]) -> int:
    """Run ``celery worker <args>`` for ``celery_app`` in this process and
    return the worker's exit code (0 after a normal shutdown)."""
    from celery.bin.celery import celery as celery_cli

    celery_cli.params[0].default = celery_app  # the --app option, as Celery.start sets it
    try:
        code = celery_cli.main(args=["worker", *args], standalone_mode=False)
    finally:
        celery_cli.params[0].default = None
    return code if isinstance(code, int) else 0


@app.command()
def demo(
    game: str = typer.Option("maumau", help="Game to play."),
    tables: int = typer.Option(20, min=1, max=10_000, help="How many all-bot tables."),
    players: int = typer.Option(4, min=1, max=12, help="Seats per table."),
    strategy: str = typer.Option("heuristic", help="Bot strategy for every seat (or a comma list, one per seat)."),
    url: str = typer.Option("http://127.0.0.1:8000", help="A running Tapis (`tapis serve`)."),
    embedded: bool = typer.Option(False, help="Start an embedded service in this process instead of using --url."),
    timeout: float = typer.Option(600, help="Give up after this many seconds."),
) -> None:
    """Create all-bot tables through the HTTP API, follow them with a
    progress bar, print each table's result and the throughput."""
    from services.demo import run_demo

    code = run_demo(game=game, tables=tables, players=players, strategy=strategy, url=url, embedded=embedded,
                    timeout=timeout)
    raise typer.Exit(code)


#: The --archive option of the commands that read archived games.
_ARCHIVE_HELP = ("Archive of finished games: postgresql://… or sqlite:///path (or TAPIS_ARCHIVE_URL; 'none': off)."
                 " Default without a Redis URL: the embedded `tapis serve`'s SQLite file under ~/.local/share/tapis/.")


def _archive_url(settings, archive: str | None) -> str | None:
    """The archive a reading command uses: ``--archive``, else
    ``TAPIS_ARCHIVE_URL``, else (no Redis URL: the embedded store's games)
    :func:`services.config.default_archive_url`; None when ``none``."""
    from services.config import archive_enabled, default_archive_url

    if archive is not None:
        settings = settings.model_copy(update={"archive_url": archive})
    elif settings.archive_url is None and settings.redis_url is None:
        return default_archive_url()
    return settings.archive_url.strip() if archive_enabled(settings) else None


@app.command()
def replay(
    table: str = typer.Argument(..., help="Table id."),
    redis: str | None = typer.Option(None, help="Redis URL (or TAPIS_REDIS_URL): looked at first."),
    archive: str | None = typer.Option(None, help=_ARCHIVE_HELP),
) -> None:
    """Rebuild a table from its whole event log and print its result as
    JSON, checked against its snapshot (in Redis) or its archived record
    (digest and result). Reads Redis first when a Redis URL is given, then
    the archive. Exits 1 when the table is nowhere (or a store cannot be
    reached), 3 when the check fails."""
    from services.replay import replay_table

    settings = _settings(redis)
    url = _archive_url(settings, archive)
    if settings.redis_url is None and url is None:
        typer.echo("tapis replay needs --redis, TAPIS_REDIS_URL or an archive (--archive, TAPIS_ARCHIVE_URL)",
                   err=True)
        raise typer.Exit(2)
    raise typer.Exit(asyncio.run(replay_table(settings, table, archive_url=url)))


@app.command()
def export(
    table: str | None = typer.Argument(None, help="Table id: export that table's log. Omitted: a bulk export of"
                                       " archived games of one game (--game, required then) and the dates."),
    game: str | None = typer.Option(None, help="Bulk export: the archived games of this game (maumau, ...)."),
    since: str | None = typer.Option(None, help="Bulk export: games ended at or after this ISO 8601 date"
                                     " (2026-12-01) or datetime (2026-12-01T18:30:00Z; no offset: UTC)."),
    until: str | None = typer.Option(None, help="Bulk export: games ended up to this date (its whole day) or"
                                     " datetime, included."),
    redis: str | None = typer.Option(None, help="Redis URL (or TAPIS_REDIS_URL): looked at first for one table."),
    archive: str | None = typer.Option(None, help=_ARCHIVE_HELP),
    out: Path | None = typer.Option(None, "--out", "-o", help="Write here (default: standard output); a bulk"
                                    " export to a .parquet file writes Parquet (needs pyarrow)."),
    progress: bool = typer.Option(True, help="Bulk export: show a progress indicator on stderr."),
) -> None:
    """Export games, unredacted: they hold every hidden card.

    `tapis export T`: one table's log as JSON lines (meta first, token
    hashes left out, then one event a line), from Redis or the archive.
    `tapis export --game maumau --since 2026-12-01 -o games.jsonl`: every
    archived game of a game (and dates) oldest first, one JSON line a game
    (its summary as GET /history gives it, with `events` its whole log), or
    Parquet to a .parquet file; the count on stderr at the end. Exits 2 on
    bad input, 1 when the table or the archive is missing or unreachable."""
    from services.replay import export_table

    settings = _settings(redis)
    url = _archive_url(settings, archive)
    bulk = game is not None or since is not None or until is not None
    if table is not None and bulk:
        typer.echo("tapis export: give a table id, or --game (and --since/--until) for many archived games,"
                   " not both", err=True)
        raise typer.Exit(2)
    if table is None:
        if game is None:
            typer.echo("tapis export: give a table id (one table) or --game (every archived game of a game,"
                       " e.g. tapis export --game maumau --since 2026-12-01 -o games.jsonl)", err=True)
            raise typer.Exit(2)
        raise typer.Exit(_bulk_export(url, out, game, since, until, progress))
    if out is not None and out.suffix.lower() == ".parquet":
        typer.echo("tapis export: Parquet is for the bulk export (--game); one table's log is JSON lines", err=True)
        raise typer.Exit(2)
    if settings.redis_url is None and url is None:
        typer.echo("tapis export needs --redis, TAPIS_REDIS_URL or an archive (--archive, TAPIS_ARCHIVE_URL)",
                   err=True)
        raise typer.Exit(2)
    if out is None:
        raise typer.Exit(asyncio.run(export_table(settings, table, sys.stdout, archive_url=url)))
    with out.open("w", encoding="utf-8") as f:
        code = asyncio.run(export_table(settings, table, f, archive_url=url))
    if code:
        out.unlink(missing_ok=True)
    raise typer.Exit(code)


def _bulk_export(url: str | None, out: Path | None, game: str, since: str | None, until: str | None,
                 progress: bool) -> int:
    """Check the bulk export's input (exit 2 with a message) and run it."""
    from services.history import parse_when
    from services.replay import export_games
    from shared.games import UnknownGame, available, get_game

    if url is None:
        typer.echo("tapis export --game reads the archive: give --archive or TAPIS_ARCHIVE_URL", err=True)
        return 2
    try:
        get_game(game)
    except UnknownGame:
        typer.echo(f"tapis export: no game {game!r} (one of {', '.join(available())})", err=True)
        return 2
    try:
        since_ms = parse_when(since) if since else None
        until_ms = parse_when(until, end=True) if until else None
    except ValueError as exc:
        typer.echo(f"tapis export: {exc}", err=True)
        return 2
    if since_ms is not None and until_ms is not None and since_ms >= until_ms:
        typer.echo("tapis export: --since is after --until", err=True)
        return 2
    return export_games(url, out, game=game, since_ms=since_ms, until_ms=until_ms, progress=progress)


@app.command()
def exporter(
    redis: str | None = typer.Option(None, help="Redis URL (or TAPIS_REDIS_URL)."),
    host: str = typer.Option("127.0.0.1", help="Address to serve /metrics on."),
    port: int = typer.Option(9103, help="Port to serve /metrics on."),
    shards: int | None = typer.Option(None, help="Command shards (default TAPIS_SHARDS)."),
    alive_s: float = typer.Option(
        30.0, min=1.0, help="A worker whose heartbeat (tapis:workers) is this recent is alive."),
    log_level: str = typer.Option("info", help="Log level."),
) -> None:
    """Stream and consumer-group metrics (lag, pending, oldest pending age,
    dead letters, live workers) read from Redis at each scrape."""
    from services.exporter import run_exporter

    _logging(log_level)
    settings = _settings(redis, shards)
    if settings.redis_url is None:
        typer.echo("tapis exporter needs --redis or TAPIS_REDIS_URL", err=True)
        raise typer.Exit(2)
    raise typer.Exit(run_exporter(settings, host=host, port=port, alive_s=alive_s))


archive_app = typer.Typer(no_args_is_help=True, help="The archive of finished games (TAPIS_ARCHIVE_URL).")
app.add_typer(archive_app, name="archive")


@archive_app.command("migrate")
def archive_migrate(
    url: str | None = typer.Option(
        None, help="Archive URL: postgresql://user@host:5432/db or sqlite:///path (or TAPIS_ARCHIVE_URL)."),
) -> None:
    """Create or upgrade the archive's schema (Alembic upgrade head); nothing
    to do is no error, and processes may run it together. Exit 2 without a
    URL, 1 when the database cannot be reached."""
    from services.archive.db import Archive, ArchiveUnavailable
    from services.config import Settings

    url = url or Settings().archive_url
    if not url:
        typer.echo("tapis archive migrate needs --url or TAPIS_ARCHIVE_URL"
                   " (postgresql://user@host:5432/db or sqlite:///path)", err=True)
        raise typer.Exit(2)
    try:
        archive = Archive(url)
    except (ValueError, OSError) as exc:
        typer.echo(f"tapis archive migrate: {exc}", err=True)
        raise typer.Exit(2) from None
    try:
        archive.migrate()
        revision = archive.revision()
    except ArchiveUnavailable as exc:
        typer.echo(f"tapis archive migrate: archive unavailable: {exc}", err=True)
        raise typer.Exit(1) from None
    finally:
        archive.engine.dispose()
    typer.echo(f"{archive!r}: schema at revision {revision}")


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
