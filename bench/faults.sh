#!/usr/bin/env bash
# A node on a PostgreSQL server of its own, through the faults of
# bench/workloads/catalog-faults.yaml under reads and writes: a restart
# (pg_ctl restart -m fast), then a kill -9 of the server and a start 4 s
# later. Writes the run's results to bench/results/DATE-faults/ (its
# report.html charts the availability timeline with the faults marked).
#
#   bench/faults.sh [workload]
set -euo pipefail
cd "$(dirname "$0")/.."
wl=${1:-bench/workloads/catalog-faults.yaml}
day=$(date -u +%Y-%m-%d)
out=bench/results/$day-faults
work=$(mktemp -d)
chmod 755 "$work"
pids=()
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
as=()
if [ "$(id -u)" = 0 ]; then as=(runuser -u postgres --); chown postgres "$work"; fi
export PGDATA=$work/pg
export PGCTL="${as[*]} $bin/pg_ctl -D $PGDATA -l $work/pg.log"
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  $PGCTL stop -m immediate >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 1 100); do (echo > "/dev/tcp/127.0.0.1/$1") 2>/dev/null && return; sleep 0.1; done; echo "nothing listens on $1" >&2; exit 1; }

echo "==> build"
go build -o "$work/ostium" ./cmd/ostium

echo "==> PostgreSQL $(basename "$(dirname "$bin")") in $PGDATA"
pgport=$(port)
"${as[@]}" "$bin/initdb" -D "$PGDATA" -A trust -U postgres >/dev/null
printf "port = %d\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '%s'\n" "$pgport" "$work" >> "$PGDATA/postgresql.auto.conf"
$PGCTL start -w >/dev/null

echo "==> ostium serve"
export OSTIUM_ROOT_ACCESS_KEY=bench-access-key OSTIUM_ROOT_SECRET_KEY=bench-secret-key-0123456789
p=$(port)
mkdir -m 700 "$work/data"
OSTIUM_CONSOLE_LISTEN=off "$work/ostium" serve --listen "127.0.0.1:$p" --data "$work/data" \
  --catalog "postgres://postgres@127.0.0.1:$pgport/postgres?sslmode=disable" 2> "$work/serve.log" &
pids+=($!)
wait_port "$p"

echo "==> ostium bench run $wl"
rm -rf "$out"
"$work/ostium" bench run "$wl" --endpoint "http://127.0.0.1:$p" --out "$out" --no-ceiling --max-error-ratio 0.5 | tee "$work/run.txt"
cp "$work/run.txt" "$out/run.txt"
echo "==> results in $out"
