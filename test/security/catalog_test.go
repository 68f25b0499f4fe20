package security_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// catalogPool is the catalog pool of the node under test: small, so that
// a handful of clients is already more than it holds.
const catalogPool = 4

// A node whose every catalog connection is held by a write transaction
// still finishes them all: no write waits for a second pool connection.
// Reported on PostgreSQL: a fresh node sent 32 concurrent PUTs to a new
// bucket completed none (each transaction held a connection and waited for
// another to prepare a statement). Run on both catalogs; the deadline
// turns a hang into a failure.
func TestConcurrentWritesNeverWaitForASecondConnection(t *testing.T) {
	srv := start(t, nodetest.Options{Config: func(c *node.Config) { c.CatalogConns = catalogPool }})
	if st, b := do(t, srv, signed(t, srv, rootCreds, "PUT", "/fresh", nil, nil)); st != 200 {
		t.Fatalf("create bucket: %d %s", st, b)
	}
	burst(t, srv, "cold", 4*catalogPool)

	// A bucket setting advances the identity generation: every node drops
	// its caches, and the next writes find them cold.
	own := []byte(`<OwnershipControls><Rule><ObjectOwnership>BucketOwnerEnforced</ObjectOwnership></Rule></OwnershipControls>`)
	if st, b := do(t, srv, signed(t, srv, rootCreds, "PUT", "/fresh?ownershipControls", own, nil)); st != 200 {
		t.Fatalf("set ownership: %d %s", st, b)
	}
	burst(t, srv, "after-invalidation", 4*catalogPool)
}

// burst sends n concurrent 16-byte PUTs and fails unless every one is
// answered 200 within 30 s.
func burst(t *testing.T, srv *nodetest.Server, name string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := signed(t, srv, rootCreds, "PUT", fmt.Sprintf("/fresh/%s/%d", name, i), []byte("sixteen bytes..."), nil)
			resp, err := srv.Client().Do(req.WithContext(ctx))
			if err != nil {
				errs <- fmt.Errorf("PUT %d: %w", i, err)
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK {
				errs <- fmt.Errorf("PUT %d: %d %s", i, resp.StatusCode, b)
			}
		}()
	}
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if failed++; failed <= 3 {
			t.Error(err)
		}
	}
	if failed > 0 {
		t.Fatalf("%s: %d of %d concurrent PUTs failed (a pool of %d)", name, failed, n, catalogPool)
	}
}
