"""`ostium config` end to end: validate names the wrong key, export seals
the secrets under a passphrase, import opens them on another machine, and
`ostium serve --config` runs on the imported file."""

import os
import subprocess
import time
import urllib.request

import boto3
import yaml
from botocore.config import Config

from helpers import free_port


def ostium(bin, *args, secret=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("OSTIUM_")}
    if secret:
        env["OSTIUM_CONFIG_SECRET"] = secret
    return subprocess.run([bin, *args], env=env, capture_output=True, text=True, timeout=60)


def test_validate_export_import_serve(ostium_bin, tmp_path):
    port = free_port()
    cfg = {
        "listen": f"127.0.0.1:{port}", "console_listen": f"127.0.0.1:{free_port()}", "data": str(tmp_path / "data"),
        "root_access_key": "cfg-root-access-key", "root_secret_key": "cfg-root-secret-key-0123456789",
        "node_key": "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=",
        "default_platform": "local",
        "platforms": {"local": {"type": "fs", "path": str(tmp_path / "blobs")},
                      "remote": {"type": "s3", "endpoint": "http://127.0.0.1:1", "bucket": "ostium",
                                 "access_key": "RK", "secret_key": "remote-platform-secret"}},
    }
    plain = tmp_path / "ostium.yaml"
    plain.write_text(yaml.safe_dump(cfg))
    res = ostium(ostium_bin, "config", "validate", str(plain))
    assert res.returncode == 0 and "ok" in res.stdout, res.stderr

    for broken, key in (({**cfg, "platforms": {**cfg["platforms"], "remote": {**cfg["platforms"]["remote"], "layout": "nonsense"}}},
                         "platforms.remote.layout"),
                        ({**cfg, "listen_port": 9000}, "listen_port")):
        bad = tmp_path / "bad.yaml"
        bad.write_text(yaml.safe_dump(broken))
        res = ostium(ostium_bin, "config", "validate", str(bad))
        assert res.returncode != 0 and key in res.stderr, res.stderr

    sealed = tmp_path / "cluster.yaml"
    res = ostium(ostium_bin, "config", "export", str(plain), "--out", str(sealed), secret="correct horse")
    assert res.returncode == 0, res.stderr
    text = sealed.read_text()
    for secret in ("cfg-root-secret-key-0123456789", "remote-platform-secret", cfg["node_key"]):
        assert secret not in text
    assert ostium(ostium_bin, "config", "validate", str(sealed)).returncode != 0  # sealed: not startable as is
    assert ostium(ostium_bin, "config", "import", str(sealed), secret="wrong").returncode != 0

    imported = tmp_path / "imported.yaml"
    res = ostium(ostium_bin, "config", "import", str(sealed), "--out", str(imported), secret="correct horse")
    assert res.returncode == 0, res.stderr
    assert oct(imported.stat().st_mode & 0o777) == "0o600"
    back = yaml.safe_load(imported.read_text())
    assert back["root_secret_key"] == cfg["root_secret_key"]
    assert back["node_key"] == cfg["node_key"]
    assert back["platforms"]["remote"]["secret_key"] == "remote-platform-secret"

    env = {k: v for k, v in os.environ.items() if not k.startswith("OSTIUM_")}
    proc = subprocess.Popen([ostium_bin, "serve", "--config", str(imported)], env=env,
                            stdout=subprocess.DEVNULL, stderr=open(tmp_path / "serve.log", "wb"))
    try:
        endpoint = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                urllib.request.urlopen(endpoint + "/health/live", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id=cfg["root_access_key"],
                          aws_secret_access_key=cfg["root_secret_key"], config=Config(s3={"addressing_style": "path"}))
        s3.create_bucket(Bucket="from-config")
        s3.put_object(Bucket="from-config", Key="k", Body=b"configured")
        assert s3.get_object(Bucket="from-config", Key="k")["Body"].read() == b"configured"
    finally:
        proc.terminate()
        proc.wait(30)


def test_validate_refuses_what_serve_refuses(ostium_bin, tmp_path):
    """A file serve would refuse at start, validate refuses with the same
    words: a node key that is not 32 bytes of base64 (a placeholder left
    in), a listen address without a port, a node key file that is not
    there. (cmd/ostium's TestConfigValidateRefusesWhatServeRefuses has
    the full table.)"""
    base = {"data": str(tmp_path / "data"), "listen": f"127.0.0.1:{free_port()}"}
    for broken, key in (({**base, "node_key": "CHANGE-ME-32-bytes-of-base64"}, "node_key:"),
                        ({**base, "listen": "localhost"}, "listen:"),
                        ({**base, "node_key_file": str(tmp_path / "missing.key")}, "node_key_file:")):
        bad = tmp_path / "bad.yaml"
        bad.write_text(yaml.safe_dump(broken))
        validate = ostium(ostium_bin, "config", "validate", str(bad))
        serve = ostium(ostium_bin, "serve", "--config", str(bad))
        assert validate.returncode != 0 and key in validate.stderr, validate.stderr
        assert serve.returncode != 0 and validate.stderr.strip() in serve.stderr, (validate.stderr, serve.stderr)
