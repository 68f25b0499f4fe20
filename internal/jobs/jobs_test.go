package jobs_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/blob"
	"github.com/ostiumio/ostium/internal/blob/memory"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/catalog/sqlite"
	"github.com/ostiumio/ostium/internal/jobs"
)

var ctx = context.Background()

func stores(t *testing.T) (catalog.Store, *memory.Store) {
	cat, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "catalog.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	if err := cat.CreateBucket(ctx, catalog.Bucket{Name: "b", Owner: "o", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	return cat, memory.New()
}

// oldID is a blob id made at t.
func oldID(at time.Time) string {
	return fmt.Sprintf("%016x", at.UnixNano()) + blob.NewID()[16:]
}

func putBlob(t *testing.T, bs *memory.Store, id string, age time.Duration) {
	t.Helper()
	if _, err := bs.Put(ctx, id, strings.NewReader("data"), 4); err != nil {
		t.Fatal(err)
	}
	bs.SetModTime(id, time.Now().Add(-age))
}

func putObject(t *testing.T, cat catalog.Store, key, blobID string) {
	t.Helper()
	o := catalog.Object{Bucket: "b", Key: key, VersionID: catalog.NullVersion, Size: 4, LastModified: time.Now(),
		Parts: []catalog.Part{{BlobID: blobID, Size: 4}}}
	if err := cat.PutObject(ctx, o, catalog.PutOptions{}); err != nil {
		t.Fatal(err)
	}
}

func exists(bs *memory.Store, id string) bool {
	_, err := bs.Get(ctx, id, 0, -1)
	return err == nil
}

func TestCollectorDeletesQueuedBlobs(t *testing.T) {
	cat, bs := stores(t)
	first, second := blob.NewID(), blob.NewID()
	putBlob(t, bs, first, 0)
	putBlob(t, bs, second, 0)
	putObject(t, cat, "k", first)
	putObject(t, cat, "k", second) // queues first
	n, err := jobs.NewCollector(cat, bs, time.Hour, nil).RunOnce(ctx)
	if err != nil || n != 1 {
		t.Fatalf("RunOnce = %d, %v", n, err)
	}
	if exists(bs, first) || !exists(bs, second) {
		t.Fatal("the collector must delete the replaced blob and only it")
	}
	if pending, _ := cat.GCPending(ctx, time.Now().Add(time.Hour), 10); len(pending) != 0 {
		t.Fatalf("queue not emptied: %v", pending)
	}
}

func TestSweeperRemovesOnlyOldUnreferencedBlobs(t *testing.T) {
	cat, bs := stores(t)
	hourAgo := time.Now().Add(-time.Hour)
	orphan, young, referenced, uploaded, queued, current := oldID(hourAgo), blob.NewID(), oldID(hourAgo), oldID(hourAgo), oldID(hourAgo), oldID(hourAgo)
	for _, id := range []string{orphan, referenced, uploaded, queued, current} {
		putBlob(t, bs, id, time.Hour)
	}
	putBlob(t, bs, young, 0)
	putObject(t, cat, "ref", referenced)
	putObject(t, cat, "q", queued)
	putObject(t, cat, "q", current) // queues "queued"
	if err := cat.CreateUpload(ctx, catalog.Upload{Bucket: "b", Key: "u", UploadID: "up", Initiated: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := cat.PutPart(ctx, "b", "u", "up", catalog.Part{Number: 1, BlobID: uploaded, Size: 4}, catalog.Limits{}); err != nil {
		t.Fatal(err)
	}
	n, err := jobs.NewSweeper(cat, bs, time.Hour, 30*time.Minute, nil).RunOnce(ctx)
	if err != nil || n != 1 {
		t.Fatalf("RunOnce = %d, %v; want the one orphan removed", n, err)
	}
	if exists(bs, orphan) {
		t.Error("old unreferenced blob survived")
	}
	for name, id := range map[string]string{"young": young, "object": referenced, "upload part": uploaded, "queued": queued, "current": current} {
		if !exists(bs, id) {
			t.Errorf("the sweeper removed the %s blob", name)
		}
	}
}

// A blob whose file looks old but whose id is young (a clock step, a
// restored backup) is spared: both must be older than the grace.
func TestSweeperTrustsTheYoungerOfIdAndModTime(t *testing.T) {
	cat, bs := stores(t)
	id := blob.NewID()
	putBlob(t, bs, id, 2*time.Hour)
	if n, err := jobs.NewSweeper(cat, bs, time.Hour, time.Hour, nil).RunOnce(ctx); err != nil || n != 0 || !exists(bs, id) {
		t.Fatalf("RunOnce = %d, %v; the young id must be spared", n, err)
	}
}

// dying is a node that dies: it never gives its lease up.
type dying struct{ catalog.Leases }

func (dying) ReleaseLease(context.Context, string, string) error { return nil }

// Of two holders, one runs a leased job; when its node dies, the other
// takes the job over once the lease runs out.
func TestLeasedJobMovesWhenHolderDies(t *testing.T) {
	store, err := sqlite.Open(context.Background(), t.TempDir()+"/c.db")
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var mu sync.Mutex
	running := map[string]int{}
	job := func(holder string) func(context.Context) {
		return func(ctx context.Context) {
			mu.Lock()
			running[holder]++
			mu.Unlock()
			<-ctx.Done()
			mu.Lock()
			running[holder]--
			mu.Unlock()
		}
	}
	runners := func() (a, b int) { mu.Lock(); defer mu.Unlock(); return running["a"], running["b"] }
	const ttl = 300 * time.Millisecond
	actx, killA := context.WithCancel(context.Background())
	bctx, stopB := context.WithCancel(context.Background())
	defer stopB()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); jobs.Leased(actx, dying{store}, "collector", "a", ttl, job("a"), nil) }()
	time.Sleep(50 * time.Millisecond)
	go func() { defer wg.Done(); jobs.Leased(bctx, store, "collector", "b", ttl, job("b"), nil) }()
	time.Sleep(2 * ttl)
	if a, b := runners(); a != 1 || b != 0 {
		t.Fatalf("running a=%d b=%d, want only a", a, b)
	}
	killA()
	deadline := time.Now().Add(3 * ttl)
	for {
		a, b := runners()
		if a == 0 && b == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a stopped: running a=%d b=%d, want only b", a, b)
		}
		time.Sleep(10 * time.Millisecond)
	}
	stopB()
	wg.Wait()
}

// partitioned is a node cut off from its catalog without the connection
// failing: once cut, a lease call waits until it is given up.
type partitioned struct {
	catalog.Leases
	cut *atomic.Bool
}

func (p partitioned) AcquireLease(ctx context.Context, name, holder string, ttl time.Duration) (bool, error) {
	if p.cut.Load() {
		<-ctx.Done()
		return false, ctx.Err()
	}
	return p.Leases.AcquireLease(ctx, name, holder, ttl)
}

// A holder cut off from the catalog stops its job before its lease
// expires, however long its renewal would wait, so that the node taking
// the lease over never runs the job beside it.
func TestLeasedJobNeverRunsTwice(t *testing.T) {
	store, err := sqlite.Open(context.Background(), t.TempDir()+"/c.db")
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var a, b atomic.Int32
	job := func(n *atomic.Int32) func(context.Context) {
		return func(ctx context.Context) { n.Add(1); <-ctx.Done(); n.Add(-1) }
	}
	const ttl = 600 * time.Millisecond
	cut := &atomic.Bool{}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		jobs.Leased(ctx, partitioned{dying{store}, cut}, "collector", "a", ttl, job(&a), nil)
	}()
	for a.Load() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	go func() { defer wg.Done(); jobs.Leased(ctx, store, "collector", "b", ttl, job(&b), nil) }()
	time.Sleep(ttl)
	cut.Store(true)
	deadline := time.Now().Add(5 * ttl)
	for b.Load() == 0 {
		if a.Load() > 0 && b.Load() > 0 {
			t.Fatal("both holders run the job")
		}
		if time.Now().After(deadline) {
			t.Fatalf("the other holder never took the job over (a=%d)", a.Load())
		}
		time.Sleep(time.Millisecond)
	}
	if a.Load() != 0 {
		t.Fatal("the cut-off holder still runs the job beside the new one")
	}
	cancel()
	wg.Wait()
}

// The key pruner keeps an expired key for the retention, then deletes it;
// a key that never expires is never touched.
func TestKeyPrunerKeepsExpiredKeysForTheRetention(t *testing.T) {
	cat, _ := stores(t)
	now := time.Now()
	for name, exp := range map[string]time.Time{"SHARE": now.Add(time.Hour), "FOREVER": {}} {
		if err := cat.PutAccessKey(ctx, catalog.AccessKey{AccessKey: name, SecretSealed: []byte{1}, Owner: "o", CreatedAt: now,
			Kind: catalog.KeyAppCred, ReadOnly: true, Buckets: []string{"b"}, Expires: exp}); err != nil {
			t.Fatal(err)
		}
	}
	p := jobs.KeyPruner{Keys: cat, Retention: jobs.ExpiredKeyRetention, Interval: time.Hour}
	for _, tc := range []struct {
		at   time.Time
		gone int
	}{
		{now, 0},                    // not expired
		{now.Add(2 * time.Hour), 0}, // expired, kept for the retention
		{now.Add(time.Hour + jobs.ExpiredKeyRetention - time.Minute), 0},
		{now.Add(time.Hour + jobs.ExpiredKeyRetention + time.Minute), 1},
		{now.Add(100 * jobs.ExpiredKeyRetention), 0}, // the key that never expires stays
	} {
		if n, err := p.RunOnce(ctx, tc.at); err != nil || n != tc.gone {
			t.Fatalf("at now+%v: deleted %d (%v), want %d", tc.at.Sub(now), n, err, tc.gone)
		}
	}
	if _, err := cat.GetAccessKey(ctx, "FOREVER"); err != nil {
		t.Fatal(err)
	}
}
