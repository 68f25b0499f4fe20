"""s3cmd against a real ostium server, path style, once with SigV4 and once
with SigV2 (signature_v2 = True)."""

import hashlib
import os
import subprocess
import sys

import pytest

from checksums import multipart_etag
from helpers import empty_and_delete, rand_bytes, require_tool, unique_bucket

MiB = 1024 * 1024


@pytest.fixture(params=[False, True], ids=["sigv4", "sigv2"])
def s3cmd(request, server, tmp_path):
    exe = require_tool("s3cmd")
    cfg = tmp_path / "s3cmd.cfg"
    host = f"127.0.0.1:{server.port}"
    cfg.write_text(f"""[default]
access_key = {server.access_key}
secret_key = {server.secret_key}
host_base = {host}
host_bucket = {host}
use_https = False
check_ssl_certificate = False
signature_v2 = {request.param}
bucket_location = us-east-1
progress_meter = False
""")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "S3CMD"))}
    env["HOME"] = str(tmp_path)

    def run(*args, check=True):
        p = subprocess.run([sys.executable, exe, "-c", str(cfg), *map(str, args)], env=env,
                           capture_output=True, text=True, timeout=300)
        if check and p.returncode != 0:
            pytest.fail(f"s3cmd {' '.join(map(str, args))} exited {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
        return p

    run.sigv2 = request.param
    return run


@pytest.fixture
def cmd_bucket(s3, request):
    name = unique_bucket("cmd-" + request.node.name)
    yield name
    empty_and_delete(s3, name)


def ls_keys(out):
    """{url: size} of the object lines of `s3cmd ls`."""
    res = {}
    for l in out.splitlines():
        f = l.split(None, 3)
        if len(f) == 4 and f[2] != "DIR":
            res[f[3]] = int(f[2])
    return res


def test_s3cmd_basic(s3cmd, s3, cmd_bucket, tmp_path):
    b = f"s3://{cmd_bucket}"
    p = s3cmd("mb", b)
    assert f"Bucket '{b}/' created" in p.stdout
    s3.head_bucket(Bucket=cmd_bucket)
    assert b in s3cmd("ls").stdout

    small = tmp_path / "small.txt"
    small.write_bytes(b"hello from s3cmd\n")
    s3cmd("put", small, f"{b}/dir/small.txt", "--mime-type=text/x-s3cmd", "--add-header=x-amz-meta-origin:e2e")
    h = s3.head_object(Bucket=cmd_bucket, Key="dir/small.txt")
    assert h["ETag"] == f'"{hashlib.md5(small.read_bytes()).hexdigest()}"'
    assert h["ContentType"] == "text/x-s3cmd"
    assert h["Metadata"]["origin"] == "e2e"

    out = s3cmd("ls", b).stdout
    assert "DIR" in out and f"{b}/dir/" in out
    assert ls_keys(s3cmd("ls", "--recursive", b).stdout) == {f"{b}/dir/small.txt": small.stat().st_size}

    info = s3cmd("info", f"{b}/dir/small.txt").stdout
    assert f"File size: {small.stat().st_size}" in info
    assert hashlib.md5(small.read_bytes()).hexdigest() in info
    assert "text/x-s3cmd" in info
    binfo = s3cmd("info", b).stdout
    assert "Location:" in binfo and "us-east-1" in binfo

    got = tmp_path / "got.txt"
    s3cmd("get", f"{b}/dir/small.txt", got)
    assert got.read_bytes() == small.read_bytes()

    # Server-side copy and move.
    s3cmd("cp", f"{b}/dir/small.txt", f"{b}/dir/copy.txt")
    s3cmd("mv", f"{b}/dir/copy.txt", f"{b}/moved.txt")
    assert s3.get_object(Bucket=cmd_bucket, Key="moved.txt")["Body"].read() == small.read_bytes()
    assert sorted(o["Key"] for o in s3.list_objects_v2(Bucket=cmd_bucket)["Contents"]) == ["dir/small.txt", "moved.txt"]

    p = s3cmd("rb", b, check=False)
    assert p.returncode != 0 and "BucketNotEmpty" in p.stdout + p.stderr

    s3cmd("del", f"{b}/moved.txt")
    assert [o["Key"] for o in s3.list_objects_v2(Bucket=cmd_bucket)["Contents"]] == ["dir/small.txt"]
    s3cmd("del", "--recursive", "--force", b)
    assert s3.list_objects_v2(Bucket=cmd_bucket)["KeyCount"] == 0
    assert f"Bucket '{b}/' removed" in s3cmd("rb", b).stdout
    assert cmd_bucket not in [x["Name"] for x in s3.list_buckets()["Buckets"]]


@pytest.mark.multinode  # s3cmd's parts and completion reach different nodes
def test_s3cmd_multipart(s3cmd, s3, cmd_bucket, tmp_path):
    b = f"s3://{cmd_bucket}"
    s3cmd("mb", b)
    data = rand_bytes(11 * MiB + 3, seed=41)
    big = tmp_path / "big.bin"
    big.write_bytes(data)
    s3cmd("put", "--multipart-chunk-size-mb=5", big, f"{b}/big.bin")
    h = s3.head_object(Bucket=cmd_bucket, Key="big.bin")
    assert h["ContentLength"] == len(data)
    assert h["ETag"] == multipart_etag([data[i:i + 5 * MiB] for i in range(0, len(data), 5 * MiB)])
    # s3cmd's own metadata carries the whole-file MD5 it checks on get.
    assert hashlib.md5(data).hexdigest() in h["Metadata"].get("s3cmd-attrs", "")
    got = tmp_path / "got.bin"
    s3cmd("get", f"{b}/big.bin", got)
    assert got.read_bytes() == data
    assert s3cmd("multipart", b).returncode == 0  # lists in-progress uploads: none
    assert s3.list_multipart_uploads(Bucket=cmd_bucket).get("Uploads", []) == []


def test_s3cmd_sync(s3cmd, s3, cmd_bucket, tmp_path):
    b = f"s3://{cmd_bucket}"
    s3cmd("mb", b)
    src = tmp_path / "src"
    files = {"a.txt": b"a\n", "d1/b.txt": b"b" * 1000, "d1/d2/c.bin": rand_bytes(50_000, seed=42),
             "space name.txt": b"space", "ünï.txt": b"unicode"}
    for rel, data in files.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_bytes(data)

    out = s3cmd("sync", f"{src}/", f"{b}/tree/").stdout
    assert out.count("upload:") == len(files)
    keys = sorted(o["Key"] for o in s3.list_objects_v2(Bucket=cmd_bucket)["Contents"])
    assert keys == sorted(f"tree/{k}" for k in files)

    out = s3cmd("sync", f"{src}/", f"{b}/tree/").stdout
    assert out.count("upload:") == 0

    (src / "d1/b.txt").write_bytes(b"changed")  # another size: found without waiting for a newer mtime
    out = s3cmd("sync", f"{src}/", f"{b}/tree/").stdout
    uploads = [l for l in out.splitlines() if l.startswith("upload:")]
    assert len(uploads) == 1 and "d1/b.txt" in uploads[0]
    assert s3.get_object(Bucket=cmd_bucket, Key="tree/d1/b.txt")["Body"].read() == b"changed"

    dst = tmp_path / "dst"
    dst.mkdir()
    out = s3cmd("sync", f"{b}/tree/", f"{dst}/").stdout
    assert out.count("download:") == len(files)
    for rel in files:
        assert (dst / rel).read_bytes() == (src / rel).read_bytes(), rel
    s3cmd("del", "--recursive", "--force", b)
    s3cmd("rb", b)


def test_s3cmd_wrong_secret(s3cmd, tmp_path):
    # Same config but another secret: every request is refused.
    cfg = next(tmp_path.glob("s3cmd.cfg"))
    text = cfg.read_text().splitlines()
    cfg.write_text("\n".join("secret_key = wrong-secret" if l.startswith("secret_key") else l for l in text) + "\n")
    p = s3cmd("ls", check=False)
    assert p.returncode != 0 and "SignatureDoesNotMatch" in p.stdout + p.stderr
