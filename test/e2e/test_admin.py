"""`ostium admin` end to end: the provider onboards a tenant with the CLI,
the tenant's keys work from boto3, application credentials and quotas hold,
and the exported usage counts the traffic."""

import csv
import io
import json
import os
import re
import subprocess
import time
import uuid

import botocore.exceptions
import pytest


def admin(ostium_bin, server, *args, check=True):
    env = dict(os.environ, OSTIUM_ENDPOINT=server.endpoint,
               OSTIUM_ROOT_ACCESS_KEY=server.access_key, OSTIUM_ROOT_SECRET_KEY=server.secret_key)
    res = subprocess.run([ostium_bin, "admin", "--json", *args], env=env, capture_output=True, text=True, timeout=60)
    if check:
        assert res.returncode == 0, res.stderr
        return json.loads(res.stdout) if res.stdout.strip() else None
    return res


def code(exc):
    return exc.value.response["Error"]["Code"]


@pytest.mark.multinode  # a tenant, user and key made through one node sign requests any node takes
def test_tenant_onboarding_with_the_cli(ostium_bin, server):
    t = "t" + uuid.uuid4().hex[:10]
    assert admin(ostium_bin, server, "tenant", "create", t, "--display-name", "E2E")["status"] == "active"
    admin(ostium_bin, server, "user", "create", t, "alice", "--role", "admin")
    key = admin(ostium_bin, server, "key", "create", t, "alice")
    assert key["access_key"] and key["secret_key"]
    alice = server.client(access_key=key["access_key"], secret_key=key["secret_key"])
    bucket = t + "-data"
    alice.create_bucket(Bucket=bucket)
    alice.put_object(Bucket=bucket, Key="hello.txt", Body=b"hello")

    # The root's client and another tenant see the bucket as AWS would.
    other = "o" + uuid.uuid4().hex[:10]
    admin(ostium_bin, server, "tenant", "create", other)
    admin(ostium_bin, server, "user", "create", other, "bob")
    bk = admin(ostium_bin, server, "key", "create", other, "bob")
    bob = server.client(access_key=bk["access_key"], secret_key=bk["secret_key"])
    with pytest.raises(botocore.exceptions.ClientError) as e:
        bob.get_object(Bucket=bucket, Key="hello.txt")
    assert code(e) == "AccessDenied"
    assert [b["Name"] for b in bob.list_buckets()["Buckets"]] == []

    # A read-only application credential reads its bucket and nothing more.
    app = admin(ostium_bin, server, "appcred", "create", t, "alice", "--bucket", bucket, "--read-only")
    ro = server.client(access_key=app["access_key"], secret_key=app["secret_key"])
    assert ro.get_object(Bucket=bucket, Key="hello.txt")["Body"].read() == b"hello"
    with pytest.raises(botocore.exceptions.ClientError) as e:
        ro.put_object(Bucket=bucket, Key="x", Body=b"x")
    assert code(e) == "AccessDenied"
    with pytest.raises(botocore.exceptions.ClientError) as e:
        ro.create_bucket(Bucket=t + "-more")
    assert code(e) == "AccessDenied"

    # A quota refuses the write that would cross it.
    admin(ostium_bin, server, "quota", "set", t, "--max-bytes", "1KB")  # 1KB is 1000 bytes (1KiB would be 1024)
    with pytest.raises(botocore.exceptions.ClientError) as e:
        alice.put_object(Bucket=bucket, Key="big", Body=b"x" * 2000)
    assert code(e) == "QuotaExceeded"

    # Suspension stops the tenant at once; resuming restores it.
    admin(ostium_bin, server, "tenant", "suspend", t)
    with pytest.raises(botocore.exceptions.ClientError) as e:
        alice.get_object(Bucket=bucket, Key="hello.txt")
    assert code(e) == "AccessDenied"
    admin(ostium_bin, server, "tenant", "resume", t)
    assert alice.get_object(Bucket=bucket, Key="hello.txt")["Body"].read() == b"hello"

    # The usage export is CSV a billing system can read; counters reach the
    # catalog within the meter interval, so only its shape is checked here
    # (the Go suite checks the figures against the traffic sent).
    env = dict(os.environ, OSTIUM_ENDPOINT=server.endpoint,
               OSTIUM_ROOT_ACCESS_KEY=server.access_key, OSTIUM_ROOT_SECRET_KEY=server.secret_key)
    out = subprocess.run([ostium_bin, "admin", "usage", t, "--csv"], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    rows = list(csv.reader(io.StringIO(out.stdout)))
    assert rows[0][:4] == ["tenant", "bucket", "hour", "byte_hours"]

    # Deleting needs purge while buckets remain; purge takes them along.
    res = admin(ostium_bin, server, "tenant", "delete", t, check=False)
    assert res.returncode != 0 and "TenantNotEmpty" in res.stderr
    admin(ostium_bin, server, "tenant", "delete", t, "--purge")
    with pytest.raises(botocore.exceptions.ClientError) as e:
        server.client().head_bucket(Bucket=bucket)
    assert e.value.response["Error"]["Code"] in ("404", "NoSuchBucket")
    admin(ostium_bin, server, "tenant", "delete", other)
    res = admin(ostium_bin, server, "tenant", "get", t, check=False)
    assert res.returncode != 0 and "NoSuchTenant" in res.stderr


@pytest.mark.multinode  # a grant made through one node decided by the others
def test_grant_by_email_to_a_user_made_with_the_cli(ostium_bin, server):
    owner_t, reader_t = "g" + uuid.uuid4().hex[:10], "r" + uuid.uuid4().hex[:10]
    email = reader_t + "@example.test"
    for t in (owner_t, reader_t):
        admin(ostium_bin, server, "tenant", "create", t)
    admin(ostium_bin, server, "user", "create", owner_t, "olga")
    reader = admin(ostium_bin, server, "user", "create", reader_t, "rita", "--email", email)
    assert reader["email"] == email
    ok, rk = (admin(ostium_bin, server, "key", "create", *u) for u in ((owner_t, "olga"), (reader_t, "rita")))
    olga = server.client(access_key=ok["access_key"], secret_key=ok["secret_key"])
    rita = server.client(access_key=rk["access_key"], secret_key=rk["secret_key"])
    bucket = owner_t + "-shared"
    olga.create_bucket(Bucket=bucket, ObjectOwnership="ObjectWriter")
    olga.put_object(Bucket=bucket, Key="doc", Body=b"for rita")
    with pytest.raises(botocore.exceptions.ClientError) as e:
        rita.get_object(Bucket=bucket, Key="doc")
    assert code(e) == "AccessDenied"
    olga.put_object_acl(Bucket=bucket, Key="doc", GrantRead=f'emailAddress="{email.upper()}"')
    assert rita.get_object(Bucket=bucket, Key="doc")["Body"].read() == b"for rita"
    grants = olga.get_object_acl(Bucket=bucket, Key="doc")["Grants"]
    assert [g["Grantee"]["ID"] for g in grants] == [reader["canonical_id"]]


@pytest.mark.multinode  # a key rotated or revoked through one node is refused by every other
def test_key_rotation_with_the_cli(ostium_bin, server):
    """`key rotate TENANT USER` needs no key id while the user has one key:
    the new key works at once, the old one for the grace period only, and
    then gets InvalidAccessKeyId (AWS's answer for an inactive key)."""
    t = "k" + uuid.uuid4().hex[:10]
    admin(ostium_bin, server, "tenant", "create", t)
    admin(ostium_bin, server, "user", "create", t, "alice")
    old = admin(ostium_bin, server, "key", "create", t, "alice")
    bucket = t + "-keys"
    server.client(access_key=old["access_key"], secret_key=old["secret_key"]).create_bucket(Bucket=bucket)

    # 5 s of grace leave a slow machine time to check both keys first.
    new = admin(ostium_bin, server, "key", "rotate", t, "alice", "--grace", "5s")
    assert new["access_key"] != old["access_key"] and new["secret_key"] not in ("", old["secret_key"])
    for k in (old, new):  # both work during the grace period
        server.client(access_key=k["access_key"], secret_key=k["secret_key"]).head_bucket(Bucket=bucket)
    keys = {k["access_key"]: k for k in admin(ostium_bin, server, "key", "list", t, "alice")}
    assert "expires" in keys[old["access_key"]] and "expires" not in keys[new["access_key"]]
    assert all("secret_key" not in k for k in keys.values())  # secrets are shown once, at creation

    deadline = time.monotonic() + 20
    while True:  # the old key ends after the grace (and a node's key cache, 1 s at most)
        try:
            server.client(access_key=old["access_key"], secret_key=old["secret_key"]).head_bucket(Bucket=bucket)
        except botocore.exceptions.ClientError as e:
            assert e.response["Error"]["Code"] in ("403", "InvalidAccessKeyId")
            break
        assert time.monotonic() < deadline, "the rotated key still works long after its grace"
        time.sleep(0.2)
    server.client(access_key=new["access_key"], secret_key=new["secret_key"]).head_bucket(Bucket=bucket)

    # With two current keys the CLI asks which one; disable then names it.
    second = admin(ostium_bin, server, "key", "create", t, "alice")
    res = admin(ostium_bin, server, "key", "disable", t, "alice", check=False)
    assert res.returncode != 0 and "name one" in res.stderr
    assert admin(ostium_bin, server, "key", "disable", t, "alice", second["access_key"])["status"] == "disabled"
    admin(ostium_bin, server, "key", "delete", t, "alice", second["access_key"])
    assert admin(ostium_bin, server, "key", "delete", t, "alice") == {"deleted": True}
    # What is left is the rotated key, listed as expired until deleted.
    left = admin(ostium_bin, server, "key", "list", t, "alice")
    assert [(k["access_key"], k["status"]) for k in left] == [(old["access_key"], "expired")]


@pytest.mark.multinode  # the audit log gathers what every node did
def test_audit_log_with_the_cli(ostium_bin, server):
    """`admin audit` shows the calls just made (who, what, outcome),
    `--jsonl` streams them as JSON lines, `--from` bounds them, and a
    tenant admin reads its own tenant's entries only."""
    t = "a" + uuid.uuid4().hex[:10]
    admin(ostium_bin, server, "tenant", "create", t)
    admin(ostium_bin, server, "user", "create", t, "boss", "--role", "admin")
    boss = admin(ostium_bin, server, "key", "create", t, "boss")

    entries = admin(ostium_bin, server, "audit")
    made = [e for e in entries if e["action"] == "admin:CreateTenant" and e["outcome"] == "ok"]
    assert made and made[-1]["root"] and made[-1]["status"] == 201 and made[-1]["source"]

    env = dict(os.environ, OSTIUM_ENDPOINT=server.endpoint,
               OSTIUM_ROOT_ACCESS_KEY=server.access_key, OSTIUM_ROOT_SECRET_KEY=server.secret_key)
    out = subprocess.run([ostium_bin, "admin", "audit", "--jsonl", "--limit", "3"], env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 3 and all("action" in json.loads(line) for line in lines)
    future = str(int(time.time()) + 3600)
    assert admin(ostium_bin, server, "audit", "--from", future) == []

    as_boss = dict(env, OSTIUM_ROOT_ACCESS_KEY=boss["access_key"], OSTIUM_ROOT_SECRET_KEY=boss["secret_key"])
    # A refused call of the tenant admin's, then its view of the log.
    refused = subprocess.run([ostium_bin, "admin", "tenant", "list"], env=as_boss, capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0 and "AccessDenied" in refused.stderr
    mine = subprocess.run([ostium_bin, "admin", "--json", "audit"], env=as_boss, capture_output=True, text=True, timeout=60)
    assert mine.returncode == 0, mine.stderr
    mine = json.loads(mine.stdout)
    assert mine and all(e["tenant"] == t for e in mine)
    assert any(e["action"] == "admin:ListTenants" and e["outcome"] == "AccessDenied" for e in mine)
    other = subprocess.run([ostium_bin, "admin", "audit", "--tenant", "someone-else"], env=as_boss,
                           capture_output=True, text=True, timeout=60)
    assert other.returncode != 0 and "AccessDenied" in other.stderr
    admin(ostium_bin, server, "tenant", "delete", t)


def test_root_keys_with_the_cli(ostium_bin, tmp_path):
    """`admin root-key` lists, creates, rotates and revokes the provider's
    keys and refuses to revoke the last; a restart given another pair
    replaces the first, a start that fails (its port taken) changes
    nothing, and a start given none withdraws the pair."""
    import socket
    from test_first_start import stop
    from helpers import free_port

    data = str(tmp_path / "data")
    pairs = {n: ("ROOTKEY" + n * 13, "secret-" + n * 33) for n in "ABC"}

    def serve(pair, port):
        env = {k: v for k, v in os.environ.items() if not k.startswith("OSTIUM_")}
        if pair:
            env.update(OSTIUM_ROOT_ACCESS_KEY=pair[0], OSTIUM_ROOT_SECRET_KEY=pair[1])
        return subprocess.Popen([ostium_bin, "serve", "--listen", f"127.0.0.1:{port}", "--console-listen", "127.0.0.1:0",
                                 "--data", data],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def cli(port, pair, *args):
        env = dict(os.environ, OSTIUM_ENDPOINT=f"http://127.0.0.1:{port}",
                   OSTIUM_ROOT_ACCESS_KEY=pair[0], OSTIUM_ROOT_SECRET_KEY=pair[1])
        res = subprocess.run([ostium_bin, "admin", "--json", *args], env=env, capture_output=True, text=True, timeout=60)
        return res.returncode, (json.loads(res.stdout) if res.returncode == 0 and res.stdout.strip() else res.stderr)

    def started(pair):
        port = free_port()
        proc = serve(pair, port)
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                return proc, port
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, "ostium did not start"
                time.sleep(0.05)

    proc, port = started(pairs["A"])
    try:
        rc, keys = cli(port, pairs["A"], "root-key", "list")
        assert rc == 0 and [(k["access_key"], k["source"]) for k in keys] == [(pairs["A"][0], "env")]
        rc, made = cli(port, pairs["A"], "root-key", "create")
        assert rc == 0 and made["source"] == "api" and made["secret_key"]
        rc, new = cli(port, pairs["A"], "root-key", "rotate", made["access_key"], "--grace", "1s")
        assert rc == 0 and new["access_key"] != made["access_key"]
        rc, gone = cli(port, pairs["A"], "root-key", "revoke", new["access_key"])
        assert rc == 0 and gone["status"] == "disabled"
        assert cli(port, (new["access_key"], new["secret_key"]), "root-key", "list")[0] != 0
        time.sleep(1.2)  # the rotated key's grace ends: A is the last active key
        rc, err = cli(port, pairs["A"], "root-key", "revoke", pairs["A"][0])
        assert rc != 0 and "LastRootKey" in err
    finally:
        stop(proc)

    proc, port = started(pairs["B"])
    try:
        rc, keys = cli(port, pairs["B"], "root-key", "list")
        assert rc == 0
        by_key = {k["access_key"]: k for k in keys}
        assert pairs["A"][0] not in by_key and by_key[pairs["B"][0]]["source"] == "env"
        assert made["access_key"] in by_key  # the API's keys stay
        assert cli(port, pairs["A"], "root-key", "list")[0] != 0
    finally:
        stop(proc)

    # A start given pair C whose port is taken fails, and changes nothing.
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        failed = serve(pairs["C"], taken.getsockname()[1])
        assert failed.wait(timeout=30) != 0
    finally:
        taken.close()
    proc, port = started(pairs["B"])
    try:
        assert cli(port, pairs["B"], "root-key", "list")[0] == 0
        assert cli(port, pairs["C"], "root-key", "list")[0] != 0
    finally:
        stop(proc)

    # A start given no pair withdraws B; with no other key that signs (the
    # API's were revoked or rotated away), one is generated and printed.
    proc, port = started(None)
    out = stop(proc)
    gen = re.search(r"OSTIUM_ROOT_ACCESS_KEY=(\S+)\n\s*OSTIUM_ROOT_SECRET_KEY=(\S+)", out)
    assert gen, out
    proc, port = started(None)
    try:
        assert cli(port, pairs["B"], "root-key", "list")[0] != 0
        rc, keys = cli(port, gen.groups(), "root-key", "list")
        assert rc == 0 and pairs["B"][0] not in {k["access_key"] for k in keys}
    finally:
        stop(proc)
