"""Settings for every Tapis role, read once from the environment
(``TAPIS_*`` variables) with pydantic-settings (the ones that matter in
production: docs/operations.md, "Settings that matter in production")."""

from __future__ import annotations

from functools import lru_cache

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """One settings object for the gateway, workers and bot workers."""

    model_config = SettingsConfigDict(env_prefix="TAPIS_", extra="ignore")

    redis_url: str | None = Field(
        None, description="Redis URL (redis://host:6379/0). None: embedded in-process store (fakeredis)."
    )
    broker_url: str | None = Field(
        None, description="Celery broker URL for bot tasks. None: the Redis URL; embedded mode runs bots in-process."
    )
    cluster: bool = Field(False, description="Connect to a Redis Cluster (every key of one table shares a hash slot).")
    shards: int = Field(4, ge=1, le=1024, description="Number of command streams tapis:commands:<shard>.")
    snapshot_every: int = Field(64, ge=1, description="Write a snapshot after this many events since the last one.")
    conflict_retries: int = Field(5, ge=1, le=100, description="Version-conflict retries before a command fails.")
    reply_timeout_s: float = Field(10.0, gt=0, description="How long the gateway waits for a worker's reply.")
    store_read_timeout_s: float = Field(
        5.0, gt=0, description="How long a gateway request waits to read a table from Redis before answering 503"
        " store_unavailable (a paused or saturated Redis).")
    decide_in_gateway: bool = Field(
        True, description="The gateway decides and appends people's actions itself (the worker's code, on its own"
        " table cache) instead of sending them to a worker over a command stream: one process hop and about half"
        " the Redis commands less per action. Workers still run bot moves, the sweeper and turn clocks. False:"
        " every command goes through the command streams to the workers.")
    claim_idle_ms: int = Field(
        15_000, ge=100, description="Pending commands idle this long are reclaimed from a dead worker (XAUTOCLAIM)."
    )
    cache_tables: int = Field(10_000, ge=0, description="Table states kept in each process's memory cache.")
    bot_delay_ms: int = Field(0, ge=0, le=60_000, description="Pause before a bot acts, so people can follow.")
    max_tables_listed: int = Field(200, ge=1, le=10_000, description="Lobby page size cap.")
    max_streams: int = Field(1000, ge=1, description="Concurrent SSE streams one gateway serves.")
    max_streams_per_client: int = Field(
        20, ge=1,
        description="Concurrent SSE streams one gateway serves to one client address (429 too_many_client_streams).")
    max_body_bytes: int = Field(
        65_536, ge=1024,
        description="Largest request body accepted, counted as it arrives whatever the transfer encoding (413 above).")
    waiting_expiry_s: int = Field(
        86_400, ge=0,
        description="A table still waiting for people this long after its creation or last join is removed (0: kept).")
    finished_retention_s: int = Field(
        7 * 86_400, ge=0,
        description="A finished table (log, meta, snapshot) is removed this long after its end (0: kept);"
        " `tapis export` saves a log first.")
    archive_url: str | None = Field(
        None,
        description="Where finished games are archived: postgresql://user@host:5432/db or sqlite:///path/archive.db."
        " Set: the workers move each finished table out of Redis into it (TAPIS_ARCHIVE_AFTER_S after its end) and"
        " reads of an archived table fall through to it. None: finished tables stay in Redis for"
        " TAPIS_FINISHED_RETENTION_S (`tapis serve` on its embedded store defaults to a SQLite file).")
    archive_after_s: int = Field(
        300, ge=0, le=7 * 86_400,
        description="A finished table is archived (and its Redis keys removed) this long after its last event,"
        " so that open streams and pages see the end first.")
    archive_retry_s: int = Field(
        30, ge=1, le=3600,
        description="After a failed archive write (database down), the table is tried again this long later;"
        " it stays in Redis meanwhile.")
    rate_limits: bool = Field(True, description="Apply the rate limits below (false: none).")
    rate_create: str = Field(
        "100/minute;1000/hour",
        description="Tables one client address may create (limits notation: '100/minute;1000/hour'; '' none).")
    rate_join: str = Field("200/minute", description="Seats one client address may take ('' none).")
    rate_action: str = Field("20/second;600/minute", description="Actions (and /back) one seat may send ('' none).")
    cors_origins: list[str] = Field(
        default_factory=list,
        description="Origins allowed to call the API from a browser (CORS), as a JSON list"
        ' (TAPIS_CORS_ORIGINS=\'["https://play.example"]\'). Empty: CORS off (same-origin only).')
    max_header_bytes: int = Field(16_384, ge=1024, description="Largest request headers in all (431 above).")
    body_timeout_s: float = Field(
        10.0, gt=0, le=600, description="A request body not received whole within this time gets 408.")
    header_timeout_s: float = Field(
        10.0, gt=0, le=600,
        description="A request head (request line and headers) not received whole within this time, from the"
        " connection's start or the end of the previous response, gets 408 and the connection is closed"
        " (an idle connection is closed without an answer).")
    keepalive_timeout_s: float = Field(
        5.0, gt=0, le=600, description="An idle keep-alive connection is closed after this long.")
    forwarded_allow_ips: str = Field(
        "",
        description="Proxies trusted to name the client in X-Forwarded-For (and the scheme in X-Forwarded-Proto):"
        " a comma list of addresses or networks ('172.31.240.10', '10.0.0.0/8'), or '*' for any peer."
        " Empty: none; the client address is the TCP peer's and X-Forwarded-For is ignored.")
    # Liveness (docs/operations.md, "Guarantees and faults").
    redrive_bot_ms: int = Field(
        10_000, ge=100, le=3_600_000,
        description="A bot (or stand-in) turn not played this long after it was due is enqueued again by the sweeper.")
    redrive_start_ms: int = Field(
        5_000, ge=100, le=3_600_000,
        description="A full table not started this long after its last seat was filled is started by the sweeper.")
    sweep_interval_ms: int = Field(
        1_000, ge=50, le=60_000, description="How often each worker's sweeper looks for due tables.")
    sweep_lease_ms: int = Field(
        15_000, ge=100, le=3_600_000,
        description="A due table claimed by a sweeper is hidden from the others this long"
        " (a dead sweeper's claim runs out).")
    loop_stall_exit_s: float = Field(
        120.0, ge=1,
        description="A worker loop that cannot complete an iteration this long makes the process exit non-zero"
        " (its supervisor restarts it).")
    redis_retries: int = Field(
        5, ge=0, le=100,
        description="Retries (exponential backoff, capped at 2 s) of a Redis command on a connection error or timeout.")
    redis_health_check_s: int = Field(
        10, ge=0, description="Check an idle pooled connection with PING after this many seconds (0: never).")
    bot_acks_late: bool = Field(
        True, description="Celery: acknowledge a bot task after it ran, not when it was received.")
    bot_reject_on_worker_lost: bool = Field(
        True, description="Celery: requeue a bot task whose worker process died while running it.")
    bot_visibility_timeout_s: int = Field(
        300, ge=10,
        description="Celery Redis broker: an unacknowledged bot task is redelivered after this long"
        " (longer than any bot turn and TAPIS_BOT_DELAY_MS).")
    bot_prefetch: int = Field(1, ge=1, le=64, description="Celery: bot tasks each bot worker process reserves ahead.")
    bot_task_retries: int = Field(
        8, ge=0, le=100,
        description="Celery: retries (exponential backoff) of a bot task that failed on a Redis error.")
    chaos_kill_after_append: int = Field(
        0, ge=0,
        description="Test hook: a worker SIGKILLs itself right after its N-th append that awaits a bot,"
        " before enqueueing the bot turn (0: off).")
    metrics_port: int | None = Field(
        None, description="Port for the worker/bot /metrics server (gateway serves its own).")


def archive_enabled(settings: Settings) -> bool:
    """True when ``settings.archive_url`` names an archive (not unset,
    empty or ``none``)."""
    url = (settings.archive_url or "").strip()
    return bool(url) and url.lower() != "none"


def safe_url(url: str | None) -> str:
    """``url`` with any password replaced by ``***`` (for logs and banners)."""
    import re

    return re.sub(r"(//[^:/@]+:)[^@/]*@", r"\1***@", url or "")


def default_archive_url() -> str:
    """The archive of the embedded ``tapis serve`` when ``TAPIS_ARCHIVE_URL``
    is unset: a SQLite file under ``$XDG_DATA_HOME/tapis/`` (default
    ``~/.local/share/tapis/archive.db``), kept across restarts."""
    import os
    from pathlib import Path

    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return f"sqlite:///{Path(base) / 'tapis' / 'archive.db'}"


@lru_cache
def get_settings() -> Settings:
    """The process-wide settings (cached)."""
    return Settings()
