"""Mauw bot strategies (issue 5, Bots).

A strategy is ``(view, legal_actions, rng) -> action``; it sees only its
seat's ``view`` and ``legal_actions``, never the state.  Three strengths:

* ``random`` — any legal action, uniformly.
* ``heuristic`` — scores every legal action by the column points it
  changes (its own gain, minus the loss it inflicts weighted towards the
  leader), with bonuses for completing pairs next turn, for the three-column
  win and for blocking a player one column away from it.  So it completes
  pairs, blocks the leader's best column, attacks exposed Warriors when it
  has room for the winnings, and in a chain defends (or goes on) when the
  swing is worth a card — a Joker only for a large swing or to keep the
  lead.
* ``strong`` — Monte Carlo over the unseen cards: for the heuristic's best
  few candidates it deals the cards it cannot see (other hands, the talon,
  discard pile under its top, Mauw faces) at random several times, plays
  the candidate and a short heuristic rollout for every seat, and keeps the
  candidate with the best average outcome (own points minus the best
  opponent's, the three-column win counting heavily).

The heuristic works on a light model of the table — per seat, per column
``(mauw count, top entry)`` — built from a view or, inside rollouts, from
a sampled state, so the same rules of thumb drive both.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from shared.engine import Strategy
from shared.games.mauw.cards import COLOUR, JOKER, MAUW_VALUE, PHYSICAL, VALUE, deck
from shared.games.mauw.rules import Mauw
from shared.games.mauw.state import Chain, Column, Phase, State

WIN = 1000.0  # value of the three-column win
JOKER_COST = 6.0  # a Joker spent is flexibility lost
MAUW_BONUS = 4.0  # every Mauw brings the three-column win nearer
PAIR_BONUS = 8.0  # a lone Warrior with its partner in hand: an association next turn
ATTACK_SUCCESS = 0.6  # chance an attack is not defended


def random_strategy(view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], rng: random.Random) -> dict:
    """Any legal action, uniformly."""
    return dict(rng.choice(legal))


# --------------------------------------------------------------------------
# The light table model and the heuristic
# --------------------------------------------------------------------------


def _pts(k: int, top: str | None) -> int:
    if top is None:
        return MAUW_VALUE << k if k else 0
    return VALUE[top] << k


class Table:
    """What the heuristic needs: ``areas[seat][col] = (mauw, top)``, the
    own hand, the chain (attacker, defender, column, value, place), and
    the three-column rule."""

    __slots__ = ("me", "n", "areas", "hand", "chain", "covered", "points", "_weights")

    def __init__(self, me, areas, hand, chain, covered) -> None:
        self.me = me
        self.n = len(areas)
        self.areas = areas
        self.hand = hand
        self.chain = chain
        self.covered = covered
        self.points = [sum(_pts(k, t) for k, t in area) for area in areas]
        self._weights: list[float] | None = None

    @classmethod
    def from_view(cls, view: Mapping[str, Any]) -> Table:
        areas = [[(c["mauw"], c["top"]) for c in area] for area in view["areas"]]
        ch = view["chain"]
        chain = None if ch is None else (ch["attacker"], ch["defender"], ch["column"], ch["value"], ch["place"])
        return cls(view["seat"], areas, view["hand"], chain, view["options"]["covered_columns_count"])

    @classmethod
    def from_state(cls, state: State, seat: int) -> Table:
        areas = [[(len(c.mauw), c.top) for c in area] for area in state.areas]
        ch = state.chain
        chain = None if ch is None else (ch.attacker, ch.defender, ch.column, ch.value, ch.place)
        return cls(seat, areas, state.hands[seat], chain, state.covered_columns_count)

    def full(self, seat: int) -> int:
        cov = self.covered
        return sum(1 for k, t in self.areas[seat] if k == 3 and (cov or t is None))

    def weight(self, seat: int) -> float:
        """How much hurting ``seat`` is worth to me: most for the leader
        and for a player one column away from winning."""
        if self._weights is None:
            me = self.me
            others = [s for s in range(self.n) if s != me]
            leader = max(others, key=lambda s: self.points[s])
            self._weights = [
                0.0 if s == me else (1.0 if s == leader else 0.5) + (1.0 if self.full(s) >= 2 else 0.0)
                for s in range(self.n)
            ]
        return self._weights[seat]

    def gain(self, seat: int, freed: int | None, top: str, entry: str, place: int | None) -> float:
        """Value to ``seat`` of an association it wins: ``top`` taken off
        its ``freed`` column (own association) and the winnings placed."""
        area = self.areas[seat]
        cols = list(area)
        if freed is not None:
            cols[freed] = (cols[freed][0], None)
        same = VALUE[top] == VALUE[entry]
        if place is not None:
            k, _ = cols[place]
            cols[place] = (k + 1, entry if same else None)
        before = sum(_pts(k, t) for k, t in area)
        after = sum(_pts(k, t) for k, t in cols)
        value = float(after - before)
        if place is not None:
            value += MAUW_BONUS
            cov = self.covered
            full = sum(1 for k, t in cols if k == 3 and (cov or t is None))
            if full >= 3:
                value += WIN
        return value

    def pair_bonus(self, entry: str, played: str) -> float:
        """A lone Warrior is worth more when the hand holds its partner."""
        colour = COLOUR[entry]
        rest = list(self.hand)
        if played in rest:
            rest.remove(played)
        for c in rest:
            if c == JOKER or COLOUR.get(c) == colour:
                return PAIR_BONUS
        return 0.0

    def play_value(self, a: Mapping[str, Any]) -> float:
        """Estimated value of one ``play`` action (see module doc)."""
        me = self.me
        card = a["card"]
        entry = "*" + a["as"] if card == JOKER else card
        owner = a["player"]
        col = a["column"]
        k, top = self.areas[owner][col]
        v = VALUE[entry]
        mine = 0.0
        theirs = 0.0
        if owner == me:
            if top is None:  # reinforce
                mine = float((v << k) - _pts(k, None)) + self.pair_bonus(entry, card)
                if k == 0:
                    mine -= 1.0  # exposed to attacks
            elif COLOUR[top] is None:  # unblock
                mine = float(_pts(k, None))
            else:  # own association
                mine = self.gain(me, col, top, entry, a.get("place"))
        elif top is None:  # block
            theirs = float((v << k) - _pts(k, None))
            if self.full(owner) >= 2 and k == 2:
                theirs -= 30.0  # keeps the third column from them
        else:  # attack
            theirs = float(_pts(k, None) - (VALUE[top] << k))
            mine = ATTACK_SUCCESS * self.gain(me, None, top, entry, a.get("place"))
            theirs *= ATTACK_SUCCESS
        value = mine - self.weight(owner) * theirs if owner != me else mine
        if card == JOKER:
            value -= JOKER_COST
        return value

    def chain_choice(self, legal: Sequence[Mapping[str, Any]]) -> Mapping[str, Any]:
        """Defend / go on / give up (see module doc)."""
        attacker, defender, column, value, place = self.chain
        real = next((a for a in legal if a.get("card") == value), None)
        joker = next((a for a in legal if a.get("card") == JOKER), None)
        give_up = {"type": "give_up"}
        k, top = self.areas[defender][column]
        won = self.gain(attacker, None, top, value, place)
        lost = float(_pts(k, top) - _pts(k, None))  # what the defender's column loses
        if self.me == defender:
            swing = won * self.weight(attacker) + lost
            overtaken = self.points[attacker] + won > self.points[defender] - lost and self.points[defender] >= max(
                self.points
            )
            if real is not None and swing > 0:
                return real
            if joker is not None and (swing >= 18 or (overtaken and swing > 0)):
                return joker
            return give_up
        gain = won + self.weight(defender) * lost
        if real is not None and gain > 0:
            return real
        if joker is not None and gain >= 20:
            return joker
        return give_up

    def choose(self, legal: Sequence[Mapping[str, Any]], rng: random.Random) -> dict:
        if len(legal) == 1:
            return dict(legal[0])
        kind = legal[0]["type"]
        if kind != "play":
            return dict(self.chain_choice(legal))
        best = max(legal, key=lambda a: self.play_value(a) + rng.random() * 0.01)
        return dict(best)

    def ranked(self, legal: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
        return sorted(legal, key=self.play_value, reverse=True)


def heuristic_strategy(view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], rng: random.Random) -> dict:
    """Rules of thumb on column points (see module doc)."""
    return Table.from_view(view).choose(legal, rng)


# --------------------------------------------------------------------------
# Monte Carlo over the unseen cards
# --------------------------------------------------------------------------

_ENGINE = Mauw()


def _unseen(view: Mapping[str, Any]) -> list[str]:
    """The cards this seat cannot see: the deck minus its hand, the face-up
    cards on the table, the attack card in the air and the discard top."""
    pool = Counter(deck(view["players"]))
    pool.subtract(view["hand"])
    for area in view["areas"]:
        for col in area:
            if col["top"] is not None:
                pool[PHYSICAL[col["top"]]] -= 1
    chain = view["chain"]
    if chain is not None and chain["card"] is not None:
        pool[PHYSICAL[chain["card"]]] -= 1
    if view["discard_top"] is not None:
        pool[view["discard_top"]] -= 1
    return list(pool.elements())


def sample_state(view: Mapping[str, Any], rng: random.Random) -> State:
    """One state consistent with ``view``: the unseen cards dealt at random
    to the other hands, the talon, the discard pile under its top and
    the Mauw faces."""
    me = view["seat"]
    pool = _unseen(view)
    rng.shuffle(pool)
    it = iter(pool)
    hands = [
        list(view["hand"]) if s == me else [next(it) for _ in range(size)] for s, size in enumerate(view["hand_sizes"])
    ]
    areas = [[Column([next(it) for _ in range(c["mauw"])], c["top"]) for c in area] for area in view["areas"]]
    discard = [next(it) for _ in range(view["discard_size"] - 1)] if view["discard_size"] else []
    if view["discard_top"] is not None:
        discard.append(view["discard_top"])
    talon = list(it)
    ch = view["chain"]
    chain = (
        None
        if ch is None
        else Chain(
            ch["attacker"],
            ch["defender"],
            ch["column"],
            ch["value"],
            ch["card"],
            ch["place"],
            ch["waiting"],
            ch["attacks"],
        )
    )
    opts = view["options"]
    return State(
        players=view["players"],
        first=view["first"],
        covered_columns_count=opts["covered_columns_count"],
        auto_give_up=opts["auto_give_up"],
        stalemate_rounds=opts["stalemate_rounds"],
        chain_limit=opts["chain_limit"],
        phase=Phase(view["phase"]),
        turn=view["turn"],
        turns=view["turns"],
        last_mauw=view["turns"] - view["quiet_turns"],
        hands=hands,
        areas=areas,
        talon=talon,
        discard=discard,
        chain=chain,
    )


def _clone(s: State) -> State:
    return State(
        players=s.players,
        first=s.first,
        covered_columns_count=s.covered_columns_count,
        auto_give_up=s.auto_give_up,
        stalemate_rounds=s.stalemate_rounds,
        chain_limit=s.chain_limit,
        phase=s.phase,
        turn=s.turn,
        turns=s.turns,
        last_mauw=s.last_mauw,
        hands=[list(h) for h in s.hands],
        areas=[[Column(list(c.mauw), c.top) for c in area] for area in s.areas],
        talon=list(s.talon),
        discard=list(s.discard),
        chain=None
        if s.chain is None
        else Chain(
            s.chain.attacker,
            s.chain.defender,
            s.chain.column,
            s.chain.value,
            s.chain.card,
            s.chain.place,
            s.chain.waiting,
            s.chain.attacks,
        ),
    )


def _apply(state: State, seat: int, action: Mapping[str, Any], rng: random.Random) -> State:
    for e in _ENGINE.decide(state, seat, action, rng):
        state = _ENGINE.evolve(state, e)
    return state


def _outcome(state: State, me: int) -> float:
    """Own points minus the best opponent's; the three-column win counts WIN."""
    pts = [sum(_pts(len(c.mauw), c.top) for c in area) for area in state.areas]
    best_other = max(p for s, p in enumerate(pts) if s != me)
    value = float(pts[me] - best_other)
    if state.phase is Phase.OVER:
        if state.winner == me:
            value += WIN
        elif state.winner is not None:
            value -= WIN
    else:
        # Three-column progress still counts.
        t = Table.from_state(state, me)
        value += 20.0 * (t.full(me) - max(t.full(s) for s in range(state.players) if s != me))
    return value


def _rollout(state: State, me: int, turns: int, rng: random.Random) -> float:
    end = state.turns + turns
    steps = 0
    while state.phase is not Phase.OVER and state.turns < end and steps < 60:
        seat = next(iter(_ENGINE.awaiting(state)))
        legal = _ENGINE.legal_actions(state, seat)
        action = Table.from_state(state, seat).choose(legal, rng)
        state = _apply(state, seat, action, rng)
        steps += 1
    return _outcome(state, me)


class StrongStrategy:
    """Monte Carlo over the unseen cards (see module doc).

    ``candidates``: how many of the heuristic's best actions are compared;
    ``samples``: deals of the unseen cards per candidate; the heuristic
    rollout after the candidate lasts ``depth_rounds`` rounds of the table
    but at least ``min_turns`` turns (at 2 players one round is too short
    to see an association through).
    """

    def __init__(self, candidates: int = 4, samples: int = 8, depth_rounds: int = 1, min_turns: int = 6) -> None:
        self.candidates = candidates
        self.samples = samples
        self.depth_rounds = depth_rounds
        self.min_turns = min_turns

    def __call__(self, view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], rng: random.Random) -> dict:
        if len(legal) == 1:
            return dict(legal[0])
        table = Table.from_view(view)
        if legal[0]["type"] != "play":
            candidates: list[Mapping[str, Any]] = list(legal)
        else:
            candidates = table.ranked(legal)[: self.candidates]
            if table.play_value(candidates[0]) >= WIN / 2:
                return dict(candidates[0])
        me = view["seat"]
        depth = max(self.depth_rounds * view["players"], self.min_turns)
        scores = [0.0] * len(candidates)
        for _ in range(self.samples):
            base = sample_state(view, rng)
            seed = rng.random()
            for i, action in enumerate(candidates):
                # Common random numbers: every candidate meets the same deal and luck.
                r = random.Random(seed)
                state = _apply(_clone(base), me, action, r)
                scores[i] += _rollout(state, me, depth, r)
        best = max(range(len(candidates)), key=lambda i: scores[i])
        return dict(candidates[best])


strong_strategy = StrongStrategy()

STRATEGIES: dict[str, Strategy] = {
    "random": random_strategy,
    "heuristic": heuristic_strategy,
    "strong": strong_strategy,
}

__all__ = ["STRATEGIES", "StrongStrategy", "Table", "heuristic_strategy", "random_strategy", "sample_state"]
