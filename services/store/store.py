"""The Redis-streams event store (docs/architecture.md, "Keys" and "The flow
of one action").

:class:`EventStore` wraps a ``redis.asyncio`` client (a real server, a
Redis Cluster, or fakeredis in embedded mode: the same code path).

* A table's log is the stream ``tapis:{p}:T:events``; entry ids are
  ``<version>-0`` so "events after N" is a plain XRANGE.
* Liveness: the append script (and the create and join scripts) also put
  the table in its partition's due set, so whatever must happen next (a
  bot turn, the start, a turn clock) is on record in the same atomic step
  as the events; the workers' sweepers claim due tables with a lease.
* :meth:`EventStore.append` is one Lua script: answer a recorded command
  from its record, else check ``meta.version == expected``, XADD the
  events, bump the version, record the command id — all or nothing.
* Snapshots (``tapis:{p}:T:snap``) let a reader skip the head of the log.

Keys are listed in :mod:`services.store.keys` (``{p}`` below is the
table's partition hash tag).

Outcome records: one hash per table, ``tapis:{p}:T:cmds``, field = the
command id, value = ``<first> <last> <digest>``: the versions of the
applied command's first and last event and a digest of its body (a reused
id with another body is refused).  The hash lives as long as the table:
it is written by the appends (the first one, the start, gives it the
meta's expiry if the meta has one), expires with the table's other keys
after its end and is removed with them (:meth:`EventStore.drop_archived`).
Kept small, Redis stores it as one compact listpack (up to
``hash-max-listpack-entries`` fields, 512 by default, of at most
``hash-max-listpack-value`` bytes, 64): a command id longer than 64 bytes
is recorded under ``#`` + a 128-bit hash of it (:func:`record_field`).
Refusals are not recorded: nothing was applied, so a retry is simply
decided again.

Earlier versions kept each record in a key of its own,
``tapis:{p}:T:cmd:<id>`` (a string ``ok <first> <last> <digest>`` with a
TTL): the append script and :meth:`EventStore.outcome` still answer from
such a key when the hash has no record (a rolling upgrade: commands
applied by a worker of the earlier version); those keys expire on their
own.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from dataclasses import dataclass
from typing import Any, cast

from redis.asyncio import Redis

from services.store import keys
from shared.events import Event, decode, encode

# KEYS: meta, events, cmds, due, waiting, the command's legacy record key.
# ARGV: expected version, the command's field in cmds, status ('' none),
# digest, due ms, last event ms, table id, m (meta fields to set), then m
# field/value pairs, then the events.  The first append (the start, at
# version 0) creates cmds: it gets the meta's expiry if the meta has one.
_APPEND = """
local rec = redis.call('HGET', KEYS[3], ARGV[2])
if rec then return {'dup', rec} end
rec = redis.call('GET', KEYS[6])
if rec then return {'dup', rec} end
local v = redis.call('HGET', KEYS[1], 'version')
if not v then return {'missing', ''} end
v = tonumber(v)
local expected = tonumber(ARGV[1])
if v ~= expected then return {'conflict', tostring(v)} end
local m = tonumber(ARGV[8])
local n = #ARGV - 8 - 2 * m
for i = 1, n do
  redis.call('XADD', KEYS[2], (v + i) .. '-0', 'e', ARGV[8 + 2 * m + i])
end
local nv = v + n
redis.call('HSET', KEYS[1], 'version', nv)
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'status', ARGV[3]) end
for i = 1, m do redis.call('HSET', KEYS[1], ARGV[7 + 2 * i], ARGV[8 + 2 * i]) end
redis.call('HSET', KEYS[3], ARGV[2], (v + 1) .. ' ' .. nv .. ' ' .. ARGV[4])
if v == 0 then
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl > 0 then redis.call('PEXPIRE', KEYS[3], ttl) end
end
redis.call('ZADD', KEYS[4], tonumber(ARGV[5]), ARGV[7])
redis.call('ZADD', KEYS[5], tonumber(ARGV[6]), ARGV[7])
return {'ok', tostring(nv)}
"""

# KEYS: meta, due, waiting.  ARGV: version, due ms ('' = waiting on
# nothing: remove), last event ms ('' = due for no turn, only for its
# archiving: out of the waiting set), table id.  Applies only while the
# table is still at that version (a later append has scheduled it anew).
_SCHEDULE = """
local v = redis.call('HGET', KEYS[1], 'version')
if not v or tonumber(v) ~= tonumber(ARGV[1]) then return 0 end
if ARGV[2] == '' then
  redis.call('ZREM', KEYS[2], ARGV[4])
  redis.call('ZREM', KEYS[3], ARGV[4])
else
  redis.call('ZADD', KEYS[2], tonumber(ARGV[2]), ARGV[4])
  if ARGV[3] == '' then
    redis.call('ZREM', KEYS[3], ARGV[4])
  else
    redis.call('ZADD', KEYS[3], tonumber(ARGV[3]), ARGV[4])
  end
end
return 1
"""

# KEYS: due.  ARGV: now ms, lease ms, count.  The due tables, each leased
# (its score moved to now + lease) so that no other sweeper takes it until
# the lease runs out.
_CLAIM = """
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local until_ms = tonumber(ARGV[1]) + tonumber(ARGV[2])
for _, id in ipairs(ids) do redis.call('ZADD', KEYS[1], 'XX', until_ms, id) end
return ids
"""

# KEYS: meta, due, waiting.  ARGV: due ms ('' none: people must join),
# now ms, table id, expiry ms of a table waiting for people (0: none), then
# the meta fields.
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 5))
if ARGV[1] ~= '' then
  redis.call('ZADD', KEYS[2], tonumber(ARGV[1]), ARGV[3])
  redis.call('ZADD', KEYS[3], tonumber(ARGV[2]), ARGV[3])
elseif tonumber(ARGV[4]) > 0 then
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]))
end
return 1
"""

# KEYS: meta, due, waiting.  ARGV: seat (-1: first free), token hash, name,
# due ms of the start, now ms, table id, expiry ms of a table still waiting
# for people (0: none; a join renews it; the last seat removes it).  Returns {'ok', seat, free} or
# {'taken'|'full'|'missing'|'bad_seat', ''}.  Filling the last seat puts the
# table in the due set: the sweeper re-sends the start if nobody does.
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
if free == 0 then
  redis.call('PERSIST', KEYS[1])
  redis.call('ZADD', KEYS[2], tonumber(ARGV[4]), ARGV[6])
  redis.call('ZADD', KEYS[3], tonumber(ARGV[5]), ARGV[6])
elseif tonumber(ARGV[7]) > 0 then
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[7]))
end
return {'ok', tostring(seat), tostring(free)}
"""

# KEYS: meta.  ARGV: seat, token hash, expiry ms of a table still waiting
# for people (0: none; a leave renews it).  Frees a seat of a table not
# started yet if that token holds it.  Returns 'ok', 'missing', 'started'
# (cards dealt: the worker's leave applies), 'not_yours' (the seat is not
# held by that token: left already, or another's) or 'full' (every seat is
# taken, so the start is under way: leaving must wait for it, else the
# game could start with an empty seat).
_LEAVE = """
local n = tonumber(redis.call('HGET', KEYS[1], 'players'))
if not n then return 'missing' end
if tonumber(redis.call('HGET', KEYS[1], 'version') or '0') > 0 then return 'started' end
if redis.call('HGET', KEYS[1], 'seat:' .. ARGV[1]) ~= 'tok:' .. ARGV[2] then return 'not_yours' end
local free = 0
for i = 0, n - 1 do
  if redis.call('HEXISTS', KEYS[1], 'seat:' .. i) == 0 then free = free + 1 end
end
if free == 0 then return 'full' end
redis.call('HDEL', KEYS[1], 'seat:' .. ARGV[1], 'name:' .. ARGV[1])
if tonumber(ARGV[3]) > 0 then redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3])) end
return 'ok'
"""


# KEYS: meta, events, snap, cmds, unarchived.  ARGV: status, retention s (0:
# none), ended ms (0: not to be archived), table id.  Sets the status of a
# table that still exists; a finished one's keys expire after the retention,
# or it is listed as not archived yet.  Returns 1, or 0 (no table).
_SET_STATUS = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[1])
local ttl = tonumber(ARGV[2])
if ttl > 0 then
  for i = 1, 4 do redis.call('EXPIRE', KEYS[i], ttl) end
end
if tonumber(ARGV[3]) > 0 then redis.call('ZADD', KEYS[5], 'NX', tonumber(ARGV[3]), ARGV[4]) end
return 1
"""

# KEYS: meta, events, snap, cmds, due, waiting, unarchived.  ARGV: version,
# table id.  Removes an archived table's keys and its entries in the due,
# waiting and unarchived sets, if the table is still at that version
# (nothing was appended since the archive was written).  Returns 1, 0 (the
# version moved: not removed) or -1 (no table).
_DROP = """
local v = redis.call('HGET', KEYS[1], 'version')
if not v then return -1 end
if tonumber(v) ~= tonumber(ARGV[1]) then return 0 end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
redis.call('ZREM', KEYS[5], ARGV[2])
redis.call('ZREM', KEYS[6], ARGV[2])
redis.call('ZREM', KEYS[7], ARGV[2])
return 1
"""


# KEYS: meta, snap.  ARGV: the snapshot blob.  Writes it if the table still
# exists (a late snapshot never brings back part of a removed table), with
# the meta's expiry if the meta has one (a finished table's retention: the
# worker writes its last snapshot after marking the table finished, and SET
# would leave the snapshot without one).  Returns 1, or 0 (no table).
_SNAPSHOT = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('SET', KEYS[2], ARGV[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return 1
"""


#: What redis-py returns for XRANGE (bytes responses): ``[(id, {field: value})]``.
StreamEntries = list[tuple[bytes, dict[bytes, bytes]]]
#: What it returns for XREAD/XREADGROUP: ``[(stream, entries)]``.
StreamReads = list[tuple[bytes, StreamEntries]]


@dataclass(frozen=True, slots=True)
class Outcome:
    """A recorded applied command: its events are versions ``first..last``;
    ``digest`` identifies the command's body."""

    first: int
    last: int
    digest: str = ""

    @classmethod
    def parse(cls, raw: bytes | str) -> Outcome:
        """Parse a record: a value of the cmds hash ``<first> <last>
        <digest>``, or a legacy key's ``ok <first> <last> <digest>`` (see
        module doc)."""
        text = raw.decode() if isinstance(raw, bytes) else raw
        parts = text.split(" ")
        if parts[0] == "ok":
            parts = parts[1:]
        return cls(int(parts[0]), int(parts[1]), parts[2] if len(parts) > 2 else "")

    def record(self) -> str:
        """The record as the cmds hash keeps it."""
        return f"{self.first} {self.last} {self.digest}"


#: The longest field a listpack-encoded hash holds (Redis'
#: ``hash-max-listpack-value`` default): a longer one converts the whole
#: hash to the far larger hashtable encoding.
LISTPACK_VALUE_MAX = 64


def record_field(command_id: str) -> str:
    """The field of ``command_id``'s record in the table's cmds hash: the id
    itself, or for an id longer than :data:`LISTPACK_VALUE_MAX` bytes (a
    client's 64-character id with the gateway's seat prefix) ``#`` and
    128 bits of its BLAKE2b hash, which no command id can be (``#`` is not
    in :data:`keys.COMMAND_ID_RE`'s alphabet)."""
    raw = command_id.encode()
    if len(raw) <= LISTPACK_VALUE_MAX:
        return command_id
    return "#" + hashlib.blake2b(raw, digest_size=16).hexdigest()


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
    """Async event store over one Redis connection pool (see module doc).

    ``redrive_ms``: how long after an append the table is due for the
    sweeper unless the worker schedules it exactly (the worker always does
    right after; this only matters when the worker died in between).
    ``start_redrive_ms``: how long after the last seat is filled the
    sweeper re-sends the start unless the game has started."""

    def __init__(self, redis: Redis, *, redrive_ms: int = 10_000,
                 start_redrive_ms: int = 5_000, waiting_expiry_s: int = 0, finished_retention_s: int = 0,
                 archiving: bool = False) -> None:
        self.redis = redis
        #: Finished tables go to an archive (``TAPIS_ARCHIVE_URL``): they get
        #: no retention expiry and are listed in the unarchived sets instead.
        self.archiving = archiving
        self.waiting_expiry_s = waiting_expiry_s
        self.finished_retention_s = finished_retention_s
        self.redrive_ms = redrive_ms
        self.start_redrive_ms = start_redrive_ms
        self._append = redis.register_script(_APPEND)
        self._create = redis.register_script(_CREATE)
        self._join = redis.register_script(_JOIN)
        self._leave = redis.register_script(_LEAVE)
        self._schedule = redis.register_script(_SCHEDULE)
        self._claim = redis.register_script(_CLAIM)
        self._drop = redis.register_script(_DROP)
        self._set_status = redis.register_script(_SET_STATUS)
        self._snapshot = redis.register_script(_SNAPSHOT)

    @classmethod
    def from_settings(cls, redis: Redis, settings: Any) -> EventStore:
        """The store with the times of ``settings`` (a
        :class:`services.config.Settings`)."""
        from services.config import archive_enabled

        return cls(redis, redrive_ms=settings.redrive_bot_ms,
                   start_redrive_ms=settings.redrive_start_ms, waiting_expiry_s=settings.waiting_expiry_s,
                   finished_retention_s=settings.finished_retention_s, archiving=archive_enabled(settings))

    # -- tables -----------------------------------------------------------
    async def create(
        self, table: str, *, game: str, players: int, options: dict[str, Any], bots: dict[int, str],
        names: dict[int, str], clock: dict[str, Any] | None = None,
    ) -> None:
        """Create a table's meta hash (version 0, status ``waiting``) and
        list it in the lobby.  ``bots``: seat -> strategy; ``clock``: extra
        meta fields (``turn_ms``, ``stand_in``).  A table whose every seat
        is a bot is put in the due set at once (the sweeper starts it if
        the caller does not).

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
        for k, v in (clock or {}).items():
            if v is not None:
                fields[k] = v
        for seat, strategy in bots.items():
            fields[f"seat:{seat}"] = f"bot:{strategy}"
            fields[f"name:{seat}"] = names.get(seat, f"bot {seat}")
        due = now + self.start_redrive_ms if len(bots) >= players else ""
        argv: list[Any] = [due, now, table, self.waiting_expiry_s * 1000]
        for k, v in fields.items():
            argv += [k, v]
        if not await self._create(keys=self._sched_keys(table), args=argv):
            raise TableExists(table)
        async with self.redis.pipeline(transaction=False) as pipe:
            for key in (keys.lobby(), keys.lobby(status="waiting"), keys.lobby(game), keys.lobby(game, "waiting")):
                pipe.zadd(key, {table: now})
            await pipe.execute()

    async def join(self, table: str, seat: int | None, token_hash: str, name: str) -> tuple[str, int, int]:
        """Claim a free seat atomically.  Returns ``(status, seat, free)``
        with status ``ok``, ``taken``, ``full``, ``bad_seat`` or ``missing``;
        ``free`` is how many seats remain free after an ``ok``."""
        now = int(time.time() * 1000)
        res = await self._join(keys=self._sched_keys(table),
                               args=[-1 if seat is None else seat, token_hash, name, now + self.start_redrive_ms, now,
                                     table, self.waiting_expiry_s * 1000])
        status = _s(res[0])
        if status != "ok":
            return status, -1, 0
        return status, int(res[1]), int(res[2])

    async def leave_waiting(self, table: str, seat: int, token_hash: str) -> str:
        """Free ``seat`` of a table not started yet if the token of
        ``token_hash`` holds it, atomically (the join's counterpart).
        Returns ``ok`` (freed: name and token hash removed), ``missing``,
        ``started`` (the game has started: leaving is the worker's
        ``leave`` command), ``not_yours`` (that token does not hold the
        seat) or ``full`` (every seat is taken and the start is under way:
        send the start, then leave the started table)."""
        res = await self._leave(keys=[keys.meta(table)], args=[seat, token_hash, self.waiting_expiry_s * 1000])
        return _s(res)

    async def seat_holder(self, table: str, seat: int) -> str | None:
        """The meta's ``seat:<n>`` of ``table`` (``tok:<hash>``,
        ``bot:<strategy>``), or None for a free seat or no table."""
        raw = await self.redis.hget(keys.meta(table), f"seat:{seat}")
        return None if raw is None else _s(raw)

    @staticmethod
    def _sched_keys(table: str) -> list[str]:
        part = keys.partition(table)
        return [keys.meta(table), keys.due(part), keys.waiting(part)]

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
        """Table ids, newest first (every table, :data:`keys.LOBBY`)."""
        ids = cast(list[bytes], await self.redis.zrevrange(keys.LOBBY, offset, offset + limit - 1))
        return [_s(i) for i in ids]

    async def lobby_page(self, game: str | None, status: str | None, limit: int,
                         before: tuple[int, str] | None = None) -> list[tuple[str, int]]:
        """Up to ``limit`` ``(table id, created ms)`` of the lobby index of
        ``game`` and ``status`` (None: any), newest first, after the cursor
        ``before`` = ``(created ms, id)`` of the last one a previous page
        gave (ties in ms are ordered by id, descending).  The index may
        hold a table that changed status or expired since: callers check
        each against its meta and :meth:`reindex` it."""
        key = keys.lobby(game, status)
        if before is None:
            rows = cast(list[tuple[bytes, float]], await self.redis.zrange(
                key, "+inf", "-inf", desc=True, byscore=True, offset=0, num=limit, withscores=True))
            return [(_s(r), int(ms)) for r, ms in rows]
        ms, tid = before
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zrange(key, ms, ms, desc=True, byscore=True, withscores=True)  # the ties of the cursor's ms
            pipe.zrange(key, f"({ms}", "-inf", desc=True, byscore=True, offset=0, num=limit, withscores=True)
            ties, older = await pipe.execute()
        out = [(_s(r), int(m)) for r, m in ties if _s(r) < tid]
        out += [(_s(r), int(m)) for r, m in older]
        return out[:limit]

    async def reindex(self, table: str, *, game: str | None = None, status: str | None = None,
                      created: int = 0) -> None:
        """Put ``table`` in the lobby indexes of its status and out of the
        others: ``game``, ``status`` and ``created`` as given (a reader that
        knows the table's true status), else from its meta hash; a table
        that is gone (expired) leaves every index (``game`` names its
        game's, when known).  Idempotent: called on each status change and
        by lobby readers that find an index out of step."""
        meta: dict[str, str] | None
        if status is not None and game is not None:
            meta = {"game": game, "status": status, "created": str(created)}
        else:
            meta = await self.meta(table)
        async with self.redis.pipeline(transaction=False) as pipe:
            if meta is None:
                _unindex(pipe, table, game)
            else:
                g, status, created = meta["game"], meta.get("status", "waiting"), int(meta.get("created", 0))
                for st in keys.STATUSES:
                    if st == status:
                        pipe.zadd(keys.lobby(status=st), {table: created})
                        pipe.zadd(keys.lobby(g, st), {table: created})
                    else:
                        pipe.zrem(keys.lobby(status=st), table)
                        pipe.zrem(keys.lobby(g, st), table)
            await pipe.execute()

    async def set_status(self, table: str, status: str, ended_ms: int = 0) -> None:
        """Set the table's status field (``waiting``/``playing``/``finished``)
        and its lobby indexes, if the table still exists (one script: a late
        call never brings back a table removed meanwhile).  A finished
        table's keys expire after the retention (``finished_retention_s``,
        0: kept) unless it is to be archived (:attr:`archiving`): then it is
        listed in its partition's unarchived set at ``ended_ms`` (the time
        of its last event) until the archiver removes it."""
        part = keys.partition(table)
        retention = self.finished_retention_s if status == "finished" and not self.archiving else 0
        unarchived = (ended_ms or int(time.time() * 1000)) if status == "finished" and self.archiving else 0
        done = await self._set_status(
            keys=[keys.meta(table), keys.events(table), keys.snap(table), keys.cmds(table), keys.unarchived(part)],
            args=[status, retention, unarchived, table])
        if done:
            await self.reindex(table)

    async def unarchived(self) -> list[tuple[str, int]]:
        """``(table, ended ms)`` of every finished table not archived yet,
        oldest first (:func:`keys.unarchived` of every partition)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for part in range(keys.PARTITIONS):
                pipe.zrange(keys.unarchived(part), 0, -1, withscores=True)
            rows = await pipe.execute()
        return sorted(((_s(t), int(ms)) for row in rows for t, ms in row), key=lambda r: r[1])

    async def read_raw(self, table: str) -> list[bytes]:
        """The table's whole log as the events' encoded bytes, in order
        (version i+1 at index i), read in pages of 1,000."""
        return await self._read_raw_from(table, 0)

    async def read_many(self, tables: list[str]) -> list[tuple[dict[str, str] | None, list[bytes]]]:
        """``(meta, whole raw log)`` of each of ``tables``, in their order
        (meta None: no table), read with one pipelined round trip (an
        ``HGETALL`` and an ``XRANGE`` of up to 1,000 events a table; a
        longer log's rest is read as :meth:`read_raw` does).  Not atomic:
        the caller checks the log against the meta's version."""
        if not tables:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for t in tables:
                pipe.hgetall(keys.meta(t))
                pipe.xrange(keys.events(t), "1-0", "+", count=1000)
            rows = await pipe.execute()
        out: list[tuple[dict[str, str] | None, list[bytes]]] = []
        for i, t in enumerate(tables):
            raw_meta, entries = rows[2 * i], cast(StreamEntries, rows[2 * i + 1])
            log = [fields[b"e"] for _id, fields in entries]
            if len(entries) == 1000:
                log += await self._read_raw_from(t, len(log))
            out.append(({_s(k): _s(v) for k, v in raw_meta.items()} if raw_meta else None, log))
        return out

    async def _read_raw_from(self, table: str, have: int) -> list[bytes]:
        """The raw events after version ``have``, in pages of 1,000."""
        out: list[bytes] = []
        while True:
            rows = cast(StreamEntries, await self.redis.xrange(keys.events(table), f"{have + len(out) + 1}-0", "+",
                                                               count=1000))
            out += [fields[b"e"] for _id, fields in rows]
            if len(rows) < 1000:
                return out

    async def drop_archived_many(self, items: list[tuple[str, int, str]]) -> list[int]:
        """:meth:`drop_archived` of many ``(table, version, game)``, in their
        order: the drop scripts in one pipelined round trip on a single
        Redis (one call a table, concurrently, on a Redis Cluster: a cluster
        pipeline does not carry scripts), then the lobby entries of the
        removed ones (or already gone) in a second.  Returns each table's
        1, 0 or -1 as :meth:`drop_archived` does."""
        from redis.asyncio.cluster import RedisCluster

        if not items:
            return []

        def script_keys(table: str) -> list[str]:
            part = keys.partition(table)
            return [keys.meta(table), keys.events(table), keys.snap(table), keys.cmds(table), keys.due(part),
                    keys.waiting(part), keys.unarchived(part)]

        if isinstance(self.redis, RedisCluster):
            res = await asyncio.gather(*(self._drop(keys=script_keys(t), args=[v, t]) for t, v, _g in items))
        else:
            async with self.redis.pipeline(transaction=False) as pipe:
                for t, v, _g in items:
                    await self._drop(keys=script_keys(t), args=[v, t], client=pipe)
                res = await pipe.execute()
        out = [int(r) for r in res]
        gone = [(t, g) for (t, _v, g), r in zip(items, out, strict=True) if r != 0]
        if gone:
            async with self.redis.pipeline(transaction=False) as pipe:
                for t, g in gone:
                    _unindex(pipe, t, g)
                await pipe.execute()
        return out

    async def drop_archived(self, table: str, version: int, game: str) -> int:
        """Remove an archived table from Redis: its keys (meta, log,
        snapshot, command records) and its due, waiting, unarchived and
        lobby entries, if it is still at ``version``.  Returns 1 (removed),
        0 (its version moved: kept) or -1 (already gone)."""
        part = keys.partition(table)
        res = int(await self._drop(
            keys=[keys.meta(table), keys.events(table), keys.snap(table), keys.cmds(table), keys.due(part),
                  keys.waiting(part), keys.unarchived(part)], args=[version, table]))
        if res != 0:
            await self.reindex(table, game=game)  # gone: out of every lobby index
        return res

    # -- the log ----------------------------------------------------------
    async def append(
        self, table: str, expected: int, command_id: str, events: list[Event], *, status: str = "", digest: str = "",
        meta: dict[str, str] | None = None, due_ms: int | None = None,
    ) -> AppendResult:
        """Append ``events`` if the table is at version ``expected`` and the
        command has no recorded outcome, in the table's cmds hash or in a
        legacy ``cmd:<id>`` key (one Lua script; all or nothing).
        ``status``: new meta status, or '' to leave it; ``digest``: the
        command body's digest, kept in the record; ``meta``: meta fields
        set in the same step (a seat left: its token hash replaced).  The same script puts
        the table in its partition's due set ``redrive_ms`` after the last
        event's time, so a table is never left without a next step even if
        the caller dies right after (:meth:`schedule` then sets the exact
        time).  ``due_ms``: that time instead of ``redrive_ms`` after the
        last event (the caller's prediction of the exact time; never later
        than the time something may have to be driven)."""
        last_ts = events[-1].ts if events and events[-1].ts else int(time.time() * 1000)
        fields = list((meta or {}).items())
        due = last_ts + self.redrive_ms if due_ms is None else due_ms
        argv: list[Any] = [
            expected, record_field(command_id), status, digest or "-", due, last_ts, table, len(fields),
        ]
        for k, v in fields:
            argv += [k, v]
        argv += [encode(e) for e in events]
        part = keys.partition(table)
        res = await self._append(keys=[keys.meta(table), keys.events(table), keys.cmds(table), keys.due(part),
                                       keys.waiting(part), keys.cmd(table, command_id)], args=argv)
        kind = _s(res[0])
        if kind == "ok":
            return AppendResult("ok", int(res[1]))
        if kind == "conflict":
            return AppendResult("conflict", int(res[1]))
        if kind == "dup":
            return AppendResult("dup", outcome=Outcome.parse(res[1]))
        return AppendResult("missing")

    # -- the due sets (liveness) ------------------------------------------
    async def schedule(self, table: str, version: int, due_ms: int | None, last_ts: int) -> bool:
        """Set when the sweeper should next look at ``table`` (``None``:
        never, it waits on nothing the service drives), if the table is
        still at ``version``.  Returns False when a later append has
        already scheduled it."""
        res = await self._schedule(keys=self._sched_keys(table),
                                   args=[version, "" if due_ms is None else due_ms, last_ts, table])
        return bool(res)

    async def schedule_archive(self, table: str, version: int, due_ms: int) -> bool:
        """Put a finished ``table`` in its partition's due set at ``due_ms``
        for the archiver (out of the waiting set: it waits on no turn), if
        it is still at ``version``."""
        return bool(await self._schedule(keys=self._sched_keys(table), args=[version, due_ms, "", table]))

    def schedule_in(self, pipe: Any, table: str, version: int, due_ms: int | None, last_ts: int) -> bool:
        """Queue :meth:`schedule` in ``pipe`` (a plain pipeline on a
        single Redis) as one ``EVALSHA``; returns False, queuing nothing,
        on a Redis Cluster (a cluster pipeline does not carry scripts).
        The caller runs :meth:`schedule` when the pipeline's answer for it
        is an error (the script not loaded yet: ``NOSCRIPT``)."""
        from redis.asyncio.cluster import RedisCluster

        if isinstance(self.redis, RedisCluster):
            return False
        pipe.evalsha(self._schedule.sha, 3, *self._sched_keys(table), version, "" if due_ms is None else due_ms,
                     last_ts, table)
        return True

    async def claim_due(self, part: int, now_ms: int, lease_ms: int, count: int = 100) -> list[str]:
        """Lease up to ``count`` tables of partition ``part`` that are due
        at ``now_ms``: each is hidden from other sweepers for ``lease_ms``."""
        ids = await self._claim(keys=[keys.due(part)], args=[now_ms, lease_ms, count])
        return [_s(i) for i in ids]

    async def claim_due_all(self, now_ms: int, lease_ms: int, count: int = 100) -> list[str]:
        """:meth:`claim_due` over every partition: one pipelined round trip
        on a single Redis, one call per partition on a Redis Cluster (a
        cluster pipeline does not carry scripts)."""
        from redis.asyncio.cluster import RedisCluster

        if isinstance(self.redis, RedisCluster):
            out: list[str] = []
            for part in range(keys.PARTITIONS):
                out += await self.claim_due(part, now_ms, lease_ms, count)
            return out
        async with self.redis.pipeline(transaction=False) as pipe:
            for part in range(keys.PARTITIONS):
                await self._claim(keys=[keys.due(part)], args=[now_ms, lease_ms, count], client=pipe)
            rows = await pipe.execute()
        return [_s(i) for ids in rows for i in ids]

    async def unschedule(self, table: str) -> None:
        """Take ``table`` out of the due sets (it is gone or over)."""
        part = keys.partition(table)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zrem(keys.due(part), table)
            pipe.zrem(keys.waiting(part), table)
            await pipe.execute()

    async def outcome(self, table: str, command_id: str) -> Outcome | None:
        """The recorded outcome of a command (from the table's cmds hash,
        else from a legacy ``cmd:<id>`` key), or None."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hget(keys.cmds(table), record_field(command_id))
            pipe.get(keys.cmd(table, command_id))
            rec, legacy = await pipe.execute()
        raw = rec if rec is not None else legacy
        return Outcome.parse(raw) if raw is not None else None

    async def read(self, table: str, after: int = 0, until: int | None = None, count: int | None = None) -> list[Event]:
        """Events with versions ``after+1 .. until`` (inclusive), in order."""
        lo = f"{after + 1}-0"
        hi = "+" if until is None else f"{until}-0"
        rows = cast(StreamEntries, await self.redis.xrange(keys.events(table), lo, hi, count=count))
        return [decode(fields[b"e"]) for _id, fields in rows]

    async def version(self, table: str) -> int | None:
        """The table's current version, or None if it does not exist."""
        v = await self.redis.hget(keys.meta(table), "version")
        return None if v is None else int(v)

    # -- snapshots --------------------------------------------------------
    async def save_snapshot(self, table: str, blob: bytes) -> None:
        """Store a snapshot blob (:func:`shared.snapshot.pack`) of a table
        that exists, expiring with its meta (see ``_SNAPSHOT``)."""
        await self._snapshot(keys=[keys.meta(table), keys.snap(table)], args=[blob])

    async def load_snapshot(self, table: str) -> bytes | None:
        """The latest snapshot blob, or None."""
        return cast("bytes | None", await self.redis.get(keys.snap(table)))


def _unindex(pipe: Any, table: str, game: str | None) -> None:
    """Queue the removal of ``table`` from every lobby index (its game's
    too when ``game`` is known) in ``pipe``."""
    pipe.zrem(keys.lobby(), table)
    for st in keys.STATUSES:
        pipe.zrem(keys.lobby(status=st), table)
        if game is not None:
            pipe.zrem(keys.lobby(game, st), table)
    if game is not None:
        pipe.zrem(keys.lobby(game), table)


def _s(v: bytes | str) -> str:
    return v.decode() if isinstance(v, bytes) else v
