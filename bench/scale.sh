#!/usr/bin/env bash
# How a node's rates hold up as its catalog grows: 4 KiB PUT, GET, HEAD
# and DELETE, and 1,000-key ListObjectsV2 pages, against a catalog of
# SMALL objects and one of BIG objects, both SQLite and PostgreSQL. Four
# nodes run at once with the same settings (small and big on each
# catalog), filled by bench/fill (rows written in bulk through the
# catalog, then sampled back over S3), and each operation runs against
# small then big in turn, in rounds, so that both sizes see the same
# machine. Server-side latency comes from each node's request log.
# Writes bench/results/DATE-10m-objects[-TAG].{csv,rates.md,svg,sizes.txt,sizes.md,explain.txt}
# and DATE-10m-objects[-TAG]-sizes.svg.
#
#   bench/scale.sh [BIG] [SMALL] [rounds] [seconds]
#   bench/scale.sh 10000000 100000 3 12
#   OSTIUM_SCALE_CATALOGS=pg OSTIUM_SCALE_TAG=3 bench/scale.sh   # PostgreSQL only, a second run of the day
#
# On 2 busy cores the fills take 20 to 40 minutes and each round about
# 15, with 10 GB of disk under OSTIUM_BENCH_WORK (default a directory in
# /tmp): never in CI.
# OSTIUM_BENCH_POSTGRES is a server URL whose user may create databases.
set -euo pipefail
cd "$(dirname "$0")/.."
big=${1:-10000000}
small=${2:-100000}
rounds=${3:-2}
secs=${4:-15}
pg=${OSTIUM_BENCH_POSTGRES:-postgres://ostium:ostium@127.0.0.1:5432/ostium?sslmode=disable}
day=$(date -u +%Y-%m-%d)
out=bench/results/$day-10m-objects${OSTIUM_SCALE_TAG:+-$OSTIUM_SCALE_TAG}
read -ra catalogs <<< "${OSTIUM_SCALE_CATALOGS:-sqlite pg}"
has() { [[ " ${catalogs[*]} " == *" $1 "* ]]; }
mkdir -p bench/results
work=$(mktemp -d "${OSTIUM_BENCH_WORK:-/tmp}/scale.XXXXXX")
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
go build -o "$work/ostium" ./cmd/ostium
go build -o "$work/fill" ./bench/fill

export OSTIUM_ROOT_ACCESS_KEY=bench-access-key OSTIUM_ROOT_SECRET_KEY=bench-secret-key-0123456789
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 1 100); do (echo > "/dev/tcp/127.0.0.1/$1") 2>/dev/null && return; sleep 0.1; done; echo "nothing listens on $1" >&2; exit 1; }
declare -A endpoint catalog
serve() { # name catalog-url ("" = SQLite in its data directory)
  local p
  p=$(port)
  mkdir "$work/data-$1"
  local args=(serve --listen "127.0.0.1:$p" --data "$work/data-$1" --log-format json --log-requests info)
  catalog[$1]=$work/data-$1/catalog.db
  if [ -n "$2" ]; then args+=(--catalog "$2"); catalog[$1]=$2; fi
  OSTIUM_CONSOLE_LISTEN=off "$work/ostium" "${args[@]}" 2> "$work/$1.log" &
  pids+=($!)
  wait_port "$p"
  endpoint[$1]=http://127.0.0.1:$p
}
fresh_pg() { # a new database; its URL in $url
  local d=ostium_scale_$1_$$
  psql -q "$pg" -c "CREATE DATABASE $d"
  dbs+=("$d")
  url=$(python3 -c 'import sys, urllib.parse as u; p=u.urlparse(sys.argv[1]); print(p._replace(path="/"+sys.argv[2]).geturl())' "$pg" "$d")
}

if has sqlite; then serve sqlite-small ""; serve sqlite-big ""; fi
if has pg; then
  fresh_pg small; serve pg-small "$url"
  fresh_pg big; serve pg-big "$url"
fi

echo "==> fill (the two catalogs side by side)"
fill() { # node objects
  "$work/fill" -endpoint "${endpoint[$1]}" -catalog "${catalog[$1]}" -objects "$2" -buckets 4 2>&1 | sed "s/^/$1: /"
}
fills=()
for c in "${catalogs[@]}"; do fill "$c-small" "$small"; done
for c in "${catalogs[@]}"; do fill "$c-big" "$big" & fills+=($!); done
for p in "${fills[@]}"; do wait "$p"; done
df -h "$work" | tail -1

bench() { # node op round
  local n=$1 op=$2 r=$3 extra=() objects=10000 prefix="b$3-$2" conc=16
  case $op in
    put) extra=(--keep) ;; # its objects stay: each round puts new keys
    delete) objects=20000 ;;
    # Pages of fill-0 as filled, one client: the time of a page, not of
    # a queue of them.
    list) objects=1000 prefix=fill extra=(--buckets 1 --keep) conc=1 ;;
  esac
  local before
  before=$(wc -l < "$work/$n.log")
  "$work/ostium" bench "$op" --endpoint "${endpoint[$n]}" --size 4KiB --concurrency "$conc" --duration "${secs}s" \
    --objects "$objects" --bucket-prefix "$prefix" --no-ceiling --out "$work/run-$n-$op-$r" "${extra[@]}" > "$work/run-$n-$op-$r.log" 2>&1
  python3 - "$work/run-$n-$op-$r/summary.json" "$work/$n.log" "$before" "$n" "$op" "$r" >> "$out.csv" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
kind = {"put": "write", "get": "read", "stat": "stat", "delete": "delete", "list": "list"}[sys.argv[5]]
o = [o for s in d["stages"] if s["name"] == "main" for o in s["ops"] if o["op_type"] == kind][-1]
p = o["percentiles_ms"]
name = {"put": "PutObject", "get": "GetObject", "stat": "HeadObject", "delete": "DeleteObject", "list": "ListObjectsV2"}[sys.argv[5]]
durs = []
for i, line in enumerate(open(sys.argv[2])):
    if i < int(sys.argv[3]) or '"op":"' + name + '"' not in line:
        continue
    durs.append(json.loads(line)["dur"] / 1e6)
durs.sort()
q = lambda f: durs[min(len(durs) - 1, int(f * len(durs)))] if durs else 0
node, op, r = sys.argv[4:7]
print(f'{r},{node.split("-")[0]},{node.split("-")[1]},{op},{o["throughput_ops"]:.0f},{p["p50"]:.2f},{p["p99"]:.2f},{q(0.5):.2f},{q(0.99):.2f},{o["error_count"]}')
EOF
  tail -1 "$out.csv"
}

echo "round,catalog,size,op,ops_per_s,client_p50_ms,client_p99_ms,server_p50_ms,server_p99_ms,errors" > "$out.csv"
for r in $(seq 1 "$rounds"); do
  for c in "${catalogs[@]}"; do
    for op in put get stat delete list; do
      # Each round takes the sizes in the other order.
      if [ $((r % 2)) = 1 ]; then order=(small big); else order=(big small); fi
      for s in "${order[@]}"; do bench "$c-$s" "$op" "$r"; done
    done
  done
done

echo "==> sizes and plans"
{
  for s in small big; do
    if has sqlite; then
      echo "## SQLite, $s: bytes by table and index (dbstat)"
      sqlite3 "${catalog[sqlite-$s]}" "SELECT name, SUM(pgsize) FROM dbstat WHERE name LIKE 'object%' OR name LIKE 'sqlite_autoindex_objects%' GROUP BY name ORDER BY 2 DESC"
      echo "file: $(stat -c %s "${catalog[sqlite-$s]}") bytes"
    fi
    if has pg; then
      echo "## PostgreSQL, $s: bytes by table and index"
      psql -At "${catalog[pg-$s]}" -c "SELECT c.relname, pg_relation_size(c.oid) FROM pg_class c WHERE c.relname LIKE 'object%' AND c.relkind IN ('r','i') ORDER BY 2 DESC"
      psql -At "${catalog[pg-$s]}" -c "SELECT 'objects table+indexes+toast', pg_total_relation_size('objects'), 'indexes', pg_indexes_size('objects'), 'database', pg_database_size(current_database())"
    fi
  done
  # What the index migration 0047 dropped cost, built again to weigh it.
  echo "## objects_seq (bucket, key, seq), dropped by migration 0047, built again on the big catalogs"
  if has sqlite; then
    sqlite3 "${catalog[sqlite-big]}" "CREATE INDEX weigh_seq ON objects (bucket, key, seq)" \
      "SELECT 'SQLite', SUM(pgsize) FROM dbstat WHERE name = 'weigh_seq'" "DROP INDEX weigh_seq"
  fi
  if has pg; then
    psql -At "${catalog[pg-big]}" -c "CREATE INDEX weigh_seq ON objects (bucket, key, seq)" \
      -c "SELECT 'PostgreSQL', pg_relation_size('weigh_seq')" -c "DROP INDEX weigh_seq"
  fi
} > "$out.sizes.txt"
cat "$out.sizes.txt"
# The hot queries of the big catalogs as each engine runs them (:b and :k
# stand for a bucket and a key of the fill).
{
  for q in \
    "SELECT key, size, parts, inline FROM objects WHERE bucket = :b AND key = :k AND latest = 1" \
    "SELECT key, version_id, size FROM objects WHERE bucket = :b AND latest = 1 AND delete_marker = 0 AND key > :k ORDER BY key LIMIT 1001" \
    "SELECT COALESCE(MAX(seq), 0) + 1 FROM objects WHERE bucket = :b AND key = :k AND latest = 1" \
    "UPDATE objects SET latest = 0 WHERE bucket = :b AND key = :k AND latest = 1" \
    "SELECT key, version_id, size FROM objects WHERE bucket = :b AND key > :k ORDER BY key, seq DESC, version_id DESC LIMIT 1001"; do
    echo "## $q"
    if has sqlite; then
      echo "-- SQLite"
      sqlite3 "${catalog[sqlite-big]}" "EXPLAIN QUERY PLAN $(sed "s/:b/CAST('fill-1' AS BLOB)/; s/:k/CAST('obj-01234567' AS BLOB)/" <<< "$q")" || true
    fi
    if has pg; then
      echo "-- PostgreSQL"
      psql -At "${catalog[pg-big]}" -c "BEGIN" -c "EXPLAIN (ANALYZE, BUFFERS) $(sed "s/:b/'fill-1'::bytea/; s/:k/'obj-01234567'::bytea/" <<< "$q")" -c "ROLLBACK" || true
    fi
  done
} > "$out.explain.txt" 2>&1

python3 - "$out" "${catalogs[*]}" <<'EOF'
import csv, statistics, sys
from collections import defaultdict
out = sys.argv[1]
rows = list(csv.DictReader(open(out + ".csv")))
ops = ["put", "get", "stat", "delete", "list"]
label = {"put": "PUT 4 KiB", "get": "GET 4 KiB", "stat": "HEAD", "delete": "DELETE", "list": "LIST 1,000 keys"}
rate, sp50, sp99 = defaultdict(list), defaultdict(list), defaultdict(list)
for r in rows:
    k = (r["catalog"], r["op"], r["size"])
    rate[k].append(float(r["ops_per_s"])); sp50[k].append(float(r["server_p50_ms"])); sp99[k].append(float(r["server_p99_ms"]))
med = lambda xs: statistics.median(xs) if xs else 0
names = {"sqlite": "SQLite", "pg": "PostgreSQL"}
cats = sys.argv[2].split()
with open(out + ".rates.md", "w") as f:
    f.write("| catalog | operation | small op/s | big op/s | big/small | server p50 small / big ms | server p99 small / big ms |\n")
    f.write("| --- | --- | ---: | ---: | ---: | ---: | ---: |\n")
    for c in cats:
        for o in ops:
            s, b = med(rate[(c, o, "small")]), med(rate[(c, o, "big")])
            f.write("| %s | %s | %s | %s | %.2f | %.1f / %.1f | %.1f / %.1f |\n" % (names[c], label[o], format(round(s), ","), format(round(b), ","),
                    b / s if s else 0, med(sp50[(c, o, "small")]), med(sp50[(c, o, "big")]), med(sp99[(c, o, "small")]), med(sp99[(c, o, "big")])))
# The chart: for each catalog and operation, the big catalog's rate as a
# share of the small one's, with the goal (0.9) marked.
W, H, L, B, T = 720, 380, 60, 90, 40
groups = [(c, o) for c in cats for o in ops]
bw = (W - L - 20) / len(groups)
ratios = [med(rate[(c, o, "big")]) / med(rate[(c, o, "small")]) if med(rate[(c, o, "small")]) else 0 for c, o in groups]
top = max([1.2] + [r * 1.1 for r in ratios])
y = lambda v: H - B - (H - B - T) * v / top
svg = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">' % (W, H),
       '<rect width="100%" height="100%" fill="white"/>',
       '<text x="%d" y="20">Rate with the big catalog as a share of the small one (median of rounds; goal 0.9)</text>' % L]
for v in [i / 5 for i in range(int(top * 5) + 1)]:
    svg.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end">%.1f</text>' % (L, W - 20, y(v), y(v), L - 6, y(v) + 4, v))
svg.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#d62728" stroke-dasharray="6,4"/>' % (L, W - 20, y(0.9), y(0.9)))
for i, (c, o) in enumerate(groups):
    s, b = med(rate[(c, o, "small")]), med(rate[(c, o, "big")])
    ratio = b / s if s else 0
    x = L + i * bw + 6
    color = "#1f77b4" if c == "sqlite" else "#2ca02c"
    svg.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>' % (x, y(ratio), bw - 12, y(0) - y(ratio), color))
    svg.append('<text x="%.1f" y="%.1f" text-anchor="middle">%.2f</text>' % (x + (bw - 12) / 2, y(ratio) - 4, ratio))
    svg.append('<text x="%.1f" y="%.1f" text-anchor="end" transform="rotate(-40 %.1f %.1f)">%s</text>' % (x + bw / 2, y(0) + 14, x + bw / 2, y(0) + 14, label[o]))
for j, c in enumerate(cats):
    svg.append('<text x="%.1f" y="%d" text-anchor="middle" font-weight="bold">%s</text>' % (L + (j * 5 + 2.5) * bw, H - 8, names[c]))
svg.append("</svg>")
open(out + ".svg", "w").write("\n".join(svg) + "\n")
EOF
# What each relation costs an object of the big catalogs, and a chart.
python3 - "$out" "$big" <<'EOF'
import re, sys
out, objects = sys.argv[1], float(sys.argv[2])
# sizes.txt: sections "## <engine>, <size>: ..." then "name|bytes" lines.
sec, sizes, weighed = None, {}, {}
for line in open(out + ".sizes.txt"):
    line = line.rstrip("\n")
    m = re.match(r"## (SQLite|PostgreSQL), (small|big):", line)
    if m:
        sec = (m.group(1), m.group(2)); continue
    if line.startswith("## objects_seq"):
        sec = "weighed"; continue
    parts = line.split("|")
    if len(parts) != 2 or not parts[1].isdigit():
        continue
    if sec == "weighed":
        weighed[parts[0]] = int(parts[1])
    elif sec:
        sizes.setdefault(sec, {})[parts[0]] = int(parts[1])
rels = [("objects", "objects table"), ("pkey", "primary key (bucket, key, version_id)"), ("objects_latest", "objects_latest"),
        ("weighed", "objects_seq (dropped)")]
def per(engine, rel):
    d = sizes.get((engine, "big"), {})
    if rel == "pkey":
        v = d.get("objects_pkey", d.get("sqlite_autoindex_objects_1", 0))
    elif rel == "weighed":
        v = weighed.get(engine, 0)
    else:
        v = d.get(rel, 0)
    return v / objects
engines = [e for e in ["SQLite", "PostgreSQL"] if (e, "big") in sizes]
row = lambda name, vals: "| %s | %s |\n" % (name, " | ".join("%.0f" % v for v in vals))
with open(out + ".sizes.md", "w") as f:
    f.write("| relation | %s |\n| --- |%s\n" % (" | ".join(e + " B/object" for e in engines), " ---: |" * len(engines)))
    for rel, name in rels:
        f.write(row(name, [per(e, rel) for e in engines]))
    f.write(row("all kept", [sum(per(e, r) for r, _ in rels if r != "weighed") for e in engines]))
    f.write(row("with objects_seq as well", [sum(per(e, r) for r, _ in rels) for e in engines]))
W, H, L, T = 720, 330, 250, 40
top = max(per(e, r) for e in engines for r, _ in rels) * 1.15
bh = (H - T - 40) / len(rels)
x = lambda v: L + (W - L - 60) * v / top
svg = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">' % (W, H),
       '<rect width="100%" height="100%" fill="white"/>',
       '<text x="10" y="20">Bytes per object of the objects table and each index, %s objects (B)</text>' % format(int(objects), ",")]
colors = {"SQLite": "#1f77b4", "PostgreSQL": "#2ca02c"}
for i, (rel, name) in enumerate(rels):
    y0 = T + i * bh
    svg.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>' % (L - 8, y0 + bh / 2 + 4, name))
    for j, e in enumerate(engines):
        v = per(e, rel)
        h = (bh - 8) / len(engines)
        y = y0 + 4 + j * h
        fill = colors[e] if rel != "weighed" else "#bbb"
        svg.append('<rect x="%d" y="%.1f" width="%.1f" height="%.1f" fill="%s" stroke="%s"/>' % (L, y, x(v) - L, h - 2, fill, colors[e]))
        svg.append('<text x="%.1f" y="%.1f">%.0f</text>' % (x(v) + 4, y + h / 2 + 3, v))
for j, e in enumerate(engines):
    svg.append('<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d">%s</text>' % (L + 140 * j, H - 22, colors[e], L + 140 * j + 16, H - 12, e))
svg.append('<rect x="%d" y="%d" width="12" height="12" fill="#bbb"/><text x="%d" y="%d">dropped by 0047</text>' % (L + 280, H - 22, L + 296, H - 12))
svg.append("</svg>")
open(out + "-sizes.svg", "w").write("\n".join(svg) + "\n")
EOF
cat "$out.sizes.md"
cat "$out.rates.md"
echo "raw: $out.csv, table: $out.rates.md, sizes: $out.sizes.{txt,md}, plans: $out.explain.txt, charts: $out.svg $out-sizes.svg"
