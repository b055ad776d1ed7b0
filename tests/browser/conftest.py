"""Fixtures of the browser tests: a ``tapis serve`` on its own port over an
embedded store the test can read (the true events, unredacted), and
Debian's Chromium driven by Playwright (``TAPIS_CHROMIUM``, default
``/usr/bin/chromium``: Playwright's own browser download is not used).
The tests skip when either is missing."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from services.store import keys
from shared.engine import fold
from shared.events import Event, decode
from shared.games import get_game

CHROMIUM = os.environ.get("TAPIS_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


@dataclass
class Web:
    """The service under test: its URL, an HTTP client and the table logs."""

    base: str
    client: httpx.Client
    read_events: Callable[[str], list[Event]]

    def truth(self, table: str) -> tuple[Any, Any, list[Event]]:
        """(game, state folded from the table's whole log, the events)."""
        info = self.client.get(f"/tables/{table}").json()
        game = get_game(info["game"])
        events = self.read_events(table)
        return game, fold(game, events), events


@pytest.fixture(scope="module")
def web() -> Iterator[Web]:
    """``tapis serve`` (gateway, worker, in-process bots) on a free port,
    over a fakeredis server this fixture keeps a handle on."""
    from fakeredis import FakeRedis, FakeServer
    from fakeredis.aioredis import FakeRedis as AsyncFakeRedis

    from services.config import Settings
    from services.demo import start_embedded

    server = FakeServer()
    base, srv = start_embedded(settings=Settings(redis_url=None, bot_delay_ms=30), redis=AsyncFakeRedis(server=server))
    sync = FakeRedis(server=server)

    def read_events(table: str) -> list[Event]:
        return [decode(fields[b"e"]) for _id, fields in sync.xrange(keys.events(table))]

    with httpx.Client(base_url=base, timeout=30) as client:
        yield Web(base, client, read_events)
    srv.should_exit = True
    for _ in range(200):  # until the server has let its port go
        try:
            httpx.get(base + "/healthz", timeout=0.5)
        except httpx.HTTPError:
            break
        time.sleep(0.05)


@pytest.fixture(scope="module")
def chromium():
    """A headless Chromium (Debian's) for the module."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield browser
        browser.close()


@dataclass
class Tab:
    """A page and what went wrong in it: console errors and uncaught exceptions."""

    page: Any
    errors: list[str] = field(default_factory=list)


@pytest.fixture
def browse(chromium):
    """``browse(width=1280, height=800, context=None)`` -> a :class:`Tab` in
    a fresh browser context (its own localStorage) unless ``context`` is
    given; every console error and page error is recorded on the tab."""
    contexts = []

    def open_tab(width: int = 1280, height: int = 800, context=None, locale: str = "en-US") -> Tab:
        if context is None:
            context = chromium.new_context(viewport={"width": width, "height": height}, locale=locale)
            contexts.append(context)
        tab = Tab(context.new_page())
        tab.page.on("console", lambda m: tab.errors.append(f"console: {m.text}") if m.type == "error" else None)
        tab.page.on("pageerror", lambda e: tab.errors.append(f"pageerror: {e}"))
        tab.page.set_default_timeout(20_000)
        return tab

    yield open_tab
    for c in contexts:
        c.close()
