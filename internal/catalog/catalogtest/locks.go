package catalogtest

import (
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/objectlock"
)

// testLocks checks that a version's lock is kept, that no removal
// (DeleteObject, a replacing PutObject, PurgeBucket) passes a lock in
// force, that only a governance bypass lifts GOVERNANCE, and that a
// retention is never weakened without one.
func testLocks(t *testing.T, s catalog.Store) {
	bucket(t, s, "b")
	now := time.Now().UTC()
	hour, day := now.Add(time.Hour).Truncate(time.Millisecond), now.Add(24*time.Hour).Truncate(time.Millisecond)
	putLocked := func(key string, l catalog.Lock) catalog.Object {
		o := object("b", key, 10)
		o.Lock = l
		return put(t, s, o)
	}
	putLocked("compliance", catalog.Lock{Mode: objectlock.Compliance, RetainUntil: hour})
	putLocked("governance", catalog.Lock{Mode: objectlock.Governance, RetainUntil: hour})
	putLocked("hold", catalog.Lock{LegalHold: true})
	putLocked("expired", catalog.Lock{Mode: objectlock.Compliance, RetainUntil: now.Add(-time.Second)})
	putLocked("free", catalog.Lock{})

	got, err := s.GetObject(ctx, "b", "compliance", "")
	must(t, err)
	if got.Lock.Mode != objectlock.Compliance || !got.Lock.RetainUntil.Equal(hour) || got.Lock.LegalHold {
		t.Fatalf("Lock = %+v, want COMPLIANCE until %v", got.Lock, hour)
	}
	vs, err := s.ListVersions(ctx, "b", catalog.VersionQuery{Prefix: "hold", Limit: 10})
	must(t, err)
	if len(vs) != 1 || !vs[0].Lock.LegalHold {
		t.Fatalf("listed %+v, want the legal hold", vs)
	}

	bypass := catalog.DeleteOptions{BypassGovernance: true}
	for _, tc := range []struct {
		key  string
		opt  catalog.DeleteOptions
		want error
	}{
		{"compliance", catalog.DeleteOptions{}, catalog.ErrObjectLocked},
		{"compliance", bypass, catalog.ErrObjectLocked},
		{"hold", bypass, catalog.ErrObjectLocked},
		{"governance", catalog.DeleteOptions{}, catalog.ErrObjectLocked},
	} {
		_, err := s.DeleteObject(ctx, "b", tc.key, "", tc.opt)
		wantErr(t, err, tc.want)
		if _, err := s.GetObject(ctx, "b", tc.key, ""); err != nil {
			t.Fatalf("%s gone after a refused delete: %v", tc.key, err)
		}
	}
	// Nor is a locked version replaced in place.
	wantErr(t, s.PutObject(ctx, object("b", "compliance", 3), catalog.PutOptions{}), catalog.ErrObjectLocked)
	if got, _ := s.GetObject(ctx, "b", "compliance", ""); got.Size != 10 {
		t.Fatalf("locked version replaced: size %d", got.Size)
	}

	// A purge is refused before it deletes anything, even what is free.
	locked, err := s.HoldsLocked(ctx, "b", now)
	must(t, err)
	if !locked {
		t.Fatal("HoldsLocked = false with locked versions")
	}
	wantErr(t, s.PurgeBucket(ctx, "b"), catalog.ErrObjectLocked)
	if _, err := s.GetObject(ctx, "b", "free", ""); err != nil {
		t.Fatalf("a refused purge deleted a free version: %v", err)
	}

	// Retention changes.
	_, err = s.SetRetention(ctx, "b", "compliance", "", objectlock.Retention{Mode: objectlock.Compliance, Until: now.Add(time.Minute)}, catalog.ChangeOptions{BypassGovernance: true})
	wantErr(t, err, catalog.ErrObjectLocked)
	_, err = s.SetRetention(ctx, "b", "compliance", "", objectlock.Retention{Mode: objectlock.Governance, Until: day}, catalog.ChangeOptions{BypassGovernance: true})
	wantErr(t, err, catalog.ErrObjectLocked)
	_, err = s.SetRetention(ctx, "b", "compliance", "", objectlock.Retention{}, catalog.ChangeOptions{BypassGovernance: true})
	wantErr(t, err, catalog.ErrObjectLocked)
	o, err := s.SetRetention(ctx, "b", "compliance", "", objectlock.Retention{Mode: objectlock.Compliance, Until: day}, catalog.ChangeOptions{})
	must(t, err)
	if !o.Lock.RetainUntil.Equal(day) {
		t.Fatalf("extended to %v, want %v", o.Lock.RetainUntil, day)
	}
	if got, _ := s.GetObject(ctx, "b", "compliance", ""); !got.Lock.RetainUntil.Equal(day) {
		t.Fatalf("extension not kept: %+v", got.Lock)
	}
	_, err = s.SetRetention(ctx, "b", "governance", "", objectlock.Retention{Mode: objectlock.Governance, Until: now.Add(time.Minute)}, catalog.ChangeOptions{})
	wantErr(t, err, catalog.ErrObjectLocked)
	_, err = s.SetRetention(ctx, "b", "governance", "", objectlock.Retention{}, catalog.ChangeOptions{BypassGovernance: true})
	must(t, err)
	_, err = s.SetRetention(ctx, "b", "missing", "", objectlock.Retention{Mode: objectlock.Governance, Until: day}, catalog.ChangeOptions{})
	wantErr(t, err, catalog.ErrNoSuchObject)
	_, err = s.SetLegalHold(ctx, "b", "missing", "", true, catalog.ChangeOptions{})
	wantErr(t, err, catalog.ErrNoSuchObject)

	// Removals the locks allow.
	if _, err := s.DeleteObject(ctx, "b", "governance", "", catalog.DeleteOptions{}); err != nil {
		t.Fatalf("delete after retention removed: %v", err)
	}
	if _, err := s.DeleteObject(ctx, "b", "expired", "", catalog.DeleteOptions{}); err != nil {
		t.Fatalf("delete after retention expired: %v", err)
	}
	putLocked("governance", catalog.Lock{Mode: objectlock.Governance, RetainUntil: hour})
	if _, err := s.DeleteObject(ctx, "b", "governance", "", bypass); err != nil {
		t.Fatalf("delete with governance bypass: %v", err)
	}
	o, err = s.SetLegalHold(ctx, "b", "hold", "", false, catalog.ChangeOptions{})
	must(t, err)
	if o.Lock.LegalHold {
		t.Fatal("legal hold still on")
	}
	if _, err := s.DeleteObject(ctx, "b", "hold", "", catalog.DeleteOptions{}); err != nil {
		t.Fatalf("delete after legal hold lifted: %v", err)
	}
	if _, err := s.SetLegalHold(ctx, "b", "free", "", true, catalog.ChangeOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = s.DeleteObject(ctx, "b", "free", "", bypass)
	wantErr(t, err, catalog.ErrObjectLocked)

	// An expired retention holds nothing: once only it remains (and
	// the holds are lifted), the bucket can be purged.
	must(t, s.PutObject(ctx, object("b", "later", 1), catalog.PutOptions{}))
	_, err = s.SetLegalHold(ctx, "b", "free", "", false, catalog.ChangeOptions{})
	must(t, err)
	locked, err = s.HoldsLocked(ctx, "b", day.Add(time.Second))
	must(t, err)
	if locked {
		t.Fatal("HoldsLocked after every retention ends")
	}

	// An upload keeps the lock its object will carry.
	u := catalog.Upload{Bucket: "b", Key: "mp", UploadID: "u1", Initiated: now, Owner: "owner", StorageClass: "STANDARD",
		Lock: catalog.Lock{Mode: objectlock.Governance, RetainUntil: hour, LegalHold: true}}
	must(t, s.CreateUpload(ctx, u))
	gu, err := s.GetUpload(ctx, "b", "mp", "u1")
	must(t, err)
	if gu.Lock.Mode != u.Lock.Mode || !gu.Lock.RetainUntil.Equal(hour) || !gu.Lock.LegalHold {
		t.Fatalf("upload Lock = %+v, want %+v", gu.Lock, u.Lock)
	}
}
