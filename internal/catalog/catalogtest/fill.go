package catalogtest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/ostiumio/ostium/internal/blob"
	"github.com/ostiumio/ostium/internal/catalog"
)

// Filler is a catalog that writes many new keys at once (sqldb's bulk
// fill for benchmarks).
type Filler interface {
	FillObjects(ctx context.Context, objs []catalog.Object) error
}

// testFill holds a bulk fill to the rows PutObject writes: the same
// object read back, listed and counted, each current and replaceable and
// deletable afterwards as a put one is; a key given again fails the
// whole batch.
func testFill(t *testing.T, s catalog.Store) {
	f, ok := s.(Filler)
	if !ok {
		t.Skip("the store has no bulk fill")
	}
	bucket(t, s, "put")
	bucket(t, s, "fill")
	const n = 1203 // more than two statements' worth
	var filled []catalog.Object
	for i := range n {
		o := object("fill", fmt.Sprintf("k%05d", i), int64(i+1))
		if i%2 == 1 { // inline, as small PUTs are
			o.Parts, o.Inline = nil, []byte(fmt.Sprint("bytes of ", i))
			o.Size = int64(len(o.Inline))
		}
		filled = append(filled, o)
	}
	for _, o := range filled[:3] { // their twins, each in a blob of its own
		o.Bucket, o.Parts = "put", slices.Clone(o.Parts)
		for i := range o.Parts {
			o.Parts[i].BlobID = blob.NewID()
		}
		put(t, s, o)
	}
	must(t, f.FillObjects(ctx, filled))
	for i := range 3 {
		want, err := s.GetObject(ctx, "put", filled[i].Key, "")
		must(t, err)
		got, err := s.GetObject(ctx, "fill", filled[i].Key, "")
		must(t, err)
		got.Bucket = "put"
		for i := range got.Parts {
			got.Parts[i].BlobID = want.Parts[i].BlobID
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("filled object\n%+v\nput object\n%+v", got, want)
		}
	}
	listed, err := s.ListObjects(ctx, "fill", catalog.ListQuery{Start: "k00999", Limit: 1000})
	must(t, err)
	if len(listed) != n-1000 || listed[0].Key != "k01000" || !listed[0].IsLatest {
		t.Fatalf("listed after k00999: %d objects, first %+v", len(listed), listed[0])
	}
	var bytes int64
	for _, o := range filled {
		bytes += o.Size
	}
	u, err := s.BucketUsage(ctx, "fill")
	must(t, err)
	if u != (catalog.Usage{Bytes: bytes, Objects: n}) {
		t.Fatalf("usage after fill = %+v, want %d bytes, %d objects", u, bytes, n)
	}

	// A filled key is replaced and deleted as a put one is.
	put(t, s, object("fill", "k00000", 7))
	if q := queued(t, s); len(q) != 1 || q[0] != filled[0].Parts[0].BlobID {
		t.Fatalf("replacing a filled object queued %v, want its blob", q)
	}
	_, err = s.DeleteObject(ctx, "fill", "k00001", "", catalog.DeleteOptions{})
	must(t, err)
	u, err = s.BucketUsage(ctx, "fill")
	must(t, err)
	if want := bytes - filled[0].Size + 7 - filled[1].Size; u != (catalog.Usage{Bytes: want, Objects: n - 1}) {
		t.Fatalf("usage after a replace and a delete = %+v, want %d bytes, %d objects", u, want, n-1)
	}

	// A batch with a key that exists writes nothing.
	again := []catalog.Object{object("fill", "new", 1), object("fill", "k00002", 1)}
	if err := f.FillObjects(ctx, again); err == nil {
		t.Fatal("a fill over an existing key succeeded")
	}
	if _, err := s.GetObject(ctx, "fill", "new", ""); !errors.Is(err, catalog.ErrNoSuchObject) {
		t.Fatalf("the failed batch's new key: %v", err)
	}
	wantErr(t, f.FillObjects(ctx, []catalog.Object{object("nope", "k", 1)}), catalog.ErrNoSuchBucket)
}
