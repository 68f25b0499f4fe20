package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/blob"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/catalog/catalogtest"
	"github.com/ostiumio/ostium/internal/catalog/sqlite"
)

func TestConformance(t *testing.T) {
	catalogtest.Run(t, func(t *testing.T) catalog.Store {
		s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "catalog.db"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// BenchmarkPutObjectParallel shows group commit at work: 16 writers, each
// PutObject durable (synchronous=FULL) when it returns.
func BenchmarkPutObjectParallel(b *testing.B) {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "catalog.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateBucket(ctx, catalog.Bucket{Name: "b", Owner: "o"}); err != nil {
		b.Fatal(err)
	}
	var seq atomic.Int64
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			n := seq.Add(1)
			o := catalog.Object{Bucket: "b", Key: fmt.Sprintf("k%09d", n), VersionID: catalog.NullVersion, Size: 4096,
				ETag: `"e"`, LastModified: time.Now(), Parts: []catalog.Part{{BlobID: blob.NewID(), Size: 4096}}}
			if err := s.PutObject(ctx, o, catalog.PutOptions{}); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "puts/s")
}
