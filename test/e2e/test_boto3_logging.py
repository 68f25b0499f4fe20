"""S3 server access logging with boto3: put_bucket_logging on a bucket,
requests on it, then their records arrive in the target bucket in AWS's
format. The test runs its own server, configured to deliver within a
second."""

import json
import re
import shutil
import tempfile
import time

import pytest
from botocore.exceptions import ClientError

from helpers import Server, error_code, unique_bucket

# AWS's record: space-separated fields, [time], "request line", "referer",
# "user agent".
FIELD = re.compile(r'\[[^\]]*\]|"(?:[^"\\]|\\.)*"|[^ ]+')
OPERATION, KEY, STATUS, ERROR, BYTES_SENT, OBJECT_SIZE, USER_AGENT = 6, 7, 9, 10, 11, 12, 16


@pytest.fixture
def logging_server(ostium_bin, tmp_path):
    data = tempfile.mkdtemp(prefix="ostium-e2e-data-")
    cfg = tmp_path / "ostium.yaml"
    cfg.write_text(f"data: {data}\naccess_log_flush: 200ms\naccess_log_interval: 1s\n")
    srv = Server(bin=ostium_bin, data_dir=data, extra_args=["--config", str(cfg)]).start()
    yield srv
    srv.stop()
    shutil.rmtree(srv.data_dir, ignore_errors=True)


def delivery_policy(target, source):
    """The target bucket policy AWS recommends for log delivery."""
    return json.dumps({"Version": "2012-10-17", "Statement": [{
        "Sid": "S3ServerAccessLogsPolicy", "Effect": "Allow",
        "Principal": {"Service": "logging.s3.amazonaws.com"}, "Action": "s3:PutObject",
        "Resource": f"arn:aws:s3:::{target}/logs/*",
        "Condition": {"ArnLike": {"aws:SourceArn": f"arn:aws:s3:::{source}"}}}]})


def records(s3, bucket):
    out = []
    for o in s3.list_objects_v2(Bucket=bucket, Prefix="logs/").get("Contents", []):
        assert re.fullmatch(r"logs/\d{4}(-\d\d){5}-[0-9A-F]{16}", o["Key"]), o["Key"]
        for line in s3.get_object(Bucket=bucket, Key=o["Key"])["Body"].read().decode().splitlines():
            fields = FIELD.findall(line)
            assert len(fields) == 26, line
            out.append(fields)
    return out


def test_access_logs_delivered(logging_server):
    s3 = logging_server.client()
    src, logs = unique_bucket("src"), unique_bucket("logs")
    s3.create_bucket(Bucket=src)
    s3.create_bucket(Bucket=logs)
    status = {"LoggingEnabled": {"TargetBucket": logs, "TargetPrefix": "logs/"}}

    # As on AWS, the target's owner must let the logging service in first.
    with pytest.raises(ClientError) as e:
        s3.put_bucket_logging(Bucket=src, BucketLoggingStatus=status)
    assert error_code(e) == (400, "InvalidTargetBucketForLogging")
    assert "LoggingEnabled" not in s3.get_bucket_logging(Bucket=src)

    s3.put_bucket_policy(Bucket=logs, Policy=delivery_policy(logs, src))
    s3.put_bucket_logging(Bucket=src, BucketLoggingStatus=status)
    enabled = s3.get_bucket_logging(Bucket=src)["LoggingEnabled"]
    assert enabled["TargetBucket"] == logs and enabled["TargetPrefix"] == "logs/"

    s3.put_object(Bucket=src, Key="hello.txt", Body=b"hello")
    assert s3.get_object(Bucket=src, Key="hello.txt")["Body"].read() == b"hello"
    with pytest.raises(ClientError):
        s3.head_object(Bucket=src, Key="missing")

    deadline = time.monotonic() + 30
    while True:
        recs = records(s3, logs)
        ops = {(r[OPERATION], r[KEY]) for r in recs}
        if {("REST.PUT.OBJECT", "hello.txt"), ("REST.GET.OBJECT", "hello.txt"), ("REST.HEAD.OBJECT", "missing")} <= ops:
            break
        assert time.monotonic() < deadline, f"records so far: {recs}"
        time.sleep(0.3)
    put = next(r for r in recs if r[OPERATION] == "REST.PUT.OBJECT")
    assert put[STATUS] == "200" and put[OBJECT_SIZE] == "5" and "Boto3" in put[USER_AGENT]
    get = next(r for r in recs if r[OPERATION] == "REST.GET.OBJECT")
    assert get[STATUS] == "200" and get[BYTES_SENT] == "5"
    head = next(r for r in recs if r[OPERATION] == "REST.HEAD.OBJECT")
    assert head[STATUS] == "404" and head[ERROR] == "NoSuchKey"
