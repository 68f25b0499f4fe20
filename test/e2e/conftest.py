"""Fixtures of the end-to-end suite: one ostium server per session, driven
by real clients (boto3, the aws cli, rclone, s3cmd).

The binary is built once from this work tree (or taken from OSTIUM_E2E_BIN),
started on a free loopback port with a temporary data dir and fixed root
credentials, and killed at the end. When a test fails, the tail of the
server's stderr is added to its report.
"""

import atexit
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

from helpers import REPO, SERVERS, Server, TLSProxy, empty_and_delete, require_tool, start_server, unique_bucket

# A node started without a node key makes one in the user's configuration
# directory ($XDG_CONFIG_HOME/ostium/node.key): every server of the suite
# finds the suite's own there, never the real user's ~/.config.
_CONFIG_HOME = tempfile.mkdtemp(prefix="ostium-e2e-config-")
os.environ["XDG_CONFIG_HOME"] = _CONFIG_HOME
atexit.register(shutil.rmtree, _CONFIG_HOME, ignore_errors=True)


@pytest.fixture(scope="session")
def ostium_bin(tmp_path_factory):
    """The ostium binary: OSTIUM_E2E_BIN, or built once from this tree."""
    if os.environ.get("OSTIUM_E2E_BIN"):
        return os.environ["OSTIUM_E2E_BIN"]
    out = str(tmp_path_factory.mktemp("bin") / "ostium")
    res = subprocess.run(["go", "build", "-o", out, "./cmd/ostium"], cwd=REPO,
                         capture_output=True, text=True, timeout=900)
    if res.returncode != 0:
        pytest.exit(f"go build ./cmd/ostium failed:\n{res.stdout}{res.stderr}", returncode=1)
    return out


@pytest.fixture(scope="session")
def server(request):
    """The session's server: endpoint, credentials, pid.

    OSTIUM_E2E_ENDPOINT=http://host:port runs the suite against a server
    already running there instead (credentials from OSTIUM_ROOT_ACCESS_KEY /
    OSTIUM_ROOT_SECRET_KEY); OSTIUM_E2E_CLUSTER=1 against three nodes
    sharing PostgreSQL and an S3 platform behind HAProxy (cluster.py)."""
    if os.environ.get("OSTIUM_E2E_CLUSTER"):
        from cluster import Cluster
        c = Cluster(request.getfixturevalue("ostium_bin"))
        yield Server(bin="", data_dir="", port=c.port)
        c.stop()
        return
    ext = os.environ.get("OSTIUM_E2E_ENDPOINT")
    if ext:
        from urllib.parse import urlparse
        srv = Server(bin="", data_dir="", port=urlparse(ext).port or 80,
                     access_key=os.environ.get("OSTIUM_ROOT_ACCESS_KEY", "e2e-root-access-key"),
                     secret_key=os.environ.get("OSTIUM_ROOT_SECRET_KEY", "e2e-root-secret-key-0123456789abcdef"))
        yield srv
        return
    srv = start_server(request.getfixturevalue("ostium_bin"))
    yield srv
    srv.stop()
    shutil.rmtree(srv.data_dir, ignore_errors=True)
    shutil.rmtree(srv.log_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def s3(server):
    """A boto3 client with boto3's defaults (CRC32 trailing checksums over
    aws-chunked on uploads), path style."""
    return server.client()


@pytest.fixture(scope="session")
def tls(server, tmp_path_factory):
    """An https endpoint (TLS proxy) in front of the session's server; .cert
    is the CA file clients must trust."""
    require_tool("openssl", "apt-get install openssl")
    proxy = TLSProxy(server.port, str(tmp_path_factory.mktemp("tls")))
    yield proxy
    proxy.close()


@pytest.fixture(scope="session")
def s3_tls(server, tls):
    """A boto3 client with defaults over https: uploads are aws-chunked with a
    CRC32 trailer (STREAMING-UNSIGNED-PAYLOAD-TRAILER)."""
    return server.client(endpoint=tls.endpoint, verify=tls.cert)


@pytest.fixture
def bucket(server, s3, request):
    """A fresh, empty bucket for one test, removed with all it holds."""
    name = unique_bucket(request.node.name)
    s3.create_bucket(Bucket=name)
    yield name
    empty_and_delete(s3, name)


@pytest.fixture
def bucket_name(server, s3, request):
    """A unique bucket name the test creates itself (removed afterwards if
    it still exists)."""
    name = unique_bucket(request.node.name)
    yield name
    empty_and_delete(s3, name)


def pytest_collection_modifyitems(config, items):
    """Against a cluster (OSTIUM_E2E_CLUSTER), a test that does not use the
    session's server starts a single node of its own: run again, it would
    prove nothing about the cluster, so it is left out."""
    if not os.environ.get("OSTIUM_E2E_CLUSTER"):
        return
    own = [item for item in items if "server" not in getattr(item, "fixturenames", ())]
    if own:
        config.hook.pytest_deselected(items=own)
        items[:] = [item for item in items if item not in own]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if rep.failed and SERVERS:
        for srv in list(SERVERS):
            rep.sections.append((f"ostium server stderr (tail, port {srv.port})", srv.stderr_tail()))


def pytest_report_header(config):
    return [f"python {sys.version.split()[0]} at {sys.executable}"]
