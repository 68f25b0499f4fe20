"""Veeam's Smart Object Storage API (SOSAPI) as Veeam Backup & Replication
meets it: boto3 reads `system.xml` and `capacity.xml` from a tenant's
bucket and checks them against the documented shape (element names, order
and types), capacity follows the quotas set with `ostium admin` and the
tenant's writes at once, and the aws cli cannot write under the folder."""

import json
import os
import subprocess
import sys
import uuid
import xml.etree.ElementTree as ET

import botocore.exceptions
import pytest

FOLDER = ".system-d26a9498-cb7c-4a87-a44a-8ae204f5ba6c/"
SYSTEM, CAPACITY = FOLDER + "system.xml", FOLDER + "capacity.xml"


def admin(ostium_bin, server, *args):
    env = dict(os.environ, OSTIUM_ENDPOINT=server.endpoint,
               OSTIUM_ROOT_ACCESS_KEY=server.access_key, OSTIUM_ROOT_SECRET_KEY=server.secret_key)
    res = subprocess.run([ostium_bin, "admin", "--json", *args], env=env, capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout) if res.stdout.strip() else None


@pytest.fixture
def tenant(ostium_bin, server):
    """A tenant with a user, its boto3 client and a bucket of its own."""
    t = "v" + uuid.uuid4().hex[:10]
    admin(ostium_bin, server, "tenant", "create", t)
    admin(ostium_bin, server, "user", "create", t, "veeam", "--role", "admin")
    key = admin(ostium_bin, server, "key", "create", t, "veeam")
    c = server.client(access_key=key["access_key"], secret_key=key["secret_key"])
    bucket = t + "-repo"
    c.create_bucket(Bucket=bucket)
    c.put_object(Bucket=bucket, Key="seed", Body=b"x" * 100)
    return t, c, bucket, key


def read(c, bucket, key):
    out = c.get_object(Bucket=bucket, Key=key)
    body = out["Body"].read()
    assert out["ContentType"] == "application/xml"
    assert out["ContentLength"] == len(body)
    assert out["ETag"].strip('"') and out["LastModified"]
    assert body.startswith(b'<?xml version="1.0" encoding="UTF-8"?>')
    return ET.fromstring(body)


def children(el):
    return [ch.tag for ch in el]


def boolean(el):
    assert el.text in ("true", "false"), el.text
    return el.text == "true"


def integer(el):
    assert el.text is not None and el.text.isdigit(), el.text
    return int(el.text)


def check_system(root):
    """The documented shape of system.xml; returns CapacityInfo."""
    assert root.tag == "SystemInfo"
    assert children(root) == ["ProtocolVersion", "ModelName", "ProtocolCapabilities", "SystemRecommendations"]
    assert root.find("ProtocolVersion").text == '"1.0"'
    model = root.find("ModelName").text
    assert model.startswith('"') and model.endswith('"') and len(model) > 2
    caps = root.find("ProtocolCapabilities")
    assert children(caps) == ["CapacityInfo", "UploadSessions", "IAMSTS"]
    assert boolean(caps.find("UploadSessions")) is False
    assert boolean(caps.find("IAMSTS")) is False  # Ostium serves no STS
    rec = root.find("SystemRecommendations")
    assert children(rec) == ["S3ConcurrentTaskLimit", "KbBlockSize"]
    assert integer(rec.find("S3ConcurrentTaskLimit")) >= 1
    assert integer(rec.find("KbBlockSize")) in (256, 512, 1024, 2048, 4096, 8192)
    return boolean(caps.find("CapacityInfo"))


def capacity(c, bucket):
    root = read(c, bucket, CAPACITY)
    assert root.tag == "CapacityInfo"
    assert children(root) == ["Capacity", "Available", "Used"]
    return {name: integer(root.find(name)) for name in ("Capacity", "Available", "Used")}


def code(exc):
    return exc.value.response["Error"]["Code"]


@pytest.mark.multinode  # quotas set and usage written through other nodes
def test_documents_follow_quotas_and_writes(ostium_bin, server, tenant):
    t, c, bucket, _ = tenant
    # No quota: nothing bounds the repository, capacity.xml is absent.
    assert check_system(read(c, bucket, SYSTEM)) is False
    with pytest.raises(botocore.exceptions.ClientError) as e:
        c.get_object(Bucket=bucket, Key=CAPACITY)
    assert code(e) == "NoSuchKey"

    admin(ostium_bin, server, "quota", "set", t, "--bucket", bucket, "--max-bytes", "10000")
    assert check_system(read(c, bucket, SYSTEM)) is True
    assert capacity(c, bucket) == {"Capacity": 10000, "Available": 9900, "Used": 100}
    c.put_object(Bucket=bucket, Key="backup/block", Body=b"y" * 900)
    assert capacity(c, bucket) == {"Capacity": 10000, "Available": 9000, "Used": 1000}
    # The tenant's quota leaves less room now: Veeam sees that one.
    admin(ostium_bin, server, "quota", "set", t, "--max-bytes", "1500")
    assert capacity(c, bucket) == {"Capacity": 1500, "Available": 500, "Used": 1000}
    with pytest.raises(botocore.exceptions.ClientError) as e:
        c.put_object(Bucket=bucket, Key="backup/too-big", Body=b"z" * 501)
    assert code(e) == "QuotaExceeded"

    head = c.head_object(Bucket=bucket, Key=SYSTEM)
    assert head["ContentType"] == "application/xml" and head["ContentLength"] > 0
    listed = c.list_objects_v2(Bucket=bucket, Prefix=FOLDER)
    assert [o["Key"] for o in listed["Contents"]] == [CAPACITY, SYSTEM]


@pytest.mark.multinode  # another tenant refused by every node
def test_other_tenant_is_refused(ostium_bin, server, tenant):
    _, _, bucket, _ = tenant
    o = "o" + uuid.uuid4().hex[:10]
    admin(ostium_bin, server, "tenant", "create", o)
    admin(ostium_bin, server, "user", "create", o, "eve")
    k = admin(ostium_bin, server, "key", "create", o, "eve")
    eve = server.client(access_key=k["access_key"], secret_key=k["secret_key"])
    with pytest.raises(botocore.exceptions.ClientError) as e:
        eve.get_object(Bucket=bucket, Key=SYSTEM)
    assert code(e) == "AccessDenied"


def test_aws_cli_cannot_write_the_documents(server, tenant, tmp_path):
    _, c, bucket, key = tenant
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(HOME=str(home), AWS_CONFIG_FILE=str(home / "none"), AWS_SHARED_CREDENTIALS_FILE=str(home / "none"),
               AWS_ACCESS_KEY_ID=key["access_key"], AWS_SECRET_ACCESS_KEY=key["secret_key"],
               AWS_DEFAULT_REGION=server.region, AWS_EC2_METADATA_DISABLED="true", AWS_PAGER="")
    forged = tmp_path / "system.xml"
    forged.write_text("<SystemInfo><ProtocolVersion>\"9\"</ProtocolVersion></SystemInfo>")

    def aws(*args):
        return subprocess.run([sys.executable, "-m", "awscli", "--endpoint-url", server.endpoint, *args],
                              env=env, capture_output=True, text=True, timeout=120)

    p = aws("s3api", "put-object", "--bucket", bucket, "--key", SYSTEM, "--body", str(forged))
    assert p.returncode != 0 and "AccessDenied" in p.stderr, p.stderr
    p = aws("s3", "cp", "--no-progress", str(forged), f"s3://{bucket}/{SYSTEM}")
    assert p.returncode != 0 and "AccessDenied" in p.stderr, p.stderr
    p = aws("s3api", "delete-object", "--bucket", bucket, "--key", SYSTEM)
    assert p.returncode != 0 and "AccessDenied" in p.stderr, p.stderr
    # The served document is unchanged.
    assert read(c, bucket, SYSTEM).find("ProtocolVersion").text == '"1.0"'
