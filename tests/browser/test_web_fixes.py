"""The web client against a hurried or unusual person (a fresh tester's
findings): a double-click takes one seat, makes one table and sends one
move; long names keep a phone page inside the screen; Leave goes once the
game is over; seat-valued options count seats from 1; the server's
refusals read in French."""

from __future__ import annotations

import time

import pytest

pytestmark = pytest.mark.browser


def posts(page, suffix: str) -> list[str]:
    """A list that fills with the URL of every POST the page sends whose path ends with ``suffix``."""
    seen: list[str] = []
    page.on("request", lambda r: seen.append(r.url) if r.method == "POST" and r.url.endswith(suffix) else None)
    return seen


def choose_game(page, web, game: str) -> None:
    """Open the lobby and choose ``game`` in the create form."""
    page.goto(web.base + "/")
    page.wait_for_selector(f"#game option[value={game}]", state="attached")
    page.select_option("#game", game)


def seated(web, table: str, token: str) -> dict:
    """The seat's view once the table waits for it (the bots have played)."""
    auth = {"Authorization": f"Bearer {token}"}
    for _ in range(300):
        v = web.client.get(f"/tables/{table}/view", headers=auth).json()
        if v["status"] == "playing" and v["seat"] in v["awaiting"]:
            return v
        time.sleep(0.05)
    raise AssertionError("the table never waited for the seat")


def open_as(tab, web, table: str, token: str, seat: int = 0) -> None:
    """Open the table's page as the seat holding ``token``."""
    tab.page.goto(f"{web.base}/")
    tab.page.evaluate(f"localStorage.setItem('tapis.seat.{table}', JSON.stringify({{token: '{token}', seat: {seat}}}))")
    tab.page.goto(f"{web.base}/play/{table}")


def test_a_double_click_on_take_a_seat_in_the_lobby_takes_one_seat(web, browse):
    c = web.client
    table = c.post("/tables", json={"game": "maumau", "players": 3, "bots": {"2": "heuristic"},
                                    "turn_seconds": None}).json()["id"]
    tab = browse()
    page = tab.page
    joins = posts(page, f"/tables/{table}/join")
    page.goto(web.base + "/")
    row = page.locator(f"#tables li[data-table='{table}']")
    row.locator("input[name=name]").fill("Dbl")
    row.locator("button[type=submit]").dblclick()
    page.wait_for_url(f"**/play/{table}")
    assert len(joins) == 1
    seats = c.get(f"/tables/{table}").json()["seats"]
    assert [(s["kind"], s.get("name")) for s in seats] == [("human", "Dbl"), ("free", None), ("bot", "heuristic bot 2")]


def test_a_double_click_on_join_on_the_table_page_takes_one_seat_and_says_nothing_is_taken(web, browse):
    c = web.client
    table = c.post("/tables", json={"game": "dix", "players": 4, "bots": {"3": "heuristic"},
                                    "turn_seconds": None}).json()["id"]
    tab = browse()
    page = tab.page
    joins = posts(page, f"/tables/{table}/join")
    page.goto(f"{web.base}/play/{table}")
    page.wait_for_selector("#join:not([hidden]) #join-seat option", state="attached")
    page.fill("#join-name", "Twice")
    page.dblclick("#join button[type=submit]")
    page.wait_for_selector(".seat.me[data-seat='0']")
    page.wait_for_selector("#join", state="hidden")
    assert len(joins) == 1
    assert page.text_content("#error") == ""
    kinds = [s["kind"] for s in c.get(f"/tables/{table}").json()["seats"]]
    assert kinds == ["human", "free", "free", "bot"]
    assert tab.errors == []


def test_a_double_click_on_create_makes_one_table(web, browse):
    tab = browse()
    page = tab.page
    made = posts(page, "/tables")
    choose_game(page, web, "maumau")
    page.fill("#turn", "")
    page.dblclick("#create-btn")
    page.wait_for_selector("#tables li[data-table]")
    page.wait_for_selector("#create-btn:not([disabled])")
    assert len(made) == 1


def _table_with_a_plain_move(web) -> tuple[str, str]:
    """A two-seat Mau Mau whose person, on turn, may play a card other than
    a Jack (which asks for a suit) or draw: a deal where only Jacks may be
    played offers neither (drawing is for a hand without a playable card)."""
    c = web.client
    for _ in range(20):
        table = c.post("/tables", json={"game": "maumau", "players": 2, "bots": {"1": "heuristic"},
                                        "turn_seconds": None, "options": {"hand_size": 7}}).json()["id"]
        token = c.post(f"/tables/{table}/join", json={"name": "Quick"}).json()["token"]
        seated(web, table, token)
        auth = {"Authorization": f"Bearer {token}"}
        for _ in range(200):
            v = c.get(f"/tables/{table}/view", headers=auth).json()
            if 0 in v["awaiting"] and v["legal_actions"]:
                break
            time.sleep(0.05)
        if any(a["type"] == "draw" or (a["type"] == "play" and not a["card"].startswith("J"))
               for a in v["legal_actions"]):
            return table, token
    raise AssertionError("20 deals without a plain move for seat 0")


def test_a_double_click_on_a_card_sends_one_move(web, browse):
    table, token = _table_with_a_plain_move(web)
    tab = browse()
    page = tab.page
    sent = posts(page, f"/tables/{table}/actions")
    open_as(tab, web, table, token)
    page.wait_for_selector("#hand button.card:not([disabled]), #actions [data-action=draw]")
    before = page.evaluate("document.body.dataset.version")
    cards = page.locator("#hand button.card:not([disabled])").evaluate_all(
        "els => els.map(e => e.dataset.card).filter(c => !c.startsWith('J'))")
    if cards:
        page.dblclick(f"#hand button.card[data-card='{cards[0]}']")
    else:
        page.dblclick("#actions [data-action=draw]")
    page.wait_for_function("v => document.body.dataset.version !== v", arg=before)
    page.wait_for_selector("#actions[aria-busy=false]", state="attached")
    assert len(sent) == 1
    assert page.text_content("#error") == ""
    assert tab.errors == []


def finished_maumau(web) -> tuple[str, str]:
    """A two-seat Mau Mau (one card each, to 1 point) played to its end through the API by seat 0
    against a bot; returns (table, seat 0's token)."""
    c = web.client
    table = c.post("/tables", json={"game": "maumau", "players": 2, "bots": {"1": "heuristic"}, "turn_seconds": None,
                                    "options": {"hand_size": 1, "target_score": 1}}).json()["id"]
    token = c.post(f"/tables/{table}/join", json={"name": "Fin"}).json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    for _ in range(2000):
        v = c.get(f"/tables/{table}/view", headers=auth).json()
        if v["status"] == "finished":
            return table, token
        if 0 in v["awaiting"] and v["legal_actions"]:
            legal = v["legal_actions"]
            action = next((a for a in legal if a["type"] == "play"), legal[0])
            c.post(f"/tables/{table}/actions", headers=auth, json={"action": action})
        else:
            time.sleep(0.03)
    raise AssertionError("the game did not end")


def test_leave_is_gone_once_the_game_is_over(web, browse):
    table, token = finished_maumau(web)
    tab = browse()
    page = tab.page
    open_as(tab, web, table, token)
    page.wait_for_selector("#result table")
    assert page.evaluate("document.body.dataset.status") == "finished"
    assert page.locator(".seat.me[data-seat='0']").count() == 1
    assert page.locator("#leave").is_hidden() and page.locator("#leave-confirm").is_hidden()
    assert "stand-in" not in page.inner_text("#seats")
    assert tab.errors == []


def test_leave_asks_first_and_can_be_cancelled_by_keyboard(web, browse):
    c = web.client
    table = c.post("/tables", json={"game": "maumau", "players": 3, "bots": {"2": "heuristic"},
                                    "turn_seconds": None}).json()["id"]
    token = c.post(f"/tables/{table}/join", json={"name": "Sure"}).json()["token"]
    tab = browse()
    page = tab.page
    open_as(tab, web, table, token)
    page.wait_for_selector(".seat.me[data-seat='0']")
    page.focus("#leave")
    page.keyboard.press("Enter")
    page.wait_for_selector("#leave-confirm:not([hidden])")
    assert page.evaluate("document.activeElement.id") == "leave-no"
    assert page.locator("#leave").is_hidden()
    page.keyboard.press("Escape")
    page.wait_for_selector("#leave-confirm", state="hidden")
    assert page.evaluate("document.activeElement.id") == "leave"
    assert c.get(f"/tables/{table}").json()["seats"][0]["kind"] == "human"  # nothing was sent
    page.keyboard.press("Enter")
    page.click("#leave-yes")
    page.wait_for_selector("#error >> text=You left this seat.")
    assert c.get(f"/tables/{table}").json()["seats"][0]["kind"] == "free"
    # taking a seat again on the same page clears "You left this seat."
    page.wait_for_selector("#join:not([hidden]) #join-seat option", state="attached")
    page.fill("#join-name", "Again")
    page.click("#join button[type=submit]")
    page.wait_for_selector(".seat.me")
    assert page.text_content("#error") == ""
    assert tab.errors == []


@pytest.mark.parametrize("game", ["mauw", "maumau", "maudix", "dix", "maudit_mot_dit"])
def test_long_names_keep_a_phone_page_inside_the_screen(web, browse, game):
    c = web.client
    table = c.post("/tables", json={"game": game, "players": 3, "bots": {"2": "heuristic"},
                                    "turn_seconds": None}).json()["id"]
    token = c.post(f"/tables/{table}/join", json={"name": "W" * 40}).json()["token"]
    c.post(f"/tables/{table}/join", json={"name": "M" * 40})
    tab = browse(width=390, height=844)
    page = tab.page
    open_as(tab, web, table, token)
    page.wait_for_selector(".seat.me .name >> text=" + "W" * 40)
    page.wait_for_function("() => document.querySelectorAll('#log li').length >= 1")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    # the seat boxes do not overlap
    boxes = page.locator(".seat").evaluate_all("els => els.map(e => { const r = e.getBoundingClientRect();"
                                               " return [r.left, r.top, r.right, r.bottom]; })")
    assert len(boxes) == 3
    for i, a in enumerate(boxes):
        assert a[2] <= 390
        for b in boxes[i + 1:]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)
    assert tab.errors == []


@pytest.mark.parametrize(("game", "option"), [("maudix", "first_dealer"), ("mauw", "first_seat")])
def test_a_seat_option_reads_seat_1_to_n_and_sends_the_seat_index(web, browse, game, option):
    tab = browse()
    page = tab.page
    choose_game(page, web, game)
    page.fill("#players", "3")
    page.dispatch_event("#players", "change")
    sel = f"#opt-{option}"
    assert page.locator(f"{sel} option").evaluate_all("os => os.map(o => [o.value, o.textContent])") == [
        ["", "at random"], ["0", "Seat 1"], ["1", "Seat 2"], ["2", "Seat 3"]]
    assert page.input_value(sel) == ""
    page.fill("#players", "4")
    page.dispatch_event("#players", "change")
    assert page.locator(f"{sel} option").count() == 5
    page.select_option(sel, label="Seat 4")
    page.fill("#turn", "")
    with page.expect_response(lambda r: r.request.method == "POST" and r.url.endswith("/tables")) as made:
        page.click("#create-btn")
    info = web.client.get(f"/tables/{made.value.json()['id']}").json()
    assert (info["game"], info["players"], info["options"][option]) == (game, 4, 3)
    assert page.text_content("#create-error") == ""
    assert tab.errors == []


def test_a_refusal_reads_in_french_on_a_french_page(web, browse):
    c = web.client
    table = c.post("/tables", json={"game": "maumau", "players": 2, "bots": {"1": "heuristic"},
                                    "turn_seconds": None}).json()["id"]
    tab = browse(locale="fr-FR")
    page = tab.page
    page.goto(web.base + "/")
    row = page.locator(f"#tables li[data-table='{table}']")
    row.locator("input[name=name]").fill("Tard")
    assert c.post(f"/tables/{table}/join", json={"name": "Tôt"}).status_code == 200  # the last seat goes first
    row.locator("button[type=submit]").click()
    row.locator(".error >> text=Toutes les places sont prises.").wait_for()
    assert page.url == web.base + "/"
    # the same page in English keeps the server's own words
    page.select_option("#lang", "en")
    en = c.post("/tables", json={"game": "maumau", "players": 2, "bots": {"1": "heuristic"},
                                 "turn_seconds": None}).json()["id"]
    page.reload()
    row = page.locator(f"#tables li[data-table='{en}']")
    row.locator("input[name=name]").fill("Late")
    assert c.post(f"/tables/{en}/join", json={"name": "Early"}).status_code == 200
    row.locator("button[type=submit]").click()
    row.locator(".error >> text=every seat is taken").wait_for()
    assert [e for e in tab.errors if "409" not in e] == []


def test_create_errors_name_the_field(web, browse):
    g = next(g for g in web.client.get("/games").json() if g["name"] == "maumau")
    tab = browse()
    page = tab.page
    made = posts(page, "/tables")
    choose_game(page, web, "maumau")
    page.fill("#players", "2.5")
    page.click("#create-btn")
    want = f"Players: a whole number from {g['min_players']} to {g['max_players']}."
    page.wait_for_selector(f"#create-error >> text={want}")
    assert page.get_attribute("#players", "aria-invalid") == "true"
    assert page.evaluate("document.activeElement.id") == "players"
    page.fill("#players", "3")
    for turn in ("0", "601", "1.5"):
        page.fill("#turn", turn)
        page.click("#create-btn")
        page.wait_for_selector("#create-error >> text=Turn clock: leave it empty (no clock) or give whole seconds "
                               "from 1 to 600.")
        assert page.get_attribute("#turn", "aria-invalid") == "true"
        assert page.get_attribute("#players", "aria-invalid") is None
    assert made == []
    page.fill("#turn", "600")
    with page.expect_response(lambda r: r.request.method == "POST" and r.url.endswith("/tables")) as answer:
        page.click("#create-btn")
    assert answer.value.status == 201, answer.value.text()
    assert len(made) == 1 and page.text_content("#create-error") == ""
    assert tab.errors == []


def test_the_log_heading_stays_in_sight_when_the_log_scrolls(web, browse):
    table, token = finished_maumau(web)
    tab = browse()
    page = tab.page
    open_as(tab, web, table, token)
    page.wait_for_selector("#result table")
    page.evaluate("() => { const ol = document.getElementById('log'); for (let i = 0; i < 60; i++)"
                  " ol.append(Object.assign(document.createElement('li'), {textContent: 'x'})); }")
    assert page.evaluate("() => { const ol = document.getElementById('log');"
                         " return ol.scrollHeight > ol.clientHeight; }")
    page.evaluate("() => { const ol = document.getElementById('log'); ol.scrollTop = ol.scrollHeight; }")
    # the heading is not inside the scrolling box: it stays where it was
    assert page.evaluate("() => document.getElementById('log-h').parentElement.scrollTop") == 0
    assert page.evaluate("() => getComputedStyle(document.getElementById('log')).overflowY") == "auto"


def test_plurals_in_english_and_french(web, browse):
    tab = browse()
    page = tab.page
    page.goto(web.base + "/")
    got = page.evaluate("""async () => {
        const { fill } = await import('/static/i18n.js');
        const dix = await import('/static/games/dix.js');
        const mauw = await import('/static/games/mauw.js');
        const mmd = await import('/static/games/maudit_mot_dit.js');
        const names = ['Ana', 'Bo'];
        const paid = (n, l) => dix.describe({type: 'TokensPaid', seat: 1, data: {count: n}}, names, l);
        const drew = (n, l) => mauw.describe({type: 'CardsDrawn', seat: 0, data: {count: n}}, names, l);
        return [fill('{0} {0|card|cards}', [1], 'en'), fill('{0} {0|card|cards}', [0], 'en'),
                fill('{0} {0|carte|cartes}', [0], 'fr'), fill('{0} {0|carte|cartes}', [2], 'fr'),
                paid(1, 'en'), paid(3, 'en'), paid(1, 'fr'), drew(1, 'en'), drew(2, 'fr'),
                mmd.describe !== undefined];
    }""")
    assert got == ["1 card", "0 cards", "0 carte", "2 cartes", "Bo pays 1 token.", "Bo pays 3 tokens.",
                   "Bo paie 1 jeton.", "Ana draws 1 card.", "Ana pioche 2 cartes.", True]
    # the lobby names the bots' strategies in French
    fr = browse(locale="fr-FR")
    fr.page.goto(web.base + "/")
    fr.page.wait_for_selector("#seat-1 option[value=heuristic]", state="attached")
    assert fr.page.locator("#seat-1 option[value=heuristic]").inner_text() == "robot : heuristique"
    assert tab.errors == [] and fr.errors == []


def test_the_options_form_speaks_french_without_section_marks(web, browse):
    tab = browse(locale="fr-FR")
    page = tab.page
    choose_game(page, web, "maudix")
    page.wait_for_selector("#opt-first_dealer")
    text = page.inner_text("#options")
    assert "§" not in text and "None" not in text and "null" not in text
    assert page.locator("label:has(#opt-first_dealer) > span").first.inner_text().strip() == "Premier donneur"
    legend = page.locator("#options fieldset legend").first.inner_text()
    assert legend == "Contrats"
    boxes = page.locator("#options fieldset label").all_inner_texts()
    assert [b.strip() for b in boxes] == ["Les Plis", "Les Dames", "Les Têtes", "L’Association", "La Chasse",
                                          "La Prédiction", "Le Maudix"]
    assert "Aucun coché : les sept, dans l’ordre." in text
    page.select_option("#game", "maumau")
    page.wait_for_selector("#opt-ace_power")
    assert page.locator("#opt-ace_power option").all_inner_texts() == [
        "aucun", "les autres piochent 1", "les autres passent leur tour"]
    assert "Hand Size" not in page.inner_text("#options") and "Cartes en main" in page.inner_text("#options")
    # in English: the same form, English words
    page.select_option("#lang", "en")
    page.wait_for_selector("#options >> text=Ace power")
    assert page.locator("#opt-ace_power option").all_inner_texts() == [
        "none", "the others draw 1", "the others are skipped"]
    assert tab.errors == []


def test_the_standings_total_column_fits_a_phone(web, browse):
    c = web.client
    table = c.post("/tables", json={"game": "maudit_mot_dit", "players": 3, "bots": {"2": "heuristic"},
                                    "turn_seconds": None}).json()["id"]
    token = c.post(f"/tables/{table}/join", json={"name": "Wilhelmina-Augusta-Maximiliana"}).json()["token"]
    c.post(f"/tables/{table}/join", json={"name": "M" * 40})
    tab = browse(width=390, height=844, locale="fr-FR")
    page = tab.page
    open_as(tab, web, table, token)
    page.wait_for_selector(".mmd-standings th:last-child")
    zone, total = page.evaluate("""() => {
        const t = document.querySelector('.mmd-standings');
        const z = t.closest('.mmd-zone').getBoundingClientRect();
        const th = t.querySelector('th:last-child').getBoundingClientRect();
        return [[z.left, z.right], [th.left, th.right]];
    }""")
    assert zone[0] <= total[0] and total[1] <= zone[1], (zone, total)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
