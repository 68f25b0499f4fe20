"""Object and bucket tags with boto3: x-amz-tagging on writes (single PUT,
copies, multipart uploads through boto3's transfer manager), the tagging
operations with AWS's limits and errors, x-amz-tagging-count, and bucket
policies that decide by tags (s3:ExistingObjectTag, s3:RequestObjectTag,
s3:RequestObjectTagKeys) for another tenant's user."""

import io
import json
import os
import subprocess
import uuid

import pytest
from boto3.s3.transfer import TransferConfig
from botocore.exceptions import ClientError

from helpers import MiB, allowed, error_code, rand_bytes, settled

# Run again through the cluster (multinode): tags, and a policy deciding by
# them, set through one node and read or enforced by others.
pytestmark = pytest.mark.multinode


def tags(s3, bucket, key, **kw):
    return [(t["Key"], t["Value"]) for t in s3.get_object_tagging(Bucket=bucket, Key=key, **kw)["TagSet"]]


def tag_count(s3, bucket, key):
    h = s3.head_object(Bucket=bucket, Key=key)["ResponseMetadata"]["HTTPHeaders"]
    return int(h.get("x-amz-tagging-count", 0))


def tag_set(*pairs):
    return {"TagSet": [{"Key": k, "Value": v} for k, v in pairs]}


def test_object_tags_round_trip(s3, bucket):
    # boto3 sends Tagging as given: a URL query, "+" a space, a key
    # without "=" the empty value; tags come back in key order.
    s3.put_object(Bucket=bucket, Key="k", Body=b"data", Tagging="team=data+eng&Project=blue&draft")
    assert tags(s3, bucket, "k") == [("Project", "blue"), ("draft", ""), ("team", "data eng")]
    assert tag_count(s3, bucket, "k") == 3
    got = s3.get_object(Bucket=bucket, Key="k")
    assert got["TagCount"] == 3 and got["Body"].read() == b"data"

    s3.put_object_tagging(Bucket=bucket, Key="k", Tagging=tag_set(("Größe", "groß"), ("a:b/c", "x=y+z@w")))
    assert tags(s3, bucket, "k") == [("Größe", "groß"), ("a:b/c", "x=y+z@w")]  # byte order
    assert tags(s3, bucket, "k", VersionId="null") == [("Größe", "groß"), ("a:b/c", "x=y+z@w")]
    s3.delete_object_tagging(Bucket=bucket, Key="k")
    assert tags(s3, bucket, "k") == []
    assert tag_count(s3, bucket, "k") == 0
    s3.put_object_tagging(Bucket=bucket, Key="k", Tagging=tag_set(("a", "1")))
    s3.put_object_tagging(Bucket=bucket, Key="k", Tagging=tag_set())  # an empty set removes them
    assert tags(s3, bucket, "k") == []

    with pytest.raises(ClientError) as e:
        s3.get_object_tagging(Bucket=bucket, Key="missing")
    assert error_code(e) == (404, "NoSuchKey")


@pytest.mark.parametrize("tagging,status,code", [
    ([(f"k{i}", "v") for i in range(11)], 400, "BadRequest"),  # AWS's answer to an eleventh tag
    ([("k" * 129, "v")], 400, "InvalidTag"),
    ([("k", "v" * 257)], 400, "InvalidTag"),
    ([("aws:createdBy", "me")], 400, "InvalidTag"),
    ([("a", "1"), ("a", "2")], 400, "InvalidTag"),
    ([("semi;colon", "v")], 400, "InvalidTag"),
])
def test_object_tag_limits(s3, bucket, tagging, status, code):
    s3.put_object(Bucket=bucket, Key="k", Body=b"x", Tagging="keep=me")
    with pytest.raises(ClientError) as e:
        s3.put_object_tagging(Bucket=bucket, Key="k", Tagging=tag_set(*tagging))
    assert error_code(e) == (status, code)
    assert tags(s3, bucket, "k") == [("keep", "me")]


def test_tagging_header_refusals(s3, bucket):
    for header, code in [("a=1&a=2", "InvalidArgument"), ("a=b=c", "InvalidArgument"),
                         ("&".join(f"k{i}=v" for i in range(11)), "BadRequest"), ("aws:x=1", "InvalidTag")]:
        with pytest.raises(ClientError) as e:
            s3.put_object(Bucket=bucket, Key="refused", Body=b"x", Tagging=header)
        assert error_code(e) == (400, code), header
    assert "Contents" not in s3.list_objects_v2(Bucket=bucket)


def test_copy_tagging_directive(s3, bucket):
    s3.put_object(Bucket=bucket, Key="src", Body=b"x", Tagging="a=1&b=2")
    src = {"Bucket": bucket, "Key": "src"}
    s3.copy_object(Bucket=bucket, Key="copied", CopySource=src)
    assert tags(s3, bucket, "copied") == [("a", "1"), ("b", "2")]
    s3.copy_object(Bucket=bucket, Key="replaced", CopySource=src, TaggingDirective="REPLACE", Tagging="c=3")
    assert tags(s3, bucket, "replaced") == [("c", "3")]
    s3.copy_object(Bucket=bucket, Key="kept", CopySource=src, TaggingDirective="COPY", Tagging="c=3")
    assert tags(s3, bucket, "kept") == [("a", "1"), ("b", "2")]


def test_multipart_upload_carries_tags(s3, bucket):
    data = rand_bytes(6 * MiB, seed=21)
    cfg = TransferConfig(multipart_threshold=5 * MiB, multipart_chunksize=5 * MiB)
    s3.upload_fileobj(io.BytesIO(data), bucket, "big", ExtraArgs={"Tagging": "stage=raw&team=data"}, Config=cfg)
    assert s3.head_object(Bucket=bucket, Key="big")["ETag"].endswith('-2"')
    assert tags(s3, bucket, "big") == [("stage", "raw"), ("team", "data")]
    assert tag_count(s3, bucket, "big") == 2


def test_bucket_tagging(s3, bucket):
    with pytest.raises(ClientError) as e:
        s3.get_bucket_tagging(Bucket=bucket)
    assert error_code(e) == (404, "NoSuchTagSet")
    s3.put_bucket_tagging(Bucket=bucket, Tagging=tag_set(("cost-center", "42"), ("Owner", "ops team")))
    assert s3.get_bucket_tagging(Bucket=bucket)["TagSet"] == [{"Key": "cost-center", "Value": "42"}, {"Key": "Owner", "Value": "ops team"}]
    with pytest.raises(ClientError) as e:
        s3.put_bucket_tagging(Bucket=bucket, Tagging=tag_set(*[(f"k{i}", "v") for i in range(51)]))
    assert error_code(e) == (400, "InvalidTag")
    s3.delete_bucket_tagging(Bucket=bucket)
    with pytest.raises(ClientError) as e:
        s3.get_bucket_tagging(Bucket=bucket)
    assert error_code(e) == (404, "NoSuchTagSet")


def admin(ostium_bin, server, *args):
    env = dict(os.environ, OSTIUM_ENDPOINT=server.endpoint,
               OSTIUM_ROOT_ACCESS_KEY=server.access_key, OSTIUM_ROOT_SECRET_KEY=server.secret_key)
    res = subprocess.run([ostium_bin, "admin", "--json", *args], env=env, capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout) if res.stdout.strip() else None


def tenant_user(ostium_bin, server, tenant, user):
    admin(ostium_bin, server, "tenant", "create", tenant)
    admin(ostium_bin, server, "user", "create", tenant, user)
    k = admin(ostium_bin, server, "key", "create", tenant, user)
    return server.client(access_key=k["access_key"], secret_key=k["secret_key"])


def test_policy_decides_by_tags(ostium_bin, server):
    owner_t, other_t = "t" + uuid.uuid4().hex[:10], "o" + uuid.uuid4().hex[:10]
    owner = tenant_user(ostium_bin, server, owner_t, "ann")
    other = tenant_user(ostium_bin, server, other_t, "carl")
    bucket = owner_t + "-tags"
    owner.create_bucket(Bucket=bucket)
    owner.put_object(Bucket=bucket, Key="public", Body=b"p", Tagging="Class=public")
    owner.put_object(Bucket=bucket, Key="private", Body=b"q", Tagging="Class=private")
    principal = {"AWS": f"arn:aws:iam::{other_t}:root"}
    owner.put_bucket_policy(Bucket=bucket, Policy=json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": principal, "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{bucket}/*",
         "Condition": {"StringEquals": {"s3:ExistingObjectTag/Class": "public"}}},
        {"Effect": "Allow", "Principal": principal, "Action": ["s3:PutObject", "s3:PutObjectTagging"], "Resource": f"arn:aws:s3:::{bucket}/*",
         "Condition": {"StringEquals": {"s3:RequestObjectTag/Project": "blue"},
                       "ForAllValues:StringEquals": {"s3:RequestObjectTagKeys": ["Project"]}}},
    ]}))
    settled(lambda: allowed(lambda: other.get_object(Bucket=bucket, Key="public")))
    assert other.get_object(Bucket=bucket, Key="public")["Body"].read() == b"p"
    with pytest.raises(ClientError) as e:
        other.get_object(Bucket=bucket, Key="private")
    assert error_code(e) == (403, "AccessDenied")

    other.put_object(Bucket=bucket, Key="by-carl", Body=b"c", Tagging="Project=blue")
    for tagging in ["Project=red", "Project=blue&Cost=1", ""]:
        with pytest.raises(ClientError) as e:
            other.put_object(Bucket=bucket, Key="by-carl-2", Body=b"c", Tagging=tagging)
        assert error_code(e) == (403, "AccessDenied"), tagging
    with pytest.raises(ClientError) as e:
        other.put_object_tagging(Bucket=bucket, Key="by-carl", Tagging=tag_set(("Project", "green")))
    assert error_code(e) == (403, "AccessDenied")
    assert tags(owner, bucket, "by-carl") == [("Project", "blue")]

    # Retagged public, the private object becomes readable to the other tenant.
    owner.put_object_tagging(Bucket=bucket, Key="private", Tagging=tag_set(("Class", "public")))
    assert other.get_object(Bucket=bucket, Key="private")["Body"].read() == b"q"
    for key in ["public", "private", "by-carl"]:
        owner.delete_object(Bucket=bucket, Key=key)
    owner.delete_bucket(Bucket=bucket)
