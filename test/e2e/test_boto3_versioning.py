"""Versioning with boto3's defaults: the bucket's state, versions and
delete markers, the null version of a suspended bucket, copies and
multipart uploads from and into versions, DeleteObjects by version, and
ListObjectVersions through boto3's paginator (which asks for
encoding-type=url and decodes the keys)."""

import pytest
from botocore.exceptions import ClientError

from helpers import error_code, rand_bytes

# Run again through the cluster (multinode): the versioning state set through
# one node and obeyed by the others, versions and delete markers listed across
# nodes.
pytestmark = pytest.mark.multinode


def enable(s3, bucket, status="Enabled"):
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": status})


def versions(s3, bucket, **kw):
    """Every version and delete marker as (key, id, latest, is marker), in
    listing order within each kind, over all pages."""
    out = []
    for page in s3.get_paginator("list_object_versions").paginate(Bucket=bucket, **kw):
        out += [(v["Key"], v["VersionId"], v["IsLatest"], False) for v in page.get("Versions", [])]
        out += [(m["Key"], m["VersionId"], m["IsLatest"], True) for m in page.get("DeleteMarkers", [])]
    return out


def test_versioning_configuration(s3, bucket):
    # Never versioned: no Status, as AWS.
    assert "Status" not in s3.get_bucket_versioning(Bucket=bucket)
    enable(s3, bucket)
    assert s3.get_bucket_versioning(Bucket=bucket)["Status"] == "Enabled"
    enable(s3, bucket, "Suspended")
    assert s3.get_bucket_versioning(Bucket=bucket)["Status"] == "Suspended"
    # There is no way back to unversioned, and no MFA delete.
    with pytest.raises(ClientError) as e:
        s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Disabled"})
    assert error_code(e) == (400, "MalformedXML")
    with pytest.raises(ClientError) as e:
        s3.put_bucket_versioning(Bucket=bucket, MFA="arn:aws:iam::0:mfa/x 123456",
                                 VersioningConfiguration={"Status": "Enabled", "MFADelete": "Enabled"})
    assert error_code(e) == (501, "NotImplemented")
    assert s3.get_bucket_versioning(Bucket=bucket)["Status"] == "Suspended"


def test_versions_and_delete_markers(s3, bucket):
    enable(s3, bucket)
    v1 = s3.put_object(Bucket=bucket, Key="doc", Body=b"one")["VersionId"]
    v2 = s3.put_object(Bucket=bucket, Key="doc", Body=b"two")["VersionId"]
    assert v1 != v2 and "null" not in (v1, v2)
    got = s3.get_object(Bucket=bucket, Key="doc", VersionId=v1)
    assert got["Body"].read() == b"one" and got["VersionId"] == v1
    assert s3.head_object(Bucket=bucket, Key="doc")["VersionId"] == v2

    d = s3.delete_object(Bucket=bucket, Key="doc")
    assert d["DeleteMarker"] is True and d["VersionId"] not in (v1, v2)
    marker = d["VersionId"]
    with pytest.raises(ClientError) as e:
        s3.get_object(Bucket=bucket, Key="doc")
    assert error_code(e) == (404, "NoSuchKey")
    assert e.value.response["ResponseMetadata"]["HTTPHeaders"]["x-amz-delete-marker"] == "true"
    with pytest.raises(ClientError) as e:
        s3.get_object(Bucket=bucket, Key="doc", VersionId=marker)
    assert error_code(e) == (405, "MethodNotAllowed")
    headers = e.value.response["ResponseMetadata"]["HTTPHeaders"]
    assert headers["x-amz-delete-marker"] == "true" and "last-modified" in headers
    assert "Contents" not in s3.list_objects_v2(Bucket=bucket)
    assert sorted(versions(s3, bucket)) == sorted([
        ("doc", v1, False, False), ("doc", v2, False, False), ("doc", marker, True, True)])

    # Removing the marker by id brings v2 back; removing v2 by id, v1.
    d = s3.delete_object(Bucket=bucket, Key="doc", VersionId=marker)
    assert d["DeleteMarker"] is True and d["VersionId"] == marker
    assert s3.get_object(Bucket=bucket, Key="doc")["Body"].read() == b"two"
    d = s3.delete_object(Bucket=bucket, Key="doc", VersionId=v2)
    assert "DeleteMarker" not in d and d["VersionId"] == v2
    assert s3.get_object(Bucket=bucket, Key="doc")["Body"].read() == b"one"
    with pytest.raises(ClientError) as e:
        s3.get_object(Bucket=bucket, Key="doc", VersionId=v2)
    assert error_code(e) == (404, "NoSuchVersion")


def test_suspended_bucket_writes_the_null_version(s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"before")
    assert "VersionId" not in s3.head_object(Bucket=bucket, Key="k")
    enable(s3, bucket)
    v1 = s3.put_object(Bucket=bucket, Key="k", Body=b"v1")["VersionId"]
    assert s3.get_object(Bucket=bucket, Key="k", VersionId="null")["Body"].read() == b"before"
    enable(s3, bucket, "Suspended")
    assert s3.put_object(Bucket=bucket, Key="k", Body=b"n1")["VersionId"] == "null"
    assert s3.put_object(Bucket=bucket, Key="k", Body=b"n2")["VersionId"] == "null"
    assert sorted(versions(s3, bucket)) == sorted([("k", "null", True, False), ("k", v1, False, False)])
    assert s3.get_object(Bucket=bucket, Key="k", VersionId="null")["Body"].read() == b"n2"
    d = s3.delete_object(Bucket=bucket, Key="k")
    assert d["DeleteMarker"] is True and d["VersionId"] == "null"
    assert sorted(versions(s3, bucket)) == sorted([("k", "null", True, True), ("k", v1, False, False)])
    assert s3.get_object(Bucket=bucket, Key="k", VersionId=v1)["Body"].read() == b"v1"


def test_copies_and_uploads_from_and_into_versions(s3, bucket):
    enable(s3, bucket)
    big = rand_bytes(5 << 20, seed=3)
    v1 = s3.put_object(Bucket=bucket, Key="src", Body=big)["VersionId"]
    s3.put_object(Bucket=bucket, Key="src", Body=b"newer")
    cp = s3.copy_object(Bucket=bucket, Key="dst", CopySource={"Bucket": bucket, "Key": "src", "VersionId": v1})
    assert cp["CopySourceVersionId"] == v1 and cp["VersionId"] not in (v1, "null")
    assert s3.get_object(Bucket=bucket, Key="dst")["Body"].read() == big

    up = s3.create_multipart_upload(Bucket=bucket, Key="mp")["UploadId"]
    pc = s3.upload_part_copy(Bucket=bucket, Key="mp", UploadId=up, PartNumber=1,
                             CopySource={"Bucket": bucket, "Key": "src", "VersionId": v1})
    assert pc["CopySourceVersionId"] == v1
    p2 = s3.upload_part(Bucket=bucket, Key="mp", UploadId=up, PartNumber=2, Body=b"tail")
    done = s3.complete_multipart_upload(Bucket=bucket, Key="mp", UploadId=up, MultipartUpload={"Parts": [
        {"PartNumber": 1, "ETag": pc["CopyPartResult"]["ETag"]}, {"PartNumber": 2, "ETag": p2["ETag"]}]})
    assert done["VersionId"] not in ("", "null")
    assert s3.get_object(Bucket=bucket, Key="mp", VersionId=done["VersionId"])["Body"].read() == big + b"tail"

    marker = s3.delete_object(Bucket=bucket, Key="src")["VersionId"]
    with pytest.raises(ClientError) as e:
        s3.copy_object(Bucket=bucket, Key="x", CopySource={"Bucket": bucket, "Key": "src"})
    assert error_code(e) == (404, "NoSuchKey")
    with pytest.raises(ClientError) as e:
        s3.copy_object(Bucket=bucket, Key="x", CopySource={"Bucket": bucket, "Key": "src", "VersionId": marker})
    assert error_code(e) == (400, "InvalidRequest")


def test_delete_objects_by_version(s3, bucket):
    enable(s3, bucket)
    a1 = s3.put_object(Bucket=bucket, Key="a", Body=b"a1")["VersionId"]
    s3.put_object(Bucket=bucket, Key="a", Body=b"a2")
    s3.put_object(Bucket=bucket, Key="b", Body=b"b1")
    m = s3.delete_object(Bucket=bucket, Key="c")["VersionId"]
    out = s3.delete_objects(Bucket=bucket, Delete={"Objects": [
        {"Key": "a", "VersionId": a1}, {"Key": "b"}, {"Key": "c", "VersionId": m}]})
    assert "Errors" not in out
    got = {d["Key"]: d for d in out["Deleted"]}
    assert got["a"]["VersionId"] == a1 and "DeleteMarker" not in got["a"]
    assert got["b"]["DeleteMarker"] is True and got["b"]["DeleteMarkerVersionId"] not in ("", "null")
    assert got["c"]["DeleteMarker"] is True and got["c"]["DeleteMarkerVersionId"] == m == got["c"]["VersionId"]
    assert s3.get_object(Bucket=bucket, Key="a")["Body"].read() == b"a2"


def test_list_object_versions_pages(s3, bucket):
    enable(s3, bucket)
    keys = ["a b", "dir/x+y", "dir/\u00e9t\u00e9", "dir/sub/z", "k%", "z"]
    written = {}
    for i, k in enumerate(keys):
        written[k] = [s3.put_object(Bucket=bucket, Key=k, Body=k.encode())["VersionId"] for _ in range(i % 3 + 2)]
    s3.delete_object(Bucket=bucket, Key="z")
    want = sorted((k, v) for k, vs in written.items() for v in vs)

    # Pages of 3 split keys; boto3 sends encoding-type=url and decodes.
    listed = versions(s3, bucket, PaginationConfig={"PageSize": 3})
    assert sorted((k, v) for k, v, _, marker in listed if not marker) == want
    assert [(k, latest) for k, _, latest, marker in listed if marker] == [("z", True)]
    for k, vs in written.items():
        latest = [v for kk, v, is_latest, marker in listed if kk == k and is_latest and not marker]
        assert latest == ([] if k == "z" else [vs[-1]]), k

    # A delimiter rolls dir/ up into one prefix, counted once.
    pages = list(s3.get_paginator("list_object_versions").paginate(Bucket=bucket, Delimiter="/", PaginationConfig={"PageSize": 2}))
    prefixes = [p["Prefix"] for page in pages for p in page.get("CommonPrefixes", [])]
    assert prefixes == ["dir/"]
    out = s3.list_object_versions(Bucket=bucket, Prefix="dir/", Delimiter="/")
    assert [p["Prefix"] for p in out["CommonPrefixes"]] == ["dir/sub/"]
    assert {v["Key"] for v in out["Versions"]} == {"dir/x+y", "dir/\u00e9t\u00e9"}

    # Markers: after one version of a key come its older ones.
    vs = written["dir/sub/z"]
    out = s3.list_object_versions(Bucket=bucket, KeyMarker="dir/sub/z", VersionIdMarker=vs[-1], Prefix="dir/sub/")
    assert [v["VersionId"] for v in out["Versions"]] == list(reversed(vs[:-1]))
    with pytest.raises(ClientError) as e:
        s3.list_object_versions(Bucket=bucket, VersionIdMarker=vs[-1])
    assert error_code(e) == (400, "InvalidArgument")
