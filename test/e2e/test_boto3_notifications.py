"""Event notifications with boto3 and the CLI, end to end: the provider
registers a webhook (`ostium admin notify-target put`), a bucket's
configuration names it, and a loopback HTTPS receiver gets AWS's event
JSON, each POST signed with the target's secret."""

import hashlib
import hmac
import http.server
import json
import os
import shutil
import ssl
import subprocess
import tempfile
import threading
import time

import pytest
from botocore.exceptions import ClientError

from helpers import empty_and_delete, start_server, unique_bucket

SECRET = "e2e-webhook-secret"
ARN = "arn:ostium:sns:us-east-1:provider:e2e-hook"


class Receiver(http.server.ThreadingHTTPServer):
    """An HTTPS webhook on loopback that keeps what it got and whether
    each signature verified."""

    def __init__(self, cert, key):
        super().__init__(("127.0.0.1", 0), Handler)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, key)
        self.socket = ctx.wrap_socket(self.socket, server_side=True)
        self.events, self.bad = [], []
        self.lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        ts = self.headers.get("X-Ostium-Timestamp", "")
        want = "sha256=" + hmac.new(SECRET.encode(), ts.encode() + b"." + body, hashlib.sha256).hexdigest()
        ok = hmac.compare_digest(want, self.headers.get("X-Ostium-Signature", ""))
        with self.server.lock:
            (self.server.events if ok else self.server.bad).append(json.loads(body))
        self.send_response(204 if ok else 401)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def hook():
    d = tempfile.mkdtemp(prefix="ostium-e2e-hook-")
    cert, key = os.path.join(d, "cert.pem"), os.path.join(d, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    r = Receiver(cert, key)
    threading.Thread(target=r.serve_forever, daemon=True).start()
    r.cert = cert
    yield r
    r.shutdown()
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="module")
def notify_server(ostium_bin, hook):
    conf_dir = tempfile.mkdtemp(prefix="ostium-e2e-notify-")
    conf = os.path.join(conf_dir, "ostium.yaml")
    with open(conf, "w") as f:
        f.write(f"data: unused\nnotify_ca_file: {hook.cert}\nnotify_retry_backoff: 100ms\n")
    srv = start_server(ostium_bin, extra_args=["--config", conf])
    yield srv
    srv.stop()
    shutil.rmtree(srv.data_dir, ignore_errors=True)
    shutil.rmtree(srv.log_dir, ignore_errors=True)
    shutil.rmtree(conf_dir, ignore_errors=True)


def admin(ostium_bin, server, *args):
    env = dict(os.environ, OSTIUM_ENDPOINT=server.endpoint,
               OSTIUM_ROOT_ACCESS_KEY=server.access_key, OSTIUM_ROOT_SECRET_KEY=server.secret_key)
    res = subprocess.run([ostium_bin, "admin", "--json", *args], env=env, capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout) if res.stdout.strip() else None


def eventually(what, cond, timeout=30):
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            pytest.fail(f"not within {timeout} s: {what}")
        time.sleep(0.1)


def test_webhook_gets_aws_events(ostium_bin, notify_server, hook, request):
    port = hook.server_address[1]
    out = admin(ostium_bin, notify_server, "notify-target", "put", ARN, "--kind", "webhook",
                "--endpoint", f"https://127.0.0.1:{port}/events", "--secret", SECRET, "--tenants", "*")
    assert out["arn"] == ARN and out["kind"] == "webhook"
    assert [t["arn"] for t in admin(ostium_bin, notify_server, "notify-target", "list")] == [ARN]

    s3 = notify_server.client()
    bucket = unique_bucket(request.node.name)
    s3.create_bucket(Bucket=bucket)
    try:
        # A target nobody registered is refused as AWS refuses it.
        with pytest.raises(ClientError) as e:
            s3.put_bucket_notification_configuration(Bucket=bucket, NotificationConfiguration={"TopicConfigurations": [
                {"TopicArn": "arn:ostium:sns:us-east-1:provider:nobody", "Events": ["s3:ObjectCreated:*"]}]})
        assert e.value.response["Error"]["Code"] == "InvalidArgument"
        assert "Unable to validate the following destination configurations" in e.value.response["Error"]["Message"]

        s3.put_bucket_notification_configuration(Bucket=bucket, NotificationConfiguration={"TopicConfigurations": [
            {"Id": "jpegs", "TopicArn": ARN, "Events": ["s3:ObjectCreated:*", "s3:ObjectRemoved:*"],
             "Filter": {"Key": {"FilterRules": [{"Name": "prefix", "Value": "img/"}, {"Name": "suffix", "Value": ".jpg"}]}}}]})
        got = s3.get_bucket_notification_configuration(Bucket=bucket)["TopicConfigurations"]
        assert got[0]["Id"] == "jpegs" and got[0]["TopicArn"] == ARN
        eventually("the test event", lambda: any(ev.get("Event") == "s3:TestEvent" and ev.get("Bucket") == bucket
                                                 for ev in hook.events))

        s3.put_object(Bucket=bucket, Key="img/skip.png", Body=b"no")
        put = s3.put_object(Bucket=bucket, Key="img/a b.jpg", Body=b"hello")
        s3.delete_object(Bucket=bucket, Key="img/a b.jpg")

        def records():
            with hook.lock:
                return [ev["Records"][0] for ev in hook.events
                        if "Records" in ev and ev["Records"][0]["s3"]["bucket"]["name"] == bucket]
        eventually("two events", lambda: len(records()) >= 2)
        created, removed = records()[:2]
        assert created["eventName"] == "ObjectCreated:Put" and created["eventSource"] == "aws:s3"
        assert created["eventVersion"] == "2.1" and created["awsRegion"] == notify_server.region
        assert created["s3"]["configurationId"] == "jpegs"
        assert created["s3"]["object"]["key"] == "img/a+b.jpg"
        assert created["s3"]["object"]["size"] == 5
        assert '"' + created["s3"]["object"]["eTag"] + '"' == put["ETag"]
        assert created["responseElements"]["x-amz-request-id"] == put["ResponseMetadata"]["RequestId"]
        assert created["requestParameters"]["sourceIPAddress"] == "127.0.0.1"
        assert removed["eventName"] == "ObjectRemoved:Delete" and "size" not in removed["s3"]["object"]
        time.sleep(1)
        assert len(records()) == 2, "the filter let img/skip.png through"
        assert hook.bad == [], "a POST's signature did not verify"
    finally:
        empty_and_delete(s3, bucket)
