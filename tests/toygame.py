"""A tiny game for the service tests: players take turns adding 1 or 2 to
a shared count; each seat holds a secret number dealt at the start (hidden
from the others); the game ends when the count reaches ``target``.  The
lowest secret wins.  Registered as ``toy`` by tests/conftest.py."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, Field

from shared.engine import BaseGame, IllegalAction, Result, places_from, require_type
from shared.events import Event


class ToyOptions(BaseModel):
    target: int = Field(10, ge=1, le=1000, description="Count that ends the game.")


@dataclass(slots=True)
class ToyState:
    players: int
    target: int
    secrets: list[int]
    count: int
    turn: int


def _first(view, legal, rng):
    return legal[0]


def _random(view, legal, rng):
    return rng.choice(legal)


class Toy(BaseGame):
    name = "toy"
    title = "Toy"
    min_players = 1
    max_players = 12
    summary = {"en": "Add 1 or 2 in turn; reaching the target ends the game.",
               "fr": "Chacun ajoute 1 ou 2 à son tour ; atteindre la cible termine la partie."}
    Options = ToyOptions
    strategies = {"random": _random, "first": _first}

    def start(self, options, players, rng):
        secrets = [rng.randrange(1000, 10000) for _ in range(players)]
        return [Event("GameStarted", {"players": players, "target": options.target, "secrets": secrets})]

    def decide(self, state, seat, action, rng):
        self.check_turn(state, seat)
        require_type(action, ["add"])
        n = action.get("n")
        if n not in (1, 2):
            raise IllegalAction("bad_amount", "add 1 or 2")
        return [Event("Added", {"n": n}, seat)]

    def evolve(self, state, event):
        if event.type == "GameStarted":
            d = event.data
            return ToyState(d["players"], d["target"], list(d["secrets"]), 0, 0)
        state.count += event.data["n"]
        state.turn = (state.turn + 1) % state.players
        return state

    def awaiting(self, state):
        return frozenset() if state.count >= state.target else frozenset({state.turn})

    def legal_actions(self, state, seat):
        if seat not in self.awaiting(state):
            return []
        return [{"type": "add", "n": 1}, {"type": "add", "n": 2}]

    def view(self, state, seat):
        v = {"count": state.count, "turn": state.turn, "target": state.target}
        if seat is not None:
            v["secret"] = state.secrets[seat]
        return v

    def redact(self, event, seat):
        if event.type == "GameStarted":
            d = dict(event.data)
            d["secrets"] = [s if i == seat else None for i, s in enumerate(d["secrets"])]
            return Event(event.type, d, event.seat, event.ts, event.cmd)
        return event

    def result(self, state):
        if state is None or state.count < state.target:
            return None
        return Result(tuple(state.secrets), places_from(state.secrets, lower_wins=True), lower_wins=True)


GAME = Toy()
