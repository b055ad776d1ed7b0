"""Live-stream (SSE) slots of one gateway (docs/api.md, "Rate limits").

A gateway serves at most ``TAPIS_MAX_STREAMS`` streams in all (503
``too_many_streams`` beyond) and at most ``TAPIS_MAX_STREAMS_PER_CLIENT``
to one client address (429 ``too_many_client_streams`` beyond), the same
address the rate limits count (:func:`services.gateway.deps.client_address`).

A slot is taken when the stream is accepted, before its response starts
(no ``await`` between the check and the count, so parallel requests
cannot all slip under a cap), and given back exactly once when the stream
ends, however it ends (client gone, server shutdown, an error, a ``HEAD``
that never iterates the stream).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from services.gateway.errors import ApiError


class StreamSlots:
    """Counts the streams served, in all and per client address."""

    def __init__(self, total: int, per_client: int) -> None:
        self.total = total
        self.per_client = per_client
        self.open = 0
        self.by_client: Counter[str] = Counter()

    def take(self, who: str) -> Callable[[], None]:
        """One slot for client ``who``; returns the function that gives it
        back (calling it again does nothing).  Raises :class:`ApiError`
        503 ``too_many_streams`` when the gateway is full, 429
        ``too_many_client_streams`` when ``who`` holds its share."""
        if self.open >= self.total:
            raise ApiError(503, "too_many_streams", "this gateway serves as many streams as it can; retry later")
        if self.by_client[who] >= self.per_client:
            raise ApiError(429, "too_many_client_streams",
                           f"this client already has {self.per_client} live streams open on this gateway; "
                           "close one first", headers={"Retry-After": "5"}, extra={"retry_after": 5})
        self.open += 1
        self.by_client[who] += 1
        released = False

        def release() -> None:
            nonlocal released
            if released:
                return
            released = True
            self.open -= 1
            self.by_client[who] -= 1
            if self.by_client[who] <= 0:
                del self.by_client[who]

        return release
