"""A scripted HTTP client of the gateway (httpx) and read-only looks at
the store (redis) for the end-to-end tests."""

from __future__ import annotations

import random
import re
import time
from dataclasses import dataclass
from typing import Any, cast

import httpx
import redis

from services.store import keys
from services.store.store import record_field
from shared.events import Event, decode

PROBLEM = "application/problem+json"


# Key names come from the store itself, so the tests follow any change.
events_key = keys.events
meta_key = keys.meta
cmds_key = keys.cmds


def command_record(r: redis.Redis, table: str, command_id: str) -> bytes | None:
    """The raw outcome record of ``command_id`` in the table's cmds hash,
    or None."""
    return cast("bytes | None", r.hget(cmds_key(table), record_field(command_id)))


def applied_range(r: redis.Redis, table: str, command_id: str) -> tuple[int, int] | None:
    """The versions ``(first, last)`` of the events command ``command_id``
    appended, read from its outcome record in the table's cmds hash
    (``<first> <last> ...``), or None when no applied outcome is recorded
    (never seen, or refused).  Only the record's documented prefix is read;
    later fields may vary."""
    raw = command_record(r, table, command_id)
    if raw is None:
        return None
    parts = raw.decode().split(" ")
    return int(parts[0]), int(parts[1])


#: Command ids as the service stores them (services/gateway/routes_tables.py,
#: services/bots/turn.py): a client's ``command_id`` is scoped to its seat.
START_COMMAND = "start"
BOT_COMMAND = re.compile(r"b(?P<seat>\d+)\.(?P<version>\d+)")


def seat_command_id(seat: int, command_id: str) -> str:
    """The stored id of a client ``command_id`` sent by ``seat`` (``u<seat>.<id>``)."""
    return f"u{seat}.{command_id}"


def assert_problem(resp: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """Assert ``resp`` is an RFC 9457 problem with HTTP ``status`` and
    ``code``; returns the body."""
    assert resp.status_code == status, f"expected {status} {code}, got {resp.status_code}: {resp.text}"
    assert resp.headers["content-type"].split(";")[0] == PROBLEM, resp.headers["content-type"]
    body = resp.json()
    assert body["code"] == code, body
    assert body["status"] == status, body
    assert body["type"] == f"urn:tapis:error:{code}", body
    assert isinstance(body["detail"], str) and body["detail"], body
    return body


@dataclass(frozen=True)
class LogState:
    """What must not change when an action is refused: the version in the
    meta hash, the version the gateway serves, and the raw event log."""

    meta_version: int
    served_version: int
    entries: tuple


def log_state(r: redis.Redis, http: httpx.Client, table: str) -> LogState:
    """Snapshot of :class:`LogState` for ``table``."""
    meta_version = int(r.hget(meta_key(table), "version"))
    served = http.get(f"/tables/{table}").json()["version"]
    entries = tuple((eid, tuple(sorted(f.items()))) for eid, f in r.xrange(events_key(table)))
    return LogState(meta_version, served, entries)


def raw_events(r: redis.Redis, table: str) -> list[tuple[int, Event]]:
    """The table's log as ``(version, event)`` pairs read straight from the
    stream; the version is the entry id's first part (ids are ``<version>-0``)."""
    out = []
    for eid, fields in r.xrange(events_key(table)):
        ms, _, seq = eid.decode().partition("-")
        assert seq == "0", f"entry id {eid!r} is not <version>-0"
        out.append((int(ms), decode(fields[b"e"])))
    return out


def assert_log_contiguous(r: redis.Redis, table: str) -> list[tuple[int, Event]]:
    """Assert the log's versions are exactly 1..N with N = meta version; returns the log."""
    log = raw_events(r, table)
    versions = [v for v, _ in log]
    assert versions == list(range(1, len(log) + 1)), f"gaps or duplicates in versions of {table}: {versions[:20]}..."
    assert int(r.hget(meta_key(table), "version")) == len(log)
    return log


class Api:
    """Thin helpers over the gateway's HTTP API."""

    def __init__(self, http: httpx.Client) -> None:
        self.http = http
        self.rate_limited = 0  # 429 answers waited out by ``act``

    def create(self, game: str, players: int, bots: dict[int, str] | None = None,
               options: dict[str, Any] | None = None) -> dict[str, Any]:
        """``POST /tables``; asserts 201 and returns the table info."""
        resp = self.http.post("/tables", json={"game": game, "players": players,
                                               "bots": {str(k): v for k, v in (bots or {}).items()},
                                               "options": options or {}})
        assert resp.status_code == 201, resp.text
        return resp.json()

    def join(self, table: str, seat: int | None = None) -> dict[str, Any]:
        """``POST /tables/{T}/join``; asserts 200 and returns seat + token."""
        resp = self.http.post(f"/tables/{table}/join", json={"seat": seat, "name": "e2e"})
        assert resp.status_code == 200, resp.text
        return resp.json()

    def table(self, table: str) -> dict[str, Any]:
        """``GET /tables/{T}``; asserts 200."""
        resp = self.http.get(f"/tables/{table}")
        assert resp.status_code == 200, resp.text
        return resp.json()

    def view(self, table: str, token: str | None = None) -> dict[str, Any]:
        """``GET /tables/{T}/view`` with the seat token; asserts 200."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        resp = self.http.get(f"/tables/{table}/view", headers=headers)
        assert resp.status_code == 200, resp.text
        return resp.json()

    def act(self, table: str, token: str | None, action: dict[str, Any], *, expected: int | None = None,
            command_id: str | None = None) -> httpx.Response:
        """``POST /tables/{T}/actions``; returns the raw response.

        Behaves as a polite client: a 429 ``rate_limited`` answer (nothing
        was applied) is retried after its ``Retry-After`` seconds, up to
        five times, with the same body and command id."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        body: dict[str, Any] = {"action": action}
        if expected is not None:
            body["expected_version"] = expected
        if command_id is not None:
            body["command_id"] = command_id
        for _ in range(5):
            resp = self.http.post(f"/tables/{table}/actions", json=body, headers=headers)
            if resp.status_code != 429:
                return resp
            self.rate_limited += 1
            time.sleep(float(resp.headers.get("Retry-After", "1")))
        return resp

    def wait_started(self, table: str, token: str, timeout_s: float = 10) -> dict[str, Any]:
        """Poll the seat view until the game has started; returns the view."""
        deadline = time.monotonic() + timeout_s
        while True:
            v = self.view(table, token)
            if v["status"] != "waiting":
                return v
            assert time.monotonic() < deadline, f"table {table} did not start"
            time.sleep(0.02)

    def wait_finished(self, tables: list[str], timeout_s: float) -> dict[str, dict[str, Any]]:
        """Poll ``GET /tables/{T}`` until every table is finished; returns
        the infos.  Fails naming the tables still playing, with their versions."""
        deadline = time.monotonic() + timeout_s
        infos: dict[str, dict[str, Any]] = {}
        while True:
            for t in tables:
                if infos.get(t, {}).get("status") != "finished":
                    infos[t] = self.table(t)
            pending = {t: (i["game"], i["status"], i["version"]) for t, i in infos.items() if i["status"] != "finished"}
            if not pending:
                return infos
            assert time.monotonic() < deadline, f"not finished after {timeout_s:.0f} s: {pending}"
            time.sleep(0.1)


# -- Mau Mau -----------------------------------------------------------------

SUITS = "SHDC"
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
DECK = tuple(r + s for r in RANKS for s in SUITS)


def rank(card: str) -> str:
    """Rank part of a card code (``"10H"`` -> ``"10"``)."""
    return card[:-1]


def keep_jacks_policy(view: dict[str, Any], legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A Mau Mau move that keeps Jacks in hand (so the tests meet a Jack
    often): a random non-Jack play if any, else anything but a call-out,
    else a call-out.  Always one of ``legal``."""
    plays = [a for a in legal if a["type"] == "play" and rank(a["card"]) != "J"]
    if plays:
        return rng.choice(plays)
    turn_moves = [a for a in legal if a["type"] != "callout"]
    return rng.choice(turn_moves or legal)
