package vcsp

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

// bigBucket lists a bucket of n folders of per keys each, made up on
// the fly (in key order, as the catalog lists), and keeps one
// publication's documents: the indexer's walk of a million keys without
// storing a million objects.
type bigBucket struct {
	n, per   int
	calls    int
	maxLimit int
	cancelAt int // cancel (the func) on this call; 0 = never
	cancel   context.CancelFunc
	p        catalog.Publication
	docs     []catalog.PublicationDoc
	stored   int
}

func (b *bigBucket) key(i int) string { return fmt.Sprintf("lib/i%06d/f%03d.vmdk", i/b.per, i%b.per) }

func (b *bigBucket) ListObjects(ctx context.Context, bucket string, q catalog.ListQuery) ([]catalog.Object, error) {
	b.calls++
	b.maxLimit = max(b.maxLimit, q.Limit)
	if b.calls == b.cancelAt {
		b.cancel()
	}
	total := b.n * b.per
	i := sort.Search(total, func(i int) bool { return b.key(i) > q.Start })
	var out []catalog.Object
	for ; i < total && len(out) < q.Limit; i++ {
		out = append(out, catalog.Object{Key: b.key(i), Size: int64(i), ETag: fmt.Sprintf(`"%032x"`, i)})
	}
	return out, nil
}

func (b *bigBucket) GetBucket(ctx context.Context, name string) (catalog.Bucket, error) {
	return catalog.Bucket{Name: name, Tenant: "acme"}, nil
}
func (b *bigBucket) PutPublication(ctx context.Context, p catalog.Publication) error { return nil }
func (b *bigBucket) GetPublication(ctx context.Context, tenant, name string) (catalog.Publication, error) {
	return b.p, nil
}
func (b *bigBucket) ListPublications(ctx context.Context, tenant string) ([]catalog.Publication, error) {
	return []catalog.Publication{b.p}, nil
}
func (b *bigBucket) DeletePublication(ctx context.Context, tenant, name string) error { return nil }
func (b *bigBucket) SetPublicationIndex(ctx context.Context, tenant, name, prev string, v int64, digest string, at time.Time, docs []catalog.PublicationDoc) error {
	b.stored++
	b.p.Version, b.p.Digest, b.docs = v, digest, docs
	return nil
}
func (b *bigBucket) PublicationDoc(ctx context.Context, tenant, name, path string) ([]byte, error) {
	return nil, catalog.ErrNoSuchObject
}

// A bucket of a million keys is walked a page at a time, and what the
// library lists is bounded (items, files, and so the documents' size),
// and so is the walk: it stops where nothing more could be listed;
// a walk cut short stores nothing and leaves the last index in place,
// and the next run starts over.
func TestMillionKeysBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("a million keys")
	}
	b := &bigBucket{n: 20_000, per: 50, p: catalog.Publication{Tenant: "acme", Name: "big", Bucket: "media", Prefix: "lib/", LibraryID: "urn:uuid:x"}}
	x := NewIndexer(b, time.Hour)
	x.pause = 0

	// Cut short half-way: nothing stored.
	ctx, cancel := context.WithCancel(context.Background())
	b.cancel, b.cancelAt = cancel, 50
	if _, err := x.Index(ctx, b.p); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled walk: %v, want context.Canceled", err)
	}
	if b.stored != 0 {
		t.Fatal("a walk cut short stored an index")
	}

	b.calls, b.cancelAt = 0, 0
	changed, err := x.Index(context.Background(), b.p)
	if err != nil || !changed {
		t.Fatalf("index: %v, %v", changed, err)
	}
	// Paged, and stopped once the bounds are reached (the rest could add
	// nothing).
	if want := MaxLibraryFiles / listPage; b.calls < want || b.calls > want+1 || b.maxLimit != listPage {
		t.Fatalf("%d list calls of up to %d keys, want about %d of %d", b.calls, b.maxLimit, want, listPage)
	}
	items, files, size := 0, 0, 0
	for _, d := range b.docs {
		size += len(d.Body)
		if strings.HasSuffix(d.Path, "/"+itemDoc) {
			items++
			files += strings.Count(string(d.Body), `"hrefs"`)
		}
	}
	if items > MaxItems || files > MaxLibraryFiles || items == 0 {
		t.Fatalf("%d items of %d files: past the bounds (%d items, %d files)", items, files, MaxItems, MaxLibraryFiles)
	}
	if size > 256<<20 {
		t.Fatalf("the documents hold %d MiB", size>>20)
	}
	t.Logf("1,000,000 keys: %d items, %d files, %d MiB of documents", items, files, size>>20)
}
