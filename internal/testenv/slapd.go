package testenv

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-ldap/ldap/v3"
)

// The tree every test slapd starts with (SlapdTree): people under
// ou=people, groups under ou=groups, a reader account for the service
// bind, and a user marked disabled (employeeType: disabled).
const (
	SlapdBase        = "dc=example,dc=org"
	SlapdAdminDN     = "cn=admin," + SlapdBase
	SlapdAdminPass   = "admin-secret"
	SlapdReaderDN    = "cn=reader," + SlapdBase
	SlapdReaderPass  = "reader-secret"
	SlapdPeople      = "ou=people," + SlapdBase
	SlapdGroups      = "ou=groups," + SlapdBase
	SlapdUserPass    = "user-secret" // every user's password
	SlapdAdminsGroup = "ostium-admins"
	SlapdUsersGroup  = "ostium-users"
)

// SlapdTree is the LDIF of the starting tree: alice (in ostium-admins),
// bob and carol (in ostium-users), dave (in ostium-users, disabled) and
// erin (in no group).
var SlapdTree = `dn: ` + SlapdBase + `
objectClass: dcObject
objectClass: organization
dc: example
o: Example

dn: ` + SlapdReaderDN + `
objectClass: simpleSecurityObject
objectClass: organizationalRole
cn: reader
userPassword: ` + SlapdReaderPass + `

dn: ` + SlapdPeople + `
objectClass: organizationalUnit
ou: people

dn: ` + SlapdGroups + `
objectClass: organizationalUnit
ou: groups
` + slapdUser("alice", "Alice Adams", "") + slapdUser("bob", "Bob Brown", "") + slapdUser("carol", "Carol Clark", "") +
	slapdUser("dave", "Dave Dunn", "disabled") + slapdUser("erin", "Erin Evans", "") + `
dn: cn=` + SlapdAdminsGroup + `,` + SlapdGroups + `
objectClass: groupOfNames
cn: ` + SlapdAdminsGroup + `
member: uid=alice,` + SlapdPeople + `

dn: cn=` + SlapdUsersGroup + `,` + SlapdGroups + `
objectClass: groupOfNames
cn: ` + SlapdUsersGroup + `
member: uid=bob,` + SlapdPeople + `
member: uid=carol,` + SlapdPeople + `
member: uid=dave,` + SlapdPeople + `
`

func slapdUser(uid, name, employeeType string) string {
	s := fmt.Sprintf(`
dn: uid=%s,%s
objectClass: inetOrgPerson
uid: %s
cn: %s
sn: %s
displayName: %s
mail: %s@example.org
userPassword: %s
`, uid, SlapdPeople, uid, name, strings.Fields(name)[1], name, uid, SlapdUserPass)
	if employeeType != "" {
		s += "employeeType: " + employeeType + "\n"
	}
	return s
}

// Slapd is an OpenLDAP server of a test's own on loopback: LDAPS on one
// port, LDAP (with StartTLS) on another, under a certificate for
// 127.0.0.1 and localhost signed by a CA the test made (CA, PEM).
type Slapd struct {
	LDAPS, LDAP string // ldaps://127.0.0.1:port, ldap://127.0.0.1:port
	CA          string
	t           testing.TB
	cmd         *exec.Cmd
}

// StartSlapd starts slapd (Debian's slapd package) with a generated
// config (mdb backend in a temporary directory) and SlapdTree, stopped
// when the test ends. Skipped where slapd is not installed, unless
// OSTIUM_TEST_SLAPD says it must be (CI): then it fails.
func StartSlapd(t testing.TB) *Slapd {
	t.Helper()
	bin := "/usr/sbin/slapd"
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("OSTIUM_TEST_SLAPD") != "" {
			t.Fatal("slapd is not installed (apt-get install slapd ldap-utils), and OSTIUM_TEST_SLAPD says the directory tests must run")
		}
		t.Skip("slapd is not installed (apt-get install slapd ldap-utils); set OSTIUM_TEST_SLAPD to make this a failure")
	}
	dir := t.TempDir()
	ca, cert, key := slapdCerts(t)
	for name, b := range map[string][]byte{"ca.pem": ca, "cert.pem": cert, "key.pem": key, "tree.ldif": []byte(SlapdTree)} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "data"), 0o700); err != nil {
		t.Fatal(err)
	}
	conf := fmt.Sprintf(`include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
include /etc/ldap/schema/nis.schema
modulepath /usr/lib/ldap
moduleload back_mdb
pidfile %[1]s/slapd.pid
argsfile %[1]s/slapd.args
TLSCACertificateFile %[1]s/ca.pem
TLSCertificateFile %[1]s/cert.pem
TLSCertificateKeyFile %[1]s/key.pem
database mdb
maxsize 67108864
suffix "%[2]s"
rootdn "%[3]s"
rootpw %[4]s
directory %[1]s/data
index objectClass eq
index uid eq
index member eq
index entryUUID eq
access to attrs=userPassword by self write by anonymous auth by * none
access to * by * read
`, dir, SlapdBase, SlapdAdminDN, SlapdAdminPass)
	confPath := filepath.Join(dir, "slapd.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("/usr/sbin/slapadd", "-f", confPath, "-l", filepath.Join(dir, "tree.ldif")).CombinedOutput(); err != nil {
		t.Fatalf("slapadd: %v\n%s", err, out)
	}
	s := &Slapd{t: t, CA: string(ca)}
	ldapPort, ldapsPort := freePort(t), freePort(t)
	s.LDAP, s.LDAPS = fmt.Sprintf("ldap://127.0.0.1:%d", ldapPort), fmt.Sprintf("ldaps://127.0.0.1:%d", ldapsPort)
	var log bytes.Buffer
	// -d 0: in the foreground, no debug output.
	s.cmd = exec.Command(bin, "-f", confPath, "-h", s.LDAP+"/ "+s.LDAPS+"/", "-d", "0")
	s.cmd.Stdout, s.cmd.Stderr = &log, &log
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	t.Cleanup(func() { s.cmd.Process.Kill(); <-done })
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		select {
		case <-done:
			t.Fatalf("slapd exited: %s", log.String())
		default:
		}
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", ldapsPort)); err == nil {
			c.Close()
			if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", ldapPort)); err == nil {
				c.Close()
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("slapd did not start: %s", log.String())
		}
	}
	return s
}

// Admin runs fn on a connection bound as the tree's root (to change the
// tree under a test).
func (s *Slapd) Admin(fn func(c *ldap.Conn) error) {
	s.t.Helper()
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM([]byte(s.CA))
	c, err := ldap.DialURL(s.LDAPS, ldap.DialWithTLSConfig(&tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}))
	if err != nil {
		s.t.Fatal(err)
	}
	defer c.Close()
	if err := c.Bind(SlapdAdminDN, SlapdAdminPass); err != nil {
		s.t.Fatal(err)
	}
	if err := fn(c); err != nil {
		s.t.Fatal(err)
	}
}

// Stop kills the server (a dead directory).
func (s *Slapd) Stop() { s.cmd.Process.Kill() }

// slapdCerts makes a CA and a server certificate for 127.0.0.1 and
// localhost, as PEM.
func slapdCerts(t testing.TB) (caPEM, certPEM, keyPEM []byte) {
	t.Helper()
	caPEM, caCert, caKey := NewCA(t, "ostium test directory CA")
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return caPEM, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kb})
}

// NewCA makes a certificate authority: its certificate as PEM and
// parsed, and its key.
func NewCA(t testing.TB, name string) ([]byte, *x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), cert, key
}
