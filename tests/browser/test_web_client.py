"""The web client in a real Chromium: a whole Mau Mau game played by
clicking from the lobby, a reload that keeps the seat, a spectator's page
that holds no hidden card (checked against the table's true state, folded
from its real events), every game's table page, and the lobby's games
with their seat ranges and rules summaries in the page's language (with
screenshots in docs/screenshots/ when TAPIS_SCREENSHOTS=1)."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Any

import pytest

from shared.engine import fold
from shared.events import Event

pytestmark = pytest.mark.browser

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
RANKS = {"J": "jack", "Q": "queen", "K": "king", "A": "ace"}
SUITS = {"S": ("spades", "♠"), "H": ("hearts", "♥"), "D": ("diamonds", "♦"), "C": ("clubs", "♣")}
CARD = re.compile(r"^(10|[2-9JQKA])([SHDC])$")


def label(code: str) -> str:
    """The English aria-label the page gives a card: "7 of hearts"."""
    m = CARD.match(code)
    assert m, code
    return f"{RANKS.get(m[1], m[1])} of {SUITS[m[2]][0]}"


def label_fr(code: str) -> str:
    """The French aria-label of a card: "7 de cœur", "valet de pique"."""
    m = CARD.match(code)
    assert m, code
    rank = {"J": "valet", "Q": "dame", "K": "roi", "A": "as"}.get(m[1], m[1])
    return f"{rank} de {dict(S='pique', H='cœur', D='carreau', C='trèfle')[m[2]]}"


def short(code: str) -> str:
    """The short text of a card in the log: "7♥"."""
    m = CARD.match(code)
    assert m, code
    return m[1] + SUITS[m[2]][1]


def screenshot(tab, name: str) -> None:
    """docs/screenshots/<name>.png, only with TAPIS_SCREENSHOTS=1 (CI leaves the tree clean)."""
    if os.environ.get("TAPIS_SCREENSHOTS") == "1":
        SHOTS.mkdir(parents=True, exist_ok=True)
        tab.page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


#: The class of each game's board element.
BOARD = {"maumau": "moves", "maudix": "maudix-board", "dix": "dix-board", "mauw": "mauw-board",
         "maudit_mot_dit": "mmd-board"}


def create_maumau_from_lobby(web, tab, *, name: str, hand_size: int, target: int) -> str:
    """Open the lobby, create a 3-seat Mau Mau table (seat 1 a person,
    two heuristic bots, no turn clock) with the form, take the free seat
    with ``name``; returns the table id once the hand shows."""
    page = tab.page
    page.goto(web.base + "/")
    page.wait_for_selector("#game option[value=maumau]", state="attached")
    page.select_option("#game", "maumau")
    page.fill("#players", "3")
    page.dispatch_event("#players", "change")
    assert page.input_value("#seat-0") == ""  # a person
    page.select_option("#seat-1", "heuristic")
    page.select_option("#seat-2", "heuristic")
    # the options form comes from the game's JSON Schema: an enum ($ref) as a select, a boolean as a
    # checkbox, a nullable integer left empty, each with its default
    assert page.locator("#opt-ace_power option").evaluate_all("os => os.map(o => o.value)") == [
        '"none"', '"draw"', '"skip"']
    assert page.input_value("#opt-ace_power") == '"none"' and not page.is_checked("#opt-skat_deck")
    assert page.input_value("#opt-decks") == "" and page.input_value("#opt-hand_size") == "5"
    page.fill("#opt-hand_size", str(hand_size))
    page.fill("#opt-target_score", str(target))
    page.fill("#turn", "")
    page.click("#create-btn")
    row = page.locator("#tables li[data-table]").first
    row.locator("input[name=name]").wait_for()
    table = row.get_attribute("data-table")
    assert table
    info = web.client.get(f"/tables/{table}").json()
    assert (info["game"], info["players"], info["turn_seconds"]) == ("maumau", 3, None)
    assert info["options"]["hand_size"] == hand_size and info["options"]["target_score"] == target
    assert [s["kind"] for s in info["seats"]] == ["free", "bot", "bot"]
    row.locator("input[name=name]").fill(name)
    row.locator("button[type=submit]").click()
    page.wait_for_url(f"**/play/{table}")
    page.wait_for_selector("#hand .card")
    return table


def settle(page) -> None:
    """Wait until it is this seat's move (a card to click, a suit to pick,
    a button, and no move of this page still on its way: the page drops a
    click made then) or the game is over."""
    page.wait_for_function("""() => document.body.dataset.status === 'finished' || (
        document.getElementById('actions')?.getAttribute('aria-busy') !== 'true' && document.querySelector(
        '.picker button[data-suit], #hand button.card:not([disabled]), #actions [data-action], #actions form'))""")


def click_one_move(page, keyboard: bool = False) -> str:
    """Make one move by clicking, as a person would (``keyboard``: by
    focusing each control and pressing Enter); returns what was done."""
    before = page.evaluate("document.body.dataset.version")

    def press(loc) -> None:
        if keyboard:
            loc.focus()
            page.keyboard.press("Enter")
        else:
            loc.click()

    suit = page.locator(".picker button[data-suit]")
    if suit.count():
        press(suit.first)
        what = "suit"
    elif page.locator("#hand button.card:not([disabled])").count():
        toggle = page.locator("#announce[aria-pressed=false]")
        if toggle.count():
            press(toggle)
            page.wait_for_selector("#announce[aria-pressed=true]")
        card = page.locator("#hand button.card:not([disabled])").first
        code = card.get_attribute("data-card")
        press(card)
        if code and code.startswith("J"):
            page.wait_for_selector(".picker button[data-suit]")
            return "jack"
        what = "card"
    else:
        button = None
        for kind in ("keep", "draw", "callout"):
            loc = page.locator(f"#actions [data-action={kind}]")
            if loc.count():
                button = loc.first
                what = kind
                break
        assert button is not None, page.inner_html("#actions")
        press(button)
    page.wait_for_function("v => document.body.dataset.version !== v", arg=before)
    return what


def test_a_whole_mau_mau_game_by_clicking(web, browse):
    tab = browse()
    page = tab.page
    table = create_maumau_from_lobby(web, tab, name="Ana", hand_size=2, target=30)
    assert page.locator(".seat").nth(0).locator(".name").inner_text() == "Ana"
    clicked: list[str] = []
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        settle(page)
        if page.evaluate("document.body.dataset.status") == "finished":
            break
        clicked.append(click_one_move(page))
        if len(clicked) == 6:
            screenshot(tab, "maumau-game")
    assert page.evaluate("document.body.dataset.status") == "finished", clicked
    page.wait_for_selector("#result table")
    game, state, events = web.truth(table)
    result = game.result(state)
    assert result is not None
    rows = page.locator("#result tbody tr")
    shown = [tuple(rows.nth(i).locator("td").all_inner_texts()) for i in range(rows.count())]
    names = ["Ana", "heuristic bot 1", "heuristic bot 2"]
    order = sorted(range(3), key=lambda s: result.places[s])
    assert shown == [(str(result.places[s]), names[s], str(result.scores[s])) for s in order]
    # Every card of mine left the hand by a click, with the word the rules want.
    mine = 0
    s = None
    for e in events:
        s = fold(game, [e], s)
        if e.type == "CardPlayed" and e.seat == 0:
            mine += 1
            left = len(s.hands[0]) if e.data["announce"] != "maumau" else 0
            assert e.data["announce"] == {1: "mau", 0: "maumau"}.get(left), e
            if e.data["card"].startswith("J"):
                assert e.data["suit"] in "SHDC"
    assert mine == clicked.count("card") + clicked.count("suit") - sum(
        1 for e in events if e.type == "SuitWished" and e.seat == 0)
    assert not [e for e in events if e.type == "CalledOut" and e.data["offender"] == 0]
    page.wait_for_function("() => document.getElementById('log').innerText.includes('The game is over:')")
    winners = ", ".join(names[s] for s in result.winners)
    assert page.locator("#log li").last.inner_text() == f"The game is over: {winners} wins."
    lines = page.locator("#log li").all_inner_texts()
    assert len([x for x in lines if x.startswith("Ana plays ")]) == mine
    assert tab.errors == []


def test_a_reload_keeps_the_seat_and_its_hand(web, browse):
    tab = browse()
    page = tab.page
    table = create_maumau_from_lobby(web, tab, name="Bea", hand_size=5, target=100)
    settle(page)
    # One whole move by keyboard (a jack first opens the suit picker: a second Enter sends it), then the
    # person's turn again: the log holds what it will replay after the reload.
    while click_one_move(page, keyboard=True) == "jack":
        pass
    settle(page)
    version = page.evaluate("document.body.dataset.version")
    page.wait_for_function("v => document.querySelector('#log li:last-child')?.dataset.version === v", arg=version)
    lines = page.locator("#log li").all_inner_texts()
    hand = page.locator("#hand [data-card]").evaluate_all("els => els.map(e => e.dataset.card)")
    token = page.evaluate(f"JSON.parse(localStorage.getItem('tapis.seat.{table}')).token")
    view = web.client.get(f"/tables/{table}/view", headers={"Authorization": f"Bearer {token}"}).json()
    assert hand == view["view"]["hand"] and len(hand) >= 1
    page.reload()
    page.wait_for_selector("#hand .card")
    settle(page)
    assert page.locator("#hand [data-card]").evaluate_all("els => els.map(e => e.dataset.card)") == hand
    assert page.locator(".seat.me .name").inner_text() == "Bea"
    # the log, replayed from the stream: the same lines (it was the person's turn: nothing moved since)
    page.wait_for_function("v => document.querySelector('#log li:last-child')?.dataset.version === v", arg=version)
    assert page.locator("#log li").all_inner_texts() == lines and len(lines) >= 2
    # In French: the same cards, their labels in French, the interface too
    page.select_option("#lang", "fr")
    page.wait_for_selector("#log-h >> text=Ce qui s’est passé")
    fr = page.locator("#hand [data-card]").evaluate_all("els => els.map(e => e.getAttribute('aria-label'))")
    assert fr == [label_fr(c) for c in hand]
    assert page.evaluate("document.documentElement.lang") == "fr"
    # and in a new tab of the same browser
    other = browse(context=page.context)
    other.page.goto(f"{web.base}/play/{table}")
    other.page.wait_for_selector("#hand .card")
    assert other.page.locator("#hand [data-card]").evaluate_all("els => els.map(e => e.dataset.card)") == hand
    assert tab.errors == [] and other.errors == []


def test_a_spectator_page_holds_no_hidden_card(web, browse):
    c = web.client

    def a_table_with_hidden_cards() -> tuple[str, str, Any, list[Event], set[str]]:
        """A Mau Mau table where seat 0 (a person) drew a few times and waits to move; (table, seat 0's
        token, state, events, the cards no event showed)."""
        table = c.post("/tables", json={"game": "maumau", "players": 3, "turn_seconds": None,
                                        "bots": {"1": "heuristic", "2": "heuristic"}}).json()["id"]
        token = c.post(f"/tables/{table}/join", json={"name": "Cy"}).json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        drew = 0
        for _ in range(40):  # a few moves of the person (draws preferred: hidden cards in the log)
            v = c.get(f"/tables/{table}/view", headers=auth).json()
            if v["status"] != "playing" or drew >= 3:
                break
            if 0 not in v["awaiting"]:
                time.sleep(0.05)
                continue
            legal = v["legal_actions"]
            action = next((a for a in legal if a["type"] in ("draw", "keep")), legal[0])
            drew += action["type"] == "draw"
            c.post(f"/tables/{table}/actions", headers=auth, json={"action": action})
        for _ in range(600):  # until the bots have played and the table waits for the person
            v = c.get(f"/tables/{table}/view", headers=auth).json()
            if v["awaiting"] == [0] or v["status"] != "playing":
                break
            time.sleep(0.05)
        _game, state, events = web.truth(table)
        if v["awaiting"] != [0]:  # over (or stuck: then no table of the ten passes)
            return table, token, state, events, set()
        public = set()
        for e in events:
            if e.type == "CardPlayed":
                public.add(e.data["card"])
            deal = e.data.get("deal", e.data) if e.type in ("GameStarted", "RoundDealt") else {}
            if isinstance(deal, dict) and deal.get("upcard"):
                public.add(deal["upcard"])
        hidden = ({card for hand in state.hands for card in hand} | set(state.talon)) - public
        return table, token, state, events, hidden

    # The bots may end a round while the person draws: the next deal brings back cards once played (public,
    # left out of the check); deal again until the check has something to find in the seat's own hand too.
    for _ in range(10):
        table, token, state, events, hidden = a_table_with_hidden_cards()
        if len(hidden) > 20 and set(state.hands[0]) & hidden:
            break
    else:
        raise AssertionError("no table with enough hidden cards in 10 deals")
    version = c.get(f"/tables/{table}").json()["version"]
    assert len(events) == version

    tab = browse()
    page = tab.page
    page.goto(f"{web.base}/play/{table}")
    page.wait_for_function("v => document.body.dataset.version === String(v)", arg=version)
    page.wait_for_function("v => document.querySelectorAll('#log li').length >= v", arg=3)
    assert page.locator("#hand").count() == 0 and page.locator("#actions").is_hidden()
    assert page.locator("#join").is_hidden()  # the table is full
    attrs = page.evaluate("""() => [...document.querySelectorAll('*')].flatMap(el =>
        ['aria-label', 'title', 'data-card'].map(a => el.getAttribute(a)).filter(Boolean))""")
    text = page.inner_text("body")
    html = page.content()
    for card in hidden:
        assert card not in attrs, card
        assert label(card) not in text and all(label(card) not in a for a in attrs), card
        assert short(card) not in text, card
        assert f'data-card="{card}"' not in html, card
    # The discard's top card is shown (what the spectator may see), by its label.
    assert page.locator(".board [data-card]").first.get_attribute("aria-label") == label(state.discard[-1])
    # The same check finds the seat's own cards on the seat's page: it can fail.
    seat_tab = browse()
    seat_tab.page.goto(f"{web.base}/")
    seat_tab.page.evaluate(f"localStorage.setItem('tapis.seat.{table}', JSON.stringify({{token: '{token}', seat: 0}}))")
    seat_tab.page.goto(f"{web.base}/play/{table}")
    seat_tab.page.wait_for_selector("#hand .card")
    own = seat_tab.page.locator("#hand [data-card]").evaluate_all("els => els.map(e => e.dataset.card)")
    assert own == state.hands[0] and set(own) & hidden
    assert tab.errors == [] and seat_tab.errors == []


def caught_up(page, c, table: str, auth: dict) -> dict:
    """The seat's view once the page shows the table's latest version (a bot
    may still move after the test saw the table quiet: then wait for that
    one too); returns that view."""
    for _ in range(10):
        v = c.get(f"/tables/{table}/view", headers=auth).json()
        try:
            page.wait_for_function("v => Number(document.body.dataset.version) >= v", arg=v["version"])
        except Exception:  # noqa: BLE001 - Playwright's TimeoutError: the page is behind; the loop says so
            continue
        if page.evaluate("Number(document.body.dataset.version)") == v["version"] == c.get(
                f"/tables/{table}/view", headers=auth).json()["version"]:
            return v
    raise AssertionError(f"the page never caught up with the table (at {v['version']})")


@pytest.mark.parametrize("game", ["maumau", "maudix", "dix", "mauw", "maudit_mot_dit"])
def test_every_game_table_page(web, browse, game):
    c = web.client
    table = c.post("/tables", json={"game": game, "players": 3, "bots": {"1": "heuristic", "2": "heuristic"},
                                    "turn_seconds": None}).json()["id"]
    token = c.post(f"/tables/{table}/join", json={"name": "Dee"}).json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    last = -1
    for _ in range(200):  # until the table waits for the person and the bots are done
        v = c.get(f"/tables/{table}/view", headers=auth).json()
        if v["status"] == "playing" and 0 in v["awaiting"] and v["version"] == last:
            break
        last = v["version"]
        time.sleep(0.3)
    assert 0 in v["awaiting"]
    tab = browse()
    page = tab.page
    page.goto(f"{web.base}/")
    page.evaluate(f"localStorage.setItem('tapis.seat.{table}', JSON.stringify({{token: '{token}', seat: 0}}))")
    page.goto(f"{web.base}/play/{table}")
    v = caught_up(page, c, table, auth)
    settle(page)
    assert page.locator(".seat").count() == 3
    assert page.locator(".seat").nth(0).locator(".name").inner_text() == "Dee"
    if isinstance(v["view"].get("hand"), list):
        shown = page.locator("#hand [data-card]").evaluate_all("els => els.map(e => e.dataset.card)")
        assert shown == v["view"]["hand"]
    # every game has its own board (test_boards_maudix_dix.py, test_boards_mauw_mmd.py), not the generic page
    assert page.locator("#board .generic").count() == 0
    assert page.locator(f"#board > .{BOARD[game]}").count() == 1
    if game == "maumau":  # the others are taken in the middle of a game by their board tests
        screenshot(tab, game)
    page.set_viewport_size({"width": 390, "height": 844})  # a phone: nothing wider than the screen
    page.wait_for_timeout(100)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    if game == "maumau":
        screenshot(tab, "maumau-phone")
    assert tab.errors == []


def test_leave_calls_the_endpoint_and_shows_its_answer(web, browse):
    tab = browse()
    page = tab.page
    table = create_maumau_from_lobby(web, tab, name="Eve", hand_size=5, target=100)
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_timeout(100)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.click("#leave")
    page.click("#leave-yes")
    if web.client.post(f"/tables/{table}/leave").status_code == 404:
        # the endpoint is not there (yet): the page says why and keeps the seat
        page.wait_for_selector("#error >> text=Leaving failed:")
        assert page.locator("#hand .card").count() >= 1
        assert page.evaluate(f"localStorage.getItem('tapis.seat.{table}')") is not None
        assert [e for e in tab.errors if "404" not in e] == []
    else:
        page.wait_for_selector("#error >> text=You left this seat.")
        assert page.evaluate(f"localStorage.getItem('tapis.seat.{table}')") is None
        page.wait_for_selector("#hand", state="detached")
        assert page.locator("#actions").is_hidden() and page.locator("#leave").is_hidden()
        assert tab.errors == []


#: A game module that is the generic one (what a game without its own board gets).
GENERIC_MODULE = 'export * from "./generic.js";\nexport const title = "{title}";\n'


@pytest.mark.parametrize("game", ["mauw"])
def test_a_whole_game_through_the_generic_page(web, browse, game):
    c = web.client
    table = c.post("/tables", json={"game": game, "players": 2, "bots": {"1": "heuristic"},
                                    "turn_seconds": None}).json()["id"]
    tab = browse()
    page = tab.page
    # every game has its own board now: the page is given the generic module in its place
    page.route(f"**/static/games/{game}.js", lambda route: route.fulfill(
        status=200, content_type="text/javascript", body=GENERIC_MODULE.format(title=game)))
    page.goto(f"{web.base}/play/{table}")
    page.fill("#join-name", "Flo")
    page.click("#join-form button[type=submit]")
    page.wait_for_selector("#actions [data-action]")
    assert page.locator("#board .generic").count() == 1
    # one button per legal action, one form of checkboxes for many combinations of cards
    token = page.evaluate(f"JSON.parse(localStorage.getItem('tapis.seat.{table}')).token")
    auth = {"Authorization": f"Bearer {token}"}
    v = caught_up(page, c, table, auth)
    legal = v["legal_actions"]
    combos = {a["type"] for a in legal if sum(b["type"] == a["type"] for b in legal) > 12
              and any(isinstance(x, list) for x in a.values())}
    assert page.locator("#actions .moves button").count() == sum(a["type"] not in combos for a in legal) > 0
    assert page.locator("#actions form[data-combo]").evaluate_all("els => els.map(e => e.dataset.combo)") == sorted(
        combos)
    moves = 0
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        settle(page)
        if page.evaluate("document.body.dataset.status") == "finished":
            break
        before = page.evaluate("document.body.dataset.version")
        page.locator("#actions .moves button").first.click()
        page.wait_for_function("v => document.body.dataset.version !== v", arg=before)
        moves += 1
    assert page.evaluate("document.body.dataset.status") == "finished"
    page.wait_for_selector("#result table")
    game, state, events = web.truth(table)
    result = game.result(state)
    assert result is not None
    # every click was one accepted command of seat 0 (the gateway scopes a client's command ids to its seat)
    assert moves > 0 and len({e.cmd for e in events if (e.cmd or "").startswith("u0.web-")}) == moves
    rows = page.locator("#result tbody tr")
    names = ["Flo", "heuristic bot 1"]
    order = sorted(range(2), key=lambda s: result.places[s])
    assert [tuple(rows.nth(i).locator("td").all_inner_texts()) for i in range(rows.count())] == [
        (str(result.places[s]), names[s], str(result.scores[s])) for s in order]
    assert tab.errors == []


def test_the_lobby_lists_the_games_and_fits_a_phone(web, browse):
    games = web.client.get("/games").json()
    tab = browse(width=390, height=844)
    page = tab.page
    page.goto(web.base + "/")
    page.wait_for_function("n => document.querySelectorAll('#games li').length === n", arg=len(games))
    assert page.locator("#game option").evaluate_all("os => os.map(o => o.value)") == [g["name"] for g in games]
    assert page.locator("#games li strong").all_inner_texts() == [g["title"] for g in games]
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert tab.errors == []


def test_the_live_log_resumes_after_a_drop_from_the_last_version_seen(web, browse):
    c = web.client
    table = c.post("/tables", json={"game": "maumau", "players": 2, "bots": {"1": "heuristic"},
                                    "turn_seconds": None}).json()["id"]
    token = c.post(f"/tables/{table}/join", json={"name": "Gil"}).json()["token"]
    auth = {"Authorization": f"Bearer {token}"}

    def quiet_version() -> int:
        last = -1
        for _ in range(100):
            v = c.get(f"/tables/{table}/view", headers=auth).json()
            if 0 in v["awaiting"] and v["version"] == last:
                return v["version"]
            last = v["version"]
            time.sleep(0.2)
        raise AssertionError("the table never waited for the person")

    version = quiet_version()
    tab = browse()
    page = tab.page
    streams: list[str | None] = []
    page.on("request", lambda r: streams.append(r.headers.get("last-event-id"))
            if r.url.endswith(f"/tables/{table}/stream") else None)
    page.goto(f"{web.base}/play/{table}")  # a spectator
    page.wait_for_function("v => document.body.dataset.version === String(v)", arg=version)
    page.wait_for_function("v => document.querySelector('#log li:last-child')?.dataset.version === String(v)",
                           arg=version)
    assert streams == ["0"]
    page.context.set_offline(True)
    page.wait_for_selector("#error >> text=Connection lost")
    v = c.get(f"/tables/{table}/view", headers=auth).json()
    action = next(a for a in v["legal_actions"] if a["type"] == "draw" or "announce" not in a)
    assert c.post(f"/tables/{table}/actions", headers=auth, json={"action": action}).status_code == 200
    page.context.set_offline(False)
    after = quiet_version()
    assert after > version
    page.wait_for_function("v => document.body.dataset.version === String(v)", arg=after)
    page.wait_for_function("v => document.querySelector('#log li:last-child')?.dataset.version === String(v)",
                           arg=after)
    logged = page.locator("#log li").evaluate_all("els => els.map(e => Number(e.dataset.version))")
    described = [e["version"] for e in c.get(f"/tables/{table}/events").json()["events"]]
    assert logged == described  # every event once, in order: nothing lost, nothing twice
    assert streams[0] == "0" and str(version) in streams[1:]  # resumed after the last version seen
    assert [e for e in tab.errors if "ERR_INTERNET_DISCONNECTED" not in e] == []


def test_the_lobby_pages_through_the_open_tables(web, browse):
    c = web.client
    for _ in range(23):
        assert c.post("/tables", json={"game": "maumau", "players": 2, "bots": {"1": "random"}}).status_code == 201
    expected, url = [], "/tables?status=waiting&limit=500"
    while url:
        r = c.get(url)
        expected += [t["id"] for t in r.json()]
        url = r.links.get("next", {}).get("url")
    assert len(expected) >= 23
    tab = browse()
    page = tab.page
    page.goto(web.base + "/")
    page.wait_for_function("() => document.querySelectorAll('#tables li[data-table]').length === 20")
    assert page.locator("#more").is_visible()
    while page.locator("#more").is_visible():
        shown = page.locator("#tables li[data-table]").count()
        page.click("#more")
        page.wait_for_function("n => document.querySelectorAll('#tables li[data-table]').length > n"
                               " || document.getElementById('more').hidden", arg=shown)
    ids = page.locator("#tables li[data-table]").evaluate_all("els => els.map(e => e.dataset.table)")
    assert ids == expected
    page.click("#status-tabs [data-status=playing]")
    page.wait_for_function("() => !document.querySelector('#tables li[data-table] input[name=name]')")
    assert tab.errors == []


def seat_page(web, browse, table: str, token: str, seat: int, context=None):
    """A tab whose browser keeps ``token`` as its seat at ``table``, on the table's page."""
    tab = browse(context=context)
    tab.page.goto(f"{web.base}/")
    tab.page.evaluate("([t, s]) => localStorage.setItem('tapis.seat.' + t, JSON.stringify(s))",
                      [table, {"token": token, "seat": seat}])
    tab.page.goto(f"{web.base}/play/{table}")
    return tab


def test_a_seat_left_elsewhere_turns_the_page_to_the_newer_seat_or_to_watching(web, browse):
    c = web.client
    table = c.post("/tables", json={"game": "maumau", "players": 3, "bots": {"2": "heuristic"},
                                    "turn_seconds": None}).json()["id"]
    old = c.post(f"/tables/{table}/join", json={"name": "Ida", "seat": 0}).json()["token"]
    new = c.post(f"/tables/{table}/join", json={"name": "Jo", "seat": 1}).json()["token"]
    tab = seat_page(web, browse, table, old, 0)
    page = tab.page
    page.wait_for_selector("#hand .card")
    assert page.locator(".seat.me").get_attribute("data-seat") == "0"
    # Another tab of this browser takes seat 1 (its token replaces the kept one), then seat 0 is left:
    # the page's stream is revoked; it must not forget the newer seat, and plays it.
    page.evaluate("([t, s]) => localStorage.setItem('tapis.seat.' + t, JSON.stringify(s))",
                  [table, {"token": new, "seat": 1, "name": "Jo"}])
    assert c.post(f"/tables/{table}/leave", headers={"Authorization": f"Bearer {old}"}).status_code == 200
    page.wait_for_selector(".seat.me[data-seat='1']")
    view = c.get(f"/tables/{table}/view", headers={"Authorization": f"Bearer {new}"}).json()
    page.wait_for_function("v => document.body.dataset.version === String(v)", arg=view["version"])
    assert page.locator("#hand [data-card]").evaluate_all("els => els.map(e => e.dataset.card)") == view["view"]["hand"]
    assert page.evaluate(f"JSON.parse(localStorage.getItem('tapis.seat.{table}')).token") == new
    assert page.inner_text("#error") == ""
    # A token kept from a seat left since (the old one): the page watches, says why, forgets only it.
    stale = seat_page(web, browse, table, old, 0)
    stale.page.wait_for_selector("#error >> text=This seat was left (in another tab?): you are watching.")
    stale.page.wait_for_selector("#status >> text=You are watching.")
    assert stale.page.locator("#hand").count() == 0 and stale.page.locator("#leave").is_hidden()
    assert stale.page.evaluate(f"localStorage.getItem('tapis.seat.{table}')") is None
    # Leaving in one tab turns another tab on the same seat into a spectator at once.
    other = browse(context=page.context)
    other.page.goto(f"{web.base}/play/{table}")
    other.page.wait_for_selector(".seat.me[data-seat='1']")
    page.click("#leave")
    page.click("#leave-yes")
    page.wait_for_selector("#error >> text=You left this seat.")
    other.page.wait_for_selector("#error >> text=This seat was left (in another tab?): you are watching.")
    other.page.wait_for_selector("#hand", state="detached")
    assert other.page.locator("#actions").is_hidden() and other.page.locator("#leave").is_hidden()
    bad = [e for t in (tab, stale, other) for e in t.errors if "403" not in e]  # the refused view, by design
    assert bad == []


def test_a_mau_mau_turn_by_keyboard_keeps_the_focus_in_the_moves(web, browse):
    c = web.client
    table = c.post("/tables", json={"game": "maumau", "players": 2, "bots": {"1": "heuristic"},
                                    "turn_seconds": None}).json()["id"]
    token = c.post(f"/tables/{table}/join", json={"name": "Kim"}).json()["token"]
    tab = seat_page(web, browse, table, token, 0)
    page = tab.page
    page.wait_for_selector("#hand .card")
    settle(page)
    usable = "() => document.activeElement?.matches('#actions button:not([disabled])') || false"
    for _ in range(60):  # Tab from the top of the page to the first usable move
        page.keyboard.press("Tab")
        if page.evaluate(usable):
            break
    assert page.evaluate(usable)
    moves = 0
    while moves < 4 and page.evaluate("document.body.dataset.status") != "finished":
        before = page.evaluate("document.body.dataset.version")
        card = page.evaluate("document.activeElement.dataset.card || ''")
        page.keyboard.press("Enter")  # no Tab: the focus is already on a move
        if card.startswith("J"):  # a jack opens the suit picker, and the focus goes to its first suit
            page.wait_for_function("() => document.activeElement?.matches('.picker button[data-suit]') || false")
            page.keyboard.press("Enter")
        page.wait_for_function("v => document.body.dataset.version !== v", arg=before)
        moves += 1
        settle(page)
        if page.evaluate("document.body.dataset.status") != "finished":
            page.wait_for_function(usable)
    assert moves == 4 or page.evaluate("document.body.dataset.status") == "finished"
    mine = [e for e in web.truth(table)[2] if e.seat == 0 and (e.cmd or "").startswith("u0.web-")]
    assert len({e.cmd for e in mine}) == moves
    assert tab.errors == []


def test_a_name_that_looks_like_html_is_shown_as_text(web, browse):
    xss = "<img src=x onerror=alert(1)>"  # within a name's 40 characters
    c = web.client
    table = c.post("/tables", json={"game": "maumau", "players": 2, "bots": {"1": "heuristic"},
                                    "turn_seconds": None}).json()["id"]
    tab = browse()
    page = tab.page
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(f"{web.base}/play/{table}")
    page.fill("#join-name", xss)
    page.click("#join-form button[type=submit]")
    page.wait_for_selector("#hand .card")
    settle(page)
    assert page.locator(".seat.me .name").inner_text() == xss
    page.goto(f"{web.base}/")  # the lobby's list of tables (playing) names the seats too
    page.wait_for_selector("#games li")  # the lobby is set up: its tabs answer
    page.click("#status-tabs [data-status=playing]")
    page.wait_for_selector(f"#tables li[data-table='{table}']")
    assert xss in page.locator(f"#tables li[data-table='{table}'] .what").inner_text()
    page.goto(f"{web.base}/play/{table}")
    page.wait_for_selector("#hand .card")
    assert page.locator("img").count() == 0
    assert dialogs == [] and tab.errors == []


def test_the_stream_echo_of_a_move_does_not_redraw_the_moves(web, browse):
    # Two persons and a bot: after the page's person moves, the table waits for the other person, so
    # nothing changes after the page fetched its view; the stream's echo of that move must not swap the
    # buttons (a click pressed on one and released on its copy would be lost).
    c = web.client
    table = c.post("/tables", json={"game": "maumau", "players": 3, "bots": {"2": "heuristic"},
                                    "turn_seconds": None}).json()["id"]
    mine = c.post(f"/tables/{table}/join", json={"name": "Lou", "seat": 0}).json()["token"]
    other = {"Authorization": "Bearer " + c.post(f"/tables/{table}/join", json={"name": "Max", "seat": 1}).json()[
        "token"]}

    def wait_for_a_person(move_seat_1: bool) -> list[int]:
        """Let the bot play (and seat 1, if ``move_seat_1``) until a person's turn; returns it."""
        for _ in range(200):
            v = c.get(f"/tables/{table}/view", headers=other).json()
            if v["awaiting"] == [0] or (v["awaiting"] == [1] and not move_seat_1):
                return v["awaiting"]
            if v["awaiting"] == [1]:
                legal = v["legal_actions"]
                action = next((a for a in legal if a["type"] in ("draw", "keep")), legal[0])
                c.post(f"/tables/{table}/actions", headers=other, json={"action": action})
            time.sleep(0.1)
        raise AssertionError(f"no person's turn: {v['awaiting']}")

    wait_for_a_person(move_seat_1=True)
    tab = seat_page(web, browse, table, mine, 0)
    page = tab.page
    page.wait_for_selector("#hand .card")
    settle(page)
    views: list[str] = []
    page.on("response", lambda r: views.append(r.url) if r.url.endswith(f"/tables/{table}/view") else None)
    page.evaluate("""() => { window.redraws = 0; new MutationObserver((rs) => { window.redraws += rs.length; })
        .observe(document.getElementById('actions'), { childList: true }); }""")
    # a move that hands the turn straight to seat 1 (a draw may leave the turn with seat 0: keep then; an
    # eight skips seat 1 and the bot plays: then seat 1 moves until seat 0's turn comes back, and again)
    while True:
        before = page.evaluate("document.body.dataset.version")
        logged = len(web.read_events(table))
        toggle = page.locator("#announce[aria-pressed=false]")
        if toggle.count() and not page.locator(".picker button[data-suit]").count():
            toggle.click()  # saying "Mau" redraws the moves: before the count starts, not in it
            page.wait_for_selector("#announce[aria-pressed=true]")
        page.evaluate("window.redraws = 0")
        views.clear()
        what = click_one_move(page)
        if what == "jack":
            continue
        turn = wait_for_a_person(move_seat_1=False)
        if turn == [1] and len({e.cmd for e in web.read_events(table)[logged:]}) == 1:
            break  # seat 0's move alone since the page's view
        wait_for_a_person(move_seat_1=True)
        settle(page)
    version = c.get(f"/tables/{table}").json()["version"]
    assert int(before) < version
    page.wait_for_function("v => document.body.dataset.version === String(v)", arg=version)
    page.wait_for_function("v => document.querySelector('#log li:last-child')?.dataset.version === String(v)",
                           arg=version)
    deadline = time.monotonic() + 20
    while len(views) < 2 and time.monotonic() < deadline:  # the move's own view, then the echo's
        page.wait_for_timeout(100)
    assert len(views) >= 2
    page.wait_for_timeout(300)  # time for a redraw the echo would (wrongly) make
    assert page.evaluate("window.redraws") == 1  # the move's own view, drawn once
    assert tab.errors == []


def test_the_lobby_shows_each_games_seats_and_rules_in_the_pages_language(web, browse, monkeypatch):
    from shared.games import REGISTRY

    monkeypatch.delitem(REGISTRY, "toy", raising=False)  # the lobby as served: the five games, not the tests' toy
    games = web.client.get("/games").json()
    assert [g["name"] for g in games] == ["dix", "maudit_mot_dit", "maudix", "maumau", "mauw"]
    # an open table (one bot, one free seat) so the lobby shows where to take a seat
    web.client.post("/tables", json={"game": "maudix", "players": 3, "bots": {"1": "heuristic"}})
    tab = browse()
    page = tab.page
    page.goto(web.base + "/")
    page.wait_for_function("n => document.querySelectorAll('#games li details').length === n", arg=len(games))
    assert page.locator("#games li").evaluate_all("els => els.map(e => e.dataset.game)") == [g["name"] for g in games]
    # closed at first: the title and the seat range; a click opens the summary in English
    assert page.locator("#games details[open]").count() == 0
    heads = page.locator("#games summary").all_inner_texts()
    assert heads == [f"{g['title']} — {g['min_players']}–{g['max_players']} players" for g in games]
    by_name = {g["name"]: g for g in games}
    assert heads[[g["name"] for g in games].index("maudix")] == "Maudix — 3–12 players"
    for name in ("maudix", "maumau"):
        page.click(f"#games li[data-game={name}] summary")
    assert page.locator("#games details[open] p.rules").all_inner_texts() == [
        by_name["maudix"]["summary"]["en"], by_name["maumau"]["summary"]["en"]]
    page.locator("#tables li[data-table] input[name=name]").first.wait_for()
    screenshot(tab, "lobby")  # docs/screenshots/lobby.png: two games opened, an open table
    for g in games:
        if g["name"] not in ("maudix", "maumau"):
            page.click(f"#games li[data-game={g['name']}] summary")
    rules = page.locator("#games p.rules")
    assert rules.all_inner_texts() == [g["summary"]["en"] for g in games]
    assert all(lang == "en" for lang in rules.evaluate_all("els => els.map(e => e.lang)"))
    # in French: the same games still open, their French summaries and seat ranges
    page.select_option("#lang", "fr")
    page.wait_for_function("() => document.querySelector('#games summary').textContent.includes('joueurs')")
    assert page.locator("#games details[open]").count() == len(games)
    assert page.locator("#games p.rules").all_inner_texts() == [g["summary"]["fr"] for g in games]
    assert page.locator("#games li[data-game=maudix] summary").inner_text() == "Maudix — 3 à 12 joueurs"
    assert by_name["maudix"]["summary"]["fr"].startswith("Sept manches")
    assert page.inner_text("#games-h + p.hint") == "Ouvrez un jeu pour lire ses règles en bref."
    # a French browser gets them in French from the start
    fr = browse(locale="fr-FR")
    fr.page.goto(web.base + "/")
    fr.page.wait_for_function("n => document.querySelectorAll('#games p.rules').length === n", arg=len(games))
    assert fr.page.locator("#games p.rules").evaluate_all("els => els.map(e => e.textContent)") == [
        g["summary"]["fr"] for g in games]
    assert tab.errors == [] and fr.errors == []


def test_a_late_answer_for_the_tab_left_does_not_replace_the_tab_chosen(web, browse):
    c = web.client
    waiting = c.post("/tables", json={"game": "maumau", "players": 2, "bots": {"1": "heuristic"}}).json()["id"]
    playing = c.post("/tables", json={"game": "maumau", "players": 2, "bots": {"0": "heuristic", "1": "heuristic"},
                                      "turn_seconds": None, "options": {"target_score": 1000}}).json()["id"]
    assert c.get(f"/tables/{playing}").json()["status"] == "playing"
    tab = browse()
    page = tab.page
    held = []  # the lobby's first list (Open) is held back until the Playing tab has shown its own
    page.route("**/tables?status=waiting*", lambda route: held.append(route))
    page.goto(web.base + "/")
    page.wait_for_selector("#games li")
    for _ in range(100):
        if held:
            break
        page.wait_for_timeout(50)
    assert len(held) == 1
    page.click("#status-tabs [data-status=playing]")
    page.wait_for_selector(f"#tables li[data-table='{playing}']")
    with page.expect_response("**/tables?status=waiting*") as late:
        held[0].continue_()
    late.value.finished()
    page.wait_for_timeout(300)  # the page has had the late answer for Open: it must have dropped it
    assert page.locator(f"#tables li[data-table='{playing}']").count() == 1
    assert page.locator(f"#tables li[data-table='{waiting}']").count() == 0
    assert page.get_attribute("#status-tabs [data-status=playing]", "aria-selected") == "true"
    assert tab.errors == []
