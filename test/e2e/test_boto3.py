"""boto3 against a real ostium server, with boto3's defaults.

botocore picks the upload encoding from the scheme: over http it signs the
payload (x-amz-content-sha256 = hex SHA-256) and sends a CRC32 checksum
header; over https it sends aws-chunked with a CRC32 trailing checksum
(STREAMING-UNSIGNED-PAYLOAD-TRAILER). Tests needing the latter go through the
`tls` fixture, a TLS proxy in front of the server."""

import base64
import datetime as dt
import hashlib
import io
import socket
import time
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET

import boto3
import pytest
import requests
from boto3.s3.transfer import TransferConfig
from botocore import UNSIGNED
from botocore.config import Config
from botocore.exceptions import ClientError

from checksums import multipart_etag, s3_checksum
from helpers import DOMAIN, error_code, md5_hex, rand_bytes, signed_request, unique_bucket

MiB = 1024 * 1024


def etag_of(data):
    return f'"{md5_hex(data)}"'


def xml_error_code(body):
    root = ET.fromstring(body)
    return root.findtext("Code")


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


# --- checksums and payload encodings -----------------------------------------


class Wire:
    """Records the requests a client sends (method, url, lower-cased headers)."""

    def __init__(self, client):
        self.sent = []
        client.meta.events.register("before-send.s3", self._record)

    def _record(self, request, **kwargs):
        h = {k.lower(): v.decode() if isinstance(v, bytes) else v for k, v in request.headers.items()}
        self.sent.append((request.method, request.url, h))

    def last(self, method):
        return [h for m, _, h in self.sent if m == method][-1]


def tls_client(server, tls, **config):
    return server.client(endpoint=tls.endpoint, verify=tls.cert, **config)


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


# --- presigned URLs ----------------------------------------------------------


@pytest.mark.parametrize("sig", ["s3v4", "s3"])
def test_presigned_get_put(server, bucket, sig):
    c = server.client(signature_version=sig)
    body = rand_bytes(4096, seed=13)
    put_url = c.generate_presigned_url("put_object", Params={"Bucket": bucket, "Key": "pre/signed key"}, ExpiresIn=300)
    assert ("X-Amz-Signature=" in put_url) == (sig == "s3v4")
    assert ("Signature=" in put_url)
    r = requests.put(put_url, data=body)
    assert r.status_code == 200, r.text
    assert r.headers["ETag"] == etag_of(body)

    get_url = c.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "pre/signed key"}, ExpiresIn=300)
    with urllib.request.urlopen(get_url) as resp:
        assert resp.status == 200
        assert resp.read() == body
    r = requests.get(get_url, headers={"Range": "bytes=0-9"})
    assert r.status_code == 206 and r.content == body[:10]
    # A presigned URL is for its own method and key only.
    r = requests.delete(get_url)
    assert r.status_code == 403 and xml_error_code(r.content) == "SignatureDoesNotMatch"
    # A tampered signature.
    bad = get_url.replace("Signature=", "Signature=0")
    r = requests.get(bad)
    assert r.status_code == 403 and xml_error_code(r.content) == "SignatureDoesNotMatch"


@pytest.mark.parametrize("sig", ["s3v4", "s3"])
def test_presigned_expired(server, bucket, sig):
    c = server.client(signature_version=sig)
    c.put_object(Bucket=bucket, Key="exp", Body=b"x")
    url = c.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "exp"}, ExpiresIn=1)
    time.sleep(2.1)
    r = requests.get(url)
    assert r.status_code == 403 and xml_error_code(r.content) == "AccessDenied"


def test_presigned_response_overrides(s3, bucket):
    s3.put_object(Bucket=bucket, Key="o", Body=b"override", ContentType="text/plain")
    url = s3.generate_presigned_url("get_object", Params={
        "Bucket": bucket, "Key": "o", "ResponseContentType": "application/x-over",
        "ResponseContentDisposition": "attachment; filename=o.txt", "ResponseCacheControl": "no-store"})
    r = requests.get(url)
    assert r.status_code == 200 and r.content == b"override"
    assert r.headers["Content-Type"] == "application/x-over"
    assert r.headers["Content-Disposition"] == "attachment; filename=o.txt"
    assert r.headers["Cache-Control"] == "no-store"


# --- SigV2 header auth -------------------------------------------------------


def test_sigv2_header_auth(server, bucket):
    c = server.client(signature_version="s3")
    body = rand_bytes(50_000, seed=14)
    c.put_object(Bucket=bucket, Key="v2/obj", Body=body, Metadata={"sig": "v2"})
    r = c.get_object(Bucket=bucket, Key="v2/obj")
    assert r["Body"].read() == body and r["Metadata"] == {"sig": "v2"}
    assert [o["Key"] for o in c.list_objects_v2(Bucket=bucket)["Contents"]] == ["v2/obj"]
    c.copy_object(Bucket=bucket, Key="v2/copy", CopySource={"Bucket": bucket, "Key": "v2/obj"})
    c.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": "v2/obj"}, {"Key": "v2/copy"}]})
    assert c.list_objects_v2(Bucket=bucket)["KeyCount"] == 0


# --- endpoints and addressing ------------------------------------------------


def test_api_v1_s3_endpoint(server, bucket_name):
    c = server.client(endpoint=server.endpoint + "/api/v1/s3")
    c.create_bucket(Bucket=bucket_name)
    assert bucket_name in [b["Name"] for b in c.list_buckets()["Buckets"]]
    c.put_object(Bucket=bucket_name, Key="x/y", Body=b"under api root")
    assert c.get_object(Bucket=bucket_name, Key="x/y")["Body"].read() == b"under api root"
    assert [o["Key"] for o in c.list_objects_v2(Bucket=bucket_name)["Contents"]] == ["x/y"]
    body = rand_bytes(6 * MiB, seed=15)
    c.upload_fileobj(io.BytesIO(body), bucket_name, "mp",
                     Config=TransferConfig(multipart_threshold=5 * MiB, multipart_chunksize=5 * MiB))
    assert c.head_object(Bucket=bucket_name, Key="mp")["ETag"].endswith('-2"')
    assert c.get_object(Bucket=bucket_name, Key="mp")["Body"].read() == body
    url = c.generate_presigned_url("get_object", Params={"Bucket": bucket_name, "Key": "x/y"})
    assert "/api/v1/s3/" in url
    assert requests.get(url).content == b"under api root"
    for sig in ("s3",):
        v2 = server.client(endpoint=server.endpoint + "/api/v1/s3", signature_version=sig)
        assert v2.get_object(Bucket=bucket_name, Key="x/y")["Body"].read() == b"under api root"
    # The same objects are visible at "/".
    s3 = server.client()
    assert s3.get_object(Bucket=bucket_name, Key="x/y")["Body"].read() == b"under api root"


@pytest.fixture
def localhost_resolves(monkeypatch):
    """*.localhost resolves to 127.0.0.1 in this process (RFC 6761; glibc
    here does not do it), so boto3 can reach bucket.localhost."""
    real = socket.getaddrinfo

    def getaddrinfo(host, *args, **kwargs):
        if isinstance(host, str) and host.endswith("." + DOMAIN):
            host = "127.0.0.1"
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


@pytest.mark.parametrize("sig", ["s3v4", "s3"])
def test_virtual_hosted_style(server, bucket_name, localhost_resolves, sig):
    c = server.client(endpoint=f"http://{DOMAIN}:{server.port}", signature_version=sig,
                      s3={"addressing_style": "virtual"})
    c.create_bucket(Bucket=bucket_name)
    put_url = c.generate_presigned_url("put_object", Params={"Bucket": bucket_name, "Key": "k"})
    assert put_url.startswith(f"http://{bucket_name}.{DOMAIN}:{server.port}/k?")
    c.put_object(Bucket=bucket_name, Key="dir/vh key", Body=b"virtual", Metadata={"h": "1"})
    r = c.get_object(Bucket=bucket_name, Key="dir/vh key")
    assert r["Body"].read() == b"virtual" and r["Metadata"] == {"h": "1"}
    assert [o["Key"] for o in c.list_objects_v2(Bucket=bucket_name)["Contents"]] == ["dir/vh key"]
    assert requests.put(put_url, data=b"presigned vh").status_code == 200
    # Path-style clients see what virtual-hosted ones wrote.
    assert server.client().get_object(Bucket=bucket_name, Key="k")["Body"].read() == b"presigned vh"
    c.delete_object(Bucket=bucket_name, Key="dir/vh key")
    c.delete_object(Bucket=bucket_name, Key="k")
    c.delete_bucket(Bucket=bucket_name)


# --- authentication ----------------------------------------------------------


@pytest.mark.parametrize("sig,transport", [("s3v4", "http"), ("s3v4", "https"), ("s3", "http")])
def test_wrong_secret(server, tls, bucket, sig, transport):
    kw = dict(endpoint=tls.endpoint, verify=tls.cert) if transport == "https" else {}
    c = server.client(secret_key="not-the-secret", signature_version=sig, **kw)
    for call in (c.list_buckets, lambda: c.list_objects_v2(Bucket=bucket),
                 lambda: c.put_object(Bucket=bucket, Key="k", Body=b"x" * 100)):
        with pytest.raises(ClientError) as e:
            call()
        assert error_code(e) == (403, "SignatureDoesNotMatch")
    with pytest.raises(ClientError) as e:
        server.client().head_object(Bucket=bucket, Key="k")
    assert error_code(e)[0] == 404


@pytest.mark.parametrize("sig", ["s3v4", "s3"])
def test_unknown_access_key(server, bucket, sig):
    c = server.client(access_key="AKIDNOTKNOWNTOOSTIUM", signature_version=sig)
    for call in (c.list_buckets, lambda: c.put_object(Bucket=bucket, Key="k", Body=b"x")):
        with pytest.raises(ClientError) as e:
            call()
        assert error_code(e) == (403, "InvalidAccessKeyId")


def test_anonymous_denied(server, s3, bucket):
    s3.put_object(Bucket=bucket, Key="private", Body=b"secret")
    r = requests.get(f"{server.endpoint}/{bucket}/private")
    assert r.status_code == 403 and xml_error_code(r.content) == "AccessDenied"
    assert b"secret" not in r.content
    anon = boto3.session.Session().client("s3", endpoint_url=server.endpoint, region_name="us-east-1",
                                          config=Config(signature_version=UNSIGNED))
    for call in (anon.list_buckets, lambda: anon.put_object(Bucket=bucket, Key="anon", Body=b"x")):
        with pytest.raises(ClientError) as e:
            call()
        assert error_code(e) == (403, "AccessDenied")


def test_request_time_too_skewed(server, bucket):
    # A SigV4 request signed 20 minutes ago.
    skewed = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None) - dt.timedelta(minutes=20)
    r = signed_request(server, "GET", f"/{bucket}", {"list-type": "2"}, when=skewed)
    assert r.status_code == 403 and xml_error_code(r.content) == "RequestTimeTooSkewed"
    assert signed_request(server, "GET", f"/{bucket}", {"list-type": "2"}).status_code == 200


# --- not implemented yet -----------------------------------------------------


@pytest.mark.parametrize("op", [
    "get_bucket_acl", "put_object_acl", "get_bucket_policy", "get_bucket_tagging", "put_object_tagging",
    "get_bucket_lifecycle_configuration", "get_bucket_cors", "put_bucket_versioning",
])
def test_unimplemented_features_answer_501(s3, bucket, op):
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    calls = {
        "get_bucket_acl": lambda: s3.get_bucket_acl(Bucket=bucket),
        "put_object_acl": lambda: s3.put_object_acl(Bucket=bucket, Key="k", ACL="public-read"),
        "get_bucket_policy": lambda: s3.get_bucket_policy(Bucket=bucket),
        "get_bucket_tagging": lambda: s3.get_bucket_tagging(Bucket=bucket),
        "put_object_tagging": lambda: s3.put_object_tagging(Bucket=bucket, Key="k", Tagging={"TagSet": [{"Key": "a", "Value": "b"}]}),
        "get_bucket_lifecycle_configuration": lambda: s3.get_bucket_lifecycle_configuration(Bucket=bucket),
        "get_bucket_cors": lambda: s3.get_bucket_cors(Bucket=bucket),
        "put_bucket_versioning": lambda: s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"}),
    }
    with pytest.raises(ClientError) as e:
        calls[op]()
    assert error_code(e) == (501, "NotImplemented")
    # The object is untouched.
    assert s3.get_object(Bucket=bucket, Key="k")["Body"].read() == b"x"
