package nodetest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/testenv"
)

// CA is a private certificate authority for tests: clients trust Pool,
// servers get certificates it issues.
type CA struct {
	Cert *x509.Certificate
	Pool *x509.CertPool
	key  *ecdsa.PrivateKey
	der  []byte
}

// NewCA makes a fresh CA.
func NewCA(t testing.TB) *CA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "Ostium test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &CA{Cert: cert, Pool: pool, key: key, der: der}
}

// Issue writes a server certificate for 127.0.0.1 and localhost, with
// serial as its serial number, to certFile and keyFile (PEM), replacing
// them by rename as certbot does, so a reader never sees half a file.
func (ca *CA) Issue(t testing.TB, serial int64, certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial),
		Subject:      pkix.Name{CommonName: "localhost"},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	WriteFile(t, keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kb}))
	WriteFile(t, certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// PEM is the CA's certificate, for clients that read a CA file.
func (ca *CA) PEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.der})
}

// WriteFile replaces path with data (mode 0600) by rename.
func WriteFile(t testing.TB, path string, data []byte) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// HTTPSServer is a node serving HTTPS the way `ostium serve --tls-listen`
// does: node.Listen's listener, a certificate from a private CA in files,
// reloaded by node.CertReloader.Run.
type HTTPSServer struct {
	URL               string // https://127.0.0.1:port
	ConsoleURL        string // the console's listener, HTTPS with the same certificate
	Node              *node.Node
	Listeners         *node.Listeners
	CA                *CA
	CertFile, KeyFile string
	Dir               string
	// HUP is what Run reloads on: send to it, or signal.Notify it.
	HUP chan os.Signal
}

// StartHTTPS runs a node over HTTPS (serial 1 is its first certificate)
// until the test ends; Run looks at the certificate files every poll.
func StartHTTPS(t testing.TB, opt Options, poll time.Duration) *HTTPSServer {
	t.Helper()
	dir := privateDir(t)
	s := &HTTPSServer{CA: NewCA(t), Dir: dir, HUP: make(chan os.Signal, 1),
		CertFile: filepath.Join(t.TempDir(), "cert.pem"), KeyFile: filepath.Join(t.TempDir(), "key.pem")}
	s.CA.Issue(t, 1, s.CertFile, s.KeyFile)
	cfg := node.Config{
		DataDir: dir, ConfigDir: privateDir(t), Catalog: testenv.CatalogURL(t), Domains: opt.Domains,
		RootAccessKey: AccessKey, RootSecretKey: SecretKey,
		TLSListen: "127.0.0.1:0", TLSCert: s.CertFile, TLSKey: s.KeyFile,
		ConsoleListen: "127.0.0.1:0",
	}
	if opt.Config != nil {
		opt.Config(&cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n, err := node.Open(ctx, cfg)
	if err != nil {
		cancel()
		t.Fatalf("open node: %v", err)
	}
	lns, err := node.Listen(ctx, cfg)
	if err != nil {
		cancel()
		n.Close()
		t.Fatalf("listen: %v", err)
	}
	s.Node, s.Listeners, s.URL = n, lns, "https://"+lns.HTTPS.Addr().String()
	srv := &http.Server{Handler: n.Handler, ReadHeaderTimeout: 30 * time.Second}
	consoleSrv := &http.Server{Handler: n.Console, ReadHeaderTimeout: 30 * time.Second}
	done := make(chan struct{}, 3)
	go func() { srv.Serve(lns.HTTPS); done <- struct{}{} }()
	go func() { lns.Certs.Run(ctx, poll, s.HUP); done <- struct{}{} }()
	waits := 2
	if lns.Console != nil {
		s.ConsoleURL, waits = "https://"+lns.Console.Addr().String(), 3
		go func() { consoleSrv.Serve(lns.Console); done <- struct{}{} }()
	}
	t.Cleanup(func() {
		cancel()
		srv.Close()
		consoleSrv.Close()
		for range waits {
			<-done
		}
		lns.Close()
		n.Close()
	})
	return s
}

// Client is an HTTP client trusting the server's CA, with its own
// connection pool.
func (s *HTTPSServer) Client() *http.Client {
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: s.CA.Pool}}, Timeout: 30 * time.Second}
}
