package failover

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/testenv"
)

// haproxy runs HAProxy in front of the nodes as deploy/haproxy.cfg does
// (readiness checks, and deploy/haproxy-503.http when no node is ready)
// and returns its URL.
func haproxy(t *testing.T, nodes ...*nodetest.Server) string {
	t.Helper()
	bin, err := exec.LookPath("haproxy")
	if err != nil {
		if bin, err = exec.LookPath("/usr/sbin/haproxy"); err != nil {
			t.Skip("haproxy is not installed")
		}
	}
	errorfile, err := filepath.Abs("../../deploy/haproxy-503.http")
	if err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	cfg := fmt.Sprintf(`global
    maxconn 512
defaults
    mode http
    timeout connect 2s
    timeout client 30s
    timeout server 30s
frontend s3
    bind 127.0.0.1:%d
    default_backend ostium
backend ostium
    balance roundrobin
    option httpchk GET /health/ready
    http-check expect status 200
    errorfile 503 %s
    default-server inter 300ms fall 2 rise 2
`, port, errorfile)
	for i, n := range nodes {
		cfg += fmt.Sprintf("    server n%d %s check\n", i, n.Listener.Addr())
	}
	path := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-db", "-f", path)
	if out, err := exec.Command(bin, "-c", "-f", path).CombinedOutput(); err != nil {
		t.Fatalf("haproxy -c: %v\n%s", err, out)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	for deadline := time.Now().Add(15 * time.Second); ready(url) != http.StatusOK; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("haproxy did not come up with ready nodes")
		}
	}
	return url
}

// Three nodes on one PostgreSQL behind HAProxy, under a steady load of
// writes through it; PostgreSQL is killed and started again. Every node's
// readiness fails, HAProxy answers for them with S3's 503 and
// Retry-After, and takes them back when their catalog is: clients meet
// 200s and retryable 503s only, and every acknowledged write is there.
func TestCatalogLostBehindHAProxy(t *testing.T) {
	pg := testenv.PrivatePostgres(t)
	on := nodetest.Options{Config: func(c *node.Config) { c.Catalog = pg.URL() }}
	first := nodetest.Start(t, on)
	nodes := []*nodetest.Server{first, nodetest.StartPeer(t, first, on), nodetest.StartPeer(t, first, on)}
	url := haproxy(t, nodes...)
	l := startLoad(t, url)
	pg.Kill()
	for deadline := time.Now().Add(10 * time.Second); ready(url) != http.StatusServiceUnavailable; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("HAProxy kept nodes whose catalog is down")
		}
	}
	pg.Start()
	back := time.Now()
	recovered := l.serving(t, back, 10*time.Second)
	l.finish(t)
	t.Logf("answers %v, %d writes acknowledged and read back, serving %v after the catalog's return",
		l.seen.counts(), len(l.acked), recovered.Round(time.Millisecond))
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
