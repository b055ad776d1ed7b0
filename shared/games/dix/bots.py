"""DIX strategies (issue 4): ``random``, ``heuristic`` and ``strong``.

A strategy is ``(view, legal_actions, rng) -> action`` and sees only its
seat's view: everything in DIX is public except the deck order, so a bot
may work out which cards are still unseen (the deck's composition = the
cards in play for the player count minus every card shown in the view).

Both thinking bots share one value model of a seat's position,
:func:`Model.value`, in points:

* the exact score of the collection (jokers placed best,
  :mod:`shared.games.dix.scoring`);
* plus, weighted by the fraction of the deck still to come, the
  *potential* of each colour: the best window of numbers counted as
  owned − ½ × missing, beyond the current run (cards that a later card can
  join into a run);
* plus money: tokens and consolation tokens at ``λ`` points a token
  (``λ`` falls from 0.35 to 0.1 as the deck runs out) and every Number
  card at ``0.6 λ`` (it can pay 1).

``heuristic`` decides with one step of look-ahead on that model:

* stop or go: the bust probability and the expected gain of one more card
  are computed exactly from the unseen cards; it flips when that beats
  stopping now; stopping takes the better of the Number cards (minus half
  the money handed to the others, plus the best buy it then allows) and
  the currency;
* auctions: it values the joker by its marginal value to the collection
  and bids a share of that (the active player, last to speak, just tops
  the high bid when the joker is worth it);
* the market: the card whose value beats the cheapest way to pay for it;
* paying: always the cheapest unit first (a useless duplicate, a token,
  a consolation token only when it is not wasted).

``strong`` uses the same model but Monte Carlo over the unseen deck:

* stop or go: it samples deck orders of the unseen cards and measures,
  for each horizon of 1..6 more flips, the average value of stopping then
  (busts included); it flips when some horizon beats stopping now.  Being
  re-decided after every flip, this is at least as far-sighted as the
  heuristic's one step;
* auctions: it values the joker by sampling the cards its collection may
  still gain from the unseen deck and averaging the joker's marginal final
  score over those futures, then bids just enough to stay above what the
  players still to speak are likely to pay (their public collections give
  their marginal values), never above its own value.

At 4 and 5 players (``CROWDED``, issue 15) ``strong`` plays differently:
a joker is worth the heuristic's value to us plus ``deny_share`` (0.3) ×
its value to the opponent it would help most (whoever does not win it,
one of four opponents likely does), and the stop/go rollouts are used
only once less than half the deck is left (the heuristic's one step
before).  Below 4 players it plays as described above.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from shared.engine import passing
from shared.games.dix.cards import (
    COLOUR,
    COLOUR_INDEX,
    KIND,
    NUMBER,
    VALUE,
    Kind,
    deck_for,
)
from shared.games.dix.scoring import WINDOWS, best_score

# --------------------------------------------------------------------------
# Tunables (points).


@dataclass(frozen=True)
class Params:
    """The value model's weights (module doc)."""

    lambda_start: float = 0.35  # a token at the start of the game
    lambda_end: float = 0.10  # a token when the deck is empty
    card_liquidity: float = 0.6  # a Number card is worth this share of a token (it pays 1)
    potential_weight: float = 0.8  # weight of the potential at the start (× fraction of the deck left)
    gap_penalty: float = 0.5  # a missing number in a potential window
    others_money: float = 0.5  # share of a token handed to each opponent counted against us
    consolation_share: float = 0.85  # a consolation token is worth this share of its face value
    joker_flex: float = 0.6  # extra value of a joker's flexibility (× fraction of the deck left)
    bid_share: float = 0.6  # share of its limit a non-last bidder offers (heuristic)
    deny_share: float = 0.3  # strong, 4+ players: share of the best opponent's joker value added to ours
    late_frac: float = 0.5  # strong, 4+ players: rollouts for stop/go only below this fraction of the deck


HEURISTIC = Params()


@lru_cache(maxsize=4096)
def _potential(owned: int, gap_penalty: float) -> float:
    """Best window of one colour: owned − gap_penalty × missing, beyond the run."""
    run = 0
    best = 0.0
    for window, length in WINDOWS:
        have = (window & owned).bit_count()
        if have == length and length > run:
            run = length
        v = have - gap_penalty * (length - have)
        best = max(best, v)
    return max(best - run, 0.0)


@lru_cache(maxsize=8)
def _deck_counts(players: int) -> Counter:
    return Counter(deck_for(players))


class Model:
    """A seat's view, digested: its holdings as bit masks, money, the unseen
    cards and the value function (see module doc)."""

    __slots__ = (
        "_base",
        "bonus",
        "cap",
        "cards",
        "collection",
        "cons_value",
        "consolation",
        "deck_size",
        "frac",
        "jokers",
        "lam",
        "me",
        "owned",
        "p",
        "players",
        "tokens",
        "unseen",
        "view",
        "wild",
    )

    def __init__(self, view: Mapping[str, Any], seat: int | None = None, params: Params = HEURISTIC) -> None:
        self.p = params
        self.view = view
        me = view["seat"] if seat is None else seat
        self.me = me
        self.players = view["players"]
        opts = view["options"]
        self.cap = opts["token_cap"]
        self.cons_value = opts["consolation_value"]
        self.bonus = opts["full_run_bonus"]
        mine = view["seats"][me]
        self.collection = list(mine["collection"])
        self.owned, self.wild, self.jokers, self.cards = _masks(self.collection)
        self.tokens = mine["tokens"]
        self.consolation = mine["consolation"]
        self.deck_size = view["talon_size"]
        self.frac = self.deck_size / _TOTALS[self.players]
        self.lam = params.lambda_end + (params.lambda_start - params.lambda_end) * self.frac
        self.unseen: Counter | None = None
        self._base: float | None = None

    # -- unseen cards ------------------------------------------------------

    def unseen_cards(self) -> Counter:
        """The deck's composition (public: the cards in play minus all shown)."""
        if self.unseen is None:
            v = self.view
            seen = Counter(v["tableau"])
            seen.update(v["market"])
            seen.update(v["discard"])
            for s in v["seats"]:
                seen.update(s["collection"])
            if v["auction"] is not None:
                seen[v["auction"]["joker"]] += 1
            if v["debt"] is not None:
                seen[v["debt"]["item"]] += 1
            left = _deck_counts(self.players) - seen
            self.unseen = left
        return self.unseen

    # -- values ------------------------------------------------------------

    def value(self, owned, wild, jokers, cards, money: float) -> float:
        """Points of a position (collection masks, Number-card count, money in tokens)."""
        p = self.p
        v = best_score(owned, wild, jokers, self.bonus)
        if self.frac > 0:
            g = p.gap_penalty
            v += p.potential_weight * self.frac * sum(_potential(o, g) for o in owned)
        return v + self.lam * (money + p.card_liquidity * cards)

    def base(self) -> float:
        """Value of the position as it is."""
        if self._base is None:
            self._base = self.value(self.owned, self.wild, self.jokers, self.cards, self.money())
        return self._base

    def money(self) -> float:
        return self.tokens + self.p.consolation_share * self.cons_value * self.consolation

    def with_cards(self, codes) -> tuple:
        """Masks after adding ``codes`` (Number cards and jokers)."""
        owned = list(self.owned)
        wild = list(self.wild)
        jokers = self.jokers
        cards = self.cards
        for code in codes:
            kind = KIND[code]
            if kind is Kind.NUMBER:
                owned[COLOUR_INDEX[COLOUR[code]]] |= 1 << (NUMBER[code] - 1)
                cards += 1
            elif kind is Kind.COLOUR_JOKER:
                wild[COLOUR_INDEX[COLOUR[code]]] += 1
            elif kind is Kind.NUMBER_JOKER:
                jokers |= 1 << (NUMBER[code] - 1)
        return tuple(owned), tuple(wild), jokers, cards

    def gain_cards(self, codes, money_delta: float = 0.0) -> float:
        """Value change of adding ``codes`` and ``money_delta`` tokens."""
        owned, wild, jokers, cards = self.with_cards(codes)
        return self.value(owned, wild, jokers, cards, self.money() + money_delta) - self.base()

    def joker_value(self, joker: str) -> float:
        """Marginal value of a joker now, plus a flexibility bonus."""
        return self.gain_cards((joker,)) + self.p.joker_flex * self.frac

    # -- paying ------------------------------------------------------------

    def card_loss(self, code: str) -> float:
        """Value lost by paying with one copy of the Number card ``code``."""
        coll = list(self.collection)
        coll.remove(code)
        owned, wild, jokers, cards = _masks(coll)
        return self.base() - self.value(owned, wild, jokers, cards, self.money())

    def pay_plan_cost(self, price: int) -> float:
        """Value lost by paying ``price`` the cheapest way (greedy by unit cost)."""
        units: list[tuple[float, int]] = []  # (cost, value covered)
        counts = Counter(c for c in self.collection if KIND[c] is Kind.NUMBER)
        for code, k in counts.items():
            loss = self.card_loss(code)
            # extra copies beyond the first cost only their liquidity
            units.append((loss, 1))
            for _ in range(k - 1):
                units.append((self.lam * self.p.card_liquidity, 1))
        units += [(self.lam, 1)] * self.tokens
        units += [(self.lam * self.p.consolation_share * self.cons_value, self.cons_value)] * self.consolation
        units.sort(key=lambda u: u[0] / u[1])
        cost = 0.0
        left = price
        for c, cover in units:
            if left <= 0:
                break
            cost += c
            left -= cover
        return cost if left <= 0 else float("inf")

    def best_buy(self, legal_buys: Sequence[str]) -> tuple[float, str | None]:
        """(net gain, card) of the best market buy, or (0, None)."""
        best, pick = 0.0, None
        for card in legal_buys:
            net = self.gain_cards((card,)) - self.pay_plan_cost(NUMBER[card])
            if net > best:
                best, pick = net, card
        return best, pick


_TOTALS = {n: len(deck_for(n)) for n in range(1, 6)}


def _masks(collection) -> tuple[tuple[int, ...], tuple[int, ...], int, int]:
    owned = [0, 0, 0, 0]
    wild = [0, 0, 0, 0]
    jokers = 0
    cards = 0
    for code in collection:
        kind = KIND[code]
        if kind is Kind.NUMBER:
            owned[COLOUR_INDEX[COLOUR[code]]] |= 1 << (NUMBER[code] - 1)
            cards += 1
        elif kind is Kind.COLOUR_JOKER:
            wild[COLOUR_INDEX[COLOUR[code]]] += 1
        elif kind is Kind.NUMBER_JOKER:
            jokers |= 1 << (NUMBER[code] - 1)
    return tuple(owned), tuple(wild), jokers, cards


# --------------------------------------------------------------------------
# Shared decisions.


def _find(legal, **match) -> dict | None:
    for a in legal:
        if all(a.get(k) == v for k, v in match.items()):
            return dict(a)
    return None


class Turn:
    """Stop/go arithmetic for the active player's tableau."""

    def __init__(self, m: Model, legal) -> None:
        self.m = m
        v = m.view
        self.tableau = list(v["tableau"])
        self.total = v["total"]
        self.currency = v["currency"]
        buys = [a["card"] for a in _market_buys(m)]
        self.buy_gain = m.best_buy(buys)[0] if buys else 0.0
        self.others = m.players - 1
        self.can_take = _find(legal, type="take_numbers") is not None
        self._stops: dict[tuple, float] = {}

    def stop_values(self, numbers: Sequence[str], currency: int) -> tuple[float, float]:
        """(take the Number cards, take the currency) gains for a tableau."""
        m = self.m
        take_n = m.gain_cards(numbers) + self.buy_gain
        if self.others:
            take_n -= m.p.others_money * m.lam * currency
        room = max(m.cap - m.tokens, 0)
        take_c = m.lam * min(currency, room)
        return take_n, take_c

    def stop_now(self) -> float:
        numbers = [c for c in self.tableau if KIND[c] is Kind.NUMBER]
        return self.stop_best(numbers, self.currency)

    def bust_value(self, currency: int, by_total: bool) -> float:
        m = self.m
        v = m.lam * m.p.consolation_share * m.cons_value
        if by_total and self.others:
            v -= m.p.others_money * m.lam * currency
        return v

    def after(self, numbers: list[str], total: int, currency: int, card: str):
        """Apply one flipped card: returns (numbers, total, currency, bust value or None)."""
        kind = KIND[card]
        if kind is Kind.NUMBER:
            total += NUMBER[card]
            numbers = numbers + [card]
            if total >= 11:
                return numbers, total, currency, self.bust_value(currency, True)
        elif kind is Kind.CURRENCY:
            total -= VALUE[card]
            currency += VALUE[card]
            if currency >= 11:
                return numbers, total, currency, self.bust_value(currency, False)
        return numbers, total, currency, None

    def stop_best(self, numbers: Sequence[str], currency: int) -> float:
        """Best stop value for a tableau (memoised on its Number cards and currency)."""
        key = (tuple(sorted(numbers)), currency)
        v = self._stops.get(key)
        if v is None:
            v = max(self.stop_values(numbers, currency))
            self._stops[key] = v
        return v

    def one_step(
        self,
        numbers: list[str] | None = None,
        total: int | None = None,
        currency: int | None = None,
        drawn: Counter | None = None,
    ) -> float:
        """Expected gain of flipping exactly one more card, then stopping,
        from the given tableau (default: the real one) with the unseen cards
        minus ``drawn``, computed exactly over the unseen cards."""
        if numbers is None:
            numbers = [c for c in self.tableau if KIND[c] is Kind.NUMBER]
            total, currency = self.total, self.currency
        assert total is not None and currency is not None  # a tableau comes with its total and currency
        unseen = self.m.unseen_cards()
        n = 0
        ev = 0.0
        stop_here = None
        for card, k in unseen.items():
            if drawn:
                k -= drawn.get(card, 0)
                if k <= 0:
                    continue
            n += k
            nums, _, cur, bust = self.after(numbers, total, currency, card)
            if bust is not None:
                ev += k * bust
            elif KIND[card] in (Kind.NUMBER, Kind.CURRENCY):
                ev += k * self.stop_best(nums, cur)
            else:  # a joker: auctioned, the tableau is unchanged
                if stop_here is None:
                    stop_here = self.stop_best(numbers, currency)
                ev += k * stop_here
        return ev / n if n else float("-inf")


def _market_buys(m: Model) -> list[dict]:
    """The buys this seat could make now if it were in a buy phase."""
    v = m.view
    me = v["seats"][m.me]
    out, seen = [], set()
    wealth = me["wealth"]
    for card in v["market"]:
        if card not in seen and card not in me["collection"] and NUMBER[card] <= wealth:
            seen.add(card)
            out.append({"type": "buy", "card": card})
    return out


def _choose_stop(turn: Turn, legal) -> dict:
    numbers = [c for c in turn.tableau if KIND[c] is Kind.NUMBER]
    take_n, take_c = turn.stop_values(numbers, turn.currency)
    return {"type": "take_numbers"} if take_n >= take_c else {"type": "take_currency"}


def _pay(m: Model, legal) -> dict:
    """The cheapest payment step."""
    owed = m.view["debt"]["owed"]
    best, pick = float("inf"), None
    for a in legal:
        t = a["type"]
        if t == "pay_tokens":
            if a["count"] != min(owed, m.tokens):
                continue
            cost = m.lam  # per unit
        elif t == "pay_consolation":
            cover = min(owed, m.cons_value)
            cost = m.lam * m.p.consolation_share * m.cons_value / cover
        else:
            copies = m.collection.count(a["card"])
            cost = m.lam * m.p.card_liquidity if copies > 1 else m.card_loss(a["card"])
        if cost < best:
            best, pick = cost, a
    return dict(pick if pick is not None else legal[0])


def _buy(m: Model, legal) -> dict:
    buys = [a["card"] for a in legal if a["type"] == "buy"]
    _, card = m.best_buy(buys)
    return {"type": "buy", "card": card} if card else {"type": "pass"}


def _bid_from_value(m: Model, legal, worth: float, later_cap: float | None) -> dict:
    """Bid for a joker worth ``worth`` points; ``later_cap``: tokens the
    later speakers may pay (None: use a share of our own value)."""
    a = m.view["auction"]
    bids = sorted(x["amount"] for x in legal if x["type"] == "bid")
    if not bids:
        return {"type": "pass"}
    # tokens we would pay at most: value / cost of one unit paid
    cost_unit = max(m.pay_plan_cost(1), 1e-6)
    limit = int(worth / cost_unit) if worth > 0 else 0
    limit = min(limit, bids[-1])
    low = bids[0]
    if limit < low:
        return {"type": "pass"}
    is_last = a["order"][-1] == m.me
    if is_last:
        amount = low
    elif later_cap is None:
        amount = max(low, int(m.p.bid_share * limit))
    else:
        amount = max(low, min(limit, int(later_cap) + 1))
    # the real cost of a bid is the payment plan, check it
    while amount >= low and m.pay_plan_cost(amount) > worth:
        amount -= 1
    if amount < low:
        return {"type": "pass"}
    return {"type": "bid", "amount": amount}


# --------------------------------------------------------------------------
# Strategies.


def random_strategy(view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], rng: random.Random) -> dict:
    """Any legal action, uniformly."""
    return dict(rng.choice(legal))


def _play(
    view: Mapping[str, Any],
    legal: Sequence[Mapping[str, Any]],
    params: Params,
    *,
    flip_value: Any,
    joker_worth: Any,
    later_cap: Any,
) -> dict:
    """The decision skeleton shared by ``heuristic`` and ``strong``; they
    differ only in how they value flipping on (``flip_value(turn)``), a
    joker (``joker_worth(model, joker)``) and the bids to expect after
    theirs (``later_cap(model, joker)``)."""
    m = Model(view, params=params)
    phase = view["phase"]
    if len(legal) == 1:
        return dict(legal[0])
    if phase == "turn":
        turn = Turn(m, legal)
        if _find(legal, type="flip") is None:
            return _choose_stop(turn, legal)
        if not turn.can_take:
            return {"type": "flip"}
        if flip_value(turn) > turn.stop_now():
            return {"type": "flip"}
        return _choose_stop(turn, legal)
    if phase == "auction":
        joker = view["auction"]["joker"]
        return _bid_from_value(m, legal, joker_worth(m, joker), later_cap(m, joker))
    if phase == "joker_offer":
        price = view["options"]["solo_joker_price"]
        worth = joker_worth(m, view["auction"]["joker"])
        ok = _find(legal, type="take_joker") and m.pay_plan_cost(price) < worth
        return {"type": "take_joker"} if ok else {"type": "pass"}
    if phase in ("buy", "final_buy"):
        return _buy(m, legal)
    if phase == "payment":
        return _pay(m, legal)
    return dict(legal[0])


def heuristic_strategy(
    view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], rng: random.Random, params: Params = HEURISTIC
) -> dict:
    """One-step look-ahead on the value model (module doc)."""
    return _play(view, legal, params, flip_value=lambda turn: turn.one_step(),
                 joker_worth=lambda m, joker: m.joker_value(joker), later_cap=lambda m, joker: None)


# -- strong -----------------------------------------------------------------

STRONG = Params()
SAMPLES = 48
HORIZON = 6
FUTURE_SAMPLES = 24


def _rollout_value(turn: Turn, rng: random.Random, samples: int, horizon: int) -> float:
    """Average gain of flipping now and then playing the heuristic's stop/go
    rule (closed loop: it sees each sampled card), over ``samples`` random
    orders of the unseen cards, at most ``horizon`` flips."""
    unseen = turn.m.unseen_cards()
    pool = list(unseen.elements())
    if not pool:
        return float("-inf")
    h = min(horizon, len(pool))
    base_numbers = [c for c in turn.tableau if KIND[c] is Kind.NUMBER]
    go_cache: dict[tuple, bool] = {}
    total_value = 0.0
    for _ in range(samples):
        draw = rng.sample(pool, h)
        numbers, total, cur = base_numbers, turn.total, turn.currency
        drawn: Counter = Counter()
        value: float  # set before every break, and the loop always breaks (h >= 1)
        for i, card in enumerate(draw):
            drawn[card] += 1
            numbers, total, cur, bust = turn.after(numbers, total, cur, card)
            if bust is not None:
                value = bust
                break
            here = turn.stop_best(numbers, cur)
            if i == h - 1:
                value = here
                break
            key = (tuple(sorted(numbers)), cur, total)
            go = go_cache.get(key)
            if go is None:
                go = turn.one_step(numbers, total, cur, drawn) > here
                go_cache[key] = go
            if not go:
                value = here
                break
        total_value += value
    return total_value / samples


def _future_cards(m: Model, rng: random.Random) -> list[str]:
    """A guess at the Number cards and jokers this seat will still collect."""
    unseen = m.unseen_cards()
    pool = [c for c in unseen.elements() if KIND[c] is not Kind.CURRENCY]
    if not pool:
        return []
    # roughly: the deck left, shared among the players, about half of it kept
    k = round(len(pool) / max(m.players, 1) * 0.5)
    return rng.sample(pool, min(k, len(pool)))


def _mc_joker_value(m: Model, joker: str, rng: random.Random, samples: int = FUTURE_SAMPLES) -> float:
    """Average marginal final score of ``joker`` over sampled futures, plus its
    value as a joker now (money/potential terms of the model)."""
    if m.frac == 0:
        return m.joker_value(joker)
    total = 0.0
    for _ in range(samples):
        future = _future_cards(m, rng)
        owned, wild, jokers, _ = m.with_cards(future)
        before = best_score(owned, wild, jokers, m.bonus)
        o2, w2, j2, _ = _add(owned, wild, jokers, joker)
        total += best_score(o2, w2, j2, m.bonus) - before
    mc = total / samples
    now = m.gain_cards((joker,))
    return max(mc, now) if m.frac < 0.15 else 0.5 * (mc + now) + 0.25 * m.frac


def _add(owned, wild, jokers, code):
    owned, wild = list(owned), list(wild)
    kind = KIND[code]
    if kind is Kind.COLOUR_JOKER:
        wild[COLOUR_INDEX[COLOUR[code]]] += 1
    elif kind is Kind.NUMBER_JOKER:
        jokers |= 1 << (NUMBER[code] - 1)
    elif kind is Kind.NUMBER:
        owned[COLOUR_INDEX[COLOUR[code]]] |= 1 << (NUMBER[code] - 1)
    return tuple(owned), tuple(wild), jokers, 0


def _later_speakers_cap(m: Model, joker: str) -> float:
    """Tokens the players still to speak would likely pay: their marginal
    joker value over a token's worth, capped by what they can pay."""
    v = m.view
    a = v["auction"]
    order = a["order"]
    pos = order.index(m.me)
    cap = float(a["high"])
    for seat in order[pos + 1 :]:
        other = Model(v, seat, m.p)
        worth = other.joker_value(joker)
        tokens = worth / max(other.lam, 1e-6) * 0.6
        cap = max(cap, min(tokens, v["seats"][seat]["wealth"]))
    return cap


#: From this many players on, ``strong`` plays its crowded-table variant.
CROWDED = 4


def _denial_joker_value(m: Model, joker: str) -> float:
    """A joker's worth at a crowded table: its value to us (the heuristic's)
    plus ``deny_share`` × its value to the opponent who would gain most from
    it (whoever does not win it, an opponent likely does)."""
    v = m.view
    best = 0.0
    for seat in range(m.players):
        if seat != m.me:
            best = max(best, Model(v, seat, m.p).joker_value(joker))
    return m.joker_value(joker) + m.p.deny_share * best


def _crowded_flip_value(turn: Turn, rng: random.Random) -> float:
    """Stop/go at a crowded table: the heuristic's one step while more than
    ``late_frac`` of the deck is left, the rollouts after."""
    if turn.m.frac >= turn.m.p.late_frac:
        return turn.one_step()
    return _rollout_value(turn, rng, SAMPLES, HORIZON)


def strong_strategy(
    view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], rng: random.Random, params: Params = STRONG
) -> dict:
    """Monte Carlo over the unseen deck for stop/go and bids (module doc);
    from ``CROWDED`` players on, jokers are also valued for denial and the
    rollouts wait for the second half of the deck."""
    if view["players"] >= CROWDED:
        return _play(view, legal, params, flip_value=lambda turn: _crowded_flip_value(turn, rng),
                     joker_worth=_denial_joker_value, later_cap=_later_speakers_cap)
    return _play(view, legal, params, flip_value=lambda turn: _rollout_value(turn, rng, SAMPLES, HORIZON),
                 joker_worth=lambda m, joker: _mc_joker_value(m, joker, rng), later_cap=_later_speakers_cap)


#: ``pass``: the natural pass (auction, offers, market) as a stand-in for an away person.
STRATEGIES = {"random": random_strategy, "heuristic": heuristic_strategy, "strong": strong_strategy,
              "pass": passing(("pass",), random_strategy)}
