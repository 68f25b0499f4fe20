"""boto3 against a real ostium server: listings and multipart uploads."""

import hashlib
import io
import xml.etree.ElementTree as ET

import pytest
from boto3.s3.transfer import TransferConfig
from botocore.exceptions import ClientError

from checksums import multipart_etag
from helpers import MiB, Wire, error_code, etag_of, rand_bytes, signed_request, tls_client

# Run again through the cluster (multinode): listings read right after writes
# that other nodes took, multipart uploads whose parts and completion reach
# different nodes.
pytestmark = pytest.mark.multinode


# --- listings ----------------------------------------------------------------

LIST_KEYS = ["a/1", "a/2", "a/b/3", "a/b/4", "b/5", "c", "d/6"]


@pytest.fixture
def listed_bucket(s3, bucket):
    for k in LIST_KEYS:
        s3.put_object(Bucket=bucket, Key=k, Body=k.encode())
    return bucket


def test_list_objects_v2(s3, listed_bucket):
    b = listed_bucket
    r = s3.list_objects_v2(Bucket=b)
    assert [o["Key"] for o in r["Contents"]] == LIST_KEYS
    assert r["KeyCount"] == len(LIST_KEYS) and r["IsTruncated"] is False
    o = r["Contents"][0]
    assert o["Size"] == 3 and o["ETag"] == etag_of(b"a/1") and o["StorageClass"] == "STANDARD"
    assert "Owner" not in o

    r = s3.list_objects_v2(Bucket=b, Delimiter="/")
    assert [o["Key"] for o in r["Contents"]] == ["c"]
    assert [p["Prefix"] for p in r["CommonPrefixes"]] == ["a/", "b/", "d/"]
    assert r["KeyCount"] == 4

    r = s3.list_objects_v2(Bucket=b, Prefix="a/", Delimiter="/")
    assert [o["Key"] for o in r["Contents"]] == ["a/1", "a/2"]
    assert [p["Prefix"] for p in r["CommonPrefixes"]] == ["a/b/"]

    r = s3.list_objects_v2(Bucket=b, StartAfter="a/b/3")
    assert [o["Key"] for o in r["Contents"]] == ["a/b/4", "b/5", "c", "d/6"]

    r = s3.list_objects_v2(Bucket=b, Prefix="zzz")
    assert r["KeyCount"] == 0 and "Contents" not in r

    r = s3.list_objects_v2(Bucket=b, FetchOwner=True, MaxKeys=1)
    assert r["Contents"][0]["Owner"]["ID"]
    assert r["IsTruncated"] is True and r["NextContinuationToken"]


def test_list_objects_v2_paginator(s3, listed_bucket):
    pages = list(s3.get_paginator("list_objects_v2").paginate(Bucket=listed_bucket, PaginationConfig={"PageSize": 2}))
    assert [len(p.get("Contents", [])) for p in pages] == [2, 2, 2, 1]
    assert [o["Key"] for p in pages for o in p["Contents"]] == LIST_KEYS
    assert all(p["IsTruncated"] for p in pages[:-1]) and not pages[-1]["IsTruncated"]

    # With a delimiter, prefixes and keys share the page budget.
    pages = list(s3.get_paginator("list_objects_v2").paginate(
        Bucket=listed_bucket, Delimiter="/", PaginationConfig={"PageSize": 1}))
    entries = [x for p in pages for x in
               [o["Key"] for o in p.get("Contents", [])] + [c["Prefix"] for c in p.get("CommonPrefixes", [])]]
    assert entries == ["a/", "b/", "c", "d/"]
    assert len(pages) == 4


def test_list_objects_v1(s3, listed_bucket):
    r = s3.list_objects(Bucket=listed_bucket, MaxKeys=3)
    assert [o["Key"] for o in r["Contents"]] == LIST_KEYS[:3] and r["IsTruncated"]
    r = s3.list_objects(Bucket=listed_bucket, Marker="a/b/4")
    assert [o["Key"] for o in r["Contents"]] == ["b/5", "c", "d/6"]
    assert r["Contents"][0]["Owner"]["ID"]
    r = s3.list_objects(Bucket=listed_bucket, Delimiter="/", MaxKeys=2)
    assert [p["Prefix"] for p in r["CommonPrefixes"]] == ["a/", "b/"]
    assert r["IsTruncated"] and r["NextMarker"] == "b/"
    pages = list(s3.get_paginator("list_objects").paginate(Bucket=listed_bucket, PaginationConfig={"PageSize": 2}))
    assert [o["Key"] for p in pages for o in p["Contents"]] == LIST_KEYS


def test_list_object_versions_null(s3, listed_bucket):
    r = s3.list_object_versions(Bucket=listed_bucket, Prefix="a/")
    vs = r["Versions"]
    assert [v["Key"] for v in vs] == ["a/1", "a/2", "a/b/3", "a/b/4"]
    assert all(v["VersionId"] == "null" and v["IsLatest"] is True for v in vs)
    assert vs[0]["ETag"] == etag_of(b"a/1") and vs[0]["Size"] == 3
    assert "DeleteMarkers" not in r
    r = s3.list_object_versions(Bucket=listed_bucket, Delimiter="/")
    assert [p["Prefix"] for p in r["CommonPrefixes"]] == ["a/", "b/", "d/"]
    assert [v["Key"] for v in r["Versions"]] == ["c"]
    # A GET of version "null" is the object.
    assert s3.get_object(Bucket=listed_bucket, Key="c", VersionId="null")["Body"].read() == b"c"


# boto3 asks every listing for encoding-type=url and decodes what AWS
# encodes, except V1's Prefix (botocore's decode_list_object leaves it): a
# server that encodes "/" there handed list_objects(Prefix="foo/") back a
# Prefix of "foo%2F". AWS leaves "/" as it is in every encoded field.
ENC_KEYS = ["foo/a b", "foo/a+b", "foo/sub/x", "foo/100%", "zz"]


@pytest.fixture
def enc_bucket(s3, bucket):
    for k in ENC_KEYS:
        s3.put_object(Bucket=bucket, Key=k, Body=k.encode())
    return bucket


def test_list_objects_v1_prefix_roundtrip(s3, enc_bucket):
    r = s3.list_objects(Bucket=enc_bucket, Prefix="foo/")
    assert r["Prefix"] == "foo/"
    assert [o["Key"] for o in r["Contents"]] == ["foo/100%", "foo/a b", "foo/a+b", "foo/sub/x"]
    r = s3.list_objects(Bucket=enc_bucket, Prefix="foo/", Delimiter="/", Marker="foo/100%", MaxKeys=2)
    assert r["Prefix"] == "foo/" and r["Delimiter"] == "/" and r["Marker"] == "foo/100%"
    assert [o["Key"] for o in r["Contents"]] == ["foo/a b", "foo/a+b"]
    assert r["IsTruncated"] and r["NextMarker"] == "foo/a+b"
    r = s3.list_objects(Bucket=enc_bucket, Prefix="foo/", Delimiter="/", Marker=r["NextMarker"])
    assert [p["Prefix"] for p in r["CommonPrefixes"]] == ["foo/sub/"]
    pages = list(s3.get_paginator("list_objects").paginate(
        Bucket=enc_bucket, Prefix="foo/", Delimiter="/", PaginationConfig={"PageSize": 1}))
    entries = [x for p in pages for x in
               [o["Key"] for o in p.get("Contents", [])] + [c["Prefix"] for c in p.get("CommonPrefixes", [])]]
    assert entries == ["foo/100%", "foo/a b", "foo/a+b", "foo/sub/"]


def test_list_objects_v2_encoded_fields_roundtrip(s3, enc_bucket):
    r = s3.list_objects_v2(Bucket=enc_bucket, Prefix="foo/", Delimiter="/", StartAfter="foo/a b")
    assert r["Prefix"] == "foo/" and r["Delimiter"] == "/" and r["StartAfter"] == "foo/a b"
    assert [o["Key"] for o in r["Contents"]] == ["foo/a+b"]
    assert [p["Prefix"] for p in r["CommonPrefixes"]] == ["foo/sub/"]
    pages = list(s3.get_paginator("list_objects_v2").paginate(
        Bucket=enc_bucket, Prefix="foo/", PaginationConfig={"PageSize": 1}))
    assert [o["Key"] for p in pages for o in p["Contents"]] == ["foo/100%", "foo/a b", "foo/a+b", "foo/sub/x"]


def test_list_encoding_url_raw(server, enc_bucket):
    # What goes over the wire, as AWS answers it: "/" kept, a space "+".
    ns = {"s3": "http://s3.amazonaws.com/doc/2006-03-01/"}
    resp = signed_request(server, "GET", f"/{enc_bucket}",
                          {"prefix": "foo/", "delimiter": "/", "encoding-type": "url", "marker": "foo/100%"})
    assert resp.status_code == 200, resp.text
    root = ET.fromstring(resp.content)
    assert root.findtext("s3:Prefix", namespaces=ns) == "foo/"
    assert root.findtext("s3:Delimiter", namespaces=ns) == "/"
    assert root.findtext("s3:Marker", namespaces=ns) == "foo/100%25"
    assert [e.text for e in root.findall("s3:Contents/s3:Key", ns)] == ["foo/a+b", "foo/a%2Bb"]
    assert [e.text for e in root.findall("s3:CommonPrefixes/s3:Prefix", ns)] == ["foo/sub/"]


# --- multipart ---------------------------------------------------------------


def test_upload_fileobj_multipart(s3, bucket):
    body = rand_bytes(12 * MiB + 123, seed=8)
    cfg = TransferConfig(multipart_threshold=5 * MiB, multipart_chunksize=5 * MiB, max_concurrency=3)
    s3.upload_fileobj(io.BytesIO(body), bucket, "big.bin", Config=cfg,
                      ExtraArgs={"Metadata": {"kind": "multipart"}, "ContentType": "application/x-big"})
    h = s3.head_object(Bucket=bucket, Key="big.bin")
    assert h["ContentLength"] == len(body)
    parts = [body[i:i + 5 * MiB] for i in range(0, len(body), 5 * MiB)]
    assert h["ETag"] == multipart_etag(parts)
    assert h["Metadata"] == {"kind": "multipart"} and h["ContentType"] == "application/x-big"
    # download_fileobj splits into ranged GETs above the threshold.
    out = io.BytesIO()
    s3.download_fileobj(bucket, "big.bin", out, Config=cfg)
    assert out.getvalue() == body
    # Checksum mode on a multipart object must not break the GET.
    got = s3.get_object(Bucket=bucket, Key="big.bin", ChecksumMode="ENABLED")
    assert hashlib.sha256(got["Body"].read()).digest() == hashlib.sha256(body).digest()


def test_upload_fileobj_multipart_aws_chunked(server, tls, bucket):
    c = tls_client(server, tls)
    wire = Wire(c)
    body = rand_bytes(11 * MiB, seed=16)
    cfg = TransferConfig(multipart_threshold=5 * MiB, multipart_chunksize=5 * MiB, max_concurrency=3)
    c.upload_fileobj(io.BytesIO(body), bucket, "big", Config=cfg)
    parts = [h for m, u, h in wire.sent if m == "PUT" and "uploadId=" in u]
    assert len(parts) == 3
    assert all(h["x-amz-content-sha256"] == "STREAMING-UNSIGNED-PAYLOAD-TRAILER" for h in parts)
    assert c.head_object(Bucket=bucket, Key="big")["ETag"] == multipart_etag(
        [body[i:i + 5 * MiB] for i in range(0, len(body), 5 * MiB)])
    out = io.BytesIO()
    c.download_fileobj(bucket, "big", out, Config=cfg)
    assert out.getvalue() == body


def test_multipart_low_level(s3, bucket):
    p1, p2 = rand_bytes(5 * MiB, seed=9), rand_bytes(1000, seed=10)
    up = s3.create_multipart_upload(Bucket=bucket, Key="mp", Metadata={"m": "v"}, ContentType="text/x-mp")
    uid = up["UploadId"]
    assert up["Bucket"] == bucket and up["Key"] == "mp"
    e1 = s3.upload_part(Bucket=bucket, Key="mp", UploadId=uid, PartNumber=1, Body=p1)["ETag"]
    e2 = s3.upload_part(Bucket=bucket, Key="mp", UploadId=uid, PartNumber=2, Body=p2)["ETag"]
    assert e1 == etag_of(p1) and e2 == etag_of(p2)

    uploads = s3.list_multipart_uploads(Bucket=bucket)["Uploads"]
    assert [(u["Key"], u["UploadId"]) for u in uploads] == [("mp", uid)]
    parts = s3.list_parts(Bucket=bucket, Key="mp", UploadId=uid)["Parts"]
    assert [(p["PartNumber"], p["Size"], p["ETag"]) for p in parts] == [(1, len(p1), e1), (2, len(p2), e2)]
    page = s3.list_parts(Bucket=bucket, Key="mp", UploadId=uid, MaxParts=1)
    assert [p["PartNumber"] for p in page["Parts"]] == [1] and page["IsTruncated"]
    assert page["NextPartNumberMarker"] == 1

    # Re-uploading a part replaces it.
    e2 = s3.upload_part(Bucket=bucket, Key="mp", UploadId=uid, PartNumber=2, Body=p2[:500])["ETag"]
    r = s3.complete_multipart_upload(Bucket=bucket, Key="mp", UploadId=uid, MultipartUpload={
        "Parts": [{"PartNumber": 1, "ETag": e1}, {"PartNumber": 2, "ETag": e2}]})
    assert r["ETag"] == multipart_etag([p1, p2[:500]])
    got = s3.get_object(Bucket=bucket, Key="mp")
    assert got["Body"].read() == p1 + p2[:500]
    assert got["Metadata"] == {"m": "v"} and got["ContentType"] == "text/x-mp"
    assert s3.list_multipart_uploads(Bucket=bucket).get("Uploads", []) == []


def test_multipart_errors(s3, bucket):
    small = b"tiny part"
    big = rand_bytes(5 * MiB, seed=11)

    uid = s3.create_multipart_upload(Bucket=bucket, Key="small")["UploadId"]
    e1 = s3.upload_part(Bucket=bucket, Key="small", UploadId=uid, PartNumber=1, Body=small)["ETag"]
    e2 = s3.upload_part(Bucket=bucket, Key="small", UploadId=uid, PartNumber=2, Body=small)["ETag"]
    with pytest.raises(ClientError) as e:
        s3.complete_multipart_upload(Bucket=bucket, Key="small", UploadId=uid, MultipartUpload={
            "Parts": [{"PartNumber": 1, "ETag": e1}, {"PartNumber": 2, "ETag": e2}]})
    assert error_code(e) == (400, "EntityTooSmall")

    uid = s3.create_multipart_upload(Bucket=bucket, Key="k")["UploadId"]
    e1 = s3.upload_part(Bucket=bucket, Key="k", UploadId=uid, PartNumber=1, Body=big)["ETag"]
    e2 = s3.upload_part(Bucket=bucket, Key="k", UploadId=uid, PartNumber=2, Body=big)["ETag"]
    e3 = s3.upload_part(Bucket=bucket, Key="k", UploadId=uid, PartNumber=3, Body=small)["ETag"]
    with pytest.raises(ClientError) as e:
        s3.complete_multipart_upload(Bucket=bucket, Key="k", UploadId=uid, MultipartUpload={
            "Parts": [{"PartNumber": 1, "ETag": '"00000000000000000000000000000000"'}, {"PartNumber": 2, "ETag": e2}]})
    assert error_code(e) == (400, "InvalidPart")
    with pytest.raises(ClientError) as e:
        s3.complete_multipart_upload(Bucket=bucket, Key="k", UploadId=uid, MultipartUpload={
            "Parts": [{"PartNumber": 1, "ETag": e1}, {"PartNumber": 4, "ETag": e3}]})
    assert error_code(e) == (400, "InvalidPart")
    with pytest.raises(ClientError) as e:
        s3.complete_multipart_upload(Bucket=bucket, Key="k", UploadId=uid, MultipartUpload={
            "Parts": [{"PartNumber": 2, "ETag": e2}, {"PartNumber": 1, "ETag": e1}]})
    assert error_code(e) == (400, "InvalidPartOrder")
    # The failed completions left the upload usable.
    s3.complete_multipart_upload(Bucket=bucket, Key="k", UploadId=uid, MultipartUpload={
        "Parts": [{"PartNumber": 1, "ETag": e1}, {"PartNumber": 2, "ETag": e2}, {"PartNumber": 3, "ETag": e3}]})
    assert s3.head_object(Bucket=bucket, Key="k")["ContentLength"] == 2 * len(big) + len(small)
    assert s3.get_object(Bucket=bucket, Key="k", Range=f"bytes={len(big)}-{len(big) + 9}")["Body"].read() == big[:10]
    # Completed: the upload is gone.
    with pytest.raises(ClientError) as e:
        s3.upload_part(Bucket=bucket, Key="k", UploadId=uid, PartNumber=3, Body=small)
    assert error_code(e) == (404, "NoSuchUpload")

    with pytest.raises(ClientError) as e:
        s3.upload_part(Bucket=bucket, Key="k", UploadId="no-such-upload-id", PartNumber=1, Body=small)
    assert error_code(e) == (404, "NoSuchUpload")
    with pytest.raises(ClientError) as e:
        s3.list_parts(Bucket=bucket, Key="k", UploadId="no-such-upload-id")
    assert error_code(e) == (404, "NoSuchUpload")

    uid = s3.create_multipart_upload(Bucket=bucket, Key="aborted")["UploadId"]
    s3.upload_part(Bucket=bucket, Key="aborted", UploadId=uid, PartNumber=1, Body=small)
    assert s3.abort_multipart_upload(Bucket=bucket, Key="aborted", UploadId=uid)["ResponseMetadata"]["HTTPStatusCode"] == 204
    with pytest.raises(ClientError) as e:
        s3.complete_multipart_upload(Bucket=bucket, Key="aborted", UploadId=uid, MultipartUpload={
            "Parts": [{"PartNumber": 1, "ETag": etag_of(small)}]})
    assert error_code(e) == (404, "NoSuchUpload")
    with pytest.raises(ClientError) as e:
        s3.head_object(Bucket=bucket, Key="aborted")
    assert error_code(e)[0] == 404

    uid = s3.create_multipart_upload(Bucket=bucket, Key="badnum")["UploadId"]
    with pytest.raises(ClientError) as e:
        s3.upload_part(Bucket=bucket, Key="badnum", UploadId=uid, PartNumber=10001, Body=small)
    assert error_code(e) == (400, "InvalidArgument")


def test_upload_part_copy(s3, bucket):
    src = rand_bytes(10 * MiB + 17, seed=12)  # two parts of at least 5 MiB
    s3.put_object(Bucket=bucket, Key="src", Body=src)
    s3.put_object(Bucket=bucket, Key="tail", Body=b"-tail")
    uid = s3.create_multipart_upload(Bucket=bucket, Key="dst")["UploadId"]
    cut = 5 * MiB
    c1 = s3.upload_part_copy(Bucket=bucket, Key="dst", UploadId=uid, PartNumber=1,
                             CopySource={"Bucket": bucket, "Key": "src"}, CopySourceRange=f"bytes=0-{cut - 1}")
    c2 = s3.upload_part_copy(Bucket=bucket, Key="dst", UploadId=uid, PartNumber=2,
                             CopySource={"Bucket": bucket, "Key": "src"}, CopySourceRange=f"bytes={cut}-{len(src) - 1}")
    c3 = s3.upload_part_copy(Bucket=bucket, Key="dst", UploadId=uid, PartNumber=3,
                             CopySource={"Bucket": bucket, "Key": "tail"})
    assert c1["CopyPartResult"]["ETag"] == etag_of(src[:cut])
    assert c3["CopyPartResult"]["ETag"] == etag_of(b"-tail")
    with pytest.raises(ClientError) as e:
        s3.upload_part_copy(Bucket=bucket, Key="dst", UploadId=uid, PartNumber=4,
                            CopySource={"Bucket": bucket, "Key": "src"}, CopySourceIfMatch='"nope"')
    assert error_code(e) == (412, "PreconditionFailed")
    with pytest.raises(ClientError) as e:
        s3.upload_part_copy(Bucket=bucket, Key="dst", UploadId=uid, PartNumber=4,
                            CopySource={"Bucket": bucket, "Key": "src"}, CopySourceRange=f"bytes=0-{len(src)}")
    assert error_code(e) == (416, "InvalidRange") or error_code(e) == (400, "InvalidArgument")
    s3.complete_multipart_upload(Bucket=bucket, Key="dst", UploadId=uid, MultipartUpload={"Parts": [
        {"PartNumber": 1, "ETag": c1["CopyPartResult"]["ETag"]},
        {"PartNumber": 2, "ETag": c2["CopyPartResult"]["ETag"]},
        {"PartNumber": 3, "ETag": c3["CopyPartResult"]["ETag"]}]})
    assert s3.get_object(Bucket=bucket, Key="dst")["Body"].read() == src + b"-tail"
    assert s3.head_object(Bucket=bucket, Key="dst")["ETag"] == multipart_etag([src[:cut], src[cut:], b"-tail"])
