package catalogtest

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

func event(sink, name string) catalog.Event {
	return catalog.Event{Sink: sink, Name: name, Payload: []byte(name)}
}

// dueNames returns "key:name" of the due events of sink.
func dueNames(t *testing.T, s catalog.Store, sink string) ([]string, []catalog.Event) {
	t.Helper()
	es, err := s.DueEvents(ctx, sink, 100)
	must(t, err)
	var out []string
	for _, e := range es {
		out = append(out, e.Key+":"+e.Name)
	}
	return out, es
}

// Events go in with the write that made them and only then; a key's are
// handed out one at a time, in order, while other keys' go on.
func testOutbox(t *testing.T, s catalog.Store) {
	bucket(t, s, "b")
	o := object("b", "a", 1)
	o.VersionID = "v1"
	must(t, s.PutObject(ctx, o, catalog.PutOptions{Events: []catalog.Event{event("repl", "put1"), event("notify", "put1")}}))
	o2 := object("b", "a", 2)
	o2.VersionID = "v2"
	must(t, s.PutObject(ctx, o2, catalog.PutOptions{Events: []catalog.Event{event("repl", "put2")}}))
	// A write refused in its transaction queues nothing.
	wantErr(t, s.PutObject(ctx, object("b", "a", 3), catalog.PutOptions{IfNoneMatch: true, Events: []catalog.Event{event("repl", "refused")}}),
		catalog.ErrPreconditionFailed)
	wantErr(t, s.PutObject(ctx, object("none", "a", 3), catalog.PutOptions{Events: []catalog.Event{event("repl", "nobucket")}}),
		catalog.ErrNoSuchBucket)
	must(t, s.PutObject(ctx, object("b", "c", 1), catalog.PutOptions{Events: []catalog.Event{event("repl", "putc")}}))
	must(t, s.AddEvents(ctx, []catalog.Event{{Sink: "repl", Bucket: "b", Key: "d", VersionID: "x", Name: "backfill"}}))

	got, es := dueNames(t, s, "repl")
	if want := []string{"a:put1", "c:putc", "d:backfill"}; !slices.Equal(got, want) {
		t.Fatalf("due = %v, want %v (one per key, oldest first)", got, want)
	}
	if e := es[0]; e.Bucket != "b" || e.VersionID != "v1" || string(e.Payload) != "put1" || e.Attempts != 0 || time.Since(e.CreatedAt) > time.Minute {
		t.Fatalf("event = %+v", e)
	}
	if got, _ := dueNames(t, s, "notify"); !slices.Equal(got, []string{"a:put1"}) {
		t.Fatalf("the other sink's due = %v", got)
	}
	n, oldest, err := s.Backlog(ctx, "repl", "")
	must(t, err)
	if n != 4 || oldest.IsZero() {
		t.Fatalf("backlog = %d, %v", n, oldest)
	}

	// A retried head holds its key's later events back, and only those.
	must(t, s.RetryEvent(ctx, es[0].ID, time.Now().Add(time.Hour), "target down"))
	if got, _ := dueNames(t, s, "repl"); !slices.Equal(got, []string{"c:putc", "d:backfill"}) {
		t.Fatalf("due while a's first is retried = %v", got)
	}
	must(t, s.RetryEvent(ctx, es[0].ID, time.Now().Add(-time.Second), "target down again"))
	got, es = dueNames(t, s, "repl")
	if !slices.Equal(got, []string{"a:put1", "c:putc", "d:backfill"}) || es[0].Attempts != 2 || es[0].LastError != "target down again" {
		t.Fatalf("due after the retry = %v %+v", got, es[0])
	}
	must(t, s.AckEvents(ctx, es[0].ID, es[1].ID, es[2].ID))
	got, es = dueNames(t, s, "repl")
	if !slices.Equal(got, []string{"a:put2"}) || es[0].VersionID != "v2" {
		t.Fatalf("due after acks = %v", got)
	}

	// A removal's events name the version removed.
	_, err = s.DeleteObject(ctx, "b", "a", "v1", catalog.DeleteOptions{Events: []catalog.Event{event("repl", "del")}})
	must(t, err)
	_, err = s.DeleteObject(ctx, "b", "a", "v1", catalog.DeleteOptions{Events: []catalog.Event{event("repl", "gone")}})
	wantErr(t, err, catalog.ErrNoSuchObject)
	must(t, s.AckEvents(ctx, es[0].ID))
	_, es = dueNames(t, s, "repl")
	if len(es) != 1 || es[0].Name != "del" || es[0].VersionID != "v1" {
		t.Fatalf("due after the delete = %+v", es)
	}
	if n, _, err := s.Backlog(ctx, "repl", "other"); err != nil || n != 0 {
		t.Fatalf("another bucket's backlog = %d, %v", n, err)
	}
	// A payload past the bound is refused with the write, not cut.
	big := event("repl", "big")
	big.Payload = make([]byte, 1<<20)
	if err := s.PutObject(ctx, object("b", "e", 1), catalog.PutOptions{Events: []catalog.Event{big}}); err == nil {
		t.Fatal("an event of 1 MiB was queued")
	}
	if _, err := s.GetObject(ctx, "b", "e", ""); err == nil {
		t.Fatal("the write of a refused event committed")
	}
}

// Writers of one key racing: its events come out in the order the
// versions were committed (their seq), which is what a replica or a
// listener must apply them in.
func testOutboxOrder(t *testing.T, s catalog.Store) {
	bucket(t, s, "b")
	const writers, each = 8, 10
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				o := object("b", "k", 1)
				o.VersionID = fmt.Sprintf("w%d-%d", w, i)
				if err := s.PutObject(ctx, o, catalog.PutOptions{Events: []catalog.Event{event("repl", o.VersionID)}}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	vs, err := s.ListVersions(ctx, "b", catalog.VersionQuery{Limit: 1000})
	must(t, err)
	var committed []string
	for _, v := range vs {
		committed = append(committed, v.VersionID)
	}
	slices.Reverse(committed) // newest first
	var delivered []string
	for {
		es, err := s.DueEvents(ctx, "repl", 10)
		must(t, err)
		if len(es) == 0 {
			break
		}
		if len(es) != 1 {
			t.Fatalf("%d events of one key due at once", len(es))
		}
		delivered = append(delivered, es[0].Name)
		must(t, s.AckEvents(ctx, es[0].ID))
	}
	if len(committed) != writers*each || !slices.Equal(delivered, committed) {
		t.Fatalf("events in order\n%v\nversions in commit order\n%v", delivered, committed)
	}
}
