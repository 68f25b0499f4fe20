"""Bucket replication with boto3, end to end: a configuration put with
put_bucket_replication (AWS's document, the Role kept as given), an
object written to the source, and its replica in the destination bucket
of the same Ostium, with the statuses AWS reports on HEAD."""

import time

import pytest
from botocore.exceptions import ClientError

from helpers import empty_and_delete, unique_bucket


@pytest.fixture
def pair(s3, request):
    names = [unique_bucket(request.node.name + "-src"), unique_bucket(request.node.name + "-dst")]
    for n in names:
        s3.create_bucket(Bucket=n)
        s3.put_bucket_versioning(Bucket=n, VersioningConfiguration={"Status": "Enabled"})
    yield names
    for n in names:
        empty_and_delete(s3, n)


def eventually(what, cond, timeout=60):
    deadline = time.monotonic() + timeout
    while True:
        ok, state = cond()
        if ok:
            return
        if time.monotonic() > deadline:
            pytest.fail(f"not within {timeout} s: {what} (still {state})")
        time.sleep(0.2)


def test_replication_to_a_bucket_of_the_same_ostium(s3, pair):
    src, dst = pair
    with pytest.raises(ClientError) as e:
        s3.get_bucket_replication(Bucket=src)
    assert e.value.response["Error"]["Code"] == "ReplicationConfigurationNotFoundError"

    s3.put_bucket_replication(Bucket=src, ReplicationConfiguration={
        "Role": "arn:aws:iam::123456789012:role/replication",
        "Rules": [{
            "ID": "everything", "Priority": 1, "Status": "Enabled",
            "Filter": {"Prefix": ""},
            "DeleteMarkerReplication": {"Status": "Enabled"},
            "Destination": {"Bucket": f"arn:aws:s3:::{dst}"},
        }],
    })
    got = s3.get_bucket_replication(Bucket=src)["ReplicationConfiguration"]
    assert got["Role"] == "arn:aws:iam::123456789012:role/replication"
    assert got["Rules"][0]["Destination"]["Bucket"] == f"arn:aws:s3:::{dst}"

    put = s3.put_object(Bucket=src, Key="reports/q3.csv", Body=b"a,b\n1,2\n",
                        ContentType="text/csv", Metadata={"owner": "finance"})
    version = put["VersionId"]

    def source_status():
        s = s3.head_object(Bucket=src, Key="reports/q3.csv").get("ReplicationStatus")
        return s == "COMPLETED", s
    eventually("the source says COMPLETED", source_status)

    head = s3.head_object(Bucket=dst, Key="reports/q3.csv", VersionId=version)
    assert head["ReplicationStatus"] == "REPLICA"
    assert head["ContentType"] == "text/csv"
    assert head["Metadata"] == {"owner": "finance"}
    body = s3.get_object(Bucket=dst, Key="reports/q3.csv")["Body"].read()
    assert body == b"a,b\n1,2\n"

    # DELETE removes it.
    s3.delete_bucket_replication(Bucket=src)
    with pytest.raises(ClientError) as e:
        s3.get_bucket_replication(Bucket=src)
    assert e.value.response["Error"]["Code"] == "ReplicationConfigurationNotFoundError"
