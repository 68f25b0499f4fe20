"""`ostium support bundle` end to end: against a running `ostium serve`
with secrets in its configuration, the archive holds every part, the
profiles open in `go tool pprof`, and no secret is anywhere in it."""

import gzip
import io
import json
import os
import shutil
import stat
import subprocess
import tarfile
import time
import urllib.request

import boto3
import pytest
import yaml
from botocore.config import Config

from helpers import free_port

ROOT_AK = "support-root-access-key"
ROOT_SK = "support-root-secret-key-0123456789"
SECRETS = (ROOT_AK, ROOT_SK, "PLATFORMAK0099", "platform-secret-key-abcdef",
           "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=")


def clean_env():
    return {k: v for k, v in os.environ.items() if not k.startswith("OSTIUM_") and not k.startswith("AWS_")}


def test_support_bundle(ostium_bin, tmp_path):
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    cfg = {
        "listen": f"127.0.0.1:{port}", "console_listen": "127.0.0.1:0", "data": str(tmp_path / "data"),
        "root_access_key": ROOT_AK, "root_secret_key": ROOT_SK, "node_key": SECRETS[4],
        "default_platform": "local",
        "platforms": {"local": {"type": "fs", "path": str(tmp_path / "blobs")},
                      "remote": {"type": "s3", "endpoint": "http://127.0.0.1:1", "bucket": "remote-blobs",
                                 "access_key": SECRETS[2], "secret_key": SECRETS[3]}},
    }
    conf = tmp_path / "node.yaml"
    conf.write_text("# the root secret was " + ROOT_SK + "\n" + yaml.safe_dump(cfg))
    log = tmp_path / "node.log"
    proc = subprocess.Popen([ostium_bin, "serve", "--config", str(conf)], env=clean_env(),
                            stdout=subprocess.DEVNULL, stderr=open(log, "wb"))
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(endpoint + "/health/live", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id=ROOT_AK,
                          aws_secret_access_key=ROOT_SK, config=Config(s3={"addressing_style": "path"}))
        s3.create_bucket(Bucket="bundled")
        s3.put_object(Bucket="bundled", Key="k", Body=b"twelve bytes")

        # Credentials from the environment, as `ostium admin` takes them.
        env = {**clean_env(), "OSTIUM_ROOT_ACCESS_KEY": ROOT_AK, "OSTIUM_ROOT_SECRET_KEY": ROOT_SK}
        out = tmp_path / "bundle.tar.gz"
        res = subprocess.run([ostium_bin, "support", "bundle", "--config", str(conf), "--endpoint", endpoint,
                              "--log-file", str(log), "--since", "1h", "--cpu-seconds", "1", "--out", str(out)],
                             env=env, capture_output=True, text=True, timeout=120)
        assert res.returncode == 0, res.stderr
    finally:
        proc.terminate()
        proc.wait(30)

    # One progress line per part, then the summary.
    assert res.stderr.count("support bundle: ") == 10, res.stderr
    assert stat.S_IMODE(out.stat().st_mode) == 0o600

    raw = gzip.decompress(out.read_bytes())
    files = {}
    with tarfile.open(fileobj=io.BytesIO(raw)) as tar:
        for m in tar.getmembers():
            files[m.name.split("/", 1)[1]] = tar.extractfile(m).read()
    for name in ("MANIFEST.json", "version.json", "config.yaml", "health.json", "catalog-stats.json",
                 "logs.txt", "profiles/goroutine.txt", "profiles/heap.pb.gz", "profiles/cpu.pb.gz"):
        assert files.get(name), f"{name} missing or empty: {sorted(files)}"
    manifest = json.loads(files["MANIFEST.json"])
    failed = {p["name"]: p["error"] for p in manifest["parts"] if not p["ok"]}
    assert set(failed) <= {"metrics"}, failed  # /metrics may not be served yet: then a recorded 404
    stats = json.loads(files["catalog-stats.json"])
    assert (stats["buckets"], stats["objects"], stats["bytes"]) == (1, 1, 12), stats
    assert json.loads(files["health.json"])["catalog"] == "ok"
    assert "serving S3" in files["logs.txt"].decode()
    assert yaml.safe_load(files["config.yaml"])["platforms"]["remote"]["secret_key"] == "[REDACTED]"

    # No secret anywhere: the archive decompressed, and each gzip'd
    # profile decompressed too.
    blobs = [raw] + [gzip.decompress(b) for n, b in files.items() if n.endswith(".gz")]
    for blob in blobs:
        for secret in SECRETS:
            assert secret.encode() not in blob, secret

    # The profiles are what `go tool pprof` reads.
    if shutil.which("go"):
        for name in ("heap", "cpu"):
            p = tmp_path / f"{name}.pb.gz"
            p.write_bytes(files[f"profiles/{name}.pb.gz"])
            res = subprocess.run(["go", "tool", "pprof", "-top", str(p)], capture_output=True, text=True, timeout=120)
            assert res.returncode == 0, res.stderr


def test_support_bundle_without_node(ostium_bin, tmp_path):
    """Nothing to ask: the archive is still written, the manifest says
    why each part is missing and how to have the logs, and the command
    fails naming the parts that did."""
    out = tmp_path / "empty.tar.gz"
    env = {**clean_env(), "OSTIUM_ROOT_ACCESS_KEY": ROOT_AK, "OSTIUM_ROOT_SECRET_KEY": ROOT_SK}
    res = subprocess.run([ostium_bin, "support", "bundle", "--endpoint", f"http://127.0.0.1:{free_port()}",
                          "--unit", "no-such-unit", "--out", str(out)],
                         env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode != 0, res.stderr
    assert "parts failed: health, catalog statistics, logs, metrics" in res.stderr, res.stderr
    # Never over an earlier bundle.
    again = subprocess.run([ostium_bin, "support", "bundle", "--endpoint", "", "--out", str(out)],
                           env=env, capture_output=True, text=True, timeout=120)
    assert again.returncode != 0 and "exists" in again.stderr, again.stderr
    with tarfile.open(out) as tar:
        manifest = json.loads(next(tar.extractfile(m).read() for m in tar.getmembers() if m.name.endswith("MANIFEST.json")))
    parts = {p["name"]: p for p in manifest["parts"]}
    assert parts["version"]["ok"]
    assert "--log-file" in parts["logs"]["error"]
    assert "connection refused" in parts["heap profile"]["error"]


def test_support_bundle_defaults(ostium_bin, tmp_path):
    """No flags but the node and keys in the environment, as for `ostium
    admin`: every part is collected, and a second bundle gets a name of
    its own."""
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    log = tmp_path / "node.log"
    env = {**clean_env(), "OSTIUM_ROOT_ACCESS_KEY": ROOT_AK, "OSTIUM_ROOT_SECRET_KEY": ROOT_SK,
           "XDG_CONFIG_HOME": str(tmp_path / "config")}
    proc = subprocess.Popen([ostium_bin, "serve", "--listen", f"127.0.0.1:{port}", "--console-listen", "127.0.0.1:0",
                             "--data", str(tmp_path / "data")], env=env, stdout=subprocess.DEVNULL, stderr=open(log, "wb"))
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(endpoint + "/health/live", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        work = tmp_path / "work"
        work.mkdir()
        env = {**env, "OSTIUM_ENDPOINT": endpoint}
        for _ in range(2):  # one after the other: a node runs one CPU profile at a time
            r = subprocess.run([ostium_bin, "support", "bundle", "--log-file", str(log), "--cpu-seconds", "1"],
                               env=env, cwd=work, capture_output=True, text=True, timeout=120)
            assert r.returncode == 0, r.stderr
    finally:
        proc.terminate()
        proc.wait(30)
    names = sorted(p.name for p in work.iterdir())
    assert len(names) == 2 and all(n.startswith("ostium-support-") and n.endswith(".tar.gz") for n in names), names
    for n in names:
        with tarfile.open(work / n) as tar:
            manifest = json.loads(next(tar.extractfile(m).read() for m in tar.getmembers() if m.name.endswith("MANIFEST.json")))
        assert all(p["ok"] for p in manifest["parts"]), manifest["parts"]
