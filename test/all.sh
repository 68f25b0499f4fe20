#!/usr/bin/env bash
# Runs every test: go vet, the Go suite on SQLite and again on PostgreSQL
# (when OSTIUM_TEST_POSTGRES is set), and the end-to-end client suites.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step's wall time when it ends, and all of them at the end (also
# when a step fails): CI has a time budget, and this is where it goes.
steps=() step_name= step_start=
step_done() {
  [ -n "$step_name" ] || return 0
  local s=$((SECONDS - step_start))
  printf '<== %s: %dm%02ds\n' "$step_name" $((s / 60)) $((s % 60))
  steps+=("$(printf '%4dm%02ds  %s' $((s / 60)) $((s % 60)) "$step_name")")
  step_name=
}
step() { step_done; step_name=$* step_start=$SECONDS; printf '\n==> %s\n' "$*"; }
step_times() {
  local rc=$?
  # A run cut short does not leave the cluster pass running.
  [ -z "${cluster:-}" ] || kill "$cluster" 2>/dev/null || true
  [ $rc = 0 ] || [ -z "$step_name" ] || step_name+=" (failed: exit $rc)"
  step_done
  printf '\n==> step times (test/all.sh, %dm%02ds in all)\n' $((SECONDS / 60)) $((SECONDS % 60))
  printf '%s\n' "${steps[@]}"
}
trap step_times EXIT

step "go vet"
go vet ./...

# Four test binaries at a time, not one per core: most of a package's
# time is spent waiting (on PostgreSQL, timers, leases, child processes,
# Chromium), so two at a time left a 2-core machine half idle (the SQLite
# pass: about 480 s of CPU, compiling included, over some 850 s of
# package time).
gotest_p=4

step "go test (catalog: SQLite)"
go test -p "$gotest_p" -count=1 -timeout 20m ./...

if [ -n "${OSTIUM_TEST_POSTGRES:-}" ]; then
  # Again, the packages whose tests take their catalog from
  # OSTIUM_TEST_CATALOG: those that start nodes (internal/node/nodetest)
  # or call testenv.CatalogURL. The others (pure logic, the blob drivers,
  # the SQLite driver, and the PostgreSQL driver's conformance suite,
  # which the pass above ran on PostgreSQL already) would repeat it.
  step "go test (catalog: PostgreSQL)"
  mod=$(go list -m)
  pg=$( {
    go list -test -f '{{.ImportPath}}|{{join .Deps " "}}' ./... |
      awk -F'|' -v n="$mod/internal/node/nodetest" '$1 ~ /\.test$/ && (" " $2 " ") ~ (" " n " ") { sub(/\.test$/, "", $1); print $1 }'
    go list -f '{{.ImportPath}} {{.Dir}}' ./... | while read -r pkg dir; do
      if grep -qs -e 'CatalogURL' -e 'OSTIUM_TEST_CATALOG' "$dir"/*_test.go; then echo "$pkg"; fi
    done
  } | sort -u)
  # The Kafka tests test the broker's side of delivery, which the
  # catalog does not change: the SQLite pass runs them.
  OSTIUM_TEST_CATALOG=postgres go test -p "$gotest_p" -count=1 -timeout 20m -skip 'Kafka' $pg
else
  echo "OSTIUM_TEST_POSTGRES is not set: skipping the PostgreSQL run (.ci/run sets it up)"
fi

step "fuzz targets (${FUZZTIME:-10s} each)"
test/fuzz.sh

# The cluster pass runs beside the single-node one, its output kept until
# that one ends: each mostly keeps one core busy (a client and a server
# taking turns), so together they use a 2-core machine rather than
# taking turns. Neither shares a port, directory or bucket with the other.
cluster= cluster_log=
if [ -n "${OSTIUM_TEST_POSTGRES:-}" ]; then
  # Clients through HAProxy to three nodes sharing PostgreSQL and an S3
  # platform (test/e2e/cluster.py): the tests marked multinode, those that
  # several nodes can break (state one node changes and another decides
  # by: credentials, policies, bucket configurations, quotas; listings
  # right after writes through other nodes; multipart uploads spread over
  # them). The rest run against one node only; the Go suite's PostgreSQL
  # pass runs the S3 protocol's tests on the shared catalog.
  cluster_log=$(mktemp)
  OSTIUM_E2E_CLUSTER=1 python3 -m pytest -q test/e2e -m multinode >"$cluster_log" 2>&1 &
  cluster=$!
fi

step "end-to-end: boto3, aws cli, rclone, s3cmd, SDKs against one node"
single=0
python3 -m pytest -q test/e2e || single=$?

if [ -n "$cluster" ]; then
  step "end-to-end through a cluster: 3 nodes, PostgreSQL, S3 platform, HAProxy (begun with the single-node pass)"
  through=0
  wait "$cluster" || through=$?
  cluster=
  cat "$cluster_log"
  rm -f "$cluster_log"
  [ "$through" = 0 ] || { echo "end-to-end through the cluster: failed (exit $through)"; exit "$through"; }
fi
[ "$single" = 0 ] || { echo "end-to-end against one node: failed (exit $single)"; exit "$single"; }

# The .deb installed, served from and purged (root only: it skips
# without); the .rpm's contents where rpm is installed.
step "package: build, install, serve, remove, purge"
test/package/smoke.sh
