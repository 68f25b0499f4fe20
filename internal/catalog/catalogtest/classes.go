package catalogtest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/blob"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/objectlock"
)

func init() {
	versionTests = append(versionTests, struct {
		name string
		fn   func(t *testing.T, s catalog.Store)
	}{"MoveVersion", testMoveVersion}, struct {
		name string
		fn   func(t *testing.T, s catalog.Store)
	}{"ClassUsage", testClassUsage})
}

// testMoveVersion: a move switches a version to new blobs and class in
// one transaction, keeping its lock and place, and queues the old blobs;
// a version changed since it was read is not switched.
func testMoveVersion(t *testing.T, s catalog.Store) {
	cl, ok := s.(catalog.Classes)
	if !ok {
		t.Skip("no storage classes")
	}
	bucket(t, s, "b")
	o := object("b", "k", 10)
	o.Lock = catalog.Lock{Mode: objectlock.Compliance, RetainUntil: time.Now().Add(time.Hour).UTC().Truncate(time.Millisecond)}
	put(t, s, o)
	read, err := s.GetObject(ctx, "b", "k", "")
	must(t, err)
	moved := []catalog.Part{{Number: 0, BlobID: blob.NewID(), Size: 10, ETag: `"e"`, LastModified: o.LastModified, Identity: o.Parts[0].BlobID}}
	must(t, cl.MoveVersion(ctx, read, moved, "GLACIER_IR", event("notify", "s3:LifecycleTransition")))
	// The move's event is queued with it, naming the version.
	if names, es := dueNames(t, s, "notify"); len(names) != 1 || names[0] != "k:s3:LifecycleTransition" || es[0].VersionID != read.VersionID {
		t.Fatalf("events after the move: %v", names)
	}
	got, err := s.GetObject(ctx, "b", "k", "")
	must(t, err)
	if got.StorageClass != "GLACIER_IR" || len(got.Parts) != 1 || got.Parts[0].BlobID != moved[0].BlobID || got.Parts[0].Identity != o.Parts[0].BlobID ||
		got.Lock.Mode != objectlock.Compliance || !got.Lock.RetainUntil.Equal(o.Lock.RetainUntil) || !got.IsLatest || got.Meta.User["a"] != "b" {
		t.Fatalf("after the move: %+v", got)
	}
	if q := queued(t, s); !slices.Contains(q, o.Parts[0].BlobID) || slices.Contains(q, moved[0].BlobID) {
		t.Fatalf("queue after the move: %v", q)
	}
	refs, err := s.Referenced(ctx, []string{o.Parts[0].BlobID, moved[0].BlobID})
	must(t, err)
	if refs[o.Parts[0].BlobID] && !slices.Contains(queued(t, s), o.Parts[0].BlobID) || !refs[moved[0].BlobID] {
		t.Fatalf("referenced after the move: %v", refs)
	}
	// The version as first read is no longer there to move.
	again := []catalog.Part{{BlobID: blob.NewID(), Size: 10}}
	if err := cl.MoveVersion(ctx, read, again, "STANDARD_IA", event("notify", "refused")); !errors.Is(err, catalog.ErrPreconditionFailed) {
		t.Fatalf("move of a version read before another move: %v", err)
	}
	if names, _ := dueNames(t, s, "notify"); len(names) != 1 {
		t.Fatalf("a refused move queued its event: %v", names)
	}
	// Nor a version replaced since it was read.
	o2 := object("b", "j", 5)
	put(t, s, o2)
	old, err := s.GetObject(ctx, "b", "j", "")
	must(t, err)
	put(t, s, object("b", "j", 6))
	if err := cl.MoveVersion(ctx, old, again, "STANDARD_IA"); !errors.Is(err, catalog.ErrPreconditionFailed) {
		t.Fatalf("move of a replaced version: %v", err)
	}
	if err := cl.MoveVersion(ctx, catalog.Object{Bucket: "b", Key: "none", VersionID: catalog.NullVersion}, again, "STANDARD_IA"); !errors.Is(err, catalog.ErrNoSuchObject) {
		t.Fatalf("move of no version: %v", err)
	}
	// A version whose blobs stay (already on the class's platform)
	// changes class alone: nothing is queued.
	before := len(queued(t, s))
	j, err := s.GetObject(ctx, "b", "j", "")
	must(t, err)
	must(t, cl.MoveVersion(ctx, j, nil, "STANDARD_IA"))
	if got, err := s.GetObject(ctx, "b", "j", ""); err != nil || got.StorageClass != "STANDARD_IA" || !sameIDs(got.Parts, j.Parts) || len(queued(t, s)) != before {
		t.Fatalf("a move in place: %+v %v", got, err)
	}
	// An inline object changes class in place.
	in := catalog.Object{Bucket: "b", Key: "small", VersionID: catalog.NullVersion, Size: 2, ETag: `"s"`, LastModified: time.Now().UTC(),
		Owner: "owner", StorageClass: "STANDARD", Inline: []byte("hi")}
	put(t, s, in)
	must(t, cl.MoveVersion(ctx, in, nil, "STANDARD_IA"))
	if got, err := s.GetObject(ctx, "b", "small", ""); err != nil || got.StorageClass != "STANDARD_IA" || string(got.Inline) != "hi" {
		t.Fatalf("inline after its move: %+v %v", got, err)
	}
}

// testClassUsage: totals by class follow writes, moves and removals;
// STANDARD's is the bucket's total less the others'.
func testClassUsage(t *testing.T, s catalog.Store) {
	cl, ok := s.(catalog.Classes)
	if !ok {
		t.Skip("no storage classes")
	}
	bucket(t, s, "b")
	put(t, s, object("b", "std", 10))
	ia := object("b", "ia", 20)
	ia.StorageClass = "STANDARD_IA"
	put(t, s, ia)
	mv := put(t, s, object("b", "mv", 40))
	read, err := s.GetObject(ctx, "b", "mv", "")
	must(t, err)
	must(t, cl.MoveVersion(ctx, read, []catalog.Part{{BlobID: blob.NewID(), Size: 40}}, "GLACIER_IR"))
	u, err := cl.ClassUsage(ctx, "b")
	must(t, err)
	want := map[string]catalog.Usage{"STANDARD": {Bytes: 10, Objects: 1}, "STANDARD_IA": {Bytes: 20, Objects: 1}, "GLACIER_IR": {Bytes: 40, Objects: 1}}
	for c, w := range want {
		if u[c] != w {
			t.Fatalf("class usage %v, want %v", u, want)
		}
	}
	// The hourly sample splits the bucket's byte-hours by class too.
	hour := time.Now().UTC().Truncate(time.Hour)
	must(t, s.SampleStorage(ctx, hour))
	rows, err := s.UsageReport(ctx, "", hour, hour.Add(time.Hour))
	must(t, err)
	if len(rows) != 1 || rows[0].ByteHours != 70 || rows[0].ClassByteHours["STANDARD"] != 10 || rows[0].ClassByteHours["STANDARD_IA"] != 20 || rows[0].ClassByteHours["GLACIER_IR"] != 40 {
		t.Fatalf("usage report: %+v", rows)
	}
	if _, err := s.DeleteObject(ctx, "b", "ia", catalog.NullVersion, catalog.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	_ = mv
	u, err = cl.TenantClassUsage(ctx, "")
	must(t, err)
	if _, ok := u["STANDARD_IA"]; ok || u["GLACIER_IR"] != (catalog.Usage{Bytes: 40, Objects: 1}) || u["STANDARD"] != (catalog.Usage{Bytes: 10, Objects: 1}) {
		t.Fatalf("tenant class usage after a delete: %v", u)
	}
}

func sameIDs(a, b []catalog.Part) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].BlobID != b[i].BlobID {
			return false
		}
	}
	return true
}
