"""IAM on the S3 endpoint with the aws cli (`aws iam --endpoint-url`) and
boto3: a tenant's admin, made with `ostium admin`, manages the tenant's
users, groups, policies, keys and roles; a key made through IAM signs S3
requests; errors come back as AWS's codes."""

import json
import os
import subprocess
import sys
import uuid

import boto3
import botocore.exceptions
import pytest
from botocore.config import Config


def admin(ostium_bin, server, *args):
    env = dict(os.environ, OSTIUM_ENDPOINT=server.endpoint,
               OSTIUM_ROOT_ACCESS_KEY=server.access_key, OSTIUM_ROOT_SECRET_KEY=server.secret_key)
    res = subprocess.run([ostium_bin, "admin", "--json", *args], env=env, capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout) if res.stdout.strip() else None


@pytest.fixture
def tenant_admin(ostium_bin, server):
    """A fresh tenant with an admin; returns (tenant, access key, secret)."""
    t = "iam" + uuid.uuid4().hex[:8]
    admin(ostium_bin, server, "tenant", "create", t)
    admin(ostium_bin, server, "user", "create", t, "boss", "--role", "admin")
    key = admin(ostium_bin, server, "key", "create", t, "boss")
    return t, key["access_key"], key["secret_key"]


@pytest.fixture
def iam_cli(server, tenant_admin, tmp_path):
    _, ak, sk = tenant_admin
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(HOME=str(home), AWS_CONFIG_FILE=str(home / "no-config"), AWS_SHARED_CREDENTIALS_FILE=str(home / "no-credentials"),
               AWS_ACCESS_KEY_ID=ak, AWS_SECRET_ACCESS_KEY=sk, AWS_DEFAULT_REGION=server.region,
               AWS_EC2_METADATA_DISABLED="true", AWS_PAGER="")

    def run(*args, check=True):
        cmd = [sys.executable, "-m", "awscli", "--endpoint-url", server.endpoint, "--output", "json", "iam", *map(str, args)]
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path)
        if check and p.returncode != 0:
            pytest.fail(f"aws iam {' '.join(map(str, args))} exited {p.returncode}\n{p.stderr}")
        return json.loads(p.stdout) if check and p.stdout.strip() else p

    return run


def test_aws_cli_manages_a_tenants_identities(server, tenant_admin, iam_cli, tmp_path):
    t, _, _ = tenant_admin
    u = iam_cli("create-user", "--user-name", "carol", "--path", "/eng/", "--tags", "Key=team,Value=data")["User"]
    assert u["Arn"] == f"arn:aws:iam::{t}:user/eng/carol" and u["UserId"].startswith("AIDA")
    assert iam_cli("get-user", "--user-name", "carol")["User"]["Tags"] == [{"Key": "team", "Value": "data"}]

    # The cli pages through users with its own paginator.
    for n in ("dan", "eve"):
        iam_cli("create-user", "--user-name", n)
    names = [x["UserName"] for x in iam_cli("list-users", "--page-size", "1")["Users"]]
    assert names == ["boss", "carol", "dan", "eve"]

    iam_cli("create-group", "--group-name", "analysts")
    iam_cli("add-user-to-group", "--group-name", "analysts", "--user-name", "carol")
    assert [g["GroupName"] for g in iam_cli("list-groups-for-user", "--user-name", "carol")["Groups"]] == ["analysts"]

    doc = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{t}-data/*"}]}
    (tmp_path / "read.json").write_text(json.dumps(doc))
    iam_cli("put-user-policy", "--user-name", "carol", "--policy-name", "read", "--policy-document", "file://read.json")
    # The cli decodes the URL-encoded document AWS returns.
    assert iam_cli("get-user-policy", "--user-name", "carol", "--policy-name", "read")["PolicyDocument"] == doc

    pol = iam_cli("create-policy", "--policy-name", "ReadData", "--policy-document", "file://read.json")["Policy"]
    assert pol["Arn"] == f"arn:aws:iam::{t}:policy/ReadData" and pol["DefaultVersionId"] == "v1"
    iam_cli("attach-group-policy", "--group-name", "analysts", "--policy-arn", pol["Arn"])
    iam_cli("create-policy-version", "--policy-arn", pol["Arn"], "--policy-document", "file://read.json", "--set-as-default")
    assert iam_cli("get-policy", "--policy-arn", pol["Arn"])["Policy"]["DefaultVersionId"] == "v2"
    attached = iam_cli("list-attached-group-policies", "--group-name", "analysts")["AttachedPolicies"]
    assert attached == [{"PolicyName": "ReadData", "PolicyArn": pol["Arn"]}]

    # AWS's answers to mistakes: the cli exits non-zero with the code.
    p = iam_cli("delete-policy", "--policy-arn", pol["Arn"], check=False)
    assert p.returncode != 0 and "DeleteConflict" in p.stderr
    p = iam_cli("get-user", "--user-name", "nobody", check=False)
    assert p.returncode != 0 and "NoSuchEntity" in p.stderr
    (tmp_path / "bad.json").write_text('{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*"}]}')
    p = iam_cli("put-user-policy", "--user-name", "carol", "--policy-name", "bad", "--policy-document", "file://bad.json", check=False)
    assert p.returncode != 0 and "MalformedPolicyDocument" in p.stderr
    p = iam_cli("create-login-profile", "--user-name", "carol", "--password", "Secret-123456", check=False)
    assert p.returncode != 0 and "NotImplemented" in p.stderr

    # A key made through IAM is the tenant user's key: it signs S3.
    key = iam_cli("create-access-key", "--user-name", "carol")["AccessKey"]
    carol = server.client(access_key=key["AccessKeyId"], secret_key=key["SecretAccessKey"])
    carol.list_buckets()
    iam_cli("update-access-key", "--user-name", "carol", "--access-key-id", key["AccessKeyId"], "--status", "Inactive")
    with pytest.raises(botocore.exceptions.ClientError) as e:
        carol.list_buckets()
    assert e.value.response["Error"]["Code"] == "InvalidAccessKeyId"

    # Roles with a trust policy.
    trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{t}:user/eng/carol"}, "Action": "sts:AssumeRole"}]}
    (tmp_path / "trust.json").write_text(json.dumps(trust))
    role = iam_cli("create-role", "--role-name", "reader", "--assume-role-policy-document", "file://trust.json", "--max-session-duration", "7200")["Role"]
    assert role["Arn"] == f"arn:aws:iam::{t}:role/reader" and role["MaxSessionDuration"] == 7200
    assert iam_cli("get-role", "--role-name", "reader")["Role"]["AssumeRolePolicyDocument"] == trust

    # Deleting a user that still has keys, policies or groups is refused.
    p = iam_cli("delete-user", "--user-name", "carol", check=False)
    assert p.returncode != 0 and "DeleteConflict" in p.stderr
    iam_cli("delete-access-key", "--user-name", "carol", "--access-key-id", key["AccessKeyId"])
    iam_cli("delete-user-policy", "--user-name", "carol", "--policy-name", "read")
    iam_cli("remove-user-from-group", "--group-name", "analysts", "--user-name", "carol")
    iam_cli("delete-user", "--user-name", "carol")
    summary = iam_cli("get-account-summary")["SummaryMap"]
    assert summary["Users"] == 3 and summary["Groups"] == 1 and summary["Roles"] == 1


def test_boto3_iam_tenants_apart(server, tenant_admin):
    t, ak, sk = tenant_admin
    cfg = Config(retries={"max_attempts": 1})
    mine = boto3.client("iam", endpoint_url=server.endpoint, aws_access_key_id=ak, aws_secret_access_key=sk,
                        region_name=server.region, config=cfg)
    mine.create_group(GroupName="ops")
    root = boto3.client("iam", endpoint_url=server.endpoint, aws_access_key_id=server.access_key,
                        aws_secret_access_key=server.secret_key, region_name=server.region, config=cfg)
    # The provider's root is no IAM account.
    with pytest.raises(botocore.exceptions.ClientError) as e:
        root.list_users()
    assert e.value.response["Error"]["Code"] == "AccessDenied"
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403
    pages = list(mine.get_paginator("list_groups").paginate(PaginationConfig={"PageSize": 1}))
    assert [g["GroupName"] for p in pages for g in p["Groups"]] == ["ops"]
    with pytest.raises(botocore.exceptions.ClientError) as e:
        mine.get_group(GroupName="nope")
    assert e.value.response["Error"]["Code"] == "NoSuchEntity"
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404
