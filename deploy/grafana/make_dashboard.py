"""Writes deploy/grafana/dashboards/tapis.json, the Tapis overview dashboard.

The JSON is generated so that every panel has the same shape (datasource
variable, units, legend) and unique ids; edit this file, then run

    python deploy/grafana/make_dashboard.py

tests/ops/test_dashboard.py checks that the committed JSON is what this
script writes, and that every query names a metric Tapis exports.
Standard library only.
"""

from __future__ import annotations

import json
from pathlib import Path

OUT = Path(__file__).resolve().parent / "dashboards" / "tapis.json"
DS = {"type": "prometheus", "uid": "${datasource}"}
RI = "$__rate_interval"
G = 'game=~"$game"'


def _target(expr: str, legend: str, ref: str) -> dict:
    return {"datasource": DS, "expr": expr, "legendFormat": legend, "refId": ref, "range": True}


class Layout:
    """Places panels left to right on a 24-column grid and numbers them."""

    def __init__(self) -> None:
        self.panels: list[dict] = []
        self.x = 0
        self.y = 0
        self.row_h = 0
        self.next_id = 1

    def _id(self) -> int:
        self.next_id += 1
        return self.next_id - 1

    def row(self, title: str) -> None:
        """Start a new row titled ``title``."""
        self.y += self.row_h
        self.x, self.row_h = 0, 0
        self.panels.append({"type": "row", "id": self._id(), "title": title, "collapsed": False,
                            "gridPos": {"h": 1, "w": 24, "x": 0, "y": self.y}, "panels": []})
        self.y += 1

    def panel(self, title: str, targets: list[tuple[str, str]], *, unit: str = "short", w: int = 8, h: int = 8,
              kind: str = "timeseries", description: str = "", thresholds: list[tuple[float, str]] | None = None,
              stack: bool = False, base: str = "green") -> None:
        """Add one panel; ``targets``: (PromQL, legend) pairs."""
        if self.x + w > 24:
            self.y += self.row_h
            self.x, self.row_h = 0, 0
        steps = [{"color": base, "value": None}]
        steps += [{"color": color, "value": value} for value, color in thresholds or []]
        field: dict = {"unit": unit, "thresholds": {"mode": "absolute", "steps": steps}}
        options: dict
        if kind == "timeseries":
            field["custom"] = {
                "drawStyle": "line", "lineWidth": 1, "fillOpacity": 10 if stack else 0, "showPoints": "never",
                "spanNulls": False, "stacking": {"mode": "normal" if stack else "none", "group": "A"},
                "thresholdsStyle": {"mode": "line" if thresholds else "off"},
            }
            field["color"] = {"mode": "palette-classic"}
            options = {"legend": {"displayMode": "list", "placement": "bottom", "showLegend": True},
                       "tooltip": {"mode": "multi", "sort": "desc"}}
        else:  # stat
            field["color"] = {"mode": "thresholds"}
            options = {"reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False},
                       "colorMode": "value", "graphMode": "area", "textMode": "auto", "orientation": "auto",
                       "justifyMode": "auto"}
        refs = "ABCDEFGH"
        self.panels.append({
            "type": kind, "id": self._id(), "title": title, "description": description, "datasource": DS,
            "gridPos": {"h": h, "w": w, "x": self.x, "y": self.y},
            "targets": [_target(e, legend, refs[i]) for i, (e, legend) in enumerate(targets)],
            "fieldConfig": {"defaults": field, "overrides": []}, "options": options,
        })
        self.x += w
        self.row_h = max(self.row_h, h)


def quantiles(metric: str, by: str, sel: str = "", qs: tuple[float, ...] = (0.5, 0.99)) -> list[tuple[str, str]]:
    """histogram_quantile targets for ``metric`` (a histogram's base name)."""
    labels = [b.strip() for b in by.split(",") if b.strip()]
    legend = " ".join("{{" + b + "}}" for b in labels)
    group = ", ".join([*labels, "le"])
    selector = f"{{{sel}}}" if sel else ""
    return [(f"histogram_quantile({q}, sum by ({group}) (rate({metric}_bucket{selector}[{RI}])))",
             f"p{int(q * 100)} {legend}".strip()) for q in qs]


def build() -> dict:
    """The dashboard as a dict (Grafana 10/11 JSON model)."""
    L = Layout()

    L.row("Gateway: rate, errors, duration")
    L.panel("Requests/s by route", [(f"sum by (route) (rate(tapis_http_requests_total[{RI}]))", "{{route}}")],
            unit="reqps", description="Every HTTP request a gateway answered, by route template.")
    L.panel("Errors", [
        (f'sum(rate(tapis_http_requests_total{{status=~"5.."}}[{RI}])) / sum(rate(tapis_http_requests_total[{RI}]))',
         "5xx ratio"),
        (f'sum(rate(tapis_http_requests_total{{status=~"4.."}}[{RI}])) / sum(rate(tapis_http_requests_total[{RI}]))',
         "4xx ratio"),
    ], unit="percentunit", thresholds=[(0.05, "red")],
        description="5xx: the service failed (alert TapisHighErrorRatio at 5%). "
                    "4xx: refusals (stale version, illegal action...): game traffic, not faults.")
    L.panel("Responses/s by status", [(f"sum by (status) (rate(tapis_http_requests_total[{RI}]))", "{{status}}")],
            unit="reqps", stack=True)
    L.panel("HTTP p99 by route", quantiles("tapis_http_request_duration_seconds", "route", qs=(0.99,)),
            unit="s", w=12, thresholds=[(0.5, "red")],
            description="The SSE route is not timed. Alert TapisHttpP99High at 500 ms.")
    L.panel("Submit → reply by game", quantiles("tapis_submit_reply_seconds", "game", G, qs=(0.5, 0.95, 0.99)),
            unit="s", w=12, thresholds=[(0.05, "red")],
            description="Gateway: action put on the command stream until the worker's reply. Budget p99 50 ms.")

    L.row("Command pipeline")
    L.panel("Actions applied/s by game", [(f"sum by (game) (rate(tapis_actions_applied_total{{{G}}}[{RI}]))",
                                           "{{game}}")], unit="ops", stack=True)
    L.panel("Actions refused/s by reason",
            [(f"sum by (game, reason) (rate(tapis_actions_rejected_total{{{G}}}[{RI}]))", "{{game}} {{reason}}")],
            unit="ops")
    L.panel("Apply duration by game", quantiles("tapis_apply_duration_seconds", "game", G), unit="s",
            description="Worker: rebuild + decide + append for one command.")
    L.panel("Command pickup lag", quantiles("tapis_command_lag_seconds", ""), unit="s", description="Submitted until a worker picked the command up (XREADGROUP).")
    L.panel("State rebuilds by source", [(f"sum by (source) (rate(tapis_rebuild_duration_seconds_count[{RI}]))",
                                          "{{source}}")], unit="ops", stack=True,
            description="cache: in memory; snapshot: snapshot + tail; replay: the whole log.")
    L.panel("Rebuild p99 by source", quantiles("tapis_rebuild_duration_seconds", "source", qs=(0.99,)), unit="s")

    L.row("Streams: lag and pending")
    L.panel("Consumer group lag by shard", [("max by (shard) (tapis_consumer_group_lag)", "shard {{shard}}")],
            description="Commands not yet delivered to any worker. Alert TapisConsumerLagGrowing.")
    L.panel("Pending (unacknowledged) by shard",
            [("max by (shard) (tapis_consumer_group_pending)", "shard {{shard}}")],
            description="Delivered to a worker, not acknowledged yet.")
    L.panel("Oldest pending command age", [("max by (shard) (tapis_oldest_pending_age_seconds)", "shard {{shard}}")],
            unit="s", thresholds=[(15, "yellow"), (60, "red")],
            description="Reclaimed after 15 s idle (TAPIS_CLAIM_IDLE_MS); alert TapisPendingTooOld above 60 s.")
    L.panel("Workers alive", [("max(tapis_worker_consumers_alive)", "heartbeats"),
                              ('sum(up{job="tapis-worker"})', "worker targets up")],
            kind="stat", w=6, h=6, base="red", thresholds=[(1, "green")],
            description="Workers whose heartbeat in tapis:workers is within the exporter's window (--alive-s), "
                        "and worker scrape targets up. Alert TapisNoWorkerAlive.")
    L.panel("Dead letters", [("max(tapis_deadletter_stream_length)", "in tapis:deadletters"),
                             ("sum(increase(tapis_dead_letters_total[1h]))", "last hour")],
            kind="stat", w=6, h=6, thresholds=[(1, "red")])
    L.panel("Reclaimed commands", [("sum(increase(tapis_commands_reclaimed_total[1h]))", "last hour")],
            kind="stat", w=6, h=6, thresholds=[(1, "yellow")],
            description="Taken over from a worker that stopped before acknowledging (XAUTOCLAIM).")
    L.panel("Command stream length", [("sum(max by (shard) (tapis_command_stream_length))", "entries")],
            kind="stat", w=6, h=6, description="Entries in tapis:commands:* (acknowledged ones stay until trimmed).")

    L.row("Liveness")
    L.panel("Oldest awaited turn age", [("max(tapis_oldest_awaited_turn_age_seconds)", "stillest table")],
            unit="s", thresholds=[(600, "yellow"), (900, "red")],
            description="Since the last event of the stillest table that waits on a bot, a start or a turn clock. "
                        "Turn clocks are capped at 600 s; alert TapisTablesNotMoving above 900 s.")
    L.panel("Sweeper overdue", [("max(tapis_sweeper_overdue_seconds)", "earliest due table")],
            unit="s", thresholds=[(60, "red")],
            description="How far past its due time the earliest due table is (0: the sweeper is on time). "
                        "Alert TapisSweeperBehind above 60 s.")
    L.panel("Tables awaiting", [("max(tapis_tables_awaiting)", "in the due sets")],
            description="Tables in the partitions' due sets: a bot turn, a start, a turn clock or a finished table "
                        "to archive the sweeper will look at. Tables waiting on a person without a clock, or "
                        "finished without an archive, are not counted.")
    L.panel("Turn timeouts and returns/min by game", [
        (f"sum by (game) (rate(tapis_turn_timeouts_total{{{G}}}[{RI}])) * 60", "timed out {{game}}"),
        (f"sum by (game) (rate(tapis_seats_returned_total{{{G}}}[{RI}])) * 60", "came back {{game}}"),
    ], description="Turn clocks run out (TurnTimedOut: a stand-in bot plays the seat) and away seats taken "
                   "back by their person (SeatReturned).")
    L.panel("Re-driven work/s by kind", [
        (f"sum by (kind) (rate(tapis_redriven_total[{RI}]))", "{{kind}}"),
        (f"sum(rate(tapis_due_claimed_total[{RI}]))", "due tables claimed"),
    ], unit="ops", description="What the sweepers did with the due tables they claimed: bot (a bot turn "
                               "re-enqueued), start (re-sent), timeout (a turn clock run out), idle (nothing to do).")
    L.panel("Duplicate and deferred commands/s", [
        (f"sum by (kind) (rate(tapis_commands_duplicate_total[{RI}]))", "duplicate {{kind}}"),
        (f"sum(rate(tapis_commands_deferred_total[{RI}]))", "deferred (Redis failed mid-way)"),
    ], unit="ops", description="Duplicates: answered from their outcome record, not applied again (client "
                               "retries, bot tasks delivered twice). Deferred: left pending for a retry.")
    L.panel("Loop heartbeat age", [
        ("time() - max by (job, instance, loop) (tapis_loop_heartbeat_timestamp_seconds)",
         "{{job}} {{instance}} {{loop}}"),
    ], unit="s", w=18, thresholds=[(60, "red")],
        description="Since each loop of each process last completed an iteration. Alert TapisLoopStalled above "
                    "60 s; a worker exits after TAPIS_LOOP_STALL_EXIT_S.")
    L.panel("Lost commands", [("sum(increase(tapis_commands_lost_total[1h]))", "last hour")],
            kind="stat", w=6, thresholds=[(1, "red")],
            description="Pending commands whose stream entry was deleted before they were acknowledged "
                        "(reported in tapis:deadletters; their clients got a timeout and may resend).")

    L.row("Conflicts and retries")
    L.panel("Version conflicts/s by game",
            [(f"sum by (game) (rate(tapis_version_conflicts_total{{{G}}}[{RI}]))", "{{game}}")], unit="ops",
            description="Appends refused for a stale expected version; the worker reloads and decides again.")
    L.panel("Conflicts per applied action",
            [((f"sum by (game) (rate(tapis_version_conflicts_total{{{G}}}[{RI}])) / "
               f"sum by (game) (rate(tapis_actions_applied_total{{{G}}}[{RI}]))"), "{{game}}")],
            unit="percentunit")
    L.panel("Reclaims/s and stale bot turns/s", [
        (f"sum(rate(tapis_commands_reclaimed_total[{RI}]))", "reclaimed commands"),
        (f'sum by (game) (rate(tapis_bot_turns_total{{outcome="stale",{G}}}[{RI}]))', "stale bot turns {{game}}"),
    ], unit="ops")

    L.row("Tables and games")
    L.panel("Active tables by game", [(f"max by (game) (tapis_active_tables{{{G}}})", "{{game}}")], stack=True,
            description="Started and not finished (the shared counter in Redis, read by the gateways).")
    L.panel("Tables started/min by game",
            [(f"sum by (game) (rate(tapis_tables_started_total{{{G}}}[{RI}])) * 60", "{{game}}")], unit="short")
    L.panel("Games finished/min by game",
            [(f"sum by (game) (rate(tapis_games_finished_total{{{G}}}[{RI}])) * 60", "{{game}}")], unit="short")

    L.row("Archive")
    L.panel("Games archived/min by game", [
        (f"sum by (game) (rate(tapis_games_archived_total{{{G}}}[{RI}])) * 60", "archived {{game}}"),
        (f"sum(rate(tapis_games_finished_total{{{G}}}[{RI}])) * 60", "finished (all games)"),
    ], description="Finished tables moved from Redis into the archive (written, verified, keys removed), beside "
                   "the games finished: the two match when the archive keeps up (TAPIS_ARCHIVE_AFTER_S later).")
    L.panel("Archive backlog", [("max(tapis_archive_backlog_tables)", "finished, not archived")],
            description="Finished tables still in Redis waiting for the archiver (the unarchived sets): about "
                        "TAPIS_ARCHIVE_AFTER_S worth of finished games when all is well. Empty without an archive.")
    L.panel("Oldest unarchived age", [("max(tapis_archive_oldest_unarchived_seconds)", "oldest finished table")],
            unit="s", thresholds=[(300, "yellow"), (1200, "red")],
            description="Since the last event of the oldest finished table not archived yet. Tables are archived "
                        "TAPIS_ARCHIVE_AFTER_S (300 s) after their end; alert TapisArchiveBehind above 1200 s.")
    L.panel("Archive errors/s by reason", [(f"sum by (reason) (rate(tapis_archive_errors_total[{RI}]))",
                                            "{{reason}}")], unit="ops", w=12,
            description="Failed attempts; the table stays in Redis and is tried again (TAPIS_ARCHIVE_RETRY_S, "
                        "an hour for a conflict). Alert TapisArchiveErrors.")
    L.panel("Archive duration", quantiles("tapis_archive_seconds", ""), unit="s", w=12,
            description="Worker: read the log, write and verify the row, remove the keys, for one table.")

    L.row("Bots")
    L.panel("Bot decision p99 by game and strategy",
            quantiles("tapis_bot_decision_seconds", "game, strategy", G, qs=(0.99,)), unit="s", w=12,
            thresholds=[(4, "yellow"), (5, "red")],
            description="Turn deadline 5 s; alert TapisBotDecisionNearDeadline at 4 s.")
    L.panel("Bot decision p50 by game and strategy",
            quantiles("tapis_bot_decision_seconds", "game, strategy", G, qs=(0.5,)), unit="s", w=12)
    L.panel("Bot turns/s by outcome", [(f"sum by (game, outcome) (rate(tapis_bot_turns_total{{{G}}}[{RI}]))",
                                        "{{game}} {{outcome}}")], unit="ops", w=24)

    return {
        "uid": "tapis-overview",
        "title": "Tapis",
        "description": ("Tapis service: gateway RED, command pipeline, streams, liveness, conflicts, tables, "
                        "archive, bots."),
        "tags": ["tapis"],
        "timezone": "browser",
        "editable": True,
        "graphTooltip": 1,
        "refresh": "30s",
        "schemaVersion": 39,
        "version": 1,
        "time": {"from": "now-1h", "to": "now"},
        "timepicker": {},
        "fiscalYearStartMonth": 0,
        "liveNow": False,
        "links": [],
        "annotations": {"list": [{
            "builtIn": 1, "datasource": {"type": "grafana", "uid": "-- Grafana --"}, "enable": True, "hide": True,
            "iconColor": "rgba(0, 211, 255, 1)", "name": "Annotations & Alerts", "type": "dashboard"}]},
        "templating": {"list": [
            {"name": "datasource", "label": "Data source", "type": "datasource", "query": "prometheus",
             "current": {}, "hide": 0, "includeAll": False, "multi": False, "options": [], "refresh": 1,
             "regex": "", "skipUrlSync": False},
            {"name": "game", "label": "Game", "type": "query", "datasource": DS,
             "definition": "label_values(tapis_tables_started_total, game)",
             "query": {"query": "label_values(tapis_tables_started_total, game)", "refId": "PrometheusVariableQueryEditor-VariableQuery"},
             "current": {"selected": True, "text": ["All"], "value": ["$__all"]},
             "includeAll": True, "allValue": ".*", "multi": True, "options": [], "refresh": 2, "regex": "",
             "sort": 1, "hide": 0, "skipUrlSync": False},
        ]},
        "panels": L.panels,
    }


def render() -> str:
    """The dashboard JSON text as written to :data:`OUT`."""
    return json.dumps(build(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(render(), encoding="utf-8")
    print(f"wrote {OUT}")
