"""A cluster on loopback for the end-to-end suite: three `ostium serve`
nodes sharing a fresh PostgreSQL database and one S3 platform (another
Ostium on local disk), behind HAProxy configured from deploy/haproxy.cfg.

Needs OSTIUM_TEST_POSTGRES (a URL whose user may create databases), psql
and haproxy; .ci/run provides all three.
"""

import base64
import json
import os
import secrets
import shutil
import subprocess
import tempfile
import time
import urllib.request
import uuid
from urllib.parse import urlparse, urlunparse

from helpers import (ACCESS_KEY, DOMAIN, SECRET_KEY, SERVERS, PrivateCA, Server, free_port, haproxy_bin, haproxy_config,
                     require_tool, start_server)


def fresh_database():
    """A new empty database on OSTIUM_TEST_POSTGRES; returns its URL."""
    base = os.environ.get("OSTIUM_TEST_POSTGRES")
    if not base:
        return None
    name = "ostium_cluster_" + uuid.uuid4().hex[:10]
    subprocess.run([require_tool("psql", "apt-get install postgresql-client"), base, "-qc", f"CREATE DATABASE {name}"],
                   check=True, capture_output=True, timeout=60)
    u = urlparse(base)
    return urlunparse(u._replace(path="/" + name))


def get_json(url, timeout=2):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.load(r)


class Node(Server):
    """A cluster node: `ostium serve --config` with its own file."""

    def __init__(self, bin, config):
        super().__init__(bin=bin, data_dir=config["data"])
        self.config = config

    def command(self):
        path = os.path.join(self.log_dir, "ostium.yaml")
        with open(path, "w") as f:
            json.dump(self.config, f)  # JSON is YAML
        return [self.bin, "serve", "--config", path], {k: v for k, v in os.environ.items() if not k.startswith("OSTIUM_")}

    def start(self, timeout=30):
        self.port = int(self.config["listen"].rsplit(":", 1)[1])
        self.console_port = int(self.config["console_listen"].rsplit(":", 1)[1])
        super().start(timeout)
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.id = get_json(self.endpoint + "/health/ready")["node"]
                return self
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"node on {self.port} not ready within {timeout}s:\n{self.stderr_tail()}")
                time.sleep(0.1)

    def kill(self):
        """SIGKILL: the node dies without a word, as a crashed machine."""
        self.proc.kill()
        self.proc.wait(10)
        if self in SERVERS:
            SERVERS.remove(self)


class Cluster:
    """Three nodes, their platform and HAProxy. .endpoint is HAProxy's."""

    def __init__(self, ostium_bin, nodes=3, job_lease="3s"):
        self.bin, self.dir = ostium_bin, tempfile.mkdtemp(prefix="ostium-e2e-cluster-")
        self.catalog = fresh_database()
        self.haproxy_bin = haproxy_bin()
        self.platform = start_server(ostium_bin, prefix="ostium-e2e-platform-")
        node_key = base64.b64encode(secrets.token_bytes(32)).decode()
        self.nodes = []
        for i in range(nodes):
            cfg = {
                "listen": f"127.0.0.1:{free_port()}", "console_listen": f"127.0.0.1:{free_port()}",
                "data": os.path.join(self.dir, f"node{i + 1}"),
                "catalog": self.catalog, "catalog_connections": 10, "max_requests": 256,
                "domains": [DOMAIN], "root_access_key": ACCESS_KEY, "root_secret_key": SECRET_KEY,
                "node_key": node_key, "job_lease": job_lease, "gc_interval": "1s",
                "trusted_proxies": ["127.0.0.1"],
                "default_platform": "remote",
                "platforms": {"remote": {"type": "s3", "endpoint": self.platform.endpoint, "access_key": ACCESS_KEY,
                                         "secret_key": SECRET_KEY, "path_style": True, "layout": "shared",
                                         "bucket": "ostium-cluster", "timeout": "5s"}},
            }
            self.nodes.append(Node(ostium_bin, cfg).start())
        self.port = free_port()
        self.haproxy = self._start_haproxy()

    @property
    def endpoint(self):
        return f"http://127.0.0.1:{self.port}"

    def _start_haproxy(self):
        """deploy/haproxy.cfg with this cluster's addresses and quicker checks;
        HTTPS on .https_port with a certificate of the private CA .ca."""
        self.ca = PrivateCA(self.dir)
        pem = os.path.join(self.dir, "haproxy.pem")
        cert, key = os.path.join(self.dir, "h.crt"), os.path.join(self.dir, "h.key")
        self.ca.issue(1, cert, key)
        with open(pem, "w") as out:
            out.write(open(cert).read() + open(key).read())
        self.https_port = free_port()
        path = haproxy_config(self.dir, self.port, self.https_port, pem,
                              [(f"node{i + 1}", n.port) for i, n in enumerate(self.nodes)],
                              [(f"node{i + 1}", n.console_port) for i, n in enumerate(self.nodes)])
        proc = subprocess.Popen([self.haproxy_bin, "-db", "-f", path], stdout=subprocess.DEVNULL,
                                stderr=open(os.path.join(self.dir, "haproxy.log"), "wb"))
        deadline = time.monotonic() + 20
        while True:
            try:
                get_json(self.endpoint + "/health/ready")
                return proc
            except OSError:
                if time.monotonic() > deadline:
                    proc.kill()
                    raise RuntimeError("haproxy did not come up")
                time.sleep(0.1)

    def jobs(self):
        """Which node id holds each job's lease, as a live node reports it."""
        for n in self.nodes:
            if n.proc.poll() is None:
                return get_json(n.endpoint + "/health/ready")["jobs"]
        return {}

    def stop(self):
        if self.haproxy:
            self.haproxy.kill()
            self.haproxy.wait(10)
        for n in self.nodes:
            n.stop()
        self.platform.stop()
        shutil.rmtree(self.dir, ignore_errors=True)
        shutil.rmtree(self.platform.data_dir, ignore_errors=True)
