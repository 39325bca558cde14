#!/usr/bin/env bash
# The deployment files under deploy/, checked by their own tools (CI runs this from .ci/run, and
# tests/unit/deploy-files.test.ts runs it too): Prometheus's configuration, its alert rules and their
# unit tests, both HAProxy configurations (with a throw-away certificate, as `haproxy -c` opens every
# crt and errorfile), PgBouncer's ini, Sentinel's configuration and the systemd units' stop timeouts.
set -euo pipefail
cd "$(dirname "$0")/.."

need() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || { echo "check-deploy: $1 is missing (apt-get install $2)" >&2; exit 1; }; }
need promtool prometheus
need haproxy haproxy
need pgbouncer pgbouncer
need openssl openssl
need redis-server redis-server
PATH="$PATH:/usr/sbin"

# A loopback port nothing answers on (bash only: a fresh CI machine may have no python).
free_port() {
  local port
  for _ in $(seq 1 50); do
    port=$((20000 + RANDOM % 30000))
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return; }
  done
  echo "check-deploy: no free port" >&2; exit 1
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "check-deploy: prometheus"
# check config opens the token file: the copy reads a throw-away one (the only line changed).
mkdir "$work/prometheus"
cp deploy/prometheus/alerts.yml "$work/prometheus/"
sed "s|/etc/prometheus/shop-metrics-token|$work/prometheus/token|" deploy/prometheus/prometheus.yml > "$work/prometheus/prometheus.yml"
echo 'metrics-token-for-the-check-only' > "$work/prometheus/token"
promtool check config "$work/prometheus/prometheus.yml"
promtool check rules deploy/prometheus/alerts.yml
promtool test rules deploy/prometheus/alerts.test.yml

# Every alert names its runbook, and the runbook exists.
for alert in $(sed -n 's/^ *- alert: *//p' deploy/prometheus/alerts.yml); do
  grep -q "docs/runbooks/${alert}.md" deploy/prometheus/alerts.yml || { echo "check-deploy: $alert has no runbook_url to docs/runbooks/${alert}.md" >&2; exit 1; }
  [ -f "docs/runbooks/${alert}.md" ] || { echo "check-deploy: docs/runbooks/${alert}.md is missing" >&2; exit 1; }
done

echo "check-deploy: haproxy"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost \
  -keyout "$work/key.pem" -out "$work/cert.pem" >/dev/null 2>&1
cat "$work/cert.pem" "$work/key.pem" > "$work/shop.pem"
SHOP_TLS_CERT="$work/shop.pem" SHOP_ERRORS_DIR="$PWD/deploy/haproxy" haproxy -c -q -f deploy/haproxy.cfg
haproxy -c -q -f deploy/compose/haproxy.cfg
# The maintenance page is a whole HTTP answer: a 503 status line, UTF-8 HTML, a Content-Length that matches.
head -n 1 deploy/haproxy/maintenance.http | grep -q '^HTTP/1\.[01] 503 ' || { echo "check-deploy: maintenance.http is not a 503 answer" >&2; exit 1; }
grep -qi '^Content-Type: text/html; charset=utf-8' deploy/haproxy/maintenance.http || { echo "check-deploy: maintenance.http has no UTF-8 Content-Type" >&2; exit 1; }
declared=$(sed -n 's/^Content-Length: *\([0-9]*\).*/\1/ip' deploy/haproxy/maintenance.http)
actual=$(awk 'BEGIN{RS="\r\n\r\n"} NR>1{printf "%s%s", sep, $0; sep="\r\n\r\n"}' deploy/haproxy/maintenance.http | wc -c)
[ "$declared" = "$actual" ] || { echo "check-deploy: maintenance.http Content-Length $declared, body $actual bytes" >&2; exit 1; }

echo "check-deploy: pgbouncer"
# PgBouncer has no check mode: start it on a free loopback port against a copy of the ini, with
# addresses and files redirected into $work, and see that it listens (it exits at once on a bad ini).
port=$(free_port)
sed -e "s|^listen_addr = .*|listen_addr = 127.0.0.1|" -e "s|^listen_port = .*|listen_port = $port|" \
  -e "s|^auth_file = .*|auth_file = $work/userlist.txt|" -e "s|^logfile = .*|logfile = $work/pgbouncer.log|" \
  -e "s|^pidfile = .*|pidfile = $work/pgbouncer.pid|" -e "s|^unix_socket_dir = .*|unix_socket_dir = $work|" \
  -e "s|^client_tls_.*||" -e "s|^server_tls_.*||" -e "s|^auth_hba_file = .*||" \
  deploy/pgbouncer/pgbouncer.ini > "$work/pgbouncer.ini"
echo '"shop" "SCRAM-SHA-256$4096:c2FsdA==$a2V5:a2V5"' > "$work/userlist.txt"
chmod 777 "$work"; chmod 644 "$work"/*.ini "$work"/*.txt
as=(); [ "$(id -u)" = 0 ] && as=(-u postgres)
pgbouncer -d "${as[@]}" "$work/pgbouncer.ini" || { cat "$work/pgbouncer.log" >&2 2>/dev/null; exit 1; }
for _ in $(seq 1 50); do [ -s "$work/pgbouncer.pid" ] && break; sleep 0.1; done
ok=0
for _ in $(seq 1 50); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && { ok=1; break; }; sleep 0.1; done
kill "$(cat "$work/pgbouncer.pid")" 2>/dev/null || true
[ "$ok" = 1 ] || { echo "check-deploy: pgbouncer did not start with deploy/pgbouncer/pgbouncer.ini" >&2; cat "$work/pgbouncer.log" >&2; exit 1; }

echo "check-deploy: redis sentinel"
# No check mode either: a copy (Sentinel rewrites its file) on a free port, files in $work, must answer PING.
sport=$(free_port)
sed -e "s|^port .*|port $sport|" -e "s|^bind .*|bind 127.0.0.1|" -e "s|^dir .*|dir $work|" \
  -e "s|^logfile .*|logfile $work/sentinel.log|" deploy/redis/sentinel.conf > "$work/sentinel.conf"
redis-server "$work/sentinel.conf" --sentinel --daemonize yes --pidfile "$work/sentinel.pid"
ok=0
for _ in $(seq 1 50); do redis-cli -p "$sport" ping 2>/dev/null | grep -q PONG && { ok=1; break; }; sleep 0.1; done
quorum=$(redis-cli -p "$sport" sentinel master shop 2>/dev/null | sed -n '/^quorum$/{n;p}')
redis-cli -p "$sport" shutdown nosave >/dev/null 2>&1 || kill "$(cat "$work/sentinel.pid")" 2>/dev/null || true
[ "$ok" = 1 ] && [ "$quorum" = 2 ] || { echo "check-deploy: sentinel did not start with deploy/redis/sentinel.conf (quorum '$quorum')" >&2; cat "$work/sentinel.log" >&2; exit 1; }

echo "check-deploy: systemd units"
for unit in deploy/systemd/shop-web.service deploy/systemd/shop-worker.service; do
  grace=$(sed -n 's/^Environment=SHUTDOWN_GRACE_SECONDS=\([0-9]*\)$/\1/p' "$unit")
  stop=$(sed -n 's/^TimeoutStopSec=\([0-9]*\)s\?$/\1/p' "$unit")
  [ -n "$grace" ] && [ -n "$stop" ] && [ "$stop" -gt "$grace" ] \
    || { echo "check-deploy: $unit: TimeoutStopSec ($stop) must exceed SHUTDOWN_GRACE_SECONDS ($grace)" >&2; exit 1; }
done
echo "check-deploy: ok"
