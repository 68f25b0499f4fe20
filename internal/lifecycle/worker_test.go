package lifecycle_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/lifecycle"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

const day = time.Second

// fixture starts a node whose own worker passes once an hour (so that
// the test's worker is the one that acts) and fills bucket with keys
// k00..k(n-1) under a rule that expires them after a day, and waits
// until they are due.
func fixture(t *testing.T, n int) (*nodetest.Server, catalog.Bucket) {
	t.Helper()
	srv := nodetest.Start(t, nodetest.Options{Config: func(c *node.Config) {
		c.Lifecycle = node.LifecycleConfig{Day: day, Interval: time.Hour}
	}})
	ctx := context.Background()
	cat := srv.Node.Catalog
	b := catalog.Bucket{Name: "lc", Owner: "owner", Region: "us-east-1", CreatedAt: time.Now()}
	if err := cat.CreateBucket(ctx, b); err != nil {
		t.Fatal(err)
	}
	cfg, err := lifecycle.Parse([]byte(`<LifecycleConfiguration><Rule><ID>all</ID><Filter/><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>`))
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.SetBucketSetting(ctx, b.Name, catalog.SettingLifecycle, cfg.Encode()); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		o := catalog.Object{Bucket: b.Name, Key: fmt.Sprintf("k%02d", i), VersionID: catalog.NullVersion, Size: 1, ETag: `"x"`,
			LastModified: time.Now(), Owner: "owner", StorageClass: "STANDARD", Inline: []byte("x")}
		if err := cat.PutObject(ctx, o, catalog.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(lifecycle.DueAt(time.Now(), 1, day).Sub(time.Now()) + 10*time.Millisecond)
	b, err = cat.GetBucket(ctx, b.Name)
	if err != nil {
		t.Fatal(err)
	}
	return srv, b
}

func keys(t *testing.T, cat catalog.Store) []string {
	t.Helper()
	objs, err := cat.ListObjects(context.Background(), "lc", catalog.ListQuery{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, o := range objs {
		out = append(out, o.Key)
	}
	return out
}

// remover removes through the node's object service, and lets a test
// stop the pass after some removals or refuse one key as locked.
type remover struct {
	next   lifecycle.Remover
	n      int
	stopAt int
	stop   context.CancelFunc
	locked string
}

func (r *remover) LifecycleRemove(ctx context.Context, b catalog.Bucket, key, versionID string) (catalog.Object, error) {
	if key == r.locked {
		return catalog.Object{}, fmt.Errorf("refused: %w", lifecycle.ErrLocked)
	}
	o, err := r.next.LifecycleRemove(ctx, b, key, versionID)
	if r.n++; r.n == r.stopAt {
		r.stop()
	}
	return o, err
}

// TestWorkerResumes: a pass cut short saved its position in the
// catalog; the next pass (a new worker, as on a node that took the lease
// over) resumes after it, and once it reaches the end the position is
// cleared, so the pass after starts over.
func TestWorkerResumes(t *testing.T) {
	srv, _ := fixture(t, 20)
	cat := srv.Node.Catalog
	ctx, cancel := context.WithCancel(context.Background())
	rm := &remover{next: srv.Node.Service, stopAt: 7, stop: cancel}
	w := lifecycle.NewWorker(cat, rm, lifecycle.Options{Day: day, Batch: 3})
	w.SetSaveEvery(0)
	if _, err := w.RunOnce(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("cut pass: %v", err)
	}
	left := keys(t, cat)
	if len(left) != 13 {
		t.Fatalf("after the cut pass: %v", left)
	}
	pos, err := cat.(catalog.Cursors).Cursor(context.Background(), lifecycle.JobName)
	if err != nil || pos == "" {
		t.Fatalf("no position saved: %q %v", pos, err)
	}

	// Put back an expired key before the position: the resumed pass
	// does not go back for it.
	o := catalog.Object{Bucket: "lc", Key: "k00", VersionID: catalog.NullVersion, Size: 1, ETag: `"x"`,
		LastModified: time.Now().Add(-time.Hour), Owner: "owner", StorageClass: "STANDARD", Inline: []byte("x")}
	if err := cat.PutObject(context.Background(), o, catalog.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	w2 := lifecycle.NewWorker(cat, srv.Node.Service, lifecycle.Options{Day: day, Batch: 3})
	st, err := w2.RunOnce(context.Background())
	if err != nil || st.Expired != 13 {
		t.Fatalf("resumed pass: %v, %v", st, err)
	}
	if left := keys(t, cat); len(left) != 1 || left[0] != "k00" {
		t.Fatalf("after the resumed pass: %v", left)
	}
	if pos, _ := cat.(catalog.Cursors).Cursor(context.Background(), lifecycle.JobName); pos != `{"bucket":""}` {
		t.Fatalf("position after a whole pass = %q", pos)
	}
	if st, err := w2.RunOnce(context.Background()); err != nil || st.Expired != 1 {
		t.Fatalf("next pass: %v, %v", st, err)
	}
}

// TestWorkerSkipsLocked: a removal the catalog refuses for a lock is
// counted and skipped; the pass goes on.
func TestWorkerSkipsLocked(t *testing.T) {
	srv, _ := fixture(t, 4)
	rm := &remover{next: srv.Node.Service, locked: "k01"}
	w := lifecycle.NewWorker(srv.Node.Catalog, rm, lifecycle.Options{Day: day})
	st, err := w.RunOnce(context.Background())
	if err != nil || st.Expired != 3 || st.Locked != 1 {
		t.Fatalf("pass: %v, %v", st, err)
	}
	if left := keys(t, srv.Node.Catalog); len(left) != 1 || left[0] != "k01" {
		t.Fatalf("left: %v", left)
	}
}

// TestWorkerPaced: removals (and listed pages) keep to the rate.
func TestWorkerPaced(t *testing.T) {
	srv, _ := fixture(t, 10)
	w := lifecycle.NewWorker(srv.Node.Catalog, srv.Node.Service, lifecycle.Options{Day: day, Rate: 20, Batch: 5})
	start := time.Now()
	st, err := w.RunOnce(context.Background())
	if err != nil || st.Expired != 10 {
		t.Fatalf("pass: %v, %v", st, err)
	}
	// 10 removals and 3 pages at 20 a second: at least 0.6 s.
	if d := time.Since(start); d < 550*time.Millisecond {
		t.Fatalf("pass took %v at 20 a second", d)
	}
}
