// Package nodetest starts a real Ostium node on a loopback port for tests.
package nodetest

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/testenv"
)

// Root credentials of every test node.
const (
	AccessKey = "OSTIUMTESTROOTKEY000"
	SecretKey = "ostium-test-root-secret-key-0123456789ab"
)

// Server is a node serving HTTP (or HTTPS) on loopback.
type Server struct {
	*httptest.Server
	Node *node.Node
	Dir  string
}

// Options adjust a test node.
type Options struct {
	TLS     bool
	Domains []string
	Config  func(*node.Config)
}

// Start runs a node until the test ends. Its catalog follows testenv.
func Start(t testing.TB, opt Options) *Server {
	t.Helper()
	dir := t.TempDir()
	cfg := node.Config{
		DataDir: dir, Catalog: testenv.CatalogURL(t), Domains: opt.Domains,
		RootAccessKey: AccessKey, RootSecretKey: SecretKey,
	}
	if opt.Config != nil {
		opt.Config(&cfg)
	}
	n, err := node.Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("open node: %v", err)
	}
	s := &Server{Node: n, Dir: dir}
	if opt.TLS {
		s.Server = httptest.NewTLSServer(n.Handler)
	} else {
		s.Server = httptest.NewServer(n.Handler)
	}
	t.Cleanup(func() {
		s.Server.Close()
		n.Close()
	})
	return s
}
