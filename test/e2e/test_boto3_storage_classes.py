"""Storage classes as platforms with boto3, end to end: a node of its own
with two local-disk platforms, "fast" (STANDARD) and "cold" (STANDARD_IA
and GLACIER_IR), whose lifecycle day lasts a second. A PUT with a class
lands on its platform, and a Transition rule moves an object there a
(test-clock) day later, readable throughout."""

import os
import shutil
import tempfile
import time

import pytest
from botocore.exceptions import ClientError

from helpers import empty_and_delete, start_server, unique_bucket


@pytest.fixture(scope="module")
def classes_server(ostium_bin):
    conf_dir = tempfile.mkdtemp(prefix="ostium-e2e-classes-")
    fast, cold = os.path.join(conf_dir, "fast"), os.path.join(conf_dir, "cold")
    conf = os.path.join(conf_dir, "ostium.yaml")
    with open(conf, "w") as f:
        f.write(f"""data: unused
lifecycle_day: 1s
lifecycle_interval: 200ms
gc_interval: 200ms
default_platform: fast
platforms:
  fast: {{type: fs, path: {fast}}}
  cold: {{type: fs, path: {cold}}}
storage_classes:
  STANDARD_IA: cold
  GLACIER_IR: cold
""")
    srv = start_server(ostium_bin, extra_args=["--config", conf])
    srv.fast, srv.cold = fast, cold
    yield srv
    srv.stop()
    shutil.rmtree(srv.data_dir, ignore_errors=True)
    shutil.rmtree(srv.log_dir, ignore_errors=True)
    shutil.rmtree(conf_dir, ignore_errors=True)


@pytest.fixture
def cls(classes_server, request):
    client = classes_server.client()
    name = unique_bucket(request.node.name)
    client.create_bucket(Bucket=name)
    yield client, name, classes_server
    empty_and_delete(client, name)


def blobs(directory):
    """The blob files under directory. Tests compare sets, not counts: the
    collector removes the blobs of earlier tests' deleted objects at any
    moment (gc_interval)."""
    return {os.path.join(d, f) for d, _, files in os.walk(directory) for f in files}


def eventually(what, cond, timeout=20):
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            pytest.fail(f"not within {timeout} s: {what}")
        time.sleep(0.1)


def test_put_lands_on_the_class_platform(cls):
    s3, bucket, srv = cls
    before_fast, before_cold = blobs(srv.fast), blobs(srv.cold)
    body = os.urandom(200 << 10)
    s3.put_object(Bucket=bucket, Key="ia", Body=body, StorageClass="STANDARD_IA")
    s3.put_object(Bucket=bucket, Key="std", Body=body)
    assert len(blobs(srv.cold) - before_cold) == 1
    assert len(blobs(srv.fast) - before_fast) == 1
    assert s3.head_object(Bucket=bucket, Key="ia")["StorageClass"] == "STANDARD_IA"
    # AWS leaves STANDARD out of HEAD, and names it in listings.
    assert "StorageClass" not in s3.head_object(Bucket=bucket, Key="std")
    listed = {o["Key"]: o["StorageClass"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]}
    assert listed == {"ia": "STANDARD_IA", "std": "STANDARD"}
    assert s3.get_object(Bucket=bucket, Key="ia")["Body"].read() == body
    # Nothing here restores an archive: refused as AWS refuses a class it
    # does not offer.
    with pytest.raises(ClientError) as e:
        s3.put_object(Bucket=bucket, Key="gl", Body=b"x", StorageClass="GLACIER")
    assert e.value.response["Error"]["Code"] == "InvalidStorageClass"


def test_transition_moves_the_blob(cls):
    s3, bucket, srv = cls
    body = os.urandom(300 << 10)
    s3.put_object(Bucket=bucket, Key="logs/a", Body=body)
    cold = blobs(srv.cold)
    # AWS's minimum for STANDARD_IA: 30 days in STANDARD first.
    with pytest.raises(ClientError) as e:
        s3.put_bucket_lifecycle_configuration(Bucket=bucket, LifecycleConfiguration={"Rules": [
            {"ID": "ia", "Status": "Enabled", "Filter": {"Prefix": "logs/"},
             "Transitions": [{"Days": 1, "StorageClass": "STANDARD_IA"}]}]})
    assert e.value.response["Error"]["Code"] == "InvalidArgument"
    s3.put_bucket_lifecycle_configuration(Bucket=bucket, LifecycleConfiguration={"Rules": [
        {"ID": "ir", "Status": "Enabled", "Filter": {"Prefix": "logs/"},
         "Transitions": [{"Days": 1, "StorageClass": "GLACIER_IR"}]}]})
    got = s3.get_bucket_lifecycle_configuration(Bucket=bucket)["Rules"][0]
    assert got["Transitions"] == [{"Days": 1, "StorageClass": "GLACIER_IR"}]

    def moved():
        # Every read while the object moves gets the whole of it.
        assert s3.get_object(Bucket=bucket, Key="logs/a")["Body"].read() == body
        return s3.head_object(Bucket=bucket, Key="logs/a").get("StorageClass") == "GLACIER_IR"

    eventually("the object moves to GLACIER_IR", moved)
    assert len(blobs(srv.cold) - cold) == 1
    assert s3.get_object(Bucket=bucket, Key="logs/a")["Body"].read() == body
    versions = s3.list_object_versions(Bucket=bucket)["Versions"]
    assert [v["StorageClass"] for v in versions] == ["GLACIER_IR"]
