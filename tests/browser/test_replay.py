"""The replay page (/replay/{T}, replay.js) in a real Chromium: a finished
all-bot game of each of the five games stepped through move by move, from
the spectator's place (the arrow keys) and from a seat (the ▶ button),
every step checked against the truth: the log read from the store itself
(unredacted) and folded to the version the page shows. At every step no
card of another seat's hand, of the talon or deck, and no secret word not
yet revealed is on the page (its text, labels and card elements), and the
seat's own hand is there, whole; the spectator's page has no hand. The
slider, Home and End, ◀, the seat picker and a shared URL are used once
each, and the result shows at the last move only.

Every check reads the page's version and everything it shows in one
``evaluate`` (:data:`SNAPSHOT`), so a check can only fail on a real leak
(/work/shared/cases: a hiding check that races the page)."""

from __future__ import annotations

import re
import time
from collections import Counter
from typing import Any

import pytest

from services.gateway.routes_replay import move_ends
from shared.engine import fold
from shared.events import Event
from shared.games import get_game
from shared.games.maudit_mot_dit.state import Phase, candidates
from shared.presence import feed
from tests.browser.test_boards_maudix_dix import dix_public, maudix_known, maudix_label, maudix_short
from tests.browser.test_boards_mauw_mmd import fits_a_phone, mauw_public
from tests.browser.test_web_client import label, screenshot, short

pytestmark = pytest.mark.browser

#: Each game, its seats, small options (short games) and its bots' strategy.
GAMES = {
    "maumau": (3, {"hand_size": 3, "target_score": 20}, "heuristic"),
    "maudix": (3, {"contracts": ["association"]}, "heuristic"),
    "dix": (2, {}, "heuristic"),
    "mauw": (2, {}, "heuristic"),
    "maudit_mot_dit": (3, {"trips": 1}, "random"),
}

#: The seat a replay is seen from besides the spectator's.
SEAT = 1

#: Everything a check needs, read in one step: the version shown and all the page shows for it.
SNAPSHOT = """() => {
  const main = document.querySelector('main');
  const cards = (sel) => [...main.querySelectorAll(sel)].map((e) => e.dataset.card);
  const result = main.querySelector('#result');
  return {
    version: Number(document.body.dataset.version), seat: document.body.dataset.seat, search: location.search,
    text: main.innerText,
    attrs: [...main.querySelectorAll('*')].flatMap((el) => ['aria-label', 'title', 'data-card', 'data-word', 'value']
      .map((a) => el.getAttribute(a)).filter(Boolean)).concat([...main.querySelectorAll('input')].map((i) => i.value)),
    cards: cards('[data-card]'), board: cards('#board [data-card]'), hand: cards('#actions #hand [data-card]'),
    hand_shown: Boolean(main.querySelector('#actions:not([hidden]) #hand')),
    candidates_shown: Boolean(main.querySelector('#candidates')),
    secret: main.querySelector('#secret')?.innerText ?? '',
    move: [...main.querySelectorAll('#move-events li')].map((li) => li.textContent),
    position: main.querySelector('#position').textContent,
    result: result.hidden ? null
      : [...result.querySelectorAll('tbody tr')].map((r) => [...r.cells].map((c) => c.textContent)),
  };
}"""


def snapshot(page) -> dict[str, Any]:
    """The page as it is now, version and content together (one ``evaluate``)."""
    snap = page.evaluate(SNAPSHOT)
    snap["all"] = snap["text"] + "\n" + "\n".join(snap["attrs"])
    return snap


def strings(data: Any) -> set[str]:
    """Every string in ``data`` (the cards and words an event names)."""
    if isinstance(data, str):
        return {data}
    if isinstance(data, dict):
        return set().union(*map(strings, data.values())) if data else set()
    if isinstance(data, list | tuple):
        return set().union(*map(strings, data)) if data else set()
    return set()


def shows_word(text: str, word: str) -> bool:
    """``word``, whole, anywhere in ``text``."""
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text, re.IGNORECASE) is not None


# ---------------------------------------------------------------------------
# The truth at a version, game by game: what the page must not show, and must
# ---------------------------------------------------------------------------


def check_cards(snap, hidden: set[str], names) -> int:
    """No card of ``hidden`` on the page: not as a card element, nor in its words (``names(code)``)."""
    for card in hidden:
        assert card not in snap["cards"], card
        for text in names(card):
            assert text not in snap["all"], (card, text)
    return len(hidden)


def check_hand(snap, state, seat: int | None) -> None:
    """The seat's hand, whole, and only it; no hand at all for the spectator."""
    if seat is None:
        assert not snap["hand_shown"] and snap["hand"] == []
    else:
        assert snap["hand_shown"] and Counter(snap["hand"]) == Counter(state.hands[seat])


def check_maumau(snap, state, events, seat, seen) -> int:
    others = {c for s, hand in enumerate(state.hands) if s != seat for c in hand} | set(state.talon)
    check_hand(snap, state, seat)
    return check_cards(snap, others - seen, lambda c: (label(c), short(c)))


def check_maudix(snap, state, events, seat, seen) -> int:
    others = {c for s, hand in enumerate(state.hands) if s != seat for c in hand} | set(state.removed)
    known = maudix_known(state, events, seat) if seat is not None else set()
    check_hand(snap, state, seat)
    return check_cards(snap, others - known - seen, lambda c: (maudix_label(c), maudix_short(c)))


def check_dix(snap, state, events, seat, seen) -> int:
    # the board shows exactly the cards on the table, and no other card is on the page: never one of the deck
    assert Counter(snap["board"]) == dix_public(state)
    assert Counter(snap["cards"]) == dix_public(state)
    assert not snap["hand_shown"]  # no hands in DIX
    return len(state.deck)


def check_mauw(snap, state, events, seat, seen) -> int:
    # the board shows exactly the cards on the table (each Mauw as a back); besides, only the seat's own hand
    assert Counter(snap["board"]) == mauw_public(state)
    check_hand(snap, state, seat)
    assert Counter(snap["cards"]) == mauw_public(state) + Counter(snap["hand"])
    for line in snap["move"]:  # another seat's draw is told as a number of cards
        if " draws " in line and (seat is None or not line.startswith(f"heuristic bot {seat} ")):
            assert re.search(r" draws (\d+) cards?\.$", line), line
    others = sum(len(h) for s, h in enumerate(state.hands) if s != seat)
    return others + len(state.talon) + max(0, len(state.discard) - 1)


def check_mmd(snap, state, events, seat, seen) -> int:
    """The candidate words and the secret only on the active player's page, while the turn is played."""
    if state.phase is Phase.OVER or state.right is None:
        return 0
    words = [c["word"] for c in candidates(state)]
    if seat == state.active:
        if state.choice is not None:
            assert shows_word(snap["secret"], words[state.choice])
        return 0
    assert not snap["candidates_shown"]
    public = set(state.clues) | {p[2] for p in state.proposals} | strings(state.last) | seen
    if seat is not None and seat in state.sealed:
        public.add(state.sealed[seat])
    hidden = [w for w in words if w not in public]
    for word in hidden:
        assert not shows_word(snap["all"], word), word
    return len(hidden)


CHECKS = {"maumau": check_maumau, "maudix": check_maudix, "dix": check_dix, "mauw": check_mauw,
          "maudit_mot_dit": check_mmd}


# ---------------------------------------------------------------------------
# The tables and the stepping
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def finished(web) -> dict[str, str]:
    """One finished all-bot table of each game (played side by side): game -> table."""
    tables = {}
    for game, (players, options, strategy) in GAMES.items():
        r = web.client.post("/tables", json={"game": game, "players": players, "options": options,
                                             "bots": {str(s): strategy for s in range(players)},
                                             "turn_seconds": None})
        assert r.status_code == 201, r.text
        tables[game] = r.json()["id"]
    deadline = time.monotonic() + 240
    for game, table in tables.items():
        while web.client.get(f"/tables/{table}").json()["status"] != "finished":
            assert time.monotonic() < deadline, f"the {game} table did not finish"
            time.sleep(0.1)
    return tables


class Replay:
    """A replay page of one table, checked at each step against the table's true log."""

    def __init__(self, web, tab, game: str, table: str, seat: int | None) -> None:
        self.tab, self.page, self.game, self.table, self.seat = tab, tab.page, game, table, seat
        self.g = get_game(game)
        self.events: list[Event] = web.read_events(table)  # the truth: the store's own log, unredacted
        self.ends = move_ends(self.events)
        self.hidden = 0  # how many hidden cards or words were looked for, in all

    def check(self) -> dict[str, Any]:
        """Read the page once and check what it shows against the truth at the version it shows."""
        snap = snapshot(self.page)
        version = snap["version"]
        i = self.ends.index(version)  # the page shows the end of a move, never a position inside one
        before = self.ends[i - 1] if i else 0
        head = self.events[:version]
        state = fold(self.g, head)
        move = feed(self.g, self.events[before:version], self.seat, first_version=before + 1)
        seen = set().union(*(strings(e.data) for _v, e in move)) if move else set()
        self.hidden += CHECKS[self.game](snap, state, head, self.seat, seen)
        assert snap["position"] == f"Move {i + 1} of {len(self.ends)} (version {version})"
        assert snap["move"] and all(line.strip() for line in snap["move"])  # the move in words
        assert snap["seat"] == ("" if self.seat is None else str(self.seat))
        assert snap["search"] == (f"?at={version}" if self.seat is None else f"?seat={self.seat}&at={version}")
        if version == len(self.events):  # the result at the end, and only there
            result = self.g.result(state)
            assert result is not None and snap["result"] is not None
            assert sorted(int(row[0]) for row in snap["result"]) == sorted(result.places)
        else:
            assert snap["result"] is None
        return snap

    def step(self, press) -> dict[str, Any]:
        """``press()`` (a key, a click), wait until the page shows another version, check it."""
        before = self.page.evaluate("document.body.dataset.version")
        press()
        self.page.wait_for_function("v => document.body.dataset.version !== v", arg=before)
        return self.check()

    def through(self, press) -> list[int]:
        """From the first move to the last with ``press``, checking every step; the versions shown."""
        shown = [self.check()["version"]]
        while shown[-1] != self.ends[-1]:
            shown.append(self.step(press)["version"])
        return shown


def open_replay(web, browse, game: str, table: str, seat: int | None, at: int | None = None):
    tab = browse()
    query = "&".join(f"{k}={v}" for k, v in (("seat", seat), ("at", at)) if v is not None)
    tab.page.goto(f"{web.base}/replay/{table}" + (f"?{query}" if query else ""))
    tab.page.wait_for_selector("body[data-version]")
    return Replay(web, tab, game, table, seat)


@pytest.mark.parametrize("game", list(GAMES))
def test_a_finished_game_replays_move_by_move_with_no_hidden_card(web, browse, finished, game):
    table = finished[game]
    # the spectator, by the keyboard: every move from the first to the last
    spec = open_replay(web, browse, game, table, None)
    assert spec.page.evaluate("document.body.dataset.version") == str(spec.ends[0])  # opens at the first move
    assert spec.through(lambda: spec.page.keyboard.press("ArrowRight")) == list(spec.ends)
    spec.step(lambda: spec.page.keyboard.press("Home"))
    # a seat, by the ▶ button: every move again
    seat = open_replay(web, browse, game, table, SEAT)
    assert seat.through(lambda: seat.page.click("#next")) == list(seat.ends)
    back = seat.step(lambda: seat.page.click("#prev"))
    assert back["version"] == seat.ends[-2]
    assert seat.step(lambda: seat.page.click("#first"))["version"] == seat.ends[0]
    # the slider, once: halfway
    half = len(seat.ends) // 2
    snap = seat.step(lambda: seat.page.eval_on_selector(
        "#slider", "(el, v) => { el.value = String(v); el.dispatchEvent(new Event('input', {bubbles: true})); }", half))
    assert snap["version"] == seat.ends[half]
    if game == "maudix":  # docs/screenshots/replay.png: a seat's hand and écart halfway through
        screenshot(seat.tab, "replay")
    # End, then the seat picker: the spectator at the same move
    seat.step(lambda: seat.page.keyboard.press("End"))
    seat.page.select_option("#seat-pick", "")
    seat.page.wait_for_function("() => document.body.dataset.seat === ''")
    seat.seat = None
    assert seat.check()["version"] == seat.ends[-1]
    # a shared URL opens at its position, from its seat
    middle = open_replay(web, browse, game, table, SEAT, at=seat.ends[half])
    assert middle.check()["version"] == seat.ends[half]
    assert spec.hidden + seat.hidden > 0  # something was hidden, and looked for
    for replay in (spec, seat, middle):
        assert replay.tab.errors == []


def test_the_play_page_of_a_finished_game_links_to_its_replay_in_english_and_french(web, browse, finished):
    tab = browse()
    page = tab.page
    table = finished["maumau"]
    page.goto(f"{web.base}/play/{table}")
    link = page.wait_for_selector("#result a[href^='/replay/']")
    assert link.get_attribute("href") == f"/replay/{table}" and link.inner_text() == "Replay"
    link.click()
    page.wait_for_selector("body[data-version]")
    assert page.url == f"{web.base}/replay/{table}?at={move_ends(web.read_events(table))[0]}"
    assert page.inner_text("#controls-h") == "Replay" and page.inner_text("#position").startswith("Move 1 of ")
    page.select_option("#lang", "fr")  # the same step, in French: the controls and the move in words
    assert page.inner_text("#controls-h") == "Revoir la partie"
    assert page.inner_text("#position").startswith("Coup 1 sur ")
    assert page.inner_text("#move-events").startswith("La partie commence.")
    assert page.get_attribute("#next", "aria-label") == "Coup suivant"
    assert fits_a_phone(tab)
    assert tab.errors == []


def test_a_table_in_play_has_no_replay_yet(web, browse):
    table = web.client.post("/tables", json={"game": "maumau", "players": 2, "bots": {"1": "heuristic"},
                                             "turn_seconds": None}).json()["id"]
    tab = browse()
    tab.page.goto(f"{web.base}/replay/{table}")
    tab.page.wait_for_function("() => document.getElementById('error').textContent !== ''")
    assert "not over" in tab.page.inner_text("#error")
    assert tab.page.locator("#controls").is_hidden() and tab.page.locator("#board [data-card]").count() == 0
