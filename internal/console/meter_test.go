package console_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// TestConsoleTrafficIsBilled: what the console moves in and out of a
// bucket is billed as the same requests through S3 would be, so a tenant
// cannot move data unbilled through the other door.
func TestConsoleTrafficIsBilled(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	c := tenantAdmin(t, srv)
	c.Must(201, "POST", "/buckets", map[string]any{"name": "billed"})
	body := bytes.Repeat([]byte("x"), 1000)
	c.Must(200, "PUT", "/buckets/billed/object?key=a", body)
	c.Must(200, "GET", "/buckets/billed/object?key=a", nil)
	c.Must(200, "GET", "/buckets/billed/objects", nil)
	c.Must(200, "DELETE", "/buckets/billed/object?key=a", nil)

	ctx := context.Background()
	if err := srv.Node.Meter.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := srv.Node.Catalog.UsageReport(ctx, "acme", time.Now().Add(-2*time.Hour), time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var sum catalog.Traffic
	for _, r := range rows {
		if r.Bucket == "billed" {
			sum.Add(r.Traffic)
		}
	}
	if sum.Put != 1 || sum.Get != 1 || sum.List != 1 || sum.Delete != 1 || sum.BytesIn < 1000 || sum.BytesOut < 1000 {
		t.Fatalf("console traffic billed as %+v", sum)
	}
}
