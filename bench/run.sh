#!/usr/bin/env bash
# Runs the gateway benchmarks (each against a ceiling measured in the same
# run) and records the raw output, a table and a chart under bench/results/.
#   bench/run.sh [count] [benchtime]
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-3}
benchtime=${2:-5s}
out=bench/results/$(date -u +%Y-%m-%d)
mkdir -p bench/results
echo "==> go test -bench (count=$count, benchtime=$benchtime): progress below, raw output in $out.txt"
go test -run '^$' -bench . -benchtime "$benchtime" -count "$count" -timeout 60m ./bench | tee "$out.txt"
go run ./bench/chart -svg "$out.svg" < "$out.txt" > "$out.md"
cat "$out.md"
echo "chart: $out.svg"
