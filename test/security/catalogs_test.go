package security_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// Subscribers of a published content library are anonymous: their
// downloads take the anonymous share of the request slots. Stalled
// downloads (a subscriber that stops reading a large VMDK) fill that
// share; the next subscriber is told to retry (503, Retry-After) and a
// tenant's signed GET is served at once.
func TestLibrarySubscribersCannotStarveTenant(t *testing.T) {
	srv := start(t, nodetest.Options{Config: func(c *node.Config) { c.MaxRequests = 20 }}) // anonymous: 2 slots
	u := tenantWithObject(t, srv, "acme")
	big := bytes.Repeat([]byte("0123456789abcdef"), 2<<20) // 32 MiB: more than loopback's socket buffers hold
	if st, b := do(t, srv, signed(t, srv, u, "PUT", "/acme-data/disks/disk.vmdk", big, nil)); st != 200 {
		t.Fatalf("put: %d %s", st, b)
	}
	a := admin.NewClient(srv.URL, u.AccessKey, u.SecretKey, srv.Client())
	if err := a.Do(context.Background(), "PUT", "/tenants/acme/catalogs/lib", admin.CatalogInput{Bucket: "acme-data"}, nil); err != nil {
		t.Fatal(err)
	}
	const file = "/catalogs/acme/lib/disks/disk.vmdk"
	var conns []net.Conn
	for range 2 {
		conn := dial(t, srv)
		fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", file, srv.Listener.Addr())
		conns = append(conns, conn) // never read
	}
	waitLoad(t, srv, 2)
	resp, err := srv.Client().Get(srv.URL + file)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(b), "SlowDown") {
		t.Fatalf("a third subscriber with the anonymous share full: %d %q %s, want 503 SlowDown with Retry-After",
			resp.StatusCode, resp.Header.Get("Retry-After"), b)
	}
	start := time.Now()
	if st, b := do(t, srv, signed(t, srv, u, "GET", "/acme-data/k", nil, nil)); st != 200 || string(b) != "hello" {
		t.Fatalf("tenant GET under stalled subscribers: %d %s", st, b)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("tenant GET took %v under stalled subscribers", d)
	}
	for _, c := range conns {
		c.Close()
	}
	waitLoad(t, srv, 0)
	resp, err = srv.Client().Get(srv.URL + file)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || n != int64(len(big)) {
		t.Fatalf("after the stalled subscribers left: %d, %d bytes", resp.StatusCode, n)
	}
}
