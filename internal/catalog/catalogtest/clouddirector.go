package catalogtest

import (
	"slices"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

// Cloud Director ids: set, replaced, looked up both ways, unique per
// kind, and gone with their tenant or user, so that a tenant made again
// under the name inherits none.
func testCloudDirector(t *testing.T, s catalog.Store) {
	wantErr(t, s.SetCloudDirectorIDs(ctx, "nope", "", []string{"org-1"}), catalog.ErrNoSuchTenant)
	tenant(t, s, "acme")
	tenant(t, s, "beta")
	wantErr(t, s.SetCloudDirectorIDs(ctx, "acme", "nobody", []string{"u-1"}), catalog.ErrNoSuchUser)
	must(t, s.CreateUser(ctx, catalog.User{Tenant: "acme", Name: "ann", Role: catalog.RoleAdmin, CanonicalID: "c-ann", CreatedAt: time.Now()}))

	ids := func(tenant, user string) []string {
		t.Helper()
		got, err := s.CloudDirectorIDs(ctx, tenant, user)
		must(t, err)
		return got
	}
	if got := ids("acme", ""); got == nil || len(got) != 0 {
		t.Fatalf("ids of a tenant with none = %#v, want an empty list", got)
	}
	must(t, s.SetCloudDirectorIDs(ctx, "acme", "", []string{"org-2", "org-1", "org-2"}))
	if got := ids("acme", ""); !slices.Equal(got, []string{"org-1", "org-2"}) {
		t.Fatalf("tenant ids = %v", got)
	}
	// A user's id is in its own space: the same string may name a tenant.
	must(t, s.SetCloudDirectorIDs(ctx, "acme", "ann", []string{"org-1"}))
	if got := ids("acme", "ann"); !slices.Equal(got, []string{"org-1"}) {
		t.Fatalf("user ids = %v", got)
	}
	if tn, u, err := s.FindCloudDirectorID(ctx, false, "org-2"); err != nil || tn != "acme" || u != "" {
		t.Fatalf("find tenant id = %q %q %v", tn, u, err)
	}
	if tn, u, err := s.FindCloudDirectorID(ctx, true, "org-1"); err != nil || tn != "acme" || u != "ann" {
		t.Fatalf("find user id = %q %q %v", tn, u, err)
	}
	_, _, err := s.FindCloudDirectorID(ctx, true, "org-2")
	wantErr(t, err, catalog.ErrNoSuchCloudDirectorID)

	// Another tenant cannot take an id, and the refusal changes nothing.
	wantErr(t, s.SetCloudDirectorIDs(ctx, "beta", "", []string{"org-3", "org-1"}), catalog.ErrCloudDirectorIDTaken)
	if got := ids("beta", ""); len(got) != 0 {
		t.Fatalf("beta's ids after a refused set = %v", got)
	}
	// Replacing drops what is not named again.
	must(t, s.SetCloudDirectorIDs(ctx, "acme", "", []string{"org-2"}))
	must(t, s.SetCloudDirectorIDs(ctx, "beta", "", []string{"org-1"}))

	must(t, s.DeleteUser(ctx, "acme", "ann"))
	_, _, err = s.FindCloudDirectorID(ctx, true, "org-1")
	wantErr(t, err, catalog.ErrNoSuchCloudDirectorID)
	must(t, s.DeleteTenant(ctx, "acme"))
	_, _, err = s.FindCloudDirectorID(ctx, false, "org-2")
	wantErr(t, err, catalog.ErrNoSuchCloudDirectorID)
	tenant(t, s, "acme")
	if got := ids("acme", ""); len(got) != 0 {
		t.Fatalf("a tenant made again under the name has ids %v", got)
	}
	if tn, _, err := s.FindCloudDirectorID(ctx, false, "org-1"); err != nil || tn != "beta" {
		t.Fatalf("beta's id = %q %v", tn, err)
	}
}
