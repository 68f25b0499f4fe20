"""A real Prometheus (Debian's package) scrapes a node's /metrics with the
bearer token, loads deploy/prometheus-alerts.yml, and answers queries about
the S3 traffic it saw through its HTTP API."""

import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request

import pytest

from helpers import REPO, free_port, require_tool, start_server, unique_bucket

TOKEN = "e2e-scrape-token-0123456789"


@pytest.fixture
def metered(ostium_bin, monkeypatch):
    """A node of its own whose metrics need TOKEN."""
    monkeypatch.setenv("OSTIUM_METRICS_TOKEN", TOKEN)
    srv = start_server(ostium_bin, extra_args=["--metrics-allow", "127.0.0.1"])
    yield srv
    srv.stop()
    shutil.rmtree(srv.data_dir, ignore_errors=True)
    shutil.rmtree(srv.log_dir, ignore_errors=True)


@pytest.fixture
def prometheus(metered):
    """A Prometheus scraping the node every second, with the alert rules."""
    require_tool("prometheus", "apt-get install prometheus")
    binary = shutil.which("prometheus")
    work = tempfile.mkdtemp(prefix="ostium-e2e-prometheus-")
    rules = os.path.join(REPO, "deploy", "prometheus-alerts.yml")
    config = os.path.join(work, "prometheus.yml")
    with open(config, "w") as f:
        json.dump({  # JSON is YAML
            "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
            "rule_files": [rules],
            "scrape_configs": [{
                "job_name": "ostium",
                "authorization": {"credentials": TOKEN},
                "static_configs": [{"targets": [f"127.0.0.1:{metered.port}"]}],
            }],
        }, f)
    port = free_port()
    log = open(os.path.join(work, "prometheus.log"), "wb")
    proc = subprocess.Popen([binary, f"--config.file={config}", f"--storage.tsdb.path={work}/data",
                             f"--web.listen-address=127.0.0.1:{port}"],
                            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait(lambda: get(url, "/-/ready") is not None, 30, "Prometheus ready", work)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        log.close()
        shutil.rmtree(work, ignore_errors=True)


def get(base, path, **params):
    """GET base+path; the decoded JSON (or b"" for non-JSON), None when not 200."""
    q = ("?" + urllib.parse.urlencode(params)) if params else ""
    try:
        with urllib.request.urlopen(base + path + q, timeout=5) as resp:
            body = resp.read()
    except OSError:
        return None
    try:
        return json.loads(body)
    except ValueError:
        return b""


def wait(cond, timeout, what, work=None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.25)
    log = ""
    if work and os.path.exists(os.path.join(work, "prometheus.log")):
        log = open(os.path.join(work, "prometheus.log"), errors="replace").read()[-4000:]
    pytest.fail(f"{what}: not within {timeout}s\n{log}")


def query(prom, expr):
    """The value of an instant query with one result, or None."""
    r = get(prom, "/api/v1/query", query=expr)
    if not r or r.get("status") != "success" or not r["data"]["result"]:
        return None
    return float(r["data"]["result"][0]["value"][1])


def test_prometheus_scrapes_a_node(metered, prometheus):
    # Without the token the node refuses to be scraped.
    req = urllib.request.Request(metered.endpoint + "/metrics")
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(req, timeout=5)
    assert e.value.code == 401

    s3 = metered.client()
    name = unique_bucket("prometheus")
    s3.create_bucket(Bucket=name)
    for i in range(5):
        s3.put_object(Bucket=name, Key=f"k{i}", Body=b"x" * 4096)
    for i in range(3):
        assert s3.get_object(Bucket=name, Key="k0")["Body"].read() == b"x" * 4096

    def target_up():
        r = get(prometheus, "/api/v1/targets")
        active = r and r["data"]["activeTargets"]
        return bool(active) and active[0]["health"] == "up"
    wait(target_up, 30, "the node's target up")

    puts = 'sum(ostium_s3_requests_total{job="ostium",op="PutObject",class="2xx"})'
    wait(lambda: query(prometheus, puts) == 5, 30, "Prometheus counting the 5 PUTs")
    assert query(prometheus, 'sum(ostium_s3_sent_bytes_total{op="GetObject"})') == 3 * 4096
    assert query(prometheus, 'sum(ostium_s3_request_duration_seconds_count{op="GetObject"})') == 3
    assert query(prometheus, 'ostium_platform_up{platform="local"}') == 1
    assert query(prometheus, 'up{job="ostium"}') == 1

    # The alert rules load and evaluate against the node's series.
    def rules_ok():
        r = get(prometheus, "/api/v1/rules")
        if not r or r.get("status") != "success":
            return False
        rules = [rule for g in r["data"]["groups"] for rule in g["rules"]]
        return len(rules) >= 7 and all(rule.get("health") == "ok" for rule in rules)
    wait(rules_ok, 30, "the alert rules loaded and healthy")
    firing = get(prometheus, "/api/v1/alerts")["data"]["alerts"]
    assert not [a for a in firing if a["labels"]["alertname"] in ("OstiumNodeDown", "OstiumPlatformDown")], firing

    for i in range(5):
        s3.delete_object(Bucket=name, Key=f"k{i}")
    s3.delete_bucket(Bucket=name)
