"""A content library end to end: a tenant uploads an OVF template and an
ISO with boto3 (the disk as a multipart upload, as boto3's transfer
makes it), publishes the bucket's folder with `ostium admin catalog`,
and a subscriber walks it as vCenter does, with a plain HTTP client:
lib.json, items.json, each item.json, each file with its size and etag,
a range of the disk. On a node of its own whose indexer runs every
200 ms (catalog_index_interval)."""

import base64
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

import pytest

from helpers import start_server


@pytest.fixture(scope="module")
def cl_server(ostium_bin):
    conf_dir = tempfile.mkdtemp(prefix="ostium-e2e-cl-")
    conf = os.path.join(conf_dir, "ostium.yaml")
    with open(conf, "w") as f:
        f.write("data: unused\ncatalog_index_interval: 200ms\n")
    srv = start_server(ostium_bin, extra_args=["--config", conf])
    yield srv
    srv.stop()
    shutil.rmtree(srv.data_dir, ignore_errors=True)
    shutil.rmtree(srv.log_dir, ignore_errors=True)
    shutil.rmtree(conf_dir, ignore_errors=True)


def admin(ostium_bin, server, *args, stdin=None):
    env = dict(os.environ, OSTIUM_ENDPOINT=server.endpoint,
               OSTIUM_ROOT_ACCESS_KEY=server.access_key, OSTIUM_ROOT_SECRET_KEY=server.secret_key)
    res = subprocess.run([ostium_bin, "admin", "--json", *args], env=env, input=stdin, capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout) if res.stdout.strip() else None


def get(url, auth=None, headers=None):
    """A subscriber's GET: status, headers, body."""
    req = urllib.request.Request(url, headers=dict(headers or {}))
    if auth:
        req.add_header("Authorization", "Basic " + base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode())
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def test_publish_and_subscribe(ostium_bin, cl_server):
    srv = cl_server
    t = "t" + uuid.uuid4().hex[:10]
    admin(ostium_bin, srv, "tenant", "create", t)
    admin(ostium_bin, srv, "user", "create", t, "boss", "--role", "admin")
    key = admin(ostium_bin, srv, "key", "create", t, "boss")
    s3 = srv.client(access_key=key["access_key"], secret_key=key["secret_key"])
    bucket = t + "-images"
    s3.create_bucket(Bucket=bucket)

    disk = os.urandom(20 * 1024 * 1024 + 5)
    files = {
        "templates/photon/photon.ovf": b'<?xml version="1.0"?><Envelope/>',
        "templates/photon/photon.mf": b"SHA256(photon.ovf)= 00\n",
        "templates/ubuntu/ubuntu.iso": os.urandom(100_000),
        "elsewhere/secret.txt": b"not in the library",
    }
    with tempfile.NamedTemporaryFile() as f:
        f.write(disk)
        f.flush()
        s3.upload_file(f.name, bucket, "templates/photon/photon-disk1.vmdk")  # multipart past 8 MB
    files["templates/photon/photon-disk1.vmdk"] = disk
    for k, v in files.items():
        if k != "templates/photon/photon-disk1.vmdk":
            s3.put_object(Bucket=bucket, Key=k, Body=v)

    pw = "correct horse battery"
    c = admin(ostium_bin, srv, "catalog", "publish", t, "golden", "--bucket", bucket, "--prefix", "templates/",
              "--auth-user", "vcsp", stdin=pw + "\n")
    assert c["protected"] and c["user"] == "vcsp" and c["url"] == f"/catalogs/{t}/golden/lib.json"
    lib_url = srv.endpoint + c["url"]
    auth = ("vcsp", pw)

    deadline = time.monotonic() + 30
    while True:
        st, _, body = get(lib_url, auth)
        if st == 200:
            break
        assert st == 404, body
        assert time.monotonic() < deadline, "lib.json not generated within 30 s (interval 200 ms)"
        time.sleep(0.2)
    lib = json.loads(body)
    assert lib["vcspVersion"] == "2" and lib["name"] == "golden" and lib["id"].startswith("urn:uuid:")
    assert lib["capabilities"] == {"transferIn": ["httpGet"], "transferOut": ["httpGet"]}

    st, hdr, _ = get(lib_url)
    assert st == 401 and hdr["WWW-Authenticate"].startswith("Basic ")

    st, _, body = get(urllib.parse.urljoin(lib_url, lib["itemsHref"]), auth)
    assert st == 200
    items = {it["name"]: it for it in json.loads(body)["items"]}
    assert set(items) == {"photon", "ubuntu"}
    assert items["photon"]["type"] == "vcsp.ovf" and items["ubuntu"]["type"] == "vcsp.iso"
    for it in items.values():
        st, _, body = get(urllib.parse.urljoin(lib_url, it["selfHref"]), auth)
        assert st == 200 and json.loads(body) == it
        for f in it["files"]:
            st, _, data = get(urllib.parse.urljoin(lib_url, f["hrefs"][0]), auth)
            assert st == 200 and len(data) == f["size"]
            assert data == files["templates/" + it["name"] + "/" + f["name"]]
            if "-" not in f["etag"]:
                assert hashlib.md5(data).hexdigest() == f["etag"]
    vmdk = next(f for f in items["photon"]["files"] if f["name"] == "photon-disk1.vmdk")
    assert vmdk["etag"].endswith("-3"), vmdk  # boto3's 8 MiB parts
    st, hdr, data = get(urllib.parse.urljoin(lib_url, vmdk["hrefs"][0]), auth, {"Range": "bytes=10485760-10485859"})
    assert st == 206 and data == disk[10485760:10485860]
    assert hdr["Content-Range"] == f"bytes 10485760-10485859/{len(disk)}"

    st, _, _ = get(srv.endpoint + f"/catalogs/{t}/golden/..%2Felsewhere/secret.txt", auth)
    assert st == 404

    assert admin(ostium_bin, srv, "catalog", "unpublish", t, "golden") == {"deleted": True}
    assert get(lib_url, auth)[0] == 404
