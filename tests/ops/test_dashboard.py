"""The Grafana dashboard and its provisioning (deploy/grafana/): valid JSON
in the shape Grafana loads, unique panel ids, a datasource variable used
by every query, and every query naming metrics that Tapis exports."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
import yaml

from tests.ops.conftest import DEPLOY
from tests.ops.promql import SYNTHETIC, exported_metric_names, metric_names, substitute_grafana_variables

DASHBOARD = DEPLOY / "grafana" / "dashboards" / "tapis.json"
PROVISIONING = DEPLOY / "grafana" / "provisioning"


@pytest.fixture(scope="module")
def dashboard() -> dict:
    return json.loads(DASHBOARD.read_text(encoding="utf-8"))


def all_panels(dashboard: dict) -> list[dict]:
    out = []
    for p in dashboard["panels"]:
        out.append(p)
        out.extend(p.get("panels", []))  # panels inside collapsed rows
    return out


def queries(dashboard: dict) -> list[tuple[str, str]]:
    """(where, PromQL) for every panel target and every query variable."""
    out = []
    for p in all_panels(dashboard):
        for t in p.get("targets", []):
            out.append((f"panel {p['id']} {p['title']!r} {t['refId']}", t["expr"]))
    for v in dashboard["templating"]["list"]:
        if v["type"] == "query":
            q = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
            inner = q[len("label_values("):-1].rsplit(",", 1)[0] if q.startswith("label_values(") else q
            out.append((f"variable {v['name']}", inner))
    return out


def test_committed_json_is_what_the_generator_writes():
    sys.path.insert(0, str(DEPLOY / "grafana"))
    try:
        import make_dashboard
    finally:
        sys.path.pop(0)
    assert DASHBOARD.read_text(encoding="utf-8") == make_dashboard.render(), (
        "deploy/grafana/dashboards/tapis.json is stale: run python deploy/grafana/make_dashboard.py")


def test_top_level_shape(dashboard):
    assert dashboard["uid"] == "tapis-overview"
    assert dashboard["title"] == "Tapis"
    assert isinstance(dashboard["schemaVersion"], int) and dashboard["schemaVersion"] >= 36
    assert dashboard["time"] == {"from": "now-1h", "to": "now"}
    assert {p["type"] for p in all_panels(dashboard)} == {"row", "timeseries", "stat"}


def test_panel_ids_are_unique_positive_ints(dashboard):
    ids = [p["id"] for p in all_panels(dashboard)]
    assert all(isinstance(i, int) and i > 0 for i in ids)
    assert len(ids) == len(set(ids)) == 48


def test_panels_fit_the_grid_without_overlap(dashboard):
    cells: dict[tuple[int, int], int] = {}
    for p in all_panels(dashboard):
        g = p["gridPos"]
        assert 0 <= g["x"] and g["x"] + g["w"] <= 24 and g["h"] > 0, p["title"]
        for x in range(g["x"], g["x"] + g["w"]):
            for y in range(g["y"], g["y"] + g["h"]):
                assert (x, y) not in cells, f"{p['title']} overlaps panel {cells[(x, y)]}"
                cells[(x, y)] = p["id"]


def test_datasource_variable_is_used_everywhere(dashboard):
    variables = {v["name"]: v for v in dashboard["templating"]["list"]}
    ds = variables["datasource"]
    assert ds["type"] == "datasource" and ds["query"] == "prometheus"
    want = {"type": "prometheus", "uid": "${datasource}"}
    for p in all_panels(dashboard):
        if p["type"] == "row":
            continue
        assert p["datasource"] == want, p["title"]
        assert p["targets"], p["title"]
        for t in p["targets"]:
            assert t["datasource"] == want, p["title"]
    assert variables["game"]["datasource"] == want


def test_every_query_names_exported_metrics(dashboard):
    exported = exported_metric_names()
    assert "tapis_actions_applied_total" in exported and "tapis_bot_decision_seconds_bucket" in exported
    seen: set[str] = set()
    for where, expr in queries(dashboard):
        names = metric_names(substitute_grafana_variables(expr))
        assert names, f"{where}: no metric in {expr!r}"
        unknown = names - exported - SYNTHETIC
        assert not unknown, f"{where}: {sorted(unknown)} not exported by Tapis"
        seen |= names
    # the sections the issue asks for are all on the dashboard
    for needed in ("tapis_http_requests_total", "tapis_http_request_duration_seconds_bucket",
                   "tapis_submit_reply_seconds_bucket", "tapis_actions_applied_total",
                   "tapis_consumer_group_lag", "tapis_consumer_group_pending", "tapis_oldest_pending_age_seconds",
                   "tapis_version_conflicts_total", "tapis_commands_reclaimed_total", "tapis_active_tables",
                   "tapis_games_finished_total", "tapis_bot_decision_seconds_bucket", "tapis_deadletter_stream_length",
                   # the Liveness row (issue 10)
                   "tapis_turn_timeouts_total", "tapis_redriven_total", "tapis_oldest_awaited_turn_age_seconds",
                   "tapis_sweeper_overdue_seconds", "tapis_tables_awaiting", "tapis_commands_duplicate_total",
                   "tapis_commands_lost_total", "tapis_loop_heartbeat_timestamp_seconds",
                   # the Archive row (issue 22)
                   "tapis_games_archived_total", "tapis_archive_backlog_tables",
                   "tapis_archive_oldest_unarchived_seconds", "tapis_archive_errors_total",
                   "tapis_archive_seconds_bucket"):
        assert needed in seen, needed


def test_liveness_row(dashboard):
    """The row of issue 10: what waits on the sweeper, what it re-drove,
    turn clocks, duplicate and lost commands, loop heartbeats."""
    titles = [p["title"] for p in dashboard["panels"]]
    start = titles.index("Liveness")
    end = next(i for i in range(start + 1, len(titles)) if dashboard["panels"][i]["type"] == "row")
    row = dashboard["panels"][start + 1:end]
    exprs = " ".join(t["expr"] for p in row for t in p["targets"])
    for metric in ("tapis_oldest_awaited_turn_age_seconds", "tapis_sweeper_overdue_seconds", "tapis_tables_awaiting",
                   "tapis_turn_timeouts_total", "tapis_redriven_total", "tapis_commands_duplicate_total",
                   "tapis_commands_lost_total", "tapis_loop_heartbeat_timestamp_seconds"):
        assert metric in exprs, metric
    assert "sum by (kind) (rate(tapis_redriven_total" in exprs
    # the alert thresholds are drawn on their panels
    by_title = {p["title"]: p for p in row}
    steps = {t: [s["value"] for s in by_title[t]["fieldConfig"]["defaults"]["thresholds"]["steps"]]
             for t in ("Oldest awaited turn age", "Sweeper overdue", "Loop heartbeat age")}
    assert steps == {"Oldest awaited turn age": [None, 600, 900], "Sweeper overdue": [None, 60],
                     "Loop heartbeat age": [None, 60]}


def row_panels(dashboard: dict, title: str) -> list[dict]:
    """The panels of the row titled ``title`` (up to the next row)."""
    titles = [p["title"] for p in dashboard["panels"]]
    start = titles.index(title)
    end = next((i for i in range(start + 1, len(titles)) if dashboard["panels"][i]["type"] == "row"), len(titles))
    return dashboard["panels"][start + 1:end]


def test_archive_row(dashboard):
    """The row of issue 22: games archived by game, the backlog, the oldest
    unarchived age (with the alert's threshold), errors by reason, the
    archive latency's p99."""
    row = row_panels(dashboard, "Archive")
    by_title = {p["title"]: [t["expr"] for t in p["targets"]] for p in row}
    assert list(by_title) == ["Games archived/min by game", "Archive backlog", "Oldest unarchived age",
                              "Archive errors/s by reason", "Archive duration"]
    assert by_title["Games archived/min by game"][0] == (
        'sum by (game) (rate(tapis_games_archived_total{game=~"$game"}[$__rate_interval])) * 60')
    assert by_title["Archive backlog"] == ["max(tapis_archive_backlog_tables)"]
    assert by_title["Oldest unarchived age"] == ["max(tapis_archive_oldest_unarchived_seconds)"]
    assert by_title["Archive errors/s by reason"] == [
        "sum by (reason) (rate(tapis_archive_errors_total[$__rate_interval]))"]
    assert "histogram_quantile(0.99, sum by (le) (rate(tapis_archive_seconds_bucket[$__rate_interval])))" in (
        by_title["Archive duration"])
    oldest = next(p for p in row if p["title"] == "Oldest unarchived age")
    assert [s["value"] for s in oldest["fieldConfig"]["defaults"]["thresholds"]["steps"]] == [None, 300, 1200]
    rules = yaml.safe_load((DEPLOY / "prometheus" / "alerts.yml").read_text())
    (behind,) = [r for g in rules["groups"] for r in g["rules"] if r.get("alert") == "TapisArchiveBehind"]
    assert behind["expr"].strip().endswith("> 1200")  # the red line is the alert's threshold


def test_the_name_check_catches_a_typo():
    exported = exported_metric_names()
    names = metric_names('sum(rate(tapis_actions_aplied_total{game=~".*"}[5m])) / sum(up)')
    assert names == {"tapis_actions_aplied_total", "up"}
    assert names - exported - SYNTHETIC == {"tapis_actions_aplied_total"}


def test_bot_panels_split_by_game_and_strategy(dashboard):
    bot = [t["expr"] for p in all_panels(dashboard) for t in p.get("targets", [])
           if "tapis_bot_decision_seconds_bucket" in t["expr"]]
    assert len(bot) == 2 and all("sum by (game, strategy, le)" in e for e in bot)


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool not installed (Debian package prometheus)")
def test_queries_are_valid_promql(dashboard, tmp_path):
    """promtool parses every query (as a recording rule)."""
    rules = [{"record": f"tapis:dashboard_query_{i}", "expr": substitute_grafana_variables(expr)}
             for i, (_where, expr) in enumerate(queries(dashboard))]
    path = tmp_path / "dashboard_rules.yml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}))
    res = subprocess.run(["promtool", "check", "rules", str(path)], capture_output=True, text=True, timeout=60,
                         check=False)
    assert res.returncode == 0, res.stdout + res.stderr
    assert f"SUCCESS: {len(rules)} rules found" in res.stdout


def test_provisioning_points_at_the_dashboard_and_prometheus():
    ds = yaml.safe_load((PROVISIONING / "datasources" / "prometheus.yaml").read_text())
    (source,) = ds["datasources"]
    assert source["type"] == "prometheus" and source["isDefault"] is True
    assert source["url"] == "http://prometheus:9090"
    prov = yaml.safe_load((PROVISIONING / "dashboards" / "tapis.yaml").read_text())
    (provider,) = prov["providers"]
    assert provider["type"] == "file"
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    mounts = compose["services"]["grafana"]["volumes"]
    assert f"./grafana/dashboards:{provider['options']['path']}:ro" in mounts
    assert "./grafana/provisioning:/etc/grafana/provisioning:ro" in mounts
