"""Bucket lifecycle with boto3, end to end: a node of its own whose
lifecycle day lasts a second (lifecycle_day, the test-only setting, as
Ceph RGW's rgw_lc_debug_interval), so rules of one day act within
seconds."""

import os
import shutil
import tempfile
import time
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime

import pytest
from botocore.exceptions import ClientError

from helpers import empty_and_delete, start_server, unique_bucket


@pytest.fixture(scope="module")
def lc_server(ostium_bin):
    conf_dir = tempfile.mkdtemp(prefix="ostium-e2e-lc-")
    conf = os.path.join(conf_dir, "ostium.yaml")
    with open(conf, "w") as f:
        f.write("data: unused\nlifecycle_day: 1s\nlifecycle_interval: 200ms\n")
    srv = start_server(ostium_bin, extra_args=["--config", conf])
    yield srv
    srv.stop()
    shutil.rmtree(srv.data_dir, ignore_errors=True)
    shutil.rmtree(srv.log_dir, ignore_errors=True)
    shutil.rmtree(conf_dir, ignore_errors=True)


@pytest.fixture
def lc(lc_server, request):
    client = lc_server.client()
    name = unique_bucket(request.node.name)
    client.create_bucket(Bucket=name)
    yield client, name
    empty_and_delete(client, name)


def eventually(what, cond, timeout=15):
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            pytest.fail(f"not within {timeout} s: {what}")
        time.sleep(0.1)


def exists(client, bucket, key):
    try:
        client.head_object(Bucket=bucket, Key=key)
        return True
    except ClientError as e:
        if e.response["Error"]["Code"] in ("404", "NoSuchKey"):
            return False
        raise


def test_configuration_round_trip(lc):
    s3, bucket = lc
    with pytest.raises(ClientError) as e:
        s3.get_bucket_lifecycle_configuration(Bucket=bucket)
    assert e.value.response["Error"]["Code"] == "NoSuchLifecycleConfiguration"
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404
    rules = [
        {"ID": "logs", "Status": "Enabled", "Filter": {"Prefix": "logs/"}, "Expiration": {"Days": 30}},
        {"ID": "scratch", "Status": "Disabled",
         "Filter": {"And": {"Prefix": "tmp/", "Tags": [{"Key": "class", "Value": "scratch"}], "ObjectSizeLessThan": 1024}},
         "Expiration": {"Date": datetime(2030, 1, 1, tzinfo=timezone.utc)}},
        {"ID": "versions", "Status": "Enabled", "Filter": {},
         "NoncurrentVersionExpiration": {"NoncurrentDays": 7, "NewerNoncurrentVersions": 2},
         "AbortIncompleteMultipartUpload": {"DaysAfterInitiation": 3}},
    ]
    s3.put_bucket_lifecycle_configuration(Bucket=bucket, LifecycleConfiguration={"Rules": rules})
    got = s3.get_bucket_lifecycle_configuration(Bucket=bucket)["Rules"]
    assert [r["ID"] for r in got] == ["logs", "scratch", "versions"]
    assert got[0]["Filter"] == {"Prefix": "logs/"} and got[0]["Expiration"] == {"Days": 30}
    assert got[1]["Expiration"]["Date"] == datetime(2030, 1, 1, tzinfo=timezone.utc)
    assert got[1]["Filter"]["And"]["Tags"] == [{"Key": "class", "Value": "scratch"}]
    assert got[2]["NoncurrentVersionExpiration"] == {"NoncurrentDays": 7, "NewerNoncurrentVersions": 2}

    # AWS's refusals.
    for rule, code in [
        ({"ID": "r", "Status": "Enabled", "Filter": {}, "Expiration": {"Days": 0}}, "InvalidArgument"),
        ({"ID": "r", "Status": "Enabled", "Filter": {}}, "InvalidRequest"),
        ({"ID": "r", "Status": "Enabled", "Filter": {"Tag": {"Key": "k", "Value": "v"}},
          "AbortIncompleteMultipartUpload": {"DaysAfterInitiation": 1}}, "InvalidRequest"),
        # Nothing here restores an archive (docs/storage-classes.md).
        ({"ID": "r", "Status": "Enabled", "Filter": {}, "Transitions": [{"Days": 30, "StorageClass": "GLACIER"}]}, "InvalidStorageClass"),
        # AWS: 30 days in STANDARD before STANDARD_IA.
        ({"ID": "r", "Status": "Enabled", "Filter": {}, "Transitions": [{"Days": 29, "StorageClass": "STANDARD_IA"}]}, "InvalidArgument"),
    ]:
        with pytest.raises(ClientError) as e:
            s3.put_bucket_lifecycle_configuration(Bucket=bucket, LifecycleConfiguration={"Rules": [rule]})
        assert e.value.response["Error"]["Code"] == code, rule

    s3.delete_bucket_lifecycle(Bucket=bucket)
    with pytest.raises(ClientError) as e:
        s3.get_bucket_lifecycle_configuration(Bucket=bucket)
    assert e.value.response["Error"]["Code"] == "NoSuchLifecycleConfiguration"


def test_expiration(lc):
    s3, bucket = lc
    s3.put_bucket_lifecycle_configuration(Bucket=bucket, LifecycleConfiguration={"Rules": [
        {"ID": "tmp", "Status": "Enabled", "Filter": {"Prefix": "tmp/"}, "Expiration": {"Days": 1}},
        {"ID": "big", "Status": "Enabled", "Filter": {"ObjectSizeGreaterThan": 100}, "Expiration": {"Days": 1}},
        {"ID": "off", "Status": "Disabled", "Filter": {"Prefix": "keep/"}, "Expiration": {"Days": 1}},
        {"ID": "tagged", "Status": "Enabled", "Filter": {"Tag": {"Key": "class", "Value": "scratch"}}, "Expiration": {"Days": 1}},
    ]})
    put = s3.put_object(Bucket=bucket, Key="tmp/a", Body=b"a")
    exp = put["Expiration"]
    assert 'rule-id="tmp"' in exp
    date = parsedate_to_datetime(exp.split('expiry-date="')[1].split('"')[0])
    assert 0 < (date - datetime.now(timezone.utc)).total_seconds() <= 2.5
    assert s3.head_object(Bucket=bucket, Key="tmp/a")["Expiration"] == exp
    assert "Expiration" not in s3.put_object(Bucket=bucket, Key="keep/a", Body=b"a")
    s3.put_object(Bucket=bucket, Key="large", Body=b"x" * 101)
    s3.put_object(Bucket=bucket, Key="small", Body=b"x")
    tagged = s3.put_object(Bucket=bucket, Key="tagged", Body=b"x", Tagging="class=scratch")
    assert 'rule-id="tagged"' in tagged["Expiration"]

    eventually("tmp/a, large and tagged expire", lambda: not any(exists(s3, bucket, k) for k in ("tmp/a", "large", "tagged")))
    time.sleep(1)
    assert exists(s3, bucket, "keep/a") and exists(s3, bucket, "small")


def test_abort_incomplete_uploads(lc):
    s3, bucket = lc
    s3.put_bucket_lifecycle_configuration(Bucket=bucket, LifecycleConfiguration={"Rules": [
        {"ID": "abort", "Status": "Enabled", "Filter": {"Prefix": "up/"},
         "AbortIncompleteMultipartUpload": {"DaysAfterInitiation": 1}}]})
    for key in ("up/a", "stay"):
        uid = s3.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]
        s3.upload_part(Bucket=bucket, Key=key, UploadId=uid, PartNumber=1, Body=b"part")

    def keys():
        return [u["Key"] for u in s3.list_multipart_uploads(Bucket=bucket).get("Uploads", [])]
    eventually("up/a is aborted", lambda: keys() == ["stay"])


def test_versioned(lc):
    s3, bucket = lc
    try:
        s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    except ClientError as e:
        if e.response["Error"]["Code"] == "NotImplemented":
            pytest.skip("versioning is not in this build")
        raise
    s3.put_bucket_lifecycle_configuration(Bucket=bucket, LifecycleConfiguration={"Rules": [
        {"ID": "nc", "Status": "Enabled", "Filter": {"Prefix": "nc/"},
         "NoncurrentVersionExpiration": {"NoncurrentDays": 1, "NewerNoncurrentVersions": 1}},
        {"ID": "dm", "Status": "Enabled", "Filter": {"Prefix": "dm/"}, "Expiration": {"ExpiredObjectDeleteMarker": True}},
    ]})
    ids = [s3.put_object(Bucket=bucket, Key="nc/k", Body=bytes([i]))["VersionId"] for i in range(4)]
    v = s3.put_object(Bucket=bucket, Key="dm/k", Body=b"x")["VersionId"]
    s3.delete_object(Bucket=bucket, Key="dm/k")
    s3.delete_object(Bucket=bucket, Key="dm/k", VersionId=v)

    def versions(key):
        out = s3.list_object_versions(Bucket=bucket, Prefix=key)
        return [x["VersionId"] for x in out.get("Versions", [])], [x["VersionId"] for x in out.get("DeleteMarkers", [])]
    eventually("nc/k keeps the current and one noncurrent version", lambda: versions("nc/k")[0] == [ids[3], ids[2]])
    eventually("the expired delete marker goes", lambda: versions("dm/k") == ([], []))


def test_locked_version_is_kept(lc_server, request):
    s3 = lc_server.client()
    bucket = unique_bucket(request.node.name)
    s3.create_bucket(Bucket=bucket, ObjectLockEnabledForBucket=True)
    try:
        s3.put_bucket_lifecycle_configuration(Bucket=bucket, LifecycleConfiguration={"Rules": [
            {"ID": "nc", "Status": "Enabled", "Filter": {}, "NoncurrentVersionExpiration": {"NoncurrentDays": 1}}]})
        until = datetime.now(timezone.utc).replace(microsecond=0).timestamp() + 120
        locked = s3.put_object(Bucket=bucket, Key="k", Body=b"v1", ObjectLockMode="GOVERNANCE",
                               ObjectLockRetainUntilDate=datetime.fromtimestamp(until, timezone.utc))["VersionId"]
        s3.put_object(Bucket=bucket, Key="k", Body=b"v2")
        free = s3.put_object(Bucket=bucket, Key="free", Body=b"v1")["VersionId"]
        s3.put_object(Bucket=bucket, Key="free", Body=b"v2")

        def versions(key):
            return [v["VersionId"] for v in s3.list_object_versions(Bucket=bucket, Prefix=key).get("Versions", []) if v["Key"] == key]
        eventually("the unlocked noncurrent version goes", lambda: free not in versions("free"))
        time.sleep(1)
        assert locked in versions("k")
    finally:
        for page in s3.get_paginator("list_object_versions").paginate(Bucket=bucket):
            for v in page.get("Versions", []) + page.get("DeleteMarkers", []):
                s3.delete_object(Bucket=bucket, Key=v["Key"], VersionId=v["VersionId"], BypassGovernanceRetention=True)
        s3.delete_bucket(Bucket=bucket)
