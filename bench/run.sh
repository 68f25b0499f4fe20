#!/usr/bin/env bash
# Benchmarks, recorded under bench/results/.
#
#   bench/run.sh [gateway [count] [benchtime]]
#       the gateway benchmarks (bench/*_test.go), each against a ceiling
#       measured in the same run: raw output, a table and a chart
#   bench/run.sh sse [count] [benchtime]
#       the cost of encryption at rest (bench/sse_test.go): plain, SSE-S3
#       and SSE-C on one node in one run, each kind as a ratio of plain
#   bench/run.sh transition [count] [benchtime]
#       lifecycle transitions between two local-disk platforms
#       (bench/transition_test.go): objects a second the worker moves,
#       next to the same blobs copied by the blob store itself
#   bench/run.sh workloads [FILE ...]
#       workload files (default bench/workloads/*.xml) with `ostium bench run`
#       against an `ostium serve` this script starts on a fresh data dir
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-gateway}
[ $# -gt 0 ] && shift
day=$(date -u +%Y-%m-%d)
mkdir -p bench/results

case "$mode" in
gateway)
  count=${1:-3}
  benchtime=${2:-5s}
  out=bench/results/$day
  echo "==> go test -bench (count=$count, benchtime=$benchtime): progress below, raw output in $out.txt"
  go test -run '^$' -bench . -benchtime "$benchtime" -count "$count" -timeout 60m ./bench | tee "$out.txt"
  go run ./bench/chart -svg "$out.svg" < "$out.txt" > "$out.md"
  cat "$out.md"
  echo "chart: $out.svg"
  ;;
sse)
  count=${1:-1} # each benchmark already measures every kind 3 times, interleaved
  benchtime=${2:-2s}
  out=bench/results/$day-sse
  echo "==> go test -bench SSE (count=$count, benchtime=$benchtime): raw output in $out.txt"
  go test -run '^$' -bench '^BenchmarkSSE' -benchtime "$benchtime" -count "$count" -timeout 60m ./bench | tee "$out.txt"
  go run ./bench/chart -base plain -svg "$out.svg" < "$out.txt" > "$out.md"
  cat "$out.md"
  echo "chart: $out.svg"
  ;;
transition)
  count=${1:-1} # each benchmark already measures both targets 3 times, interleaved
  benchtime=${2:-200x}
  out=bench/results/$day-transition
  echo "==> go test -bench Transition (count=$count, benchtime=$benchtime): raw output in $out.txt"
  go test -run '^$' -bench '^BenchmarkTransition' -benchtime "$benchtime" -count "$count" -timeout 60m ./bench | tee "$out.txt"
  go run ./bench/chart -title "Objects moved a second by the lifecycle worker, as a fraction of the blob store copying them (one at a time)" -svg "$out.svg" < "$out.txt" > "$out.md"
  cat "$out.md"
  echo "chart: $out.svg"
  ;;
workloads)
  files=("$@")
  [ ${#files[@]} -gt 0 ] || files=(bench/workloads/*.xml)
  bin=$(mktemp -d)/ostium
  go build -o "$bin" ./cmd/ostium
  data=$(mktemp -d)
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  export OSTIUM_ROOT_ACCESS_KEY=bench-access-key OSTIUM_ROOT_SECRET_KEY=bench-secret-key-0123456789
  OSTIUM_CONSOLE_LISTEN=off "$bin" serve --listen "127.0.0.1:$port" --data "$data" 2> "$data.log" &
  server=$!
  trap 'kill $server 2>/dev/null; rm -rf "$data"' EXIT
  for i in $(seq 1 50); do (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
  for f in "${files[@]}"; do
    name=$(basename "$f" .xml)
    echo "==> $f"
    "$bin" bench run --endpoint "http://127.0.0.1:$port" --access-key "$OSTIUM_ROOT_ACCESS_KEY" \
      --secret-key "$OSTIUM_ROOT_SECRET_KEY" --out "bench/results/$day-$name" "$f"
  done
  ;;
*)
  echo "usage: bench/run.sh [gateway [count] [benchtime]] | sse [count] [benchtime] | workloads [FILE ...]" >&2
  exit 2
  ;;
esac
