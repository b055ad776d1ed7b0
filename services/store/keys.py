"""Redis key names (docs/architecture.md, "Keys").

Tables are spread over :data:`PARTITIONS` partitions by ``crc32(T)``.
Every key of one table, and its partition's due set, carry the hash tag
``{p<N>}`` of that partition, so that on a Redis Cluster they all live on
one slot: the append script may then check the version, write the events,
record the command *and* schedule the table's next due time in one atomic
step.  Table ids are validated at the edge (:data:`TABLE_ID_RE`).
"""

from __future__ import annotations

import re
import zlib

#: Table ids: 1..64 of [A-Za-z0-9_-]; they end up inside key names.
TABLE_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
#: Command ids (idempotency keys): 1..64 of [A-Za-z0-9_.:-].
COMMAND_ID_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")

#: Number of table partitions (fixed: it is part of every table key).
PARTITIONS = 64

LOBBY = "tapis:lobby"            # sorted set: table id by creation ms (every table)
#: Table statuses, in the order a table goes through them.
STATUSES = ("waiting", "playing", "finished")
STATS = "tapis:stats"            # hash: active:<game> counters
DEAD_LETTERS = "tapis:deadletters"  # stream: undecodable commands + reason
WORKERS = "tapis:workers"        # sorted set: worker consumer name by last heartbeat (ms)
GROUP = "workers"                # consumer group on the command streams


def partition(table: str) -> int:
    """The partition of a table: ``crc32(T) % PARTITIONS``."""
    return zlib.crc32(table.encode()) % PARTITIONS


def _prefix(table: str) -> str:
    return f"tapis:{{p{partition(table)}}}:{table}"


def events(table: str) -> str:
    """Stream: the table's event log; entry ids are ``<version>-0``."""
    return f"{_prefix(table)}:events"


def meta(table: str) -> str:
    """Hash: game, options, players, bots, clock, version, status, seat names and token hashes."""
    return f"{_prefix(table)}:meta"


def snap(table: str) -> str:
    """String: msgpack snapshot ``{"v": version, "s": state}``."""
    return f"{_prefix(table)}:snap"


def cmd(table: str, command_id: str) -> str:
    """String with TTL: the recorded outcome of a command as versions
    before the :func:`cmds` hash kept it; still read (a rolling upgrade),
    never written."""
    return f"{_prefix(table)}:cmd:{command_id}"


def cmds(table: str) -> str:
    """Hash: the recorded outcomes of the table's applied commands, by
    command id (idempotency); it goes when the table goes."""
    return f"{_prefix(table)}:cmds"


def due(part: int) -> str:
    """Sorted set of a partition: table id by the time (ms) the sweeper
    should look at it next (a bot turn to re-drive, a start to re-send, a
    turn clock to check).  Tables waiting on nothing are not in it."""
    return f"tapis:{{p{part}}}:due"


def waiting(part: int) -> str:
    """Sorted set of a partition: table id by the time (ms) of its last
    event, for the tables in :func:`due` (the age of the oldest awaited
    turn is read from it)."""
    return f"tapis:{{p{part}}}:waiting"


def unarchived(part: int) -> str:
    """Sorted set of a partition: table id by the time (ms) of its last
    event, for the finished tables not archived yet (written only when an
    archive is configured; the archiver removes a table with its keys).
    The exporter reads how many there are and the oldest."""
    return f"tapis:{{p{part}}}:unarchived"


def commands(shard: int) -> str:
    """Stream of submitted commands for one shard; consumer group ``workers``."""
    return f"tapis:commands:{shard}"


def shard_of(table: str, shards: int) -> int:
    """The command shard of a table: ``crc32(T) % shards``."""
    return zlib.crc32(table.encode()) % shards


def replies(gateway_id: str) -> str:
    """Stream a gateway (or bot runner) reads its command replies from."""
    return f"tapis:replies:{gateway_id}"


def lobby(game: str | None = None, status: str | None = None) -> str:
    """The lobby index of tables of ``game`` (None: every game) in
    ``status`` (None: any): a sorted set of table ids by creation ms.
    ``lobby()`` is :data:`LOBBY`."""
    key = LOBBY
    if game is not None:
        key += f":g:{game}"
    if status is not None:
        key += f":s:{status}"
    return key
