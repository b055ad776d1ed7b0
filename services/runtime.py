"""Connections shared by the roles: the Redis client (real, cluster, or
the embedded fakeredis server) built from :class:`~services.config.Settings`."""

from __future__ import annotations

from functools import cache

from redis.asyncio import Redis

from services.config import Settings


@cache
def embedded_server():
    """The one in-process fakeredis server of an embedded ``tapis serve``."""
    from fakeredis import FakeServer

    return FakeServer()


def make_redis(settings: Settings) -> Redis:
    """An asyncio Redis client: ``settings.redis_url`` (cluster when
    ``settings.cluster``), or the embedded fakeredis server when unset."""
    if settings.redis_url is None:
        from fakeredis.aioredis import FakeRedis

        return FakeRedis(server=embedded_server())
    if settings.cluster:
        from redis.asyncio.cluster import RedisCluster

        return RedisCluster.from_url(settings.redis_url)  # type: ignore[return-value]
    from redis.asyncio import BlockingConnectionPool

    # A bounded pool that queues (up to 10 s) rather than failing when busy.
    pool = BlockingConnectionPool.from_url(settings.redis_url, max_connections=256, timeout=10)
    return Redis(connection_pool=pool)
