"""The stream exporter role (``tapis exporter``): command-stream,
consumer-group and liveness metrics read from Redis at each Prometheus
scrape.

The workers count what they do themselves (``tapis_actions_applied_total``,
``tapis_commands_reclaimed_total``, ``tapis_redriven_total``...); what no
single worker can see — how long each command stream is, how far the
consumer group ``workers`` is behind, how old the oldest unacknowledged
command is, how many workers are alive, how many tables wait on the
sweeper and for how long, how far the archive is behind — is read here
from Redis by a :class:`StreamCollector` (a prometheus_client custom
collector), once per scrape, in at most three round trips (TIME, one
pipeline, and a second pipeline only for shards that lag or have pending
commands) whatever the number of shards and partitions.

Metrics (gauges; ``shard`` is the command shard number, ``0..shards-1``):

===========================================  =================================================
``tapis_command_stream_length``              XLEN ``tapis:commands:<shard>`` (entries, acked or
                                             not)
``tapis_consumer_group_lag``                 entries after the group's last-delivered id: 0 when
                                             that id is the stream's last entry, else counted
                                             with XRANGE (capped at :data:`LAG_COUNT_CAP`);
                                             Redis' own ``lag`` is never used (see note)
``tapis_consumer_group_pending``             delivered, not yet acknowledged (XPENDING summary)
``tapis_consumer_group_consumers``           consumers registered in the group (dead ones
                                             included)
``tapis_oldest_pending_age_seconds``         now − submission time of the oldest pending
                                             command (its stream id), 0 when none is pending
``tapis_oldest_pending_idle_seconds``        time since that command was last delivered to a
                                             worker
``tapis_oldest_pending_deliveries``          how many times it was delivered (> 1: reclaimed)
``tapis_deadletter_stream_length``           XLEN ``tapis:deadletters``
``tapis_worker_consumers_alive``             workers whose heartbeat in ``tapis:workers`` is at
                                             most ``alive_s`` old (ZCOUNT)
``tapis_tables_awaiting``                    tables in the partitions' due sets (the sweeper
                                             will look at them: a bot turn, a start, a turn
                                             clock, a finished table due for the archiver)
``tapis_oldest_awaited_turn_age_seconds``    now − the oldest last-event time in the waiting
                                             sets: how long the stillest of those tables has
                                             not moved; 0 when none waits
``tapis_sweeper_overdue_seconds``            now − the earliest due time when it is past, else
                                             0: the sweeper is behind, or no worker sweeps
``tapis_archive_backlog_tables``             finished tables not archived yet (in the
                                             partitions' unarchived sets)
``tapis_archive_oldest_unarchived_seconds``  now − the last-event time of the oldest finished
                                             table not archived yet; 0 when none
``tapis_exporter_redis_up``                  1 when the last collection reached Redis, else 0
``tapis_exporter_collect_seconds``           how long the last collection took
===========================================  =================================================

Note on lag: Redis 7.0 can report a wrong non-zero ``lag`` in XINFO GROUPS
after it restarts from its append-only file.  The group's ``entries-read``
counter is restored from the last AOF rewrite, and the XREADGROUP calls
logged after it are replayed as XCLAIM ... LASTID, which moves the
group's last-delivered id but not the counter: the group then looks
thousands of entries behind while nothing is undelivered.  So the lag is
derived from ids only: the stream's last entry (XREVRANGE ... COUNT 1) at
or before the group's last-delivered id means 0, anything else is counted.

Note on liveness: every worker writes its consumer name into the sorted
set ``tapis:workers`` with the time of its heartbeat as score, every
~2 s or more often, while its loops are healthy, idle or not (workers prune entries older
than an hour).  A worker counts as alive when its heartbeat is at most
``alive_s`` old.  (Earlier versions read the consumers' ``idle`` time
from XINFO CONSUMERS, which Redis 7.0 only resets when entries are
delivered: an idle system looked dead.)

Note on the due and waiting sets (``tapis:{p<N>}:due`` and
``tapis:{p<N>}:waiting``, :data:`~services.store.keys.PARTITIONS` of each):
the due sets are read with ZCARD and ZRANGE 0 0 WITHSCORES, the waiting
sets with ZRANGE 0 0 WITHSCORES, all in the one pipeline.  A table
waiting on nothing (on a person without a turn clock, or finished without
an archive) is in neither, so none of these gauges grows with idle
tables; a finished table waiting for the archiver is in the due set only
(at its archive time), never in the waiting set.

Note on the archive (the sets ``tapis:{p<N>}:unarchived``,
:func:`services.store.keys.unarchived`): when an archive is configured, a
table that finishes is listed there with the time of its last event as
score, and the archiver removes it with the table's keys once its row is
written and verified (``TAPIS_ARCHIVE_AFTER_S`` after its end, 300 s by
default).  ZCARD and ZRANGE 0 0 WITHSCORES of each, in the same pipeline,
give the backlog and the age of the oldest; without an archive the sets
stay empty and both gauges read 0.

Every figure is read with ``TIME`` from Redis as "now", so the exporter's
own clock does not matter; the heartbeats and the due and waiting scores
are written with the workers' clocks, which must be in time (NTP) to
well within ``alive_s``.  Only single-key commands are used, so the
exporter runs unchanged against a Redis Cluster (``TAPIS_CLUSTER=true``).
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Iterable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, start_http_server
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from services.config import Settings
from services.store import keys

log = logging.getLogger("tapis.exporter")

#: The lag of a shard is counted with XRANGE up to this many entries (a
#: larger backlog reads as this number).
LAG_COUNT_CAP = 10_000

_SPECS: dict[str, tuple[str, tuple[str, ...]]] = {
    "tapis_command_stream_length": ("Entries in the command stream tapis:commands:<shard> (XLEN).", ("shard",)),
    "tapis_consumer_group_lag": (
        ("Commands in the stream after the group's last-delivered id: not yet delivered to any worker "
         f"(counted with XRANGE, capped at {LAG_COUNT_CAP})."), ("shard",)),
    "tapis_consumer_group_pending": (
        "Commands delivered to a worker and not yet acknowledged (XPENDING).", ("shard",)),
    "tapis_consumer_group_consumers": (
        "Consumers registered in the group 'workers', live or dead (XINFO GROUPS).", ("shard",)),
    "tapis_oldest_pending_age_seconds": (
        "Seconds since the oldest pending command was submitted (its stream id); 0 when none is pending.",
        ("shard",)),
    "tapis_oldest_pending_idle_seconds": (
        "Seconds since the oldest pending command was last delivered to a worker; 0 when none is pending.",
        ("shard",)),
    "tapis_oldest_pending_deliveries": (
        "Times the oldest pending command was delivered (more than 1: reclaimed from a worker).", ("shard",)),
    "tapis_deadletter_stream_length": ("Entries in the dead-letter stream tapis:deadletters (XLEN).", ()),
    "tapis_worker_consumers_alive": (
        "Workers whose heartbeat in tapis:workers is within the exporter's alive window.", ()),
    "tapis_tables_awaiting": (
        "Tables in the partitions' due sets: a bot turn, a start, a turn clock or a finished table to archive the "
        "sweeper will look at.", ()),
    "tapis_oldest_awaited_turn_age_seconds": (
        "Seconds since the last event of the stillest table in the waiting sets; 0 when none waits.", ()),
    "tapis_sweeper_overdue_seconds": (
        "Seconds the earliest due table is past its due time (0 when none is): the sweeper is behind or absent.",
        ()),
    "tapis_archive_backlog_tables": (
        "Finished tables not archived yet (the partitions' unarchived sets; empty without an archive).", ()),
    "tapis_archive_oldest_unarchived_seconds": (
        "Seconds since the last event of the oldest finished table not archived yet; 0 when none.", ()),
    "tapis_exporter_redis_up": ("1 when the exporter's last collection reached Redis, else 0.", ()),
    "tapis_exporter_collect_seconds": ("Duration of the exporter's last collection from Redis.", ()),
}

#: The names of every metric :class:`StreamCollector` exports.
METRIC_NAMES: tuple[str, ...] = tuple(_SPECS)

#: Commands per shard in the first pipeline of :meth:`StreamCollector.read`.
_PER_SHARD = 4
#: Commands per partition in that pipeline: due ZCARD and ZRANGE, waiting
#: ZRANGE, unarchived ZCARD and ZRANGE.
_PER_PARTITION = 5


def _s(v: Any) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def _id_ms(entry_id: Any) -> int:
    """The millisecond part of a stream id ``b"1700000000000-3"``."""
    return int(_s(entry_id).split("-", 1)[0])


def _id(entry_id: Any) -> tuple[int, int]:
    """A stream id as a comparable pair: ``b"1700000000000-3"`` -> ``(1700000000000, 3)``."""
    ms, _, seq = _s(entry_id).partition("-")
    return int(ms), int(seq or 0)


def _min_score(results: list[Any]) -> float | None:
    """The smallest score among ``ZRANGE key 0 0 WITHSCORES`` answers
    (``[(member, score)]`` or ``[]``; errors skipped), None when all are empty."""
    scores = [float(v[0][1]) for v in results if not isinstance(v, Exception) and v]
    return min(scores) if scores else None


class StreamCollector(Collector):
    """A prometheus_client collector reading the command streams, the
    consumer group ``workers``, the dead-letter stream, the workers'
    heartbeats and the partitions' due, waiting and unarchived sets at
    each scrape.

    ``redis``: a *synchronous* client (``redis.Redis``, ``redis.cluster.
    RedisCluster`` or ``fakeredis.FakeRedis``); ``shards``: the number of
    command streams (``TAPIS_SHARDS``); ``alive_s``: a worker whose last
    heartbeat is at most this many seconds old counts as alive.
    ``collect`` never raises: when Redis cannot be read it yields
    ``tapis_exporter_redis_up 0`` and nothing else.
    """

    def __init__(self, redis: Any, shards: int, *, alive_s: float = 30.0, group: str = keys.GROUP) -> None:
        if shards < 1:
            raise ValueError("shards must be >= 1")
        self.redis = redis
        self.shards = shards
        self.alive_ms = int(alive_s * 1000)
        self.group = group

    def describe(self) -> Iterable[GaugeMetricFamily]:
        """The metric families (without samples), so that registering the
        collector does not touch Redis."""
        return [self._family(name) for name in METRIC_NAMES]

    @staticmethod
    def _family(name: str) -> GaugeMetricFamily:
        doc, labels = _SPECS[name]
        return GaugeMetricFamily(name, doc, labels=list(labels) if labels else None)

    def collect(self) -> Iterator[GaugeMetricFamily]:
        """Read Redis and yield the gauges listed in the module doc."""
        t0 = time.perf_counter()
        up = self._family("tapis_exporter_redis_up")
        took = self._family("tapis_exporter_collect_seconds")
        try:
            families = self.read()
        except Exception as exc:  # noqa: BLE001 -- a scrape must answer even when Redis is down
            log.warning("cannot read Redis: %s", exc)
            up.add_metric([], 0.0)
            took.add_metric([], time.perf_counter() - t0)
            yield up
            yield took
            return
        yield from families
        up.add_metric([], 1.0)
        took.add_metric([], time.perf_counter() - t0)
        yield up
        yield took

    def now_ms(self) -> int:
        """Redis' clock (TIME), in ms."""
        # TIME apart: a cluster pipeline refuses commands without a key
        now = self.redis.time()
        if isinstance(now, dict):  # a cluster client may answer per node
            now = next(iter(now.values()))
        sec, usec = now
        return int(sec) * 1000 + int(usec) // 1000

    def read(self) -> list[GaugeMetricFamily]:
        """One collection: the stream, group and liveness families with
        their samples.  Raises the client's error when Redis cannot be
        reached."""
        r = self.redis
        streams = [keys.commands(s) for s in range(self.shards)]
        now_ms = self.now_ms()
        pipe = r.pipeline(transaction=False)
        pipe.xlen(keys.DEAD_LETTERS)
        pipe.zcount(keys.WORKERS, now_ms - self.alive_ms, "+inf")
        for stream in streams:
            pipe.xlen(stream)
            pipe.xinfo_groups(stream)
            pipe.xpending(stream, self.group)
            pipe.xrevrange(stream, count=1)  # the last entry: is anything after the group's position?
        for part in range(keys.PARTITIONS):
            pipe.zcard(keys.due(part))
            pipe.zrange(keys.due(part), 0, 0, withscores=True)  # the earliest due time
            pipe.zrange(keys.waiting(part), 0, 0, withscores=True)  # the oldest last event
            pipe.zcard(keys.unarchived(part))
            pipe.zrange(keys.unarchived(part), 0, 0, withscores=True)  # the oldest finished table
        res = pipe.execute(raise_on_error=False)
        if isinstance(res[0], Exception):
            raise res[0]
        deadletters = int(res[0])
        alive = res[1]
        base = 2 + _PER_SHARD * len(streams)
        sets = res[base:]  # per partition: the _PER_PARTITION answers, in pipeline order

        fam = {name: self._family(name) for name in METRIC_NAMES[:-2]}
        follow_up: list[tuple[str, str, Any]] = []  # (what, shard, argument)
        for i, _stream in enumerate(streams):
            shard = str(i)
            length, groups, pending, last = res[2 + _PER_SHARD * i: 2 + _PER_SHARD * (i + 1)]
            fam["tapis_command_stream_length"].add_metric([shard], 0 if isinstance(length, Exception) else int(length))
            group = None
            if not isinstance(groups, Exception):
                group = next((g for g in groups if _s(g.get("name")) == self.group), None)
            if group is None:  # no stream or no group yet: workers never started on it
                continue
            fam["tapis_consumer_group_consumers"].add_metric([shard], int(group.get("consumers") or 0))
            delivered = group.get("last-delivered-id") or "0-0"
            # Redis' own "lag" is not trusted (wrong after a restart from
            # the AOF, see the module doc): nothing after the group's
            # position is lag 0, anything else is counted.
            if isinstance(last, Exception):
                pass  # unknown: no lag sample for this shard
            elif not last or _id(last[0][0]) <= _id(delivered):
                fam["tapis_consumer_group_lag"].add_metric([shard], 0)
            else:
                follow_up.append(("lag", shard, delivered))
            n_pending = 0 if isinstance(pending, Exception) else int(pending.get("pending") or 0)
            fam["tapis_consumer_group_pending"].add_metric([shard], n_pending)
            if n_pending:
                fam["tapis_oldest_pending_age_seconds"].add_metric(
                    [shard], max(0, now_ms - _id_ms(pending["min"])) / 1000)
                follow_up.append(("oldest", shard, None))
            else:
                for name in ("tapis_oldest_pending_age_seconds", "tapis_oldest_pending_idle_seconds",
                             "tapis_oldest_pending_deliveries"):
                    fam[name].add_metric([shard], 0)

        if follow_up:
            pipe = r.pipeline(transaction=False)
            for what, shard, arg in follow_up:
                stream = keys.commands(int(shard))
                if what == "lag":
                    pipe.xrange(stream, min="(" + _s(arg), max="+", count=LAG_COUNT_CAP)
                else:
                    pipe.xpending_range(stream, self.group, min="-", max="+", count=1)
            for (what, shard, _arg), v in zip(follow_up, pipe.execute(raise_on_error=False), strict=True):
                if isinstance(v, Exception):
                    continue
                if what == "lag":
                    fam["tapis_consumer_group_lag"].add_metric([shard], len(v))
                elif v:
                    idle_ms = int(v[0]["time_since_delivered"])
                    fam["tapis_oldest_pending_idle_seconds"].add_metric([shard], idle_ms / 1000)
                    fam["tapis_oldest_pending_deliveries"].add_metric([shard], int(v[0]["times_delivered"]))

        fam["tapis_deadletter_stream_length"].add_metric([], deadletters)
        if not isinstance(alive, Exception):
            fam["tapis_worker_consumers_alive"].add_metric([], int(alive))
        n = _PER_PARTITION
        due_cards, due_firsts, waiting_firsts = sets[0::n], sets[1::n], sets[2::n]
        unarchived_cards, unarchived_firsts = sets[3::n], sets[4::n]
        fam["tapis_tables_awaiting"].add_metric(
            [], sum(int(n) for n in due_cards if not isinstance(n, Exception)))
        oldest = _min_score(waiting_firsts)
        fam["tapis_oldest_awaited_turn_age_seconds"].add_metric(
            [], 0 if oldest is None else max(0.0, now_ms - oldest) / 1000)
        earliest = _min_score(due_firsts)
        fam["tapis_sweeper_overdue_seconds"].add_metric(
            [], 0 if earliest is None else max(0.0, now_ms - earliest) / 1000)
        fam["tapis_archive_backlog_tables"].add_metric(
            [], sum(int(c) for c in unarchived_cards if not isinstance(c, Exception)))
        ended = _min_score(unarchived_firsts)
        fam["tapis_archive_oldest_unarchived_seconds"].add_metric(
            [], 0 if ended is None else max(0.0, now_ms - ended) / 1000)
        return list(fam.values())


def make_sync_redis(settings: Settings) -> Any:
    """A synchronous Redis client for the exporter (cluster when
    ``settings.cluster``), with short timeouts so that a scrape never hangs
    on a dead server.  Raises ``ValueError`` without ``settings.redis_url``."""
    if settings.redis_url is None:
        raise ValueError("the exporter needs a Redis URL (TAPIS_REDIS_URL or --redis)")
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    # One quick retry at most: a scrape must answer (with redis_up 0) long
    # before Prometheus' scrape timeout, not back off for seconds.
    opts = {"socket_timeout": 3.0, "socket_connect_timeout": 2.0, "retry": Retry(NoBackoff(), 1)}
    if settings.cluster:
        from redis.cluster import RedisCluster

        return RedisCluster.from_url(settings.redis_url, **opts)
    from redis import Redis

    return Redis.from_url(settings.redis_url, **opts)


def build_registry(redis: Any, shards: int, *, alive_s: float = 30.0) -> CollectorRegistry:
    """A registry holding only a :class:`StreamCollector` over ``redis``."""
    registry = CollectorRegistry()
    registry.register(StreamCollector(redis, shards, alive_s=alive_s))
    return registry


def run_exporter(settings: Settings, *, host: str, port: int, alive_s: float = 30.0,
                 stop: threading.Event | None = None) -> int:
    """Serve the exporter's metrics over HTTP on ``host:port`` (every path
    answers with the Prometheus text format) until SIGINT/SIGTERM or
    ``stop`` is set; returns the exit code (0)."""
    redis = make_sync_redis(settings)
    registry = build_registry(redis, settings.shards, alive_s=alive_s)
    server, thread = start_http_server(port, addr=host, registry=registry)
    stop = stop or threading.Event()
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stop.set())
    log.info("exporter on http://%s:%d/metrics reading %d command shards", host, port, settings.shards)
    try:
        while not stop.wait(1.0):
            pass
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
        redis.close()
    return 0


__all__ = ["LAG_COUNT_CAP", "METRIC_NAMES", "StreamCollector", "build_registry", "make_sync_redis", "run_exporter"]
