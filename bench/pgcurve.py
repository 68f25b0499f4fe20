"""Summarises a bench/pgcurve.sh run: OUT.csv and OUT.waits.csv into
OUT.md (a table of medians over the rounds, with ratios to the same run's
PostgreSQL ceiling, and what the node's sessions waited on) and OUT.svg
(op/s and p99 against clients).

    python3 bench/pgcurve.py bench/results/DATE-pgcurve POOL
"""
import csv
import statistics
import sys
from collections import defaultdict

out, pool = sys.argv[1], int(sys.argv[2])
rows = list(csv.DictReader(open(out + ".csv")))
targets = list(dict.fromkeys(r["target"] for r in rows))
nodes = [t for t in targets if not t.startswith("pg-")]
levels = sorted({int(r["clients"]) for r in rows})
med = lambda xs: statistics.median(xs) if xs else 0
fig = defaultdict(lambda: defaultdict(list))  # (clients, target) -> column -> values
for r in rows:
    k = (int(r["clients"]), r["target"])
    for col in ("ops_per_s", "p50_ms", "p99_ms", "errors", "node_cpu_us_per_op", "pg_cpu_us_per_op", "machine_busy"):
        if r.get(col):
            fig[k][col].append(float(r[col]))
m = lambda n, t, col: med(fig[(n, t)][col])
rounds = max(len(v["ops_per_s"]) for v in fig.values())

# What a node's sessions were doing, as shares of the samples.
classes = [
    ("running", lambda s, w: s == "active" and w == "CPU"),
    ("WAL flush", lambda s, w: w in ("LWLock:WALWrite", "IO:WALSync", "IO:WALWrite", "LWLock:WALInsert")),
    ("lock wait", lambda s, w: w.startswith("Lock:")),
    ("other wait", lambda s, w: s == "active" and w not in ("CPU",) and not w.startswith("Client:")),
    ("waiting for the node in a transaction", lambda s, w: s.startswith("idle in transaction")),
    ("idle in the pool", lambda s, w: s == "idle"),
]
waits = defaultdict(lambda: defaultdict(float))  # (clients, target) -> class -> samples
for r in csv.DictReader(open(out + ".waits.csv")):
    k = (int(r["clients"]), r["target"])
    for name, f in classes:
        if f(r["state"], r["wait"]):
            waits[k][name] += float(r["samples"])
            break
    else:
        waits[k]["other"] += float(r["samples"])

ceiling = "pg-put" if "pg-put" in targets else None
with open(out + ".md", "w") as f:
    f.write("Median of %d rounds; 16-byte PUTs, op/s (p99 ms); a node's pool: %d connections.\n\n" % (rounds, pool))
    head = ["clients"] + targets + ["%s / %s" % (t, ceiling) for t in nodes if ceiling]
    f.write("| " + " | ".join(head) + " |\n|" + " ---: |" * len(head) + "\n")
    for n in levels:
        cells = []
        for t in targets:
            c = format(round(m(n, t, "ops_per_s")), ",")
            if fig[(n, t)]["p99_ms"]:
                c += " (%.0f)" % m(n, t, "p99_ms")
            e = sum(fig[(n, t)]["errors"])
            if e:
                c += " %d errors" % e
            cells.append(c)
        if ceiling:
            cells += ["%.2f" % (m(n, t, "ops_per_s") / max(1, m(n, ceiling, "ops_per_s"))) for t in nodes]
        f.write("| %d | %s |\n" % (n, " | ".join(cells)))
    f.write("\nCPU per PUT (µs: the node's process; its PostgreSQL sessions) and the machine's busy share:\n\n")
    f.write("| clients | " + " | ".join(nodes) + " |\n|" + " ---: |" * (len(nodes) + 1) + "\n")
    for n in levels:
        f.write("| %d | %s |\n" % (n, " | ".join("%.0f; %.0f; %.0f%%" % (m(n, t, "node_cpu_us_per_op"), m(n, t, "pg_cpu_us_per_op"), 100 * m(n, t, "machine_busy")) for t in nodes)))
    names = [c for c, _ in classes] + ["other"]
    for t in nodes:
        f.write("\n`%s`: what its PostgreSQL sessions were doing, %% of samples (every 50 ms, all rounds):\n\n" % t)
        f.write("| clients | " + " | ".join(names) + " |\n|" + " ---: |" * (len(names) + 1) + "\n")
        for n in levels:
            tot = sum(waits[(n, t)].values()) or 1
            f.write("| %d | %s |\n" % (n, " | ".join("%.0f" % (100 * waits[(n, t)][c] / tot) for c in names)))

# The chart: op/s (left) and p99 (right) against clients.
colors = {"after": "#1f77b4", "before": "#d62728", "pg-put": "#2ca02c", "pg-insert": "#999999"}
W, H, L, B, T, gap = 980, 400, 70, 55, 50, 70
pw = (W - 2 * L - gap) // 2
svg = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">' % (W, H),
       '<rect width="100%" height="100%" fill="white"/>',
       '<text x="%d" y="18" font-size="14">16-byte PUTs to a node on PostgreSQL against concurrent clients (pool %d; median of %d rounds)</text>' % (L, pool, rounds)]


def nice(v):
    for e in range(0, 7):
        for s in (1, 2, 2.5, 5):
            if s * 10 ** e * 4 >= v:
                return s * 10 ** e
    return v / 4


def panel(x0, col, label, shown):
    top = max(m(n, t, col) for n in levels for t in shown) or 1
    step = nice(top)
    top = step * 4 if step * 4 >= top else step * 5
    x = lambda n: x0 + pw * (levels.index(n) / max(1, len(levels) - 1))
    y = lambda v: H - B - (H - B - T) * v / top
    svg.append('<text x="%d" y="%d" font-weight="bold">%s</text>' % (x0, T - 12, label))
    v = 0
    while v <= top + 1e-9:
        svg.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end">%s</text>' % (x0, x0 + pw, y(v), y(v), x0 - 6, y(v) + 4, format(round(v), ",")))
        v += step
    for n in levels:
        svg.append('<text x="%.1f" y="%d" text-anchor="middle">%d</text>' % (x(n), H - B + 18, n))
    if pool in levels:
        svg.append('<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#888" stroke-dasharray="4 3"/><text x="%.1f" y="%d" fill="#666">pool</text>' % (x(pool), x(pool), T, H - B, x(pool) + 4, T + 12))
    svg.append('<text x="%d" y="%d" text-anchor="middle">clients</text>' % (x0 + pw // 2, H - B + 38))
    for t in shown:
        pts = " ".join("%.1f,%.1f" % (x(n), y(m(n, t, col))) for n in levels)
        dash = ' stroke-dasharray="6 4"' if t.startswith("pg-") else ""
        svg.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>' % (pts, colors.get(t, "#555"), dash))
        for n in levels:
            svg.append('<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"/>' % (x(n), y(m(n, t, col)), colors.get(t, "#555")))


panel(L, "ops_per_s", "PUT/s (pg-put: pgbench, the same transaction)", [t for t in targets if t != "pg-insert"])
panel(L + pw + gap, "p99_ms", "p99 latency, ms", nodes)
legend = {"after": "after", "before": "before", "pg-put": "pg-put (PostgreSQL's ceiling)"}
lx = L
for t in [t for t in targets if t != "pg-insert"]:
    svg.append('<rect x="%d" y="%d" width="14" height="4" fill="%s"/><text x="%d" y="%d">%s</text>' % (lx, H - 12, colors.get(t, "#555"), lx + 18, H - 7, legend.get(t, t)))
    lx += 60 + 7 * len(legend.get(t, t))
svg.append("</svg>")
open(out + ".svg", "w").write("\n".join(svg) + "\n")
