"""The Maudix and DIX boards (games/maudix.js, games/dix.js) in a real
Chromium: a whole DIX game, a whole two-round Maudix game (the
contracts L'Association and La Prédiction: écart, designations, bids, the
Voleur when a Jack wins) and a whole standard Maudix game (the seven
contracts, no option) played by clicking only, a heuristic bot in each
other seat; every page is checked against the table's true state (folded
from its real events) for cards it may not show, and any console error
fails the test."""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import dataclass, field

import pytest

from tests.browser.test_web_client import label, screenshot

pytestmark = pytest.mark.browser

JOKER_LABEL = {"PIRATE": "Pirate (joker)", "NAUFRAGE": "Naufragé (joker)"}


def maudix_label(code: str) -> str:
    """The English aria-label the Maudix board gives a card."""
    return JOKER_LABEL.get(code) or label(code)


def maudix_short(code: str) -> str:
    """The short text of a card on the Maudix board and log: "7♥", "☠ Pirate"."""
    if code in JOKER_LABEL:
        return {"PIRATE": "☠ Pirate", "NAUFRAGE": "⚓ Naufragé"}[code]
    m = re.match(r"^(10|[2-9JQKA])([SHDC])$", code)
    assert m, code
    return m[1] + {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[m[2]]


def join(web, browse, game: str, players: int, name: str, options: dict | None = None):
    """A table of ``game`` with heuristic bots in every seat but 0, taken by
    ``name`` through the page's join form; returns (tab, table)."""
    bots = {str(s): "heuristic" for s in range(1, players)}
    body = {"game": game, "players": players, "bots": bots, "turn_seconds": None}
    if options:
        body["options"] = options
    table = web.client.post("/tables", json=body).json()["id"]
    tab = browse()
    page = tab.page
    page.goto(f"{web.base}/play/{table}")
    page.fill("#join-name", name)
    page.click("#join-form button[type=submit]")
    page.wait_for_selector("#actions [data-action], #hand button.card:not([disabled])", timeout=30_000)
    return tab, table


def page_cards(page, root: str = "body") -> list[str]:
    """Every data-card on the page under ``root``, in document order."""
    return page.locator(f"{root} [data-card]").evaluate_all("els => els.map(e => e.dataset.card)")


def same_version(web, page, table):
    """(game, state, events) of the table when the page shows its latest version, else None."""
    version = int(page.evaluate("document.body.dataset.version"))
    game, state, events = web.truth(table)
    return (game, state, events) if len(events) == version else None


# ---------------------------------------------------------------------------
# Maudix
# ---------------------------------------------------------------------------


def maudix_known(state, events, seat: int) -> set[str]:
    """Cards ``seat`` may know in this round: its hand, its écart, the cards of its thefts."""
    known = set(state.hands[seat])
    if state.ecart_cards[seat]:
        known |= set(state.ecart_cards[seat])
    start = max((i for i, e in enumerate(events) if e.type in ("GameStarted", "RoundDealt")), default=0)
    for e in events[start:]:
        if e.type in ("CardStolen", "CardReturned") and seat in (e.seat, e.data.get("target")):
            known.add(e.data["card"])
    return known


def check_maudix_page(page, state, events, seat: int | None) -> int:
    """No card of another seat's hand (nor the removed cards) is anywhere in
    the page's cards, labels, or board and moves; returns how many hidden
    cards were looked for."""
    others = {c for s, hand in enumerate(state.hands) if s != seat for c in hand} | set(state.removed)
    hidden = others - (maudix_known(state, events, seat) if seat is not None else set())
    attrs = page.evaluate("""() => [...document.querySelectorAll('*')].flatMap(el =>
        ['aria-label', 'title', 'data-card'].map(a => el.getAttribute(a)).filter(Boolean))""")
    text = page.inner_text("#board") + page.inner_text("#actions")
    for card in hidden:
        assert card not in attrs, card
        assert maudix_label(card) not in attrs, card
        assert maudix_label(card) not in text and maudix_short(card) not in text, card
    if state.round == 0:  # in the first round no earlier round's cards are in the log: the whole page
        body = page.inner_text("body")
        for card in hidden:
            assert maudix_label(card) not in body and maudix_short(card) not in body, card
    return len(hidden)


def click_simultaneous(page, selector: str, gone: str, refused: list[str]) -> str | None:
    """Click the first ``selector`` of a simultaneous move (écart,
    designation) and wait until the move is taken (``gone`` leaves the
    page). A bot's move may land between the view and the click: the page
    sends no expected version, so a move still legal is applied all the
    same. Only a bot's écart to the same recipient, landing first, makes
    the person click twice: the page shows the refusal, redraws with the
    recipients still free (the picks kept), and the person clicks again.
    Each refusal goes in ``refused``. Returns the data-to of the button
    clicked."""
    for _ in range(3):
        before = page.evaluate("document.body.dataset.version")
        page.wait_for_selector(selector)
        # read the recipient and click in one step: a redraw between two
        # calls (a bot's move) could put another button first (seen under load)
        to = page.evaluate("s => { const b = document.querySelector(s); b.click(); return b.dataset.to; }", selector)
        page.wait_for_function("g => !document.querySelector(g) || document.getElementById('error').textContent",
                               arg=gone)
        if not page.locator(gone).count():
            return to
        error = page.inner_text("#error")
        assert error == "that player already receives another écart", error
        refused.append(error)
        page.wait_for_function("v => document.body.dataset.version !== v", arg=before)
        page.wait_for_selector(selector)
    raise AssertionError("the simultaneous move was refused three times")


@dataclass
class MaudixRun:
    """What :func:`play_maudix` did: the moves clicked (action types), the
    écarts picked (cards, recipient), how many pages were checked against
    the true state for hidden cards."""

    done: list[str] = field(default_factory=list)
    ecarts: list[tuple[list[str], int]] = field(default_factory=list)
    checks: int = 0
    spectator_checked: int = 0
    refused: list[str] = field(default_factory=list)


def play_maudix(web, browse, tab, table: str, seconds: float, shot: str | None = None) -> MaudixRun:
    """Play seat 0 of the Maudix ``table`` by clicking only until the game is
    over (or ``seconds`` have passed), checking the page against the true
    state for hidden cards whenever it shows the latest version, and a
    spectator's page once, after seat 0's third card (then the screenshot
    ``shot``, if named)."""
    page = tab.page
    run = MaudixRun()
    done, ecarts = run.done, run.ecarts
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        page.wait_for_function("""() => document.body.dataset.status === 'finished' || document.querySelector(
            '#hand button.card:not([disabled]), #actions [data-action]')""", timeout=60_000)
        if page.evaluate("document.body.dataset.status") == "finished":
            break
        truth = same_version(web, page, table)
        if truth is not None:
            game, state, events = truth
            assert page_cards(page, "#hand") == state.hands[0]
            run.checks += check_maudix_page(page, state, events, 0) > 0
        before = page.evaluate("document.body.dataset.version")
        mode = page.get_attribute("#hand", "data-mode")
        if mode == "ecart":
            # pick 3 cards on the hand (each a toggle), then the recipient
            picked = []
            for i in range(3):
                card = page.locator("#hand button.card[aria-pressed=false]").first
                picked.append(card.get_attribute("data-card"))
                card.click()
                page.wait_for_function(
                    "n => document.querySelectorAll('#hand button.card[aria-pressed=true]').length === n", arg=i + 1)
            hint = page.inner_text("#hand-hint")
            assert hint == "Your écart: pick 3 cards of your hand (3/3).", hint
            # a fourth card cannot be picked
            assert page.locator("#hand button.card[aria-pressed=false]:not([disabled])").count() == 0
            to = click_simultaneous(page, "#ecart-to button[data-action=ecart]", "#hand[data-mode=ecart]", run.refused)
            recipient = int(to or -1)
            assert page.locator("#hand[data-mode=ecart]").count() == 0
            ecarts.append((picked, recipient))
            done.append("ecart")
            continue
        if mode in ("play", "give_back"):
            page.locator("#hand button.card:not([disabled])").first.click()
            done.append(mode)
        else:
            button = page.locator("#actions [data-action]").first
            done.append(button.get_attribute("data-action"))
            if done[-1] == "designate":  # simultaneous too
                sel = "#actions [data-action=designate]"
                click_simultaneous(page, sel, sel, run.refused)
                continue
            button.click()
        page.wait_for_function("v => document.body.dataset.version !== v", arg=before)
        if not run.spectator_checked and done.count("play") == 3:
            # a spectator's page in the middle of the round: not one card of any hand
            spec = browse()
            spec.page.goto(f"{web.base}/play/{table}")
            spec.page.wait_for_selector("#trick")
            for _ in range(50):
                truth = same_version(web, spec.page, table)
                if truth is not None:
                    break
                time.sleep(0.2)
            assert truth is not None
            assert check_maudix_page(spec.page, truth[1], truth[2], None) >= 20
            assert spec.page.locator("#hand").count() == 0
            assert spec.errors == []
            run.spectator_checked = 1
            if shot:
                screenshot(tab, shot)
            spec.page.close()
    return run


def test_a_whole_maudix_game_through_its_board(web, browse):
    tab, table = join(web, browse, "maudix", 3, "Ivo", {"contracts": ["association", "prediction"]})
    page = tab.page
    run = play_maudix(web, browse, tab, table, 420, shot="maudix")  # docs/screenshots/maudix.png: a trick
    done, ecarts, checks, spectator_checked = run.done, run.ecarts, run.checks, run.spectator_checked
    assert page.evaluate("document.body.dataset.status") == "finished", done
    page.wait_for_selector("#result table")
    game, state, events = web.truth(table)
    result = game.result(state)
    assert result is not None
    names = ["Ivo", "heuristic bot 1", "heuristic bot 2"]
    rows = page.locator("#result tbody tr")
    order = sorted(range(3), key=lambda s: result.places[s])
    assert [tuple(rows.nth(i).locator("td").all_inner_texts()) for i in range(rows.count())] == [
        (str(result.places[s]), names[s], str(result.scores[s])) for s in order]
    # every move was a click: one accepted command of seat 0 each, the écarts with the cards clicked
    assert len({e.cmd for e in events if (e.cmd or "").startswith("u0.web-")}) == len(done)
    made = [(sorted(e.data["cards"]), e.data["to"]) for e in events if e.type == "EcartMade" and e.seat == 0]
    assert made == [(sorted(c), to) for c, to in ecarts] and len(made) == 2
    assert done.count("designate") == 1 and done.count("bid") == 1
    assert done.count("play") + done.count("give_back") == sum(
        1 for e in events if e.type in ("CardPlayed", "CardReturned") and e.seat == 0)
    assert checks >= 5 and spectator_checked
    # the log in words, with the names
    log = page.locator("#log li").all_inner_texts()
    mine = [e for e in events if e.type == "CardPlayed" and e.seat == 0]
    assert f"Ivo plays {maudix_short(mine[0].data['card'])}." in log, log[:40]
    assert any(line.startswith("Round 2 (La Prédiction") for line in log)
    assert sum(line.startswith("Ivo bids ") for line in log) == 1
    assert "undefined" not in page.inner_text("body") and "NaN" not in page.inner_text("body")
    page.select_option("#lang", "fr")  # the same log in French
    page.wait_for_function("p => [...document.querySelectorAll('#log li')].some(li => li.textContent.startsWith(p))",
                           arg="Ivo joue ")
    log_fr = page.locator("#log li").all_inner_texts()
    first_fr = maudix_short(mine[0].data["card"]).replace("J", "V").replace("Q", "D").replace("K", "R")
    assert f"Ivo joue {first_fr}." in log_fr
    assert sum(line.startswith("Ivo annonce ") for line in log_fr) == 1
    assert "undefined" not in page.inner_text("body")
    # no console error but Chromium's note of each écart refused because a bot's took its recipient first (422)
    assert [e for e in tab.errors if "status of 422" not in e] == [] and len(tab.errors) == len(run.refused)


#: The whole standard game: the seven contracts in their order (the default of the `contracts` option).
#: Played in full in CI: 80 s on the shared 2-core machine when quiet, up to 116 s under load (pytest --durations).
CONTRACTS = ["plis", "dames", "tetes", "association", "chasse", "prediction", "maudix"]
ROUND_TITLES = {"plis": "Les Plis", "dames": "Les Dames", "tetes": "Les Têtes", "association": "L'Association",
                "chasse": "La Chasse", "prediction": "La Prédiction", "maudix": "Maudix"}


def test_a_whole_standard_maudix_game_through_its_board(web, browse):
    contracts = CONTRACTS
    tab, table = join(web, browse, "maudix", 3, "Ugo")  # no option: the standard game
    page = tab.page
    assert web.client.get(f"/tables/{table}").json()["options"]["contracts"] == contracts
    run = play_maudix(web, browse, tab, table, 60 * 60)
    assert page.evaluate("document.body.dataset.status") == "finished", run.done
    page.wait_for_selector("#result table")
    game, state, events = web.truth(table)
    result = game.result(state)
    assert result is not None
    # every contract was played, one round each, in order; the totals are the rounds' points
    assert [e.data["contract"] for e in events if e.type in ("GameStarted", "RoundDealt")] == contracts
    assert result.detail["contracts"] == contracts and len(result.detail["rounds"]) == len(contracts)
    assert list(result.scores) == [sum(r[s] for r in result.detail["rounds"]) for s in range(3)]
    # the results with places, lowest total first
    names = ["Ugo", "heuristic bot 1", "heuristic bot 2"]
    rows = page.locator("#result tbody tr")
    order = sorted(range(3), key=lambda s: result.places[s])
    assert [tuple(rows.nth(i).locator("td").all_inner_texts()) for i in range(rows.count())] == [
        (str(result.places[s]), names[s], str(result.scores[s])) for s in order]
    assert sorted(result.places) == sorted(1 + sum(t < result.scores[s] for t in result.scores) for s in range(3))
    # every move a click: an écart a round, 18 cards a round (3 players: 18 tricks), the Voleur's hand-backs
    done = run.done
    assert len({e.cmd for e in events if (e.cmd or "").startswith("u0.web-")}) == len(done)
    assert done.count("ecart") == len(contracts) and len(run.ecarts) == len(contracts)
    assert done.count("designate") == contracts.count("association")
    assert done.count("bid") == contracts.count("prediction")
    assert done.count("play") == 18 * len(contracts) == sum(
        1 for e in events if e.type == "CardPlayed" and e.seat == 0)
    assert done.count("give_back") == sum(1 for e in events if e.type == "CardReturned" and e.seat == 0)
    # the hidden cards were looked for on the page in every round, and once on a spectator's page
    assert run.checks >= 3 * len(contracts) and run.spectator_checked
    # the log names every round and its contract
    log = page.locator("#log li").all_inner_texts()
    for n, c in enumerate(contracts, 1):
        assert any(line.startswith(f"Round {n} ({ROUND_TITLES[c]}") for line in log), (n, c)
    assert "undefined" not in page.inner_text("body") and "NaN" not in page.inner_text("body")
    # no console error but Chromium's note of each écart refused because a bot's took its recipient first (422)
    assert [e for e in tab.errors if "status of 422" not in e] == [] and len(tab.errors) == len(run.refused)


# ---------------------------------------------------------------------------
# DIX
# ---------------------------------------------------------------------------


def dix_public(state) -> Counter:
    """The cards on the table (tableau, auction, market, collections, discard, removed) as a multiset."""
    out = Counter(state.tableau) + Counter(state.market) + Counter(state.discard) + Counter(state.removed)
    for s in state.seats:
        out += Counter(s.collection)
    if state.auction is not None:
        out[state.auction.joker] += 1
    return out


def test_a_whole_dix_game_through_its_board(web, browse):
    tab, table = join(web, browse, "dix", 2, "Jo")
    page = tab.page
    done: list[str] = []
    checks = 0
    shot = False
    deadline = time.monotonic() + 420
    while time.monotonic() < deadline:
        page.wait_for_function("""() => document.body.dataset.status === 'finished'
            || document.querySelector('#actions [data-action]')""", timeout=60_000)
        if page.evaluate("document.body.dataset.status") == "finished":
            break
        truth = same_version(web, page, table)
        if truth is not None:  # the board shows exactly the cards on the table: never one of the deck
            _game, state, _events = truth
            assert Counter(page_cards(page, "#board")) == dix_public(state)
            assert page.locator("#tableau [data-card]").evaluate_all("els => els.map(e => e.dataset.card)") == list(
                state.tableau)
            checks += 1
        before = page.evaluate("document.body.dataset.version")
        turn = page.locator("#dix-turn")
        if turn.count():
            flip = turn.locator("[data-action=flip]")
            total = int(turn.get_attribute("data-total"))
            if flip.count() and (total <= 5 or not turn.locator("[data-action=take_numbers]").count()):
                button = flip
            elif turn.locator("[data-action=take_numbers]").count():
                button = turn.locator("[data-action=take_numbers]")
            else:
                button = turn.locator("[data-action]").first
        elif page.locator("#dix-bid [data-action=bid]").count():
            button = page.locator("#dix-bid [data-action=bid]").first  # the lowest bid
        elif page.locator("#dix-buy [data-action=buy]").count():
            button = page.locator("#dix-buy [data-action=buy]").first
        else:
            button = page.locator("#actions [data-action]").first
        what = button.get_attribute("data-action")
        if what == "buy" and not shot:
            screenshot(tab, "dix")
            shot = True
        button.click()
        done.append(what)
        page.wait_for_function("v => document.body.dataset.version !== v", arg=before)
    assert page.evaluate("document.body.dataset.status") == "finished", done
    page.wait_for_selector("#result table")
    game, state, events = web.truth(table)
    result = game.result(state)
    assert result is not None
    rows = page.locator("#result tbody tr")
    names = ["Jo", "heuristic bot 1"]
    order = sorted(range(2), key=lambda s: result.places[s])
    assert [tuple(rows.nth(i).locator("td").all_inner_texts()) for i in range(rows.count())] == [
        (str(result.places[s]), names[s], str(result.scores[s])) for s in order]
    assert len({e.cmd for e in events if (e.cmd or "").startswith("u0.web-")}) == len(done)
    assert done.count("flip") == sum(1 for e in events if e.type == "CardFlipped" and e.seat == 0) > 0
    assert checks >= 10
    # the seats' lines: tokens and the final score of each seat
    for s in range(2):
        summary = page.locator(".seat").nth(s).inner_text()
        assert f"{result.scores[s]} points" in summary, summary
    # the log in words: every flip with its card in words
    log = page.locator("#log li").all_inner_texts()
    flips = [line for line in log if " flips " in line]
    assert len(flips) == sum(1 for e in events if e.type == "CardFlipped")
    assert sum(line.startswith("Jo flips ") for line in flips) == done.count("flip")
    if not shot:
        screenshot(tab, "dix")
    assert "undefined" not in page.inner_text("body") and "NaN" not in page.inner_text("body")
    page.select_option("#lang", "fr")  # the same board and log in French
    page.wait_for_function("p => [...document.querySelectorAll('#log li')].some(li => li.textContent.startsWith(p))",
                           arg="Jo retourne ")
    log_fr = page.locator("#log li").all_inner_texts()
    assert sum(line.startswith("Jo retourne ") for line in log_fr) == done.count("flip")
    labels = page.locator("#board .dix-seat [data-card]").evaluate_all(
        "els => els.map(e => e.getAttribute('aria-label'))")
    expected = []
    for seat in state.seats:
        for code in seat.collection:
            colour = {"R": "rouge", "Y": "jaune", "G": "vert", "B": "bleu"}.get(code[0])
            if code[1:].isdigit() and colour:
                expected.append(f"{code[1]} {colour}")
            elif code.endswith("#"):
                expected.append(f"joker {colour} (tout nombre)")
            else:
                expected.append(f"joker {code[1]} (toute couleur)")
    assert labels == expected
    assert "undefined" not in page.inner_text("body")
    assert tab.errors == []
