"""Redis key names (design.md §3).

Every key of one table carries the hash tag ``{T}`` so that, on a Redis
Cluster, they all live on one slot and the append script may touch them
together.  Table ids are validated at the edge (:data:`TABLE_ID_RE`).
"""

from __future__ import annotations

import re
import zlib

#: Table ids: 1..64 of [A-Za-z0-9_-]; they end up inside key names.
TABLE_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
#: Command ids (idempotency keys): 1..64 of [A-Za-z0-9_.:-].
COMMAND_ID_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")

LOBBY = "tapis:lobby"            # sorted set: table id by creation ms
STATS = "tapis:stats"            # hash: active:<game> counters
DEAD_LETTERS = "tapis:deadletters"  # stream: undecodable commands + reason
GROUP = "workers"                # consumer group on the command streams


def events(table: str) -> str:
    """Stream: the table's event log; entry ids are ``<version>-0``."""
    return f"tapis:{{{table}}}:events"


def meta(table: str) -> str:
    """Hash: game, options, players, bots, version, status, seat names and token hashes."""
    return f"tapis:{{{table}}}:meta"


def snap(table: str) -> str:
    """String: msgpack snapshot ``{"v": version, "s": state}``."""
    return f"tapis:{{{table}}}:snap"


def cmd(table: str, command_id: str) -> str:
    """String with TTL: the recorded outcome of a command (idempotency)."""
    return f"tapis:{{{table}}}:cmd:{command_id}"


def commands(shard: int) -> str:
    """Stream of submitted commands for one shard; consumer group ``workers``."""
    return f"tapis:commands:{shard}"


def shard_of(table: str, shards: int) -> int:
    """The command shard of a table: ``crc32(T) % shards``."""
    return zlib.crc32(table.encode()) % shards


def replies(gateway_id: str) -> str:
    """Stream a gateway (or bot runner) reads its command replies from."""
    return f"tapis:replies:{gateway_id}"
