package kmstest

import (
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
	"syscall"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/kms"
)

// PyKMIPServer finds the PyKMIP server: $OSTIUM_PYKMIP_SERVER, else
// ~/.cache/ostium-ci/pykmip/bin/pykmip-server (where .ci/run installs
// it), else pykmip-server on PATH; "" if none.
func PyKMIPServer() string {
	if p := os.Getenv("OSTIUM_PYKMIP_SERVER"); p != "" {
		return p
	}
	if home, err := os.UserHomeDir(); err == nil {
		p := filepath.Join(home, ".cache", "ostium-ci", "pykmip", "bin", "pykmip-server")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("pykmip-server"); err == nil {
		return p
	}
	return ""
}

// KMIPServer is a real PyKMIP server a test started, on loopback with a
// CA, server and client certificates of its own.
type KMIPServer struct {
	Config kms.KMIPConfig // how a client reaches it
	t      *testing.T
	bin    string
	dir    string
	conf   string
	log    string
	cmd    *exec.Cmd
	exited chan struct{} // closed when cmd has exited
}

// StartKMIP starts a PyKMIP server for the test, stopped when it ends.
// Without the server the test is skipped, unless OSTIUM_REQUIRE_KMS is
// set (as CI sets it), when it fails.
func StartKMIP(t *testing.T) *KMIPServer {
	t.Helper()
	bin := PyKMIPServer()
	if bin == "" {
		if os.Getenv("OSTIUM_REQUIRE_KMS") != "" {
			t.Fatal("OSTIUM_REQUIRE_KMS is set and no PyKMIP server is installed (.ci/run installs it into ~/.cache/ostium-ci/pykmip)")
		}
		t.Skip("no PyKMIP server (pip install pykmip==0.11.0, or run .ci/run): the KMIP tests need a real one")
	}
	dir := t.TempDir()
	ca, caKey := newCert(t, dir, "ca", nil, nil)
	newCert(t, dir, "server", ca, caKey)
	newCert(t, dir, "client", ca, caKey)
	s := &KMIPServer{t: t, bin: bin, dir: dir, conf: filepath.Join(dir, "server.conf"), log: filepath.Join(dir, "server.log"),
		Config: kms.KMIPConfig{CAFile: filepath.Join(dir, "ca.crt"), CertFile: filepath.Join(dir, "client.crt"),
			KeyFile: filepath.Join(dir, "client.key"), Timeout: 2 * time.Second}}
	t.Cleanup(s.Stop)
	// A free port, as far as one can tell before the server binds it:
	// another process may take it meanwhile, when the server exits and
	// another port is tried.
	for attempt := 1; ; attempt++ {
		s.pickPort()
		err := s.start()
		if err == nil {
			return s
		}
		if attempt == 3 {
			t.Fatal(err)
		}
		t.Logf("PyKMIP server, attempt %d: %v", attempt, err)
	}
}

func (s *KMIPServer) pickPort() {
	s.t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.t.Fatal(err)
	}
	s.Config.Address = l.Addr().String()
	l.Close()
	host, port, _ := net.SplitHostPort(s.Config.Address)
	conf := fmt.Sprintf(`[server]
hostname=%s
port=%s
certificate_path=%s
key_path=%s
ca_path=%s
auth_suite=TLS1.2
enable_tls_client_auth=True
database_path=%s
policy_path=%s
logging_level=INFO
`, host, port, filepath.Join(s.dir, "server.crt"), filepath.Join(s.dir, "server.key"), filepath.Join(s.dir, "ca.crt"),
		filepath.Join(s.dir, "pykmip.db"), s.dir)
	if err := os.WriteFile(s.conf, []byte(conf), 0o600); err != nil {
		s.t.Fatal(err)
	}
}

// Start starts the server again, on the same address and database, and
// waits until it accepts connections.
func (s *KMIPServer) Start() {
	s.t.Helper()
	if err := s.start(); err != nil {
		s.t.Fatal(err)
	}
}

func (s *KMIPServer) start() error {
	out, err := os.OpenFile(s.log+".out", os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer out.Close()
	s.cmd = exec.Command(s.bin, "-f", s.conf, "-l", s.log)
	s.cmd.Stdout, s.cmd.Stderr = out, out
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", s.bin, err)
	}
	exited := make(chan struct{})
	s.exited = exited
	go func(cmd *exec.Cmd) { cmd.Wait(); close(exited) }(s.cmd)
	tlsConf, err := s.clientTLS()
	if err != nil {
		s.Stop()
		return err
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-exited:
			b, _ := os.ReadFile(s.log + ".out")
			s.cmd = nil
			return fmt.Errorf("PyKMIP server exited (its port %s taken?):\n%s", s.Config.Address, b)
		default:
		}
		// A TLS handshake with the server's CA, not a bare connect: the
		// listener on the port may be another process's that took it
		// first (the server then exits, and another port is tried).
		c, err := tls.DialWithDialer(&net.Dialer{Timeout: time.Second}, "tcp", s.Config.Address, tlsConf)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(s.log + ".out")
			s.Stop()
			return fmt.Errorf("PyKMIP server did not listen on %s within a minute: %v\n%s", s.Config.Address, err, b)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// clientTLS is the TLS config of a client of the server: its CA, and the
// client certificate it requires.
func (s *KMIPServer) clientTLS() (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(s.Config.CertFile, s.Config.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("kmstest: client certificate: %w", err)
	}
	caPEM, err := os.ReadFile(s.Config.CAFile)
	if err != nil {
		return nil, fmt.Errorf("kmstest: CA: %w", err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	host, _, _ := net.SplitHostPort(s.Config.Address)
	return &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}, ServerName: host}, nil
}

// Stop kills the server (as a crash would) and waits for it.
func (s *KMIPServer) Stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGCONT) // a paused server dies too
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	<-s.exited
	s.cmd = nil
}

// Pause freezes the server (SIGSTOP): it accepts connections, in the
// kernel, and answers nothing, as a hung KMS does. Resume thaws it.
func (s *KMIPServer) Pause() {
	s.t.Helper()
	if err := syscall.Kill(-s.cmd.Process.Pid, syscall.SIGSTOP); err != nil {
		s.t.Fatalf("pause the KMIP server: %v", err)
	}
	// The stop is delivered asynchronously: wait until it took hold, or
	// the server may still answer the first calls.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
		if _, rest, ok := strings.Cut(string(st), ") "); err == nil && ok && strings.HasPrefix(rest, "T") {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the KMIP server did not stop: %s %v", st, err)
		}
	}
}
func (s *KMIPServer) Resume() { syscall.Kill(-s.cmd.Process.Pid, syscall.SIGCONT) }

// newCert writes dir/name.crt and dir/name.key: a CA when parent is nil,
// else a certificate it signs for loopback, for server and client use.
func newCert(t *testing.T, dir, name string, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour)}
	if parent == nil {
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature
		parent, parentKey = tmpl, key
	} else {
		tmpl.KeyUsage = x509.KeyUsageDigitalSignature | x509.KeyUsageKeyAgreement
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}
		tmpl.DNSNames, tmpl.IPAddresses = []string{"localhost"}, []net.IP{net.IPv4(127, 0, 0, 1)}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}
