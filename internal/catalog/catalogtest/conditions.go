package catalogtest

import (
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

// testIfLatest: a removal (or a delete marker) decided on a version read
// earlier happens only while that version is still current, so that a
// write landing in between is never taken with it.
func testIfLatest(t *testing.T, s catalog.Store) {
	bucket(t, s, "b")
	old := put(t, s, object("b", "k", 1))
	read, err := s.GetObject(ctx, "b", "k", "")
	must(t, err)
	// The null version is written again: same id, a later time.
	again := object("b", "k", 2)
	again.LastModified = old.LastModified.Add(time.Millisecond)
	put(t, s, again)
	_, err = s.DeleteObject(ctx, "b", "k", catalog.NullVersion, catalog.DeleteOptions{IfLatest: &read})
	wantErr(t, err, catalog.ErrPreconditionFailed)
	now, err := s.GetObject(ctx, "b", "k", "")
	must(t, err)
	if now.Size != 2 {
		t.Fatalf("after a refused removal the key holds %+v", now)
	}
	_, err = s.DeleteObject(ctx, "b", "k", catalog.NullVersion, catalog.DeleteOptions{IfLatest: &now})
	must(t, err)

	// A delete marker in a versioned bucket, likewise.
	v1 := object("b", "v", 1)
	v1.VersionID = "v1"
	put(t, s, v1)
	read, err = s.GetObject(ctx, "b", "v", "")
	must(t, err)
	v2 := object("b", "v", 1)
	v2.VersionID = "v2"
	put(t, s, v2)
	marker := catalog.Object{Bucket: "b", Key: "v", VersionID: "m1", DeleteMarker: true, LastModified: time.Now().UTC(), Owner: "owner"}
	wantErr(t, s.PutObject(ctx, marker, catalog.PutOptions{IfLatest: &read}), catalog.ErrPreconditionFailed)
	if cur, err := s.GetObject(ctx, "b", "v", ""); err != nil || cur.VersionID != "v2" || cur.DeleteMarker {
		t.Fatalf("after a refused marker the current version is %+v, %v", cur, err)
	}
	read, err = s.GetObject(ctx, "b", "v", "")
	must(t, err)
	must(t, s.PutObject(ctx, marker, catalog.PutOptions{IfLatest: &read}))
}
