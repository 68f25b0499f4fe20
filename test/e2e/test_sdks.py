"""The AWS SDKs' own transfer code against a node, with the SDKs' default
settings: the AWS SDK for Java v2 (S3TransferManager over the CRT-based
client and over the Java-based async client, and the synchronous client)
and the AWS SDK for JavaScript v3 (the Upload class of @aws-sdk/lib-storage).

Each uploads a 100 MB file, reads it back and compares the bytes; the
object must have been written by multipart upload, so that the SDK's
CompleteMultipartUpload (with x-amz-mp-object-size from the Java v2
TransferManager) was honoured. The projects are test/sdk/java (Maven) and
test/sdk/js (npm), with pinned versions; their dependencies are kept in
the CI cache (~/.cache/ostium-ci/m2 and npm), which .ci/run fills.
"""

import os
import shutil
import subprocess
import time

import pytest

from helpers import REPO

SIZE = 100 * 1000 * 1000
CACHE = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "ostium-ci")
JAVA_DIR = REPO / "test" / "sdk" / "java"
JS_DIR = REPO / "test" / "sdk" / "js"


def need(tool, how):
    """The tool's path; missing, it skips here and fails in CI (CI=true),
    where .ci/run installs it."""
    path = shutil.which(tool)
    if not path:
        msg = f"{tool} is not installed ({how})"
        if os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)
    return path


def run(capsys, label, args, cwd, env=None, timeout=600):
    """Runs a step, showing its output line by line as it comes (these
    steps are long); returns the output, failing the test on a non-zero
    exit."""
    t0 = time.monotonic()
    with capsys.disabled():
        print(f"\n[{label}] {os.path.basename(args[0])} {args[-5] if len(args) > 5 else ''} ...", flush=True)
    proc = subprocess.Popen(args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, text=True)
    lines = []
    try:
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("SLF4J:"):
                continue  # the SDK's note that no logger is bound
            with capsys.disabled():
                print(f"[{label}] {line.rstrip()}", flush=True)
        proc.wait(timeout=max(1, timeout - (time.monotonic() - t0)))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    with capsys.disabled():
        print(f"[{label}] exit {proc.returncode} after {time.monotonic() - t0:.1f} s", flush=True)
    out = "".join(lines)
    assert proc.returncode == 0, f"{label} failed:\n{out[-4000:]}"
    return out


@pytest.fixture(scope="module")
def big_file(tmp_path_factory):
    """100 MB of random bytes (not a multiple of any part size)."""
    path = tmp_path_factory.mktemp("sdk") / "big.bin"
    with open(path, "wb") as f:
        left = SIZE + 12345
        while left:
            n = min(left, 1 << 20)
            f.write(os.urandom(n))
            left -= n
    return path


def sdk_env(server):
    env = dict(os.environ)
    env.update(AWS_ACCESS_KEY_ID=server.access_key, AWS_SECRET_ACCESS_KEY=server.secret_key,
               AWS_REGION=server.region, AWS_EC2_METADATA_DISABLED="true")
    for k in ("AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_SESSION_TOKEN"):
        env.pop(k, None)
    return env


@pytest.fixture(scope="module")
def java_classpath():
    """Builds test/sdk/java (Maven, dependencies from Maven Central into the
    CI cache) and returns the classpath to run it with."""
    need("java", "apt-get install default-jdk-headless")
    mvn = need("mvn", "apt-get install maven")
    repo = os.environ.get("OSTIUM_MAVEN_REPO") or os.path.join(CACHE, "m2")
    cp = JAVA_DIR / "target" / "classpath.txt"
    sources = [JAVA_DIR / "pom.xml", *(JAVA_DIR / "src").rglob("*.java")]
    if cp.exists() and all(p.stat().st_mtime < cp.stat().st_mtime for p in sources):
        return java_path(cp)  # built since the last change (.ci/run builds it)
    t0 = time.monotonic()
    res = subprocess.run([mvn, "-B", "-q", f"-Dmaven.repo.local={repo}", "compile", "dependency:build-classpath",
                          "-Dmdep.outputFile=target/classpath.txt"], cwd=JAVA_DIR, capture_output=True, text=True,
                         timeout=900, stdin=subprocess.DEVNULL)
    assert res.returncode == 0, f"mvn failed:\n{res.stdout[-4000:]}{res.stderr[-4000:]}"
    print(f"[java] built in {time.monotonic() - t0:.1f} s")
    return java_path(cp)


def java_path(cp):
    return f"{JAVA_DIR / 'target' / 'classes'}{os.pathsep}{cp.read_text().strip()}"


@pytest.fixture(scope="module")
def js_dir():
    """test/sdk/js with its locked dependencies installed (npm ci, the
    packages cached in the CI cache) unless they already are."""
    npm = need("npm", "apt-get install npm")
    need("node", "apt-get install nodejs")
    lock = JS_DIR / "package-lock.json"
    stamp = JS_DIR / "node_modules" / ".package-lock.json"
    if not stamp.exists() or stamp.stat().st_mtime < lock.stat().st_mtime:
        res = subprocess.run([npm, "ci", "--prefer-offline", "--no-audit", "--no-fund", "--cache", os.path.join(CACHE, "npm")],
                             cwd=JS_DIR, capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL)
        assert res.returncode == 0, f"npm ci failed:\n{res.stdout[-4000:]}{res.stderr[-4000:]}"
    return JS_DIR


def assert_multipart(s3, bucket, key, size):
    """The object is there whole, written by a multipart upload."""
    h = s3.head_object(Bucket=bucket, Key=key)
    assert h["ContentLength"] == size
    assert "-" in h["ETag"], f"{key} was not uploaded in parts: ETag {h['ETag']}"


# The TransferManager uploads in parts and completes with
# x-amz-mp-object-size (refused with 501 before it was honoured), reads
# back in ranged or part GETs, then copies the object with UploadPartCopy.
@pytest.mark.parametrize("mode", ["crt", "java"])
def test_java_transfer_manager(server, s3, bucket, big_file, java_classpath, mode, capsys):
    key = f"java-{mode}.bin"
    size = big_file.stat().st_size
    out = run(capsys, f"java {mode}", ["java", "-cp", java_classpath, "ostium.sdk.RoundTrip", mode, server.endpoint,
                                       bucket, key, str(big_file)], cwd=JAVA_DIR, env=sdk_env(server))
    assert f"{size} bytes up and down, equal" in out
    assert_multipart(s3, bucket, key, size)
    assert s3.head_object(Bucket=bucket, Key=key + ".copy")["ContentLength"] == size


# The synchronous client's PutObject and GetObject (aws-chunked with a
# CRC32 trailer by default).
def test_java_sync_client(server, s3, bucket, big_file, java_classpath, capsys):
    size = big_file.stat().st_size
    out = run(capsys, "java sync", ["java", "-cp", java_classpath, "ostium.sdk.RoundTrip", "sync", server.endpoint,
                                    bucket, "java-sync.bin", str(big_file)], cwd=JAVA_DIR, env=sdk_env(server))
    assert f"{size} bytes up and down, equal" in out
    assert s3.head_object(Bucket=bucket, Key="java-sync.bin")["ContentLength"] == size


# lib-storage's Upload: parts of 5 MiB, four at a time, CRC32 checksums.
def test_js_upload(server, s3, bucket, big_file, js_dir, capsys):
    size = big_file.stat().st_size
    out = run(capsys, "js", ["node", "roundtrip.mjs", server.endpoint, bucket, "js.bin", str(big_file)],
              cwd=js_dir, env=sdk_env(server))
    assert f"{size} bytes up and down, equal" in out
    assert_multipart(s3, bucket, "js.bin", size)
