"""A first start without configured credentials: the root key is generated,
printed once, kept across restarts, and its secret is not stored in the
clear; the node key is made apart from the data, its file printed once,
and a copy of the data started with another user's key does not start."""

import os
import re
import shutil
import socket
import subprocess
import tempfile
import time

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from helpers import free_port


def run_until_listening(ostium_bin, data, port, config_home, extra_env=None, stderr=subprocess.DEVNULL):
    env = {k: v for k, v in os.environ.items() if not k.startswith("OSTIUM_")}
    env["XDG_CONFIG_HOME"] = config_home
    env.update(extra_env or {})
    proc = subprocess.Popen([ostium_bin, "serve", "--listen", f"127.0.0.1:{port}", "--console-listen", "127.0.0.1:0",
                             "--data", data],
                            env=env, stdout=subprocess.PIPE, stderr=stderr, text=True)
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
    home = tempfile.mkdtemp(prefix="ostium-e2e-first-config-")
    try:
        port = free_port()
        # The credentials are printed before the server listens, and so is
        # the node key's file, in the user's configuration directory.
        out = stop(run_until_listening(ostium_bin, data, port, home))
        ak = re.search(r"OSTIUM_ROOT_ACCESS_KEY=(\S+)", out).group(1)
        sk = re.search(r"OSTIUM_ROOT_SECRET_KEY=(\S+)", out).group(1)
        assert len(sk) >= 30
        key_file = os.path.join(home, "ostium", "node.key")
        assert f"A node key was generated in {key_file}" in out, out
        assert os.stat(key_file).st_mode & 0o077 == 0

        proc = run_until_listening(ostium_bin, data, port, home)
        try:
            c = client(port, ak, sk)
            c.create_bucket(Bucket="first-start")
            assert [b["Name"] for b in c.list_buckets()["Buckets"]] == ["first-start"]
        finally:
            out = stop(proc)
        assert "OSTIUM_ROOT_SECRET_KEY" not in out, "credentials printed again on a later start"
        assert "node key was generated" not in out, "the node key's file printed again on a later start"

        # At rest the secret is sealed by the node key, never in the
        # clear, and the key is not beside the data.
        with open(key_file, "rb") as f:
            node_key = f.read().strip()
        for root, _, files in os.walk(data):
            for name in files:
                with open(os.path.join(root, name), "rb") as f:
                    b = f.read()
                assert sk.encode() not in b, f"root secret in the clear in {name}"
                assert node_key not in b, f"the node key is in the data directory, in {name}"
        assert not os.path.exists(os.path.join(data, "node.key"))

        # A copy of the data directory, started by another user (another
        # configuration directory, so another node key), refuses to start
        # and says why.
        copy = data + "-copy"
        shutil.copytree(data, copy)
        other = tempfile.mkdtemp(prefix="ostium-e2e-first-other-")
        env = {k: v for k, v in os.environ.items() if not k.startswith("OSTIUM_")}
        env["XDG_CONFIG_HOME"] = other
        res = subprocess.run([ostium_bin, "serve", "--listen", f"127.0.0.1:{free_port()}", "--data", copy],
                             env=env, capture_output=True, text=True, timeout=60)
        assert res.returncode != 0
        assert "does not open this catalog's secrets" in res.stderr, res.stderr
        shutil.rmtree(copy, ignore_errors=True)
        shutil.rmtree(other, ignore_errors=True)
    finally:
        shutil.rmtree(data, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)


def test_environment_root_key_lives_while_given(ostium_bin, tmp_path):
    """A root pair from OSTIUM_ROOT_ACCESS_KEY / OSTIUM_ROOT_SECRET_KEY works
    while it is given: a restart without the variables removes it (and
    says so), and a key is generated and printed in its place."""
    data, home, port = str(tmp_path / "data"), str(tmp_path / "config"), free_port()
    ak, sk = "ENVROOTKEYAAAAAAAAAA", "a-root-secret-from-the-environment-0123"
    proc = run_until_listening(ostium_bin, data, port, home, {"OSTIUM_ROOT_ACCESS_KEY": ak, "OSTIUM_ROOT_SECRET_KEY": sk})
    try:
        client(port, ak, sk).create_bucket(Bucket="env-key")
    finally:
        out = stop(proc)
    assert "OSTIUM_ROOT_SECRET_KEY=" not in out, "a key was generated beside the given one"

    log = tmp_path / "restart.log"
    with open(log, "w") as f:
        proc = run_until_listening(ostium_bin, data, port, home, stderr=f)
        try:
            with pytest.raises(ClientError) as e:
                client(port, ak, sk).list_buckets()
            assert e.value.response["Error"]["Code"] == "InvalidAccessKeyId"
        finally:
            out = stop(proc)
    assert f"access_key={ak}" in log.read_text() and "was removed" in log.read_text(), log.read_text()
    gen_ak = re.search(r"OSTIUM_ROOT_ACCESS_KEY=(\S+)", out).group(1)
    gen_sk = re.search(r"OSTIUM_ROOT_SECRET_KEY=(\S+)", out).group(1)
    proc = run_until_listening(ostium_bin, data, port, home)
    try:
        assert [b["Name"] for b in client(port, gen_ak, gen_sk).list_buckets()["Buckets"]] == ["env-key"]
    finally:
        stop(proc)
