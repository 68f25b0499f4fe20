"""A first start without configured credentials: the root key is generated,
printed once, kept across restarts, and its secret is not stored in the
clear."""

import os
import re
import shutil
import socket
import subprocess
import tempfile
import time

import boto3
from botocore.config import Config

from helpers import free_port


def run_until_listening(ostium_bin, data, port):
    env = {k: v for k, v in os.environ.items() if not k.startswith("OSTIUM_")}
    proc = subprocess.Popen([ostium_bin, "serve", "--listen", f"127.0.0.1:{port}", "--console-listen", "127.0.0.1:0",
                             "--data", data],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("ostium did not start")


def stop(proc):
    proc.terminate()
    out, _ = proc.communicate(timeout=15)
    return out


def client(port, ak, sk):
    return boto3.client("s3", endpoint_url=f"http://127.0.0.1:{port}", region_name="us-east-1",
                        aws_access_key_id=ak, aws_secret_access_key=sk,
                        config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}))


def test_generated_root_credentials(ostium_bin):
    data = tempfile.mkdtemp(prefix="ostium-e2e-first-")
    try:
        port = free_port()
        # The credentials are printed before the server listens.
        out = stop(run_until_listening(ostium_bin, data, port))
        ak = re.search(r"OSTIUM_ROOT_ACCESS_KEY=(\S+)", out).group(1)
        sk = re.search(r"OSTIUM_ROOT_SECRET_KEY=(\S+)", out).group(1)
        assert len(sk) >= 30

        proc = run_until_listening(ostium_bin, data, port)
        try:
            c = client(port, ak, sk)
            c.create_bucket(Bucket="first-start")
            assert [b["Name"] for b in c.list_buckets()["Buckets"]] == ["first-start"]
        finally:
            out = stop(proc)
        assert "OSTIUM_ROOT_SECRET_KEY" not in out, "credentials printed again on a later start"

        # At rest the secret is sealed by the node key, never in the clear.
        assert os.path.exists(os.path.join(data, "node.key"))
        for name in os.listdir(data):
            path = os.path.join(data, name)
            if os.path.isfile(path):
                with open(path, "rb") as f:
                    assert sk.encode() not in f.read(), f"root secret in the clear in {name}"
    finally:
        shutil.rmtree(data, ignore_errors=True)
