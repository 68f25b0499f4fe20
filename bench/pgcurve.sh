#!/usr/bin/env bash
# The write rate of a node on PostgreSQL against concurrent clients, from
# one client to twice the node's pool, next to PostgreSQL's own rate in
# the same run, with what the sessions were waiting on.
#
# 16-byte PUTs (inline objects: each PUT is one catalog transaction and
# nothing else) at each level of clients, against
#
#   after      this tree
#   before     the tree at BEFORE (a git revision; skipped if not given)
#   pg-put     pgbench running the statements of a PUT's transaction as
#              the BEFORE tree sends them (bench/pgcurve-put.sql), one
#              pgbench client per node connection the level would use
#              (at most the pool): PostgreSQL's ceiling for that
#              transaction, with no HTTP, no signature and no Go
#   pg-insert  pgbench inserting one row per transaction, the same
#              clients: the machine's durable commit rate
#
# Each level runs every target in turn, nodes restarted for each (so no
# more than one pool is open at once: the server is shared), in rounds
# that each start at another level. During every node run the script
# samples pg_stat_activity of the node's database every 50 ms (what each
# session waits on) and the CPU the node and its PostgreSQL sessions
# used. Writes bench/results/DATE-pgcurve[-TAG].{csv,waits.csv,md,svg}
# (TAG from OSTIUM_PGCURVE_TAG, for a second run the same day).
#
#   bench/pgcurve.sh [BEFORE] [rounds] [seconds] [levels] [pool]
#   bench/pgcurve.sh 8f5f4bb 2 5 "1 2 4 8 16 24 32 48 64" 32
#
# OSTIUM_BENCH_POSTGRES is a server URL whose user may create databases
# and read pg_stat_activity (default: the test server of the Go suite).
set -euo pipefail
cd "$(dirname "$0")/.."
before=${1:-}
rounds=${2:-2}
secs=${3:-5}
levels=${4:-1 2 4 8 16 24 32 48 64}
pool=${5:-32}
pg=${OSTIUM_BENCH_POSTGRES:-postgres://ostium:ostium@127.0.0.1:5432/ostium?sslmode=disable}
day=$(date -u +%Y-%m-%d)
out=bench/results/$day-pgcurve${OSTIUM_PGCURVE_TAG:+-$OSTIUM_PGCURVE_TAG}
mkdir -p bench/results
work=$(mktemp -d)
node=
sampler=
dbs=()
cleanup() {
  [ -n "$sampler" ] && kill "$sampler" 2>/dev/null
  [ -n "$node" ] && kill "$node" 2>/dev/null
  wait 2>/dev/null || true
  for d in "${dbs[@]}"; do psql -q "$pg" -c "DROP DATABASE IF EXISTS $d WITH (FORCE)" || true; done
  rm -rf "$work"
}
trap cleanup EXIT

echo "==> build"
go build -o "$work/bin-after" ./cmd/ostium
if [ -n "$before" ]; then
  mkdir "$work/src"
  git archive "$before" | tar -x -C "$work/src"
  (cd "$work/src" && go build -o "$work/bin-before" ./cmd/ostium)
fi

export OSTIUM_ROOT_ACCESS_KEY=bench-access-key OSTIUM_ROOT_SECRET_KEY=bench-secret-key-0123456789
dburl() { python3 -c 'import sys, urllib.parse as u; p=u.urlparse(sys.argv[1]); print(p._replace(path="/"+sys.argv[2]).geturl())' "$pg" "$1"; }
fresh_pg() { # name: a new database
  psql -q "$pg" -c "DROP DATABASE IF EXISTS $1 WITH (FORCE)" -c "CREATE DATABASE $1"
  dbs+=("$1")
}
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
wait_port() { for _ in $(seq 1 150); do (echo > "/dev/tcp/127.0.0.1/$1") 2>/dev/null && return; sleep 0.1; done; echo "nothing listens on $1" >&2; exit 1; }

declare -A db
targets=()
for t in after ${before:+before}; do
  db[$t]=ostium_curve_${t}_$$
  fresh_pg "${db[$t]}"
  targets+=("$t")
done
db[pg-insert]=ostium_curve_ins_$$
fresh_pg "${db[pg-insert]}"
psql -q "$(dburl "${db[pg-insert]}")" -c "CREATE TABLE t (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, k BYTEA NOT NULL, v BIGINT NOT NULL)"
printf '%s\n' "INSERT INTO t (k, v) VALUES (decode(md5(random()::text), 'hex'), 1);" > "$work/insert.sql"

printf 'data: %s\ncatalog_connections: %d\n' "$work/data" "$pool" > "$work/pool.yaml"
start_node() { # target
  mkdir -p "$work/data-$1"
  OSTIUM_CONSOLE_LISTEN=off "$work/bin-$1" serve --listen "127.0.0.1:$port" --data "$work/data-$1" \
    --catalog "$(dburl "${db[$1]}")" --config "$work/pool.yaml" 2>> "$work/$1.log" &
  node=$!
  wait_port "$port"
}
stop_node() { kill "$node"; wait "$node" 2>/dev/null || true; node=; }
put() { # target clients seconds bucket-prefix
  "$work/bin-after" bench put --endpoint "http://127.0.0.1:$port" --size 16B --concurrency "$2" --duration "$3s" \
    --keep --no-ceiling --bucket-prefix "$4" --out "$work/run-$4" > "$work/run-$4.log" 2>&1
}
# ticks of user+system CPU of a process, 0 if it is gone
ticks() { awk '{print $14+$15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
backends() { psql -At "$pg" -c "SELECT pid FROM pg_stat_activity WHERE datname = '$1' AND backend_type = 'client backend'"; }

# The pg-put ceiling runs in the after database, in a bucket the node
# made (so its rows and indexes are the node's).
start_node after
put after 1 1 pgbput
stop_node
cp bench/pgcurve-put.sql "$work/put.sql"

echo "round,clients,target,ops_per_s,p50_ms,p99_ms,errors,node_cpu_us_per_op,pg_cpu_us_per_op,machine_busy" > "$out.csv"
echo "round,clients,target,state,wait,samples" > "$out.waits.csv"
read -ra lv <<< "$levels"
for r in $(seq 1 "$rounds"); do
  order=("${lv[@]:$(( (r - 1) % ${#lv[@]} ))}" "${lv[@]:0:$(( (r - 1) % ${#lv[@]} ))}")
  for n in "${order[@]}"; do
    c=$(( n < pool ? n : pool ))
    for t in "${targets[@]}"; do
      start_node "$t"
      put "$t" 1 1 "warm-r$r-c$n-$t" # prepares the statements of one connection
      # Samples: one psql running the query every 50 ms.
      printf '%s\n' "SELECT state || ',' || COALESCE(wait_event_type || ':' || wait_event, 'CPU') FROM pg_stat_activity WHERE datname = '${db[$t]}' AND backend_type = 'client backend' \\watch 0.05" |
        psql -At "$pg" > "$work/waits" 2>/dev/null &
      sampler=$!
      read -r b0 i0 < <(awk '/^cpu /{print $2+$3+$4+$7+$8, $5+$6}' /proc/stat)
      n0=$(ticks "$node")
      declare -A pg0=()
      for p in $(backends "${db[$t]}"); do pg0[$p]=$(ticks "$p"); done
      put "$t" "$n" "$secs" "r$r-c$n-$t"
      pgt=0
      for p in $(backends "${db[$t]}"); do pgt=$(( pgt + $(ticks "$p") - ${pg0[$p]:-0} )); done
      n1=$(ticks "$node")
      read -r b1 i1 < <(awk '/^cpu /{print $2+$3+$4+$7+$8, $5+$6}' /proc/stat)
      kill "$sampler"; wait "$sampler" 2>/dev/null || true; sampler=
      stop_node
      python3 - "$work/run-r$r-c$n-$t/summary.json" "$r" "$n" "$t" "$((n1 - n0))" "$pgt" "$((b1 - b0))" "$((i1 - i0))" "$(getconf CLK_TCK)" >> "$out.csv" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
op = [o for s in d["stages"] for o in s["ops"] if o["op_type"] == "write"][-1]
p = op["percentiles_ms"]
count = max(1, op.get("op_count") or op["throughput_ops"] * 1)
ops = op["throughput_ops"]
secs = count / ops if ops else 1
hz = float(sys.argv[9])
node_us = int(sys.argv[5]) / hz / count * 1e6
pg_us = int(sys.argv[6]) / hz / count * 1e6
busy = int(sys.argv[7]) / max(1, int(sys.argv[7]) + int(sys.argv[8]))
print(f'{sys.argv[2]},{sys.argv[3]},{sys.argv[4]},{ops:.0f},{p["p50"]:.2f},{p["p99"]:.2f},{op["error_count"]},{node_us:.0f},{pg_us:.0f},{busy:.2f}')
EOF
      python3 - "$work/waits" "$r" "$n" "$t" >> "$out.waits.csv" <<'EOF'
import collections, sys
c = collections.Counter(l.strip() for l in open(sys.argv[1]) if "," in l)
for k, v in sorted(c.items(), key=lambda kv: -kv[1]):
    print(f"{sys.argv[2]},{sys.argv[3]},{sys.argv[4]},{k},{v}")
EOF
      tail -1 "$out.csv"
    done
    for t in pg-put pg-insert; do
      if [ "$t" = pg-put ]; then url=$(dburl "${db[after]}"); f=$work/put.sql; else url=$(dburl "${db[pg-insert]}"); f=$work/insert.sql; fi
      pgbench -n -M prepared -f "$f" -c "$c" -j "$(( c < 2 ? 1 : 2 ))" -T "$secs" -r "$url" > "$work/pgb.log" 2>&1 || { cat "$work/pgb.log"; exit 1; }
      python3 - "$work/pgb.log" "$r" "$n" "$t" >> "$out.csv" <<'EOF'
import re, sys
s = open(sys.argv[1]).read()
tps = float(re.search(r"tps = ([0-9.]+) \(without", s).group(1))
lat = float(re.search(r"latency average = ([0-9.]+) ms", s).group(1))
fail = re.search(r"number of failed transactions: (\d+)", s)
print(f'{sys.argv[2]},{sys.argv[3]},{sys.argv[4]},{tps:.0f},{lat:.2f},,{fail.group(1) if fail else 0},,,')
EOF
      tail -1 "$out.csv"
    done
  done
done

python3 bench/pgcurve.py "$out" "$pool"
cat "$out.md"
echo "raw: $out.csv, waits: $out.waits.csv, chart: $out.svg"
