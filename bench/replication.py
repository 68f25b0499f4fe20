#!/usr/bin/env python3
"""How fast bucket replication delivers, and how far it lags behind a
steady write load (bench/README.md).

Starts two nodes on loopback, each with its own data directory and
catalog: a source, and a second Ostium registered on the source as a
remote target (plain http, allowed for 127.0.0.0/8). For each
destination kind, a bucket of the same Ostium ("local") and a bucket of
the second node ("remote"):

  drain    N objects of SIZE written first; then a rule with
           ExistingObjectReplication: objects/s replicated is N over the
           time from the configuration until the destination holds them
           all (the worker's own rate, no client in the way).
  steady   writes at each RATE objects/s for SECONDS; the backlog and lag
           (the age of the oldest waiting version, from the admin API) are
           sampled every 0.5 s; reports their median and maximum and the
           time the backlog took to empty after the writes stopped.

Writes bench/results/DATE-replication.{md,csv,html} (the html is the lag
chart, screenshot it with headless Chromium:
    chromium --headless --screenshot=bench/results/screenshots/DATE-replication.png \
             --window-size=1000,700 bench/results/DATE-replication.html).

    python3 bench/replication.py [--objects 2000] [--size 4096] [--rates 50,200] [--seconds 20]
"""

import os
import sys

# bench/platform.py would shadow the standard library's platform module,
# which boto3 imports.
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import argparse
import json
import shutil
import socket
import statistics
import subprocess
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone

import boto3
from botocore.config import Config

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
AK, SK = "bench-access-key", "bench-secret-key-0123456789"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Node:
    def __init__(self, bin, tmp, name, config=""):
        self.bin, self.port = bin, free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        data = os.path.join(tmp, name)
        os.makedirs(data, mode=0o700)
        conf = os.path.join(tmp, name + ".yaml")
        with open(conf, "w") as f:
            f.write(f"data: {data}\n{config}")
        self.log = open(os.path.join(tmp, name + ".log"), "w")
        env = dict(os.environ, OSTIUM_ROOT_ACCESS_KEY=AK, OSTIUM_ROOT_SECRET_KEY=SK, OSTIUM_CONSOLE_LISTEN="off")
        self.proc = subprocess.Popen([bin, "serve", "--config", conf, "--listen", f"127.0.0.1:{self.port}", "--console-listen", "off"],
                                     stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log, env=env)
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            sys.exit(f"{name} did not start; see {self.log.name}")
        self.s3 = boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id=AK, aws_secret_access_key=SK,
                               region_name="us-east-1",
                               config=Config(s3={"addressing_style": "path"}, max_pool_connections=64,
                                             retries={"max_attempts": 2}))

    def admin(self, *args, stdin=None):
        env = dict(os.environ, OSTIUM_ENDPOINT=self.endpoint, OSTIUM_ROOT_ACCESS_KEY=AK, OSTIUM_ROOT_SECRET_KEY=SK)
        out = subprocess.run([self.bin, "admin", "--json", *args], input=stdin, capture_output=True, text=True, env=env)
        if out.returncode != 0:
            sys.exit(f"ostium admin {' '.join(args)}: {out.stderr}")
        return json.loads(out.stdout)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=30)


def versioned(s3, name):
    s3.create_bucket(Bucket=name)
    s3.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": "Enabled"})


def configure(s3, src, arn, existing=False):
    rule = {"ID": "all", "Priority": 1, "Status": "Enabled", "Filter": {"Prefix": ""},
            "DeleteMarkerReplication": {"Status": "Disabled"}, "Destination": {"Bucket": arn}}
    if existing:
        rule["ExistingObjectReplication"] = {"Status": "Enabled"}
    s3.put_bucket_replication(Bucket=src, ReplicationConfiguration={
        "Role": "arn:aws:iam::000000000000:role/bench", "Rules": [rule]})


def count_versions(s3, bucket):
    n = 0
    for page in s3.get_paginator("list_object_versions").paginate(Bucket=bucket):
        n += len(page.get("Versions", []))
    return n


def drain(src, bucket, n, size, configure_existing, dst_s3, dst_bucket):
    """N versions written first; then a rule with ExistingObjectReplication:
    the worker's own rate, from the configuration until the destination
    holds them all, with no client in the way."""
    body = os.urandom(size)
    t0 = time.monotonic()
    with ThreadPoolExecutor(16) as ex:
        list(ex.map(lambda i: src.s3.put_object(Bucket=bucket, Key=f"o{i:07d}", Body=body), range(n)))
    wrote = time.monotonic() - t0
    t1 = time.monotonic()
    configure_existing()
    while count_versions(dst_s3, dst_bucket) < n:
        time.sleep(0.2)
    total = time.monotonic() - t1
    return {"objects": n, "size": size, "write_s": wrote, "write_ops": n / wrote, "total_s": total, "replicated_ops": n / total}


def steady(src, bucket, rate, seconds, size, kind):
    body = os.urandom(size)
    stop = threading.Event()
    samples = []
    t0 = time.monotonic()

    def sample():
        while not stop.is_set():
            st = src.admin("replication", "status", bucket)
            samples.append({"kind": kind, "rate": rate, "t": round(time.monotonic() - t0, 2),
                            "backlog": st["backlog"], "lag_s": round(st["lag_seconds"], 3)})
            stop.wait(0.5)

    sampler = threading.Thread(target=sample)
    sampler.start()
    # Eight writers, each pacing its share of the rate.
    def writer(w):
        every, i = 8.0 / rate, 0
        nxt = time.monotonic()
        while time.monotonic() - t0 < seconds:
            src.s3.put_object(Bucket=bucket, Key=f"s{rate}-{w}-{i:07d}", Body=body)
            i += 1
            nxt += every
            time.sleep(max(0, nxt - time.monotonic()))
        return i
    with ThreadPoolExecutor(8) as ex:
        written = sum(ex.map(writer, range(8)))
    t_stop = time.monotonic()
    while src.admin("replication", "status", bucket)["backlog"] > 0:
        time.sleep(0.1)
    caught = time.monotonic() - t_stop
    time.sleep(0.6)
    stop.set()
    sampler.join()
    during = [s for s in samples if s["t"] <= seconds]
    lags = [s["lag_s"] for s in during] or [0]
    backlogs = [s["backlog"] for s in during] or [0]
    return {"kind": kind, "rate": rate, "achieved": written / (t_stop - t0), "lag_median_s": statistics.median(lags),
            "lag_max_s": max(lags), "backlog_median": statistics.median(backlogs), "backlog_max": max(backlogs),
            "catch_up_s": caught}, samples


def chart(samples, path, title):
    kinds = sorted({(s["kind"], s["rate"]) for s in samples})
    colors = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"]
    W, H, L, B = 900, 420, 70, 50
    tmax = max(s["t"] for s in samples) or 1
    top = max(max(s["lag_s"] for s in samples) * 1.15, 0.5)
    x = lambda t: L + (W - L - 30) * t / tmax
    y = lambda v: H - B - (H - B - 40) * v / top
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
           '<rect width="100%" height="100%" fill="white"/>', f'<text x="{L}" y="16">{title}</text>']
    for i in range(5):
        v = top * i / 4
        svg.append(f'<line x1="{L}" x2="{W-30}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#ddd"/>'
                   f'<text x="{L-6}" y="{y(v)+4:.1f}" text-anchor="end">{v:.2f}</text>')
    for i in range(6):
        t = tmax * i / 5
        svg.append(f'<text x="{x(t):.1f}" y="{H-B+18}" text-anchor="middle">{t:.0f}</text>')
    svg.append(f'<text x="{(W+L)//2}" y="{H-12}" text-anchor="middle">seconds since the writes began</text>')
    svg.append(f'<text x="14" y="{H//2}" transform="rotate(-90 14 {H//2})" text-anchor="middle">lag (s): age of the oldest waiting version</text>')
    for j, (kind, rate) in enumerate(kinds):
        pts = " ".join(f'{x(s["t"]):.1f},{y(s["lag_s"]):.1f}' for s in samples if (s["kind"], s["rate"]) == (kind, rate))
        c = colors[j % len(colors)]
        svg.append(f'<polyline points="{pts}" fill="none" stroke="{c}" stroke-width="2"/>')
        svg.append(f'<text x="{L + 10 + 150*j}" y="34" fill="{c}">{kind}, {rate}/s</text>')
    svg.append("</svg>")
    with open(path, "w") as f:
        f.write("<!doctype html><meta charset=utf-8><title>replication lag</title><body style='margin:0'>\n" + "\n".join(svg) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--objects", type=int, default=2000)
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--rates", default="50,200")
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--bin", default="")
    ap.add_argument("--out", default="")
    a = ap.parse_args()
    day = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    out = a.out or os.path.join(REPO, "bench", "results", f"{day}-replication")
    tmp = tempfile.mkdtemp(prefix="ostium-bench-repl-")
    nodes = []
    try:
        bin = a.bin
        if not bin:
            bin = os.path.join(tmp, "ostium")
            subprocess.run(["go", "build", "-o", bin, "./cmd/ostium"], cwd=REPO, check=True)
        dst = Node(bin, tmp, "target")
        nodes.append(dst)
        src = Node(bin, tmp, "source", "replication_plain_http: [127.0.0.0/8]\nreplication_poll: 100ms\n"
                   "replication_backfill_interval: 200ms\n")
        nodes.append(src)
        src.admin("replication", "target", "add", "site2", dst.endpoint, "--target-access-key", AK, "--path-style", stdin=SK + "\n")
        runs, rows, samples = 0, [], []
        for kind in ("local", "remote"):
            for phase in ["drain"] + [f"steady{r}" for r in a.rates.split(",")]:
                runs += 1
                sb, db = f"src-{runs}", f"dst-{runs}"
                versioned(src.s3, sb)
                dnode = src if kind == "local" else dst
                versioned(dnode.s3, db)
                arn = f"arn:aws:s3:::{db}" if kind == "local" else f"arn:ostium:replication::site2:{db}"
                if phase == "drain":
                    r = drain(src, sb, a.objects, a.size, lambda: configure(src.s3, sb, arn, existing=True), dnode.s3, db)
                    r["kind"] = kind
                    rows.append(r)
                    print(f"{kind} drain: written {r['write_ops']:.0f}/s, replicated {r['replicated_ops']:.0f}/s", flush=True)
                else:
                    configure(src.s3, sb, arn)
                    r, s = steady(src, sb, int(phase[6:]), a.seconds, a.size, kind)
                    rows.append(r)
                    samples += s
                    print(f"{kind} steady {r['rate']}/s: lag median {r['lag_median_s']:.2f} s, max {r['lag_max_s']:.2f} s, "
                          f"caught up {r['catch_up_s']:.2f} s after", flush=True)
        with open(out + ".csv", "w") as f:
            f.write("kind,rate,t,backlog,lag_s\n")
            for s in samples:
                f.write(f'{s["kind"]},{s["rate"]},{s["t"]},{s["backlog"]},{s["lag_s"]}\n')
        with open(out + ".md", "w") as f:
            f.write(f"Replication on one machine (two nodes on loopback, SQLite catalogs, {a.size}-byte objects; "
                    f"`python3 bench/replication.py --objects {a.objects} --size {a.size} --rates {a.rates} --seconds {a.seconds}`).\n\n")
            f.write("| destination | written (obj/s, 16 boto3 clients) | replicated (obj/s: existing versions, from the configuration until the destination holds all) |\n| --- | ---: | ---: |\n")
            for r in rows:
                if "replicated_ops" in r:
                    f.write(f"| {r['kind']} | {r['write_ops']:.0f} | {r['replicated_ops']:.0f} |\n")
            f.write("\n| destination | rate asked (obj/s) | achieved | lag median (s) | lag max (s) | backlog median | backlog max | empty after the writes stop (s) |\n"
                    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
            for r in rows:
                if "lag_max_s" in r:
                    f.write(f"| {r['kind']} | {r['rate']} | {r['achieved']:.0f} | {r['lag_median_s']:.2f} | {r['lag_max_s']:.2f} | "
                            f"{r['backlog_median']:.0f} | {r['backlog_max']} | {r['catch_up_s']:.2f} |\n")
        chart(samples, out + ".html", f"Replication lag under steady writes ({a.size}-byte objects), sampled every 0.5 s")
        print(open(out + ".md").read())
        print(f"raw: {out}.csv, chart: {out}.html")
    finally:
        for n in nodes:
            n.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
