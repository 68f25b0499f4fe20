"""MinIO's directory sign-in with MinIO's own Python SDK: minio-py's
LdapIdentityProvider trades a tenant's directory user and password
("TENANT\\login") for temporary credentials through
AssumeRoleWithLDAPIdentity, and the Minio client writes and reads with
them; a wrong password gets nothing. The directory is an OpenLDAP slapd
of the test's own, on loopback."""

import os
import shutil
import socket
import subprocess
import time
import uuid

import pytest
from minio import Minio
from minio.credentials import LdapIdentityProvider

from helpers import free_port
from test_sts import admin

SLAPD = "/usr/sbin/slapd"
BASE = "dc=example,dc=org"
PEOPLE = "ou=people," + BASE
GROUPS = "ou=groups," + BASE
PASSWORD = "user-secret"

TREE = f"""dn: {BASE}
objectClass: dcObject
objectClass: organization
dc: example
o: Example

dn: cn=reader,{BASE}
objectClass: simpleSecurityObject
objectClass: organizationalRole
cn: reader
userPassword: reader-secret

dn: {PEOPLE}
objectClass: organizationalUnit
ou: people

dn: {GROUPS}
objectClass: organizationalUnit
ou: groups

dn: uid=bob,{PEOPLE}
objectClass: inetOrgPerson
uid: bob
cn: Bob Brown
sn: Brown
mail: bob@example.org
userPassword: {PASSWORD}

dn: cn=storage-users,{GROUPS}
objectClass: groupOfNames
cn: storage-users
member: uid=bob,{PEOPLE}
"""


@pytest.fixture
def slapd(tmp_path):
    if not os.path.exists(SLAPD):
        if os.environ.get("OSTIUM_TEST_SLAPD"):
            pytest.fail("slapd is not installed (apt-get install slapd)")
        pytest.skip("slapd is not installed (apt-get install slapd)")
    (tmp_path / "data").mkdir()
    (tmp_path / "tree.ldif").write_text(TREE)
    conf = tmp_path / "slapd.conf"
    conf.write_text(f"""include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
modulepath /usr/lib/ldap
moduleload back_mdb
pidfile {tmp_path}/slapd.pid
argsfile {tmp_path}/slapd.args
database mdb
maxsize 67108864
suffix "{BASE}"
rootdn "cn=admin,{BASE}"
rootpw admin-secret
directory {tmp_path}/data
access to attrs=userPassword by self write by anonymous auth by * none
access to * by * read
""")
    subprocess.run(["/usr/sbin/slapadd", "-f", str(conf), "-l", str(tmp_path / "tree.ldif")],
                   check=True, capture_output=True, timeout=60)
    port = free_port()
    url = f"ldap://127.0.0.1:{port}"
    proc = subprocess.Popen([SLAPD, "-f", str(conf), "-h", url + "/", "-d", "0"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert proc.poll() is None, "slapd exited"
                assert time.time() < deadline, "slapd did not start"
                time.sleep(0.05)
        yield url
    finally:
        proc.kill()
        proc.wait()


def test_minio_py_ldap_identity(ostium_bin, server, slapd, tmp_path):
    t = "t" + uuid.uuid4().hex[:10]
    admin(ostium_bin, server, "tenant", "create", t)
    pw = tmp_path / "bind.pass"
    pw.write_text("reader-secret\n")
    # Plain LDAP on loopback, which the provider (root) may allow.
    admin(ostium_bin, server, "directory", "put", t, "--url", slapd, "--allow-plain",
          "--bind-dn", "cn=reader," + BASE, "--bind-password-file", str(pw),
          "--user-base", PEOPLE, "--group-base", GROUPS, "--user-groups", "storage-users")

    provider = LdapIdentityProvider(server.endpoint, t.upper() + "\\bob", PASSWORD, duration_seconds=900)
    creds = provider.retrieve()
    assert creds.access_key.startswith("ASIA") and creds.session_token
    client = Minio(server.endpoint.split("://", 1)[1], credentials=provider, secure=False, region=server.region)
    bucket = t + "-bob"
    client.make_bucket(bucket)
    from io import BytesIO
    client.put_object(bucket, "hello.txt", BytesIO(b"hello"), 5)
    assert client.get_object(bucket, "hello.txt").read() == b"hello"
    assert bucket in [b.name for b in client.list_buckets()]
    # The bucket is the directory user's: its Ostium user owns it.
    users = admin(ostium_bin, server, "user", "list", t)
    assert any(u.get("name") == "bob" for u in users), users

    with pytest.raises(ValueError, match="403"):
        LdapIdentityProvider(server.endpoint, t + "\\bob", "wrong").retrieve()
    with pytest.raises(ValueError, match="403"):
        LdapIdentityProvider(server.endpoint, "nosuch\\bob", PASSWORD).retrieve()
    client.remove_object(bucket, "hello.txt")
    client.remove_bucket(bucket)
