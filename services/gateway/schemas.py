"""Request and response bodies of the HTTP API (pydantic, the edge)."""

from __future__ import annotations

import re
import unicodedata
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

from services.store.keys import COMMAND_ID_RE

#: A seat number as a JSON object key: canonical decimal (no sign, space or
#: leading zero); a seat beyond the table is `bad_seat` at create.
SEAT_KEY = re.compile(r"0|[1-9][0-9]?", re.ASCII)


def _seat_key(v: object) -> object:
    """A bot seat key: the seat's number written in canonical decimal ("1",
    not "01", " 1" nor "1.0"), so that no two keys name one seat."""
    if isinstance(v, str) and SEAT_KEY.fullmatch(v):
        return int(v)
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    raise ValueError("a bot seat is a seat number written in decimal with no sign, space or leading zero "
                     '("0" to "11")')


SeatKey = Annotated[int, BeforeValidator(_seat_key)]


class RuleSummary(BaseModel):
    """A game's rules in a few sentences (goal, a turn, the end and the scoring), per language."""

    en: str = Field(min_length=1, description="In English.")
    fr: str = Field(min_length=1, description="In French.")


class GameInfo(BaseModel):
    """A game the service hosts."""

    name: str = Field(description="Game id used in URLs and bodies, e.g. `maumau`.")
    title: str = Field(description="Display name.")
    min_players: int
    max_players: int
    summary: RuleSummary = Field(description="The rules in a few sentences, in English and French (the lobby shows "
                                 "the one of its language); the full rules are docs/games/<name>.md.")
    options_schema: dict[str, Any] = Field(description="JSON Schema of the table options, with defaults.")
    strategies: list[str] = Field(description="Bot strategies available for seats.")
    strategy_notes: dict[str, str] = Field(
        default_factory=dict,
        description="Strategy -> a note on how it plays on this server now, for the strategies that need one (e.g. "
                    "Maudit Mot Dit's `heuristic` plays at random while the word model is not installed).")


class CreateTable(BaseModel):
    """Body of `POST /tables`."""

    model_config = ConfigDict(extra="forbid")

    game: str = Field(description="Game id (see `GET /games`).", examples=["maumau"])
    players: int = Field(ge=1, le=12, strict=True, description="Number of seats (an integer: \"3\" is refused).",
                         examples=[3])
    options: dict[str, Any] = Field(
        default_factory=dict,
        description="Table options; omitted ones take their defaults. Checked strictly against the game's options "
                    "schema (`GET /games`): an unknown option or a value of another type (\"5\" for 5) is refused "
                    "(422 `bad_options`).")
    bots: dict[SeatKey, str] = Field(
        default_factory=dict,
        description="Seats filled by bots: seat number -> strategy (e.g. `{\"1\": \"heuristic\"}`). A seat is "
                    "written in decimal with no sign, space or leading zero (\"1\", not \"01\").",
        examples=[{"1": "heuristic", "2": "random"}],
        json_schema_extra={"propertyNames": {"pattern": "^(0|[1-9][0-9]?)$"}},
    )
    turn_seconds: int | None = Field(
        60, ge=1, le=600, strict=True,
        description="Turn clock of the people's seats: a seat the game waits for that does not act within this many "
                    "seconds of the table's last event is marked away (a `TurnTimedOut` event) and the `stand_in` bot "
                    "plays for it until the person acts again or calls `POST /tables/{T}/back`. null: no clock.",
    )
    stand_in: str | None = Field(
        None, min_length=1,
        description="Strategy that plays an away seat: one of the game's `strategies` (`pass` where the game offers a "
                    "natural pass); omitted: `heuristic` where the game has it, else `random`.",
    )


class TableInfo(BaseModel):
    """A table as listed in the lobby."""

    id: str
    game: str
    players: int
    status: str = Field(description="`waiting` (free seats), `playing` or `finished`.")
    version: int = Field(description="Number of events in the table's log.")
    seats: list[dict[str, Any]] = Field(
        description="Per seat: `kind` (free, human, bot), `name`, `strategy`; a human seat has `away` (its turn clock "
                    "ran out and a stand-in bot plays it); a bot seat whose person left the started table has `left`: "
                    "true (its `name` stays the person's, its `strategy` is the table's `stand_in`).")
    options: dict[str, Any]
    turn_seconds: int | None = Field(None, description="The people's turn clock in seconds (null: none).")
    stand_in: str = Field(description="The strategy that plays an away seat.")
    created: int = Field(description="Creation time, ms since the epoch.")
    result: dict[str, Any] | None = Field(None, description="Final scores and places once finished.")


class JoinTable(BaseModel):
    """Body of `POST /tables/{T}/join` (optional)."""

    model_config = ConfigDict(extra="forbid")

    seat: int | None = Field(None, ge=0, le=11, strict=True,
                             description="The seat wanted (an integer: \"0\" and true are refused); omitted: the "
                                         "first free seat.")
    name: str = Field("player", min_length=1, max_length=40, description="Display name (printable characters).")

    @field_validator("name")
    @classmethod
    def _printable(cls, v: str) -> str:
        v = unicodedata.normalize("NFC", v).strip()
        if not v or any(unicodedata.category(ch)[0] == "C" for ch in v):
            raise ValueError("a name is printable text (no control or formatting characters)")
        return v


class NoFields(BaseModel):
    """Body of `POST /tables/{T}/leave` and `/back` (optional): an empty
    object; any field is refused (422 `invalid_request`)."""

    model_config = ConfigDict(extra="forbid", title="NoFields")


class Joined(BaseModel):
    """A seat taken: keep the token secret, it is the seat's key."""

    table: str
    seat: int
    token: str = Field(description="Bearer token for this seat: `Authorization: Bearer <token>`.")
    status: str = Field(description="`playing` when this seat filled the table and the game started; `waiting` "
                                    "otherwise (free seats, or a start not confirmed yet: it starts shortly).")


class SubmitAction(BaseModel):
    """Body of `POST /tables/{T}/actions`."""

    model_config = ConfigDict(extra="forbid")

    action: dict[str, Any] = Field(
        description="The action, one of the seat's `legal_actions` (e.g. `{\"type\": \"play\", \"card\": \"7H\"}`).",
        examples=[{"type": "draw"}],
    )
    expected_version: int | None = Field(
        None, ge=0, le=2**53, strict=True,
        description="Refuse (409 `stale_version`) unless the table is at this version (an integer: \"3\" and true "
                    "are refused).")
    command_id: str | None = Field(
        None,
        pattern=COMMAND_ID_RE.pattern,
        description="Idempotency key: the same id sent again is answered from the first outcome, never applied twice.",
    )


class SeatView(BaseModel):
    """What one seat (or a spectator) sees now."""

    table: str
    game: str
    status: str
    version: int
    seat: int | None = Field(description="The caller's seat; null for a spectator.")
    awaiting: list[int] = Field(description="Seats that may act now, those whose only move is optional (a Mau Mau "
                                            "call-out, proposing the Malédiction) included.")
    must_act: list[int] = Field(
        default_factory=list,
        description="The seats of `awaiting` the game waits for; the others in `awaiting` may act but need not.")
    deadlines: dict[int, int] = Field(
        default_factory=dict,
        description="Seat -> deadline (ms since the epoch) of each seat the game waits for that a person plays under "
                    "the turn clock; draw a clock from it.")
    away: list[int] = Field(
        default_factory=list, description="Seats whose turn clock ran out: a stand-in bot plays them.")
    left: list[int] = Field(
        default_factory=list,
        description="Seats whose person left the started table: the stand-in bot plays them for good.")
    view: dict[str, Any] | None = Field(
        description="The game's view for this seat (null before the game starts). Every game's view has `seats`: one "
                    "object per seat in seat order, `{seat, cards, score, name, kind, away, left}` (`cards`: the "
                    "number of cards in that seat's hand, null where the game has no hand; `score`: its current "
                    "total, null if none; `name`: the name given at join, or the bot's name as the lobby shows it; "
                    "`kind`: `human` or `bot`; `away`: a stand-in bot plays it for now; `left`: its person left, a "
                    "bot plays it for good), plus the game's own per-seat counts.")
    legal_actions: list[dict[str, Any]] = Field(
        description="Actions this seat may send now, each accepted as it is if sent back now. Actions that are "
                    "combinations or free text are not listed here but described in `choices`.")
    choices: list[dict[str, Any]] = Field(
        default_factory=list,
        description="Actions this seat may send now that are combinations or free text, each `{type, schema, hint}`: "
                    "`schema` is a JSON Schema (draft 2020-12) of the whole action object, `hint` one sentence on "
                    "what to choose. The game may still refuse a free text its schema cannot judge (e.g. a clue of "
                    "the secret word's family) with its own code.")
    result: dict[str, Any] | None = None


class ActionApplied(BaseModel):
    """An applied action: the new version and the events it produced, as the caller may see them."""

    version: int
    events: list[dict[str, Any]]
    view: SeatView | None = Field(
        None, description="Only when asked for (`?view=true`, or `Prefer: return=representation`): the caller's "
                          "view as `GET /tables/{T}/view` gives it, at the version this action produced or later, "
                          "so that no `GET` is needed after an action. Absent otherwise.")


class Presence(BaseModel):
    """The caller's seat after `POST /tables/{T}/back`."""

    seat: int
    away: bool = Field(description="Always false: the seat is the person's again.")
    version: int = Field(description="The table's version after coming back.")


class Left(BaseModel):
    """The caller's seat after `POST /tables/{T}/leave`: its token is refused from now on."""

    table: str
    seat: int = Field(description="The seat left.")
    status: str = Field(
        description="`free`: the game had not started; the seat is free again and whoever joins it next gets a new "
                    "token. `bot`: the game had started; the table's stand-in bot plays the seat to the end (a "
                    "`SeatLeft` event in the log).")
    strategy: str | None = Field(description="The bot strategy that plays the seat now (`status` `bot`); null when "
                                             "the seat was freed.")
    version: int = Field(description="The table's version after leaving: 0 when freed before the start, else the "
                                     "version of the `SeatLeft` event.")


class EventPage(BaseModel):
    """Events after a version, redacted for the caller."""

    version: int = Field(description="The table's version now.")
    events: list[dict[str, Any]] = Field(description="Each with its `version` (position in the log).")


class HistorySeat(BaseModel):
    """One seat of an archived game."""

    seat: int
    name: str = Field(description="The name given at join, or the bot's (`heuristic bot 1`).")
    kind: str = Field(description="`human` or `bot`. A person's seat stays `human` even if the person left it and a "
                                  "stand-in bot finished the game.")
    strategy: str | None = Field(description="A bot seat's strategy; null for a person's.")
    place: int | None = Field(description="1 = first; tied seats share a place.")
    score: float | None = Field(description="The seat's final total as the game counts it (penalty points in Mau "
                                            "Mau and Maudix, where lower is better); null when the game has none.")


class HistoryGame(BaseModel):
    """An archived game: who played, the result and when (never its log, meta or a token hash)."""

    table: str = Field(description="The table's id: `GET /tables/{table}` and `/events` still answer for it, "
                                   "and `/replay/{table}` steps through it.")
    game: str
    players: int
    options: dict[str, Any]
    seats: list[HistorySeat] = Field(description="One per seat, in seat order.")
    winners: list[int] = Field(description="The seats placed first.")
    result: dict[str, Any] | None = Field(description="Final scores and places, as `GET /tables/{T}` gives them.")
    created: str = Field(description="When the table was created, ISO 8601 UTC (`2026-12-01T18:30:05.123Z`).")
    created_ms: int = Field(description="The same, ms since the epoch.")
    started: str = Field(description="When the cards were dealt (the first event), ISO 8601 UTC.")
    started_ms: int
    ended: str = Field(description="When the game ended (the last event), ISO 8601 UTC.")
    ended_ms: int
    events: int = Field(description="How many events the game's log holds (its final version).")


class HistoryList(BaseModel):
    """A page of archived games, newest first (by end)."""

    items: list[HistoryGame]
    next: str | None = Field(description="The `cursor` of the next page; null when there is none.")


class ReplayStep(BaseModel):
    """One step of a finished game's replay: the position after one move, as one seat (or the spectator) saw it."""

    table: str
    game: str
    seat: int | None = Field(description="The seat whose view this is; null for the spectator's.")
    version: int = Field(description="The version shown: the last event of the move (`at`, or the end of the move "
                                     "holding it).")
    move: int = Field(description="Which step this is: 1 for the opening (the deal), up to `len(steps)`.")
    first: int = Field(description="The version of the first step (the opening's last event).")
    last: int = Field(description="The table's last version: the end of the game.")
    steps: list[int] = Field(description="The versions at which a move ends, in order: every position of the replay.")
    view: SeatView = Field(description="The view as `GET /tables/{T}/view` gave it to that seat at `version`, "
                                       "without `legal_actions`, `choices` nor `deadlines`.")
    events: list[dict[str, Any]] = Field(description="The events of this move (after the previous step, up to "
                                                     "`version`), redacted for that seat as its feed gave them, "
                                                     "each with its `version`.")
    result: dict[str, Any] | None = Field(description="At the last version, the game's result (as `GET "
                                                      "/tables/{T}` gives it); null before.")
