"""rclone (Debian's package) against a real ostium server, configured only
through RCLONE_CONFIG_OST_* environment variables (remote "ost:")."""

import hashlib
import json
import os
import subprocess

import pytest

from checksums import multipart_etag
from helpers import empty_and_delete, rand_bytes, require_tool, unique_bucket

# Run again through the cluster (multinode): rclone's own request patterns
# (checks, server-side copies, multi-thread ranged reads of a multipart
# object) spread over the nodes.
pytestmark = pytest.mark.multinode

MiB = 1024 * 1024


@pytest.fixture
def rclone(server, tmp_path):
    exe = require_tool("rclone", "apt-get install rclone")
    home = tmp_path / "rclone-home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RCLONE_", "AWS_"))}
    env.update(
        HOME=str(home),
        RCLONE_CONFIG=str(home / "rclone.conf"),  # does not exist: env only
        RCLONE_CONFIG_OST_TYPE="s3",
        RCLONE_CONFIG_OST_PROVIDER="Other",
        RCLONE_CONFIG_OST_ENV_AUTH="false",
        RCLONE_CONFIG_OST_ACCESS_KEY_ID=server.access_key,
        RCLONE_CONFIG_OST_SECRET_ACCESS_KEY=server.secret_key,
        RCLONE_CONFIG_OST_ENDPOINT=server.endpoint,
        RCLONE_CONFIG_OST_REGION=server.region,
        RCLONE_CONFIG_OST_FORCE_PATH_STYLE="true",
    )

    def run(*args, check=True):
        p = subprocess.run([exe, *map(str, args)], env=env, capture_output=True, text=True, timeout=300)
        if check and p.returncode != 0:
            pytest.fail(f"rclone {' '.join(map(str, args))} exited {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
        return p

    return run


@pytest.fixture
def rc_bucket(s3, request):
    name = unique_bucket("rc-" + request.node.name)
    yield name
    empty_and_delete(s3, name)


def make_tree(root):
    files = {
        "top.txt": b"top level\n",
        "docs/readme.md": b"# readme\n" * 50,
        "docs/deep/nested/file.bin": rand_bytes(200_000, seed=31),
        "media/photo one.jpg": rand_bytes(70_000, seed=32),
        "media/ünï.dat": b"unicode",
        "empty": b"",
    }
    for rel, data in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    return files


def copied(stderr):
    """Names rclone -v logged as copied."""
    return sorted(l.split("INFO  : ", 1)[1].rsplit(": Copied", 1)[0]
                  for l in stderr.splitlines() if "INFO  : " in l and ": Copied" in l)


def test_rclone_tree(rclone, s3, rc_bucket, tmp_path):
    remote = f"ost:{rc_bucket}"
    rclone("mkdir", remote)
    s3.head_bucket(Bucket=rc_bucket)
    assert rc_bucket in rclone("lsd", "ost:").stdout

    src = tmp_path / "src"
    files = make_tree(src)
    p = rclone("copy", "-v", src, f"{remote}/tree")
    assert copied(p.stderr) == sorted(files)
    keys = sorted(o["Key"] for o in s3.list_objects_v2(Bucket=rc_bucket)["Contents"])
    assert keys == sorted(f"tree/{k}" for k in files)
    for k, data in files.items():
        assert s3.get_object(Bucket=rc_bucket, Key=f"tree/{k}")["Body"].read() == data

    # Sizes and MD5s match (MD5 from the ETag of single-part objects).
    p = rclone("check", src, f"{remote}/tree")
    assert "0 differences found" in p.stderr
    assert f"{len(files)} matching files" in p.stderr
    p = rclone("check", "--download", src, f"{remote}/tree")
    assert "0 differences found" in p.stderr

    ls = rclone("ls", remote).stdout
    got = {l.split(None, 1)[1]: int(l.split(None, 1)[0]) for l in ls.splitlines() if l.strip()}
    assert got == {f"tree/{k}": len(v) for k, v in files.items()}

    for list_version in ("1", "2"):
        lj = json.loads(rclone("lsjson", "-R", "--hash", "--s3-list-version", list_version, f"{remote}/tree").stdout)
        objs = {e["Path"]: e for e in lj if not e["IsDir"]}
        dirs = sorted(e["Path"] for e in lj if e["IsDir"])
        assert sorted(objs) == sorted(files), list_version
        assert dirs == ["docs", "docs/deep", "docs/deep/nested", "media"], list_version
        for k, data in files.items():
            assert objs[k]["Size"] == len(data)
            assert objs[k]["Hashes"]["md5"] == hashlib.md5(data).hexdigest(), k
    lj = json.loads(rclone("lsjson", f"{remote}/tree/docs").stdout)
    assert sorted((e["Name"], e["IsDir"]) for e in lj) == [("deep", True), ("readme.md", False)]

    # A change on one side (another size) is found, and a sync sends only it.
    (src / "docs/readme.md").write_bytes(b"changed\n")
    p = rclone("check", src, f"{remote}/tree", check=False)
    assert p.returncode != 0 and "1 differences found" in p.stderr
    p = rclone("sync", "-v", src, f"{remote}/tree")
    assert copied(p.stderr) == ["docs/readme.md"]
    rclone("check", src, f"{remote}/tree")

    # Copy back down and compare.
    dst = tmp_path / "dst"
    rclone("copy", f"{remote}/tree", dst)
    for k in files:
        assert (dst / k).read_bytes() == (src / k).read_bytes(), k

    # Server-side copy inside the remote.
    rclone("copyto", f"{remote}/tree/top.txt", f"{remote}/copied/top.txt")
    assert s3.get_object(Bucket=rc_bucket, Key="copied/top.txt")["Body"].read() == b"top level\n"

    rclone("delete", f"{remote}/tree", "--include", "*.md")
    left = sorted(o["Key"] for o in s3.list_objects_v2(Bucket=rc_bucket, Prefix="tree/")["Contents"])
    assert left == sorted(f"tree/{k}" for k in files if not k.endswith(".md"))
    rclone("deletefile", f"{remote}/copied/top.txt")
    rclone("purge", remote)
    assert rc_bucket not in [b["Name"] for b in s3.list_buckets()["Buckets"]]


def test_rclone_multipart(rclone, s3, rc_bucket, tmp_path):
    remote = f"ost:{rc_bucket}"
    rclone("mkdir", remote)
    data = rand_bytes(12 * MiB + 7, seed=33)
    (tmp_path / "up").mkdir()
    big = tmp_path / "up" / "big.bin"
    big.write_bytes(data)
    rclone("copy", "--s3-upload-cutoff", "5M", "--s3-chunk-size", "5M", big, f"{remote}/up")
    h = s3.head_object(Bucket=rc_bucket, Key="up/big.bin")
    assert h["ContentLength"] == len(data)
    assert h["ETag"] == multipart_etag([data[i:i + 5 * MiB] for i in range(0, len(data), 5 * MiB)])
    # rclone keeps the whole-file MD5 in metadata for multipart objects.
    assert h["Metadata"].get("md5chksum")
    assert rclone("md5sum", f"{remote}/up/big.bin").stdout.split()[0] == hashlib.md5(data).hexdigest()
    p = rclone("check", "--download", tmp_path / "up", f"{remote}/up")
    assert "0 differences found" in p.stderr
    out = tmp_path / "down"
    rclone("copyto", "--multi-thread-streams", "4", "--multi-thread-cutoff", "5M", f"{remote}/up/big.bin", out / "big.bin")
    assert (out / "big.bin").read_bytes() == data
    rclone("purge", remote)
    assert rc_bucket not in [b["Name"] for b in s3.list_buckets()["Buckets"]]


def test_rclone_wrong_secret(rclone):
    # A connection string overrides the remote's configured secret.
    p = rclone("lsd", "ost,secret_access_key=wrong:", check=False)
    assert p.returncode != 0 and "SignatureDoesNotMatch" in p.stderr
