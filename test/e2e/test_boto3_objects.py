"""boto3 against a real ostium server, with boto3's defaults: buckets,
objects, checksums and payload encodings, copies, multi-delete.

botocore picks the upload encoding from the scheme: over http it signs the
payload (x-amz-content-sha256 = hex SHA-256) and sends a CRC32 checksum
header; over https it sends aws-chunked with a CRC32 trailing checksum
(STREAMING-UNSIGNED-PAYLOAD-TRAILER). Tests needing the latter go through the
`tls` fixture, a TLS proxy in front of the server."""

import base64
import datetime as dt
import email.header
import hashlib
import xml.etree.ElementTree as ET

import botocore.exceptions
import pytest
from botocore.exceptions import ClientError

from checksums import s3_checksum
from helpers import Wire, error_code, etag_of, rand_bytes, signed_request, tls_client, unique_bucket, xml_error_code

# Run again through the cluster (multinode): buckets made and objects written
# through one node and read, copied, listed, checked and deleted through
# others, on the S3 platform and the shared catalog.
pytestmark = pytest.mark.multinode


# --- buckets -----------------------------------------------------------------


def test_bucket_crud(s3, bucket_name):
    s3.create_bucket(Bucket=bucket_name)
    assert s3.head_bucket(Bucket=bucket_name)["ResponseMetadata"]["HTTPStatusCode"] == 200
    names = [b["Name"] for b in s3.list_buckets()["Buckets"]]
    assert bucket_name in names
    # us-east-1 is reported as an empty LocationConstraint.
    assert s3.get_bucket_location(Bucket=bucket_name).get("LocationConstraint") in (None, "")
    # Versioning was never enabled: no Status.
    assert "Status" not in s3.get_bucket_versioning(Bucket=bucket_name)

    with pytest.raises(ClientError) as e:
        s3.create_bucket(Bucket=bucket_name)
    # Note: AWS's legacy us-east-1 answers 200 here; every other region (and
    # ostium) says BucketAlreadyOwnedByYou.
    assert error_code(e) == (409, "BucketAlreadyOwnedByYou")

    s3.delete_bucket(Bucket=bucket_name)
    with pytest.raises(ClientError) as e:
        s3.head_bucket(Bucket=bucket_name)
    assert error_code(e)[0] == 404
    with pytest.raises(ClientError) as e:
        s3.delete_bucket(Bucket=bucket_name)
    assert error_code(e) == (404, "NoSuchBucket")
    assert bucket_name not in [b["Name"] for b in s3.list_buckets()["Buckets"]]


def test_list_buckets_pages(s3):
    # ListBuckets with max-buckets, as boto3's paginator drives it against
    # AWS: each bucket's BucketRegion, the Prefix echoed, a
    # ContinuationToken while buckets remain.
    prefix = unique_bucket("lb") + "-"
    names = [prefix + c for c in "abc"]
    for n in names:
        s3.create_bucket(Bucket=n)
    try:
        pages = list(s3.get_paginator("list_buckets").paginate(Prefix=prefix, PaginationConfig={"PageSize": 2}))
        assert [len(p["Buckets"]) for p in pages] == [2, 1]
        assert [b["Name"] for p in pages for b in p["Buckets"]] == names
        assert all(p["Prefix"] == prefix for p in pages)
        assert "ContinuationToken" in pages[0] and "ContinuationToken" not in pages[1]
        assert {b["BucketRegion"] for p in pages for b in p["Buckets"]} == {"us-east-1"}
        with pytest.raises(ClientError) as e:
            s3.list_buckets(MaxBuckets=10001)
        assert error_code(e) == (400, "InvalidArgument")
    finally:
        for n in names:
            s3.delete_bucket(Bucket=n)


def test_bucket_not_empty(s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    with pytest.raises(ClientError) as e:
        s3.delete_bucket(Bucket=bucket)
    assert error_code(e) == (409, "BucketNotEmpty")
    s3.head_bucket(Bucket=bucket)  # still there


@pytest.mark.parametrize("name", [
    "ab",                      # too short
    "a" * 64,                  # too long
    "UpperCase-bucket",        # upper case
    "bucket..dots",            # adjacent dots
    "-leading-dash",
    "trailing-dash-",
    "192.168.5.4",             # IP address form
    "under_score",
])
def test_invalid_bucket_name(s3, name):
    with pytest.raises(ClientError) as e:
        s3.create_bucket(Bucket=name)
    assert error_code(e) == (400, "InvalidBucketName")


def test_no_such_bucket(s3):
    missing = unique_bucket("missing")
    for call in (lambda: s3.list_objects_v2(Bucket=missing),
                 lambda: s3.get_object(Bucket=missing, Key="k"),
                 lambda: s3.put_object(Bucket=missing, Key="k", Body=b"x")):
        with pytest.raises(ClientError) as e:
            call()
        assert error_code(e) == (404, "NoSuchBucket")


# --- objects -----------------------------------------------------------------


def test_put_get_head_delete(s3, bucket):
    body = rand_bytes(10_000, seed=1)
    expires = dt.datetime(2030, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)
    put = s3.put_object(
        Bucket=bucket, Key="dir/obj.bin", Body=body,
        Metadata={"color": "blue", "Mixed-Case": "Value With Spaces"},
        ContentType="application/x-test", CacheControl="max-age=60",
        ContentDisposition='attachment; filename="obj.bin"', ContentEncoding="identity",
        ContentLanguage="fr-CA", Expires=expires)
    assert put["ETag"] == etag_of(body)

    got = s3.get_object(Bucket=bucket, Key="dir/obj.bin")
    assert got["Body"].read() == body
    for r in (got, s3.head_object(Bucket=bucket, Key="dir/obj.bin")):
        assert r["ETag"] == etag_of(body)
        assert r["ContentLength"] == len(body)
        assert r["ContentType"] == "application/x-test"
        assert r["CacheControl"] == "max-age=60"
        assert r["ContentDisposition"] == 'attachment; filename="obj.bin"'
        assert r["ContentEncoding"] == "identity"
        assert r["ContentLanguage"] == "fr-CA"
        assert r["ExpiresString"] == "Wed, 02 Jan 2030 03:04:05 GMT"
        # Metadata keys come back lower-cased, values as sent.
        assert r["Metadata"] == {"color": "blue", "mixed-case": "Value With Spaces"}
        assert isinstance(r["LastModified"], dt.datetime)
        assert abs((dt.datetime.now(dt.timezone.utc) - r["LastModified"]).total_seconds()) < 120

    # Overwrite replaces data and metadata.
    s3.put_object(Bucket=bucket, Key="dir/obj.bin", Body=b"new")
    h = s3.head_object(Bucket=bucket, Key="dir/obj.bin")
    assert h["ContentLength"] == 3 and h["Metadata"] == {}
    assert "CacheControl" not in h

    assert s3.delete_object(Bucket=bucket, Key="dir/obj.bin")["ResponseMetadata"]["HTTPStatusCode"] == 204
    with pytest.raises(ClientError) as e:
        s3.head_object(Bucket=bucket, Key="dir/obj.bin")
    assert error_code(e)[0] == 404
    with pytest.raises(ClientError) as e:
        s3.get_object(Bucket=bucket, Key="dir/obj.bin")
    assert error_code(e) == (404, "NoSuchKey")
    # Deleting a missing key succeeds.
    assert s3.delete_object(Bucket=bucket, Key="dir/obj.bin")["ResponseMetadata"]["HTTPStatusCode"] == 204


def test_non_ascii_metadata(s3, bucket):
    # botocore refuses non-ASCII metadata before sending it (as it does
    # against AWS), so a boto3 user sends an RFC 2047 encoded-word. AWS
    # decodes it before storing and answers a non-ASCII value encoded
    # (=?UTF-8?B?...?=) on GET and HEAD, an ASCII one as it is.
    with pytest.raises(botocore.exceptions.ParamValidationError):
        s3.put_object(Bucket=bucket, Key="meta", Body=b"x", Metadata={"name": "caf\u00e9"})
    s3.put_object(Bucket=bucket, Key="meta", Body=b"x",
                  Metadata={"name": "=?UTF-8?Q?caf=C3=A9?=", "word": "=?UTF-8?B?aGVsbG8=?=", "plain": "ascii"})
    for r in (s3.head_object(Bucket=bucket, Key="meta"), s3.get_object(Bucket=bucket, Key="meta")):
        m = r["Metadata"]
        assert m == {"name": "=?UTF-8?B?Y2Fmw6k=?=", "word": "hello", "plain": "ascii"}, m
        text, charset = email.header.decode_header(m["name"])[0]
        assert text.decode(charset) == "caf\u00e9"


def test_empty_object(s3, bucket):
    s3.put_object(Bucket=bucket, Key="empty", Body=b"")
    got = s3.get_object(Bucket=bucket, Key="empty")
    assert got["ContentLength"] == 0 and got["Body"].read() == b""
    assert got["ETag"] == '"d41d8cd98f00b204e9800998ecf8427e"'


ODD_KEYS = [
    "with space.txt",
    "plus+sign",
    "percent%20literal",
    "query?x=1&y=2#frag",
    "unicode/ünïcødé/日本語.txt",
    "tilde~and!bang*star'quote(paren)",
    "double//slash",
    "trailing/",
    "semi;colon,comma=equals@at$dollar",
]


def test_odd_keys_roundtrip_and_list(s3, bucket):
    for i, k in enumerate(ODD_KEYS):
        s3.put_object(Bucket=bucket, Key=k, Body=k.encode())
    for k in ODD_KEYS:
        assert s3.get_object(Bucket=bucket, Key=k)["Body"].read() == k.encode(), k
    # boto3 lists with encoding-type=url and decodes the keys.
    listed = [o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]]
    assert listed == sorted(ODD_KEYS, key=lambda s: s.encode())
    listed_v1 = [o["Key"] for o in s3.list_objects(Bucket=bucket)["Contents"]]
    assert listed_v1 == listed


def test_list_without_encoding_type(server, s3, bucket):
    # Plain XML (no encoding-type): keys are escaped only as XML. boto3
    # always adds encoding-type=url, so these are raw signed requests.
    key = "a&b<c> d.txt"
    s3.put_object(Bucket=bucket, Key=key, Body=b"x")
    ns = {"s3": "http://s3.amazonaws.com/doc/2006-03-01/"}
    for params in ({"list-type": "2"}, {}):
        resp = signed_request(server, "GET", f"/{bucket}", params)
        assert resp.status_code == 200, resp.text
        root = ET.fromstring(resp.content)
        assert root.findtext("s3:EncodingType", namespaces=ns) is None
        assert [e.text for e in root.findall("s3:Contents/s3:Key", ns)] == [key]
        # encoding-type=url percent-encodes the key.
        resp = signed_request(server, "GET", f"/{bucket}", {**params, "encoding-type": "url"})
        root = ET.fromstring(resp.content)
        assert root.findtext("s3:EncodingType", namespaces=ns) == "url"
        assert [e.text for e in root.findall("s3:Contents/s3:Key", ns)] == ["a%26b%3Cc%3E+d.txt"]


def test_dot_segment_keys(s3, bucket):
    # S3 keys may contain "." and ".." segments; the server must not clean
    # the path (a Go ServeMux would redirect).
    key = "dots/./x/../y"
    s3.put_object(Bucket=bucket, Key=key, Body=b"dots")
    assert s3.get_object(Bucket=bucket, Key=key)["Body"].read() == b"dots"
    assert [o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]] == [key]


def test_key_too_long(s3, bucket):
    s3.put_object(Bucket=bucket, Key="k" * 1024, Body=b"ok")
    with pytest.raises(ClientError) as e:
        s3.put_object(Bucket=bucket, Key="k" * 1025, Body=b"no")
    assert error_code(e) == (400, "KeyTooLongError")


def test_ranges(s3, bucket):
    body = bytes(range(256)) * 4  # 1024 bytes
    s3.put_object(Bucket=bucket, Key="r", Body=body)
    cases = [("bytes=0-9", 0, 9), ("bytes=1000-", 1000, 1023), ("bytes=-5", 1019, 1023),
             ("bytes=1000-5000", 1000, 1023), ("bytes=512-512", 512, 512)]
    for rng, first, last in cases:
        r = s3.get_object(Bucket=bucket, Key="r", Range=rng)
        assert r["ResponseMetadata"]["HTTPStatusCode"] == 206, rng
        assert r["ContentRange"] == f"bytes {first}-{last}/1024", rng
        assert r["ContentLength"] == last - first + 1, rng
        assert r["Body"].read() == body[first:last + 1], rng
    with pytest.raises(ClientError) as e:
        s3.get_object(Bucket=bucket, Key="r", Range="bytes=1024-2000")
    assert error_code(e) == (416, "InvalidRange")
    # An unparsable range is ignored: whole object, 200.
    r = s3.get_object(Bucket=bucket, Key="r", Range="bytes=abc")
    assert r["ResponseMetadata"]["HTTPStatusCode"] == 200 and r["Body"].read() == body
    assert s3.head_object(Bucket=bucket, Key="r", Range="bytes=0-99")["ContentLength"] == 100


def test_conditional_get(s3, bucket):
    s3.put_object(Bucket=bucket, Key="c", Body=b"conditional")
    h = s3.head_object(Bucket=bucket, Key="c")
    etag, lm = h["ETag"], h["LastModified"]
    # Dates are compared with the Last-Modified value (second precision);
    # no dates in the future, which HTTP says to ignore.
    past = lm - dt.timedelta(days=1)

    assert s3.get_object(Bucket=bucket, Key="c", IfMatch=etag)["Body"].read() == b"conditional"
    assert s3.get_object(Bucket=bucket, Key="c", IfNoneMatch='"0123"')["Body"].read() == b"conditional"
    assert s3.get_object(Bucket=bucket, Key="c", IfModifiedSince=past)["Body"].read() == b"conditional"
    assert s3.get_object(Bucket=bucket, Key="c", IfUnmodifiedSince=lm)["Body"].read() == b"conditional"

    for kw in ({"IfNoneMatch": etag}, {"IfModifiedSince": lm}, {"IfNoneMatch": "*"}):
        with pytest.raises(ClientError) as e:
            s3.get_object(Bucket=bucket, Key="c", **kw)
        assert error_code(e)[0] == 304, kw
        with pytest.raises(ClientError) as e:
            s3.head_object(Bucket=bucket, Key="c", **kw)
        assert error_code(e)[0] == 304, kw
    for kw in ({"IfMatch": '"0123"'}, {"IfUnmodifiedSince": past}):
        with pytest.raises(ClientError) as e:
            s3.get_object(Bucket=bucket, Key="c", **kw)
        assert error_code(e) == (412, "PreconditionFailed"), kw
        with pytest.raises(ClientError) as e:
            s3.head_object(Bucket=bucket, Key="c", **kw)
        assert error_code(e)[0] == 412, kw
    # RFC 7232 precedence: If-Match true + If-Unmodified-Since false -> 200;
    # If-None-Match false + If-Modified-Since true -> 304.
    assert s3.get_object(Bucket=bucket, Key="c", IfMatch=etag, IfUnmodifiedSince=past)["ETag"] == etag
    with pytest.raises(ClientError) as e:
        s3.get_object(Bucket=bucket, Key="c", IfNoneMatch=etag, IfModifiedSince=past)
    assert error_code(e)[0] == 304


def test_put_if_none_match_star(s3, bucket):
    s3.put_object(Bucket=bucket, Key="once", Body=b"first", IfNoneMatch="*")
    with pytest.raises(ClientError) as e:
        s3.put_object(Bucket=bucket, Key="once", Body=b"second", IfNoneMatch="*")
    assert error_code(e) == (412, "PreconditionFailed")
    assert s3.get_object(Bucket=bucket, Key="once")["Body"].read() == b"first"


def test_put_if_none_match_star_multipart(s3, bucket):
    s3.put_object(Bucket=bucket, Key="taken", Body=b"x")
    up = s3.create_multipart_upload(Bucket=bucket, Key="taken")["UploadId"]
    p = s3.upload_part(Bucket=bucket, Key="taken", UploadId=up, PartNumber=1, Body=b"y")
    with pytest.raises(ClientError) as e:
        s3.complete_multipart_upload(Bucket=bucket, Key="taken", UploadId=up, IfNoneMatch="*",
                                     MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": p["ETag"]}]})
    assert error_code(e) == (412, "PreconditionFailed")
    assert s3.get_object(Bucket=bucket, Key="taken")["Body"].read() == b"x"


def test_put_if_none_match_etag(s3, bucket):
    # As Ceph RGW and MinIO: 412 while the current version has the ETag.
    etag = s3.put_object(Bucket=bucket, Key="v", Body=b"one")["ETag"]
    with pytest.raises(ClientError) as e:
        s3.put_object(Bucket=bucket, Key="v", Body=b"two", IfNoneMatch=etag)
    assert error_code(e) == (412, "PreconditionFailed")
    etag2 = s3.put_object(Bucket=bucket, Key="v", Body=b"two", IfNoneMatch='"0123"')["ETag"]
    up = s3.create_multipart_upload(Bucket=bucket, Key="v")["UploadId"]
    p = s3.upload_part(Bucket=bucket, Key="v", UploadId=up, PartNumber=1, Body=b"three")
    parts = {"Parts": [{"PartNumber": 1, "ETag": p["ETag"]}]}
    with pytest.raises(ClientError) as e:
        s3.complete_multipart_upload(Bucket=bucket, Key="v", UploadId=up, IfNoneMatch=etag2, MultipartUpload=parts)
    assert error_code(e) == (412, "PreconditionFailed")
    s3.complete_multipart_upload(Bucket=bucket, Key="v", UploadId=up, IfNoneMatch=etag, MultipartUpload=parts)
    assert s3.get_object(Bucket=bucket, Key="v")["Body"].read() == b"three"


def test_get_object_attributes(s3, bucket):
    put = s3.put_object(Bucket=bucket, Key="attrs", Body=b"attributes", ChecksumAlgorithm="SHA256")
    r = s3.get_object_attributes(Bucket=bucket, Key="attrs",
                                 ObjectAttributes=["ETag", "Checksum", "ObjectParts", "StorageClass", "ObjectSize"])
    assert r["ETag"] == put["ETag"].strip('"')  # bare, as AWS
    assert r["ObjectSize"] == 10 and r["StorageClass"] == "STANDARD"
    assert r["Checksum"]["ChecksumSHA256"] == put["ChecksumSHA256"]
    assert "ObjectParts" not in r and r["LastModified"]
    up = s3.create_multipart_upload(Bucket=bucket, Key="mp-attrs", ChecksumAlgorithm="CRC32")["UploadId"]
    parts = []
    for n, body in enumerate([rand_bytes(5 * 1024 * 1024, seed=81), b"tail"], start=1):
        p = s3.upload_part(Bucket=bucket, Key="mp-attrs", UploadId=up, PartNumber=n, Body=body, ChecksumAlgorithm="CRC32")
        parts.append({"PartNumber": n, "ETag": p["ETag"], "ChecksumCRC32": p["ChecksumCRC32"]})
    s3.complete_multipart_upload(Bucket=bucket, Key="mp-attrs", UploadId=up, MultipartUpload={"Parts": parts})
    r = s3.get_object_attributes(Bucket=bucket, Key="mp-attrs", ObjectAttributes=["ObjectParts"], MaxParts=1)
    op = r["ObjectParts"]
    assert op["TotalPartsCount"] == 2 and op["IsTruncated"] and op["NextPartNumberMarker"] == 1
    assert [(x["PartNumber"], x["Size"], x["ChecksumCRC32"]) for x in op["Parts"]] == [(1, 5 * 1024 * 1024, parts[0]["ChecksumCRC32"])]
    r = s3.get_object_attributes(Bucket=bucket, Key="mp-attrs", ObjectAttributes=["ObjectParts"], PartNumberMarker=1)
    assert [x["PartNumber"] for x in r["ObjectParts"]["Parts"]] == [2] and not r["ObjectParts"]["IsTruncated"]
    with pytest.raises(ClientError) as e:
        s3.get_object_attributes(Bucket=bucket, Key="attrs", ObjectAttributes=["Owner"])
    assert error_code(e) == (400, "InvalidArgument")
    with pytest.raises(ClientError) as e:
        s3.get_object_attributes(Bucket=bucket, Key="missing", ObjectAttributes=["ETag"])
    assert error_code(e) == (404, "NoSuchKey")


# --- checksums and payload encodings -----------------------------------------


def test_aws_chunked_crc32_trailer_default(server, tls, bucket):
    c = tls_client(server, tls)
    wire = Wire(c)
    body = rand_bytes(300_000, seed=2)
    put = c.put_object(Bucket=bucket, Key="crc", Body=body)
    h = wire.last("PUT")
    assert h["x-amz-content-sha256"] == "STREAMING-UNSIGNED-PAYLOAD-TRAILER"
    assert "aws-chunked" in h["content-encoding"]
    assert h["x-amz-trailer"] == "x-amz-checksum-crc32"
    assert h["x-amz-decoded-content-length"] == str(len(body))
    assert put.get("ChecksumCRC32") == s3_checksum("crc32", body)
    assert put["ETag"] == etag_of(body)

    got = c.get_object(Bucket=bucket, Key="crc", ChecksumMode="ENABLED")
    assert got["ChecksumCRC32"] == s3_checksum("crc32", body)
    assert got["Body"].read() == body
    assert got["ContentLength"] == len(body)
    head = c.head_object(Bucket=bucket, Key="crc", ChecksumMode="ENABLED")
    assert head["ChecksumCRC32"] == s3_checksum("crc32", body)
    # aws-chunked is the transfer's coding, never stored.
    assert "ContentEncoding" not in head
    # Without checksum mode no checksum header.
    assert "ChecksumCRC32" not in c.head_object(Bucket=bucket, Key="crc")


def test_aws_chunked_keeps_other_content_encoding(server, tls, bucket):
    c = tls_client(server, tls)
    wire = Wire(c)
    c.put_object(Bucket=bucket, Key="gz", Body=b"\x1f\x8b pretend gzip", ContentEncoding="gzip")
    assert wire.last("PUT")["content-encoding"] in ("gzip,aws-chunked", "gzip, aws-chunked", "aws-chunked,gzip")
    assert c.head_object(Bucket=bucket, Key="gz")["ContentEncoding"] == "gzip"


def test_aws_chunked_empty_body(server, tls, bucket):
    c = tls_client(server, tls)
    c.put_object(Bucket=bucket, Key="empty", Body=b"")
    r = c.get_object(Bucket=bucket, Key="empty", ChecksumMode="ENABLED")
    assert r["ContentLength"] == 0 and r["Body"].read() == b""
    assert r["ChecksumCRC32"] == s3_checksum("crc32", b"")


@pytest.mark.parametrize("algorithm", ["SHA1", "SHA256", "CRC32"])
@pytest.mark.parametrize("transport", ["http", "https"])
def test_checksum_algorithm_computed_by_boto3(server, tls, bucket, algorithm, transport):
    c = tls_client(server, tls) if transport == "https" else server.client()
    wire = Wire(c)
    body = rand_bytes(70_000, seed=3)
    c.put_object(Bucket=bucket, Key="k", Body=body, ChecksumAlgorithm=algorithm)
    h = wire.last("PUT")
    if transport == "https":  # trailer
        assert h["x-amz-trailer"] == f"x-amz-checksum-{algorithm.lower()}"
    else:  # header, signed payload
        assert h[f"x-amz-checksum-{algorithm.lower()}"] == s3_checksum(algorithm, body)
        assert h["x-amz-content-sha256"] == hashlib.sha256(body).hexdigest()
    got = c.get_object(Bucket=bucket, Key="k", ChecksumMode="ENABLED")
    assert got[f"Checksum{algorithm}"] == s3_checksum(algorithm, body)
    assert got["Body"].read() == body


@pytest.mark.parametrize("algorithm", ["CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256"])
def test_checksum_header_given(s3, bucket, algorithm):
    # boto3 sends a checksum value it is given as the x-amz-checksum-* header.
    body = rand_bytes(5000, seed=4)
    good = s3_checksum(algorithm, body)
    s3.put_object(Bucket=bucket, Key="k", Body=body, **{f"Checksum{algorithm}": good})
    h = s3.head_object(Bucket=bucket, Key="k", ChecksumMode="ENABLED")
    assert h[f"Checksum{algorithm}"] == good
    bad = s3_checksum(algorithm, body + b"!")
    with pytest.raises(ClientError) as e:
        s3.put_object(Bucket=bucket, Key="k2", Body=body, **{f"Checksum{algorithm}": bad})
    assert error_code(e) == (400, "BadDigest")
    with pytest.raises(ClientError) as e:
        s3.head_object(Bucket=bucket, Key="k2")
    assert error_code(e)[0] == 404


def test_content_md5(s3, bucket):
    body = b"md5 checked body"
    good = base64.b64encode(hashlib.md5(body).digest()).decode()
    s3.put_object(Bucket=bucket, Key="m", Body=body, ContentMD5=good)
    bad = base64.b64encode(hashlib.md5(b"other").digest()).decode()
    with pytest.raises(ClientError) as e:
        s3.put_object(Bucket=bucket, Key="m2", Body=body, ContentMD5=bad)
    assert error_code(e) == (400, "BadDigest")
    with pytest.raises(ClientError) as e:
        s3.put_object(Bucket=bucket, Key="m3", Body=body, ContentMD5="not-base64!")
    assert error_code(e) == (400, "InvalidDigest")


@pytest.mark.parametrize("transport,payload_signing,want_sha", [
    ("http", None, "hex"),            # plain SigV4, payload hash in the header
    ("https", None, "hex"),           # no checksum: botocore signs the payload
    ("https", False, "UNSIGNED-PAYLOAD"),
])
def test_payload_signing_modes(server, tls, bucket, transport, payload_signing, want_sha):
    # request_checksum_calculation=when_required: no checksum, no aws-chunked.
    s3cfg = {"addressing_style": "path"}
    if payload_signing is not None:
        s3cfg["payload_signing_enabled"] = payload_signing
    kw = dict(request_checksum_calculation="when_required", s3=s3cfg)
    c = tls_client(server, tls, **kw) if transport == "https" else server.client(**kw)
    wire = Wire(c)
    body = rand_bytes(100_000, seed=5)
    c.put_object(Bucket=bucket, Key="plain", Body=body)
    h = wire.last("PUT")
    assert "aws-chunked" not in h.get("content-encoding", "")
    assert h["x-amz-content-sha256"] == (hashlib.sha256(body).hexdigest() if want_sha == "hex" else want_sha)
    assert c.get_object(Bucket=bucket, Key="plain")["Body"].read() == body


def test_wrong_payload_hash(server, bucket):
    # x-amz-content-sha256 that does not match the body.
    # botocore signs the hash of what it is given, so the body is swapped
    # after signing.
    r = signed_request(server, "PUT", f"/{bucket}/k", data=b"the body", send=b"the bodY")
    assert r.status_code == 400 and xml_error_code(r.content) == "XAmzContentSHA256Mismatch"
    assert signed_request(server, "GET", f"/{bucket}/k").status_code == 404


# --- copy --------------------------------------------------------------------


def test_copy_object(s3, bucket):
    body = rand_bytes(20_000, seed=7)
    src = "src/ünï code+plus.bin"
    s3.put_object(Bucket=bucket, Key=src, Body=body, Metadata={"a": "1"},
                  ContentType="text/x-src", CacheControl="no-cache")
    etag = s3.head_object(Bucket=bucket, Key=src)["ETag"]

    r = s3.copy_object(Bucket=bucket, Key="copy1", CopySource={"Bucket": bucket, "Key": src})
    assert r["CopyObjectResult"]["ETag"] == etag
    h = s3.head_object(Bucket=bucket, Key="copy1")
    assert h["Metadata"] == {"a": "1"} and h["ContentType"] == "text/x-src"
    assert h["CacheControl"] == "no-cache" and h["ETag"] == etag
    assert s3.get_object(Bucket=bucket, Key="copy1")["Body"].read() == body

    # COPY directive ignores metadata sent with the request.
    s3.copy_object(Bucket=bucket, Key="copy2", CopySource={"Bucket": bucket, "Key": src},
                   MetadataDirective="COPY", Metadata={"ignored": "yes"})
    assert s3.head_object(Bucket=bucket, Key="copy2")["Metadata"] == {"a": "1"}

    s3.copy_object(Bucket=bucket, Key="copy3", CopySource={"Bucket": bucket, "Key": src},
                   MetadataDirective="REPLACE", Metadata={"b": "2"}, ContentType="text/x-new")
    h = s3.head_object(Bucket=bucket, Key="copy3")
    assert h["Metadata"] == {"b": "2"} and h["ContentType"] == "text/x-new"
    assert "CacheControl" not in h

    # Copy onto itself only with REPLACE.
    with pytest.raises(ClientError) as e:
        s3.copy_object(Bucket=bucket, Key=src, CopySource={"Bucket": bucket, "Key": src})
    assert error_code(e) == (400, "InvalidRequest")
    s3.copy_object(Bucket=bucket, Key=src, CopySource={"Bucket": bucket, "Key": src},
                   MetadataDirective="REPLACE", Metadata={"c": "3"})
    assert s3.head_object(Bucket=bucket, Key=src)["Metadata"] == {"c": "3"}

    with pytest.raises(ClientError) as e:
        s3.copy_object(Bucket=bucket, Key="x", CopySource={"Bucket": bucket, "Key": "missing"})
    assert error_code(e) == (404, "NoSuchKey")


def test_copy_across_buckets(s3, bucket, bucket_name):
    s3.create_bucket(Bucket=bucket_name)
    s3.put_object(Bucket=bucket, Key="k", Body=b"across")
    s3.copy_object(Bucket=bucket_name, Key="k2", CopySource={"Bucket": bucket, "Key": "k"})
    assert s3.get_object(Bucket=bucket_name, Key="k2")["Body"].read() == b"across"


def test_copy_source_conditions(s3, bucket):
    s3.put_object(Bucket=bucket, Key="s", Body=b"cond")
    h = s3.head_object(Bucket=bucket, Key="s")
    etag, lm = h["ETag"], h["LastModified"]
    src = {"Bucket": bucket, "Key": "s"}
    # Dates are compared with the Last-Modified value (second precision);
    # no dates in the future, which HTTP says to ignore.
    past = lm - dt.timedelta(days=1)

    s3.copy_object(Bucket=bucket, Key="ok1", CopySource=src, CopySourceIfMatch=etag)
    s3.copy_object(Bucket=bucket, Key="ok2", CopySource=src, CopySourceIfNoneMatch='"abc"')
    s3.copy_object(Bucket=bucket, Key="ok3", CopySource=src, CopySourceIfModifiedSince=past)
    s3.copy_object(Bucket=bucket, Key="ok4", CopySource=src, CopySourceIfUnmodifiedSince=lm)
    for kw in ({"CopySourceIfMatch": '"abc"'}, {"CopySourceIfNoneMatch": etag},
               {"CopySourceIfModifiedSince": lm}, {"CopySourceIfUnmodifiedSince": past}):
        with pytest.raises(ClientError) as e:
            s3.copy_object(Bucket=bucket, Key="no", CopySource=src, **kw)
        assert error_code(e) == (412, "PreconditionFailed"), kw
    with pytest.raises(ClientError):
        s3.head_object(Bucket=bucket, Key="no")


# --- delete_objects ----------------------------------------------------------


def test_delete_objects(s3, bucket):
    for k in ("a", "b", "c", "keep"):
        s3.put_object(Bucket=bucket, Key=k, Body=k.encode())
    r = s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": k} for k in ("a", "b", "c", "never")]})
    assert sorted(d["Key"] for d in r["Deleted"]) == ["a", "b", "c", "never"]
    assert r.get("Errors", []) == []
    assert [o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]] == ["keep"]

    s3.put_object(Bucket=bucket, Key="q", Body=b"q")
    r = s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": "q"}, {"Key": "keep"}], "Quiet": True})
    assert r.get("Deleted", []) == [] and r.get("Errors", []) == []
    assert s3.list_objects_v2(Bucket=bucket)["KeyCount"] == 0


def test_delete_objects_too_many(s3, bucket):
    with pytest.raises(ClientError) as e:
        s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": f"k{i}"} for i in range(1001)]})
    assert error_code(e) == (400, "MalformedXML")
