"""The Mauw and Maudit Mot Dit boards (games/mauw.js, games/maudit_mot_dit.js)
in a real Chromium: a whole Mauw game played by clicking cards of the hand
(then the column, what a Joker stands for, where the winnings go) and a
whole Maudit Mot Dit game where the person types clues and answers into
the page's text boxes, a heuristic bot in each other seat. Every page is
checked against the table's true state (folded from its real events): the
Mauw board shows exactly the cards on the table (each Mauw as a back) and
the hand only its own cards; the secret word is in no guesser's or
spectator's page while the turn is played. Logs are read in English and
French; any console error but those of the refusals met fails the test."""

from __future__ import annotations

import re
import time
from collections import Counter

import pytest

from shared.games.maudit_mot_dit import lexicon
from shared.games.maudit_mot_dit.state import Phase, secret
from tests.browser.test_boards_maudix_dix import page_cards, same_version
from tests.browser.test_web_client import screenshot

pytestmark = pytest.mark.browser

COLOUR = {"en": {"R": "red", "Y": "yellow", "G": "green", "B": "blue"},
          "fr": {"R": "rouge", "Y": "jaune", "G": "vert", "B": "bleu"}}


def join(web, browse, game: str, players: int, name: str, options: dict | None = None):
    """A table of ``game`` with heuristic bots in every seat but 0, taken by
    ``name`` through the page's join form; returns (tab, table) once the
    page shows the board (the first move may be a bot's: Maudit Mot Dit's
    heuristic bots load their word vectors first)."""
    body = {"game": game, "players": players, "bots": {str(s): "heuristic" for s in range(1, players)},
            "turn_seconds": None, "options": options or {}}
    table = web.client.post("/tables", json=body).json()["id"]
    tab = browse()
    tab.page.goto(f"{web.base}/play/{table}")
    tab.page.fill("#join-name", name)
    tab.page.click("#join-form button[type=submit]")
    tab.page.wait_for_selector("#board > *")
    return tab, table


def my_commands(web, table: str) -> int:
    """How many commands of seat 0 sent by the page the table accepted."""
    return len({e.cmd for e in web.read_events(table) if (e.cmd or "").startswith("u0.web-")})


def act(web, page, table: str, do) -> str | None:
    """Make one move with ``do()`` (clicks, typing); None once the table took
    one more command of seat 0, else the refusal the page shows."""
    before = my_commands(web, table)
    page.evaluate("document.getElementById('error').textContent = ''")
    do()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if my_commands(web, table) > before:
            catch_up(web, page, table)
            return None
        error = page.inner_text("#error")
        if error:
            return error
        time.sleep(0.05)
    raise AssertionError("the move was neither taken nor refused")


def catch_up(web, page, table: str) -> None:
    """Wait until the page shows at least the table's latest version (never a
    fixed one a bot may already have passed)."""
    for _ in range(10):
        latest = len(web.read_events(table))
        page.wait_for_function("v => Number(document.body.dataset.version) >= v", arg=latest)
        if len(web.read_events(table)) == latest:
            return


def log_caught_up(page, events) -> None:
    """Wait until the page's log holds the table's last event (the result may show before the stream brings it)."""
    page.wait_for_function(
        "n => [...document.querySelectorAll('#log li')].some(li => Number(li.dataset.version) === n)", arg=len(events))


def fits_a_phone(tab) -> bool:
    """Whether the page, at a phone's width, is no wider than the screen."""
    tab.page.set_viewport_size({"width": 390, "height": 844})
    tab.page.wait_for_timeout(100)
    return tab.page.evaluate("document.documentElement.scrollWidth") <= 390


def wait_for_spectator(web, spec, table: str):
    """(game, state, events) once a spectator's page shows the table's latest version."""
    for _ in range(100):
        truth = same_version(web, spec.page, table)
        if truth is not None:
            return truth
        time.sleep(0.1)
    raise AssertionError("the spectator's page never caught up")


# ---------------------------------------------------------------------------
# Mauw
# ---------------------------------------------------------------------------


def mauw_short(code: str, lang: str = "en") -> str:
    """A card in a log line: "3 green", "✦ Spirit", "★3 green" (a Joker standing for a 3)."""
    star = "★" if code.startswith("*") else ""
    c = code.lstrip("*")
    if c == "SPIRIT":
        return f"{star}✦ {'Esprit' if lang == 'fr' else 'Spirit'}"
    if c == "JOKER":
        return "★ Joker"
    return f"{star}{c[0]} {COLOUR[lang][c[1]]}"


def mauw_played(event, names: list[str], lang: str) -> str:
    """The log line of a CardPlayed event."""
    d = event.data
    card = mauw_short("*" + d["as"] if d["card"] == "JOKER" else d["card"], lang)
    who, owner, col = names[event.seat], names[d["player"]], d["column"] + 1
    en = {"reinforce": f"{who} reinforces column {col} with {card}.",
          "associate": f"{who} plays {card} on column {col}: an association.",
          "block": f"{who} blocks column {col} of {owner} with {card}.",
          "unblock": f"{who} lifts the block of column {col} with {card}.",
          "attack": f"{who} attacks column {col} of {owner} with {card}."}
    fr = {"reinforce": f"{who} renforce la colonne {col} avec {card}.",
          "associate": f"{who} pose {card} sur la colonne {col} : une association.",
          "block": f"{who} bloque la colonne {col} de {owner} avec {card}.",
          "unblock": f"{who} débloque la colonne {col} avec {card}.",
          "attack": f"{who} attaque la colonne {col} de {owner} avec {card}."}
    return (fr if lang == "fr" else en)[d["move"]]


def mauw_public(state) -> Counter:
    """The cards on the table as the board must show them: every Mauw as a back, the tops, the discard's top,
    an attack card."""
    out: Counter = Counter()
    for area in state.areas:
        for col in area:
            out["MAUW"] += len(col.mauw)
            if col.top is not None:
                out[col.top] += 1
    if state.discard:
        out[state.discard[-1]] += 1
    if state.chain is not None and state.chain.card is not None:  # the attack card lying on its target
        out[state.chain.card] += 1
    return out


def check_mauw_page(page, state, seat: int | None) -> None:
    """The board shows exactly the cards on the table, column by column; the hand is the seat's own (none for a
    spectator); no log line names a card another seat drew."""
    assert Counter(page_cards(page, "#board")) == mauw_public(state)
    for player, area in enumerate(state.areas):
        for i, col in enumerate(area):
            shown = page_cards(page, f"#board .mauw-col[data-player='{player}'][data-column='{i}']")
            assert shown == ["MAUW"] * len(col.mauw) + ([col.top] if col.top else []), (player, i, shown)
    if seat is None:
        assert page.locator("#hand").count() == 0
    else:
        assert page_cards(page, "#hand") == state.hands[seat]
    for line in page.locator("#log li").all_inner_texts():
        if " draws " in line and not line.startswith("Ada "):
            m = re.search(r" draws (\d+) (card|cards)\.$", line)
            assert m and (m[2] == "card") == (m[1] == "1"), line


def play_mauw_card(page) -> tuple[int, int]:
    """Click the first usable card of the hand, then (when it can go to
    several places) the first column — on the board itself, in the column —,
    Joker declaration and place offered; returns (how many steps were
    clicked, how many of them on the board)."""
    card = page.locator("#hand button.card:not([disabled])").first
    moves = int(card.get_attribute("data-moves"))
    card.click()
    if moves == 1:
        return 0, 0
    on_board = 0
    for step in range(1, 5):
        here = page.locator("#board .mauw-col.target button.mauw-here")
        if here.count():
            assert here.count() == page.locator("#mauw-picker button[data-step=target]").count()
            here.first.click()
            on_board += 1
            continue
        button = page.locator("#mauw-picker button[data-action], #mauw-picker button.step").first
        final = button.get_attribute("data-action") is not None
        button.click()
        if final:
            return step, on_board
    raise AssertionError("the picker never offered the play")


def test_a_whole_mauw_game_through_its_board(web, browse):
    tab, table = join(web, browse, "mauw", 2, "Ada")
    page = tab.page
    done: list[str] = []
    checks = steps = on_board = 0
    spectator_checked = False
    deadline = time.monotonic() + 420
    while time.monotonic() < deadline:
        page.wait_for_function("""() => document.body.dataset.status === 'finished' || document.querySelector(
            '#hand button.card:not([disabled]), #mauw-moves [data-action]')""", timeout=60_000)
        if page.evaluate("document.body.dataset.status") == "finished":
            break
        truth = same_version(web, page, table)
        if truth is not None:
            check_mauw_page(page, truth[1], 0)
            checks += 1
        mode = page.get_attribute("#hand", "data-mode")
        if page.locator("#hand button.card:not([disabled])").count():
            what = "play" if mode == "play" else "reply"
            clicked = []
            error = act(web, page, table, lambda clicked=clicked: clicked.append(play_mauw_card(page)))
            steps += sum(c[0] for c in clicked)
            on_board += sum(c[1] for c in clicked)
        else:
            button = page.locator("#mauw-moves [data-action]").first
            what = button.get_attribute("data-action")
            error = act(web, page, table, button.click)
        assert error is None, error  # moves go without expected_version: a legal one is never refused
        done.append(what)
        if not spectator_checked and done.count("play") == 8:
            spec = browse()
            spec.page.goto(f"{web.base}/play/{table}")
            spec.page.wait_for_selector(".mauw-area")
            _game, state, _events = wait_for_spectator(web, spec, table)
            check_mauw_page(spec.page, state, None)
            assert spec.page.locator("#board [data-card=MAUW]").count() == sum(
                len(c.mauw) for a in state.areas for c in a)
            assert fits_a_phone(spec)
            assert spec.errors == []
            spectator_checked = True
            screenshot(tab, "mauw")  # docs/screenshots/mauw.png: the columns in the middle of a game
    assert page.evaluate("document.body.dataset.status") == "finished", done
    page.wait_for_selector("#result table")
    game, state, events = web.truth(table)
    result = game.result(state)
    assert result is not None
    names = ["Ada", "heuristic bot 1"]
    rows = page.locator("#result tbody tr")
    order = sorted(range(2), key=lambda s: result.places[s])
    assert [tuple(rows.nth(i).locator("td").all_inner_texts()) for i in range(rows.count())] == [
        (str(result.places[s]), names[s], str(result.scores[s])) for s in order]
    # every move was one accepted command of seat 0; plays are the CardPlayed events of seat 0
    assert my_commands(web, table) == len(done)
    mine = [e for e in events if e.type == "CardPlayed" and e.seat == 0]
    assert done.count("play") == len(mine) > 0
    assert steps > on_board > 0 and checks >= 5 and spectator_checked
    check_mauw_page(page, state, 0)
    # the seats' lines: each seat's final points
    for s in range(2):
        summary = page.locator(".seat").nth(s).inner_text()
        assert f"{result.scores[s]} points" in summary, summary
    # the log in words, with the names, in English then French
    log_caught_up(page, events)
    log = page.locator("#log li").all_inner_texts()
    expected = [mauw_played(e, names, "en") for e in mine]
    assert [line for line in log if line in set(expected)] == expected
    assert "undefined" not in page.inner_text("body") and "NaN" not in page.inner_text("body")
    page.select_option("#lang", "fr")
    page.wait_for_function("t => [...document.querySelectorAll('#log li')].some(li => li.textContent === t)",
                           arg=mauw_played(mine[0], names, "fr"))
    log_fr = page.locator("#log li").all_inner_texts()
    expected = [mauw_played(e, names, "fr") for e in mine]
    assert [line for line in log_fr if line in set(expected)] == expected, log_fr[:30]
    hand_label = page.locator("#hand [data-card]").first.get_attribute("aria-label") if state.hands[0] else ""
    assert "undefined" not in page.inner_text("body") and (not hand_label or "undefined" not in hand_label)
    assert tab.errors == []


# ---------------------------------------------------------------------------
# Maudit Mot Dit
# ---------------------------------------------------------------------------

#: French words a person might try as clues, in order; the first the game accepts for the secret is typed.
CLUES = ("objet", "nature", "maison", "animal", "couleur", "voyage", "musique", "travail", "enfant", "jardin",
         "lumière", "froid", "rouge", "grand", "histoire", "argent", "plaisir", "bruit", "forme", "chemin")
#: Answers the person types as a guesser (never the secret: checked before typing).
GUESSES = ("bateau", "cheval", "soleil", "fromage", "montagne", "chanson", "livre", "fenêtre", "orage", "pomme")


def js_number(x: float) -> str:
    """A number as the page writes it (JavaScript's String): 7.0 is "7"."""
    return str(int(x)) if float(x).is_integer() else str(x)


def valid_clue(state) -> str:
    """The first of :data:`CLUES` the clue checks let through for the current secret and clues."""
    word = secret(state)[0]
    for clue in CLUES:
        try:
            lexicon.check_clue(clue, word, state.clues)
        except Exception:  # noqa: BLE001 - IllegalAction: try the next word
            continue
        return clue
    raise AssertionError(f"no clue of the list fits {word!r}")


def shows_word(page, word: str) -> bool:
    """The word, whole, in the page's text or in an attribute (label, title, value of an input), beyond the
    site's name in the header ("Tapis" is also a game word)."""
    text = page.inner_text("body") + "\n" + "\n".join(page.evaluate("""() => [...document.querySelectorAll('*')]
        .flatMap(el => ['aria-label', 'title', 'value', 'data-word'].map(a => el.getAttribute(a)).filter(Boolean))
        .concat([...document.querySelectorAll('input')].map(i => i.value))"""))
    whole = re.compile(rf"(?<!\w){re.escape(word)}(?!\w)", re.IGNORECASE)
    return len(whole.findall(text)) > len(whole.findall(page.inner_text("header.top h1")))


def test_shows_word_sees_the_secret_beyond_the_sites_name(web, browse):
    tab = browse()
    page = tab.page
    page.goto(f"{web.base}/play/nosuchtable")
    page.wait_for_selector("header.top h1")
    assert not shows_word(page, "tapis")  # the header's "Tapis" alone
    page.evaluate("document.getElementById('title').textContent = 'Tapis'")
    assert shows_word(page, "tapis")  # once more, elsewhere: shown


def check_mmd_page(page, state, seat: int | None) -> bool:
    """While a word is being guessed, only its giver's page shows it; the
    candidate words show only to the active player. Returns whether the
    secret was looked for on a page that may not show it."""
    if state.phase in (Phase.OVER, Phase.BAD_LUCK) or state.choice is None:
        if state.phase is Phase.CHOOSE and seat != state.active:
            assert page.locator("#candidates").count() == 0
        return False
    word = secret(state)[0]
    if seat == state.active:
        assert word in page.inner_text("#secret")
        return False
    assert page.locator("#candidates").count() == 0
    assert not shows_word(page, word), word
    return True


def test_a_whole_maudit_mot_dit_game_typed_through_its_board(web, browse):
    tab, table = join(web, browse, "maudit_mot_dit", 3, "Zoé", {"trips": 1})
    page = tab.page
    done: list[str] = []
    typed: dict[str, list[str]] = {"clue": [], "propose": []}
    refused: list[str] = []
    hidden_checks = 0
    spectator_checked = False
    controls = "#mmd-choose button, #clue-form, #propose-form, #mmd-vote button, #mmd-bad-luck button, #mmd-pass button"
    deadline = time.monotonic() + 420
    while time.monotonic() < deadline:
        page.wait_for_function("""c => document.body.dataset.status === 'finished' || document.querySelector(c)""",
                               arg=controls, timeout=180_000)
        if page.evaluate("document.body.dataset.status") == "finished":
            break
        truth = same_version(web, page, table)
        if truth is not None:
            hidden_checks += check_mmd_page(page, truth[1], 0)
        state = web.truth(table)[1]
        if page.locator("#clue-form").count():
            what = "clue"
            if state.phase is not Phase.CLUE or state.active != 0:  # the page is a moment behind the table
                catch_up(web, page, table)
                continue
            if not spectator_checked:  # a spectator of the person's own turn (quiet: it waits for the clue)
                spec = browse()
                spec.page.goto(f"{web.base}/play/{table}")
                spec.page.wait_for_selector("#clues")
                _game, s2, _events = wait_for_spectator(web, spec, table)
                assert check_mmd_page(spec.page, s2, None)
                assert spec.page.locator("#clue-form, #propose-form, #candidates").count() == 0
                assert fits_a_phone(spec)
                assert spec.errors == []
                spectator_checked = True
            # a word the game refuses first: the page says why, the person types another
            word = "xyzzy" if not refused else valid_clue(state)
            box = page.locator("#clue-word")

            def give(box=box, word=word):
                box.fill("")
                box.press_sequentially(word)
                if word != "xyzzy" and not typed["clue"]:  # docs/screenshots/maudit_mot_dit.png: the giver typing
                    screenshot(tab, "maudit_mot_dit")
                page.locator("#clue-form button[data-action=clue]").click()
            error = act(web, page, table, give)
            if error is not None and "version" not in error.lower():
                assert (word, error) == ("xyzzy", "'xyzzy' is not a French word of the game's dictionary")
                refused.append(error)
                # the typed word stays in the box, to be corrected
                assert page.input_value("#clue-word") == "xyzzy"
                continue
            if error is None:
                typed["clue"].append(word)
        elif page.locator("#propose-form").count():
            if not done.count("pass"):
                what = "pass"
                error = act(web, page, table, page.locator("#propose-form button[data-action=pass]").click)
            else:
                what = "propose"
                word = next(g for g in GUESSES[len(typed["propose"]) % len(GUESSES):] + GUESSES
                            if state.choice is None or not lexicon.guess_matches(g, secret(state)[0]))
                box = page.locator("#propose-word")

                def answer(box=box, word=word):
                    box.fill("")
                    box.press_sequentially(word)
                    box.press("Enter")
                error = act(web, page, table, answer)
                if error is None:
                    typed["propose"].append(word)
        else:
            button = page.locator("#mmd-choose button, #mmd-vote button[data-agree=false], #mmd-bad-luck button, "
                                  "#mmd-pass button").first
            what = button.get_attribute("data-action")
            error = act(web, page, table, button.click)
        assert error is None, error  # moves go without expected_version: a legal one is never refused
        done.append(what)
        truth = same_version(web, page, table)
        if truth is not None:
            hidden_checks += check_mmd_page(page, truth[1], 0)
    assert page.evaluate("document.body.dataset.status") == "finished", done
    page.wait_for_selector("#result table")
    game, state, events = web.truth(table)
    result = game.result(state)
    assert result is not None
    names = ["Zoé", "heuristic bot 1", "heuristic bot 2"]
    rows = page.locator("#result tbody tr")
    order = sorted(range(3), key=lambda s: result.places[s])
    assert [tuple(rows.nth(i).locator("td").all_inner_texts()) for i in range(rows.count())] == [
        (str(result.places[s]), names[s], js_number(result.scores[s])) for s in order]
    # every move one accepted command of seat 0: the clues and answers as typed
    assert my_commands(web, table) == len(done)
    assert [e.data["clue"] for e in events if e.type == "ClueGiven" and e.seat == 0] == typed["clue"]
    assert [e.data["word"] for e in events if e.type == "GuessProposed" and e.seat == 0] == typed["propose"]
    assert done.count("choose") >= 1 and typed["clue"] and typed["propose"] and refused
    assert hidden_checks >= 2 and spectator_checked
    # the standings on the board: each seat's total
    for s in range(3):
        assert page.locator(f".mmd-standings tr[data-seat='{s}'] td").last.inner_text() == js_number(result.scores[s])
    # the log in words, with the names, in English then French
    log_caught_up(page, events)
    log = page.locator("#log li").all_inner_texts()
    first = typed["clue"][0]
    number = next(e.data["number"] for e in events if e.type == "ClueGiven" and e.seat == 0)
    assert f"Zoé gives clue {number}: «{first}»." in log, log[:30]
    assert f"Zoé answers «{typed['propose'][0]}» (sealed)." in log
    scored = [e for e in events if e.type == "TurnScored"]
    assert sum(line.startswith("The word was «") for line in log) == len(scored)
    assert f"The word was «{scored[0].data['word']}»" in "\n".join(log)
    assert "undefined" not in page.inner_text("body") and "NaN" not in page.inner_text("body")
    page.select_option("#lang", "fr")
    page.wait_for_function("t => [...document.querySelectorAll('#log li')].some(li => li.textContent === t)",
                           arg=f"Zoé donne l’indice {number} : « {first} ».")
    log_fr = page.locator("#log li").all_inner_texts()
    assert sum(line.startswith("Le mot était « ") for line in log_fr) == len(scored)
    assert sum(line.startswith("Zoé passe.") for line in log_fr) == done.count("pass")
    assert "undefined" not in page.inner_text("body")
    # the only console lines allowed: Chromium's note of each refusal the test typed on purpose (422, "xyzzy")
    assert [e for e in tab.errors if "status of 422" not in e] == []
    assert len(tab.errors) == len(refused)
