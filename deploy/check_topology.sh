#!/usr/bin/env bash
# Manual check of the compose topology on a machine without a container
# engine (needs nginx and prometheus on PATH, a Redis on 127.0.0.1:6379): 2 gateways behind
# nginx (deploy/nginx/nginx.conf with loopback upstreams), 2 workers, 1 bot
# worker, the exporter, Prometheus with deploy/prometheus/{prometheus.yml,alerts.yml}
# (targets rewritten to loopback ports). Real Redis db 12. Ports 19260-19269.
# The archive: a SQLite file in the work directory (no PostgreSQL needed;
# TAPIS_CHECK_ARCHIVE_URL names another), finished tables archived 5 s
# after their end so that the run sees them leave Redis.
set -u
M=$(cd "$(dirname "$0")/.." && pwd)   # the repository
WORK=$(mktemp -d /tmp/tapis-topology.XXXXXX); cd "$WORK"
DB=${TAPIS_CHECK_DB:-12}   # flushed before and after
export TAPIS_REDIS_URL=redis://127.0.0.1:6379/$DB TAPIS_SHARDS=4
export TAPIS_ARCHIVE_URL=${TAPIS_CHECK_ARCHIVE_URL:-sqlite:///$WORK/archive.db} TAPIS_ARCHIVE_AFTER_S=5
redis-cli -n "$DB" flushdb >/dev/null
tapis archive migrate
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; sleep 2; for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done; redis-cli -n "$DB" flushdb >/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
tapis gateway --host 127.0.0.1 --port 19260 --log-level warning > gw1.log 2>&1 & PIDS+=($!)
tapis gateway --host 127.0.0.1 --port 19261 --log-level warning > gw2.log 2>&1 & PIDS+=($!)
tapis worker --metrics-port 19262 --log-level warning > w1.log 2>&1 & PIDS+=($!)
tapis worker --metrics-port 19263 --log-level warning > w2.log 2>&1 & PIDS+=($!)
tapis bots --metrics-port 19264 --concurrency 4 --log-level warning > bots.log 2>&1 & PIDS+=($!)
tapis exporter --host 127.0.0.1 --port 19265 --log-level warning > exp.log 2>&1 & PIDS+=($!)
sed -e 's/gateway-1:8000/127.0.0.1:19260/; s/gateway-2:8000/127.0.0.1:19261/; s/listen 8080;/listen 127.0.0.1:19266;/' \
    -e "s#pid /tmp/nginx.pid;#pid $WORK/nginx.pid; error_log $WORK/nginx-error.log;#" \
    -e "s#/tmp/\(client_body\|proxy\|fastcgi\|uwsgi\|scgi\)#$WORK/\1#" "$M/deploy/nginx/nginx.conf" > nginx.conf
nginx -t -c $WORK/nginx.conf -g 'daemon off;' 2>&1 | tail -2
nginx -c $WORK/nginx.conf -g 'daemon off;' > nginx.log 2>&1 & PIDS+=($!)
WORK=$WORK M=$M python3 - <<'PY'
import yaml
import os
c = yaml.safe_load(open(os.environ['M'] + '/deploy/prometheus/prometheus.yml'))
c['global']['scrape_interval'] = '2s'; c['global']['evaluation_interval'] = '2s'; c['global']['scrape_timeout'] = '1s'
c['rule_files'] = [os.environ['M'] + '/deploy/prometheus/alerts.yml']
jobs = {j['job_name']: j for j in c['scrape_configs']}
jobs['tapis-gateway']['static_configs'] = [{'targets': ['127.0.0.1:19260', '127.0.0.1:19261']}]
for name, ports in (('tapis-worker', ['19262', '19263']), ('tapis-bots', ['19264'])):
    del jobs[name]['dns_sd_configs']; jobs[name]['static_configs'] = [{'targets': ['127.0.0.1:' + p for p in ports]}]
jobs['tapis-exporter']['static_configs'] = [{'targets': ['127.0.0.1:19265']}]
jobs['prometheus']['static_configs'] = [{'targets': ['127.0.0.1:19267']}]
yaml.safe_dump(c, open(os.environ['WORK'] + '/prometheus.yml', 'w'))
PY
prometheus --config.file=$WORK/prometheus.yml --storage.tsdb.path=$WORK/tsdb --web.listen-address=127.0.0.1:19267 --log.level=warn > prom.log 2>&1 & PIDS+=($!)
for i in $(seq 50); do curl -sf 127.0.0.1:19266/readyz >/dev/null && break; sleep 0.2; done
echo "readyz via nginx: $(curl -s 127.0.0.1:19266/readyz)"
echo "metrics via nginx: $(curl -s -o /dev/null -w '%{http_code}' 127.0.0.1:19266/metrics)"
timeout 120 tapis demo --url http://127.0.0.1:19266 --game maumau --tables 10 --players 3 --strategy random 2>&1 | tail -4
# SSE through nginx: a spectator follows a bot table live
T=$(curl -s 127.0.0.1:19266/tables -H 'content-type: application/json' -d '{"game":"maumau","players":3,"bots":{"0":"random","1":"random","2":"random"}}' | python3 -c 'import sys,json;print(json.load(sys.stdin)["id"])')
timeout 4 curl -sN "127.0.0.1:19266/tables/$T/stream" > sse.txt; echo "SSE events via nginx: $(grep -c '^event:' sse.txt)"
sleep 8
q() { curl -s 127.0.0.1:19267/api/v1/query --data-urlencode "query=$1" | python3 -c 'import sys,json; r=json.load(sys.stdin)["data"]["result"]; print([(x["metric"].get("shard", x["metric"].get("instance", "")), x["value"][1]) for x in r])'; }
echo "up: $(q 'up')"
echo "applied by worker: $(q 'sum by (instance) (tapis_actions_applied_total)')"
echo "http by gateway: $(q 'sum by (instance) (tapis_http_requests_total)')"
echo "bot p99: $(q 'histogram_quantile(0.99, sum by (le) (rate(tapis_bot_decision_seconds_bucket[1m])))')"
echo "submit p99: $(q 'histogram_quantile(0.99, sum by (le) (rate(tapis_submit_reply_seconds_bucket[1m])))')"
echo "alive: $(q 'tapis_worker_consumers_alive')  lag: $(q 'tapis_consumer_group_lag')  pending: $(q 'tapis_consumer_group_pending')  len: $(q 'tapis_command_stream_length')"
echo "active: $(q 'max by (game) (tapis_active_tables)')"
echo "archived: $(q 'sum(tapis_games_archived_total)')  backlog: $(q 'tapis_archive_backlog_tables')  oldest unarchived: $(q 'tapis_archive_oldest_unarchived_seconds')  errors: $(q 'sum(tapis_archive_errors_total)')"
curl -s 127.0.0.1:19267/api/v1/rules | python3 -c '
import sys,json; g=json.load(sys.stdin)["data"]["groups"]
for r in [r for x in g for r in x["rules"]]: print("  rule", r["name"], r["health"], r["state"], r.get("lastError",""))'
