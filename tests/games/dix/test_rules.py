"""DIX rules: one test per answer of the publisher's rules Q&A and per
"frequent mistake" it lists, plus the rulings (all as implemented in
docs/games/dix.md).

Style: Given a position folded from events (a ``Table`` with a chosen deck,
``deck[0]`` flipped first) / When an action / Then the exact events.
"""

from __future__ import annotations

from collections import Counter

import pytest

from shared.games.dix import GAME
from shared.games.dix.cards import deck_for, full_deck, removed_cards
from tests.games.dix.helpers import (
    FLIP,
    PASS,
    PAY_CONSOLATION,
    TAKE_CURRENCY,
    TAKE_NUMBERS,
    Table,
    bid,
    buy,
    ev,
    pay_card,
    pay_tokens,
)

FILL = ["B1"] * 8  # cards at the bottom so the game does not end by accident


# --------------------------------------------------------------------------
# Setup (p. 4, rulings)


def test_full_box_has_128_cards_as_ruled():
    """Ruling: per colour 1–3 ×3, 4–6 ×3, 7–9 ×1 and two # jokers; nine numbered jokers; 27 Currency cards."""
    box = Counter(full_deck())
    assert sum(box.values()) == 128
    assert box["R1"] == 3 and box["Y6"] == 3 and box["G7"] == 1 and box["B#"] == 2
    assert all(box[f"*{n}"] == 1 for n in range(1, 10))
    assert [box[f"${v}"] for v in range(1, 6)] == [7, 6, 6, 4, 4]


def test_three_players_remove_the_four_plus_cards():
    """p. 4: at 3 players remove the cards with the four-lozenge symbol (one 1, 2, 3 a colour, Currency 1–4)."""
    removed = removed_cards(3)
    assert Counter(removed) == Counter(
        [f"{c}{n}" for c in "RYGB" for n in (1, 2, 3)] + ["$1", "$2", "$3", "$4"]
    )
    deck = Counter(deck_for(3))
    assert sum(deck.values()) == 112
    assert deck["R1"] == 2 and deck["R4"] == 3 and deck["$1"] == 6 and deck["$5"] == 4


def test_two_players_remove_both_lozenge_symbols():
    """p. 4: at 2 players remove the cards marked with either symbol (also one 4, 5, 6 a colour, Currency 2–5)."""
    deck = Counter(deck_for(2))
    assert sum(deck.values()) == 96 and len(removed_cards(2)) == 32
    assert deck["Y2"] == 2 and deck["Y5"] == 2 and deck["Y9"] == 1 and deck["Y#"] == 2
    assert [deck[f"${v}"] for v in range(1, 6)] == [6, 4, 4, 2, 3]


@pytest.mark.parametrize("players,size", [(1, 96), (2, 96), (3, 112), (4, 128), (5, 128)])
def test_start_deals_the_deck_for_the_player_count_and_five_tokens_each(players, size):
    """Rulings: deck by player count (solo uses the 2-player deck); 5 currency tokens each; empty market."""
    import random

    events = GAME.start(GAME.Options(), players, random.Random(7))
    assert [e.type for e in events] == ["GameStarted"]
    assert len(events[0].data["deck"]) == size
    assert Counter(events[0].data["deck"]) == Counter(deck_for(players))
    view = GAME.view(GAME.evolve(None, events[0]), 0)
    assert [s["tokens"] for s in view["seats"]] == [5] * players
    assert view["market"] == [] and view["talon_size"] == size


# --------------------------------------------------------------------------
# Busting (p. 9)


def test_total_of_ten_does_not_bust():
    """p. 9: you bust when the total reaches 11 or more — 10 is safe."""
    t = Table(["R4", "Y6", *FILL])
    assert t.act(0, FLIP) == [ev("CardFlipped", {"card": "R4"}, 0)]
    assert t.act(0, FLIP) == [ev("CardFlipped", {"card": "Y6"}, 0)]
    assert t.view()["total"] == 10 and {"type": "flip"} in t.legal(0)


def test_bust_when_the_total_reaches_eleven():
    """p. 9: the flipped card brings the total to 11 or more: bust, Number cards to the market, a consolation token."""
    t = Table(["R5", "Y6", *FILL])
    t.act(0, FLIP)
    assert t.act(0, FLIP) == [
        ev("CardFlipped", {"card": "Y6"}, 0),
        ev("Busted", {"cause": "total", "market": ["R5", "Y6"], "discard": [], "paid": [0, 0]}, 0),
        ev("TurnEnded", {"next": 1}),
    ]
    assert t.view()["market"] == ["R5", "Y6"] and t.view()["tableau"] == []
    assert t.seat(0)["consolation"] == 1 and t.seat(0)["collection"] == []
    assert t.awaiting == [1]


def test_currency_subtracts_from_the_total():
    """Frequent mistake: Currency cards lower the total (9 − 3 + 4 = 10: no bust)."""
    t = Table(["R9", "$3", "Y4", *FILL])
    t.script((0, FLIP), (0, FLIP))
    assert t.act(0, FLIP) == [ev("CardFlipped", {"card": "Y4"}, 0)]
    assert (t.view()["total"], t.view()["currency"]) == (10, 3)


def test_bust_by_currency_alone():
    """p. 9 / frequent mistake: Currency cards alone worth 11 or more bust, although the total is negative."""
    t = Table(["$5", "$4", "$2", *FILL], players=3)
    t.script((0, FLIP), (0, FLIP))
    assert t.act(0, FLIP) == [
        ev("CardFlipped", {"card": "$2"}, 0),
        ev("Busted", {"cause": "currency", "market": [], "discard": ["$5", "$4", "$2"], "paid": [0, 0, 0]}, 0),
        ev("TurnEnded", {"next": 1}),
    ]
    assert [t.seat(i)["tokens"] for i in range(3)] == [5, 5, 5]
    assert t.seat(0)["consolation"] == 1


def test_bust_by_currency_pays_nobody_even_with_numbers_in_the_tableau():
    """p. 9: the others receive money only when the total, not the currency, passed 10."""
    t = Table(["R2", "$5", "$5", "$1", *FILL], players=3)
    t.script((0, FLIP), (0, FLIP), (0, FLIP))
    events = t.act(0, FLIP)
    assert events[1] == ev(
        "Busted", {"cause": "currency", "market": ["R2"], "discard": ["$5", "$5", "$1"], "paid": [0, 0, 0]}, 0
    )
    assert t.view()["market"] == ["R2"]


def test_bust_by_total_pays_the_others_the_currency():
    """p. 9: when the total passed 10, each other player receives the value of the Currency cards."""
    t = Table(["R9", "$2", "Y4", *FILL], players=3)
    t.script((0, FLIP), (0, FLIP))
    assert t.act(0, FLIP)[1] == ev(
        "Busted", {"cause": "total", "market": ["R9", "Y4"], "discard": ["$2"], "paid": [0, 2, 2]}, 0
    )
    assert [t.seat(i)["tokens"] for i in range(3)] == [5, 7, 7]
    assert t.view()["discard"] == ["$2"]


def test_no_buy_after_busting():
    """p. 10: a buy only after taking the Number cards *without busting*: the turn passes at once."""
    t = Table(["R5", "Y6", *FILL])
    t.script((0, FLIP), (0, FLIP))
    assert t.awaiting == [1] and t.view()["phase"] == "turn"
    assert t.refuse(0, buy("R5")) == "not_your_turn"


# --------------------------------------------------------------------------
# Stopping (p. 8–10)


def test_taking_number_cards_pays_every_other_player():
    """Frequent mistake: when you take the Number cards, each other player receives the tableau's currency."""
    t = Table(["R3", "$2", "Y1", *FILL], players=3)
    t.script((0, FLIP), (0, FLIP), (0, FLIP))
    assert t.act(0, TAKE_NUMBERS) == [
        ev("NumbersTaken", {"cards": ["R3", "Y1"], "discard": ["$2"], "paid": [0, 2, 2]}, 0)
    ]
    assert [t.seat(i)["tokens"] for i in range(3)] == [5, 7, 7]
    assert t.seat(0)["collection"] == ["R3", "Y1"]
    assert t.view()["phase"] == "buy" and t.awaiting == [0]


def test_taking_the_currency_puts_the_numbers_in_the_market():
    """Stop and take the currency: tokens worth the Currency cards; the turn ends without a buy (ours: Numbers to the market)."""
    t = Table(["R3", "$2", "$1", *FILL])
    t.script((0, FLIP), (0, FLIP), (0, FLIP))
    assert t.act(0, TAKE_CURRENCY) == [
        ev(
            "CurrencyTaken",
            {"value": 3, "tokens": 3, "numbers": ["R3"], "numbers_to": "market", "discard": ["$2", "$1"]},
            0,
        ),
        ev("TurnEnded", {"next": 1}),
    ]
    assert t.seat(0)["tokens"] == 8 and t.seat(1)["tokens"] == 5
    assert t.view()["market"] == ["R3"]


def test_option_numbers_on_currency_discard():
    """Option numbers_on_currency="discard": the Number cards are discarded instead."""
    t = Table(["R3", "$2", *FILL], numbers_on_currency="discard")
    t.script((0, FLIP), (0, FLIP), (0, TAKE_CURRENCY))
    assert t.view()["market"] == [] and t.view()["discard"] == ["R3", "$2"]


def test_cannot_stop_before_flipping_a_card():
    """p. 8: flip cards one at a time, then stop: an empty tableau cannot be taken (tableau_empty)."""
    t = Table(["R3", *FILL])
    assert t.legal(0) == [{"type": "flip"}]
    assert t.refuse(0, TAKE_NUMBERS) == "tableau_empty"
    assert t.refuse(0, TAKE_CURRENCY) == "tableau_empty"


# --------------------------------------------------------------------------
# Money (p. 10)


def test_tokens_are_capped_at_ten():
    """Ruling: currency tokens held are capped at 10; the excess stays in the bank."""
    t = Table(["$5", "$2", *FILL])
    t.script((0, FLIP), (0, FLIP))
    assert t.act(0, TAKE_CURRENCY)[0].data["tokens"] == 5  # 5 held + 7 -> 10
    assert t.seat(0)["tokens"] == 10
    assert t.view()["bank"] == 2 * 10 - 10 - 5


def _ten_tokens_then_bust() -> Table:
    """Seat 0 takes currency up to 10 tokens, then busts: 10 tokens + a consolation token."""
    t = Table(["$5", "$2", "R1", "Y9", "G9", *FILL])
    t.script((0, FLIP), (0, FLIP), (0, TAKE_CURRENCY))
    t.script((1, FLIP), (1, TAKE_CURRENCY))
    t.script((0, FLIP), (0, FLIP))
    return t


def test_consolation_tokens_are_outside_the_cap():
    """p. 10: a consolation token does not count against the limit of ten."""
    t = _ten_tokens_then_bust()
    assert (t.seat(0)["tokens"], t.seat(0)["consolation"], t.seat(0)["money"]) == (10, 1, 13)


def _consolation_then_buy_phase(market_bust: list[str]) -> Table:
    """Seat 0 busts with ``market_bust`` (a consolation token), seat 1 takes G1,
    seat 0 takes B1 and is in its buy phase."""
    t = Table([*market_bust, "G1", "B2", *FILL])
    for _ in market_bust:
        t.act(0, FLIP)
    t.script((1, FLIP), (1, TAKE_NUMBERS), (1, PASS))
    t.script((0, FLIP), (0, TAKE_NUMBERS))
    return t


def test_consolation_token_is_worth_three():
    """p. 10: a consolation token is worth three currency tokens: it pays a 3 alone."""
    t = _consolation_then_buy_phase(["R3", "Y8"])
    assert t.act(0, buy("R3")) == [ev("CardBought", {"card": "R3", "price": 3}, 0)]
    assert t.act(0, PAY_CONSOLATION) == [ev("ConsolationPaid", {}, 0), ev("TurnEnded", {"next": 1})]
    assert t.seat(0)["collection"] == ["R3", "B2"]
    assert (t.seat(0)["tokens"], t.seat(0)["consolation"]) == (5, 0)


def test_consolation_token_is_spent_whole_without_change():
    """p. 10 / frequent mistake: the token is spent whole, no change — paying 1 with it gives nothing back."""
    t = _consolation_then_buy_phase(["R1", "Y9", "G1"])
    t.act(0, buy("R1"))
    assert t.act(0, PAY_CONSOLATION) == [ev("ConsolationPaid", {}, 0), ev("TurnEnded", {"next": 1})]
    assert (t.seat(0)["tokens"], t.seat(0)["consolation"]) == (5, 0)
    assert t.view()["bank"] == 2 * 10 - 10  # nothing came back from the bank either


def test_consolation_tokens_cannot_be_exchanged():
    """p. 10: consolation tokens are not exchanged for currency — no action offers it."""
    t = _consolation_then_buy_phase(["R1", "Y9", "G1"])
    kinds = {a["type"] for a in t.legal(0)}
    assert kinds == {"pass", "buy"}


# --------------------------------------------------------------------------
# The market (p. 10)


def _market_and_buy_phase() -> Table:
    """Seat 0 busts [R2, Y9] into the market; seat 1 takes R5 and may buy."""
    t = Table(["R2", "Y9", "R5", *FILL])
    t.script((0, FLIP), (0, FLIP), (1, FLIP), (1, TAKE_NUMBERS))
    return t


def test_buy_one_card_at_its_face_value():
    """p. 10: one card from the market at the price of its number."""
    t = _market_and_buy_phase()
    assert {"type": "buy", "card": "R2"} in t.legal(1)
    assert {"type": "buy", "card": "Y9"} not in t.legal(1)  # 9 > 5 tokens + 1 card
    assert t.act(1, buy("R2")) == [ev("CardBought", {"card": "R2", "price": 2}, 1)]
    assert t.awaiting == [1] and t.view()["debt"] == {"seat": 1, "owed": 2, "item": "R2"}
    assert t.act(1, pay_tokens(2)) == [ev("TokensPaid", {"count": 2}, 1), ev("TurnEnded", {"next": 0})]
    assert t.seat(1)["collection"] == ["R2", "R5"] and t.seat(1)["tokens"] == 3
    assert t.view()["market"] == ["Y9"] and t.view()["bank"] == 12


def test_only_one_buy_per_turn():
    """Frequent mistake: a single market card per turn — after the buy the turn is over."""
    t = _market_and_buy_phase()
    t.script((1, buy("R2")), (1, pay_tokens(2)))
    assert t.refuse(1, buy("Y9")) == "not_your_turn"
    t.act(0, FLIP)
    assert t.refuse(0, buy("Y9")) == "buy_not_allowed"


def test_cannot_buy_a_number_already_owned_in_that_colour():
    """p. 10 / frequent mistake: never the same number in the same colour as one of yours."""
    t = Table(["R5", "Y9", "R5", *FILL])
    t.script((0, FLIP), (0, FLIP), (1, FLIP), (1, TAKE_NUMBERS))  # market R5, Y9; seat 1 owns R5
    assert {"type": "buy", "card": "R5"} not in t.legal(1)
    assert t.refuse(1, buy("R5")) == "already_own_number"


def test_same_number_in_another_colour_may_be_bought():
    """p. 10: the ban is per colour: a red 2 may be bought while holding a yellow 2."""
    t = Table(["R2", "Y9", "Y2", *FILL])
    t.script((0, FLIP), (0, FLIP), (1, FLIP), (1, TAKE_NUMBERS))
    assert t.act(1, buy("R2")) == [ev("CardBought", {"card": "R2", "price": 2}, 1)]


def test_buy_only_after_taking_the_number_cards():
    """p. 10: no buy before stopping (buy_not_allowed)."""
    t = _market_and_buy_phase()
    t.script((1, PASS), (0, FLIP))
    assert t.refuse(0, buy("R2")) == "buy_not_allowed"


def test_no_buy_after_taking_the_currency():
    """p. 10: taking the currency forfeits the buy — solo shows it: the next action may not be a buy."""
    t = Table(["R2", "Y9", "$1", *FILL], players=1)
    t.script((0, FLIP), (0, FLIP))  # bust: R2, Y9 to the market
    t.act(0, FLIP)
    assert t.act(0, TAKE_CURRENCY)[-1] == ev("TurnEnded", {"next": 0})
    assert t.refuse(0, buy("R2")) == "buy_not_allowed"


def test_cannot_buy_a_card_that_is_not_in_the_market():
    """The market holds the cards you may buy (card_not_in_market)."""
    t = _market_and_buy_phase()
    assert t.refuse(1, buy("G3")) == "card_not_in_market"


def test_cannot_buy_beyond_your_means():
    """p. 10: the price must be paid (cannot_afford)."""
    t = _market_and_buy_phase()
    assert t.refuse(1, buy("Y9")) == "cannot_afford"


def test_pay_a_buy_with_number_cards_one_each():
    """p. 10–11: each Number card discarded counts as one currency, whatever its number."""
    t = Table(["$2", "R9", "Y4", "G7", "Y3", *FILL])
    t.script((0, FLIP), (0, FLIP), (0, FLIP))  # bust by total: R9, Y4 to the market, seat 1 gets 2
    t.script((1, FLIP), (1, FLIP), (1, TAKE_NUMBERS))  # seat 1 owns G7, Y3 and 7 tokens
    t.act(1, buy("R9"))
    assert t.act(1, pay_card("G7")) == [ev("CardPaid", {"card": "G7"}, 1)]
    assert t.view()["debt"]["owed"] == 8  # the 7 counts as one
    t.act(1, pay_card("Y3"))
    assert t.act(1, pay_tokens(5)) == [ev("TokensPaid", {"count": 5}, 1)]
    assert t.view()["debt"]["owed"] == 2
    assert t.refuse(1, pay_tokens(3)) == "cannot_afford"
    assert t.act(1, pay_tokens(2)) == [ev("TokensPaid", {"count": 2}, 1), ev("TurnEnded", {"next": 0})]
    assert t.seat(1)["collection"] == ["R9"] and t.seat(1)["tokens"] == 0
    assert t.view()["discard"] == ["Y3", "G7", "$2"]


def test_a_buy_must_be_affordable_with_everything_you_could_pay():
    """p. 10–11: tokens, consolation tokens and Number cards together must cover the price."""
    t = Table(["R9", "Y8", "G7", "Y3", *FILL])
    t.script((0, FLIP), (0, FLIP), (1, FLIP), (1, FLIP), (1, TAKE_NUMBERS))
    # seat 1: 5 tokens + G7 + Y3 = 7: the 8 and the 9 are out of reach
    assert t.refuse(1, buy("Y8")) == "cannot_afford"
    assert t.legal(1) == [{"type": "pass"}]


# --------------------------------------------------------------------------
# Jokers and auctions (p. 6, 11)


def test_a_flipped_joker_is_auctioned_from_the_left_and_the_active_player_speaks_last():
    """p. 11: starting from the player on the left, each bids once; the active player speaks last."""
    t = Table(["*5", *FILL], players=3, first=1)
    assert t.act(1, FLIP) == [ev("CardFlipped", {"card": "*5"}, 1)]
    assert t.view()["tableau"] == [] and t.view()["total"] == 0  # not in the total
    order = []
    for _ in range(3):
        order += t.awaiting
        t.act(t.awaiting[0], PASS)
    assert order == [2, 0, 1]


def test_each_bid_must_be_strictly_higher():
    """p. 11: each bids strictly more than the previous bid, or passes (bid_too_low)."""
    t = Table(["*5", *FILL], players=3)
    t.act(0, FLIP)
    assert t.refuse(1, bid(0)) == "bid_too_low"  # opening bid is at least 1
    assert t.act(1, bid(2)) == [ev("BidMade", {"amount": 2}, 1)]
    assert t.refuse(2, bid(2)) == "bid_too_low"
    assert [a["amount"] for a in t.legal(2) if a["type"] == "bid"] == [3, 4, 5]


def test_each_player_bids_only_once():
    """p. 11: each player bids once: after speaking a player is not asked again."""
    t = Table(["*5", *FILL], players=3)
    t.script((0, FLIP), (1, bid(1)))
    assert t.refuse(1, bid(3)) == "not_your_turn"
    t.script((2, PASS), (0, PASS))
    assert t.view()["phase"] == "payment" and t.awaiting == [1]


def test_highest_bidder_pays_and_keeps_the_joker():
    """p. 11: the highest bidder pays and keeps the joker; the turn then goes on."""
    t = Table(["*5", "R2", *FILL], players=3, first=1)
    t.script((1, FLIP), (2, bid(1)), (0, bid(3)))
    assert t.act(1, PASS) == [ev("BidPassed", {}, 1), ev("AuctionWon", {"joker": "*5", "price": 3}, 0)]
    assert t.act(0, pay_tokens(3)) == [ev("TokensPaid", {"count": 3}, 0)]
    assert t.seat(0)["collection"] == ["*5"] and t.seat(0)["tokens"] == 2
    assert t.seat(2)["tokens"] == 5  # the outbid player pays nothing
    assert t.awaiting == [1] and t.view()["phase"] == "turn"
    assert t.act(1, FLIP) == [ev("CardFlipped", {"card": "R2"}, 1)]


def test_the_active_player_may_win_its_own_auction():
    """p. 11: the active player speaks last and may outbid everyone."""
    t = Table(["*5", *FILL], players=2)
    t.script((0, FLIP), (1, bid(2)))
    assert t.act(0, bid(4)) == [ev("BidMade", {"amount": 4}, 0), ev("AuctionWon", {"joker": "*5", "price": 4}, 0)]


def test_joker_is_discarded_when_everybody_passes():
    """p. 11: if everybody passes, the joker is discarded."""
    t = Table(["G#", *FILL], players=2)
    t.script((0, FLIP), (1, PASS))
    assert t.act(0, PASS) == [ev("BidPassed", {}, 0), ev("JokerDiscarded", {"joker": "G#"})]
    assert t.view()["discard"] == ["G#"] and t.awaiting == [0]


def test_cannot_bid_more_than_you_could_pay():
    """p. 11: the winner must pay: a bid above tokens + consolation + Number cards is refused (cannot_afford)."""
    t = Table(["*5", *FILL], players=2)
    t.act(0, FLIP)
    assert t.refuse(1, bid(6)) == "cannot_afford"
    assert max(a.get("amount", 0) for a in t.legal(1)) == 5


def test_pay_an_auction_with_number_cards():
    """p. 11: at auctions too, each Number card discarded counts as one currency."""
    t = Table(["R3", "Y1", "*7", *FILL], players=2)
    t.script((0, FLIP), (0, FLIP), (0, TAKE_NUMBERS), (0, PASS))  # seat 0 owns R3, Y1
    t.script((1, FLIP), (0, bid(7)), (1, PASS))
    assert t.act(0, pay_card("R3")) == [ev("CardPaid", {"card": "R3"}, 0)]
    assert t.act(0, pay_card("Y1")) == [ev("CardPaid", {"card": "Y1"}, 0)]
    assert t.act(0, pay_tokens(5)) == [ev("TokensPaid", {"count": 5}, 0)]
    assert t.seat(0)["collection"] == ["*7"] and t.seat(0)["tokens"] == 0
    assert t.view()["discard"] == ["R3", "Y1"]


def test_jokers_cannot_pay():
    """p. 10–11: only Number cards count as currency (not_a_number_card)."""
    t = Table(["*5", "*6", *FILL], players=2)
    t.script((0, FLIP), (1, PASS), (0, bid(1)), (0, pay_tokens(1)))  # seat 0 owns *5
    t.script((0, FLIP), (1, PASS), (0, bid(2)))
    assert t.refuse(0, pay_card("*5")) == "not_a_number_card"
    assert t.refuse(0, pay_card("R1")) == "card_not_in_collection"
    assert all(a["type"] != "pay_card" for a in t.legal(0))


def test_tokens_cannot_overpay():
    """Paying gives no change: tokens beyond the price are refused (overpaid)."""
    t = Table(["*5", *FILL], players=2)
    t.script((0, FLIP), (1, bid(2)), (0, PASS))
    assert t.refuse(1, pay_tokens(3)) == "overpaid"
    assert t.refuse(1, pay_tokens(0)) == "bad_action"
    assert [a["count"] for a in t.legal(1) if a["type"] == "pay_tokens"] == [1, 2]


def test_cannot_pay_with_a_consolation_token_you_do_not_have():
    """p. 10: you pay with what you hold (cannot_afford)."""
    t = Table(["*5", *FILL], players=2)
    t.script((0, FLIP), (1, bid(2)), (0, PASS))
    assert t.refuse(1, PAY_CONSOLATION) == "cannot_afford"


# --------------------------------------------------------------------------
# End of the game and the final buy (p. 12)


def _final_position() -> Table:
    """Seat 0 busts [R1, Y9, G1]; seat 1 takes B5; seat 0 flips the last card R2."""
    t = Table(["R1", "Y9", "G1", "B5", "R2"], players=2)
    t.script((0, FLIP), (0, FLIP), (0, FLIP))
    t.script((1, FLIP), (1, TAKE_NUMBERS), (1, PASS))
    t.act(0, FLIP)
    return t


def test_the_last_card_ends_the_flipping():
    """p. 12: once the last card is drawn the active player finishes the turn without flipping again."""
    t = _final_position()
    assert t.view()["talon_size"] == 0
    assert t.refuse(0, FLIP) == "deck_empty"
    assert t.legal(0) == [{"type": "take_numbers"}, {"type": "take_currency"}]


def test_final_buy_round_from_the_left_then_the_score():
    """p. 12: the active player ends the turn, then everyone has a last buy phase (from the left, active last), then the count."""
    t = _final_position()
    t.script((0, TAKE_NUMBERS), (0, buy("R1")))
    assert t.act(0, pay_tokens(1)) == [ev("TokensPaid", {"count": 1}, 0), ev("FinalBuyRoundBegan", {"order": [1, 0]})]
    assert t.awaiting == [1]
    t.act(1, buy("G1"))
    assert t.act(1, pay_tokens(1)) == [ev("TokensPaid", {"count": 1}, 1)]
    assert t.awaiting == [0] and GAME.result(t.state) is None
    assert t.act(0, PASS) == [ev("BuyPassed", {}, 0), ev("GameEnded")]
    r = GAME.result(t.state)
    assert r.scores == (2, 2)  # R1 R2 | B5, G1
    assert r.detail["money"] == [4 + 3, 4]  # consolation counts 3
    assert r.places == (1, 2)  # tie on points: more money wins
    assert t.refuse(1, PASS) == "game_over"


def test_a_bust_on_the_last_card_goes_straight_to_the_final_buys():
    """p. 12: drawing the last card ends the game even when it busts."""
    t = Table(["R5", "Y6"], players=2)
    t.act(0, FLIP)
    assert t.act(0, FLIP)[-1] == ev("FinalBuyRoundBegan", {"order": [1, 0]})


def test_a_joker_as_last_card_is_still_auctioned():
    """p. 11–12: the last card, a joker, is auctioned; then the active player stops."""
    t = Table(["R1", "*3"], players=2)
    t.script((0, FLIP), (0, FLIP), (1, PASS), (0, PASS))
    assert t.legal(0) == [{"type": "take_numbers"}, {"type": "take_currency"}]


def test_tie_broken_by_fewer_cards():
    """p. 12: equal points and money: the player with fewer cards wins."""
    t = Table(["R1", "Y1", "Y1"], players=2)
    t.script((0, FLIP), (0, TAKE_NUMBERS), (0, PASS))
    t.script((1, FLIP), (1, FLIP), (1, TAKE_NUMBERS), (1, PASS), (0, PASS), (1, PASS))
    r = GAME.result(t.state)
    assert r.scores == (1, 1) and r.detail["money"] == [5, 5] and r.detail["cards"] == [1, 2]
    assert r.places == (1, 2)


def test_tie_broken_by_money_not_cards():
    """p. 12: equal points: more money (tokens and consolation, not cards) wins."""
    t = Table(["R1", "$1", "Y1"], players=2)
    t.script((0, FLIP), (0, TAKE_NUMBERS), (0, PASS))
    t.script((1, FLIP), (1, FLIP), (1, TAKE_NUMBERS), (1, PASS), (0, PASS), (1, PASS))
    r = GAME.result(t.state)
    assert r.scores == (1, 1) and r.detail["money"] == [6, 5]
    assert r.places == (1, 2)


def test_full_tie_is_shared():
    """p. 12: if the tie persists, the victory is shared."""
    t = Table(["R1", "Y1"], players=2)
    t.script((0, FLIP), (0, TAKE_NUMBERS), (0, PASS))
    t.script((1, FLIP), (1, TAKE_NUMBERS), (1, PASS), (0, PASS), (1, PASS))
    r = GAME.result(t.state)
    assert r.places == (1, 1) and r.winners == (0, 1)


def test_final_score_places_jokers_best():
    """p. 6, 11–12: jokers are placed only at the final count, where they score most."""
    t = Table(["R1", "R2", "R4", "*3", "Y5"], players=2)
    t.script((0, FLIP), (0, FLIP), (0, FLIP), (0, TAKE_NUMBERS), (0, PASS))
    t.script((1, FLIP), (0, bid(1)), (1, PASS), (0, pay_tokens(1)))
    t.script((1, FLIP), (1, TAKE_NUMBERS), (1, PASS), (0, PASS), (1, PASS))
    r = GAME.result(t.state)
    assert r.scores == (4, 1)
    assert r.detail["runs"][0]["numbered_jokers"] == {"*3": "R"}


# --------------------------------------------------------------------------
# Solo (ruling)


def test_solo_joker_costs_two_or_is_discarded():
    """Ruling: solo, a flipped joker may be taken for 2 currency or discarded."""
    t = Table(["*4", "B#", *FILL], players=1)
    t.act(0, FLIP)
    assert t.legal(0) == [{"type": "pass"}, {"type": "take_joker"}]
    assert t.act(0, {"type": "take_joker"}) == [ev("JokerTaken", {"joker": "*4", "price": 2}, 0)]
    t.act(0, pay_tokens(2))
    assert t.seat(0)["collection"] == ["*4"] and t.seat(0)["tokens"] == 3
    t.act(0, FLIP)
    assert t.act(0, PASS) == [ev("JokerDiscarded", {"joker": "B#"}, 0)]
    assert t.view()["discard"] == ["B#"]


def test_solo_money_for_the_others_is_lost():
    """Ruling: solo, the money "the others" would receive is lost."""
    t = Table(["R3", "$2", *FILL], players=1)
    t.script((0, FLIP), (0, FLIP))
    assert t.act(0, TAKE_NUMBERS)[0].data["paid"] == [0]
    assert t.seat(0)["tokens"] == 5 and t.view()["bank"] == 5


def test_solo_wins_at_the_target_score():
    """Ruling: solo, the result is the score, a win at 25 points or more (option solo_target)."""
    t = Table(["R1", "R2"], players=1, solo_target=2)
    t.script((0, FLIP), (0, FLIP), (0, TAKE_NUMBERS), (0, PASS), (0, PASS))
    r = GAME.result(t.state)
    assert r.scores == (2,) and r.places == (1,) and r.detail["solo_won"]
    t = Table(["R1", "R2"], players=1)
    t.script((0, FLIP), (0, FLIP), (0, TAKE_NUMBERS), (0, PASS), (0, PASS))
    r = GAME.result(t.state)
    assert r.places == (2,) and r.winners == () and not r.detail["solo_won"]


def test_solo_joker_unaffordable_can_only_be_discarded():
    """Ruling: the solo joker costs 2; without the means only discarding is offered (cannot_afford)."""
    t = Table(["*4", *FILL], players=1, starting_tokens=1)
    t.act(0, FLIP)
    assert t.legal(0) == [{"type": "pass"}]
    assert t.refuse(0, {"type": "take_joker"}) == "cannot_afford"


# --------------------------------------------------------------------------
# Refusals shared by every phase


def test_not_your_turn():
    """Only the awaited seat may act (not_your_turn)."""
    t = Table(["R1", *FILL])
    assert t.refuse(1, FLIP) == "not_your_turn"


@pytest.mark.parametrize(
    "action",
    [{}, {"type": "fly"}, {"type": "bid"}, {"type": "bid", "amount": "3"}, {"type": "buy", "card": "R0"}, ["flip"]],
)
def test_malformed_actions_are_bad_actions(action):
    """A missing or unknown type or field is bad_action."""
    t = Table(["*5", *FILL], players=2)
    t.act(0, FLIP)
    seat = t.awaiting[0]
    if action and isinstance(action, dict) and action.get("type") == "buy":
        t.script((seat, PASS), (0, PASS), (0, FLIP), (0, TAKE_NUMBERS))
        seat = 0
    assert t.refuse(seat, action) == "bad_action"


def test_actions_out_of_phase_are_refused():
    """Each phase accepts its own actions only (wrong_phase)."""
    t = Table(["*5", "R1", *FILL], players=2)
    assert t.refuse(0, bid(1)) == "wrong_phase"
    assert t.refuse(0, PASS) == "wrong_phase"
    assert t.refuse(0, pay_tokens(1)) == "wrong_phase"
    assert t.refuse(0, {"type": "take_joker"}) == "wrong_phase"
    t.act(0, FLIP)
    assert t.refuse(1, FLIP) == "wrong_phase"
    assert t.refuse(1, TAKE_NUMBERS) == "wrong_phase"
    assert t.refuse(1, pay_card("R1")) == "wrong_phase"
    assert t.refuse(1, PAY_CONSOLATION) == "wrong_phase"


# --------------------------------------------------------------------------
# Views and feeds


def test_the_deal_is_redacted_for_everyone():
    """Hidden information: the deck order never leaves the engine; the deal shows only its size."""
    t = Table(["R1", "Y2", "G3"], players=3)
    deal = t.events[0]
    for seat in (None, 0, 1, 2):
        shown = GAME.redact(deal, seat)
        assert "deck" not in shown.data and shown.data["talon_size"] == 3
        assert shown.data["players"] == 3 and shown.data["first"] == 0
    assert "deck" in deal.data  # the log itself keeps the truth


def test_views_show_everything_public_but_the_deck():
    """Collections, money, market, tableau are public; the deck shows only its size."""
    t = Table(["R3", "$2", "Y1", "G8"], players=2)
    t.script((0, FLIP), (0, FLIP), (0, FLIP), (0, TAKE_NUMBERS))
    for seat in (None, 0, 1):
        v = t.view(seat)
        assert v["talon_size"] == 1 and "G8" not in str(v)
        assert v["seats"][0]["collection"] == ["R3", "Y1"] and v["seats"][1]["tokens"] == 7
    assert {k: v for k, v in t.view(0).items() if k != "seat"} == {k: v for k, v in t.view(1).items() if k != "seat"}
