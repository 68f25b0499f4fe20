"""Object lock and legal hold with boto3: a bucket created with lock,
retention that nobody (the provider's root included) gets past,
governance bypass, legal holds, default retention, and the admin API's
tenant purge refused while a locked version remains. Retentions here
last seconds, so each test can clean up after itself."""

import datetime
import json
import os
import subprocess
import time
import uuid

import pytest
from botocore.exceptions import ClientError

from helpers import empty_and_delete, error_code, unique_bucket

# Run again through the cluster (multinode): a bucket's lock configuration and
# retention set through one node and enforced by the others.
pytestmark = pytest.mark.multinode


def until(seconds):
    return datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=seconds)


def wait_past(when):
    time.sleep(max(0.0, (when - datetime.datetime.now(datetime.timezone.utc)).total_seconds()) + 0.2)


@pytest.fixture
def locked_bucket(s3, request):
    name = unique_bucket(request.node.name)
    s3.create_bucket(Bucket=name, ObjectLockEnabledForBucket=True)
    yield name
    empty_and_delete(s3, name)


def test_lock_configuration(s3, locked_bucket, bucket):
    conf = s3.get_object_lock_configuration(Bucket=locked_bucket)["ObjectLockConfiguration"]
    assert conf == {"ObjectLockEnabled": "Enabled"}
    with pytest.raises(ClientError) as e:
        s3.get_object_lock_configuration(Bucket=bucket)
    assert error_code(e) == (404, "ObjectLockConfigurationNotFoundError")
    with pytest.raises(ClientError) as e:
        s3.put_object(Bucket=bucket, Key="k", Body=b"x", ObjectLockLegalHoldStatus="ON")
    assert error_code(e) == (400, "InvalidRequest")

    s3.put_object_lock_configuration(Bucket=locked_bucket, ObjectLockConfiguration={
        "ObjectLockEnabled": "Enabled", "Rule": {"DefaultRetention": {"Mode": "GOVERNANCE", "Days": 1}}})
    conf = s3.get_object_lock_configuration(Bucket=locked_bucket)["ObjectLockConfiguration"]
    assert conf["Rule"]["DefaultRetention"] == {"Mode": "GOVERNANCE", "Days": 1}
    vid = s3.put_object(Bucket=locked_bucket, Key="defaulted", Body=b"x")["VersionId"]
    head = s3.head_object(Bucket=locked_bucket, Key="defaulted")
    assert head["ObjectLockMode"] == "GOVERNANCE"
    left = head["ObjectLockRetainUntilDate"] - datetime.datetime.now(datetime.timezone.utc)
    assert datetime.timedelta(hours=23) < left <= datetime.timedelta(days=1)
    with pytest.raises(ClientError) as e:
        s3.put_object_lock_configuration(Bucket=locked_bucket, ObjectLockConfiguration={
            "ObjectLockEnabled": "Enabled", "Rule": {"DefaultRetention": {"Mode": "GOVERNANCE", "Days": 1, "Years": 1}}})
    assert error_code(e) == (400, "MalformedXML")
    # The root has s3:BypassGovernanceRetention: with the header it may go.
    s3.delete_object(Bucket=locked_bucket, Key="defaulted", VersionId=vid, BypassGovernanceRetention=True)


def test_lock_argument_errors(s3, locked_bucket):
    # AWS's codes, as the s3-tests suite checks them against AWS: a default
    # period of zero or less is InvalidRetentionPeriod, a mode AWS does not
    # spell (lower case too) MalformedXML.
    for retention, code in (({"Mode": "GOVERNANCE", "Days": 0}, "InvalidRetentionPeriod"),
                            ({"Mode": "GOVERNANCE", "Years": -1}, "InvalidRetentionPeriod"),
                            ({"Mode": "governance", "Years": 1}, "MalformedXML"),
                            ({"Mode": "abc", "Days": 1}, "MalformedXML")):
        with pytest.raises(ClientError) as e:
            s3.put_object_lock_configuration(Bucket=locked_bucket, ObjectLockConfiguration={
                "ObjectLockEnabled": "Enabled", "Rule": {"DefaultRetention": retention}})
        assert error_code(e) == (400, code), retention
    assert s3.get_object_lock_configuration(Bucket=locked_bucket)["ObjectLockConfiguration"] == {"ObjectLockEnabled": "Enabled"}

    # GOVERNANCE may be extended by anyone allowed to set retention, but
    # raising it to COMPLIANCE alters its settings: AWS answers 403
    # AccessDenied without the bypass, and takes it with the bypass.
    end = until(3)
    vid = s3.put_object(Bucket=locked_bucket, Key="mode", Body=b"x", ObjectLockMode="GOVERNANCE",
                        ObjectLockRetainUntilDate=end)["VersionId"]
    with pytest.raises(ClientError) as e:
        s3.put_object_retention(Bucket=locked_bucket, Key="mode", VersionId=vid,
                                Retention={"Mode": "COMPLIANCE", "RetainUntilDate": end})
    assert error_code(e) == (403, "AccessDenied")
    assert s3.get_object_retention(Bucket=locked_bucket, Key="mode", VersionId=vid)["Retention"]["Mode"] == "GOVERNANCE"
    s3.put_object_retention(Bucket=locked_bucket, Key="mode", VersionId=vid, BypassGovernanceRetention=True,
                            Retention={"Mode": "COMPLIANCE", "RetainUntilDate": end})
    assert s3.get_object_retention(Bucket=locked_bucket, Key="mode", VersionId=vid)["Retention"]["Mode"] == "COMPLIANCE"
    # COMPLIANCE is never shortened, bypass or not.
    with pytest.raises(ClientError) as e:
        s3.put_object_retention(Bucket=locked_bucket, Key="mode", VersionId=vid, BypassGovernanceRetention=True,
                                Retention={"Mode": "COMPLIANCE", "RetainUntilDate": end - datetime.timedelta(seconds=1)})
    assert error_code(e) == (403, "AccessDenied")
    wait_past(end)
    s3.delete_object(Bucket=locked_bucket, Key="mode", VersionId=vid)


def test_compliance_binds_the_provider(s3, locked_bucket):
    end = until(4)
    vid = s3.put_object(Bucket=locked_bucket, Key="deed", Body=b"signed", ObjectLockMode="COMPLIANCE",
                        ObjectLockRetainUntilDate=end)["VersionId"]
    head = s3.head_object(Bucket=locked_bucket, Key="deed")
    assert head["ObjectLockMode"] == "COMPLIANCE"
    r = s3.get_object_retention(Bucket=locked_bucket, Key="deed")["Retention"]
    assert r["Mode"] == "COMPLIANCE"

    for bypass in (False, True):
        with pytest.raises(ClientError) as e:
            s3.delete_object(Bucket=locked_bucket, Key="deed", VersionId=vid, BypassGovernanceRetention=bypass)
        assert error_code(e) == (403, "AccessDenied")
    out = s3.delete_objects(Bucket=locked_bucket, BypassGovernanceRetention=True, Delete={"Objects": [{"Key": "deed", "VersionId": vid}]})
    assert [x["Code"] for x in out.get("Errors", [])] == ["AccessDenied"]
    with pytest.raises(ClientError) as e:
        s3.delete_bucket(Bucket=locked_bucket)
    assert error_code(e) == (409, "BucketNotEmpty")
    with pytest.raises(ClientError) as e:
        s3.put_object_retention(Bucket=locked_bucket, Key="deed", VersionId=vid, BypassGovernanceRetention=True,
                                Retention={"Mode": "COMPLIANCE", "RetainUntilDate": until(1)})
    assert error_code(e) == (403, "AccessDenied")
    # A delete without a version id writes a delete marker (no lock stops
    # it, as on AWS); the locked version stays, readable by its id.
    assert s3.delete_object(Bucket=locked_bucket, Key="deed")["DeleteMarker"] is True
    assert s3.get_object(Bucket=locked_bucket, Key="deed", VersionId=vid)["Body"].read() == b"signed"

    wait_past(end)
    s3.delete_object(Bucket=locked_bucket, Key="deed", VersionId=vid)


def test_governance_and_legal_hold(s3, locked_bucket):
    gov = s3.put_object(Bucket=locked_bucket, Key="gov", Body=b"x", ObjectLockMode="GOVERNANCE",
                        ObjectLockRetainUntilDate=until(3600))["VersionId"]
    with pytest.raises(ClientError) as e:
        s3.delete_object(Bucket=locked_bucket, Key="gov", VersionId=gov)
    assert error_code(e) == (403, "AccessDenied")
    with pytest.raises(ClientError) as e:
        s3.put_object_retention(Bucket=locked_bucket, Key="gov", Retention={"Mode": "GOVERNANCE", "RetainUntilDate": until(60)})
    assert error_code(e) == (403, "AccessDenied")
    s3.put_object_retention(Bucket=locked_bucket, Key="gov", BypassGovernanceRetention=True,
                            Retention={"Mode": "GOVERNANCE", "RetainUntilDate": until(60)})
    s3.delete_object(Bucket=locked_bucket, Key="gov", VersionId=gov, BypassGovernanceRetention=True)

    held = s3.put_object(Bucket=locked_bucket, Key="held", Body=b"x")["VersionId"]
    s3.put_object_legal_hold(Bucket=locked_bucket, Key="held", LegalHold={"Status": "ON"})
    assert s3.get_object_legal_hold(Bucket=locked_bucket, Key="held")["LegalHold"]["Status"] == "ON"
    assert s3.head_object(Bucket=locked_bucket, Key="held")["ObjectLockLegalHoldStatus"] == "ON"
    with pytest.raises(ClientError) as e:
        s3.delete_object(Bucket=locked_bucket, Key="held", VersionId=held, BypassGovernanceRetention=True)
    assert error_code(e) == (403, "AccessDenied")
    s3.put_object_legal_hold(Bucket=locked_bucket, Key="held", VersionId=held, LegalHold={"Status": "OFF"})
    s3.delete_object(Bucket=locked_bucket, Key="held", VersionId=held)


def test_multipart_and_copy_carry_lock_headers(s3, locked_bucket):
    end = until(3)
    mp = s3.create_multipart_upload(Bucket=locked_bucket, Key="mp", ObjectLockMode="COMPLIANCE", ObjectLockRetainUntilDate=end)
    part = s3.upload_part(Bucket=locked_bucket, Key="mp", UploadId=mp["UploadId"], PartNumber=1, Body=b"part")
    vid = s3.complete_multipart_upload(Bucket=locked_bucket, Key="mp", UploadId=mp["UploadId"],
                                       MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": part["ETag"]}]})["VersionId"]
    assert s3.head_object(Bucket=locked_bucket, Key="mp")["ObjectLockMode"] == "COMPLIANCE"
    s3.copy_object(Bucket=locked_bucket, Key="copy", CopySource={"Bucket": locked_bucket, "Key": "mp"}, ObjectLockLegalHoldStatus="ON")
    head = s3.head_object(Bucket=locked_bucket, Key="copy")
    assert head["ObjectLockLegalHoldStatus"] == "ON" and "ObjectLockMode" not in head
    with pytest.raises(ClientError) as e:
        s3.delete_object(Bucket=locked_bucket, Key="mp", VersionId=vid)
    assert error_code(e) == (403, "AccessDenied")
    s3.put_object_legal_hold(Bucket=locked_bucket, Key="copy", LegalHold={"Status": "OFF"})
    wait_past(end)


def admin(ostium_bin, server, *args):
    env = dict(os.environ, OSTIUM_ENDPOINT=server.endpoint,
               OSTIUM_ROOT_ACCESS_KEY=server.access_key, OSTIUM_ROOT_SECRET_KEY=server.secret_key)
    return subprocess.run([ostium_bin, "admin", "--json", *args], env=env, capture_output=True, text=True, timeout=60)


def test_tenant_purge_refused_while_locked(ostium_bin, server):
    t = "t" + uuid.uuid4().hex[:10]
    assert admin(ostium_bin, server, "tenant", "create", t).returncode == 0
    assert admin(ostium_bin, server, "user", "create", t, "ada", "--role", "admin").returncode == 0
    key = json.loads(admin(ostium_bin, server, "key", "create", t, "ada").stdout)
    ada = server.client(access_key=key["access_key"], secret_key=key["secret_key"])
    b = unique_bucket("purge")
    ada.create_bucket(Bucket=b, ObjectLockEnabledForBucket=True)
    ada.put_object(Bucket=b, Key="held", Body=b"x", ObjectLockLegalHoldStatus="ON")

    res = admin(ostium_bin, server, "tenant", "delete", t, "--purge")
    assert res.returncode != 0 and "ObjectLocked" in res.stderr, res.stderr
    # Refused whole: the tenant still works and its data is there.
    assert ada.get_object(Bucket=b, Key="held")["Body"].read() == b"x"

    ada.put_object_legal_hold(Bucket=b, Key="held", LegalHold={"Status": "OFF"})
    res = admin(ostium_bin, server, "tenant", "delete", t, "--purge")
    assert res.returncode == 0, res.stderr
