"""Encryption at rest driven by boto3 and the aws cli: SSE-S3, SSE-KMS and
SSE-C on PUT, GET, HEAD, ranges and multipart (upload_file), copies between
kinds, a bucket's default, and SSE-C's refusals (without the key 400, with
another key 403, over plain HTTP 400). SSE-C runs over a real TLS listener
(`ostium serve --tls-listen`), as AWS requires."""

import base64
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tempfile

import pytest
from boto3.s3.transfer import TransferConfig
from botocore.exceptions import ClientError

from helpers import MiB, PrivateCA, Server, empty_and_delete, free_port, rand_bytes, require_tool, unique_bucket

KEY = bytes(range(32))
OTHER_KEY = bytes(range(1, 33))


def ssec(key=KEY, prefix=""):
    """boto3's SSE-C arguments (boto3 base64-encodes the key and computes
    its MD5 itself)."""
    return {prefix + "SSECustomerAlgorithm": "AES256", prefix + "SSECustomerKey": key}


@pytest.fixture(scope="module")
def tls_server(ostium_bin, tmp_path_factory):
    """A server with a plain and an HTTPS listener (.https), its CA (.ca)."""
    require_tool("openssl", "apt-get install openssl")
    work = str(tmp_path_factory.mktemp("sse-ca"))
    ca = PrivateCA(work)
    cert, key = os.path.join(work, "server.pem"), os.path.join(work, "server.key")
    ca.issue(1, cert, key)
    data = tempfile.mkdtemp(prefix="ostium-e2e-sse-")
    tls_port = free_port()
    srv = Server(bin=ostium_bin, data_dir=data,
                 extra_args=["--tls-listen", f"127.0.0.1:{tls_port}", "--tls-cert", cert, "--tls-key", key])
    srv.start()
    srv.ca, srv.https = ca, f"https://127.0.0.1:{tls_port}"
    yield srv
    srv.stop()
    shutil.rmtree(data, ignore_errors=True)
    shutil.rmtree(srv.log_dir, ignore_errors=True)


@pytest.fixture(scope="module")
def s3s(tls_server):
    return tls_server.client(endpoint=tls_server.https, verify=tls_server.ca.cert)


@pytest.fixture
def sbucket(s3s, request):
    name = unique_bucket("sse-" + request.node.name)
    s3s.create_bucket(Bucket=name)
    yield name
    empty_and_delete(s3s, name)


KINDS = {
    "plain": ({}, {}),
    "sse-s3": ({"ServerSideEncryption": "AES256"}, {}),
    "sse-kms": ({"ServerSideEncryption": "aws:kms",
                 "SSEKMSEncryptionContext": base64.b64encode(b'{"app":"e2e"}').decode()}, {}),
    "sse-c": (ssec(), ssec()),
}


def check_kind(kind, resp, on_put=False):
    h = resp["ResponseMetadata"]["HTTPHeaders"]
    if kind == "sse-s3":
        assert h.get("x-amz-server-side-encryption") == "AES256"
    elif kind == "sse-kms":
        assert h.get("x-amz-server-side-encryption") == "aws:kms"
        assert h["x-amz-server-side-encryption-aws-kms-key-id"].startswith("arn:aws:kms:")
        if on_put:
            assert h["x-amz-server-side-encryption-context"] == KINDS["sse-kms"][0]["SSEKMSEncryptionContext"]
    elif kind == "sse-c":
        assert h.get("x-amz-server-side-encryption-customer-algorithm") == "AES256"
        assert h.get("x-amz-server-side-encryption-customer-key-md5") == base64.b64encode(hashlib.md5(KEY).digest()).decode()
        assert "x-amz-server-side-encryption" not in h
    else:
        assert not any(k.startswith("x-amz-server-side-encryption") for k in h)


@pytest.mark.parametrize("kind", list(KINDS))
def test_boto3_put_get_head_range(s3s, sbucket, kind):
    put_args, read_args = KINDS[kind]
    data = rand_bytes(300 * 1024, seed=11)
    r = s3s.put_object(Bucket=sbucket, Key="k", Body=data, **put_args)
    check_kind(kind, r, on_put=True)
    assert (r["ETag"].strip('"') == hashlib.md5(data).hexdigest()) == (kind in ("plain", "sse-s3"))
    g = s3s.get_object(Bucket=sbucket, Key="k", **read_args)
    assert g["Body"].read() == data
    check_kind(kind, g)
    check_kind(kind, s3s.head_object(Bucket=sbucket, Key="k", **read_args))
    for first, last in [(0, 0), (65535, 65537), (100000, 250000), (len(data) - 10, len(data) - 1)]:
        g = s3s.get_object(Bucket=sbucket, Key="k", Range=f"bytes={first}-{last}", **read_args)
        assert g["Body"].read() == data[first:last + 1]


@pytest.mark.parametrize("kind", list(KINDS))
def test_boto3_multipart_upload_file(s3s, sbucket, kind, tmp_path):
    put_args, read_args = KINDS[kind]
    data = rand_bytes(13 * MiB, seed=12)
    path = tmp_path / "big"
    path.write_bytes(data)
    cfg = TransferConfig(multipart_threshold=5 * MiB, multipart_chunksize=5 * MiB)
    s3s.upload_file(str(path), sbucket, "big", ExtraArgs=put_args, Config=cfg)
    h = s3s.head_object(Bucket=sbucket, Key="big", **read_args)
    check_kind(kind, h)
    assert h["ContentLength"] == len(data)
    out = tmp_path / "out"
    s3s.download_file(sbucket, "big", str(out), ExtraArgs=read_args, Config=cfg)
    assert out.read_bytes() == data
    g = s3s.get_object(Bucket=sbucket, Key="big", Range=f"bytes={5 * MiB - 5}-{5 * MiB + 5}", **read_args)
    assert g["Body"].read() == data[5 * MiB - 5:5 * MiB + 6]


def test_boto3_copy_between_kinds(s3s, sbucket):
    data = rand_bytes(200 * 1024, seed=13)
    for src, (put_args, _) in KINDS.items():
        s3s.put_object(Bucket=sbucket, Key="src-" + src, Body=data, **put_args)
    for src, (_, src_read) in KINDS.items():
        src_copy = {"CopySource" + k: v for k, v in src_read.items()}
        for dst, (dst_put, dst_read) in KINDS.items():
            r = s3s.copy_object(Bucket=sbucket, Key=f"{src}-to-{dst}", CopySource={"Bucket": sbucket, "Key": "src-" + src},
                                **dst_put, **src_copy)
            check_kind(dst, r, on_put=True)
            assert s3s.get_object(Bucket=sbucket, Key=f"{src}-to-{dst}", **dst_read)["Body"].read() == data


def test_sse_c_refusals(s3s, sbucket):
    s3s.put_object(Bucket=sbucket, Key="c", Body=b"secret", **ssec())
    with pytest.raises(ClientError) as e:
        s3s.get_object(Bucket=sbucket, Key="c")
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert e.value.response["Error"]["Code"] == "InvalidRequest"
    with pytest.raises(ClientError) as e:
        s3s.get_object(Bucket=sbucket, Key="c", **ssec(OTHER_KEY))
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403
    assert e.value.response["Error"]["Code"] == "AccessDenied"
    with pytest.raises(ClientError) as e:
        s3s.head_object(Bucket=sbucket, Key="c", **ssec(OTHER_KEY))
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403


def test_sse_c_refused_over_plain_http(tls_server, s3s, sbucket):
    plain = tls_server.client()
    with pytest.raises(ClientError) as e:
        plain.put_object(Bucket=sbucket, Key="c", Body=b"x", **ssec())
    assert e.value.response["Error"]["Code"] == "InvalidRequest"
    assert "secure connection" in e.value.response["Error"]["Message"]
    with pytest.raises(ClientError):
        s3s.head_object(Bucket=sbucket, Key="c", **ssec())


def test_bucket_default_encryption(s3s, sbucket):
    with pytest.raises(ClientError) as e:
        s3s.get_bucket_encryption(Bucket=sbucket)
    assert e.value.response["Error"]["Code"] == "ServerSideEncryptionConfigurationNotFoundError"
    s3s.put_object(Bucket=sbucket, Key="before", Body=b"x")
    s3s.put_bucket_encryption(Bucket=sbucket, ServerSideEncryptionConfiguration={"Rules": [
        {"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "aws:kms"}, "BucketKeyEnabled": True}]})
    rule = s3s.get_bucket_encryption(Bucket=sbucket)["ServerSideEncryptionConfiguration"]["Rules"][0]
    assert rule["ApplyServerSideEncryptionByDefault"]["SSEAlgorithm"] == "aws:kms" and rule["BucketKeyEnabled"]
    s3s.put_object(Bucket=sbucket, Key="after", Body=b"x")
    assert "ServerSideEncryption" not in s3s.head_object(Bucket=sbucket, Key="before")
    h = s3s.head_object(Bucket=sbucket, Key="after")
    assert h["ServerSideEncryption"] == "aws:kms" and h["BucketKeyEnabled"]
    s3s.delete_bucket_encryption(Bucket=sbucket)


@pytest.fixture
def aws_tls(tls_server, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(HOME=str(home), AWS_CONFIG_FILE=str(home / "no-config"),
               AWS_SHARED_CREDENTIALS_FILE=str(home / "no-credentials"),
               AWS_ACCESS_KEY_ID=tls_server.access_key, AWS_SECRET_ACCESS_KEY=tls_server.secret_key,
               AWS_DEFAULT_REGION=tls_server.region, AWS_EC2_METADATA_DISABLED="true", AWS_PAGER="",
               AWS_CA_BUNDLE=tls_server.ca.cert)

    def run(*args, check=True):
        cmd = [sys.executable, "-m", "awscli", "--endpoint-url", tls_server.https, *map(str, args)]
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
        if check and p.returncode != 0:
            pytest.fail(f"aws {' '.join(map(str, args))}: {p.returncode}\n{p.stdout}\n{p.stderr}")
        return p
    return run


def test_awscli_cp_sse(aws_tls, s3s, sbucket, tmp_path):
    data = rand_bytes(9 * MiB, seed=14)  # over the cli's 8 MiB threshold: multipart
    src = tmp_path / "src"
    src.write_bytes(data)
    aws_tls("s3", "cp", "--no-progress", str(src), f"s3://{sbucket}/s3", "--sse", "AES256")
    assert s3s.head_object(Bucket=sbucket, Key="s3")["ServerSideEncryption"] == "AES256"
    aws_tls("s3", "cp", "--no-progress", str(src), f"s3://{sbucket}/kms", "--sse", "aws:kms")
    assert s3s.head_object(Bucket=sbucket, Key="kms")["ServerSideEncryption"] == "aws:kms"

    keyfile = tmp_path / "ssec.key"
    keyfile.write_bytes(KEY)
    aws_tls("s3", "cp", "--no-progress", str(src), f"s3://{sbucket}/c", "--sse-c", "AES256", "--sse-c-key", f"fileb://{keyfile}")
    out = tmp_path / "out"
    aws_tls("s3", "cp", "--no-progress", f"s3://{sbucket}/c", str(out), "--sse-c", "AES256", "--sse-c-key", f"fileb://{keyfile}")
    assert out.read_bytes() == data
    # Without the key the cli's download fails (400 from HEAD).
    p = aws_tls("s3", "cp", "--no-progress", f"s3://{sbucket}/c", str(tmp_path / "nokey"), check=False)
    assert p.returncode != 0
    # A copy inside S3 from SSE-C to SSE-S3.
    aws_tls("s3", "cp", "--no-progress", f"s3://{sbucket}/c", f"s3://{sbucket}/c-to-s3",
            "--sse-c-copy-source", "AES256", "--sse-c-copy-source-key", f"fileb://{keyfile}", "--sse", "AES256")
    g = s3s.get_object(Bucket=sbucket, Key="c-to-s3")
    assert g["ServerSideEncryption"] == "AES256" and g["Body"].read() == data


def _admin_cli(ostium_bin, server, access_key=None, secret_key=None):
    """The `ostium admin --json` command against server, as the root or as
    the key given; a call that fails returns the completed process."""
    import json
    env = dict(os.environ, OSTIUM_ENDPOINT=server.endpoint,
               OSTIUM_ROOT_ACCESS_KEY=access_key or server.access_key,
               OSTIUM_ROOT_SECRET_KEY=secret_key or server.secret_key)

    def admin(*args, ok=True):
        res = subprocess.run([ostium_bin, "admin", "--json", *args], env=env, capture_output=True, text=True, timeout=60)
        assert (res.returncode == 0) == ok, res.stderr
        return json.loads(res.stdout) if ok and res.stdout.strip() else res
    return admin


def _tenant_with_bucket(admin, server, prefix):
    """A new tenant with an admin ann, her S3 client over TLS and a new
    bucket of hers: (tenant, ann's key, client, bucket)."""
    import uuid
    t = prefix + "-" + uuid.uuid4().hex[:8]
    admin("tenant", "create", t)
    admin("user", "create", t, "ann", "--role", "admin")
    key = admin("key", "create", t, "ann")
    ann = server.client(endpoint=server.https, verify=server.ca.cert,
                        access_key=key["access_key"], secret_key=key["secret_key"])
    b = unique_bucket(prefix)
    ann.create_bucket(Bucket=b)
    return t, key, ann, b


def test_tenant_default_with_the_cli(ostium_bin, tls_server):
    """`ostium admin tenant encryption`: a tenant's new objects are encrypted
    by the provider's choice; what was stored before keeps its setting."""
    admin = _admin_cli(ostium_bin, tls_server)
    t, _, ann, b = _tenant_with_bucket(admin, tls_server, "tenant-default")
    try:
        ann.put_object(Bucket=b, Key="before", Body=b"x")
        out = admin("tenant", "encryption", t, "--default", "sse-kms")
        assert out["encryption"] == {"default": "sse-kms"}
        ann.put_object(Bucket=b, Key="after", Body=b"x")
        assert "ServerSideEncryption" not in ann.head_object(Bucket=b, Key="before")
        assert ann.head_object(Bucket=b, Key="after")["ServerSideEncryption"] == "aws:kms"
        rule = ann.get_bucket_encryption(Bucket=b)["ServerSideEncryptionConfiguration"]["Rules"][0]
        assert rule["ApplyServerSideEncryptionByDefault"]["SSEAlgorithm"] == "aws:kms"
        out = admin("tenant", "encryption", t, "--default", "none")
        assert "encryption" not in out
    finally:
        empty_and_delete(ann, b)


def test_provider_default_with_the_cli(ostium_bin, tls_server):
    """`ostium admin encryption set`: every tenant's new objects are
    encrypted by the provider's choice, below a tenant's own default; what
    was stored before keeps its setting. (Put back to none at the end: the
    server is shared by the suite.)"""
    admin = _admin_cli(ostium_bin, tls_server)
    t, key, ann, b = _tenant_with_bucket(admin, tls_server, "provider-default")
    try:
        assert admin("encryption", "get") == {"default": "none"}
        ann.put_object(Bucket=b, Key="before", Body=b"x")
        assert admin("encryption", "set", "--default", "sse-s3") == {"default": "sse-s3"}
        ann.put_object(Bucket=b, Key="after", Body=b"x")
        assert "ServerSideEncryption" not in ann.head_object(Bucket=b, Key="before")
        assert ann.head_object(Bucket=b, Key="after")["ServerSideEncryption"] == "AES256"
        # The tenant's own default wins over the provider's.
        admin("tenant", "encryption", t, "--default", "sse-kms")
        ann.put_object(Bucket=b, Key="tenant", Body=b"x")
        assert ann.head_object(Bucket=b, Key="tenant")["ServerSideEncryption"] == "aws:kms"
        # A tenant's admin cannot set it.
        res = _admin_cli(ostium_bin, tls_server, key["access_key"], key["secret_key"])(
            "encryption", "set", "--default", "none", ok=False)
        assert "AccessDenied" in res.stderr + res.stdout
    finally:
        admin("encryption", "set", "--default", "none")
        empty_and_delete(ann, b)
