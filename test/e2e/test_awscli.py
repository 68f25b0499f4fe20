"""The aws cli (v1, from PyPI) against a real ostium server: `aws s3` and
`aws s3api`, run as subprocesses with credentials in the environment and no
user configuration."""

import filecmp
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from checksums import multipart_etag
from helpers import md5_hex, rand_bytes, unique_bucket

MiB = 1024 * 1024


@pytest.fixture
def aws(server, tmp_path):
    """aws(*args) runs the cli against the server and returns the completed
    process; check=True fails the test on a non-zero exit."""
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(
        HOME=str(home),
        AWS_CONFIG_FILE=str(home / "no-config"),
        AWS_SHARED_CREDENTIALS_FILE=str(home / "no-credentials"),
        AWS_ACCESS_KEY_ID=server.access_key,
        AWS_SECRET_ACCESS_KEY=server.secret_key,
        AWS_DEFAULT_REGION=server.region,
        AWS_EC2_METADATA_DISABLED="true",
        AWS_PAGER="",
    )

    def run(*args, check=True, cwd=None, endpoint=None, extra_env=None):
        if len(args) > 1 and args[0] == "s3" and args[1] in ("cp", "sync", "mv"):
            args = (*args, "--no-progress")
        cmd = [sys.executable, "-m", "awscli", "--endpoint-url", endpoint or server.endpoint, *map(str, args)]
        p = subprocess.run(cmd, env={**env, **(extra_env or {})}, capture_output=True, text=True,
                           timeout=300, cwd=cwd)
        if check and p.returncode != 0:
            pytest.fail(f"aws {' '.join(map(str, args))} exited {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
        return p

    run.env = env
    return run


@pytest.fixture
def cli_bucket(aws, s3, request):
    name = unique_bucket("cli-" + request.node.name)
    yield name
    from helpers import empty_and_delete
    empty_and_delete(s3, name)


def write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_s3_mb_cp_ls_rm_rb(aws, s3, cli_bucket, tmp_path):
    b = f"s3://{cli_bucket}"
    out = aws("s3", "mb", b).stdout
    assert f"make_bucket: {cli_bucket}" in out
    s3.head_bucket(Bucket=cli_bucket)

    small = write(tmp_path / "up" / "small.txt", b"hello from the aws cli\n")
    big_data = rand_bytes(9 * MiB + 1234, seed=21)  # above the 8 MiB threshold
    big = write(tmp_path / "up" / "big.bin", big_data)

    aws("s3", "cp", small, f"{b}/docs/small.txt")
    aws("s3", "cp", big, f"{b}/data/big.bin")
    h = s3.head_object(Bucket=cli_bucket, Key="data/big.bin")
    assert h["ContentLength"] == len(big_data)
    assert h["ETag"] == multipart_etag([big_data[:8 * MiB], big_data[8 * MiB:]])  # 8 MiB parts
    assert s3.head_object(Bucket=cli_bucket, Key="docs/small.txt")["ETag"] == f'"{md5_hex(small.read_bytes())}"'
    assert s3.head_object(Bucket=cli_bucket, Key="docs/small.txt")["ContentType"] == "text/plain"

    down = tmp_path / "down"
    aws("s3", "cp", f"{b}/docs/small.txt", down / "small.txt")
    aws("s3", "cp", f"{b}/data/big.bin", down / "big.bin")
    assert (down / "small.txt").read_bytes() == small.read_bytes()
    assert (down / "big.bin").read_bytes() == big_data

    # Copy within S3 (CopyObject; multipart copy above the threshold).
    aws("s3", "cp", f"{b}/data/big.bin", f"{b}/copies/big.bin")
    aws("s3", "cp", f"{b}/docs/small.txt", f"{b}/copies/small.txt")
    aws("s3", "cp", f"{b}/copies/big.bin", down / "big-copy.bin")
    assert (down / "big-copy.bin").read_bytes() == big_data

    top = [l.split() for l in aws("s3", "ls", b).stdout.splitlines() if l.strip()]
    assert sorted(top) == [["PRE", "copies/"], ["PRE", "data/"], ["PRE", "docs/"]]
    rec = aws("s3", "ls", "--recursive", b).stdout
    listed = {l.split()[-1]: int(l.split()[2]) for l in rec.splitlines() if l.strip()}
    assert listed == {"copies/big.bin": len(big_data), "copies/small.txt": small.stat().st_size,
                      "data/big.bin": len(big_data), "docs/small.txt": small.stat().st_size}
    assert cli_bucket in aws("s3", "ls").stdout

    p = aws("s3", "rb", b, check=False)
    assert p.returncode != 0 and "BucketNotEmpty" in p.stderr

    out = aws("s3", "rm", "--recursive", f"{b}/copies/").stdout
    assert out.count("delete: ") == 2
    assert sorted(o["Key"] for o in s3.list_objects_v2(Bucket=cli_bucket)["Contents"]) == ["data/big.bin", "docs/small.txt"]
    aws("s3", "rm", "--recursive", b)
    assert s3.list_objects_v2(Bucket=cli_bucket)["KeyCount"] == 0
    assert f"remove_bucket: {cli_bucket}" in aws("s3", "rb", b).stdout
    assert cli_bucket not in [x["Name"] for x in s3.list_buckets()["Buckets"]]


@pytest.mark.multinode  # the bucket deleted right after its objects, each through any node
def test_s3_rb_force(aws, s3, cli_bucket):
    aws("s3", "mb", f"s3://{cli_bucket}")
    for i in range(5):
        s3.put_object(Bucket=cli_bucket, Key=f"f/{i}", Body=b"x")
    aws("s3", "rb", "--force", f"s3://{cli_bucket}")
    assert cli_bucket not in [x["Name"] for x in s3.list_buckets()["Buckets"]]


def make_tree(root):
    files = {
        "a.txt": b"alpha\n",
        "dir1/b.txt": b"bravo\n" * 100,
        "dir1/sub/c.bin": rand_bytes(100_000, seed=22),
        "dir2/d with space.txt": b"delta\n",
        "dir2/ünï.txt": b"unicode name\n",
        "empty.txt": b"",
        "big/e.bin": rand_bytes(9 * MiB, seed=23),
    }
    # Files older than the upload, as they usually are: the cli compares
    # mtimes with S3's LastModified, which has one-second precision.
    old = time.time() - 3600
    for rel, data in files.items():
        os.utime(write(root / rel, data), (old, old))
    return files


def transferred(output, verb):
    """Keys named in `aws s3 sync` output lines starting with verb."""
    return sorted(l.split(" to ")[-1] if verb != "delete" else l.split(": ", 1)[1]
                  for l in output.splitlines() if l.startswith(verb + ":"))


@pytest.mark.multinode  # sync lists what other nodes just wrote to decide what changed
def test_s3_sync_roundtrip(aws, s3, cli_bucket, tmp_path):
    b = f"s3://{cli_bucket}"
    aws("s3", "mb", b)
    src = tmp_path / "src"
    files = make_tree(src)

    out = aws("s3", "sync", src, f"{b}/tree").stdout
    assert transferred(out, "upload") == sorted(f"{b}/tree/{k}" for k in files)
    keys = sorted(o["Key"] for p in s3.get_paginator("list_objects_v2").paginate(Bucket=cli_bucket)
                  for o in p.get("Contents", []))
    assert keys == sorted(f"tree/{k}" for k in files)

    # Nothing changed: nothing transfers.
    out = aws("s3", "sync", src, f"{b}/tree").stdout
    assert out.strip() == ""

    # One file changed (size differs), one added, one removed locally.
    write(src / "dir1/b.txt", b"bravo changed\n")
    write(src / "dir2/new.txt", b"new file\n")
    (src / "a.txt").unlink()
    out = aws("s3", "sync", "--delete", src, f"{b}/tree").stdout
    assert transferred(out, "upload") == [f"{b}/tree/dir1/b.txt", f"{b}/tree/dir2/new.txt"]
    assert transferred(out, "delete") == [f"{b}/tree/a.txt"]

    # Same size, newer mtime: sync uploads it too. The mtime is set past
    # the object's Last-Modified (whole seconds) rather than waited for.
    write(src / "dir2/d with space.txt", b"DELTA\n")
    later = time.time() + 2
    os.utime(src / "dir2/d with space.txt", (later, later))
    out = aws("s3", "sync", src, f"{b}/tree").stdout
    assert transferred(out, "upload") == [f"{b}/tree/dir2/d with space.txt"]

    dst = tmp_path / "dst"
    out = aws("s3", "sync", f"{b}/tree", dst).stdout
    assert len(transferred(out, "download")) == len(files)  # -a.txt +new.txt
    assert_same_tree(src, dst)
    # And again: nothing to download.
    assert aws("s3", "sync", f"{b}/tree", dst).stdout.strip() == ""

    # Sync between two prefixes (server-side copies).
    out = aws("s3", "sync", f"{b}/tree", f"{b}/mirror").stdout
    assert len(transferred(out, "copy")) == len(files)
    mirror = tmp_path / "mirror"
    aws("s3", "sync", f"{b}/mirror", mirror)
    assert_same_tree(src, mirror)


def assert_same_tree(a, b):
    def walk(root):
        return sorted(str(p.relative_to(root)) for p in Path(root).rglob("*") if p.is_file())
    fa, fb = walk(a), walk(b)
    assert fa == fb
    match, mismatch, errors = filecmp.cmpfiles(a, b, fa, shallow=False)
    assert mismatch == [] and errors == []


def test_s3api(aws, s3, cli_bucket, tmp_path):
    def api(*args):
        out = aws("s3api", *args, "--output", "json").stdout
        return json.loads(out) if out.strip() else {}

    api("create-bucket", "--bucket", cli_bucket)
    body = write(tmp_path / "body.bin", rand_bytes(3000, seed=24))
    r = api("put-object", "--bucket", cli_bucket, "--key", "api/obj", "--body", body,
            "--metadata", "k1=v1,k2=v2", "--content-type", "application/x-api", "--cache-control", "max-age=5")
    assert r["ETag"] == f'"{md5_hex(body.read_bytes())}"'
    h = api("head-object", "--bucket", cli_bucket, "--key", "api/obj")
    assert h["ContentLength"] == 3000 and h["Metadata"] == {"k1": "v1", "k2": "v2"}
    assert h["ContentType"] == "application/x-api" and h["CacheControl"] == "max-age=5"

    out = tmp_path / "got.bin"
    g = api("get-object", "--bucket", cli_bucket, "--key", "api/obj", "--range", "bytes=100-199", out)
    assert g["ContentRange"] == "bytes 100-199/3000"
    assert out.read_bytes() == body.read_bytes()[100:200]
    api("get-object", "--bucket", cli_bucket, "--key", "api/obj", out)
    assert out.read_bytes() == body.read_bytes()

    p = aws("s3api", "head-object", "--bucket", cli_bucket, "--key", "missing", check=False)
    assert p.returncode != 0 and "404" in p.stderr

    # Multipart by hand.
    parts_data = [rand_bytes(5 * MiB, seed=25), b"last part"]
    up = api("create-multipart-upload", "--bucket", cli_bucket, "--key", "api/mp")
    uid = up["UploadId"]
    parts = []
    for n, data in enumerate(parts_data, 1):
        f = write(tmp_path / f"part{n}", data)
        r = api("upload-part", "--bucket", cli_bucket, "--key", "api/mp", "--upload-id", uid,
                "--part-number", str(n), "--body", f)
        parts.append({"PartNumber": n, "ETag": r["ETag"]})
    lp = api("list-parts", "--bucket", cli_bucket, "--key", "api/mp", "--upload-id", uid)
    assert [p["Size"] for p in lp["Parts"]] == [len(d) for d in parts_data]
    mpu = write(tmp_path / "mpu.json", json.dumps({"Parts": parts}).encode())
    r = api("complete-multipart-upload", "--bucket", cli_bucket, "--key", "api/mp", "--upload-id", uid,
            "--multipart-upload", f"file://{mpu}")
    assert r["ETag"] == multipart_etag(parts_data)
    assert r["Key"] == "api/mp" and r["Bucket"] == cli_bucket
    assert s3.get_object(Bucket=cli_bucket, Key="api/mp")["Body"].read() == b"".join(parts_data)

    ls = api("list-objects-v2", "--bucket", cli_bucket, "--prefix", "api/")
    assert [o["Key"] for o in ls["Contents"]] == ["api/mp", "api/obj"]
    ls = api("list-objects-v2", "--bucket", cli_bucket, "--prefix", "api/", "--no-paginate", "--max-keys", "1")
    assert [o["Key"] for o in ls["Contents"]] == ["api/mp"]
    assert ls["KeyCount"] == 1 and ls["IsTruncated"] is True and ls["NextContinuationToken"]
    ls = api("list-objects-v2", "--bucket", cli_bucket, "--delimiter", "/")
    assert [p["Prefix"] for p in ls["CommonPrefixes"]] == ["api/"]
    # The cli paginates itself with --page-size.
    ls = api("list-objects-v2", "--bucket", cli_bucket, "--page-size", "1")
    assert [o["Key"] for o in ls["Contents"]] == ["api/mp", "api/obj"]

    d = api("delete-objects", "--bucket", cli_bucket, "--delete",
            json.dumps({"Objects": [{"Key": "api/obj"}, {"Key": "api/mp"}, {"Key": "api/none"}]}))
    assert sorted(x["Key"] for x in d["Deleted"]) == ["api/mp", "api/none", "api/obj"]
    assert "Errors" not in d
    assert api("list-objects-v2", "--bucket", cli_bucket).get("Contents", []) == []
    assert s3.list_objects_v2(Bucket=cli_bucket)["KeyCount"] == 0
    api("delete-bucket", "--bucket", cli_bucket)
    p = aws("s3api", "head-bucket", "--bucket", cli_bucket, check=False)
    assert p.returncode != 0 and "404" in p.stderr


def test_s3_cp_over_https(aws, s3, cli_bucket, tls, tmp_path):
    # Over https the cli (botocore) uploads aws-chunked with CRC32 trailers.
    https = dict(endpoint=tls.endpoint, extra_env={"AWS_CA_BUNDLE": tls.cert})
    aws("s3", "mb", f"s3://{cli_bucket}", **https)
    data = rand_bytes(9 * MiB, seed=26)
    f = write(tmp_path / "f.bin", data)
    aws("s3", "cp", f, f"s3://{cli_bucket}/f.bin", **https)
    p = aws("--debug", "s3", "cp", write(tmp_path / "s.txt", b"small"), f"s3://{cli_bucket}/s.txt", **https)
    assert "STREAMING-UNSIGNED-PAYLOAD-TRAILER" in p.stderr
    assert s3.head_object(Bucket=cli_bucket, Key="f.bin")["ETag"] == multipart_etag([data[:8 * MiB], data[8 * MiB:]])
    assert s3.get_object(Bucket=cli_bucket, Key="s.txt")["Body"].read() == b"small"
    aws("s3", "cp", f"s3://{cli_bucket}/f.bin", tmp_path / "back.bin", **https)
    assert (tmp_path / "back.bin").read_bytes() == data


def test_cli_wrong_secret(aws, server):
    env = dict(aws.env, AWS_SECRET_ACCESS_KEY="wrong-secret")
    p = subprocess.run([sys.executable, "-m", "awscli", "--endpoint-url", server.endpoint, "s3", "ls"],
                       env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode != 0 and "SignatureDoesNotMatch" in p.stderr
