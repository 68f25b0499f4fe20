"""STS on the S3 endpoint with the aws cli and boto3: a tenant's user
gets temporary credentials with `aws sts get-session-token`, then lists
and reads its bucket with them through `aws s3`; the same credentials
without their token, or with another, are refused as AWS refuses them."""

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


def cli(server, tmp_path, creds, *args):
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(HOME=str(home), AWS_CONFIG_FILE=str(home / "no-config"),
               AWS_SHARED_CREDENTIALS_FILE=str(home / "no-credentials"),
               AWS_DEFAULT_REGION=server.region, AWS_EC2_METADATA_DISABLED="true", AWS_PAGER="", **creds)
    cmd = [sys.executable, "-m", "awscli", "--endpoint-url", server.endpoint, *args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.multinode  # credentials issued through one node sign requests any node takes
def test_session_token_then_s3(ostium_bin, server, tmp_path):
    t = "t" + uuid.uuid4().hex[:10]
    admin(ostium_bin, server, "tenant", "create", t)
    admin(ostium_bin, server, "user", "create", t, "alice")
    key = admin(ostium_bin, server, "key", "create", t, "alice")
    alice = server.client(access_key=key["access_key"], secret_key=key["secret_key"])
    bucket = t + "-data"
    alice.create_bucket(Bucket=bucket)
    alice.put_object(Bucket=bucket, Key="hello.txt", Body=b"hello")

    perm = {"AWS_ACCESS_KEY_ID": key["access_key"], "AWS_SECRET_ACCESS_KEY": key["secret_key"]}
    p = cli(server, tmp_path, perm, "sts", "get-caller-identity")
    assert p.returncode == 0, p.stderr
    who = json.loads(p.stdout)
    assert who["Account"] == t and who["Arn"] == f"arn:aws:iam::{t}:user/alice"

    p = cli(server, tmp_path, perm, "sts", "get-session-token", "--duration-seconds", "900")
    assert p.returncode == 0, p.stderr
    c = json.loads(p.stdout)["Credentials"]
    assert c["AccessKeyId"].startswith("ASIA") and c["SessionToken"]
    temp = {"AWS_ACCESS_KEY_ID": c["AccessKeyId"], "AWS_SECRET_ACCESS_KEY": c["SecretAccessKey"],
            "AWS_SESSION_TOKEN": c["SessionToken"]}
    p = cli(server, tmp_path, temp, "s3", "ls", f"s3://{bucket}")
    assert p.returncode == 0, p.stderr
    assert "hello.txt" in p.stdout
    p = cli(server, tmp_path, temp, "s3", "ls")
    assert p.returncode == 0 and bucket in p.stdout, p.stderr

    # Without the token, or with another, as AWS answers.
    p = cli(server, tmp_path, {**temp, "AWS_SESSION_TOKEN": ""}, "s3", "ls", f"s3://{bucket}")
    assert p.returncode != 0 and "InvalidAccessKeyId" in p.stderr, p.stderr
    p = cli(server, tmp_path, {**temp, "AWS_SESSION_TOKEN": c["SessionToken"] + "x"}, "s3", "ls", f"s3://{bucket}")
    assert p.returncode != 0 and "InvalidToken" in p.stderr, p.stderr

    # boto3's STS client reads the same credentials back.
    sts = boto3.client("sts", endpoint_url=server.endpoint, region_name=server.region,
                       aws_access_key_id=c["AccessKeyId"], aws_secret_access_key=c["SecretAccessKey"],
                       aws_session_token=c["SessionToken"], config=Config(retries={"max_attempts": 1}))
    assert sts.get_caller_identity()["Arn"] == f"arn:aws:iam::{t}:user/alice"
    with pytest.raises(botocore.exceptions.ClientError) as e:
        sts.get_session_token()
    assert e.value.response["Error"]["Code"] == "AccessDenied"

    alice.delete_object(Bucket=bucket, Key="hello.txt")
    alice.delete_bucket(Bucket=bucket)


@pytest.mark.multinode  # the role made through one node is assumed through another
def test_aws_cli_profile_assumes_a_role(ostium_bin, server, tmp_path):
    """A profile with role_arn and source_profile, as operators write
    them: the aws cli calls AssumeRole with the source profile's key and
    acts as the role's session, which reads what the role's policy lets
    it read and no more."""
    t = "t" + uuid.uuid4().hex[:10]
    admin(ostium_bin, server, "tenant", "create", t)
    admin(ostium_bin, server, "user", "create", t, "boss", "--role", "admin")
    admin(ostium_bin, server, "user", "create", t, "dev")
    boss = admin(ostium_bin, server, "key", "create", t, "boss")
    dev = admin(ostium_bin, server, "key", "create", t, "dev")
    s3 = server.client(access_key=boss["access_key"], secret_key=boss["secret_key"])
    bucket = t + "-data"
    s3.create_bucket(Bucket=bucket)
    s3.put_object(Bucket=bucket, Key="report.txt", Body=b"figures")
    iam = boto3.client("iam", endpoint_url=server.endpoint, region_name=server.region,
                       aws_access_key_id=boss["access_key"], aws_secret_access_key=boss["secret_key"],
                       config=Config(retries={"max_attempts": 1}))
    trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole",
             "Principal": {"AWS": f"arn:aws:iam::{t}:user/dev"},
             "Condition": {"StringEquals": {"sts:ExternalId": "e-42"}}}]}
    role = iam.create_role(RoleName="reader", AssumeRolePolicyDocument=json.dumps(trust))["Role"]
    iam.put_role_policy(RoleName="reader", PolicyName="read", PolicyDocument=json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": ["s3:GetObject", "s3:ListBucket"],
         "Resource": [f"arn:aws:s3:::{bucket}", f"arn:aws:s3:::{bucket}/*"]}]}))

    home = tmp_path / "home"
    home.mkdir()
    (home / "credentials").write_text(
        f"[dev]\naws_access_key_id = {dev['access_key']}\naws_secret_access_key = {dev['secret_key']}\n")
    (home / "config").write_text(
        f"[profile dev]\nregion = {server.region}\nendpoint_url = {server.endpoint}\n"
        f"[profile reader]\nrole_arn = {role['Arn']}\nsource_profile = dev\nexternal_id = e-42\n"
        f"role_session_name = nightly\nregion = {server.region}\nendpoint_url = {server.endpoint}\n"
        f"[profile wrong]\nrole_arn = {role['Arn']}\nsource_profile = dev\nexternal_id = e-0\nregion = {server.region}\n"
        f"endpoint_url = {server.endpoint}\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(HOME=str(home), AWS_CONFIG_FILE=str(home / "config"), AWS_SHARED_CREDENTIALS_FILE=str(home / "credentials"),
               AWS_EC2_METADATA_DISABLED="true", AWS_PAGER="")

    def run(profile, *args):
        cmd = [sys.executable, "-m", "awscli", "--profile", profile, *args]
        return subprocess.run(cmd, env=env, input="new", capture_output=True, text=True, timeout=120)

    p = run("reader", "sts", "get-caller-identity")
    assert p.returncode == 0, p.stderr
    who = json.loads(p.stdout)
    assert who["Arn"] == f"arn:aws:sts::{t}:assumed-role/reader/nightly" and who["UserId"].endswith(":nightly")
    p = run("reader", "s3", "cp", f"s3://{bucket}/report.txt", "-")
    assert p.returncode == 0 and p.stdout == "figures", p.stderr
    p = run("reader", "s3", "cp", "-", f"s3://{bucket}/new.txt")
    assert p.returncode != 0 and "AccessDenied" in p.stderr, p.stderr
    # dev as himself reads nothing of boss's bucket; a wrong external id
    # is refused as AWS refuses it.
    p = run("dev", "s3", "ls", f"s3://{bucket}")
    assert p.returncode != 0 and "AccessDenied" in p.stderr, p.stderr
    p = run("wrong", "s3", "ls", f"s3://{bucket}")
    assert p.returncode != 0 and "AccessDenied" in p.stderr and "AssumeRole" in p.stderr, p.stderr
