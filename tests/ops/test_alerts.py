"""The alert rules (deploy/prometheus/alerts.yml): they load, their unit
tests pass (promtool, when installed — .ci/ops.sh installs it), they name
only exported metrics, and each has a tested firing case and a runbook
section in docs/operations.md."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
import yaml

from tests.ops.conftest import DEPLOY, ROOT
from tests.ops.promql import SYNTHETIC, exported_metric_names, metric_names

PROM = DEPLOY / "prometheus"
RULES = yaml.safe_load((PROM / "alerts.yml").read_text())
ALERTS = [r for g in RULES["groups"] for r in g["rules"] if "alert" in r]
UNIT = yaml.safe_load((PROM / "tests" / "alerts_test.yml").read_text())

promtool = pytest.mark.skipif(shutil.which("promtool") is None,
                              reason="promtool not installed (Debian package prometheus; .ci/ops.sh installs it)")


def test_the_issue_s_alerts_are_all_there():
    names = {a["alert"] for a in ALERTS}
    assert names == {
        "TapisHighErrorRatio", "TapisSubmitReplyP99High", "TapisHttpP99High", "TapisGatewayDown",
        "TapisConsumerLagGrowing", "TapisPendingTooOld", "TapisNoWorkerAlive", "TapisDeadLetters",
        "TapisRedisUnreachable", "TapisExporterDown", "TapisBotDecisionNearDeadline",
        "TapisTablesNotMoving", "TapisSweeperBehind", "TapisLoopStalled",
        "TapisArchiveBehind", "TapisArchiveErrors",
    }


def _rule(name: str) -> dict:
    (rule,) = [a for a in ALERTS if a["alert"] == name]
    return rule


def _threshold(rule: dict) -> float:
    return float(re.search(r">\s*([0-9.]+)\s*$", rule["expr"].strip()).group(1))


def test_tables_not_moving_waits_longer_than_any_turn_clock_and_redrive():
    """A table may legitimately wait a whole turn clock (capped by the API)
    plus the sweeper's re-drive and lease: the alert must not fire before."""
    from pydantic.fields import FieldInfo

    from services.config import Settings
    from services.gateway.schemas import CreateTable

    field: FieldInfo = CreateTable.model_fields["turn_seconds"]
    clock_cap_s = next(m.le for m in field.metadata if getattr(m, "le", None) is not None)
    assert clock_cap_s == 600
    s = Settings()
    slack_s = (max(s.redrive_bot_ms, s.redrive_start_ms) + s.sweep_lease_ms + s.sweep_interval_ms) / 1000
    assert _threshold(_rule("TapisTablesNotMoving")) > clock_cap_s + slack_s


def test_no_worker_alive_no_longer_needs_commands_waiting():
    """Workers heartbeat while idle: the rule reads the heartbeat gauge
    alone (no lag/pending guard that hid a dead fleet on a quiet system)."""
    names = metric_names(_rule("TapisNoWorkerAlive")["expr"])
    assert "tapis_worker_consumers_alive" in names
    assert not names & {"tapis_consumer_group_lag", "tapis_consumer_group_pending"}


def test_loop_stalled_threshold_is_below_the_stall_exit():
    """The alert's threshold is no later than the default stall exit: a
    stalled loop is heard of before or as its process exits; one that keeps
    firing belongs to a process that serves stale metrics without exiting
    (its event loop, and so its watchdog, blocked)."""
    from services.config import Settings

    rule = _rule("TapisLoopStalled")
    assert "time()" in rule["expr"]
    assert _threshold(rule) == 60
    assert Settings().loop_stall_exit_s >= _threshold(rule)


@pytest.mark.parametrize("alert", ALERTS, ids=lambda a: a["alert"])
def test_alert_names_exported_metrics_and_is_documented(alert):
    names = metric_names(alert["expr"])
    assert names, alert["expr"]
    unknown = names - exported_metric_names() - SYNTHETIC
    assert not unknown, f"{alert['alert']}: {sorted(unknown)} not exported by Tapis"
    assert alert["labels"]["severity"] in ("page", "warning")
    anchor = alert["alert"].lower()
    assert alert["annotations"]["runbook"] == f"docs/operations.md#{anchor}"
    assert alert["annotations"]["summary"]
    doc = (ROOT / "docs" / "operations.md").read_text()
    headings = {re.sub(r"[^a-z0-9 -]", "", h.strip().lower()).replace(" ", "-")
                for h in re.findall(r"^#+ (.+)$", doc, re.MULTILINE)}
    assert anchor in headings, f"docs/operations.md has no section '{alert['alert']}'"


def test_archive_behind_waits_past_the_archive_delay_and_a_margin():
    """A finished table is archived TAPIS_ARCHIVE_AFTER_S after its end: the
    alert waits that plus 15 minutes, well past a failed attempt's retry
    and a dead sweeper's lease."""
    from services.config import Settings

    s = Settings()
    rule = _rule("TapisArchiveBehind")
    assert metric_names(rule["expr"]) == {"tapis_archive_oldest_unarchived_seconds"}
    assert _threshold(rule) == s.archive_after_s + 15 * 60
    assert _threshold(rule) > s.archive_after_s + 10 * (s.archive_retry_s + s.sweep_lease_ms / 1000)
    assert rule["for"] == "10m"


def test_archive_errors_cover_every_reason_the_archiver_counts():
    """The reasons the archiver counts are the ones the workers export from
    0 (a first failure is an increase), and the conflict branch looks back
    longer than the archiver's hourly conflict retry."""
    from services import metrics
    from services.worker import archiver

    source = (ROOT / "services" / "worker" / "archiver.py").read_text()
    counted = set(re.findall(r'self\._failed\([^"]*"(\w+)"', source))  # the reason: its first string
    assert counted == set(metrics.ARCHIVE_ERROR_REASONS) == {"unavailable", "mismatch", "conflict", "invalid"}
    rule = _rule("TapisArchiveErrors")
    window_min = int(re.search(r'reason="conflict"\}\[(\d+)m\]', rule["expr"]).group(1))
    assert window_min * 60_000 > archiver.CONFLICT_RETRY_MS
    assert rule["for"] == "15m"


def test_every_alert_has_a_firing_unit_test():
    firing = {t["alertname"] for case in UNIT["tests"] for t in case.get("alert_rule_test", []) if t["exp_alerts"]}
    quiet = {t["alertname"] for case in UNIT["tests"] for t in case.get("alert_rule_test", []) if not t["exp_alerts"]}
    names = {a["alert"] for a in ALERTS}
    assert firing == names
    assert len(quiet) >= 10  # and nearly all have a case that must stay quiet


@promtool
def test_promtool_checks_config_and_rules():
    for args in (["check", "config", "prometheus.yml"], ["check", "rules", "alerts.yml"]):
        res = subprocess.run(["promtool", *args], cwd=PROM, capture_output=True, text=True, timeout=60, check=False)
        assert res.returncode == 0, res.stdout + res.stderr
    assert f"SUCCESS: {len(ALERTS)} rules found" in res.stdout


@promtool
def test_promtool_alert_unit_tests_pass():
    res = subprocess.run(["promtool", "test", "rules", "tests/alerts_test.yml"], cwd=PROM, capture_output=True,
                         text=True, timeout=120, check=False)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "SUCCESS" in res.stdout


@promtool
def test_promtool_unit_tests_fail_on_a_broken_rule(tmp_path):
    """The unit tests catch a wrong threshold (here: 5xx ratio 5% -> 50%)."""
    (tmp_path / "tests").mkdir()
    text = (PROM / "alerts.yml").read_text()
    assert text.count("> 0.05\n        for: 5m") == 1
    (tmp_path / "alerts.yml").write_text(text.replace("> 0.05\n        for: 5m", "> 0.5\n        for: 5m"))
    (tmp_path / "tests" / "alerts_test.yml").write_text((PROM / "tests" / "alerts_test.yml").read_text())
    res = subprocess.run(["promtool", "test", "rules", "tests/alerts_test.yml"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120, check=False)
    assert res.returncode != 0
    assert "TapisHighErrorRatio" in res.stdout + res.stderr
