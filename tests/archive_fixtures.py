"""Fixtures and helpers of the archive's tests (issue 22), for any test module.

* :func:`own_database` — a throwaway PostgreSQL database ``tapis_test_<hex>``
  on the machine's server (``TAPIS_TEST_POSTGRES_URL``, default
  ``postgresql://postgres@127.0.0.1:5432/``), dropped at the end; no other
  database is touched;
* :func:`archive_url` — a fixture run once on each backend: a SQLite file in
  ``tmp_path``, then such a PostgreSQL database (skipped, saying why, when
  the server is not reachable);
* :func:`finished_game` — a real finished game played by bots
  (``shared.engine.play``) as a store would hold it: its meta hash and its
  encoded, stamped log.

tests/conftest.py imports the fixture, so ``archive_url`` needs no import.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache

import pytest

from shared.engine import Played, play
from shared.events import Event, encode
from shared.games import get_game
from shared.presence import left as seat_left

#: The PostgreSQL server the tests make their own databases on.
POSTGRES_SERVER_URL = os.environ.get("TAPIS_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/")


@cache
def postgres_missing() -> str | None:
    """Why the tests' PostgreSQL server cannot be used, or None when it can."""
    import psycopg

    try:
        with psycopg.connect(POSTGRES_SERVER_URL, connect_timeout=2, autocommit=True) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        return f"no PostgreSQL server at {POSTGRES_SERVER_URL} ({exc.__class__.__name__}: {str(exc).strip()[:120]})"
    return None


@contextmanager
def own_database(server_url: str = POSTGRES_SERVER_URL, prefix: str = "tapis_test") -> Iterator[str]:
    """Create the database ``<prefix>_<random hex>`` on ``server_url``'s
    server and yield its URL; drop it (its connections closed) at the end.
    The benches in loadtests/ use it too."""
    import psycopg
    from sqlalchemy.engine import make_url

    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, connect_timeout=5, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield make_url(server_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(server_url, connect_timeout=5, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", "postgresql"])
def archive_url(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:
    """An empty archive database's URL: a SQLite file in ``tmp_path`` (its
    directory not made yet), then a throwaway PostgreSQL database."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'archive' / 'games.db'}"
        return
    reason = postgres_missing()
    if reason is not None:
        pytest.skip(reason)
    with own_database() as url:
        yield url


@dataclass(frozen=True)
class FinishedGame:
    """A finished table as the store holds it: ``meta`` (its hash, str ->
    str) and ``log`` (the encoded events), with the bots' ``played`` game
    (its result is the expected one)."""

    table: str
    meta: dict[str, str]
    log: list[bytes]
    played: Played


def finished_game(table: str, seed: int, *, game: str = "maumau",
                  bots: Sequence[str] = ("random", "heuristic", "random", "heuristic"),
                  people: Mapping[int, str] | None = None, left: Mapping[int, int] | None = None,
                  end_ms: int = 1_780_000_000_000, step_ms: int = 900, created_ms: int | None = None,
                  stand_in: str = "heuristic") -> FinishedGame:
    """Play ``game`` to its end with ``bots[seat]`` on each seat (seeded) and
    return it as a store would hold it.  ``people``: seat -> name of the
    seats a person holds (``tok:<hash>`` in the meta; a bot still plays
    them here); ``left``: seat -> action number after which that seat's
    person left (a ``SeatLeft`` event; the meta's ``seat:<n>`` becomes
    ``bot:<stand_in>``).  Each step's events share a ``ts``, ``step_ms``
    apart, the last one at ``end_ms``; the opening's ``cmd`` is ``start``,
    an action's ``b<seat>.<version>`` (a person's ``p<seat>.<version>``)."""
    people = dict(people or {})
    left = dict(left or {})
    steps: list[list[Event]] = []
    played = play(get_game(game), list(bots), random.Random(seed), on_step=lambda _s, evs: steps.append(list(evs)))
    batches: list[tuple[list[Event], str]] = []
    for k, evs in enumerate(steps):
        version = sum(len(b) for b, _ in batches)
        seat = evs[0].seat
        cmd = "start" if k == 0 else f"{'p' if seat in people else 'b'}{seat}.{version}"
        batches.append((evs, cmd))
        for gone, after in left.items():
            if after == k:
                batches.append(([seat_left(gone, stand_in)], f"l{gone}"))
    first_ms = end_ms - (len(batches) - 1) * step_ms
    log = [encode(e.stamped(first_ms + k * step_ms, cmd)) for k, (evs, cmd) in enumerate(batches) for e in evs]
    meta = {
        # as the gateway stores them: every option, defaults included
        "game": game, "players": str(len(bots)),
        "options": json.dumps(get_game(game).Options().model_dump(mode="json"), separators=(",", ":")),
        "version": str(len(log)), "status": "finished",
        "created": str(first_ms - 5_000 if created_ms is None else created_ms), "stand_in": stand_in,
    }
    for n, strategy in enumerate(bots):
        if n in left:
            meta[f"seat:{n}"] = f"bot:{stand_in}"
        elif n in people:
            meta[f"seat:{n}"] = "tok:" + hashlib.sha256(f"{table}/{n}".encode()).hexdigest()
        else:
            meta[f"seat:{n}"] = f"bot:{strategy}"
        meta[f"name:{n}"] = people.get(n, f"bot {n}")
    return FinishedGame(table, meta, log, played)
