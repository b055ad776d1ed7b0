"""Wire format of commands (``tapis:commands:<shard>``) and replies
(``tapis:replies:<gateway>``).

A command stream entry has the fields ``t`` table, ``k`` kind (see
:data:`KINDS`), ``s`` seat, ``a`` msgpack action, ``x`` expected version ('' for
none), ``i`` command id, ``r`` reply stream id ('' for none), ``ts`` submit
time in ms.  A reply entry has one field ``m``: msgpack of :class:`Reply`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgpack

#: Command kinds: ``act`` (a person's action), ``bot`` (a bot's action, or a
#: stand-in's for an away person), ``start`` (deal), ``timeout`` (mark the
#: seats whose turn clock ran out away), ``back`` (a person takes an away
#: seat back).
KINDS = frozenset({"act", "bot", "start", "timeout", "back"})


class CommandDecodeError(ValueError):
    """Raised for a command entry that cannot be decoded (dead letter)."""


@dataclass(frozen=True, slots=True)
class Command:
    """One submitted command."""

    table: str
    kind: str
    seat: int | None
    action: dict[str, Any] | None
    expected: int | None
    id: str
    reply_to: str
    ts: int

    def fields(self) -> dict[str, bytes | str | int]:
        """Stream entry fields."""
        return {
            "t": self.table,
            "k": self.kind,
            "s": "" if self.seat is None else self.seat,
            "a": msgpack.packb(self.action, use_bin_type=True),
            "x": "" if self.expected is None else self.expected,
            "i": self.id,
            "r": self.reply_to,
            "ts": self.ts,
        }

    @classmethod
    def parse(cls, fields: dict[bytes, bytes]) -> "Command":
        """Inverse of :meth:`fields`.  Raises :class:`CommandDecodeError`."""
        try:
            kind = fields[b"k"].decode()
            if kind not in KINDS:
                raise CommandDecodeError(f"unknown kind {kind!r}")
            seat_raw = fields.get(b"s", b"")
            exp_raw = fields.get(b"x", b"")
            action = msgpack.unpackb(fields[b"a"], raw=False) if fields.get(b"a") else None
            if action is not None and not isinstance(action, dict):
                raise CommandDecodeError("action is not a map")
            return cls(
                table=fields[b"t"].decode(),
                kind=kind,
                seat=int(seat_raw) if seat_raw else None,
                action=action,
                expected=int(exp_raw) if exp_raw else None,
                id=fields[b"i"].decode(),
                reply_to=fields.get(b"r", b"").decode(),
                ts=int(fields.get(b"ts", b"0") or 0),
            )
        except CommandDecodeError:
            raise
        except (KeyError, ValueError, UnicodeDecodeError, TypeError, msgpack.UnpackException) as exc:
            raise CommandDecodeError(f"{exc.__class__.__name__}: {exc}") from None


@dataclass(frozen=True, slots=True)
class Reply:
    """A worker's answer to one command.  ``events``: encoded events the
    command appended (unredacted; the gateway redacts them per caller)."""

    id: str
    ok: bool
    version: int
    code: str = ""
    message: str = ""
    events: list[bytes] = field(default_factory=list)

    def pack(self) -> bytes:
        """msgpack bytes."""
        return msgpack.packb([self.id, self.ok, self.version, self.code, self.message, self.events], use_bin_type=True)

    @classmethod
    def unpack(cls, raw: bytes) -> "Reply":
        """Inverse of :meth:`pack`."""
        i, ok, v, code, msg, evs = msgpack.unpackb(raw, raw=False)
        return cls(i, ok, v, code, msg, evs)
