package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ostiumio/ostium/internal/blob"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/testenv"
)

// statements counts what a pool's connections send: each statement is
// one round trip (pgx sends a statement with its parameters and reads its
// result in one exchange), BEGIN and COMMIT included.
type statements struct{ n atomic.Int64 }

func (c *statements) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	return ctx
}

func (c *statements) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func smallObject(bucket, key string, size int64) catalog.Object {
	return catalog.Object{Bucket: bucket, Key: key, VersionID: catalog.NullVersion, Size: size, ETag: `"e"`,
		LastModified: time.Now(), Owner: "owner", StorageClass: catalog.StandardClass, Inline: make([]byte, size)}
}

// A small PUT is a short transaction: on a loaded 2-core machine its
// round trips, not its SQL, were most of the CPU of node and server, and
// the time it held its connection and its key. A new key's PUT took 9
// statements (11 under quotas); it takes 6 (7 with a blob to record),
// whatever the quotas and the storage class.
func TestSmallPutRoundTrips(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var count statements
	s, err := open(ctx, testenv.FreshPostgres(t), 2, &count)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateTenant(ctx, catalog.Tenant{Name: "acme", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateBucket(ctx, catalog.Bucket{Name: "b", Tenant: "acme", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	quotas := catalog.PutOptions{Limits: catalog.Limits{Tenant: "acme", TenantBytes: 1 << 30, TenantObjects: 1000, BucketBytes: 1 << 30, BucketObjects: 1000}}
	withBlob := smallObject("b", "blob", 10)
	withBlob.Inline = nil
	withBlob.Parts = []catalog.Part{{BlobID: blob.NewID(), Size: 10, ETag: `"e"`, LastModified: time.Now()}}
	cold := smallObject("b", "cold", 16)
	cold.StorageClass = "STANDARD_IA"
	for _, c := range []struct {
		name string
		o    catalog.Object
		opt  catalog.PutOptions
		max  int64
	}{
		{"new key", smallObject("b", "k1", 16), catalog.PutOptions{}, 6},
		{"new key under bucket and tenant quotas", smallObject("b", "k2", 16), quotas, 6},
		{"new key in another storage class", cold, quotas, 6},
		{"new key with a blob", withBlob, quotas, 7},
	} {
		before := count.n.Load()
		if err := s.PutObject(ctx, c.o, c.opt); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := count.n.Load() - before; got > c.max {
			t.Errorf("%s: %d statements, want at most %d", c.name, got, c.max)
		}
	}
	// And what they wrote is what the longer path wrote.
	u, err := s.TenantUsage(ctx, "acme")
	if err != nil || u != (catalog.Usage{Bytes: 58, Objects: 4}) {
		t.Fatalf("TenantUsage = %+v, %v; want 58 bytes in 4 objects", u, err)
	}
	if o, err := s.GetObject(ctx, "b", "cold", ""); err != nil || !o.IsLatest || o.StorageClass != "STANDARD_IA" || len(o.Inline) != 16 {
		t.Fatalf("GetObject(cold) = %+v, %v", o, err)
	}
}

// Quotas hold with writers at and above the pool's size: every write
// acknowledged is there and counted, and a limit is overshot at most by
// writes in flight together, which one node's pool bounds (pool - 1
// besides the write that reached the limit). A write refused saw the
// limit reached, so at least the limit's worth get in.
func TestQuotasHoldUnderConcurrentWriters(t *testing.T) {
	const pool = 4
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := open(ctx, testenv.FreshPostgres(t), pool, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateTenant(ctx, catalog.Tenant{Name: "acme", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	const size = 10
	for _, c := range []struct {
		name    string
		writers int
		limits  catalog.Limits
		max     int64 // the limit, in objects
	}{
		{"objects of a bucket, writers = pool", pool, catalog.Limits{BucketObjects: 30}, 30},
		{"objects of a bucket, writers = 4 x pool", 4 * pool, catalog.Limits{BucketObjects: 30}, 30},
		{"bytes of a tenant, writers = pool", pool, catalog.Limits{Tenant: "acme", TenantBytes: 30 * size}, 30},
		{"bytes of a tenant, writers = 4 x pool", 4 * pool, catalog.Limits{Tenant: "acme", TenantBytes: 30 * size}, 30},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := fmt.Sprintf("q%d", time.Now().UnixNano())
			if err := s.CreateBucket(ctx, catalog.Bucket{Name: name, Tenant: "acme", CreatedAt: time.Now()}); err != nil {
				t.Fatal(err)
			}
			base, err := s.TenantUsage(ctx, "acme")
			if err != nil {
				t.Fatal(err)
			}
			lim := c.limits
			if lim.TenantBytes > 0 { // the tenant's earlier buckets count too
				lim.TenantBytes += base.Bytes
			}
			var (
				mu    sync.Mutex
				acked []string
				wg    sync.WaitGroup
				fail  = make(chan error, c.writers)
			)
			for w := range c.writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					// Each writer tries more than the whole limit.
					for i := range 2 * c.max {
						key := fmt.Sprintf("w%d-%d", w, i)
						err := s.PutObject(ctx, smallObject(name, key, size), catalog.PutOptions{Limits: lim})
						switch {
						case err == nil:
							mu.Lock()
							acked = append(acked, key)
							mu.Unlock()
						case errors.Is(err, catalog.ErrQuotaExceeded):
						default:
							fail <- fmt.Errorf("put %s: %w", key, err)
							return
						}
					}
				}()
			}
			wg.Wait()
			close(fail)
			for err := range fail {
				t.Fatal(err)
			}
			n := int64(len(acked))
			if n < c.max || n > c.max+pool-1 {
				t.Fatalf("%d writes acknowledged, want %d to %d", n, c.max, c.max+pool-1)
			}
			for _, key := range acked {
				if _, err := s.GetObject(ctx, name, key, ""); err != nil {
					t.Fatalf("acknowledged %s: %v", key, err)
				}
			}
			u, err := s.BucketUsage(ctx, name)
			if err != nil || u != (catalog.Usage{Bytes: n * size, Objects: n}) {
				t.Fatalf("BucketUsage = %+v, %v; want %d objects of %d bytes", u, err, n, size)
			}
			t.Logf("%d writers, limit %d objects: %d acknowledged", c.writers, c.max, n)
		})
	}
}
