"""The README's first hour runs as written: its "A first tenant" example
(serve, a tenant, a user and a key, the aws cli with that key, usage) and
then its `ostium admin` tour, in one shell, against a fresh node. The
only changes are the node's address (a free port instead of 9000, which
may be taken here, given to `ostium admin` as OSTIUM_ENDPOINT) and the
console password fed on stdin."""

import os
import re
import stat
import subprocess
import sys

from helpers import REPO, free_port


def code_blocks(text, start, end):
    """The indented code blocks between two headings (or lines)."""
    section = text[text.index(start):text.index(end)]
    blocks = []
    for para in section.split("\n\n"):
        lines = para.split("\n")
        if any(l.strip() for l in lines) and all(l.startswith("    ") or not l.strip() for l in lines):
            blocks.append("\n".join(l[4:] for l in lines))
    return blocks


def test_readme_first_hour(ostium_bin, tmp_path):
    readme = (REPO / "README.md").read_text()
    blocks = code_blocks(readme, "## A first tenant", "## Tenants, keys, quotas and usage")
    blocks += code_blocks(readme, "The provider (the root credentials) onboards tenants", "Tables are for people")
    script = "\n".join(blocks)
    assert "ostium serve &" in script and "aws --endpoint-url" in script and "ostium admin usage _provider" in script, script

    port = free_port()
    script = script.replace("localhost:9000", f"127.0.0.1:{port}")
    script = script.replace("ostium serve &", f"ostium serve --listen 127.0.0.1:{port} --console-listen 127.0.0.1:0 "
                            f"--data data > serve.out 2> serve.log &\nSERVE=$!\n"
                            f"for i in $(seq 100); do ostium admin tenant list >/dev/null 2>&1 && break; sleep 0.1; done")
    script = script.replace("ostium admin user password", "printf 'a-long-console-password\\n' | ostium admin user password")

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    os.symlink(ostium_bin, bin_dir / "ostium")
    aws = bin_dir / "aws"
    aws.write_text(f"#!/bin/sh\nexec {sys.executable} -m awscli \"$@\"\n")
    aws.chmod(aws.stat().st_mode | stat.S_IXUSR)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OSTIUM_", "AWS_"))}
    env.update(PATH=f"{bin_dir}:{env.get('PATH', '')}", HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "config"),
               AWS_CONFIG_FILE=str(tmp_path / "no-config"), AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "no-credentials"),
               AWS_EC2_METADATA_DISABLED="true", AWS_PAGER="",
               OSTIUM_ENDPOINT=f"http://127.0.0.1:{port}")  # where `ostium admin` would find a node on 9000
    full = "set -eu\ntrap 'kill $SERVE 2>/dev/null' EXIT\nSERVE=\n" + script + "\n"
    res = subprocess.run(["bash", "-c", full], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, f"stdout:\n{res.stdout}\nstderr:\n{res.stderr}\nlog:\n{(tmp_path / 'serve.log').read_text()}"

    out = res.stdout
    assert "2026/hello.txt" in out, out
    # alice's bucket is metered as acme's: its row in the usage table.
    assert re.search(r"^tenant acme: 17 B in 1 object now;", out, re.M), out
    assert re.search(r"^\S+T\S+Z\s+photos\s+17 B\s+1\s", out, re.M), out
    assert re.search(r"^acme,photos,\S+,17,1,", out, re.M), out  # the CSV export
    assert "the provider's own buckets (_provider)" in out, out
    assert re.search(r"^acme\s+\(all\)\s+931 GiB\s+10000000\s+200 MiB\s+500$", out, re.M), out  # quota list, with its rates
