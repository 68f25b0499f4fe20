package sqldb_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/catalog/sqldb"
	"github.com/ostiumio/ostium/internal/catalog/sqlite"
)

// BenchmarkListPage reads pages of 1,000 current objects of a bucket of
// 20,000 from a SQLite catalog (the catalog's part of a ListObjectsV2
// page: the query and the decoding of its rows).
//
//	go test -run '^$' -bench ListPage -benchmem ./internal/catalog/sqldb
func BenchmarkListPage(b *testing.B) {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "catalog.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const owner = "02b2113c1cbe9a03c97f0ac6225bd1c32d080d62bcfd60559985c3ddc19c053d"
	if err := s.CreateBucket(ctx, catalog.Bucket{Name: "photos", Owner: owner, Region: "us-east-1", CreatedAt: time.Now()}); err != nil {
		b.Fatal(err)
	}
	const n = 20_000
	objs := make([]catalog.Object, n)
	for i := range objs {
		objs[i] = catalog.Object{Bucket: "photos", Key: fmt.Sprintf("2026/11/27/obj-%08d.jpg", i), VersionID: "null", Size: 4096,
			ETag: fmt.Sprintf(`"%032x"`, i), LastModified: time.Now(), Owner: owner, StorageClass: "STANDARD",
			Meta: catalog.Meta{ContentType: "image/jpeg"}, Inline: []byte("x")}
	}
	if err := s.(*sqldb.Store).FillObjects(ctx, objs); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		from := fmt.Sprintf("2026/11/27/obj-%08d.jpg", (i*1000)%(n-1000))
		page, err := s.ListObjects(ctx, "photos", catalog.ListQuery{Start: from, Limit: 1000})
		if err != nil || len(page) != 1000 || page[0].Owner != owner || page[0].StorageClass != "STANDARD" {
			b.Fatalf("page from %s: %d objects, %v", from, len(page), err)
		}
	}
}
