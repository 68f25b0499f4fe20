package replicator

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/catalog/postgres"
	"github.com/ostiumio/ostium/internal/catalog/sqlite"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/objects"
	"github.com/ostiumio/ostium/internal/replication"
	"github.com/ostiumio/ostium/internal/testenv"
)

// slowService is a destination that takes a while per replica and
// counts how many it is given at once.
type slowService struct {
	mu       sync.Mutex
	now, max int
	done     map[string]bool
}

func (s *slowService) OpenVersion(ctx context.Context, bucket, key, versionID string) (catalog.Object, io.ReadCloser, error) {
	return catalog.Object{Key: key, VersionID: versionID}, io.NopCloser(strings.NewReader("")), nil
}

func (s *slowService) PutReplica(ctx context.Context, id *iam.Identity, in objects.ReplicaInput) error {
	s.mu.Lock()
	s.now++
	s.max = max(s.max, s.now)
	s.mu.Unlock()
	time.Sleep(30 * time.Millisecond)
	s.mu.Lock()
	s.now--
	s.done[in.Source.Key] = true
	s.mu.Unlock()
	return nil
}

func (s *slowService) PutReplicaMeta(ctx context.Context, id *iam.Identity, in objects.ReplicaInput) error {
	return nil
}

func (s *slowService) ReplicationFailed(ctx context.Context, bucket, key, versionID string, f objects.ReplicationFailure) ([]catalog.Event, error) {
	return nil, nil
}

// The worker keeps to its bounds: at most Concurrency versions in
// transfer, and no more bytes in flight than InFlight (a version larger
// than half of it goes alone).
func TestWorkerBounds(t *testing.T) {
	for _, tc := range []struct {
		name string
		size int64
		want int
	}{{"small versions", 1 << 10, 4}, {"large versions", 40 << 20, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			var cat catalog.Store
			var err error
			if u := testenv.CatalogURL(t); u != "" {
				cat, err = postgres.Open(ctx, u, 4)
			} else {
				cat, err = sqlite.Open(ctx, filepath.Join(t.TempDir(), "catalog.db"))
			}
			if err != nil {
				t.Fatal(err)
			}
			defer cat.Close()
			cfg := &replication.Configuration{Role: "r", Writer: replication.Writer{Root: true}, Rules: []replication.Rule{{ID: "a", Status: "Enabled",
				Prefix: new(string), Destination: &replication.Destination{Bucket: "arn:aws:s3:::dst"}}}}
			if err := cat.CreateBucket(ctx, catalog.Bucket{Name: "src", Owner: "o", CreatedAt: time.Now(),
				Settings: catalog.Settings{Versioning: "Enabled", Replication: cfg.Encode()}}); err != nil {
				t.Fatal(err)
			}
			const n = 16
			var events []catalog.Event
			for i := range n {
				o := catalog.Object{Bucket: "src", Key: fmt.Sprintf("k%02d", i), VersionID: "v", Size: tc.size, ETag: `"e"`, LastModified: time.Now()}
				if err := cat.PutObject(ctx, o, catalog.PutOptions{}); err != nil {
					t.Fatal(err)
				}
				events = append(events, event("src", o, objects.EventPut, payload{Destinations: []Destination{{ARN: "arn:aws:s3:::dst"}}}))
			}
			if err := cat.AddEvents(ctx, events); err != nil {
				t.Fatal(err)
			}
			svc := &slowService{done: map[string]bool{}}
			w := New(cat, svc, nil, nil, Options{Concurrency: 4, InFlight: 64 << 20})
			for range 10 {
				if _, err := w.Pass(ctx); err != nil {
					t.Fatal(err)
				}
				if n, _, _ := cat.Backlog(ctx, replication.Sink, "src"); n == 0 {
					break
				}
			}
			if len(svc.done) != n || svc.max != tc.want {
				t.Fatalf("%d of %d delivered, at most %d at once; want %d", len(svc.done), n, svc.max, tc.want)
			}
		})
	}
}
