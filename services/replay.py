"""``tapis replay TABLE``: rebuild a table from its full log and print the
scores, checked against the stored snapshot when there is one."""

from __future__ import annotations

import json

import msgpack
import typer

from services.config import Settings
from services.runtime import make_redis
from services.store.store import EventStore
from services.store.tables import parse_meta
from shared import snapshot
from shared.engine import fold
from shared.games import UnknownGame
from shared.presence import away_after, left_after


async def replay_table(settings: Settings, table: str) -> int:
    """Fold every event of ``table`` from nothing and print version, status
    and the result as JSON.  Returns the exit code (0 ok, 1 unknown table
    or game, 3 the snapshot disagrees with the replay)."""
    store = EventStore(make_redis(settings))
    meta = await store.meta(table)
    if meta is None:
        typer.echo(f"no table {table!r}", err=True)
        return 1
    try:
        t = parse_meta(table, meta)
    except UnknownGame:
        typer.echo(f"table {table!r} is of an unknown game {meta.get('game')!r}", err=True)
        return 1
    events = await store.read(table)
    state = fold(t.game, events)
    out = {"table": table, "game": t.game.name, "version": len(events)}
    if state is None:
        out["status"] = "waiting"
    else:
        r = t.game.result(state)
        out["status"] = "finished" if r else "playing"
        out["result"] = r.to_json() if r else None
        out["away"] = sorted(away_after(events))
        blob = await store.load_snapshot(table)
        if blob is not None:
            v, snap = snapshot.unpack(blob, loader=lambda o: o)
            head = events[:v]
            check = fold(t.game, head)
            same = (isinstance(snap, dict) and "game" in snap
                    and msgpack.packb(t.game.snapshot(check)) == msgpack.packb(snap["game"])
                    and sorted(away_after(head)) == list(snap.get("away", ()))
                    and sorted(left_after(head)) == list(snap.get("left", ()))
                    and (head[-1].ts if head else 0) == snap.get("last_ts"))
            out["snapshot"] = {"version": v, "matches_replay": same}
            if not same:
                typer.echo(json.dumps(out, indent=2))
                return 3
    typer.echo(json.dumps(out, indent=2))
    return 0


async def export_table(settings: Settings, table: str, out) -> int:
    """Write ``table``'s whole log to ``out`` (a text file) as JSON lines:
    first ``{"table", "meta"}`` (seat tokens left out), then one line per
    event ``{"version", "type", "data", "seat", "ts", "cmd"}``.  The log is
    not redacted: it holds every hidden card (an operator's copy, e.g.
    before a finished table's retention runs out).  Returns the exit code
    (0 ok, 1 unknown table)."""
    store = EventStore(make_redis(settings))
    meta = await store.meta(table)
    if meta is None:
        typer.echo(f"no table {table!r}", err=True)
        return 1
    public = {k: (v if not v.startswith("tok:") else "person") for k, v in meta.items()}
    out.write(json.dumps({"table": table, "meta": public}, separators=(",", ":")) + "\n")
    after = 0
    while True:
        events = await store.read(table, after=after, count=1000)
        for version, e in enumerate(events, after + 1):
            out.write(json.dumps({"version": version, **e.to_json()}, separators=(",", ":")) + "\n")
        if len(events) < 1000:
            break
        after += len(events)
    return 0
