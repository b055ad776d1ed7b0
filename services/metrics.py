"""Prometheus metrics, all prefixed ``tapis_`` (docs/operations.md, "Metrics").

Each process (gateway, worker, bot worker, or the all-in-one ``serve``)
exposes its own registry.  Label values are game names, route templates,
strategy names, refusal codes and sources — never a card, a seat token or
a table id, so no label can leak hidden information or explode.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

_LAT = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

HTTP_REQUESTS = Counter("tapis_http_requests_total", "HTTP requests served.", ["method", "route", "status"])
HTTP_LATENCY = Histogram(
    "tapis_http_request_duration_seconds", "HTTP request latency.", ["method", "route"], buckets=_LAT
)
SUBMIT_REPLY = Histogram(
    "tapis_submit_reply_seconds", "Gateway: action submitted to the command stream until the worker's reply.",
    ["game"], buckets=_LAT,
)
ACTIONS_APPLIED = Counter("tapis_actions_applied_total", "Actions applied (events appended).", ["game"])
ACTIONS_REJECTED = Counter("tapis_actions_rejected_total", "Actions refused, by refusal code.", ["game", "reason"])
APPLY_LATENCY = Histogram(
    "tapis_apply_duration_seconds", "Worker: rebuild + decide + append for one command.", ["game"], buckets=_LAT
)
REBUILD_LATENCY = Histogram(
    "tapis_rebuild_duration_seconds", "Time to get a table's state, by source (cache, snapshot, replay).",
    ["source"], buckets=_LAT,
)
CONFLICTS = Counter(
    "tapis_version_conflicts_total", "Appends refused for a stale expected version (retried).", ["game"]
)
COMMAND_LAG = Histogram(
    "tapis_command_lag_seconds", "Worker: command submitted until picked up.", buckets=_LAT
)
COMMANDS_RECLAIMED = Counter("tapis_commands_reclaimed_total", "Commands reclaimed from a dead worker (XAUTOCLAIM).")
DEAD_LETTERS = Counter(
    "tapis_dead_letters_total", "Commands that could not be decoded, moved to the dead-letter stream."
)
TABLES_STARTED = Counter("tapis_tables_started_total", "Tables whose game started.", ["game"])
GAMES_FINISHED = Counter("tapis_games_finished_total", "Games played to the end.", ["game"])
ACTIVE_TABLES = Gauge(
    "tapis_active_tables", "Tables started and not finished (from the shared Redis counter).", ["game"]
)
BOT_DECISION = Histogram(
    "tapis_bot_decision_seconds", "Bot: time to choose an action.", ["game", "strategy"], buckets=_LAT
)
BOT_TURNS = Counter("tapis_bot_turns_total", "Bot turns, by outcome (submitted, stale, refused).", ["game", "outcome"])

# Liveness (issue 10): the sweeper, the turn clock and the loops' heartbeats.
TURN_TIMEOUTS = Counter(
    "tapis_turn_timeouts_total", "Turn clocks run out: a seat marked away (TurnTimedOut).", ["game"]
)
SEATS_RETURNED = Counter(
    "tapis_seats_returned_total", "Away seats taken back by their person (SeatReturned).", ["game"]
)
SEATS_LEFT = Counter(
    "tapis_seats_left_total", "People who left their seat (POST /tables/{T}/leave), by when: waiting (the seat freed "
    "before the start) or playing (a SeatLeft event: the stand-in bot plays it for good).", ["game", "when"],
)
REDRIVEN = Counter(
    "tapis_redriven_total", "Work re-driven by the sweeper, by kind (bot: a bot turn re-enqueued; start: a start "
    "re-sent; timeout: a turn clock checked and run out; idle: a due entry with nothing left to do).", ["kind"],
)
DUE_CLAIMED = Counter("tapis_due_claimed_total", "Due tables claimed (leased) by this process's sweeper.")
COMMANDS_DUPLICATE = Counter(
    "tapis_commands_duplicate_total", "Commands answered from their outcome record instead of applied again "
    "(a client retry, a bot task delivered twice), by kind.", ["kind"],
)
COMMANDS_LOST = Counter(
    "tapis_commands_lost_total", "Pending commands whose stream entry was deleted or trimmed before they were "
    "acknowledged (reported in the dead-letter stream; their clients got a timeout and may resend).",
)
COMMANDS_DEFERRED = Counter(
    "tapis_commands_deferred_total", "Commands left pending for a retry because Redis failed mid-way (transient).",
)
GAMES_ARCHIVED = Counter(
    "tapis_games_archived_total", "Finished tables moved from Redis into the archive (written, verified, keys "
    "removed), by game.", ["game"],
)
ARCHIVE_ERRORS = Counter(
    "tapis_archive_errors_total", "Archive attempts that failed, by reason (unavailable: the database could not be "
    "reached or failed; mismatch: the row read back differs from the log; conflict: the table id is archived with "
    "another log; invalid: the log in Redis does not make a finished game). The table stays in Redis.", ["reason"],
)
#: The reasons of :data:`ARCHIVE_ERRORS`, exported from 0 so that a first
#: failure is an increase the alert TapisArchiveErrors sees.
ARCHIVE_ERROR_REASONS = ("unavailable", "mismatch", "conflict", "invalid")
for _reason in ARCHIVE_ERROR_REASONS:
    ARCHIVE_ERRORS.labels(_reason)
ARCHIVE_LATENCY = Histogram(
    "tapis_archive_seconds", "Time to archive one finished table (read the log, write and verify the row, remove "
    "the keys).", buckets=_LAT,
)
LOOP_HEARTBEAT = Gauge(
    "tapis_loop_heartbeat_timestamp_seconds", "Unix time of the last completed iteration of each loop of this "
    "process (shard:<n>, reclaim, sweep, replies).", ["loop"],
)
