package objects

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/blob/memory"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// recorder queues one event per change, naming the change and who made
// it, and fails the change of key "refused".
type recorder struct{}

func (recorder) Observe(ctx context.Context, c Change) ([]catalog.Event, error) {
	if c.Object.Key == "refused" {
		return nil, errors.New("no")
	}
	who := "lifecycle"
	if c.Identity != nil {
		who = c.Identity.CanonicalID
	}
	return []catalog.Event{{Sink: "test", Name: c.Name, Payload: []byte(who + "@" + c.Origin.SourceIP)}}, nil
}

// Every path that commits or removes a version hands its change to the
// observers, and the catalog queues their events with it: a write
// refused (by a condition, or by an observer) queues nothing.
func TestObserversSeeEveryChange(t *testing.T) {
	ctx := iam.WithOrigin(context.Background(), iam.Origin{SourceIP: "192.0.2.1"})
	cat := openCatalog(t)
	sealer, err := iam.NewSealer(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	svc := New(cat, memory.New(), iam.NewKeyring(cat, sealer, time.Minute, nil), Options{Observers: []Observer{recorder{}}})
	root := &iam.Identity{Root: true, CanonicalID: "id-root"}
	for _, b := range []string{"plain", "versioned"} {
		if err := svc.CreateBucket(ctx, root, BucketInput{Name: b}); err != nil {
			t.Fatal(err)
		}
	}
	if err := svc.PutBucketVersioning(ctx, root, "versioned", VersioningEnabled); err != nil {
		t.Fatal(err)
	}
	put := func(bucket, key string, cond catalog.PutOptions) (catalog.Object, error) {
		return svc.PutObject(ctx, root, PutInput{Bucket: bucket, Key: key, Cond: cond, Payload: Payload{Body: bytes.NewReader([]byte("data")), Size: 4}})
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	v1, err := put("versioned", "k", catalog.PutOptions{})
	must(err)
	_, err = put("versioned", "k", catalog.PutOptions{IfNoneMatch: true})
	if !errors.Is(err, ErrPreconditionFailed) {
		t.Fatalf("a conditional write over an object: %v", err)
	}
	if _, err := put("versioned", "refused", catalog.PutOptions{}); err == nil {
		t.Fatal("a write its observer refused succeeded")
	}
	_, _, err = svc.CopyObject(ctx, root, CopyInput{SrcBucket: "versioned", SrcKey: "k", Bucket: "plain", Key: "copy"})
	must(err)
	up, err := svc.CreateUpload(ctx, root, catalog.Upload{Bucket: "plain", Key: "mp"}, iam.ACLSpec{}, nil)
	must(err)
	p, _, err := svc.UploadPart(ctx, root, PartInput{Bucket: "plain", Key: "mp", UploadID: up.UploadID, Number: 1,
		Payload: Payload{Body: bytes.NewReader([]byte("part")), Size: 4}})
	must(err)
	_, err = svc.CompleteUpload(ctx, root, "plain", "mp", up.UploadID, []CompletePart{{Number: 1, ETag: p.ETag}}, CompleteOptions{})
	must(err)
	marker, err := svc.DeleteObject(ctx, root, "versioned", "k", "", false)
	must(err)
	_, err = svc.DeleteObject(ctx, root, "versioned", "k", v1.VersionID, false)
	must(err)
	_, err = svc.DeleteObjects(ctx, root, "plain", []DeleteTarget{{Key: "copy"}}, false)
	must(err)
	b, err := cat.GetBucket(ctx, "plain")
	must(err)
	mp, err := cat.GetObject(ctx, "plain", "mp", "")
	must(err)
	_, err = svc.LifecycleRemove(ctx, b, mp, true)
	must(err)

	es, err := cat.DueEvents(ctx, "test", 100)
	must(err)
	type seen struct{ key, version, name, payload string }
	var got []seen
	for _, e := range es {
		got = append(got, seen{e.Key, e.VersionID, e.Name, string(e.Payload)})
	}
	by := "id-root@192.0.2.1"
	want := []seen{
		{"k", v1.VersionID, EventPut, by}, // and not the refused write after it
		{"copy", catalog.NullVersion, EventCopy, by},
		{"mp", catalog.NullVersion, EventCompleteMultipart, by},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("events due (one per key)\n%v\nwant\n%v", got, want)
	}
	ids := func() (out []int64) {
		for _, e := range es {
			out = append(out, e.ID)
		}
		return out
	}
	// The rest, key by key as each head is acknowledged.
	var rest []seen
	for len(es) > 0 {
		must(cat.AckEvents(ctx, ids()...))
		if es, err = cat.DueEvents(ctx, "test", 100); err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			rest = append(rest, seen{e.Key, e.VersionID, e.Name, string(e.Payload)})
		}
	}
	want = []seen{
		{"k", marker.VersionID, EventDeleteMarker, by},
		{"copy", catalog.NullVersion, EventDelete, by},
		{"mp", catalog.NullVersion, EventExpirationDelete, "lifecycle@192.0.2.1"},
		{"k", v1.VersionID, EventDelete, by},
	}
	if !slices.Equal(rest, want) {
		t.Fatalf("later events\n%v\nwant\n%v", rest, want)
	}
}
