// Package nodetest starts a real Ostium node on a loopback port for tests.
package nodetest

import (
	"context"
	"net/http/httptest"
	"os"
	"sync"
	"testing"

	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/testenv"
)

// Root credentials of every test node.
const (
	AccessKey = "OSTIUMTESTROOTKEY000"
	SecretKey = "ostium-test-root-secret-key-0123456789ab"
)

// Server is a node serving HTTP (or HTTPS) on loopback: S3 (and the
// admin API) on Server, the console on a listener of its own, Console.
type Server struct {
	*httptest.Server
	// Console serves the console alone, as console_listen does; its
	// Client trusts the same test certificate as Server's.
	Console *httptest.Server
	Node    *node.Node
	Dir     string
	Catalog string // the catalog URL; "" = SQLite in Dir
	// ConfigDir is the node's user configuration directory, where its
	// node key is made: the test's own, never the real user's.
	ConfigDir string
	stop      sync.Once
}

// Stop stops the server and closes the node (as the test's end does),
// so that a test can look at or copy its data at rest.
func (s *Server) Stop() {
	s.stop.Do(func() {
		s.Server.Close()
		s.Console.Close()
		s.Node.Close()
	})
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
	return start(t, opt, privateDir(t), privateDir(t), testenv.CatalogURL(t))
}

// privateDir is a fresh 0700 directory: a node would make t.TempDir's
// 0755 so itself, and say so in every test's log.
func privateDir(t testing.TB) string {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// StartPeer runs a second node sharing first's catalog, node key and
// blobs, as nodes behind one load balancer do.
func StartPeer(t testing.TB, first *Server, opt Options) *Server {
	t.Helper()
	if first.ConfigDir == "" {
		t.Fatal("nodetest: StartPeer of a node without its ConfigDir (its node key's directory)")
	}
	return start(t, opt, first.Dir, first.ConfigDir, first.Catalog)
}

func start(t testing.TB, opt Options, dir, configDir, catalogURL string) *Server {
	t.Helper()
	cfg := node.Config{
		DataDir: dir, ConfigDir: configDir, Catalog: catalogURL, Domains: opt.Domains,
		RootAccessKey: AccessKey, RootSecretKey: SecretKey,
	}
	// The sockets first: the console's share links name S3's.
	s := &Server{Dir: dir, Catalog: catalogURL, Server: httptest.NewUnstartedServer(nil), Console: httptest.NewUnstartedServer(nil)}
	scheme := "http"
	if opt.TLS {
		scheme = "https"
	}
	cfg.ConsoleS3URL = scheme + "://" + s.Server.Listener.Addr().String()
	if opt.Config != nil {
		opt.Config(&cfg)
	}
	n, err := node.Open(context.Background(), cfg)
	if err != nil {
		s.Server.Close()
		s.Console.Close()
		t.Fatalf("open node: %v", err)
	}
	s.Node, s.ConfigDir = n, cfg.ConfigDir
	// The node's own servers, so that tests meet its timeouts.
	s.Server.Config, s.Console.Config = n.HTTPServer(), n.ConsoleServer()
	for _, hs := range []*httptest.Server{s.Server, s.Console} {
		if opt.TLS {
			// The versions and suites `serve` offers; httptest adds its
			// certificate and trusts it in Client.
			hs.TLS = node.TLSConfig(nil)
			hs.StartTLS()
		} else {
			hs.Start()
		}
	}
	t.Cleanup(s.Stop)
	return s
}
