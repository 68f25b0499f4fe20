"""`ostium serve` serving HTTPS itself (--tls-listen, beside its plain
listener) with a certificate from a private CA, driven by the aws cli,
boto3 and rclone, each told to trust that CA; the certificate renewed
under the running server (SIGHUP, and a change of the files); the server,
started with umask 000 on a world-readable data directory, keeps every
file it writes its own."""

import filecmp
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

import pytest
from botocore.exceptions import SSLError

from helpers import (MiB, PrivateCA, Server, empty_and_delete, free_port, rand_bytes, require_tool,
                     served_serial, unique_bucket)


@pytest.fixture(scope="module")
def tls_server(ostium_bin, tmp_path_factory):
    """A server with a plain and an HTTPS listener; .ca is the CA, .https
    the endpoint, .cert_files the certificate and key it serves."""
    require_tool("openssl", "apt-get install openssl")
    work = str(tmp_path_factory.mktemp("tls-ca"))
    ca = PrivateCA(work)
    cert, key = os.path.join(work, "server.pem"), os.path.join(work, "server.key")
    ca.issue(1, cert, key)
    data = tempfile.mkdtemp(prefix="ostium-e2e-tls-")
    os.chmod(data, 0o777)  # made by someone careless: serve must close it
    tls_port = free_port()
    srv = Server(bin=ostium_bin, data_dir=data, umask=0,
                 extra_args=["--tls-listen", f"127.0.0.1:{tls_port}", "--tls-cert", cert, "--tls-key", key])
    srv.start()
    srv.ca, srv.tls_port, srv.cert_files = ca, tls_port, (cert, key)
    srv.https = f"https://127.0.0.1:{tls_port}"
    yield srv
    srv.stop()
    shutil.rmtree(data, ignore_errors=True)
    shutil.rmtree(srv.log_dir, ignore_errors=True)


@pytest.fixture
def tls_bucket(tls_server, request):
    s3 = tls_server.client(endpoint=tls_server.https, verify=tls_server.ca.cert)
    name = unique_bucket("tls-" + request.node.name)
    s3.create_bucket(Bucket=name)
    yield name
    empty_and_delete(s3, name)


def test_boto3_over_tls(tls_server, tls_bucket):
    s3 = tls_server.client(endpoint=tls_server.https, verify=tls_server.ca.cert)
    small, big = rand_bytes(1000, seed=1), rand_bytes(12 * MiB, seed=2)
    s3.put_object(Bucket=tls_bucket, Key="small", Body=small)
    import io
    s3.upload_fileobj(io.BytesIO(big), tls_bucket, "big")  # multipart, aws-chunked with trailers over https
    assert s3.get_object(Bucket=tls_bucket, Key="small")["Body"].read() == small
    assert s3.get_object(Bucket=tls_bucket, Key="big")["Body"].read() == big
    # A client that trusts only the public CAs refuses the private one.
    stranger = tls_server.client(endpoint=tls_server.https, verify=True)
    with pytest.raises(SSLError):
        stranger.list_buckets()


def test_awscli_over_tls(tls_server, tls_bucket, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(HOME=str(home), AWS_CONFIG_FILE=str(home / "no-config"),
               AWS_SHARED_CREDENTIALS_FILE=str(home / "no-credentials"),
               AWS_ACCESS_KEY_ID=tls_server.access_key, AWS_SECRET_ACCESS_KEY=tls_server.secret_key,
               AWS_DEFAULT_REGION=tls_server.region, AWS_EC2_METADATA_DISABLED="true", AWS_PAGER="",
               AWS_CA_BUNDLE=tls_server.ca.cert)

    def aws(*args, check=True, trust=True):
        e = env if trust else {k: v for k, v in env.items() if k != "AWS_CA_BUNDLE"}
        p = subprocess.run([sys.executable, "-m", "awscli", "--endpoint-url", tls_server.https, *map(str, args)],
                           env=e, capture_output=True, text=True, timeout=300)
        if check and p.returncode != 0:
            pytest.fail(f"aws {' '.join(map(str, args))} exited {p.returncode}\n{p.stdout}\n{p.stderr}")
        return p

    src = tmp_path / "up.bin"
    src.write_bytes(rand_bytes(9 * MiB, seed=3))
    aws("s3", "cp", src, f"s3://{tls_bucket}/up.bin", "--no-progress")
    assert "up.bin" in aws("s3", "ls", f"s3://{tls_bucket}/").stdout
    down = tmp_path / "down.bin"
    aws("s3", "cp", f"s3://{tls_bucket}/up.bin", down, "--no-progress")
    assert filecmp.cmp(src, down, shallow=False)
    # Without the CA bundle the cli refuses the server's certificate.
    p = aws("s3", "ls", f"s3://{tls_bucket}/", check=False, trust=False)
    assert p.returncode != 0 and "SSL" in p.stderr, p.stderr


def test_rclone_over_tls(tls_server, tls_bucket, tmp_path):
    exe = require_tool("rclone", "apt-get install rclone")
    home = tmp_path / "rclone-home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RCLONE_", "AWS_"))}
    env.update(HOME=str(home), RCLONE_CONFIG=str(home / "rclone.conf"),
               RCLONE_CONFIG_OST_TYPE="s3", RCLONE_CONFIG_OST_PROVIDER="Other", RCLONE_CONFIG_OST_ENV_AUTH="false",
               RCLONE_CONFIG_OST_ACCESS_KEY_ID=tls_server.access_key,
               RCLONE_CONFIG_OST_SECRET_ACCESS_KEY=tls_server.secret_key,
               RCLONE_CONFIG_OST_ENDPOINT=tls_server.https, RCLONE_CONFIG_OST_REGION=tls_server.region,
               RCLONE_CONFIG_OST_FORCE_PATH_STYLE="true")

    def rclone(*args, check=True, ca=True):
        cmd = [exe, *map(str, args)] + (["--ca-cert", tls_server.ca.cert] if ca else [])
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
        if check and p.returncode != 0:
            pytest.fail(f"rclone {' '.join(map(str, args))} exited {p.returncode}\n{p.stdout}\n{p.stderr}")
        return p

    src = tmp_path / "src"
    (src / "d").mkdir(parents=True)
    (src / "a.txt").write_bytes(b"over tls\n")
    (src / "d" / "b.bin").write_bytes(rand_bytes(300_000, seed=4))
    rclone("copy", src, f"ost:{tls_bucket}/tree")
    rclone("check", src, f"ost:{tls_bucket}/tree")
    back = tmp_path / "back"
    rclone("copy", f"ost:{tls_bucket}/tree", back)
    assert (back / "d" / "b.bin").read_bytes() == (src / "d" / "b.bin").read_bytes()
    p = rclone("lsf", f"ost:{tls_bucket}", "--retries", "1", "--low-level-retries", "1", check=False, ca=False)
    assert p.returncode != 0 and "certificate" in p.stderr, p.stderr


def wait_serial(srv, want, within):
    deadline = time.monotonic() + within
    while (got := served_serial(srv.tls_port, srv.ca.cert)) != want:
        if time.monotonic() > deadline:
            pytest.fail(f"serving certificate {got}, not {want}, after {within} s:\n{srv.stderr_tail()}")
        time.sleep(0.1)


def test_certificate_renewal(tls_server, tls_bucket):
    """A renewed certificate reaches new connections after SIGHUP, and
    after a change of the files alone (looked at every 5 s); a client's
    open connection goes on working throughout."""
    s3 = tls_server.client(endpoint=tls_server.https, verify=tls_server.ca.cert)
    s3.put_object(Bucket=tls_bucket, Key="k", Body=b"before")
    assert served_serial(tls_server.tls_port, tls_server.ca.cert) == 1
    cert, key = tls_server.cert_files
    tls_server.ca.issue(2, cert, key)
    tls_server.proc.send_signal(signal.SIGHUP)
    wait_serial(tls_server, 2, 5)
    assert s3.get_object(Bucket=tls_bucket, Key="k")["Body"].read() == b"before"
    tls_server.ca.issue(3, cert, key)
    wait_serial(tls_server, 3, 15)
    s3.put_object(Bucket=tls_bucket, Key="k", Body=b"after")
    assert s3.get_object(Bucket=tls_bucket, Key="k")["Body"].read() == b"after"
    # A broken renewal keeps the certificate in use, and says so.
    with open(cert, "w") as f:
        f.write("not a certificate\n")
    tls_server.proc.send_signal(signal.SIGHUP)
    time.sleep(0.5)
    assert served_serial(tls_server.tls_port, tls_server.ca.cert) == 3
    assert "TLS certificate reload failed" in tls_server.stderr_tail(200)
    assert tls_server.proc.poll() is None


def test_files_private_under_umask_000(tls_server, tls_bucket):
    """Started with umask 000 on a data directory made 0777, the server
    made the directory 0700 and writes every file 0600."""
    s3 = tls_server.client(endpoint=tls_server.https, verify=tls_server.ca.cert)
    s3.put_object(Bucket=tls_bucket, Key="blob", Body=rand_bytes(100_000, seed=5))  # past inline: a blob file
    bad = []
    for root, dirs, files in os.walk(tls_server.data_dir):
        for name, want in [(d, 0o700) for d in dirs] + [(f, 0o600) for f in files] + [(".", 0o700)]:
            p = os.path.join(root, name)
            mode = stat.S_IMODE(os.stat(p).st_mode)
            if mode != want:
                bad.append(f"{p}: {oct(mode)}")
    assert not bad, bad
    names = os.listdir(tls_server.data_dir)
    assert {"catalog.db", "catalog.db-wal", "catalog.db-shm", "blobs"} <= set(names), names
    # The node key is kept apart from the data, in the user's key file.
    assert "node.key" not in names, names
    key_file = os.path.join(os.environ["XDG_CONFIG_HOME"], "ostium", "node.key")
    assert stat.S_IMODE(os.stat(key_file).st_mode) == 0o600


def test_https_only(ostium_bin, tls_server, tmp_path):
    """--tls-listen without --listen serves HTTPS alone."""
    data = tmp_path / "data"
    port = free_port()
    cert, key = tmp_path / "c.pem", tmp_path / "k.pem"
    tls_server.ca.issue(7, str(cert), str(key))
    env = {k: v for k, v in os.environ.items() if not k.startswith("OSTIUM_")}
    env.update(OSTIUM_ROOT_ACCESS_KEY=tls_server.access_key, OSTIUM_ROOT_SECRET_KEY=tls_server.secret_key)
    log = open(tmp_path / "stderr.log", "wb")
    proc = subprocess.Popen([ostium_bin, "serve", "--data", str(data), "--tls-listen", f"127.0.0.1:{port}",
                             "--console-listen", f"127.0.0.1:{free_port()}",
                             "--tls-cert", str(cert), "--tls-key", str(key)],
                            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                assert served_serial(port, tls_server.ca.cert) == 7
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail((tmp_path / "stderr.log").read_text())
                time.sleep(0.1)
        s3 = tls_server.client(endpoint=f"https://127.0.0.1:{port}", verify=tls_server.ca.cert)
        assert isinstance(s3.list_buckets()["Buckets"], list)
        serving = [l for l in (tmp_path / "stderr.log").read_text().splitlines() if "ostium serving S3" in l]
        assert len(serving) == 1 and "scheme=https" in serving[0], serving
    finally:
        proc.terminate()
        proc.wait(15)


def test_haproxy_terminates_tls(ostium_bin, tmp_path):
    """deploy/haproxy.cfg terminating TLS in front of a node that trusts it:
    a bucket policy denying requests without aws:SecureTransport lets the
    tenant in through HAProxy's HTTPS, keeps it out through its plain
    HTTP, and a client's own X-Forwarded-Proto changes nothing."""
    import json
    import uuid
    from botocore.exceptions import ClientError
    from helpers import haproxy_bin, haproxy_config

    require_tool("openssl", "apt-get install openssl")
    hap = haproxy_bin()
    ca = PrivateCA(str(tmp_path))
    cert, key, pem = tmp_path / "h.crt", tmp_path / "h.key", tmp_path / "haproxy.pem"
    ca.issue(1, str(cert), str(key))
    pem.write_text(cert.read_text() + key.read_text())
    data = tmp_path / "data"
    conf = tmp_path / "ostium.yaml"
    conf.write_text(json.dumps({"data": str(data), "trusted_proxies": ["127.0.0.1"]}))
    srv = Server(bin=ostium_bin, data_dir=str(data), extra_args=["--config", str(conf)]).start()
    port, https_port = free_port(), free_port()
    cfg = haproxy_config(str(tmp_path), port, https_port, str(pem), [("node1", srv.port)])
    proxy = subprocess.Popen([hap, "-db", "-f", cfg], stdout=subprocess.DEVNULL,
                             stderr=open(tmp_path / "haproxy.log", "wb"))
    try:
        env = dict(os.environ, OSTIUM_ENDPOINT=srv.endpoint,
                   OSTIUM_ROOT_ACCESS_KEY=srv.access_key, OSTIUM_ROOT_SECRET_KEY=srv.secret_key)

        def admin(*args):
            p = subprocess.run([ostium_bin, "admin", "--json", *args], env=env, capture_output=True, text=True, timeout=60)
            assert p.returncode == 0, p.stderr
            return json.loads(p.stdout) if p.stdout.strip() else None

        t = "t" + uuid.uuid4().hex[:10]
        admin("tenant", "create", t)
        admin("user", "create", t, "ann", "--role", "admin")
        k = admin("key", "create", t, "ann")
        creds = dict(access_key=k["access_key"], secret_key=k["secret_key"])
        https = srv.client(endpoint=f"https://127.0.0.1:{https_port}", verify=ca.cert, **creds)
        plain = srv.client(endpoint=f"http://127.0.0.1:{port}", **creds)
        deadline = time.monotonic() + 20
        while True:
            try:
                https.list_buckets()
                break
            except Exception:
                if time.monotonic() > deadline or proxy.poll() is not None:
                    pytest.fail((tmp_path / "haproxy.log").read_text())
                time.sleep(0.2)

        bucket = t + "-tls"
        https.create_bucket(Bucket=bucket)
        https.put_object(Bucket=bucket, Key="k", Body=b"secret")
        https.put_bucket_policy(Bucket=bucket, Policy=json.dumps({"Version": "2012-10-17", "Statement": [{
            "Effect": "Deny", "Principal": "*", "Action": "s3:*",
            "Resource": [f"arn:aws:s3:::{bucket}", f"arn:aws:s3:::{bucket}/*"],
            "Condition": {"Bool": {"aws:SecureTransport": "false"}}}]}))
        assert https.get_object(Bucket=bucket, Key="k")["Body"].read() == b"secret"
        with pytest.raises(ClientError) as e:
            plain.get_object(Bucket=bucket, Key="k")
        assert e.value.response["Error"]["Code"] == "AccessDenied"
        # Added after signing (botocore would sign it, and HAProxy's rewrite
        # would then break the signature instead).
        plain.meta.events.register("before-send.s3.GetObject",
                                   lambda request, **kw: request.headers.__setitem__("X-Forwarded-Proto", "https"))
        with pytest.raises(ClientError) as e:
            plain.get_object(Bucket=bucket, Key="k")
        assert e.value.response["Error"]["Code"] == "AccessDenied"
        https.delete_bucket_policy(Bucket=bucket)
        empty_and_delete(https, bucket)
    finally:
        proxy.kill()
        proxy.wait(10)
        srv.stop()


def test_sighup_without_tls_keeps_serving(server, s3):
    """`systemctl reload` sends SIGHUP to a node without TLS too; its
    default action would stop the node."""
    if server.proc is None:
        pytest.skip("the server is not this session's process")
    server.proc.send_signal(signal.SIGHUP)
    time.sleep(0.3)
    assert server.proc.poll() is None
    assert isinstance(s3.list_buckets()["Buckets"], list)


def test_console_listener_serves_https_with_the_nodes_certificate(tls_server):
    """With --tls-listen the console's own listener serves HTTPS, with the
    certificate S3's HTTPS serves (one reload renews both), and every answer
    carries HSTS and nosniff; the S3 listener's /console/ is S3's error."""
    import ssl
    import urllib.error
    import urllib.request
    port = tls_server.console_port
    assert served_serial(port, tls_server.ca.cert) == served_serial(tls_server.tls_port, tls_server.ca.cert)
    ctx = ssl.create_default_context(cafile=tls_server.ca.cert)
    with urllib.request.urlopen(f"https://127.0.0.1:{port}/console/", context=ctx, timeout=10) as res:
        body = res.read().decode()
        assert res.status == 200 and "<html" in body.lower()
        assert res.headers["Strict-Transport-Security"] == "max-age=31536000"
        assert res.headers["X-Content-Type-Options"] == "nosniff"
        assert "script-src 'self'" in res.headers["Content-Security-Policy"]
    for url in (f"{tls_server.https}/console/", f"https://127.0.0.1:{port}/health/ready"):
        try:
            urllib.request.urlopen(url, context=ctx, timeout=10)
            raise AssertionError(f"{url} answered 2xx")
        except urllib.error.HTTPError as e:
            assert e.headers["Strict-Transport-Security"] == "max-age=31536000", url
            if url.startswith(tls_server.https):
                assert b"<Code>" in e.read(), url  # S3's own error, not a page
            else:
                assert e.code == 404, url
