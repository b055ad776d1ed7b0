#!/usr/bin/env bash
# Operations checks (issue 7), called by .ci/run: the Prometheus scrape
# configs and alert rules must load, and the alert unit tests must pass.
# promtool comes from Debian's prometheus package, installed when missing
# (--no-install-recommends: no node exporter; the package's own service is
# not started in containers). Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v promtool >/dev/null 2>&1; then
  echo "ops: installing promtool (Debian package prometheus)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends prometheus >/dev/null
fi
promtool --version | head -1

cd deploy/prometheus
promtool check config prometheus.yml
# Debian builds Prometheus without Kubernetes service discovery; the
# Kubernetes scrape config is checked by promtools that have it.
if out=$(promtool check config prometheus-k8s.yml 2>&1); then
  echo "$out"
elif grep -q "field kubernetes_sd_configs not found" <<<"$out"; then
  echo "ops: prometheus-k8s.yml not checked: this promtool has no Kubernetes discovery"
else
  echo "$out"; exit 1
fi
promtool check rules alerts.yml
promtool test rules tests/alerts_test.yml
echo "ops: promtool checks passed"
