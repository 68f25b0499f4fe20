#!/usr/bin/env bash
# How the write rate of a node on PostgreSQL scales with concurrent
# clients: 16-byte PUTs (inline objects, so every PUT is one catalog
# transaction and nothing else) at each level of clients, against
#
#   after    this tree, on a fresh PostgreSQL database
#   before   the tree at BEFORE (a git revision; skipped if not given)
#   sqlite   this tree on its embedded SQLite catalog (a ceiling: the
#            same gateway with a catalog that commits in groups)
#   mock     `ostium bench mock` (the ceiling of the generator and the
#            machine: no catalog, no signature check)
#
# in rounds, each level against each target in turn, so that every target
# sees the same machine. Writes bench/results/DATE-pgscale.{csv,md,svg}.
#
#   bench/pgscale.sh [BEFORE] [rounds] [seconds] [levels]
#   bench/pgscale.sh 621e4e3 3 8 "8 16 32 40 64"
#
# OSTIUM_BENCH_POSTGRES is a server URL whose user may create databases
# (default: the test server of the Go suite).
set -euo pipefail
cd "$(dirname "$0")/.."
before=${1:-}
rounds=${2:-3}
secs=${3:-8}
levels=${4:-8 16 32 40 64}
pg=${OSTIUM_BENCH_POSTGRES:-postgres://ostium:ostium@127.0.0.1:5432/ostium?sslmode=disable}
day=$(date -u +%Y-%m-%d)
out=bench/results/$day-pgscale
mkdir -p bench/results
work=$(mktemp -d)
pids=()
dbs=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
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
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 1 100); do (echo > "/dev/tcp/127.0.0.1/$1") 2>/dev/null && return; sleep 0.1; done; echo "nothing listens on $1" >&2; exit 1; }
declare -A endpoint
serve() { # name binary catalog-url ("" = SQLite)
  local p db
  p=$(port)
  mkdir "$work/data-$1"
  local args=(serve --listen "127.0.0.1:$p" --data "$work/data-$1")
  if [ -n "$3" ]; then args+=(--catalog "$3"); fi
  OSTIUM_CONSOLE_LISTEN=off "$2" "${args[@]}" 2> "$work/$1.log" &
  pids+=($!)
  wait_port "$p"
  endpoint[$1]=http://127.0.0.1:$p
}
fresh_pg() { # a new database; its URL in $url
  local d=ostium_bench_$1_$$
  psql -q "$pg" -c "CREATE DATABASE $d"
  dbs+=("$d")
  url=$(python3 -c 'import sys, urllib.parse as u; p=u.urlparse(sys.argv[1]); print(p._replace(path="/"+sys.argv[2]).geturl())' "$pg" "$d")
}

targets=(after)
fresh_pg after
serve after "$work/bin-after" "$url"
if [ -n "$before" ]; then
  targets+=(before)
  fresh_pg before
  serve before "$work/bin-before" "$url"
fi
targets+=(sqlite mock)
serve sqlite "$work/bin-after" ""
p=$(port)
"$work/bin-after" bench mock --listen "127.0.0.1:$p" 2> "$work/mock.log" &
pids+=($!)
wait_port "$p"
endpoint[mock]=http://127.0.0.1:$p

put() { # target clients seconds bucket-prefix
  "$work/bin-after" bench put --endpoint "${endpoint[$1]}" --access-key "$OSTIUM_ROOT_ACCESS_KEY" \
    --secret-key "$OSTIUM_ROOT_SECRET_KEY" --size 16B --concurrency "$2" --duration "$3s" \
    --keep --no-ceiling --bucket-prefix "$4" --out "$work/run-$4" > "$work/run-$4.log" 2>&1
}

# One client first: a freshly started node prepares its statements then
# (a node before the fix hung when its first writes filled the pool).
for t in "${targets[@]}"; do put "$t" 1 2 "warm-$t"; done

echo "round,clients,target,ops_per_s,p50_ms,p99_ms,errors" > "$out.csv"
read -ra lv <<< "$levels"
for r in $(seq 1 "$rounds"); do
  # Each round starts at another level, so that a slow minute of a shared
  # machine does not always fall on the same one.
  order=("${lv[@]:$(( (r - 1) % ${#lv[@]} ))}" "${lv[@]:0:$(( (r - 1) % ${#lv[@]} ))}")
  for n in "${order[@]}"; do
    for t in "${targets[@]}"; do
      put "$t" "$n" "$secs" "r$r-c$n-$t"
      python3 - "$work/run-r$r-c$n-$t/summary.json" "$r" "$n" "$t" >> "$out.csv" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
op = [o for s in d["stages"] for o in s["ops"] if o["op_type"] == "write"][-1]
p = op["percentiles_ms"]
print(f'{sys.argv[2]},{sys.argv[3]},{sys.argv[4]},{op["throughput_ops"]:.0f},{p["p50"]:.2f},{p["p99"]:.2f},{op["error_count"]}')
EOF
      tail -1 "$out.csv"
    done
  done
done

python3 - "$out" <<'EOF'
import csv, statistics, sys
from collections import defaultdict
out = sys.argv[1]
rows = list(csv.DictReader(open(out + ".csv")))
targets = list(dict.fromkeys(r["target"] for r in rows))
levels = sorted({int(r["clients"]) for r in rows})
ops, p99, errs = defaultdict(list), defaultdict(list), defaultdict(int)
for r in rows:
    k = (int(r["clients"]), r["target"])
    ops[k].append(float(r["ops_per_s"])); p99[k].append(float(r["p99_ms"])); errs[k] += int(r["errors"])
med = lambda xs: statistics.median(xs) if xs else 0
with open(out + ".md", "w") as f:
    f.write("Median of %d rounds; op/s (p99 ms); errors where any.\n\n" % max(len(v) for v in ops.values()))
    f.write("| clients | " + " | ".join(targets) + " |\n| ---: |" + " ---: |" * len(targets) + "\n")
    for n in levels:
        cells = []
        for t in targets:
            c = "%s (%.0f)" % (format(round(med(ops[(n, t)])), ","), med(p99[(n, t)]))
            if errs[(n, t)]:
                c += " %d errors" % errs[(n, t)]
            cells.append(c)
        f.write("| %d | %s |\n" % (n, " | ".join(cells)))
# The chart: op/s against clients, a line per target (mock on its own
# scale would flatten the rest, so it is left to the table).
shown = [t for t in targets if t != "mock"]
W, H, L, B = 640, 360, 70, 50
top = max(med(ops[(n, t)]) for n in levels for t in shown) * 1.15 or 1
x = lambda n: L + (W - L - 40) * (levels.index(n) / max(1, len(levels) - 1))
y = lambda v: H - B - (H - B - 20) * v / top
colors = {"after": "#1f77b4", "before": "#d62728", "sqlite": "#2ca02c"}
svg = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">' % (W, H),
       '<rect width="100%" height="100%" fill="white"/>',
       '<text x="%d" y="14">16-byte PUTs, op/s by concurrent clients (median of rounds)</text>' % L]
for i in range(5):
    v = top * i / 4
    svg.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end">%s</text>' % (L, W - 40, y(v), y(v), L - 6, y(v) + 4, format(round(v), ",")))
for n in levels:
    svg.append('<text x="%.1f" y="%d" text-anchor="middle">%d</text>' % (x(n), H - B + 18, n))
svg.append('<text x="%d" y="%d" text-anchor="middle">clients</text>' % ((W + L) // 2, H - 12))
for j, t in enumerate(shown):
    pts = " ".join("%.1f,%.1f" % (x(n), y(med(ops[(n, t)]))) for n in levels)
    c = colors.get(t, "#555")
    svg.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>' % (pts, c))
    svg.append('<text x="%d" y="%d" fill="%s">%s</text>' % (L + 10 + 90 * j, 34, c, t))
svg.append("</svg>")
open(out + ".svg", "w").write("\n".join(svg) + "\n")
EOF
cat "$out.md"
echo "raw: $out.csv, chart: $out.svg"
