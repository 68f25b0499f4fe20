package catalogtest

import (
	"slices"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/objectlock"
)

// A change of a version's tags, ACL, retention or legal hold queues its
// events and sets its status in its own transaction, naming the version
// changed (the current one when none is named); a change refused
// queues nothing and leaves the status as it was.
func testChangeEvents(t *testing.T, s catalog.Store) {
	ot := objectTags(t, s)
	bucket(t, s, "b")
	o := object("b", "k", 1)
	o.VersionID = "v1"
	o.Meta.Replication = "COMPLETED"
	put(t, s, o)
	change := func(name string) catalog.ChangeOptions {
		return catalog.ChangeOptions{Events: []catalog.Event{event("repl", name)}, Replication: "PENDING"}
	}
	day := time.Now().Add(24 * time.Hour).UTC().Truncate(time.Second)
	must(t, ot.SetObjectTags(ctx, "b", "k", "", map[string]string{"t": "1"}, change("tags")))
	must(t, s.SetObjectACL(ctx, "b", "k", "v1", "acl", change("acl")))
	_, err := s.SetRetention(ctx, "b", "k", "", objectlock.Retention{Mode: objectlock.Governance, Until: day}, change("retention"))
	must(t, err)
	_, err = s.SetLegalHold(ctx, "b", "k", "v1", true, change("hold"))
	must(t, err)

	// Refused: absent, a weakened retention, a delete marker.
	wantErr(t, ot.SetObjectTags(ctx, "b", "nope", "", nil, change("refused")), catalog.ErrNoSuchObject)
	_, err = s.SetRetention(ctx, "b", "k", "", objectlock.Retention{}, change("refused"))
	wantErr(t, err, catalog.ErrObjectLocked)
	_, err = s.SetLegalHold(ctx, "b", "nope", "", true, change("refused"))
	wantErr(t, err, catalog.ErrNoSuchObject)

	var names []string
	for {
		_, es := dueNames(t, s, "repl")
		if len(es) == 0 {
			break
		}
		for _, e := range es {
			if e.Bucket != "b" || e.Key != "k" || e.VersionID != "v1" {
				t.Fatalf("event %s names %s/%s %s", e.Name, e.Bucket, e.Key, e.VersionID)
			}
			names = append(names, e.Name)
			must(t, s.AckEvents(ctx, e.ID))
		}
	}
	if want := []string{"tags", "acl", "retention", "hold"}; !slices.Equal(names, want) {
		t.Fatalf("events %v, want %v, in order", names, want)
	}
	got, err := s.GetObject(ctx, "b", "k", "")
	must(t, err)
	if got.Meta.Replication != "PENDING" || got.Meta.Tags["t"] != "1" || got.Meta.ACL != "acl" ||
		!got.Lock.LegalHold || !got.Lock.RetainUntil.Equal(day) || got.Meta.User["a"] != "b" {
		t.Fatalf("after the changes: %+v", got)
	}
	// No status asked: the status is left as it is.
	must(t, s.SetReplicationStatus(ctx, "b", "k", "v1", "COMPLETED"))
	_, err = s.SetLegalHold(ctx, "b", "k", "", false, catalog.ChangeOptions{})
	must(t, err)
	must(t, ot.SetObjectTags(ctx, "b", "k", "", nil, catalog.ChangeOptions{}))
	if got, _ := s.GetObject(ctx, "b", "k", ""); got.Meta.Replication != "COMPLETED" || got.Lock.LegalHold {
		t.Fatalf("status after changes without one: %q, %+v", got.Meta.Replication, got.Lock)
	}
}

// The outcome of a delivery is recorded unless a later event of the same
// sink for the same version waits: that change keeps its status until
// its own outcome.
func testSettleReplication(t *testing.T, s catalog.Store) {
	ot := objectTags(t, s)
	bucket(t, s, "b")
	o := object("b", "k", 1)
	o.VersionID = "v1"
	must(t, s.PutObject(ctx, o, catalog.PutOptions{Events: []catalog.Event{event("repl", "put")}}))
	statusOf := func() string {
		t.Helper()
		got, err := s.GetObject(ctx, "b", "k", "v1")
		must(t, err)
		return got.Meta.Replication
	}
	_, es := dueNames(t, s, "repl")
	first := es[0]
	must(t, ot.SetObjectTags(ctx, "b", "k", "v1", map[string]string{"a": "1"},
		catalog.ChangeOptions{Events: []catalog.Event{event("repl", "tags")}, Replication: "PENDING"}))
	// Another version's event, or another sink's, holds nothing back.
	o2 := object("b", "k", 1)
	o2.VersionID = "v2"
	must(t, s.PutObject(ctx, o2, catalog.PutOptions{Events: []catalog.Event{event("repl", "put2"), event("other", "put2")}}))

	must(t, s.SettleReplicationStatus(ctx, first, "FAILED", event("notify", "failed")))
	if got := statusOf(); got != "PENDING" {
		t.Fatalf("settled while a later change waits: %q", got)
	}
	if names, _ := dueNames(t, s, "notify"); len(names) != 0 {
		t.Fatalf("a status not set queued its events: %v", names)
	}
	must(t, s.AckEvents(ctx, first.ID))
	_, es = dueNames(t, s, "repl")
	if len(es) != 1 || es[0].Name != "tags" {
		t.Fatalf("due after the first = %+v", es)
	}
	must(t, s.SettleReplicationStatus(ctx, es[0], "FAILED", event("notify", "failed")))
	if got := statusOf(); got != "FAILED" {
		t.Fatalf("settled by the last change: %q", got)
	}
	// The failure's events are queued with the status, naming the version.
	if names, ne := dueNames(t, s, "notify"); len(names) != 1 || names[0] != "k:failed" || ne[0].VersionID != "v1" {
		t.Fatalf("events of the failure: %v", names)
	}
	wantErr(t, s.SettleReplicationStatus(ctx, catalog.Event{Sink: "repl", Bucket: "b", Key: "nope", VersionID: "v1", ID: es[0].ID}, "COMPLETED"),
		catalog.ErrNoSuchObject)
}
