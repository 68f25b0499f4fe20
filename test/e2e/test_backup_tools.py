"""Backup tools against a real ostium server, the proof that backups
are protected: restic (Debian's package) against a versioned
bucket, kopia (built by .ci/run from its Go module into the CI cache)
with a COMPLIANCE retention against an object-lock bucket.

Each backs a tree up, checks its repository, restores and compares; then
what versioning and object lock are for is checked with boto3: what the
tool deleted is still there as a noncurrent version, and what kopia wrote
under retention cannot be deleted by anyone.
"""

import filecmp
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from botocore.exceptions import ClientError

from helpers import empty_and_delete, error_code, rand_bytes, require_tool, unique_bucket

# Run again through the cluster (multinode): long sequences of versioned and
# retained writes, listings and deletions spread over the nodes, checked by
# the tools themselves.
pytestmark = pytest.mark.multinode

# Where .ci/run builds kopia (it is not in Debian).
CI_BIN = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "ostium-ci" / "bin"


def tool(name, how):
    if shutil.which(name):
        return shutil.which(name)
    if (CI_BIN / name).exists():
        return str(CI_BIN / name)
    return require_tool(name, how)


def make_tree(root, seed):
    files = {
        "etc/app.conf": b"key = value\n" * 40,
        "data/blob.bin": rand_bytes(3 * 1024 * 1024 + 17, seed=seed),
        "data/small one.txt": b"small\n",
        "home/ünï/notes.md": b"# notes\n" * 500,
        "empty": b"",
    }
    for rel, data in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    return files


def same_tree(a, b):
    """Every file of a is in b with the same bytes (recursively)."""
    cmp = filecmp.dircmp(a, b)
    assert not cmp.left_only and not cmp.diff_files, (cmp.left_only, cmp.diff_files)
    _, mismatch, errors = filecmp.cmpfiles(a, b, cmp.common_files, shallow=False)
    assert not mismatch and not errors, (mismatch, errors)
    for d in cmp.common_dirs:
        same_tree(a / d, b / d)


def runner(exe, env, cwd):
    def run(*args, check=True, timeout=300):
        p = subprocess.run([exe, *map(str, args)], env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
        if check and p.returncode != 0:
            pytest.fail(f"{os.path.basename(exe)} {' '.join(map(str, args))} exited {p.returncode}\n"
                        f"stdout:\n{p.stdout[-4000:]}\nstderr:\n{p.stderr[-4000:]}")
        return p
    return run


@pytest.fixture
def tool_bucket(s3, request):
    name = unique_bucket(request.node.name)
    yield name
    empty_and_delete(s3, name)


def versions(s3, bucket, prefix=""):
    vs, dms = [], []
    for page in s3.get_paginator("list_object_versions").paginate(Bucket=bucket, Prefix=prefix):
        vs += page.get("Versions", [])
        dms += page.get("DeleteMarkers", [])
    return vs, dms


def test_restic_versioned_bucket(server, s3, tool_bucket, tmp_path):
    exe = tool("restic", "apt-get install restic")
    s3.create_bucket(Bucket=tool_bucket)
    s3.put_bucket_versioning(Bucket=tool_bucket, VersioningConfiguration={"Status": "Enabled"})
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "RESTIC_"))}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / "cache"),
               RESTIC_REPOSITORY=f"s3:{server.endpoint}/{tool_bucket}/repo", RESTIC_PASSWORD="e2e restic password",
               AWS_ACCESS_KEY_ID=server.access_key, AWS_SECRET_ACCESS_KEY=server.secret_key,
               AWS_DEFAULT_REGION=server.region)
    restic = runner(exe, env, tmp_path)

    src = tmp_path / "src"
    make_tree(src, seed=51)
    restic("init")
    restic("backup", "--host", "e2e", src)
    (src / "etc/app.conf").write_bytes(b"changed\n")
    (src / "data/new.bin").write_bytes(rand_bytes(1024 * 1024, seed=52))
    restic("backup", "--host", "e2e", src)
    restic("check", "--read-data")

    out = tmp_path / "restored"
    restic("restore", "latest", "--target", out)
    same_tree(src, out / src.relative_to("/"))

    # Pruning the first snapshot deletes packs; on a versioned bucket each
    # delete is a delete marker over a version that is still there.
    vs_before, _ = versions(s3, tool_bucket, "repo/")
    restic("forget", "--keep-last", "1", "--prune")
    restic("check", "--read-data")
    vs, dms = versions(s3, tool_bucket, "repo/")
    assert dms, "restic's prune deleted nothing"
    kept = {(v["Key"], v["VersionId"]) for v in vs}
    assert {(v["Key"], v["VersionId"]) for v in vs_before} <= kept
    for dm in dms:
        assert dm["IsLatest"]
        old = [v for v in vs if v["Key"] == dm["Key"]]
        assert old, f"{dm['Key']}: a delete marker over nothing"
        body = s3.get_object(Bucket=tool_bucket, Key=dm["Key"], VersionId=old[0]["VersionId"])["Body"].read()
        assert len(body) == old[0]["Size"]
    out2 = tmp_path / "restored2"
    restic("restore", "latest", "--target", out2)
    same_tree(src, out2 / src.relative_to("/"))


def test_kopia_compliance_retention(server, s3, tool_bucket, tmp_path):
    exe = tool("kopia", ".ci/run builds it from its Go module into ~/.cache/ostium-ci/bin")
    s3.create_bucket(Bucket=tool_bucket, ObjectLockEnabledForBucket=True)
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "KOPIA_"))}
    env.update(HOME=str(home), KOPIA_PASSWORD="e2e kopia password", KOPIA_CHECK_FOR_UPDATES="false")
    cfg = ["--config-file", home / "repository.config", "--log-dir", home / "logs"]
    run = runner(exe, env, tmp_path)

    def kopia(*args, **kw):
        return run(*args, *cfg, **kw)

    host = server.endpoint.removeprefix("http://")
    kopia("repository", "create", "s3", "--bucket", tool_bucket, "--endpoint", host, "--disable-tls",
          "--region", server.region, "--access-key", server.access_key, "--secret-access-key", server.secret_key,
          "--retention-mode", "COMPLIANCE", "--retention-period", "24h",
          "--cache-directory", home / "cache", "--no-check-for-updates")
    src = tmp_path / "src"
    make_tree(src, seed=61)
    kopia("snapshot", "create", src)
    (src / "data/small one.txt").write_bytes(b"second\n")
    kopia("snapshot", "create", src)
    kopia("snapshot", "verify", "--verify-files-percent", "100")
    snaps = kopia("snapshot", "list", src, "--json").stdout

    latest = json.loads(snaps)[-1]["id"]
    out = tmp_path / "restored"
    kopia("snapshot", "restore", latest, out)
    same_tree(src, out)

    # Every blob kopia wrote is a version under COMPLIANCE retention for
    # about a day; nobody, the provider's root included, deletes it.
    vs, _ = versions(s3, tool_bucket)
    assert len(vs) > 3
    locked, unlocked = 0, []
    for v in vs:
        try:
            r = s3.get_object_retention(Bucket=tool_bucket, Key=v["Key"], VersionId=v["VersionId"])["Retention"]
        except ClientError as e:
            assert e.response["Error"]["Code"] == "NoSuchObjectLockConfiguration", v["Key"]
            unlocked.append(v["Key"])
            continue
        assert r["Mode"] == "COMPLIANCE"
        locked += 1
        with pytest.raises(ClientError) as e:
            s3.delete_object(Bucket=tool_bucket, Key=v["Key"], VersionId=v["VersionId"])
        assert error_code(e) == (403, "AccessDenied")
    assert locked > 3, "kopia's blobs are not under retention"
    # kopia writes its logs, sessions and maintenance schedule without
    # retention (they are rewritten or short-lived); its data, indexes and
    # format blob have it.
    assert all(k.startswith(("_log_", "s", "kopia.maintenance")) for k in unlocked), unlocked
    assert "kopia.repository" not in unlocked and any(k.startswith("p") for k in {v["Key"] for v in vs} - set(unlocked))
    # kopia's own maintenance keeps working on a locked repository.
    kopia("maintenance", "run", "--full", "--safety=none")
    kopia("snapshot", "verify", "--verify-files-percent", "100")
