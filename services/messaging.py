"""Messages between the roles, and the client that sends them.

The gateway, the workers and the bot runners all speak through this one
module (docs/architecture.md, "The flow of one action"):

* :class:`Command` — one entry of a command stream
  ``tapis:commands:<shard>``: ``t`` table, ``k`` kind (see :data:`KINDS`),
  ``s`` seat, ``a`` msgpack action, ``x`` expected version ('' for none),
  ``i`` command id, ``r`` reply stream id ('' for none), ``ts`` submit
  time in ms.  An entry that cannot be decoded raises
  :class:`CommandDecodeError` (the worker dead-letters it).
* :class:`Reply` — a worker's answer, one entry of a reply stream
  ``tapis:replies:<id>`` with one field ``m``: msgpack of the reply.
* :class:`Submitter` — puts commands on the shard streams and awaits the
  replies.  Each gateway (and each bot runner) has an id and one reply
  stream; one listener task reads it (XREAD BLOCK) and resolves the
  future of each waiting request by command id, so a single Redis
  connection serves however many requests wait.  No reply in time raises
  :class:`ReplyTimeout`.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, cast

import msgpack
from redis.asyncio import Redis
from redis.typing import EncodableT, FieldT

from services.health import Heartbeats
from services.store import keys
from services.store.store import StreamReads

log = logging.getLogger("tapis.messaging")

#: Command kinds: ``act`` (a person's action), ``bot`` (a bot's action, or a
#: stand-in's for an away person), ``start`` (deal), ``timeout`` (mark the
#: seats whose turn clock ran out away), ``back`` (a person takes an away
#: seat back), ``leave`` (a person leaves a started table for good).
KINDS = frozenset({"act", "bot", "start", "timeout", "back", "leave"})


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

    def fields(self) -> dict[FieldT, EncodableT]:
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
    def parse(cls, fields: dict[bytes, bytes]) -> Command:
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
    command appended (unredacted; the gateway redacts them per caller).
    ``table``: the command's table; with ``id`` it names the request (a
    client's command ids are scoped to its seat, not to a table, so two
    tables may see the same id)."""

    id: str
    ok: bool
    version: int
    code: str = ""
    message: str = ""
    events: list[bytes] = field(default_factory=list)
    table: str = ""

    def pack(self) -> bytes:
        """msgpack bytes."""
        return msgpack.packb([self.id, self.ok, self.version, self.code, self.message, self.events, self.table],
                             use_bin_type=True)

    @classmethod
    def unpack(cls, raw: bytes) -> Reply:
        """Inverse of :meth:`pack`."""
        i, ok, v, code, msg, evs, *rest = msgpack.unpackb(raw, raw=False)
        return cls(i, ok, v, code, msg, evs, rest[0] if rest else "")


# -- submitting commands and awaiting replies ------------------------------


class ReplyTimeout(Exception):
    """No reply in time (the command may still be applied later: retry
    with the same command id to learn its outcome)."""


class Submitter:
    """Puts commands on the shard streams and waits for replies."""

    def __init__(self, redis: Redis, shards: int, *, reply_timeout_s: float = 10.0, listener_redis: Redis | None = None,
                 heartbeats: Heartbeats | None = None):
        self.redis = redis
        self.heartbeats = heartbeats or Heartbeats()
        self.listener_redis = listener_redis or redis
        self.shards = shards
        self.reply_timeout_s = reply_timeout_s
        self.id = uuid.uuid4().hex[:12]
        self.stream = keys.replies(self.id)
        self._waiting: dict[tuple[str, str], asyncio.Future[Reply]] = {}  # (table, command id) -> reply
        self._task: asyncio.Task | None = None
        self._stopping = False

    async def start(self) -> None:
        """Start the reply listener."""
        if self._task is None:
            self._task = asyncio.create_task(self._listen())

    async def stop(self) -> None:
        """Stop the listener and delete this submitter's reply stream."""
        if self._task is not None:
            # Let the blocking XREAD return (≤ 1 s) rather than cancel it:
            # a cancelled blocking read can leave the client waiting.
            self._stopping = True
            try:
                await asyncio.wait_for(asyncio.shield(self._task), 3)
            except (TimeoutError, Exception):  # noqa: BLE001 -- stop() must finish whatever the listener raised
                self._task.cancel()
                await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
            self._stopping = False
        try:
            await self.redis.delete(self.stream)
        except Exception:  # noqa: BLE001 -- best-effort cleanup of the reply stream on shutdown
            pass

    #: The listener trims its reply stream once this many replies were read
    #: since the last trim, or :data:`TRIM_EVERY_S` after it: not after each
    #: read, one round trip less per action (each reply's XADD also caps
    #: the stream at about 10,000 entries).
    TRIM_EVERY = 256
    TRIM_EVERY_S = 1.0

    async def _listen(self) -> None:
        last: bytes | str = "0-0"
        unread_trim, trimmed_at = 0, time.monotonic()
        while not self._stopping:
            try:
                resp = cast(StreamReads, await self.listener_redis.xread({self.stream: last}, count=500, block=500))
                self.heartbeats.beat("replies")
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 -- Redis away: back off, never die
                log.warning("reply listener failed (%s); retrying", exc.__class__.__name__)
                await asyncio.sleep(0.5)
                continue
            for _s, entries in resp or ():
                for entry_id, fields in entries:
                    last = entry_id
                    try:
                        reply = Reply.unpack(fields[b"m"])
                    except Exception:  # noqa: BLE001 -- one malformed entry must not kill the listener
                        log.warning("bad reply entry %s", entry_id)
                        continue
                    fut = self._waiting.pop((reply.table, reply.id), None)
                    if fut is not None and not fut.done():
                        fut.set_result(reply)
            for _s, entries in resp or ():
                unread_trim += len(entries)
            if unread_trim and (unread_trim >= self.TRIM_EVERY or time.monotonic() - trimmed_at >= self.TRIM_EVERY_S):
                # replies are consumed once; trim what was read
                try:
                    await self.redis.xtrim(self.stream, minid=last, approximate=True)
                    unread_trim, trimmed_at = 0, time.monotonic()
                except Exception as exc:  # noqa: BLE001 -- trimmed next time
                    log.warning("trimming replies failed (%s)", exc.__class__.__name__)

    async def send(
        self,
        table: str,
        *,
        kind: str = "act",
        seat: int | None = None,
        action: dict | None = None,
        expected: int | None = None,
        command_id: str | None = None,
        wait: bool = True,
    ) -> Reply | None:
        """Submit one command; with ``wait`` return the worker's reply.

        Raises :class:`ReplyTimeout` when no reply comes in time."""
        cid = command_id or uuid.uuid4().hex
        cmd = Command(table, kind, seat, action, expected, cid, self.id if wait else "", int(time.time() * 1000))
        fut: asyncio.Future[Reply] | None = None
        if wait:
            await self.start()
            fut = asyncio.get_running_loop().create_future()
            # Two requests with the same command id at the same table share one reply.
            prev = self._waiting.get((table, cid))
            if prev is not None and not prev.done():
                fut = prev
            else:
                self._waiting[(table, cid)] = fut
        await self.redis.xadd(keys.commands(keys.shard_of(table, self.shards)), cmd.fields())
        if fut is None:
            return None
        try:
            return await asyncio.wait_for(asyncio.shield(fut), self.reply_timeout_s)
        except TimeoutError:
            self._waiting.pop((table, cid), None)
            raise ReplyTimeout(cid) from None
