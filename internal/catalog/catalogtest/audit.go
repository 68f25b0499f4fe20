package catalogtest

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

func auditLog(t *testing.T, s catalog.Store) catalog.AuditLog {
	t.Helper()
	a, ok := s.(catalog.AuditLog)
	if !ok {
		t.Fatalf("%T keeps no audit log", s)
	}
	return a
}

func testAudit(t *testing.T, s catalog.Store) {
	a := auditLog(t, s)
	t0 := time.Now().UTC().Add(-time.Hour).Truncate(time.Microsecond)
	add := func(at time.Time, tenant, action string) int64 {
		t.Helper()
		id, err := a.AppendAudit(ctx, catalog.AuditEntry{Time: at, AccessKey: "AK" + tenant, Tenant: tenant, User: "u", Root: tenant == "",
			Action: action, Target: "bucket/b", Source: "192.0.2.1", Outcome: "ok", Status: 200, RequestID: "R1"})
		must(t, err)
		return id
	}
	id1 := add(t0, "", "admin:CreateTenant")
	id2 := add(t0.Add(time.Minute), "acme", "s3:PutBucketPolicy")
	id3 := add(t0.Add(2*time.Minute), "other", "admin:ListUsers")
	if !(id1 < id2 && id2 < id3) {
		t.Fatalf("ids %d %d %d do not increase", id1, id2, id3)
	}
	list := func(q catalog.AuditQuery) string {
		t.Helper()
		es, err := a.ListAudit(ctx, q)
		must(t, err)
		var out []string
		for _, e := range es {
			out = append(out, e.Action)
		}
		return strings.Join(out, ",")
	}
	if got := list(catalog.AuditQuery{}); got != "admin:CreateTenant,s3:PutBucketPolicy,admin:ListUsers" {
		t.Fatalf("all = %s", got)
	}
	es, err := a.ListAudit(ctx, catalog.AuditQuery{Tenant: "acme"})
	must(t, err)
	want := catalog.AuditEntry{ID: id2, Time: t0.Add(time.Minute), AccessKey: "AKacme", Tenant: "acme", User: "u",
		Action: "s3:PutBucketPolicy", Target: "bucket/b", Source: "192.0.2.1", Outcome: "ok", Status: 200, RequestID: "R1"}
	if len(es) != 1 || fmt.Sprint(es[0]) != fmt.Sprint(want) {
		t.Fatalf("tenant acme = %+v, want %+v", es, want)
	}
	for name, c := range map[string]struct {
		q    catalog.AuditQuery
		want string
	}{
		"provider":  {catalog.AuditQuery{Provider: true}, "admin:CreateTenant"},
		"from":      {catalog.AuditQuery{From: t0.Add(time.Minute)}, "s3:PutBucketPolicy,admin:ListUsers"},
		"to":        {catalog.AuditQuery{To: t0.Add(time.Minute)}, "admin:CreateTenant"},
		"after":     {catalog.AuditQuery{After: id1, Limit: 1}, "s3:PutBucketPolicy"},
		"after end": {catalog.AuditQuery{After: id3}, ""},
	} {
		if got := list(c.q); got != c.want {
			t.Errorf("%s: %s, want %s", name, got, c.want)
		}
	}

	n, err := a.PruneAudit(ctx, t0.Add(90*time.Second), 1000)
	must(t, err)
	if n != 2 {
		t.Fatalf("PruneAudit removed %d, want 2", n)
	}
	if got := list(catalog.AuditQuery{}); got != "admin:ListUsers" {
		t.Fatalf("after prune: %s", got)
	}
	// Ids keep increasing after a prune: a reader's cursor stays valid.
	if id4 := add(time.Now(), "", "admin:ListTenants"); id4 <= id3 {
		t.Fatalf("id after prune %d <= %d", id4, id3)
	}
}

// testAuditConcurrent appends from many writers at once: every entry is
// kept under its own id.
func testAuditConcurrent(t *testing.T, s catalog.Store) {
	a := auditLog(t, s)
	var wg sync.WaitGroup
	ids := make([]int64, 40)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id, err := a.AppendAudit(ctx, catalog.AuditEntry{Time: time.Now(), Action: fmt.Sprint(i), Outcome: "ok"})
			if err != nil {
				t.Error(err)
			}
			ids[i] = id
		}()
	}
	wg.Wait()
	es, err := a.ListAudit(ctx, catalog.AuditQuery{})
	must(t, err)
	seen := map[int64]bool{}
	for _, e := range es {
		seen[e.ID] = true
	}
	if len(es) != len(ids) || len(seen) != len(ids) {
		t.Fatalf("%d entries with %d ids, want %d", len(es), len(seen), len(ids))
	}
}

func testStartKey(t *testing.T, s catalog.Store) {
	r, ok := s.(catalog.RootKeys)
	if !ok {
		t.Fatalf("%T cannot replace start keys", s)
	}
	root := func(ak, source string) catalog.AccessKey {
		return catalog.AccessKey{AccessKey: ak, SecretSealed: []byte(ak), Owner: "root-id", DisplayName: "root", CreatedAt: time.Now(), Source: source}
	}
	must(t, s.PutAccessKey(ctx, root("API1", catalog.SourceAPI)))
	must(t, s.PutAccessKey(ctx, root("GEN1", catalog.SourceGenerated)))
	advances(t, s, "ReplaceStartKey", func() error { return r.ReplaceStartKey(ctx, root("ENV1", catalog.SourceEnv)) })
	must(t, r.ReplaceStartKey(ctx, root("ENV1", catalog.SourceEnv))) // again: no change
	must(t, r.ReplaceStartKey(ctx, root("ENV2", catalog.SourceEnv)))
	keys := func() string {
		ks, err := s.ListAccessKeys(ctx, "", "root")
		must(t, err)
		var out []string
		for _, k := range ks {
			out = append(out, k.AccessKey+"="+k.Source)
		}
		return strings.Join(out, ",")
	}
	if got := keys(); got != "API1=api,ENV2=env,GEN1=generated" {
		t.Fatalf("root keys = %s", got)
	}
	// A generated key given as the start key becomes it.
	must(t, r.ReplaceStartKey(ctx, root("GEN1", catalog.SourceEnv)))
	if got := keys(); got != "API1=api,GEN1=env" {
		t.Fatalf("root keys = %s", got)
	}
	must(t, s.PutAccessKey(ctx, catalog.AccessKey{AccessKey: "USER1", SecretSealed: []byte{1}, Owner: "someone", Tenant: "t", User: "u", CreatedAt: time.Now()}))
	wantErr(t, r.ReplaceStartKey(ctx, root("USER1", catalog.SourceEnv)), catalog.ErrAccessKeyExists)
	if got := keys(); got != "API1=api,GEN1=env" {
		t.Fatalf("a refused replacement changed the root keys: %s", got)
	}
}
