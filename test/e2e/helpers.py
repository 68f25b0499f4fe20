"""Shared helpers of the end-to-end suite (imported by conftest and tests)."""

import hashlib
import os
import random
import shutil
import socket
import subprocess
import sysconfig
import tempfile
import time
import uuid
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

REPO = Path(__file__).resolve().parents[2]
ACCESS_KEY = "e2e-root-access-key"
SECRET_KEY = "e2e-root-secret-key-0123456789abcdef"
REGION = "us-east-1"
DOMAIN = "localhost"

# Servers started by this session, for the failure report hook.
SERVERS = []


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    """A running `ostium serve`."""

    bin: str
    data_dir: str
    port: int = 0
    console_port: int = 0  # the console's own listener
    proc: subprocess.Popen = None
    log_dir: str = ""
    access_key: str = ACCESS_KEY
    secret_key: str = SECRET_KEY
    region: str = REGION
    extra_args: list = field(default_factory=list)
    umask: int = None  # the server's umask, if not the suite's

    @property
    def endpoint(self):
        return f"http://127.0.0.1:{self.port}"

    @property
    def console_endpoint(self):
        return f"http://127.0.0.1:{self.console_port}"

    @property
    def pid(self):
        return self.proc.pid

    @property
    def stderr_path(self):
        return os.path.join(self.log_dir, "stderr.log")

    def command(self):
        """The server's command line and environment."""
        env = dict(os.environ)
        env.update(OSTIUM_ROOT_ACCESS_KEY=self.access_key, OSTIUM_ROOT_SECRET_KEY=self.secret_key)
        for k in ("OSTIUM_CATALOG", "OSTIUM_DOMAIN", "OSTIUM_LISTEN", "OSTIUM_DATA"):
            env.pop(k, None)
        return [self.bin, "serve", "--listen", f"127.0.0.1:{self.port}",
                "--console-listen", f"127.0.0.1:{self.console_port}",
                "--data", self.data_dir, "--domain", DOMAIN, *self.extra_args], env

    def start(self, timeout=30):
        self.port = self.port or free_port()
        self.console_port = self.console_port or free_port()
        os.makedirs(self.data_dir, exist_ok=True)
        self.log_dir = self.log_dir or tempfile.mkdtemp(prefix="ostium-e2e-log-")
        args, env = self.command()
        self.proc = subprocess.Popen(
            args, env=env, stdin=subprocess.DEVNULL,
            stdout=open(os.path.join(self.log_dir, "stdout.log"), "wb"),
            stderr=open(self.stderr_path, "wb"),
            preexec_fn=None if self.umask is None else (lambda: os.umask(self.umask)))
        SERVERS.append(self)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"ostium exited with {self.proc.returncode}:\n{self.stderr_tail()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"ostium did not listen on {self.port} within {timeout}s:\n{self.stderr_tail()}")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        if self in SERVERS:
            SERVERS.remove(self)

    def stderr_tail(self, lines=40):
        try:
            with open(self.stderr_path, "rb") as f:
                f.seek(0, 2)
                f.seek(max(0, f.tell() - 64 * 1024))
                text = f.read().decode("utf-8", "replace")
        except OSError:
            return "(no stderr)"
        return "\n".join(text.splitlines()[-lines:])

    def client(self, endpoint=None, access_key=None, secret_key=None, verify=None, **config):
        """A boto3 S3 client for this server (path style unless config says
        otherwise); everything else is boto3's default."""
        config.setdefault("s3", {"addressing_style": "path"})
        config.setdefault("retries", {"max_attempts": 1, "mode": "standard"})
        return boto3.session.Session().client(
            "s3", endpoint_url=endpoint or self.endpoint, region_name=self.region,
            aws_access_key_id=access_key or self.access_key,
            aws_secret_access_key=secret_key or self.secret_key,
            verify=verify, config=Config(**config))


def start_server(ostium_bin, prefix="ostium-e2e-data-", extra_args=()):
    """Starts a server on a fresh temp data dir (caller stops it and removes
    the dir)."""
    data = tempfile.mkdtemp(prefix=prefix)
    return Server(bin=ostium_bin, data_dir=data, extra_args=list(extra_args)).start()


def unique_bucket(hint="b"):
    hint = "".join(c if c.isalnum() else "-" for c in hint.lower())[:30].strip("-") or "b"
    return f"e2e-{hint}-{uuid.uuid4().hex[:10]}"


def empty_and_delete(client, name):
    """Removes every upload, object version and the bucket itself; a bucket
    already gone is fine."""
    try:
        for page in client.get_paginator("list_multipart_uploads").paginate(Bucket=name):
            for u in page.get("Uploads", []):
                client.abort_multipart_upload(Bucket=name, Key=u["Key"], UploadId=u["UploadId"])
        for page in client.get_paginator("list_object_versions").paginate(Bucket=name):
            objs = [{"Key": v["Key"], "VersionId": v["VersionId"]}
                    for v in page.get("Versions", []) + page.get("DeleteMarkers", [])]
            if objs:
                client.delete_objects(Bucket=name, Delete={"Objects": objs, "Quiet": True})
        client.delete_bucket(Bucket=name)
    except ClientError as e:
        if e.response["Error"]["Code"] != "NoSuchBucket":
            # Fall back to plain listing in case versions listing is what broke.
            try:
                for page in client.get_paginator("list_objects_v2").paginate(Bucket=name):
                    for o in page.get("Contents", []):
                        client.delete_object(Bucket=name, Key=o["Key"])
                client.delete_bucket(Bucket=name)
            except ClientError:
                pass


def script(name):
    """Path of a console script installed with this interpreter (pyenv
    shims may not know about a freshly pip-installed one)."""
    p = os.path.join(sysconfig.get_path("scripts"), name)
    if os.path.exists(p):
        return p
    return shutil.which(name)


def require_tool(name, how="pip install -r test/e2e/requirements.txt"):
    """The tool's path; a missing tool skips the test on a developer's
    machine but fails it in CI (CI=true), where .ci/run installs it."""
    path = script(name)
    if not path:
        msg = f"{name} is not installed ({how})"
        if os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)
    return path


def error_code(exc_info):
    """(HTTP status, S3 error code) of a botocore ClientError, or of the
    one pytest.raises caught."""
    r = getattr(exc_info, "value", exc_info).response
    return r["ResponseMetadata"]["HTTPStatusCode"], r["Error"]["Code"]


def settled(check, timeout=3):
    """Waits until check() is true: for a bucket setting changed through one
    node to reach the node the next request lands on. As on AWS, bucket
    configuration is eventually consistent: a cluster's nodes drop their
    cached bucket when the change's notification arrives (a moment), or at
    their next poll of the catalog (a second). One node sees its own
    change at once, so there check() holds the first time. It must hold
    three times running: behind the test cluster's round-robin balancer,
    once on each of its three nodes. check() must be safe to repeat."""
    deadline, running = time.monotonic() + timeout, 0
    while running < 3:
        running = running + 1 if check() else 0
        if running == 0:
            assert time.monotonic() < deadline, f"a bucket setting did not reach every node within {timeout} s"
            time.sleep(0.05)


def allowed(call):
    """Whether call() succeeds rather than being denied (403 AccessDenied);
    other errors are raised."""
    try:
        call()
        return True
    except ClientError as e:
        if error_code(e) != (403, "AccessDenied"):
            raise
        return False


def rand_bytes(n, seed=0):
    """n deterministic pseudo-random bytes."""
    return random.Random(seed).randbytes(n)


def md5_hex(b):
    return hashlib.md5(b).hexdigest()


def signed_request(server, method, path, params=None, headers=None, data=b"", when=None, send=None):
    """Sends a raw SigV4-signed request (exactly the query given, nothing
    added) with requests; `when` (naive UTC datetime) fakes the signing time,
    `send` replaces the body after it was signed."""
    import unittest.mock
    from urllib.parse import urlencode, quote

    import requests
    from botocore.auth import S3SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    url = server.endpoint + quote(path)
    if params:
        url += "?" + urlencode(params, quote_via=quote)
    req = AWSRequest(method=method, url=url, data=data, headers=dict(headers or {}))
    signer = S3SigV4Auth(Credentials(server.access_key, server.secret_key), "s3", server.region)
    if when is not None:
        with unittest.mock.patch("botocore.auth.get_current_datetime", return_value=when):
            signer.add_auth(req)
    else:
        signer.add_auth(req)
    return requests.request(method, req.url, headers=dict(req.headers.items()), data=data if send is None else send)


class TLSProxy:
    """A TLS-terminating TCP proxy on 127.0.0.1 in front of a server, with a
    self-signed certificate made by the openssl command. botocore sends
    aws-chunked bodies with trailing checksums only over https, so this is
    how the suite gets them onto the wire."""

    def __init__(self, upstream_port, workdir):
        import ssl
        import threading

        self.upstream_port = upstream_port
        self.cert = os.path.join(workdir, "cert.pem")
        key = os.path.join(workdir, "key.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                        "-out", self.cert, "-days", "2", "-subj", "/CN=127.0.0.1",
                        "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
                       check=True, capture_output=True, timeout=60)
        self.ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.ctx.load_cert_chain(self.cert, key)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def endpoint(self):
        return f"https://127.0.0.1:{self.port}"

    def _accept(self):
        import threading
        while not self.closed:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn):
        import threading
        try:
            tls = self.ctx.wrap_socket(conn, server_side=True)
        except OSError:
            conn.close()
            return
        try:
            up = socket.create_connection(("127.0.0.1", self.upstream_port))
        except OSError:
            tls.close()
            return

        def pump(src, dst):
            try:
                while True:
                    b = src.recv(256 * 1024)
                    if not b:
                        break
                    dst.sendall(b)
            except OSError:
                pass
            finally:
                for s in (src, dst):
                    try:
                        s.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass

        t = threading.Thread(target=pump, args=(up, tls), daemon=True)
        t.start()
        pump(tls, up)
        t.join(60)
        tls.close()
        up.close()

    def close(self):
        self.closed = True
        self.sock.close()


class PrivateCA:
    """A private certificate authority made with the openssl command: .cert
    is the file clients trust (AWS_CA_BUNDLE, boto3's verify=, rclone's
    --ca-cert); issue() writes a server certificate for 127.0.0.1 and
    localhost signed by it."""

    def __init__(self, workdir):
        self.dir = workdir
        self.cert = os.path.join(workdir, "ca.pem")
        self.key = os.path.join(workdir, "ca.key")
        self._openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                      "-keyout", self.key, "-out", self.cert, "-days", "2", "-subj", "/CN=Ostium e2e CA",
                      "-addext", "basicConstraints=critical,CA:TRUE",
                      "-addext", "keyUsage=critical,keyCertSign,cRLSign")

    def _openssl(self, *args):
        subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=60)

    def issue(self, serial, cert_path, key_path):
        """Writes a server certificate (serial number `serial`) and its key,
        each replaced by rename, as certbot does."""
        tmp = os.path.join(self.dir, f"issue-{serial}")
        os.makedirs(tmp, exist_ok=True)
        ext = os.path.join(tmp, "ext.cnf")
        with open(ext, "w") as f:
            f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n"
                    "basicConstraints=critical,CA:FALSE\n"
                    "keyUsage=critical,digitalSignature\n"
                    "extendedKeyUsage=serverAuth\n"
                    "subjectKeyIdentifier=hash\n"
                    "authorityKeyIdentifier=keyid,issuer\n")
        key, csr, crt = (os.path.join(tmp, n) for n in ("key.pem", "req.csr", "cert.pem"))
        self._openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                      "-keyout", key, "-out", csr, "-subj", "/CN=localhost")
        self._openssl("x509", "-req", "-in", csr, "-CA", self.cert, "-CAkey", self.key,
                      "-set_serial", str(serial), "-days", "2", "-out", crt, "-extfile", ext)
        os.replace(key, key_path)
        os.replace(crt, cert_path)


def served_serial(port, ca):
    """The serial number of the certificate 127.0.0.1:port hands a new
    connection, verified against the CA file ca."""
    import ssl
    ctx = ssl.create_default_context(cafile=ca)
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with ctx.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
            return int(tls.getpeercert()["serialNumber"], 16)


def haproxy_config(workdir, port, https_port, pem, servers, console_servers=None):
    """deploy/haproxy.cfg for loopback: its plain bind on port, its TLS bind
    on https_port with pem (certificate chain and key, for S3 and the
    console alike), quicker checks, one server line per (name, port) in
    servers and one console server per (name, port) in console_servers.
    Checked with `haproxy -c`; returns the path."""
    import re
    with open(os.path.join(REPO, "deploy", "haproxy.cfg")) as f:
        cfg = f.read()
    before = cfg
    cfg = re.sub(r"(?m)^    server .*\n", "", cfg)
    cfg = cfg.replace("    bind :80\n", f"    bind 127.0.0.1:{port}\n")
    cfg = cfg.replace("    bind :443 ssl crt /etc/haproxy/certs/s3.pem crt /etc/haproxy/certs/console.pem ",
                      f"    bind 127.0.0.1:{https_port} ssl crt {pem} ")
    if cfg.count("127.0.0.1:") != 2:
        raise RuntimeError(f"deploy/haproxy.cfg has changed its bind lines:\n{before}")
    cfg = cfg.replace("/etc/haproxy/errors/ostium-503.http", os.path.join(REPO, "deploy", "haproxy-503.http"))
    cfg = cfg.replace("inter 2s", "inter 300ms")
    cfg = cfg.replace("maxconn 20000", "maxconn 256")  # within any test machine's file limit
    # The S3 servers end backend ostium, the consoles' (console_servers,
    # (name, port) each, tracking the S3 server of their name) the file.
    s3_lines = "".join(f"    server {n} 127.0.0.1:{p} check\n" for n, p in servers)
    head, sep, tail = cfg.partition("\nbackend console\n")
    if not sep:
        raise RuntimeError(f"deploy/haproxy.cfg has no console backend:\n{before}")
    cfg = (head.rstrip("\n") + "\n" + s3_lines + sep + tail.rstrip("\n") + "\n"
           + "".join(f"    server {n} 127.0.0.1:{p} track ostium/{n}\n" for n, p in console_servers or []))
    path = os.path.join(workdir, "haproxy.cfg")
    with open(path, "w") as f:
        f.write(cfg)
    check = subprocess.run([haproxy_bin(), "-c", "-f", path], capture_output=True, text=True)
    if check.returncode != 0:
        raise RuntimeError(f"haproxy -c: {check.stdout}{check.stderr}")
    return path


def haproxy_bin():
    return (shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin")
            or require_tool("haproxy", "apt-get install haproxy"))


MiB = 1024 * 1024


def etag_of(data):
    return f'"{md5_hex(data)}"'


def xml_error_code(body):
    root = ET.fromstring(body)
    return root.findtext("Code")


class Wire:
    """Records the requests a client sends (method, url, lower-cased headers)."""

    def __init__(self, client):
        self.sent = []
        client.meta.events.register("before-send.s3", self._record)

    def _record(self, request, **kwargs):
        h = {k.lower(): v.decode() if isinstance(v, bytes) else v for k, v in request.headers.items()}
        self.sent.append((request.method, request.url, h))

    def last(self, method):
        return [h for m, _, h in self.sent if m == method][-1]


def tls_client(server, tls, **config):
    return server.client(endpoint=tls.endpoint, verify=tls.cert, **config)
