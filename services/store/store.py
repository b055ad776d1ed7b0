"""The Redis-streams event store (design.md §3).

:class:`EventStore` wraps a ``redis.asyncio`` client (a real server, a
Redis Cluster, or fakeredis in embedded mode: the same code path).

* A table's log is the stream ``tapis:{T}:events``; entry ids are
  ``<version>-0`` so "events after N" is a plain XRANGE.
* :meth:`EventStore.append` is one Lua script: answer a recorded command
  from its record, else check ``meta.version == expected``, XADD the
  events, bump the version, record the command id — all or nothing.
* Snapshots (``tapis:{T}:snap``) let a reader skip the head of the log.

Outcome records (``tapis:{T}:cmd:<id>``, with a TTL) are short strings
``ok <first> <last> <digest>``: the versions of the applied command's first
and last event and a digest of its body (a reused id with another body is
refused).  Refusals are not recorded: nothing was applied, so a retry is
simply decided again.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from redis.asyncio import Redis

from services.store import keys
from shared.events import Event, decode, encode

_APPEND = """
local rec = redis.call('GET', KEYS[3])
if rec then return {'dup', rec} end
local v = redis.call('HGET', KEYS[1], 'version')
if not v then return {'missing', ''} end
v = tonumber(v)
local expected = tonumber(ARGV[1])
if v ~= expected then return {'conflict', tostring(v)} end
local n = #ARGV - 4
for i = 1, n do
  redis.call('XADD', KEYS[2], (v + i) .. '-0', 'e', ARGV[4 + i])
end
local nv = v + n
redis.call('HSET', KEYS[1], 'version', nv)
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'status', ARGV[3]) end
redis.call('SET', KEYS[3], 'ok ' .. (v + 1) .. ' ' .. nv .. ' ' .. ARGV[4], 'EX', tonumber(ARGV[2]))
return {'ok', tostring(nv)}
"""

_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
"""

# ARGV: seat (-1: first free), token hash, name.  Returns {'ok', seat, free}
# or {'taken'|'full'|'missing'|'bad_seat', ''}.
_JOIN = """
local n = tonumber(redis.call('HGET', KEYS[1], 'players'))
if not n then return {'missing', ''} end
local want = tonumber(ARGV[1])
local seat = -1
if want >= 0 then
  if want >= n then return {'bad_seat', ''} end
  if redis.call('HEXISTS', KEYS[1], 'seat:' .. want) == 1 then return {'taken', ''} end
  seat = want
else
  for i = 0, n - 1 do
    if redis.call('HEXISTS', KEYS[1], 'seat:' .. i) == 0 then seat = i; break end
  end
  if seat < 0 then return {'full', ''} end
end
redis.call('HSET', KEYS[1], 'seat:' .. seat, 'tok:' .. ARGV[2], 'name:' .. seat, ARGV[3])
local free = 0
for i = 0, n - 1 do
  if redis.call('HEXISTS', KEYS[1], 'seat:' .. i) == 0 then free = free + 1 end
end
return {'ok', tostring(seat), tostring(free)}
"""


@dataclass(frozen=True, slots=True)
class Outcome:
    """A recorded applied command: its events are versions ``first..last``;
    ``digest`` identifies the command's body."""

    first: int
    last: int
    digest: str = ""

    @classmethod
    def parse(cls, raw: bytes | str) -> "Outcome":
        """Parse a record string (see module doc)."""
        text = raw.decode() if isinstance(raw, bytes) else raw
        parts = text.split(" ")
        return cls(int(parts[1]), int(parts[2]), parts[3] if len(parts) > 3 else "")

    def record(self) -> str:
        """The record string."""
        return f"ok {self.first} {self.last} {self.digest}"


@dataclass(frozen=True, slots=True)
class AppendResult:
    """What :meth:`EventStore.append` did.

    ``status``: ``"ok"`` (appended; ``version`` is the new version),
    ``"conflict"`` (``version`` is the current one), ``"dup"`` (the
    command was already answered: ``outcome``), ``"missing"`` (no table).
    """

    status: str
    version: int = 0
    outcome: Outcome | None = None


class TableExists(Exception):
    """Raised by :meth:`EventStore.create` when the table id is taken."""


class EventStore:
    """Async event store over one Redis connection pool (see module doc)."""

    def __init__(self, redis: Redis, *, command_ttl_s: int = 86_400) -> None:
        self.redis = redis
        self.command_ttl_s = command_ttl_s
        self._append = redis.register_script(_APPEND)
        self._create = redis.register_script(_CREATE)
        self._join = redis.register_script(_JOIN)

    # -- tables -----------------------------------------------------------
    async def create(
        self, table: str, *, game: str, players: int, options: dict[str, Any], bots: dict[int, str], names: dict[int, str]
    ) -> None:
        """Create a table's meta hash (version 0, status ``waiting``) and
        list it in the lobby.  ``bots``: seat -> strategy.

        Raises :class:`TableExists` if the id is taken.
        """
        now = int(time.time() * 1000)
        fields: dict[str, Any] = {
            "game": game,
            "players": players,
            "options": json.dumps(options, separators=(",", ":")),
            "version": 0,
            "status": "waiting",
            "created": now,
        }
        for seat, strategy in bots.items():
            fields[f"seat:{seat}"] = f"bot:{strategy}"
            fields[f"name:{seat}"] = names.get(seat, f"bot {seat}")
        argv: list[Any] = []
        for k, v in fields.items():
            argv += [k, v]
        if not await self._create(keys=[keys.meta(table)], args=argv):
            raise TableExists(table)
        await self.redis.zadd(keys.LOBBY, {table: now})

    async def join(self, table: str, seat: int | None, token_hash: str, name: str) -> tuple[str, int, int]:
        """Claim a free seat atomically.  Returns ``(status, seat, free)``
        with status ``ok``, ``taken``, ``full``, ``bad_seat`` or ``missing``;
        ``free`` is how many seats remain free after an ``ok``."""
        res = await self._join(keys=[keys.meta(table)], args=[-1 if seat is None else seat, token_hash, name])
        status = _s(res[0])
        if status != "ok":
            return status, -1, 0
        return status, int(res[1]), int(res[2])

    async def meta(self, table: str) -> dict[str, str] | None:
        """The table's meta hash as str -> str, or None if absent."""
        raw = await self.redis.hgetall(keys.meta(table))
        if not raw:
            return None
        return {_s(k): _s(v) for k, v in raw.items()}

    async def metas(self, tables: list[str]) -> list[dict[str, str] | None]:
        """Meta hashes of many tables, pipelined (one per table key)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for t in tables:
                pipe.hgetall(keys.meta(t))
            rows = await pipe.execute()
        return [{_s(k): _s(v) for k, v in r.items()} if r else None for r in rows]

    async def lobby(self, limit: int, offset: int = 0) -> list[str]:
        """Table ids, newest first."""
        ids = await self.redis.zrevrange(keys.LOBBY, offset, offset + limit - 1)
        return [_s(i) for i in ids]

    async def set_status(self, table: str, status: str) -> None:
        """Set the table's status field (``waiting``/``playing``/``finished``)."""
        await self.redis.hset(keys.meta(table), "status", status)

    # -- the log ----------------------------------------------------------
    async def append(
        self, table: str, expected: int, command_id: str, events: list[Event], *, status: str = "", digest: str = ""
    ) -> AppendResult:
        """Append ``events`` if the table is at version ``expected`` and the
        command has no recorded outcome (one Lua script; all or nothing).
        ``status``: new meta status, or '' to leave it; ``digest``: the
        command body's digest, kept in the record."""
        argv: list[Any] = [expected, self.command_ttl_s, status, digest or "-"]
        argv += [encode(e) for e in events]
        res = await self._append(keys=[keys.meta(table), keys.events(table), keys.cmd(table, command_id)], args=argv)
        kind = _s(res[0])
        if kind == "ok":
            return AppendResult("ok", int(res[1]))
        if kind == "conflict":
            return AppendResult("conflict", int(res[1]))
        if kind == "dup":
            return AppendResult("dup", outcome=Outcome.parse(res[1]))
        return AppendResult("missing")

    async def outcome(self, table: str, command_id: str) -> Outcome | None:
        """The recorded outcome of a command, or None."""
        raw = await self.redis.get(keys.cmd(table, command_id))
        return Outcome.parse(raw) if raw is not None else None

    async def read(self, table: str, after: int = 0, until: int | None = None, count: int | None = None) -> list[Event]:
        """Events with versions ``after+1 .. until`` (inclusive), in order."""
        lo = f"{after + 1}-0"
        hi = "+" if until is None else f"{until}-0"
        rows = await self.redis.xrange(keys.events(table), lo, hi, count=count)
        return [decode(fields[b"e"]) for _id, fields in rows]

    async def version(self, table: str) -> int | None:
        """The table's current version, or None if it does not exist."""
        v = await self.redis.hget(keys.meta(table), "version")
        return None if v is None else int(v)

    # -- snapshots --------------------------------------------------------
    async def save_snapshot(self, table: str, blob: bytes) -> None:
        """Store a snapshot blob (:func:`shared.snapshot.pack`)."""
        await self.redis.set(keys.snap(table), blob)

    async def load_snapshot(self, table: str) -> bytes | None:
        """The latest snapshot blob, or None."""
        return await self.redis.get(keys.snap(table))


def _s(v: bytes | str) -> str:
    return v.decode() if isinstance(v, bytes) else v
