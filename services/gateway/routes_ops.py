"""Health, readiness and Prometheus metrics."""

from __future__ import annotations

from fastapi import APIRouter, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from services import metrics
from services.gateway.deps import Ctx
from services.gateway.errors import ApiError
from services.store import keys

router = APIRouter(tags=["operations"])


@router.get("/healthz", summary="Liveness",
            responses={503: {"description": "A loop stopped making progress (`loop_stalled`): restart the process."}})
async def healthz(ctx: Ctx) -> dict:
    """200 while every loop of this process (the reply listener, when the
    gateway sends actions to the workers, `TAPIS_DECIDE_IN_GATEWAY=0`; in
    `tapis serve` also the workers' shard loops, reclaimer and sweeper) completed
    an iteration within `TAPIS_LOOP_STALL_EXIT_S`; `loops` gives the seconds
    since each one's last beat. 503 `loop_stalled` otherwise."""
    ok, ages = ctx.heartbeats.report(ctx.settings.loop_stall_exit_s)
    if not ok:
        raise ApiError(503, "loop_stalled", "a loop of this process has stopped making progress", extra={"loops": ages})
    return {"status": "ok", "loops": ages}


@router.get("/readyz", summary="Readiness", responses={503: {"description": "Redis unreachable (`not_ready`)."}})
async def readyz(ctx: Ctx) -> dict:
    """200 when Redis answers; 503 `not_ready` otherwise (take the
    gateway out of the load balancer)."""
    try:
        await ctx.redis.ping()
    except Exception:  # noqa: BLE001 -- a probe must answer 503, whatever way the store fails
        raise ApiError(503, "not_ready", "the event store is unreachable") from None
    return {"status": "ready"}


@router.get("/metrics", summary="Prometheus metrics", response_class=Response)
async def prometheus_metrics(ctx: Ctx) -> Response:
    """This process's `tapis_*` metrics in the Prometheus text format.
    `tapis_active_tables` is read from the shared counter in Redis."""
    try:
        stats = await ctx.redis.hgetall(keys.STATS)
        for k, v in stats.items():
            k = k.decode() if isinstance(k, bytes) else k
            if k.startswith("active:"):
                metrics.ACTIVE_TABLES.labels(k[7:]).set(int(v))
    except Exception:  # noqa: BLE001 -- best effort: a scrape must answer with the local metrics
        pass
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)
