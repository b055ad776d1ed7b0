"""Connections shared by the roles: the Redis client (real, cluster, or
the embedded fakeredis server) built from :class:`~services.config.Settings`.

Every client retries a command on a connection error or a timeout with
exponential backoff (redis-py's :class:`~redis.retry.Retry`) and checks an
idle pooled connection before reusing it (``health_check_interval``), so a
Redis restart costs a short wait instead of failed commands on stale
connections.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import BusyLoadingError, ConnectionError, TimeoutError

from services.config import Settings


@cache
def embedded_server():
    """The one in-process fakeredis server of an embedded ``tapis serve``."""
    from fakeredis import FakeServer

    return FakeServer()


def client_options(settings: Settings) -> dict[str, Any]:
    """Keyword arguments for every asyncio Redis client of a role: retries
    with backoff (capped at 2 s), a health check of idle connections,
    keep-alive and bounded connect/read timeouts (above the longest
    blocking read, 1 s)."""
    return {
        "retry": Retry(ExponentialBackoff(cap=2.0, base=0.05), settings.redis_retries),
        "retry_on_error": [ConnectionError, TimeoutError, BusyLoadingError],
        "health_check_interval": settings.redis_health_check_s,
        "socket_keepalive": True,
        "socket_connect_timeout": 5.0,
        "socket_timeout": 15.0,
    }


def make_redis(settings: Settings) -> Redis:
    """An asyncio Redis client: ``settings.redis_url`` (cluster when
    ``settings.cluster``), or the embedded fakeredis server when unset."""
    if settings.redis_url is None:
        from fakeredis.aioredis import FakeRedis

        return FakeRedis(server=embedded_server())
    opts = client_options(settings)
    if settings.cluster:
        from redis.asyncio.cluster import RedisCluster

        opts.pop("retry_on_error")
        opts.pop("health_check_interval")
        return RedisCluster.from_url(settings.redis_url, **opts)  # type: ignore[return-value]
    from redis.asyncio import BlockingConnectionPool

    # A bounded pool that queues (up to 10 s) rather than failing when busy.
    pool = BlockingConnectionPool.from_url(settings.redis_url, max_connections=256, timeout=10, **opts)
    return Redis(connection_pool=pool)
