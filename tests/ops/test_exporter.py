"""The stream exporter (services/exporter.py) on fakeredis and on the real
Redis (db 12): every gauge against a stream state built by hand, and once
against a real :class:`~services.worker.worker.Worker` consuming."""

from __future__ import annotations

import asyncio
import threading
import time

import httpx
import pytest
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from services.config import Settings
from services.exporter import METRIC_NAMES, StreamCollector, build_registry, make_sync_redis, run_exporter
from services.store import keys
from tests.ops.conftest import OPS_REDIS_URL, free_port

GROUP = keys.GROUP


def sample(collector: StreamCollector) -> dict[tuple[str, tuple[str, ...]], float]:
    """{(metric name, label values): value} for one collection."""
    out = {}
    for fam in collector.collect():
        for s in fam.samples:
            out[(s.name, tuple(s.labels.values()))] = s.value
    return out


def make_group(r, shard: int = 0) -> str:
    stream = keys.commands(shard)
    r.xgroup_create(stream, GROUP, id="0", mkstream=True)
    return stream


def test_describe_lists_every_metric_without_touching_redis():
    class NoRedis:
        def __getattr__(self, name):
            raise AssertionError(f"Redis touched: {name}")

    names = [f.name for f in StreamCollector(NoRedis(), 4).describe()]
    assert names == list(METRIC_NAMES)
    assert all(n.startswith("tapis_") for n in names)
    assert len(set(names)) == len(names) == 11


def test_empty_redis(sync_redis):
    got = sample(StreamCollector(sync_redis, 3))
    assert got == {
        ("tapis_command_stream_length", ("0",)): 0,
        ("tapis_command_stream_length", ("1",)): 0,
        ("tapis_command_stream_length", ("2",)): 0,
        ("tapis_deadletter_stream_length", ()): 0,
        ("tapis_worker_consumers_alive", ()): 0,
        ("tapis_exporter_redis_up", ()): 1,
        ("tapis_exporter_collect_seconds", ()): got[("tapis_exporter_collect_seconds", ())],
    }
    assert 0 < got[("tapis_exporter_collect_seconds", ())] < 5


def test_lag_pending_consumers_and_dead_letters(sync_redis):
    r = sync_redis
    stream = make_group(r, 1)
    for i in range(7):
        r.xadd(stream, {"i": i})
    r.xreadgroup(GROUP, "worker-a", {stream: ">"}, count=2)
    r.xreadgroup(GROUP, "worker-b", {stream: ">"}, count=1)
    for i in range(4):
        r.xadd(keys.DEAD_LETTERS, {"reason": f"r{i}"})
    got = sample(StreamCollector(r, 2))
    assert got[("tapis_command_stream_length", ("1",))] == 7
    assert got[("tapis_command_stream_length", ("0",))] == 0
    assert got[("tapis_consumer_group_lag", ("1",))] == 4
    assert got[("tapis_consumer_group_pending", ("1",))] == 3
    assert got[("tapis_consumer_group_consumers", ("1",))] == 2
    assert got[("tapis_oldest_pending_deliveries", ("1",))] == 1
    assert 0 <= got[("tapis_oldest_pending_age_seconds", ("1",))] < 5
    assert 0 <= got[("tapis_oldest_pending_idle_seconds", ("1",))] < 5
    assert got[("tapis_deadletter_stream_length", ())] == 4
    assert got[("tapis_worker_consumers_alive", ())] == 2
    # shard 0 has no stream and no group: only its length is reported
    assert ("tapis_consumer_group_lag", ("0",)) not in got


def test_acked_commands_leave_no_pending(sync_redis):
    r = sync_redis
    stream = make_group(r)
    ids = [r.xadd(stream, {"i": i}) for i in range(3)]
    r.xreadgroup(GROUP, "w", {stream: ">"}, count=10)
    r.xack(stream, GROUP, *ids)
    got = sample(StreamCollector(r, 1))
    assert got[("tapis_command_stream_length", ("0",))] == 3  # XACK does not delete
    assert got[("tapis_consumer_group_lag", ("0",))] == 0
    assert got[("tapis_consumer_group_pending", ("0",))] == 0
    assert got[("tapis_oldest_pending_age_seconds", ("0",))] == 0
    assert got[("tapis_oldest_pending_idle_seconds", ("0",))] == 0
    assert got[("tapis_oldest_pending_deliveries", ("0",))] == 0


def test_oldest_pending_age_comes_from_the_entry_id(sync_redis):
    r = sync_redis
    stream = make_group(r)
    sec, usec = r.time()
    now_ms = sec * 1000 + usec // 1000
    r.xadd(stream, {"i": 0}, id=f"{now_ms - 120_000}-0")  # submitted 2 minutes ago
    r.xadd(stream, {"i": 1}, id=f"{now_ms - 30_000}-0")
    r.xreadgroup(GROUP, "w", {stream: ">"}, count=10)
    got = sample(StreamCollector(r, 1))
    assert 119.5 <= got[("tapis_oldest_pending_age_seconds", ("0",))] <= 125
    assert got[("tapis_oldest_pending_idle_seconds", ("0",))] < 5  # delivered just now
    assert got[("tapis_consumer_group_pending", ("0",))] == 2


def test_reclaimed_command_counts_two_deliveries(sync_redis):
    r = sync_redis
    stream = make_group(r)
    r.xadd(stream, {"i": 0})
    r.xreadgroup(GROUP, "dead-worker", {stream: ">"}, count=1)
    time.sleep(0.05)
    claimed = r.xautoclaim(stream, GROUP, "live-worker", min_idle_time=10, start_id="0-0")
    assert len(claimed[1]) == 1
    got = sample(StreamCollector(r, 1))
    assert got[("tapis_oldest_pending_deliveries", ("0",))] == 2
    assert got[("tapis_consumer_group_pending", ("0",))] == 1


def test_consumers_idle_longer_than_the_window_are_not_alive(sync_redis):
    r = sync_redis
    stream = make_group(r)
    for i in range(3):
        r.xadd(stream, {"i": i})
    r.xreadgroup(GROUP, "old", {stream: ">"}, count=1)
    collector = StreamCollector(r, 1, alive_s=0.3)
    assert sample(collector)[("tapis_worker_consumers_alive", ())] == 1
    time.sleep(0.5)
    assert sample(collector)[("tapis_worker_consumers_alive", ())] == 0
    r.xreadgroup(GROUP, "new", {stream: ">"}, count=1)
    got = sample(collector)
    assert got[("tapis_worker_consumers_alive", ())] == 1
    assert got[("tapis_consumer_group_consumers", ("0",))] == 2


def test_one_consumer_on_many_shards_counts_once(sync_redis):
    r = sync_redis
    for shard in range(3):
        stream = make_group(r, shard)
        r.xadd(stream, {"i": shard})
        r.xreadgroup(GROUP, "w1", {stream: ">"}, count=1)
    got = sample(StreamCollector(r, 3))
    assert got[("tapis_worker_consumers_alive", ())] == 1
    assert [got[("tapis_consumer_group_pending", (str(s),))] for s in range(3)] == [1, 1, 1]


def test_lag_after_deleting_undelivered_entries(sync_redis):
    """XDEL between the group's position and the end makes Redis 7 report
    the lag as unknown; the exporter counts the entries instead."""
    r = sync_redis
    stream = make_group(r)
    ids = [r.xadd(stream, {"i": i}) for i in range(6)]
    r.xreadgroup(GROUP, "w", {stream: ">"}, count=2)
    r.xdel(stream, ids[3])
    got = sample(StreamCollector(r, 1))
    assert got[("tapis_consumer_group_lag", ("0",))] == 3  # ids[2], ids[4], ids[5]
    assert got[("tapis_command_stream_length", ("0",))] == 5


def test_redis_down_answers_up_zero_at_once():
    port = free_port()  # nothing listens there
    client = make_sync_redis(Settings(redis_url=f"redis://127.0.0.1:{port}/0"))
    t0 = time.perf_counter()
    got = sample(StreamCollector(client, 2))
    assert time.perf_counter() - t0 < 1.5
    assert set(got) == {("tapis_exporter_redis_up", ()), ("tapis_exporter_collect_seconds", ())}
    assert got[("tapis_exporter_redis_up", ())] == 0


def test_exposition_parses(sync_redis):
    r = sync_redis
    stream = make_group(r)
    r.xadd(stream, {"i": 0})
    text = generate_latest(build_registry(r, 1)).decode()
    fams = {f.name: f for f in text_string_to_metric_families(text)}
    assert set(fams) == set(METRIC_NAMES)
    assert all(f.type == "gauge" for f in fams.values())
    assert fams["tapis_consumer_group_lag"].samples[0].value == 1


async def test_against_a_running_worker(sync_redis):
    """A real Worker consumes: an undecodable command goes to the dead
    letters, nothing stays pending or lagging, the worker is alive."""
    from services.worker.worker import Worker

    r = sync_redis
    aredis = r.async_twin()
    settings = Settings(redis_url=None, shards=2, claim_idle_ms=200)
    worker = Worker(aredis, settings, name="w-under-test")
    await worker.ensure_groups()
    stop = asyncio.Event()
    task = asyncio.create_task(worker.run(stop))
    try:
        r.xadd(keys.commands(1), {"k": "nonsense"})
        r.xadd(keys.commands(0), {"garbage": "1"})
        for _ in range(250):
            if r.xlen(keys.DEAD_LETTERS) == 2:
                break
            await asyncio.sleep(0.02)
        got = sample(StreamCollector(r, 2))
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)
        await aredis.aclose()
    assert got[("tapis_deadletter_stream_length", ())] == 2
    for shard in ("0", "1"):
        assert got[("tapis_command_stream_length", (shard,))] == 1
        assert got[("tapis_consumer_group_lag", (shard,))] == 0
        assert got[("tapis_consumer_group_pending", (shard,))] == 0
    assert got[("tapis_worker_consumers_alive", ())] == 1


@pytest.mark.redis
def test_run_exporter_serves_http_and_stops(real_sync_redis):
    """The HTTP role over the real Redis (fakeredis cannot be reached by
    URL): serves the gauges, stops when asked."""
    stream = make_group(real_sync_redis, 2)
    real_sync_redis.xadd(stream, {"i": 0})
    port = free_port()
    stop = threading.Event()
    codes: list[int] = []
    th = threading.Thread(target=lambda: codes.append(run_exporter(
        Settings(redis_url=OPS_REDIS_URL, shards=3), host="127.0.0.1", port=port, stop=stop)))
    th.start()
    try:
        text = ""
        for _ in range(100):
            try:
                text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=2).text
                break
            except httpx.TransportError:
                time.sleep(0.05)
    finally:
        stop.set()
        th.join(10)
    assert not th.is_alive() and codes == [0]
    fams = {f.name: f for f in text_string_to_metric_families(text)}
    lag = {s.labels["shard"]: s.value for s in fams["tapis_consumer_group_lag"].samples}
    assert lag == {"2": 1.0}
    assert fams["tapis_exporter_redis_up"].samples[0].value == 1


@pytest.fixture
def redis_cluster(tmp_path):
    """A three-primary Redis Cluster of local redis-server processes on
    loopback ports 19200-19299, stopped and removed afterwards."""
    import shutil
    import subprocess

    if not (shutil.which("redis-server") and shutil.which("redis-cli")):
        pytest.skip("redis-server / redis-cli not installed")
    ports: list[int] = []
    procs = []
    try:
        for _ in range(3):
            port = free_port(skip=set(ports))
            ports.append(port)
            d = tmp_path / str(port)
            d.mkdir()
            procs.append(subprocess.Popen(
                ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--cluster-enabled", "yes",
                 "--cluster-config-file", "nodes.conf", "--save", "", "--appendonly", "no"],
                cwd=d, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for port in ports:
            for _ in range(100):
                if subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True, text=True,
                                  timeout=5, check=False).stdout.strip() == "PONG":
                    break
                time.sleep(0.05)
        subprocess.run(["redis-cli", "--cluster", "create", *[f"127.0.0.1:{p}" for p in ports],
                        "--cluster-replicas", "0", "--cluster-yes"], capture_output=True, timeout=30, check=True)
        for _ in range(100):
            info = subprocess.run(["redis-cli", "-p", str(ports[0]), "cluster", "info"], capture_output=True,
                                  text=True, timeout=5, check=False).stdout
            if "cluster_state:ok" in info:
                break
            time.sleep(0.1)
        else:
            pytest.fail("the cluster did not come up")
        yield f"redis://127.0.0.1:{ports[0]}/0"
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=5)


@pytest.mark.redis
@pytest.mark.slow
def test_on_a_redis_cluster(redis_cluster):
    """TAPIS_CLUSTER=true: the command streams hash to slots on different
    primaries; the exporter reads them all (TIME is not pipelined: a cluster
    pipeline refuses key-less commands)."""
    settings = Settings(redis_url=redis_cluster, cluster=True, shards=6)
    r = make_sync_redis(settings)
    try:
        nodes = {r.get_node_from_key(keys.commands(s)).port for s in range(6)}
        assert len(nodes) >= 2  # the streams really are spread
        for shard in range(6):
            stream = make_group(r, shard)
            for i in range(shard + 1):
                r.xadd(stream, {"i": i})
            r.xreadgroup(GROUP, f"w{shard % 2}", {stream: ">"}, count=1)
        r.xadd(keys.DEAD_LETTERS, {"reason": "x"})
        got = sample(StreamCollector(r, 6))
    finally:
        r.close()
    assert got[("tapis_exporter_redis_up", ())] == 1
    assert [got[("tapis_command_stream_length", (str(s),))] for s in range(6)] == [1, 2, 3, 4, 5, 6]
    assert [got[("tapis_consumer_group_lag", (str(s),))] for s in range(6)] == [0, 1, 2, 3, 4, 5]
    assert [got[("tapis_consumer_group_pending", (str(s),))] for s in range(6)] == [1] * 6
    assert got[("tapis_worker_consumers_alive", ())] == 2
    assert got[("tapis_deadletter_stream_length", ())] == 1
