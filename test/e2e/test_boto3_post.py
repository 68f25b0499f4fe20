"""Browser form uploads (POST Object) and CORS against a real server:
forms made by boto3's generate_presigned_post (SigV4 and SigV2) and sent
by requests as a browser would, and the CORS configuration and
preflights a browser needs before it may send them."""

import xml.etree.ElementTree as ET
from urllib.parse import parse_qs, urlparse

import pytest
import requests
from botocore.exceptions import ClientError

from helpers import error_code, etag_of, rand_bytes, settled, xml_error_code

# Run again through the cluster (multinode): form uploads and a CORS
# configuration set through one node and answered by the others.
pytestmark = pytest.mark.multinode

NS = "{http://s3.amazonaws.com/doc/2006-03-01/}"


@pytest.mark.parametrize("sig", ["s3v4", "s3"])
def test_presigned_post(server, s3, bucket, sig):
    c = server.client(signature_version=sig)
    post = c.generate_presigned_post(
        bucket, "uploads/${filename}",
        Fields={"Content-Type": "text/plain", "success_action_status": "201"},
        Conditions=[{"Content-Type": "text/plain"}, {"success_action_status": "201"},
                    ["starts-with", "$key", "uploads/"], ["content-length-range", 1, 1024]],
        ExpiresIn=300)
    body = b"uploaded from a form"
    r = requests.post(post["url"], data=post["fields"], files={"file": ("note.txt", body)})
    assert r.status_code == 201, r.text
    root = ET.fromstring(r.content)
    assert root.tag == "PostResponse"
    assert root.findtext("Bucket") == bucket
    assert root.findtext("Key") == "uploads/note.txt"
    assert root.findtext("ETag") == etag_of(body)
    assert r.headers["ETag"] == etag_of(body)
    obj = s3.get_object(Bucket=bucket, Key="uploads/note.txt")
    assert obj["Body"].read() == body
    assert obj["ContentType"] == "text/plain"

    # Over the policy's content-length-range: refused while it streams,
    # nothing stored.
    r = requests.post(post["url"], data=post["fields"], files={"file": ("big.txt", rand_bytes(2048, seed=3))})
    assert r.status_code == 400 and xml_error_code(r.content) == "EntityTooLarge", r.text
    with pytest.raises(ClientError) as e:
        s3.head_object(Bucket=bucket, Key="uploads/big.txt")
    assert error_code(e)[0] == 404

    # A field the policy does not name.
    r = requests.post(post["url"], data={**post["fields"], "x-amz-meta-extra": "1"}, files={"file": ("x.txt", b"x")})
    assert r.status_code == 403 and b"Extra input fields: x-amz-meta-extra" in r.content, r.text


def test_presigned_post_redirect_and_expiry(server, s3, bucket):
    post = s3.generate_presigned_post(
        bucket, "r/one", Fields={"success_action_redirect": "https://app.example/done"},
        Conditions=[{"success_action_redirect": "https://app.example/done"}], ExpiresIn=300)
    r = requests.post(post["url"], data=post["fields"], files={"file": ("f", b"data")}, allow_redirects=False)
    assert r.status_code == 303, r.text
    loc = urlparse(r.headers["Location"])
    q = parse_qs(loc.query)
    assert (loc.netloc, loc.path) == ("app.example", "/done")
    assert q["bucket"] == [bucket] and q["key"] == ["r/one"] and q["etag"] == [etag_of(b"data")]

    expired = s3.generate_presigned_post(bucket, "r/late", ExpiresIn=-60)
    r = requests.post(expired["url"], data=expired["fields"], files={"file": ("f", b"data")})
    assert r.status_code == 403, r.text
    assert b"Invalid according to Policy: Policy expired." in r.content


def test_cors_configuration_and_preflight(server, s3, bucket):
    with pytest.raises(ClientError) as e:
        s3.get_bucket_cors(Bucket=bucket)
    assert error_code(e) == (404, "NoSuchCORSConfiguration")
    s3.put_bucket_cors(Bucket=bucket, CORSConfiguration={"CORSRules": [{
        "AllowedOrigins": ["https://app.example"], "AllowedMethods": ["GET", "POST", "PUT"],
        "AllowedHeaders": ["*"], "ExposeHeaders": ["ETag"], "MaxAgeSeconds": 600}]})
    rules = s3.get_bucket_cors(Bucket=bucket)["CORSRules"]
    assert rules[0]["AllowedOrigins"] == ["https://app.example"] and rules[0]["MaxAgeSeconds"] == 600

    with pytest.raises(ClientError) as e:
        s3.put_bucket_cors(Bucket=bucket, CORSConfiguration={"CORSRules": [{"AllowedOrigins": ["*"], "AllowedMethods": ["PATCH"]}]})
    assert error_code(e) == (400, "InvalidRequest")

    url = f"{server.endpoint}/{bucket}"
    preflight = {"Origin": "https://app.example", "Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "content-type"}
    settled(lambda: requests.options(url, headers=preflight).status_code == 200)
    r = requests.options(url, headers=preflight)
    assert r.status_code == 200, r.text
    assert r.headers["Access-Control-Allow-Origin"] == "https://app.example"
    assert r.headers["Access-Control-Allow-Methods"] == "GET, POST, PUT"
    assert r.headers["Access-Control-Allow-Headers"] == "content-type"
    assert r.headers["Access-Control-Max-Age"] == "600"
    assert "Origin" in r.headers["Vary"]

    r = requests.options(url + "/k", headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "GET"})
    assert r.status_code == 403 and xml_error_code(r.content) == "AccessForbidden", r.text
    r = requests.options(url, headers={"Access-Control-Request-Method": "GET"})
    assert r.status_code == 400 and xml_error_code(r.content) == "BadRequest", r.text

    # The form upload a page on that origin then sends carries the headers.
    post = s3.generate_presigned_post(bucket, "from-page")
    r = requests.post(post["url"], data=post["fields"], files={"file": ("f", b"x")}, headers={"Origin": "https://app.example"})
    assert r.status_code == 204, r.text
    assert r.headers["Access-Control-Allow-Origin"] == "https://app.example"
    assert r.headers["Access-Control-Expose-Headers"] == "ETag"

    s3.delete_bucket_cors(Bucket=bucket)
    with pytest.raises(ClientError) as e:
        s3.get_bucket_cors(Bucket=bucket)
    assert error_code(e) == (404, "NoSuchCORSConfiguration")
    settled(lambda: requests.options(url, headers=preflight).status_code == 403)
    r = requests.options(url, headers={"Origin": "https://app.example", "Access-Control-Request-Method": "GET"})
    assert r.status_code == 403 and b"CORS is not enabled for this bucket." in r.content
