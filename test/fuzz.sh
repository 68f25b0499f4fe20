#!/usr/bin/env bash
# Runs every Go fuzz target in the tree for a bounded time each
# (FUZZTIME, default 10s), after its committed seed corpus has passed as
# part of the ordinary test run. A crasher fails the run and is left in
# the package's testdata/fuzz for committing.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-10s}
grep -rl --include='*_test.go' '^func Fuzz' . | sort | while read -r f; do
  pkg=./$(dirname "${f#./}")
  grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed 's/^func //' | while read -r target; do
    printf '  fuzz %s %s (%s)\n' "$pkg" "$target" "$fuzztime"
    timeout 600 go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" -fuzzminimizetime=5s "$pkg" >/tmp/ostium-fuzz.log 2>&1 || {
      cat /tmp/ostium-fuzz.log; exit 1; }
  done
done
