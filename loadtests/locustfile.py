"""Locust scenario for Tapis (issue 7): players and spectators.

* :class:`Player` — creates a table with one human seat (itself) and bot
  seats, joins it, then polls its view and plays a random legal action
  (with ``expected_version``) whenever it is awaited; browses the lobby
  now and then; opens a new table when its game ends.
* :class:`Spectator` — picks a table in play from the lobby and follows
  its SSE stream ``/tables/{T}/stream`` for a while; every event received
  is reported as an ``SSE`` request whose "response time" is the gap
  since the previous event (or since the stream opened).

Needs ``pip install locust`` (not a dependency of Tapis). Run headless::

    tapis serve --port 8000 &
    locust -f loadtests/locustfile.py --headless -u 20 -r 5 -t 20s --host http://127.0.0.1:8000

Settings (environment): ``TAPIS_LOCUST_GAME`` (maumau),
``TAPIS_LOCUST_PLAYERS`` (seats per table, 3), ``TAPIS_LOCUST_BOT``
(strategy of the bot seats, random), ``TAPIS_LOCUST_OPTIONS`` (table
options as JSON, ``{"target_score": 30}`` so that games end within a
run), ``TAPIS_LOCUST_WATCH_S`` (seconds a spectator follows one table,
10).  A 409 on an action (a bot's call-out got in first) is not a
failure: it is counted as a ``CONFLICT`` entry and the player re-reads.
"""

from __future__ import annotations

import json
import os
import random
import time

from locust import HttpUser, between, task

GAME = os.environ.get("TAPIS_LOCUST_GAME", "maumau")
PLAYERS = int(os.environ.get("TAPIS_LOCUST_PLAYERS", "3"))
BOT = os.environ.get("TAPIS_LOCUST_BOT", "random")
OPTIONS = json.loads(os.environ.get("TAPIS_LOCUST_OPTIONS", '{"target_score": 30}'))
WATCH_S = float(os.environ.get("TAPIS_LOCUST_WATCH_S", "10"))


class Player(HttpUser):
    """One person at one table (seat 0), the other seats bots."""

    weight = 4
    wait_time = between(0.05, 0.3)

    def on_start(self) -> None:
        self.table: str | None = None
        self.auth: dict[str, str] = {}
        self.rng = random.Random()
        self.new_table()

    def new_table(self) -> None:
        """Create a table (seat 0 free, the others bots) and join it."""
        self.table = None
        body = {"game": GAME, "players": PLAYERS, "options": OPTIONS,
                "bots": {str(s): BOT for s in range(1, PLAYERS)}}
        with self.client.post("/tables", json=body, name="/tables [create]", catch_response=True) as r:
            if r.status_code != 201:
                r.failure(f"create: {r.status_code} {r.text[:200]}")
                return
            tid = r.json()["id"]
        with self.client.post(f"/tables/{tid}/join", json={"seat": 0, "name": "locust"}, name="/tables/[id]/join",
                              catch_response=True) as r:
            if r.status_code != 200:
                r.failure(f"join: {r.status_code} {r.text[:200]}")
                return
            self.auth = {"Authorization": f"Bearer {r.json()['token']}"}
        self.table = tid

    @task(10)
    def play(self) -> None:
        """Read the seat's view; act when awaited; a new table once over."""
        if self.table is None:
            self.new_table()
            return
        tid = self.table
        with self.client.get(f"/tables/{tid}/view", headers=self.auth, name="/tables/[id]/view",
                             catch_response=True) as r:
            if r.status_code != 200:
                r.failure(f"view: {r.status_code} {r.text[:200]}")
                return
            v = r.json()
        if v["status"] == "finished":
            self.new_table()
            return
        legal = v["legal_actions"]
        if not legal:
            return  # a bot's turn: poll again after the wait
        body = {"action": self.rng.choice(legal), "expected_version": v["version"]}
        t0 = time.perf_counter()
        with self.client.post(f"/tables/{tid}/actions", headers=self.auth, json=body, name="/tables/[id]/actions",
                              catch_response=True) as r:
            if r.status_code == 409:
                r.success()
                self.environment.events.request.fire(
                    request_type="CONFLICT", name=r.json().get("code", "409"),
                    response_time=(time.perf_counter() - t0) * 1e3, response_length=0, exception=None, context={})
            elif r.status_code != 200:
                r.failure(f"action: {r.status_code} {r.text[:200]}")

    @task(1)
    def lobby(self) -> None:
        """Browse the lobby."""
        self.client.get(f"/tables?game={GAME}&status=playing&limit=20", name="/tables [lobby]")


class Spectator(HttpUser):
    """Follows a table in play through its SSE stream."""

    weight = 1
    wait_time = between(0.5, 1.5)

    @task
    def watch(self) -> None:
        """Pick a playing table and read its stream for ``WATCH_S`` seconds."""
        r = self.client.get(f"/tables?game={GAME}&status=playing&limit=20", name="/tables [lobby]")
        tables = r.json() if r.status_code == 200 else []
        if not tables:
            return
        tid = random.choice(tables)["id"]
        fire = self.environment.events.request.fire
        opened = last = time.perf_counter()
        try:
            with self.client.get(f"/tables/{tid}/stream", stream=True, name="/tables/[id]/stream [open]",
                                 headers={"Accept": "text/event-stream"}, timeout=(5, WATCH_S + 20),
                                 catch_response=True) as resp:
                if resp.status_code != 200:
                    resp.failure(f"stream: {resp.status_code}")
                    return
                resp.success()
                for line in resp.iter_lines(decode_unicode=True):
                    now = time.perf_counter()
                    if line and line.startswith("data:"):
                        fire(request_type="SSE", name="/tables/[id]/stream event", response_time=(now - last) * 1e3,
                             response_length=len(line), exception=None, context={})
                        last = now
                    if now - opened > WATCH_S:
                        break
        except Exception as exc:  # noqa: BLE001 - a dropped stream is a failure, not a crash
            fire(request_type="SSE", name="/tables/[id]/stream event", response_time=(time.perf_counter() - last) * 1e3,
                 response_length=0, exception=exc, context={})
