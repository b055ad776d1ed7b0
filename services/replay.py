"""``tapis replay`` and ``tapis export``: a table's log read back from Redis
or from the archive (issue 22), and the bulk export of archived games.

* :func:`replay_table` folds a table's whole log from nothing and prints
  the result, checked against the stored snapshot (Redis) or the archived
  record (its digest and result);
* :func:`export_table` writes one table's log as JSON lines;
* :func:`export_games` streams many archived games (one JSON line, or one
  Parquet row, a game) with a progress indicator on stderr.

Where a table is looked for: in Redis first when a Redis URL is given, then
in the archive (``--archive``, ``TAPIS_ARCHIVE_URL``, or without a Redis
URL the embedded ``tapis serve``'s SQLite file, see
:func:`services.config.default_archive_url`).  Exit codes: 0 ok, 1 not
found or a store unreachable, 2 bad input, 3 a check failed.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import msgpack
import typer

from services.config import Settings, safe_url
from services.history import game_json
from services.store.tables import parse_meta
from shared import snapshot
from shared.engine import fold
from shared.events import Event, decode
from shared.games import UnknownGame
from shared.presence import away_after, left_after

if TYPE_CHECKING:
    from services.archive.db import Archive
    from services.archive.model import ArchivedGame

#: Games a Parquet row group holds.
PARQUET_GROUP = 256


class SourceError(Exception):
    """A table or the archive could not be read: ``str(exc)`` says why, for
    people; ``code`` is the exit code."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class Found:
    """A table's meta (str -> str) and whole log, and where they came from
    (``redis`` or ``archive``; ``record``: the archived record then)."""

    source: str
    meta: dict[str, str]
    events: list[Event]
    store: Any = None
    record: ArchivedGame | None = None


def sqlite_path(url: str) -> Path | None:
    """The file a ``sqlite:///path`` URL names (None for another URL or an
    in-memory database)."""
    from sqlalchemy.engine import make_url

    try:
        u = make_url(url)
    except Exception:  # noqa: BLE001 - the Archive says what is wrong with the URL
        return None
    if u.get_backend_name() != "sqlite" or u.database in (None, "", ":memory:"):
        return None
    return Path(u.database).expanduser()


def open_archive(url: str) -> Archive | None:
    """The archive at ``url`` to read, or None when it is a SQLite file that
    does not exist (nothing was ever archived there; it is not created).
    Raises :class:`SourceError` (code 2) for a URL that names no archive."""
    path = sqlite_path(url)
    if path is not None and not path.exists():
        return None
    from services.archive.db import Archive

    try:
        return Archive(url)
    except (ValueError, OSError) as exc:
        raise SourceError(f"bad archive URL {safe_url(url)!r}: {exc}", code=2) from None


async def find_table(settings: Settings, table: str, archive_url: str | None) -> Found:
    """``table``'s meta and log: from Redis when ``settings.redis_url`` is
    set and Redis holds it, else from the archive at ``archive_url``.
    Raises :class:`SourceError` when neither has it or one cannot be read."""
    from redis.exceptions import RedisError

    from services.archive.db import ArchiveUnavailable

    looked = []
    if settings.redis_url is not None:
        from services.runtime import make_redis
        from services.store.store import EventStore

        store = EventStore(make_redis(settings))
        where = safe_url(settings.redis_url)
        try:
            meta = await store.meta(table)
            if meta is not None:
                return Found("redis", meta, await store.read(table), store=store)
        except (RedisError, OSError) as exc:
            raise SourceError(f"Redis unreachable at {where}: {exc}") from None
        looked.append(f"Redis at {where}")
    if archive_url is not None:
        archive = open_archive(archive_url)
        if archive is None:
            looked.append(f"the archive at {safe_url(archive_url)} (no such file: nothing archived yet)")
        else:
            try:
                rec = await archive.get(table)
            except ArchiveUnavailable as exc:
                raise SourceError(f"the archive cannot be read: {exc}") from None
            finally:
                await archive.close()
            if rec is not None:
                return Found("archive", dict(rec.meta), [decode(raw) for raw in rec.log], record=rec)
            looked.append(f"the archive at {safe_url(archive_url)}")
    raise SourceError(f"no table {table!r} (looked in {' and '.join(looked)})")


async def replay_table(settings: Settings, table: str, *, archive_url: str | None = None) -> int:
    """Fold every event of ``table`` from nothing and print version, status
    and the result as JSON, with ``source`` (``redis`` or ``archive``) and
    the check made: a table in Redis against its stored snapshot
    (``snapshot.matches_replay``), an archived one against its record
    (``archive``: the log's digest and the archived result).  Returns the
    exit code (0 ok, 1 unknown table or game or a store unreachable, 3 the
    check failed)."""
    try:
        found = await find_table(settings, table, archive_url)
    except SourceError as exc:
        typer.echo(str(exc), err=True)
        return exc.code
    try:
        t = parse_meta(table, found.meta)
    except UnknownGame:
        typer.echo(f"table {table!r} is of an unknown game {found.meta.get('game')!r}", err=True)
        return 1
    events = found.events
    state = fold(t.game, events)
    out: dict[str, Any] = {"table": table, "game": t.game.name, "version": len(events), "source": found.source}
    ok = True
    if state is None:
        out["status"] = "waiting"
    else:
        r = t.game.result(state)
        out["status"] = "finished" if r else "playing"
        out["result"] = r.to_json() if r else None
        out["away"] = sorted(away_after(events))
        if found.record is not None:
            from services.archive.model import log_digest

            rec = found.record
            result = json.loads(json.dumps(out["result"]))
            check = {"events": rec.summary.events, "digest_matches": log_digest(rec.log) == rec.digest,
                     "result_matches": result == rec.summary.result}
            out["archive"] = check
            ok = check["digest_matches"] and check["result_matches"] and rec.summary.events == len(events)
        elif found.store is not None:
            blob = await found.store.load_snapshot(table)
            if blob is not None:
                v, snap = snapshot.unpack(blob, loader=lambda o: o)
                head = events[:v]
                again = fold(t.game, head)
                same = (isinstance(snap, dict) and "game" in snap
                        and msgpack.packb(t.game.snapshot(again)) == msgpack.packb(snap["game"])
                        and sorted(away_after(head)) == list(snap.get("away", ()))
                        and sorted(left_after(head)) == list(snap.get("left", ()))
                        and (head[-1].ts if head else 0) == snap.get("last_ts"))
                out["snapshot"] = {"version": v, "matches_replay": same}
                ok = same
    typer.echo(json.dumps(out, indent=2))
    return 0 if ok else 3


def public_meta(meta: dict[str, str]) -> dict[str, str]:
    """A table's meta with every seat token hash replaced by ``person``."""
    return {k: (v if not v.startswith("tok:") else "person") for k, v in meta.items()}


async def export_table(settings: Settings, table: str, out: IO[str], *, archive_url: str | None = None) -> int:
    """Write ``table``'s whole log to ``out`` (a text file) as JSON lines:
    first ``{"table", "meta"}`` (seat token hashes replaced by ``person``),
    then one line per event ``{"version", "type", "data", "seat", "ts",
    "cmd"}``; the same lines whether the table is in Redis or archived.
    The log is not redacted: it holds every hidden card (an operator's
    copy).  Returns the exit code (0 ok, 1 unknown table or a store
    unreachable)."""
    try:
        found = await find_table(settings, table, archive_url)
    except SourceError as exc:
        typer.echo(str(exc), err=True)
        return exc.code
    out.write(json.dumps({"table": table, "meta": public_meta(found.meta)}, separators=(",", ":")) + "\n")
    for version, e in enumerate(found.events, 1):
        out.write(json.dumps({"version": version, **e.to_json()}, separators=(",", ":")) + "\n")
    return 0


def game_line(rec: ArchivedGame) -> dict[str, Any]:
    """One archived game as a line of the bulk export: its summary as
    ``GET /history`` gives it (:func:`services.history.game_json`), with
    ``events`` the whole log, unredacted (``{"version", "type", "data",
    "seat", "ts", "cmd"}`` each) instead of its length.  No meta, no token
    hash."""
    line = game_json(rec.summary)
    line["events"] = [{"version": v, **decode(raw).to_json()} for v, raw in enumerate(rec.log, 1)]
    return line


def _parquet_schema(pa: Any) -> Any:
    """The bulk export's Parquet columns: one row a game; options, result
    and each event's data as JSON text; times as UTC timestamps (ms)."""
    ts = pa.timestamp("ms", tz="UTC")
    seat = pa.struct([("seat", pa.int32()), ("name", pa.string()), ("kind", pa.string()),
                      ("strategy", pa.string()), ("place", pa.int32()), ("score", pa.float64())])
    event = pa.struct([("version", pa.int32()), ("type", pa.string()), ("data", pa.string()),
                       ("seat", pa.int32()), ("ts", ts), ("cmd", pa.string())])
    return pa.schema([("table", pa.string()), ("game", pa.string()), ("players", pa.int32()),
                      ("options", pa.string()), ("seats", pa.list_(seat)), ("winners", pa.list_(pa.int32())),
                      ("result", pa.string()), ("created", ts), ("started", ts), ("ended", ts),
                      ("events", pa.list_(event))])


def _parquet_row(line: dict[str, Any]) -> dict[str, Any]:
    def text(v: Any) -> str | None:
        return None if v is None else json.dumps(v, separators=(",", ":"), ensure_ascii=False)

    return {"table": line["table"], "game": line["game"], "players": line["players"],
            "options": text(line["options"]), "seats": line["seats"], "winners": line["winners"],
            "result": text(line["result"]), "created": line["created_ms"], "started": line["started_ms"],
            "ended": line["ended_ms"],
            "events": [{**e, "data": text(e["data"])} for e in line["events"]]}


class _Writer:
    """Where the bulk export goes: JSON lines to a text stream, or Parquet
    row groups to a file."""

    def __init__(self, path: Path | None, stdout: IO[str]) -> None:
        self.path = path
        self.parquet = path is not None and path.suffix.lower() == ".parquet"
        self.rows: list[dict[str, Any]] = []
        if self.parquet:
            pa, pq = pyarrow()
            assert path is not None
            self.pa = pa
            self.schema = _parquet_schema(pa)
            self.pq_writer = pq.ParquetWriter(str(path), self.schema, compression="zstd")
        else:
            self.stream = path.open("w", encoding="utf-8") if path is not None else stdout

    def write(self, line: dict[str, Any]) -> None:
        if self.parquet:
            self.rows.append(_parquet_row(line))
            if len(self.rows) >= PARQUET_GROUP:
                self._flush()
        else:
            self.stream.write(json.dumps(line, separators=(",", ":"), ensure_ascii=False) + "\n")

    def _flush(self) -> None:
        if self.rows:
            self.pq_writer.write_table(self.pa.Table.from_pylist(self.rows, schema=self.schema))
            self.rows = []

    def close(self) -> None:
        if self.parquet:
            self._flush()
            self.pq_writer.close()
        elif self.path is not None:
            self.stream.close()
        else:
            self.stream.flush()


def pyarrow() -> tuple[Any, Any]:
    """``(pyarrow, pyarrow.parquet)``; raises :class:`SourceError` (code 2)
    when pyarrow is not installed."""
    try:
        import pyarrow as pa  # type: ignore[import-untyped]
        import pyarrow.parquet as pq  # type: ignore[import-untyped]
    except ImportError:
        raise SourceError("writing Parquet needs pyarrow: pip install 'tapis[parquet]' (or write .jsonl)",
                          code=2) from None
    return pa, pq


@dataclass
class Progress:
    """The progress of a bulk export, drawn on stderr (rich)."""

    enabled: bool = True

    def __post_init__(self) -> None:
        self.bar: Any = None
        self.task: Any = None

    def __enter__(self) -> Progress:
        from rich.console import Console

        console = Console(stderr=True)
        if self.enabled and console.is_terminal:  # drawn for a person, not into a log file
            from rich.progress import Progress as RichProgress
            from rich.progress import SpinnerColumn, TextColumn, TimeElapsedColumn

            self.bar = RichProgress(SpinnerColumn(), TextColumn("exporting archived games: {task.completed:,}"),
                                    TimeElapsedColumn(), console=console, transient=True)
            self.bar.__enter__()
            self.task = self.bar.add_task("export", total=None)
        return self

    def advance(self) -> None:
        if self.bar is not None:
            self.bar.update(self.task, advance=1)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)


def _size(n: int) -> str:
    return f"{n / 1024:,.0f} KiB" if n < 1024 * 1024 else f"{n / 1024 / 1024:,.1f} MiB"


def export_games(archive_url: str, out: Path | None, *, game: str, since_ms: int | None = None,
                 until_ms: int | None = None, stdout: IO[str] | None = None, progress: bool = True) -> int:
    """Write every archived game of ``game`` that ended in ``[since_ms,
    until_ms)`` (ms since the epoch), oldest first, to ``out``: JSON lines
    (:func:`game_line`, one game a line), or Parquet when ``out`` ends with
    ``.parquet`` (one row a game, :func:`_parquet_schema`); to ``stdout``
    (default ``sys.stdout``) as JSON lines when ``out`` is None.  Shows a
    progress indicator and ends with the count on stderr.  Returns the exit
    code: 0 ok (also for no game), 1 the archive is missing or unreachable
    (a partial file is removed), 2 Parquet without pyarrow or a bad URL."""
    import asyncio

    from services.archive.db import ArchiveUnavailable

    try:
        if out is not None and out.suffix.lower() == ".parquet":
            pyarrow()
        archive = open_archive(archive_url)
    except SourceError as exc:
        typer.echo(str(exc), err=True)
        return exc.code
    if archive is None:
        typer.echo(f"no archive at {safe_url(archive_url)} (nothing archived there yet)", err=True)
        return 1
    t0 = time.perf_counter()
    writer = _Writer(out, stdout or sys.stdout)

    async def copy() -> int:
        n = 0
        try:
            with Progress(progress) as shown:
                async for rec in archive.iter_games(game=game, since_ms=since_ms, until_ms=until_ms):
                    writer.write(game_line(rec))
                    n += 1
                    shown.advance()
        finally:
            await archive.close()
        return n

    try:
        n = asyncio.run(copy())
    except ArchiveUnavailable as exc:
        writer.close()
        if out is not None:
            out.unlink(missing_ok=True)
        typer.echo(f"tapis export: the archive cannot be read: {exc}", err=True)
        return 1
    writer.close()
    where = str(out) if out is not None else "standard output"
    size = f", {_size(out.stat().st_size)}" if out is not None else ""
    typer.echo(f"{n:,} {'game' if n == 1 else 'games'} of {game} written to {where}{size}"
               f" in {time.perf_counter() - t0:.1f} s", err=True)
    return 0
