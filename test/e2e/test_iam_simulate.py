"""IAM's policy simulator on the S3 endpoint: `aws iam
simulate-principal-policy` and boto3's simulate_principal_policy answer
from the evaluation itself, with the decisions and matched statements AWS
documents; `ostium admin iam explain` gives the same decision with the
statement's source and text."""

import json
import os
import subprocess
import sys
import uuid

import boto3
import botocore.exceptions
import pytest
from botocore.config import Config

READ_REPORTS = """{
  "Version": "2012-10-17",
  "Statement": [
    {"Sid": "ReadReports", "Effect": "Allow", "Action": ["s3:GetObject", "s3:ListBucket"],
     "Resource": ["arn:aws:s3:::reports", "arn:aws:s3:::reports/*"]},
    {"Sid": "NoSecrets", "Effect": "Deny", "Action": "s3:*", "Resource": "arn:aws:s3:::reports/secret/*"}
  ]
}"""


def admin(ostium_bin, server, *args, check=True):
    env = dict(os.environ, OSTIUM_ENDPOINT=server.endpoint,
               OSTIUM_ROOT_ACCESS_KEY=server.access_key, OSTIUM_ROOT_SECRET_KEY=server.secret_key)
    res = subprocess.run([ostium_bin, "admin", "--json", *args], env=env, capture_output=True, text=True, timeout=60)
    if check:
        assert res.returncode == 0, res.stderr
        return json.loads(res.stdout) if res.stdout.strip() else None
    return res


@pytest.fixture
def tenant(ostium_bin, server):
    """A tenant with an admin (its IAM client) and a user alice."""
    t = "sim" + uuid.uuid4().hex[:8]
    admin(ostium_bin, server, "tenant", "create", t)
    admin(ostium_bin, server, "user", "create", t, "boss", "--role", "admin")
    admin(ostium_bin, server, "user", "create", t, "alice")
    key = admin(ostium_bin, server, "key", "create", t, "boss")
    iam = boto3.client("iam", endpoint_url=server.endpoint, aws_access_key_id=key["access_key"],
                       aws_secret_access_key=key["secret_key"], region_name=server.region,
                       config=Config(retries={"max_attempts": 1}))
    return t, iam, key


def test_boto3_simulate_principal_policy(server, tenant):
    t, iam, _ = tenant
    arn = iam.create_policy(PolicyName="read-reports", PolicyDocument=READ_REPORTS)["Policy"]["Arn"]
    iam.attach_user_policy(UserName="alice", PolicyArn=arn)
    iam.put_user_policy(UserName="alice", PolicyName="from-office", PolicyDocument=json.dumps({
        "Version": "2012-10-17",
        "Statement": [{"Sid": "Uploads", "Effect": "Allow", "Action": "s3:PutObject", "Resource": "arn:aws:s3:::uploads/*",
                       "Condition": {"IpAddress": {"aws:SourceIp": "10.1.0.0/16"}}}]}))
    alice = f"arn:aws:iam::{t}:user/alice"

    res = iam.simulate_principal_policy(
        PolicySourceArn=alice, ActionNames=["s3:GetObject", "s3:DeleteObject"],
        ResourceArns=["arn:aws:s3:::reports/q1.csv", "arn:aws:s3:::reports/secret/pay.csv"])
    got = {(r["EvalActionName"], r["EvalResourceName"]): r for r in res["EvaluationResults"]}
    assert len(got) == 4 and res["IsTruncated"] is False
    read = got[("s3:GetObject", "arn:aws:s3:::reports/q1.csv")]
    assert read["EvalDecision"] == "allowed"
    [m] = read["MatchedStatements"]
    assert m["SourcePolicyId"] == arn and m["SourcePolicyType"] == "user-managed"
    # The statement's place in the document: ReadReports starts on line 4.
    assert m["StartPosition"]["Line"] == 4 and m["EndPosition"]["Line"] == 5
    secret = got[("s3:GetObject", "arn:aws:s3:::reports/secret/pay.csv")]
    assert secret["EvalDecision"] == "explicitDeny"
    assert {s["StartPosition"]["Line"] for s in secret["MatchedStatements"]} == {4, 6}
    delete = got[("s3:DeleteObject", "arn:aws:s3:::reports/q1.csv")]
    assert delete["EvalDecision"] == "implicitDeny" and delete["MatchedStatements"] == []

    # Condition keys come from ContextEntries.
    def upload(ip):
        r = iam.simulate_principal_policy(
            PolicySourceArn=alice, ActionNames=["s3:PutObject"], ResourceArns=["arn:aws:s3:::uploads/a"],
            ContextEntries=[{"ContextKeyName": "aws:SourceIp", "ContextKeyValues": [ip], "ContextKeyType": "ip"}])
        return r["EvaluationResults"][0]
    inside = upload("10.1.2.3")
    assert inside["EvalDecision"] == "allowed"
    assert inside["MatchedStatements"][0]["SourcePolicyId"] == "from-office"
    assert inside["MatchedStatements"][0]["SourcePolicyType"] == "user"
    assert upload("192.0.2.7")["EvalDecision"] == "implicitDeny"

    # A policy the call adds is simulated with the user's.
    extra = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:DeleteObject", "Resource": "*"}]})
    r = iam.simulate_principal_policy(PolicySourceArn=alice, ActionNames=["s3:DeleteObject"], PolicyInputList=[extra])
    assert r["EvaluationResults"][0]["EvalDecision"] == "allowed"

    # Pages, as the paginator asks for them.
    pages = list(iam.get_paginator("simulate_principal_policy").paginate(
        PolicySourceArn=alice, ActionNames=["s3:GetObject", "s3:PutObject", "s3:ListBucket"], PaginationConfig={"PageSize": 2}))
    assert [len(p["EvaluationResults"]) for p in pages] == [2, 1]

    # Another tenant's principal is not there; a bad added policy is malformed.
    with pytest.raises(botocore.exceptions.ClientError) as e:
        iam.simulate_principal_policy(PolicySourceArn="arn:aws:iam::other:user/alice", ActionNames=["s3:GetObject"])
    assert e.value.response["Error"]["Code"] == "NoSuchEntity"
    with pytest.raises(botocore.exceptions.ClientError) as e:
        iam.simulate_principal_policy(PolicySourceArn=alice, ActionNames=["s3:GetObject"], PolicyInputList=["{nope"])
    assert e.value.response["Error"]["Code"] == "MalformedPolicyDocument"


def test_aws_cli_simulate_and_ostium_explain(ostium_bin, server, tenant, tmp_path):
    t, iam, key = tenant
    bucket = "reports-" + t
    arn = iam.create_policy(PolicyName="read-reports", PolicyDocument=READ_REPORTS.replace("reports", bucket))["Policy"]["Arn"]
    iam.attach_user_policy(UserName="alice", PolicyArn=arn)
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(HOME=str(home), AWS_CONFIG_FILE=str(home / "none"), AWS_SHARED_CREDENTIALS_FILE=str(home / "none"),
               AWS_ACCESS_KEY_ID=key["access_key"], AWS_SECRET_ACCESS_KEY=key["secret_key"], AWS_DEFAULT_REGION=server.region,
               AWS_EC2_METADATA_DISABLED="true", AWS_PAGER="")
    p = subprocess.run([sys.executable, "-m", "awscli", "--endpoint-url", server.endpoint, "--output", "json", "iam",
                        "simulate-principal-policy", "--policy-source-arn", f"arn:aws:iam::{t}:user/alice",
                        "--action-names", "s3:ListBucket", "--resource-arns", f"arn:aws:s3:::{bucket}"],
                       env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    [r] = json.loads(p.stdout)["EvaluationResults"]
    assert r["EvalDecision"] == "allowed" and r["MatchedStatements"][0]["SourcePolicyId"] == arn

    # The admin's explanation of a real request on a real bucket agrees.
    s3 = boto3.client("s3", endpoint_url=server.endpoint, aws_access_key_id=key["access_key"],
                      aws_secret_access_key=key["secret_key"], region_name=server.region)
    s3.create_bucket(Bucket=bucket)
    try:
        x = admin(ostium_bin, server, "iam", "explain", t, "alice", "s3:ListBucket", bucket)
        assert x["decision"] == "allowed"
        [st] = x["statements"]
        assert st["sid"] == "ReadReports" and st["from"]["id"] == arn and st["from"]["version"] == "v1"
        assert '"Sid": "ReadReports"' in st["text"]
    finally:
        s3.delete_bucket(Bucket=bucket)
