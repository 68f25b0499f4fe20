package catalogtest

import (
	"maps"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

// Nodes' demands for a scope add up over the window asked for; a node's
// later report replaces its earlier one; scopes not asked for are not
// told.
func testRateDemand(t *testing.T, s catalog.Store) {
	start := time.Now()
	got, err := s.ShareDemand(ctx, "n1", map[string]int64{"t/a": 30, "t/b": 5}, start.Add(-time.Second))
	must(t, err)
	if want := map[string]int64{"t/a": 30, "t/b": 5}; !maps.Equal(got, want) {
		t.Fatalf("first node's totals %v, want %v", got, want)
	}
	got, err = s.ShareDemand(ctx, "n2", map[string]int64{"t/a": 10}, start.Add(-time.Second))
	must(t, err)
	if want := map[string]int64{"t/a": 40}; !maps.Equal(got, want) {
		t.Fatalf("second node's totals %v, want %v", got, want)
	}
	got, err = s.ShareDemand(ctx, "n1", map[string]int64{"t/a": 20}, start.Add(-time.Second))
	must(t, err)
	if want := map[string]int64{"t/a": 30}; !maps.Equal(got, want) {
		t.Fatalf("after n1's new report %v, want %v", got, want)
	}
	// Outside the window, a report does not count.
	got, err = s.ShareDemand(ctx, "n3", map[string]int64{"t/a": 1}, time.Now().Add(time.Hour))
	must(t, err)
	if len(got) != 0 {
		t.Fatalf("totals of a window in the future %v", got)
	}
	q := catalog.Quota{Tenant: "acme", RequestsPerSec: 100, BytesInPerSec: 1 << 20, BytesOutPerSec: 2 << 20}
	must(t, s.CreateTenant(ctx, catalog.Tenant{Name: "acme", Status: catalog.TenantActive, CanonicalID: "c-acme", CreatedAt: time.Now()}))
	must(t, s.SetQuota(ctx, q))
	qs, err := s.ListQuotas(ctx, "acme")
	must(t, err)
	if len(qs) != 1 || qs[0] != q {
		t.Fatalf("quotas %+v, want %+v", qs, q)
	}
}
