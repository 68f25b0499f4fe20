#!/usr/bin/env bash
# A/B cost of a change on 4 KiB GETs: builds the server at BASE (a git
# revision, default main) and at the work tree, then runs `ostium bench
# get` against each in turn (base, head, head, base, ...), ROUNDS times,
# with one client binary (the work tree's) and a fresh data directory per
# run. Besides throughput it reports the server's CPU time per GET (from
# /proc; its set-up PUTs included, the same on both sides). Other load on
# a shared machine moves both: compare medians of several rounds.
#
#   bench/ab-get.sh [BASE [ROUNDS [DURATION]]]
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-main}
rounds=${2:-3}
duration=${3:-15s}
tmp=$(mktemp -d)
trap 'kill $server 2>/dev/null || true; rm -rf "$tmp"' EXIT
server=
mkdir -p "$tmp/base-src"
git archive "$base" | tar -x -C "$tmp/base-src"
(cd "$tmp/base-src" && go build -o "$tmp/base" ./cmd/ostium)
go build -o "$tmp/head" ./cmd/ostium
export OSTIUM_ROOT_ACCESS_KEY=bench-access-key OSTIUM_ROOT_SECRET_KEY=bench-secret-key-0123456789
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
for i in $(seq 1 "$rounds"); do
  order="base head"
  [ $((i % 2)) = 0 ] && order="head base" # drift in the machine's load falls on both
  for side in $order; do
    data="$tmp/data-$side-$i"
    # No console (a build from before its own listener ignores this).
    OSTIUM_CONSOLE_LISTEN=off "$tmp/$side" serve --listen "127.0.0.1:$port" --data "$data" 2> "$tmp/$side-$i.log" &
    server=$!
    for _ in $(seq 1 100); do (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
    "$tmp/head" bench get --endpoint "http://127.0.0.1:$port" --access-key "$OSTIUM_ROOT_ACCESS_KEY" \
      --secret-key "$OSTIUM_ROOT_SECRET_KEY" --size 4KiB --objects 1000 --concurrency 16 \
      --duration "$duration" --out "$tmp/out-$side-$i" > "$tmp/bench-$side-$i.txt" 2>&1
    ticks=$(awk '{print $14 + $15}' "/proc/$server/stat")
    kill "$server"; wait "$server" 2>/dev/null || true
    python3 - "$tmp/out-$side-$i/summary.json" "$side" "$i" "$ticks" "$(getconf CLK_TCK)" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
cpu = int(sys.argv[4]) / int(sys.argv[5])
ceiling = s.get("generator_ceiling", {}).get("throughput_ops", 0)
for st in s["stages"]:
    for op in st["ops"]:
        if op["op_type"] in ("read", "get", "GET") or st["name"] in ("main", "get"):
            p = op.get("percentiles_ms", {})
            print(f'{sys.argv[2]:4} round {sys.argv[3]}: {op["throughput_ops"]:,.0f} GET/s, '
                  f'p50 {p.get("p50", 0):.2f} ms, p99 {p.get("p99", 0):.2f} ms, errors {op["error_count"]}, '
                  f'server CPU {cpu / op["op_count"] * 1e6:.1f} us/GET; ceiling {ceiling:,.0f} ops/s')
PY
  done
done
