"""boto3 against a real ostium server: presigned URLs, Signature V2,
endpoints and addressing styles, authentication failures, and what
answers 501 for now."""

import datetime as dt
import io
import socket
import time
import uuid
import urllib.error
import urllib.request

import boto3
import pytest
import requests
from boto3.s3.transfer import TransferConfig
from botocore import UNSIGNED
from botocore.config import Config
from botocore.exceptions import ClientError

from helpers import DOMAIN, MiB, allowed, error_code, etag_of, rand_bytes, settled, signed_request, xml_error_code

# Run again through the cluster (multinode): each request may reach another
# node: presigned URLs, SigV2, virtual-hosted names and the /api/v1/s3 root
# through HAProxy, bucket policies and ACLs set on one node and decided on
# another.
pytestmark = pytest.mark.multinode


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


@pytest.mark.parametrize("amz_date, code", [
    ("", "AccessDenied"),
    ("Bad Date", "AccessDenied"),
    ("Tue, 07 Jul 1950 21:53:04 GMT", "AccessDenied"),
    ("Tue, 07 Jul 2010 21:53:04 GMT", "RequestTimeTooSkewed"),
    ("Tue, 07 Jul 9999 21:53:04 GMT", "RequestTimeTooSkewed"),
])
def test_sigv2_bad_dates(server, bucket, amz_date, code):
    # The s3-tests suite's test_object_create_bad_date_*_aws2, held to
    # AWS's answers: botocore signs over its Date, then an x-amz-date (which
    # stands in for Date) is set after signing. A date AWS cannot use (empty,
    # unreadable, before the epoch) is AccessDenied before the signature is
    # looked at; a readable one too far from now is RequestTimeTooSkewed.
    c = server.client(signature_version="s3")
    c.meta.events.register("before-call.s3.PutObject",
                           lambda params, **kw: params["headers"].update({"x-amz-date": amz_date}))
    with pytest.raises(ClientError) as e:
        c.put_object(Bucket=bucket, Key="bad-date", Body=b"bar")
    assert error_code(e) == (403, code)


def test_empty_authorization(server, s3, bucket):
    # An Authorization header that is present but empty is no signature:
    # AWS answers 403 AccessDenied (s3-tests'
    # test_object_create_bad_authorization_empty and
    # test_bucket_create_bad_authorization_empty).
    for method, path in (("PUT", f"/{bucket}/empty-auth"), ("PUT", f"/{bucket}-new")):
        r = requests.request(method, server.endpoint + path, data=b"bar" if "empty-auth" in path else None,
                             headers={"Authorization": ""})
        assert r.status_code == 403 and xml_error_code(r.content) == "AccessDenied", (path, r.text)
    assert s3.list_objects_v2(Bucket=bucket)["KeyCount"] == 0


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


def test_bucket_policy_opens_a_prefix_to_anonymous_readers(server, s3, bucket):
    import json
    s3.put_object(Bucket=bucket, Key="public/hello", Body=b"hello")
    s3.put_object(Bucket=bucket, Key="private", Body=b"secret")
    with pytest.raises(ClientError) as e:
        s3.get_bucket_policy(Bucket=bucket)
    assert error_code(e) == (404, "NoSuchBucketPolicy")
    with pytest.raises(ClientError) as e:
        s3.put_bucket_policy(Bucket=bucket, Policy='{"Statement": "nope"}')
    assert error_code(e) == (400, "MalformedPolicy")
    policy = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject",
                                                      "Resource": f"arn:aws:s3:::{bucket}/public/*"}]}
    # As on AWS, a new bucket blocks public policies until the block is lifted.
    with pytest.raises(ClientError) as e:
        s3.put_bucket_policy(Bucket=bucket, Policy=json.dumps(policy))
    assert error_code(e) == (403, "AccessDenied")
    s3.delete_public_access_block(Bucket=bucket)
    settled(lambda: allowed(lambda: s3.put_bucket_policy(Bucket=bucket, Policy=json.dumps(policy))))
    assert json.loads(s3.get_bucket_policy(Bucket=bucket)["Policy"]) == policy
    assert s3.get_bucket_policy_status(Bucket=bucket)["PolicyStatus"]["IsPublic"] is True
    settled(lambda: requests.get(f"{server.endpoint}/{bucket}/public/hello").status_code == 200)
    r = requests.get(f"{server.endpoint}/{bucket}/public/hello")
    assert r.status_code == 200 and r.content == b"hello"
    r = requests.get(f"{server.endpoint}/{bucket}/private")
    assert r.status_code == 403 and b"secret" not in r.content
    s3.delete_bucket_policy(Bucket=bucket)
    settled(lambda: requests.get(f"{server.endpoint}/{bucket}/public/hello").status_code == 403)


def test_object_acls_open_an_object_to_anonymous_readers(server, s3):
    name = "acl-" + uuid.uuid4().hex[:12]
    s3.create_bucket(Bucket=name, ObjectOwnership="ObjectWriter")
    assert s3.get_bucket_ownership_controls(Bucket=name)["OwnershipControls"]["Rules"] == [{"ObjectOwnership": "ObjectWriter"}]
    with pytest.raises(ClientError) as e:
        s3.put_object(Bucket=name, Key="pub", Body=b"hello", ACL="public-read")
    assert error_code(e) == (403, "AccessDenied")  # BlockPublicAcls, on for every new bucket
    s3.put_public_access_block(Bucket=name, PublicAccessBlockConfiguration={
        "BlockPublicAcls": False, "IgnorePublicAcls": False, "BlockPublicPolicy": True, "RestrictPublicBuckets": True})
    settled(lambda: allowed(lambda: s3.put_object(Bucket=name, Key="pub", Body=b"hello", ACL="public-read")))
    s3.put_object(Bucket=name, Key="priv", Body=b"secret")
    grants = s3.get_object_acl(Bucket=name, Key="pub")["Grants"]
    assert {"Grantee": {"Type": "Group", "URI": "http://acs.amazonaws.com/groups/global/AllUsers"},
            "Permission": "READ"} in grants
    settled(lambda: requests.get(f"{server.endpoint}/{name}/pub").status_code == 200)  # IgnorePublicAcls lifted
    r = requests.get(f"{server.endpoint}/{name}/pub")
    assert r.status_code == 200 and r.content == b"hello"
    assert requests.get(f"{server.endpoint}/{name}/priv").status_code == 403
    s3.put_object_acl(Bucket=name, Key="pub", ACL="private")
    assert requests.get(f"{server.endpoint}/{name}/pub").status_code == 403
    assert s3.get_public_access_block(Bucket=name)["PublicAccessBlockConfiguration"]["BlockPublicAcls"] is False


def test_request_time_too_skewed(server, bucket):
    # A SigV4 request signed 20 minutes ago.
    skewed = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None) - dt.timedelta(minutes=20)
    r = signed_request(server, "GET", f"/{bucket}", {"list-type": "2"}, when=skewed)
    assert r.status_code == 403 and xml_error_code(r.content) == "RequestTimeTooSkewed"
    assert signed_request(server, "GET", f"/{bucket}", {"list-type": "2"}).status_code == 200


# --- not implemented yet -----------------------------------------------------


@pytest.mark.parametrize("op", [
    "get_bucket_website",
])
def test_unimplemented_features_answer_501(s3, bucket, op):
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    calls = {
        "get_bucket_website": lambda: s3.get_bucket_website(Bucket=bucket),
    }
    with pytest.raises(ClientError) as e:
        calls[op]()
    assert error_code(e) == (501, "NotImplemented")
    # The object is untouched.
    assert s3.get_object(Bucket=bucket, Key="k")["Body"].read() == b"x"


# --- provider defaults for new buckets -----------------------------------------


def test_legacy_bucket_defaults(ostium_bin):
    # --bucket-defaults legacy: tools from before 2023 create buckets with
    # a canned ACL and set public policies, as on Ceph RGW.
    import json
    import shutil

    from helpers import start_server

    srv = start_server(ostium_bin, prefix="ostium-e2e-legacy-", extra_args=["--bucket-defaults", "legacy"])
    try:
        c = srv.client()
        anon = boto3.session.Session().client("s3", endpoint_url=srv.endpoint, region_name=srv.region,
                                              config=Config(signature_version=UNSIGNED, s3={"addressing_style": "path"}))
        c.create_bucket(Bucket="legacy-public", ACL="public-read")
        assert c.get_bucket_ownership_controls(Bucket="legacy-public")["OwnershipControls"]["Rules"][0]["ObjectOwnership"] == "ObjectWriter"
        with pytest.raises(ClientError) as e:
            c.get_public_access_block(Bucket="legacy-public")
        assert error_code(e) == (404, "NoSuchPublicAccessBlockConfiguration")
        c.put_object(Bucket="legacy-public", Key="open", Body=b"open", ACL="public-read")
        assert [o["Key"] for o in anon.list_objects_v2(Bucket="legacy-public")["Contents"]] == ["open"]
        assert anon.get_object(Bucket="legacy-public", Key="open")["Body"].read() == b"open"
        c.create_bucket(Bucket="legacy-policy")
        c.put_object(Bucket="legacy-policy", Key="k", Body=b"by policy")
        c.put_bucket_policy(Bucket="legacy-policy", Policy=json.dumps({"Version": "2012-10-17", "Statement": [
            {"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::legacy-policy/*"}]}))
        assert anon.get_object(Bucket="legacy-policy", Key="k")["Body"].read() == b"by policy"
    finally:
        srv.stop()
        shutil.rmtree(srv.data_dir, ignore_errors=True)
        shutil.rmtree(srv.log_dir, ignore_errors=True)


def test_aws_bucket_defaults(s3, bucket_name):
    # The default: as AWS since 2023.
    with pytest.raises(ClientError) as e:
        s3.create_bucket(Bucket=bucket_name, ACL="public-read")
    assert error_code(e) == (400, "InvalidBucketAclWithObjectOwnership")
