"""The event envelope and its msgpack codec (docs/architecture.md, "Events").

An :class:`Event` is a past-tense fact (``CardPlayed``, ``RoundScored``).
Games create events with ``type``, ``data`` and ``seat``; the worker sets
``ts`` (milliseconds since the epoch) and ``cmd`` (the id of the command
that caused it) when it appends them.  ``data`` holds only msgpack/JSON
types: ``dict`` with ``str`` keys, ``list``, ``str``, ``int``, ``float``,
``bool`` and ``None`` (cards are their string codes, see
:mod:`shared.cards`).

Wire form: a msgpack map ``{"t": type, "d": data, "s": seat, "ts": ts,
"c": cmd}``.  Tuples in ``data`` come back as lists.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import msgpack


@dataclass(frozen=True, slots=True, init=False)
class Event:
    """One fact in a table's log.

    ``type``: event name, PascalCase past tense.  ``data``: JSON-ready
    payload (default: a new empty dict).  ``seat``: the acting seat or None
    for the table itself.  ``ts``: ms since epoch, 0 until the worker
    stamps it.  ``cmd``: the command id that caused it, or None (e.g.
    table creation).
    """

    type: str
    data: dict[str, Any]
    seat: int | None
    ts: int
    cmd: str | None

    def __init__(self, type: str, data: dict[str, Any] | None = None, seat: int | None = None, ts: int = 0,
                 cmd: str | None = None) -> None:
        # The frozen dataclass's own __init__ calls object.__setattr__ per
        # field (9,200 instructions an event); the slots' setters directly
        # cost 5,700.  Every action of every game makes at least one event.
        _set_type(self, type)
        _set_data(self, {} if data is None else data)
        _set_seat(self, seat)
        _set_ts(self, ts)
        _set_cmd(self, cmd)

    def stamped(self, ts: int, cmd: str | None) -> Event:
        """A copy with the worker's timestamp and command id."""
        return replace(self, ts=ts, cmd=cmd)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict for HTTP feeds."""
        return {"type": self.type, "data": self.data, "seat": self.seat, "ts": self.ts, "cmd": self.cmd}


class EventDecodeError(ValueError):
    """Raised when bytes are not a valid encoded event."""


# The setters of Event's slots (member descriptors), used by its __init__.
_set_type, _set_data, _set_seat, _set_ts, _set_cmd = (
    vars(Event)[f].__set__ for f in ("type", "data", "seat", "ts", "cmd"))


def encode(event: Event) -> bytes:
    """Serialise one event to msgpack bytes."""
    return msgpack.packb(
        {"t": event.type, "d": event.data, "s": event.seat, "ts": event.ts, "c": event.cmd},
        use_bin_type=True,
    )


def decode(raw: bytes) -> Event:
    """Parse msgpack bytes made by :func:`encode`.

    Raises :class:`EventDecodeError` on anything that is not an event.
    """
    try:
        obj = msgpack.unpackb(raw, raw=False, strict_map_key=False)
    except Exception as exc:  # noqa: BLE001 -- msgpack raises several unrelated types; all mean "not an event"
        raise EventDecodeError(f"not msgpack: {exc.__class__.__name__}") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("t"), str) or not isinstance(obj.get("d", {}), dict):
        raise EventDecodeError("not an event envelope")
    seat = obj.get("s")
    if seat is not None and not isinstance(seat, int):
        raise EventDecodeError("seat must be an int or null")
    return Event(obj["t"], obj.get("d") or {}, seat, int(obj.get("ts") or 0), obj.get("c"))


def encode_many(events: list[Event]) -> list[bytes]:
    """Encode a batch, in order."""
    return [encode(e) for e in events]
