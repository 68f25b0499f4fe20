"""boto3 against a real ostium server: multipart edges as AWS answers them.

A CompleteMultipartUpload sent again after it succeeded (what a client does
when the first response was lost) answers with the object it made; reads by
part number are ranged answers of the part, with the part count."""

import pytest
from botocore.exceptions import ClientError

from helpers import error_code, rand_bytes


def upload(s3, bucket, key, parts, **create):
    up = s3.create_multipart_upload(Bucket=bucket, Key=key, **create)["UploadId"]
    listed = []
    for n, body in enumerate(parts, start=1):
        args = {"ChecksumAlgorithm": create["ChecksumAlgorithm"]} if "ChecksumAlgorithm" in create else {}
        p = s3.upload_part(Bucket=bucket, Key=key, UploadId=up, PartNumber=n, Body=body, **args)
        entry = {"PartNumber": n, "ETag": p["ETag"]}
        if "ChecksumAlgorithm" in create:
            field = "Checksum" + create["ChecksumAlgorithm"]
            entry[field] = p[field]
        listed.append(entry)
    return up, listed


def test_complete_retried(s3, bucket):
    parts = [rand_bytes(5 * 1024 * 1024, seed=91), b"tail"]
    up, listed = upload(s3, bucket, "retried", parts, ChecksumAlgorithm="SHA256")
    first = s3.complete_multipart_upload(Bucket=bucket, Key="retried", UploadId=up, MultipartUpload={"Parts": listed})
    # The same completion again: 200 with the same answer, as AWS.
    again = s3.complete_multipart_upload(Bucket=bucket, Key="retried", UploadId=up, MultipartUpload={"Parts": listed})
    for field in ("ETag", "Location", "Bucket", "Key", "ChecksumSHA256", "ChecksumType"):
        assert again[field] == first[field], field
    assert first["ChecksumSHA256"].endswith("-2") and first["ChecksumType"] == "COMPOSITE"
    assert s3.get_object(Bucket=bucket, Key="retried")["Body"].read() == b"".join(parts)
    # Another list is no retry of it.
    with pytest.raises(ClientError) as e:
        s3.complete_multipart_upload(Bucket=bucket, Key="retried", UploadId=up, MultipartUpload={"Parts": listed[:1]})
    assert error_code(e) == (404, "NoSuchUpload")


def test_get_part_number(s3, bucket):
    parts = [rand_bytes(5 * 1024 * 1024, seed=92), rand_bytes(1000, seed=93)]
    up, listed = upload(s3, bucket, "parts", parts)
    s3.complete_multipart_upload(Bucket=bucket, Key="parts", UploadId=up, MultipartUpload={"Parts": listed})
    total = sum(len(p) for p in parts)
    start = 0
    for n, body in enumerate(parts, start=1):
        r = s3.get_object(Bucket=bucket, Key="parts", PartNumber=n)
        assert r["ResponseMetadata"]["HTTPStatusCode"] == 206
        assert r["Body"].read() == body and r["PartsCount"] == 2 and r["ContentLength"] == len(body)
        assert r["ContentRange"] == "bytes %d-%d/%d" % (start, start + len(body) - 1, total)
        h = s3.head_object(Bucket=bucket, Key="parts", PartNumber=n)
        assert h["ResponseMetadata"]["HTTPStatusCode"] == 206 and h["ContentLength"] == len(body) and h["PartsCount"] == 2
        start += len(body)
    assert "PartsCount" not in s3.head_object(Bucket=bucket, Key="parts")
    with pytest.raises(ClientError) as e:
        s3.get_object(Bucket=bucket, Key="parts", PartNumber=3)
    assert error_code(e) == (416, "InvalidPartNumber")
    with pytest.raises(ClientError) as e:
        s3.get_object(Bucket=bucket, Key="parts", PartNumber=1, Range="bytes=0-1")
    assert error_code(e) == (400, "InvalidRequest")
    # An object put whole is its own part 1, answered as a range.
    s3.put_object(Bucket=bucket, Key="whole", Body=b"0123456789")
    r = s3.get_object(Bucket=bucket, Key="whole", PartNumber=1)
    assert r["ResponseMetadata"]["HTTPStatusCode"] == 206 and r["ContentRange"] == "bytes 0-9/10"
    assert r["Body"].read() == b"0123456789" and "PartsCount" not in r
