#!/usr/bin/env python3
"""What the gateway costs over its storage platform (bench/README.md).

Starts an S3 platform (an `ostium serve` on local disk) and a gateway node
storing on it, then runs the same GET and PUT workloads (4 KiB, 1 MiB,
10 MiB, 100 MiB at concurrency 1 and 32) directly against the platform
and through the gateway, back to back in one run, with `ostium bench`.
Between the two it measures the platform behind HAProxy in TCP mode
(splicing, no HTTP): one extra hop that does nothing, which is the least
any gateway on that hop can cost (skipped when haproxy is not installed).
For each pair it writes `ostium bench compare`'s table and chart, and
records the gateway's CPU seconds per GiB moved (from /proc). Writes
bench/results/DATE-platform/{summary.md,summary.json,ratios.svg}.

    python3 bench/platform.py [--duration 10s] [--sizes 4KiB,1MiB,10MiB,100MiB] [--concurrency 1,32]
                              [--rounds N] [--inline-max N] [--out DIR]

With --rounds N, each workload runs N times directly, through the hop and
through the gateway, alternating, and the summary gives the median of each figure and
of the per-round ratios, with their range.

By default the gateway keeps objects up to 32 KiB in its catalog, so small
objects never reach the platform; --inline-max 0 sends every object there
(the workloads are then named ...-inline0).
"""

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import datetime, timezone

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
AK, SK = "bench-access-key", "bench-secret-key-0123456789"
# Objects prepared for reads, by size: enough to spread reads, little disk.
READ_OBJECTS = {"4KiB": 1000, "1MiB": 200, "10MiB": 40, "100MiB": 8}
CLK_TCK = os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(bin, args, log):
    return subprocess.Popen([bin, *args], stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                            env=dict(os.environ, OSTIUM_ROOT_ACCESS_KEY=AK, OSTIUM_ROOT_SECRET_KEY=SK))


HOP_CFG = """global
    maxconn 1000
defaults
    mode tcp
    option splice-auto
    timeout connect 5s
    timeout client 10m
    timeout server 10m
listen hop
    bind 127.0.0.1:{port}
    server platform 127.0.0.1:{platform}
"""


def start_hop(tmp, port, platform, log):
    """HAProxy relaying TCP to the platform, or None without haproxy."""
    exe = shutil.which("haproxy") or ("/usr/sbin/haproxy" if os.path.exists("/usr/sbin/haproxy") else None)
    if not exe:
        print("haproxy not found: no hop measured", flush=True)
        return None
    cfg = os.path.join(tmp, "hop.cfg")
    with open(cfg, "w") as f:
        f.write(HOP_CFG.format(port=port, platform=platform))
    return subprocess.Popen([exe, "-db", "-f", cfg], stdin=subprocess.DEVNULL, stdout=log, stderr=log)


def wait_ready(endpoint):
    for _ in range(300):
        try:
            urllib.request.urlopen(endpoint + "/health/ready", timeout=1).read()
            return
        except OSError:
            time.sleep(0.1)
    sys.exit(f"{endpoint} did not come up")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime + stime


def bench(bin, mode, endpoint, size, conc, duration, out):
    args = [bin, "bench", mode, "--endpoint", endpoint, "--access-key", AK, "--secret-key", SK,
            "--size", size, "--concurrency", str(conc), "--duration", duration, "--out", out, "--no-ceiling"]
    if mode == "get":
        args += ["--objects", str(READ_OBJECTS.get(size, 100))]
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "summary.json")) as f:
        s = json.load(f)
    main = next(st for st in s["stages"] if st["name"] == "main")["ops"][0]
    moved = sum(op["byte_count"] for st in s["stages"] for op in st["ops"])
    return {"ops_s": main["throughput_ops"], "mb_s": main["bandwidth_mbps"], "p50_ms": main["percentiles_ms"]["p50"],
            "p99_ms": main["percentiles_ms"]["p99"], "errors": main["error_count"], "bytes_moved": moved}


def median_run(runs):
    """The median of each figure over the rounds of one target."""
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]}


def spread(r, key, fmt):
    """A median, with its range when several rounds were run."""
    lo, hi = r.get(key + "_range", [r[key], r[key]])
    text = format(r[key], fmt)
    return text if r.get("rounds", 1) == 1 else f"{text} ({format(lo, fmt)} to {format(hi, fmt)})"


def chart(rows, path):
    """Bars of gateway/direct throughput per workload, 1.0 = no cost."""
    w, bar, gap, left = 760, 18, 8, 190
    h = 40 + len(rows) * (bar + gap)
    scale = (w - left - 60)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
           f'<text x="{left}" y="16">throughput through the gateway / direct to the platform (1.0 = free; '
           f'black mark: through a bare TCP hop)</text>',
           f'<line x1="{left + scale}" y1="24" x2="{left + scale}" y2="{h - 8}" stroke="#888" stroke-dasharray="3,3"/>']
    for i, r in enumerate(rows):
        y = 30 + i * (bar + gap)
        ratio = r["ratio"]
        out.append(f'<text x="{left - 6}" y="{y + 13}" text-anchor="end">{r["workload"]}</text>')
        out.append(f'<rect x="{left}" y="{y}" width="{max(1, min(ratio, 1.2) * scale / 1.0):.0f}" height="{bar}" '
                   f'fill="{"#4a7" if ratio >= 0.95 else "#d84"}"/>')
        out.append(f'<text x="{left + min(ratio, 1.2) * scale + 4:.0f}" y="{y + 13}">{ratio:.2f}</text>')
        if "hop_ratio" in r:  # the hop's own ratio: no gateway on that hop can do better
            x = left + min(r["hop_ratio"], 1.2) * scale
            out.append(f'<rect x="{x - 1.5:.1f}" y="{y - 2}" width="3" height="{bar + 4}" fill="#222"/>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--duration", default="10s")
    ap.add_argument("--sizes", default="4KiB,1MiB,10MiB,100MiB")
    ap.add_argument("--concurrency", default="1,32")
    ap.add_argument("--modes", default="get,put")
    ap.add_argument("--rounds", type=int, default=1, help="alternating direct/gateway runs per workload; medians reported")
    ap.add_argument("--inline-max", type=int, help="the gateway platform's inline_max (default: the node's, 32 KiB)")
    ap.add_argument("--out", help="results directory (default bench/results/DATE-platform; rows of a run there before are kept)")
    a = ap.parse_args()
    day = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    results = a.out or os.path.join(REPO, "bench", "results", f"{day}-platform")
    os.makedirs(results, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="ostium-bench-platform-")
    bin = os.path.join(tmp, "ostium")
    subprocess.run(["go", "build", "-o", bin, "./cmd/ostium"], cwd=REPO, check=True)
    pport, gport, hport = free_port(), free_port(), free_port()
    direct, gateway, hop = (f"http://127.0.0.1:{p}" for p in (pport, gport, hport))
    log = open(os.path.join(tmp, "servers.log"), "wb")
    platform = start(bin, ["serve", "--listen", f"127.0.0.1:{pport}", "--console-listen", "off",
                           "--data", os.path.join(tmp, "platform")], log)
    cfg = {"listen": f"127.0.0.1:{gport}", "console_listen": "off", "data": os.path.join(tmp, "gateway"), "default_platform": "p",
           "platforms": {"p": {"type": "s3", "endpoint": direct, "access_key": AK, "secret_key": SK,
                               "path_style": True, "bucket": "ostium-gateway", "etag_is_md5": True}}}
    suffix = ""
    if a.inline_max is not None:
        cfg["platforms"]["p"]["inline_max"] = a.inline_max
        suffix = f"-inline{a.inline_max}"
    with open(os.path.join(tmp, "gateway.yaml"), "w") as f:
        json.dump(cfg, f)
    gw = start(bin, ["serve", "--config", os.path.join(tmp, "gateway.yaml")], log)
    relay = start_hop(tmp, hport, pport, log)
    rows = []
    try:
        wait_ready(direct)
        wait_ready(gateway)
        if relay:
            wait_ready(hop)
        for mode in a.modes.split(","):
            for size in a.sizes.split(","):
                for conc in [int(c) for c in a.concurrency.split(",")]:
                    name = f"{mode}-{size}-c{conc}{suffix}"
                    print(f"==> {name}: direct, {'through the hop, ' if relay else ''}then through the gateway ({a.duration} each, "
                          f"{a.rounds} round{'s' if a.rounds > 1 else ''})", flush=True)
                    ds, hs, gs, cpu = [], [], [], 0.0
                    for _ in range(a.rounds):
                        # Direct and through alternate, so that drift of the
                        # shared machine falls on both alike.
                        ds.append(bench(bin, mode, direct, size, conc, a.duration, os.path.join(results, name + "-direct")))
                        if relay:
                            hs.append(bench(bin, mode, hop, size, conc, a.duration, os.path.join(results, name + "-hop")))
                        cpu0 = cpu_seconds(gw.pid)
                        gs.append(bench(bin, mode, gateway, size, conc, a.duration, os.path.join(results, name + "-gateway")))
                        cpu += cpu_seconds(gw.pid) - cpu0
                        hop_s = f"hop {hs[-1]['ops_s']:.1f} op/s p50 {hs[-1]['p50_ms']:.2f} ms | " if relay else ""
                        print(f"    direct {ds[-1]['ops_s']:.1f} op/s p50 {ds[-1]['p50_ms']:.2f} ms | {hop_s}gateway "
                              f"{gs[-1]['ops_s']:.1f} op/s p50 {gs[-1]['p50_ms']:.2f} ms", flush=True)
                    with open(os.path.join(results, name + ".txt"), "w") as f:
                        subprocess.run([bin, "bench", "compare", "--svg", os.path.join(results, name + ".svg"),
                                        os.path.join(results, name + "-direct"), os.path.join(results, name + "-gateway")],
                                       check=True, stdout=f)
                    # Keep what the comparison needs; the per-run reports and
                    # histograms are regenerated by running again.
                    for run in ("-direct", "-hop", "-gateway"):
                        for f in ("histogram.csv", "timeseries.csv", "summary.csv", "report.html"):
                            path = os.path.join(results, name + run, f)
                            if os.path.exists(path):
                                os.remove(path)
                    ratios = [g["ops_s"] / d["ops_s"] if d["ops_s"] else 0 for d, g in zip(ds, gs)]
                    added = [g["p50_ms"] - d["p50_ms"] for d, g in zip(ds, gs)]
                    pct = [100 * (g["p50_ms"] / d["p50_ms"] - 1) if d["p50_ms"] else 0 for d, g in zip(ds, gs)]
                    moved = sum(g["bytes_moved"] for g in gs)
                    row = {"workload": name, "rounds": a.rounds, "direct": median_run(ds), "gateway": median_run(gs),
                           "ratio": statistics.median(ratios), "ratio_range": [min(ratios), max(ratios)],
                           "added_p50_ms": statistics.median(added), "added_p50_ms_range": [min(added), max(added)],
                           "added_p50_pct": statistics.median(pct), "added_p50_pct_range": [min(pct), max(pct)],
                           "cpu_s_per_gib": cpu / (moved / 2**30) if moved else None}
                    if hs:
                        hop_ratios = [h["ops_s"] / d["ops_s"] if d["ops_s"] else 0 for d, h in zip(ds, hs)]
                        over_hop = [g["ops_s"] / h["ops_s"] if h["ops_s"] else 0 for h, g in zip(hs, gs)]
                        row.update({"hop": median_run(hs), "hop_ratio": statistics.median(hop_ratios),
                                    "hop_ratio_range": [min(hop_ratios), max(hop_ratios)],
                                    "over_hop": statistics.median(over_hop), "over_hop_range": [min(over_hop), max(over_hop)]})
                    rows.append(row)
                    over = f", over the hop {row['over_hop']:.2f}" if hs else ""
                    print(f"    median: ratio {row['ratio']:.2f}{over}, {row['added_p50_ms']:+.2f} ms at p50, "
                          f"{row['cpu_s_per_gib'] or 0:.2f} CPU s/GiB", flush=True)
    finally:
        for p in (gw, platform, relay):
            if p is None:
                continue
            p.terminate()
            try:
                p.wait(60)
            except subprocess.TimeoutExpired:
                p.kill()
    # Rows of earlier runs of the day (say, a longer run of the largest
    # workload) are kept unless this run measured the same workload again.
    prev = os.path.join(results, "summary.json")
    if os.path.exists(prev):
        with open(prev) as f:
            done = {r["workload"] for r in rows}
            rows = [r for r in json.load(f) if r["workload"] not in done] + rows
    order = {f"{m}-{z}-c{c}": i for i, (m, z, c) in enumerate(
        (m, z, c) for m in ("get", "put") for z in ("4KiB", "1MiB", "10MiB", "100MiB") for c in (1, 32))}
    rows.sort(key=lambda r: (order.get(r["workload"].split("-inline")[0], 99), r["workload"]))
    summarize(results, rows)


def summarize(results, rows):
    """Writes summary.json, summary.md and ratios.svg of rows."""
    lines = ["| workload | direct op/s | gateway op/s | ratio | hop / direct | gateway / hop | p50 direct | p50 hop | p50 gateway "
             "| added p50 | added p50 % | gateway CPU s/GiB |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        r.setdefault("added_p50_pct", 100 * (r["gateway"]["p50_ms"] / r["direct"]["p50_ms"] - 1) if r["direct"]["p50_ms"] else 0)
        hop = "hop" in r
        cpu = f"{r['cpu_s_per_gib']:.2f}" if r["cpu_s_per_gib"] is not None else ""
        p50_hop = f"{r['hop']['p50_ms']:.2f} ms" if hop else "-"
        lines.append(f"| {r['workload']} | {r['direct']['ops_s']:.1f} | {r['gateway']['ops_s']:.1f} | {spread(r, 'ratio', '.2f')} | "
                     f"{spread(r, 'hop_ratio', '.2f') if hop else '-'} | {spread(r, 'over_hop', '.2f') if hop else '-'} | "
                     f"{r['direct']['p50_ms']:.2f} ms | {p50_hop} | "
                     f"{r['gateway']['p50_ms']:.2f} ms | {spread(r, 'added_p50_ms', '+.2f')} ms | "
                     f"{spread(r, 'added_p50_pct', '+.0f')} | {cpu} |")
    with open(os.path.join(results, "summary.json"), "w") as f:
        json.dump(rows, f, indent=1)
    with open(os.path.join(results, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    chart(rows, os.path.join(results, "ratios.svg"))
    print("\n".join(lines))
    print(f"results: {results}")


if __name__ == "__main__":
    main()
