#!/usr/bin/env bash
# The web console's speed figures, each next to a ceiling taken
# in the same run:
#
#   folder page   the console API's list call for a page of a
#                 1,000,000-object bucket (SQLite catalog, filled through
#                 its driver), p50/p99 over 200 calls, against S3's
#                 ListObjectsV2 of the same page; target: p99 < 300 ms
#   1 GiB upload  the console's multipart upload, driven in Chromium by
#                 chromedp from a file input, against `aws s3 cp` of the
#                 same file to the same node; target: ratio >= 0.8
#
#   bench/console.sh [page|upload|all] [rounds]
#
# Needs /usr/bin/chromium, the aws cli and about 2 GiB free in $TMPDIR.
# Progress goes to the terminal; the tables to bench/results/DATE-console.md.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
rounds=${2:-3}
day=$(date -u +%Y-%m-%d)
out=bench/results/$day-console.md
mkdir -p bench/results
case "$what" in
page) run='^TestConsoleFolderPage$' ;;
upload) run='^TestConsoleUpload$' ;;
all) run='^TestConsole(FolderPage|Upload)$' ;;
*) echo "usage: bench/console.sh [page|upload|all] [rounds]" >&2; exit 2 ;;
esac
echo "==> console benchmarks ($what, $rounds upload rounds): tables in $out"
OSTIUM_BENCH_CONSOLE=1 OSTIUM_BENCH_ROUNDS=$rounds go test -v -count=1 -timeout 60m -run "$run" ./bench 2>&1 |
  grep -v ' INFO \| WARN ' | tee "$out.raw"
grep '^|\|^[a-z0-9].*:$' "$out.raw" > "$out" || true
rm -f "$out.raw"
cat "$out"
