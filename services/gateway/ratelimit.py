"""Rate limits per client (docs/api.md, "Rate limits"), with the ``limits``
library on the Redis Tapis already uses (its in-memory storage for the
embedded store): a moving window per limit.

Who is counted: creating and joining tables per client address; actions
(and ``/back``) per seat. A request over a limit gets 429 ``rate_limited``
with ``Retry-After`` (whole seconds) and nothing is done. The limits are
settings (``TAPIS_RATE_CREATE``, ``TAPIS_RATE_JOIN``, ``TAPIS_RATE_ACTION``,
in the ``limits`` notation: ``"100/minute;1000/hour"``; an empty string
turns one off; ``TAPIS_RATE_LIMITS=false`` turns them all off).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

from limits import RateLimitItem, parse_many
from limits.aio.storage import MemoryStorage, RedisClusterStorage, RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter

from services.config import Settings
from services.gateway.errors import ApiError

#: What a limit counts: the setting that holds its limits.
KINDS = {"create": "rate_create", "join": "rate_join", "action": "rate_action"}
#: The prefix of the windows' keys in Redis.
KEY_PREFIX = "tapis:limits"


def _storage(settings: Settings) -> Storage:
    if settings.redis_url is None:
        return MemoryStorage()
    url = "async+" + settings.redis_url
    if settings.cluster:
        return RedisClusterStorage(url.replace("async+redis", "async+redis+cluster", 1), implementation="redispy",
                                   key_prefix=KEY_PREFIX)
    return RedisStorage(url, implementation="redispy", key_prefix=KEY_PREFIX)


class RateLimits:
    """The gateway's limits.  :meth:`check` raises 429 ``rate_limited``
    when a client is over one of the limits of a kind."""

    def __init__(self, settings: Settings) -> None:
        self.limits: dict[str, Sequence[RateLimitItem]] = {
            kind: (parse_many(getattr(settings, name)) if settings.rate_limits and getattr(settings, name) else ())
            for kind, name in KINDS.items()
        }
        self.limiter = MovingWindowRateLimiter(_storage(settings)) if any(self.limits.values()) else None

    async def check(self, kind: str, who: str) -> None:
        """Count one request of ``kind`` ("create", "join", "action") by
        ``who`` (a client address, a table and seat).  Raises
        :class:`ApiError` 429 ``rate_limited`` (with ``Retry-After``) when
        it is over a limit; then nothing is counted for the others."""
        limiter = self.limiter
        if limiter is None:
            return
        for item in self.limits[kind]:
            if not await limiter.hit(item, kind, who):
                stats = await limiter.get_window_stats(item, kind, who)
                retry = max(1, math.ceil(stats.reset_time - time.time()))
                raise ApiError(429, "rate_limited", f"too many requests ({item}); retry in {retry} s",
                               headers={"Retry-After": str(retry)}, extra={"retry_after": retry})
