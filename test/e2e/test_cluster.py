"""Scale-out end to end: three nodes sharing PostgreSQL and an S3 platform
behind HAProxy (cluster.py). Objects written through one node read back
through every other; a node killed in the middle of a run costs no
acknowledged object; the death of the node holding the background jobs'
leases moves the jobs to a survivor."""

import hashlib
import os
import threading
import time

import boto3
import pytest
from botocore.config import Config

from cluster import Cluster
from helpers import ACCESS_KEY, SECRET_KEY, rand_bytes, unique_bucket


@pytest.fixture
def cluster(ostium_bin):
    if not os.environ.get("OSTIUM_TEST_POSTGRES"):
        if os.environ.get("CI"):
            pytest.fail("OSTIUM_TEST_POSTGRES is not set (.ci/run sets it)")
        pytest.skip("OSTIUM_TEST_POSTGRES is not set")
    c = Cluster(ostium_bin)
    yield c
    c.stop()


def client(endpoint, retries=1):
    return boto3.session.Session().client(
        "s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY,
        config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": retries, "mode": "standard"}))


def test_objects_written_through_one_node_read_back_through_each_other(cluster):
    bucket = unique_bucket("cross")
    first, *others = [client(n.endpoint) for n in cluster.nodes]
    first.create_bucket(Bucket=bucket)
    bodies = {"small": rand_bytes(1000, 1), "blob": rand_bytes(3 << 20, 2)}  # inline in the catalog, and on the platform
    for key, body in bodies.items():
        first.put_object(Bucket=bucket, Key=key, Body=body)
    for c in others:
        for key, body in bodies.items():
            assert c.get_object(Bucket=bucket, Key=key)["Body"].read() == body
        assert sorted(o["Key"] for o in c.list_objects_v2(Bucket=bucket)["Contents"]) == sorted(bodies)
    # A change through one node reaches the others' caches within a second.
    others[0].delete_object(Bucket=bucket, Key="small")
    others[0].delete_object(Bucket=bucket, Key="blob")
    others[1].delete_bucket(Bucket=bucket)
    deadline = time.monotonic() + 2
    while bucket in [b["Name"] for b in first.list_buckets()["Buckets"]]:
        assert time.monotonic() < deadline, "the deleted bucket is still listed by another node"
        time.sleep(0.1)


def test_killed_node_costs_no_acknowledged_object(cluster):
    """Writers through HAProxy while a node is SIGKILLed: every PUT that was
    acknowledged reads back byte-exact afterwards."""
    bucket = unique_bucket("kill")
    via = lambda: client(cluster.endpoint, retries=5)  # clients retry as SDKs do
    via().create_bucket(Bucket=bucket)
    acked, failures, stop = {}, [], threading.Event()
    lock = threading.Lock()

    def writer(w):
        c, i = via(), 0
        while not stop.is_set():
            key, body = f"w{w}/{i}", rand_bytes(48 << 10 if i % 2 else 2000, w * 100000 + i)  # blobs and inline
            try:
                c.put_object(Bucket=bucket, Key=key, Body=body)
                with lock:
                    acked[key] = hashlib.sha256(body).hexdigest()
            except Exception as e:  # not acknowledged: may or may not exist, either is right
                failures.append(repr(e))
            i += 1

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    time.sleep(2)
    cluster.nodes[1].kill()
    time.sleep(3)
    stop.set()
    for t in threads:
        t.join(60)
    assert len(acked) > 50, f"only {len(acked)} writes acknowledged ({len(failures)} failed: {failures[:3]})"
    c = via()
    for key, digest in acked.items():
        assert hashlib.sha256(c.get_object(Bucket=bucket, Key=key)["Body"].read()).hexdigest() == digest, key
    print(f"\n[cluster] {len(acked)} acknowledged writes survived a SIGKILL of a node; {len(failures)} failed and were not acknowledged")


def test_lease_holder_death_moves_jobs(cluster):
    deadline = time.monotonic() + 10
    while not {"collector", "sweeper"} <= set(cluster.jobs()):  # and the other leased jobs
        assert time.monotonic() < deadline, f"jobs not leased: {cluster.jobs()}"
        time.sleep(0.2)
    holder = cluster.jobs()["collector"]
    victim = next(n for n in cluster.nodes if n.id == holder)
    victim.kill()
    survivors = {n.id for n in cluster.nodes if n is not victim}
    deadline = time.monotonic() + 15  # the lease (3 s) runs out, a survivor takes it
    while not (cluster.jobs().get("collector") in survivors and cluster.jobs().get("sweeper") in survivors):
        assert time.monotonic() < deadline, f"jobs did not move off {holder}: {cluster.jobs()}"
        time.sleep(0.2)


def test_console_on_its_own_host_name(cluster):
    """deploy/haproxy.cfg sends the console's host name to the nodes'
    console listeners, over HTTPS only, and every other host name to S3,
    whose /console/ is a bucket no one can create: the console never shares
    an origin with tenants' objects."""
    import http.client
    import ssl
    ctx = ssl.create_default_context(cafile=cluster.ca.cert)
    ctx.check_hostname = False  # the test CA's certificate names 127.0.0.1

    def get(path, host, tls):
        conn = (http.client.HTTPSConnection("127.0.0.1", cluster.https_port, context=ctx, timeout=10) if tls
                else http.client.HTTPConnection("127.0.0.1", cluster.port, timeout=10))
        conn.request("GET", path, headers={"Host": host})
        res = conn.getresponse()
        body = res.read()
        conn.close()
        return res, body

    res, body = get("/console/", "console.example.com", True)
    assert res.status == 200 and b"<html" in body.lower(), (res.status, body[:200])
    assert res.getheader("Strict-Transport-Security") == "max-age=31536000"  # HTTPS as the balancer forwards it
    assert "script-src 'self'" in res.getheader("Content-Security-Policy")
    res, _ = get("/health/ready", "console.example.com", True)
    assert res.status == 404  # the console's listener serves the console alone
    res, _ = get("/console/", "console.example.com", False)
    assert res.status == 301 and res.getheader("Location", "").startswith("https://console.example.com/")
    res, body = get("/console/", "localhost", False)
    assert res.status >= 400 and b"<Code>" in body and b"<html" not in body.lower(), (res.status, body[:200])
