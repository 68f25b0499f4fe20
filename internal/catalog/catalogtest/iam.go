package catalogtest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

func iamStore(t *testing.T, s catalog.Store) catalog.IAM {
	t.Helper()
	st, ok := s.(catalog.IAM)
	if !ok {
		t.Fatalf("%T does not hold IAM entities (catalog.IAM)", s)
	}
	tenant(t, s, "acme")
	tenant(t, s, "beta")
	for _, u := range []string{"ann", "bob"} {
		must(t, s.CreateUser(ctx, catalog.User{Tenant: "acme", Name: u, Role: catalog.RoleUser, CanonicalID: "c-" + u, CreatedAt: time.Now()}))
	}
	return st
}

const (
	docA = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}`
	docB = `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Action":"s3:*","Resource":"*"}]}`
	docC = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:GetUser","Resource":"*"}]}`
)

// Groups: names unique without case, membership with its limit, a
// group in use refused deletion, and nothing seen from another tenant.
func testIAMGroups(t *testing.T, s catalog.Store) {
	st := iamStore(t, s)
	advances(t, s, "CreateGroup", func() error {
		return st.CreateGroup(ctx, catalog.Group{Tenant: "acme", Name: "Devs", Path: "/eng/", ID: "AGPADEVS", Created: time.Now()})
	})
	wantErr(t, st.CreateGroup(ctx, catalog.Group{Tenant: "acme", Name: "devs", Path: "/", ID: "X"}), catalog.ErrEntityExists)
	wantErr(t, st.CreateGroup(ctx, catalog.Group{Tenant: "nope", Name: "devs", Path: "/", ID: "X"}), catalog.ErrNoSuchTenant)
	g, err := st.GetGroup(ctx, "acme", "DEVS")
	must(t, err)
	if g.Name != "Devs" || g.Path != "/eng/" || g.ID != "AGPADEVS" {
		t.Fatalf("group = %+v", g)
	}
	_, err = st.GetGroup(ctx, "beta", "devs")
	wantErr(t, err, catalog.ErrNoSuchEntity)

	advances(t, s, "AddUserToGroup", func() error { return st.AddUserToGroup(ctx, "acme", "devs", "ann") })
	must(t, st.AddUserToGroup(ctx, "acme", "Devs", "ann")) // again: no change
	wantErr(t, st.AddUserToGroup(ctx, "acme", "devs", "nobody"), catalog.ErrNoSuchUser)
	wantErr(t, st.AddUserToGroup(ctx, "acme", "ops", "ann"), catalog.ErrNoSuchEntity)
	wantErr(t, st.AddUserToGroup(ctx, "beta", "devs", "ann"), catalog.ErrNoSuchEntity)
	if m, err := st.GroupMembers(ctx, "acme", "devs"); err != nil || !slices.Equal(m, []string{"ann"}) {
		t.Fatalf("members = %v %v", m, err)
	}
	if gs, err := st.UserGroups(ctx, "acme", "ann"); err != nil || len(gs) != 1 || gs[0].Name != "Devs" {
		t.Fatalf("ann's groups = %+v %v", gs, err)
	}
	wantErr(t, st.DeleteGroup(ctx, "acme", "devs"), catalog.ErrDeleteConflict)
	for i := range catalog.MaxGroupsPerUser - 1 {
		name := fmt.Sprintf("g%d", i)
		must(t, st.CreateGroup(ctx, catalog.Group{Tenant: "acme", Name: name, Path: "/", ID: "AGPA" + name}))
		must(t, st.AddUserToGroup(ctx, "acme", name, "ann"))
	}
	must(t, st.CreateGroup(ctx, catalog.Group{Tenant: "acme", Name: "one-too-many", Path: "/", ID: "AGPAX"}))
	wantErr(t, st.AddUserToGroup(ctx, "acme", "one-too-many", "ann"), catalog.ErrLimitExceeded)
	gs, err := st.ListGroups(ctx, "acme")
	must(t, err)
	if len(gs) != catalog.MaxGroupsPerUser+1 || gs[0].Name != "Devs" {
		t.Fatalf("groups = %+v", gs)
	}
	if gs, err := st.ListGroups(ctx, "beta"); err != nil || len(gs) != 0 {
		t.Fatalf("beta's groups = %+v %v", gs, err)
	}

	wantErr(t, st.RemoveUserFromGroup(ctx, "acme", "devs", "bob"), catalog.ErrNoSuchEntity)
	must(t, st.RemoveUserFromGroup(ctx, "acme", "devs", "ann"))
	must(t, st.DeleteGroup(ctx, "acme", "devs"))
	wantErr(t, st.DeleteGroup(ctx, "acme", "devs"), catalog.ErrNoSuchEntity)

	// A user deleted leaves no membership behind for one made again.
	must(t, s.DeleteUser(ctx, "acme", "ann"))
	must(t, s.CreateUser(ctx, catalog.User{Tenant: "acme", Name: "ann", Role: catalog.RoleUser, CanonicalID: "c-ann2", CreatedAt: time.Now()}))
	if gs, err := st.UserGroups(ctx, "acme", "ann"); err != nil || len(gs) != 0 {
		t.Fatalf("a new ann inherits groups: %+v %v", gs, err)
	}
}

// Managed policies: versions (at most five, one default, numbers never
// reused), attachment with its limit, and deletion refused while in use.
func testIAMPolicies(t *testing.T, s catalog.Store) {
	st := iamStore(t, s)
	now := time.Now()
	p, err := st.CreatePolicy(ctx, catalog.ManagedPolicy{Tenant: "acme", Name: "Read", Path: "/", ID: "ANPAREAD", Description: "reads", Created: now}, docA)
	must(t, err)
	if p.DefaultVersion != "v1" {
		t.Fatalf("created = %+v", p)
	}
	_, err = st.CreatePolicy(ctx, catalog.ManagedPolicy{Tenant: "acme", Name: "READ", Path: "/", ID: "X"}, docA)
	wantErr(t, err, catalog.ErrEntityExists)
	v2, err := st.CreatePolicyVersion(ctx, "acme", "read", docB, false)
	must(t, err)
	if v2.ID != "v2" {
		t.Fatalf("second version = %+v", v2)
	}
	for range catalog.MaxPolicyVersions - 2 {
		_, err := st.CreatePolicyVersion(ctx, "acme", "read", docB, false)
		must(t, err)
	}
	_, err = st.CreatePolicyVersion(ctx, "acme", "read", docB, true)
	wantErr(t, err, catalog.ErrLimitExceeded)
	vs, err := st.ListPolicyVersions(ctx, "acme", "read")
	must(t, err)
	if len(vs) != catalog.MaxPolicyVersions || vs[0].ID != "v5" || !vs[len(vs)-1].Default || vs[len(vs)-1].Document != docA {
		t.Fatalf("versions = %+v", vs)
	}
	wantErr(t, st.DeletePolicyVersion(ctx, "acme", "read", "v1"), catalog.ErrDeleteConflict)
	wantErr(t, st.SetDefaultPolicyVersion(ctx, "acme", "read", "v9"), catalog.ErrNoSuchEntity)
	advances(t, s, "SetDefaultPolicyVersion", func() error { return st.SetDefaultPolicyVersion(ctx, "acme", "read", "v2") })
	must(t, st.DeletePolicyVersion(ctx, "acme", "read", "v5"))
	v6, err := st.CreatePolicyVersion(ctx, "acme", "read", docC, true)
	must(t, err)
	if v6.ID != "v6" { // a deleted version's number is not reused
		t.Fatalf("version after a deletion = %s", v6.ID)
	}
	if v, err := st.GetPolicyVersion(ctx, "acme", "read", "v6"); err != nil || !v.Default || v.Document != docC {
		t.Fatalf("v6 = %+v %v", v, err)
	}
	if p, err := st.GetPolicy(ctx, "acme", "read"); err != nil || p.DefaultVersion != "v6" {
		t.Fatalf("policy = %+v %v", p, err)
	}
	_, err = st.GetPolicy(ctx, "beta", "read")
	wantErr(t, err, catalog.ErrNoSuchEntity)

	// Attachments.
	must(t, st.CreateGroup(ctx, catalog.Group{Tenant: "acme", Name: "devs", Path: "/", ID: "AGPA1"}))
	must(t, st.CreateRole(ctx, catalog.Role{Tenant: "acme", Name: "Builder", Path: "/", ID: "AROA1", TrustPolicy: docA, MaxSessionDuration: 3600}))
	for _, k := range [][2]string{{catalog.PrincipalUser, "ann"}, {catalog.PrincipalGroup, "DEVS"}, {catalog.PrincipalRole, "builder"}} {
		advances(t, s, "AttachPolicy "+k[0], func() error { return st.AttachPolicy(ctx, "acme", k[0], k[1], "Read") })
		must(t, st.AttachPolicy(ctx, "acme", k[0], k[1], "read"))
		ps, err := st.AttachedPolicies(ctx, "acme", k[0], k[1])
		must(t, err)
		if len(ps) != 1 || ps[0].Name != "Read" || ps[0].AttachmentCount != 3 && k[0] == catalog.PrincipalRole {
			t.Fatalf("attached to %s = %+v", k, ps)
		}
	}
	wantErr(t, st.AttachPolicy(ctx, "acme", catalog.PrincipalUser, "nobody", "read"), catalog.ErrNoSuchUser)
	wantErr(t, st.AttachPolicy(ctx, "acme", catalog.PrincipalUser, "ann", "nope"), catalog.ErrNoSuchEntity)
	wantErr(t, st.AttachPolicy(ctx, "beta", catalog.PrincipalUser, "ann", "read"), catalog.ErrNoSuchEntity)
	wantErr(t, st.DeletePolicy(ctx, "acme", "read"), catalog.ErrDeleteConflict)
	for i := range catalog.MaxAttachedPolicies - 1 {
		name := fmt.Sprintf("p%d", i)
		_, err := st.CreatePolicy(ctx, catalog.ManagedPolicy{Tenant: "acme", Name: name, Path: "/", ID: "ANPA" + name}, docA)
		must(t, err)
		must(t, st.AttachPolicy(ctx, "acme", catalog.PrincipalUser, "bob", name))
	}
	_, err = st.CreatePolicy(ctx, catalog.ManagedPolicy{Tenant: "acme", Name: "last", Path: "/", ID: "ANPALAST"}, docA)
	must(t, err)
	must(t, st.AttachPolicy(ctx, "acme", catalog.PrincipalUser, "bob", "last"))
	wantErr(t, st.AttachPolicy(ctx, "acme", catalog.PrincipalUser, "bob", "read"), catalog.ErrLimitExceeded)

	// In use: a role with a policy, a policy attached or with versions.
	wantErr(t, st.DeleteRole(ctx, "acme", "builder"), catalog.ErrDeleteConflict)
	for _, k := range [][2]string{{catalog.PrincipalUser, "ann"}, {catalog.PrincipalGroup, "devs"}, {catalog.PrincipalRole, "builder"}} {
		must(t, st.DetachPolicy(ctx, "acme", k[0], k[1], "read"))
		wantErr(t, st.DetachPolicy(ctx, "acme", k[0], k[1], "read"), catalog.ErrNoSuchEntity)
	}
	wantErr(t, st.DeletePolicy(ctx, "acme", "read"), catalog.ErrDeleteConflict) // versions besides the default
	for _, v := range []string{"v1", "v2", "v3", "v4"} {
		must(t, st.DeletePolicyVersion(ctx, "acme", "read", v))
	}
	must(t, st.DeletePolicy(ctx, "acme", "read"))
	must(t, st.DeleteRole(ctx, "acme", "builder"))
	// A policy made again under the name starts from v1, alone.
	_, err = st.CreatePolicy(ctx, catalog.ManagedPolicy{Tenant: "acme", Name: "read", Path: "/", ID: "ANPA2"}, docC)
	must(t, err)
	if vs, err := st.ListPolicyVersions(ctx, "acme", "read"); err != nil || len(vs) != 1 || vs[0].ID != "v1" || vs[0].Document != docC {
		t.Fatalf("versions of a policy made again = %+v %v", vs, err)
	}
}

// Inline policies and the identity policies of users and roles: a
// user's own, its groups', attached defaults; a user with any of them,
// or with a key, is not deleted through IAM.
func testIAMIdentityPolicies(t *testing.T, s catalog.Store) {
	st := iamStore(t, s)
	must(t, st.CreateGroup(ctx, catalog.Group{Tenant: "acme", Name: "Devs", Path: "/", ID: "AGPA1"}))
	must(t, st.AddUserToGroup(ctx, "acme", "devs", "ann"))
	must(t, st.CreateRole(ctx, catalog.Role{Tenant: "acme", Name: "Builder", Path: "/", ID: "AROA1", TrustPolicy: docA, MaxSessionDuration: 3600}))
	advances(t, s, "PutInlinePolicy", func() error { return st.PutInlinePolicy(ctx, "acme", catalog.PrincipalUser, "ann", "Own", docA) })
	must(t, st.PutInlinePolicy(ctx, "acme", catalog.PrincipalGroup, "devs", "team", docB))
	must(t, st.PutInlinePolicy(ctx, "acme", catalog.PrincipalRole, "BUILDER", "build", docC))
	wantErr(t, st.PutInlinePolicy(ctx, "acme", catalog.PrincipalUser, "nobody", "x", docA), catalog.ErrNoSuchUser)
	wantErr(t, st.PutInlinePolicy(ctx, "beta", catalog.PrincipalRole, "builder", "x", docA), catalog.ErrNoSuchEntity)
	if doc, err := st.GetInlinePolicy(ctx, "acme", catalog.PrincipalUser, "ann", "own"); err != nil || doc != docA {
		t.Fatalf("inline = %q %v", doc, err)
	}
	_, err := st.GetInlinePolicy(ctx, "acme", catalog.PrincipalUser, "bob", "own")
	wantErr(t, err, catalog.ErrNoSuchEntity)
	if names, err := st.ListInlinePolicies(ctx, "acme", catalog.PrincipalUser, "ann"); err != nil || !slices.Equal(names, []string{"Own"}) {
		t.Fatalf("inline names = %v %v", names, err)
	}
	_, err = st.CreatePolicy(ctx, catalog.ManagedPolicy{Tenant: "acme", Name: "managed", Path: "/", ID: "ANPA1"}, docA)
	must(t, err)
	_, err = st.CreatePolicyVersion(ctx, "acme", "managed", docC, true)
	must(t, err)
	must(t, st.AttachPolicy(ctx, "acme", catalog.PrincipalGroup, "devs", "managed"))

	got, err := st.UserPolicies(ctx, "acme", "ann")
	must(t, err)
	want := []string{docA, docB, docC} // own inline, the group's inline, the group's managed default (v2)
	if !slices.Equal(got, want) {
		t.Fatalf("ann's policies = %q, want %q", got, want)
	}
	if got, err := st.UserPolicies(ctx, "acme", "bob"); err != nil || len(got) != 0 {
		t.Fatalf("bob's policies = %q %v", got, err)
	}
	if got, err := st.UserPolicies(ctx, "beta", "ann"); err != nil || len(got) != 0 {
		t.Fatalf("beta's ann = %q %v", got, err)
	}
	// Changing the default version changes what applies, and advances
	// the generation.
	advances(t, s, "SetDefaultPolicyVersion", func() error { return st.SetDefaultPolicyVersion(ctx, "acme", "managed", "v1") })
	got, _ = st.UserPolicies(ctx, "acme", "ann")
	if !slices.Equal(got, []string{docA, docB, docA}) {
		t.Fatalf("after v1 became default = %q", got)
	}
	must(t, st.AttachPolicy(ctx, "acme", catalog.PrincipalRole, "builder", "managed"))
	if got, err := st.RolePolicies(ctx, "acme", "builder"); err != nil || !slices.Equal(got, []string{docC, docA}) {
		t.Fatalf("role policies = %q %v", got, err)
	}

	// DeleteIAMUser refuses a user with policies, groups or keys.
	wantErr(t, st.DeleteIAMUser(ctx, "acme", "ann"), catalog.ErrDeleteConflict)
	must(t, st.DeleteInlinePolicy(ctx, "acme", catalog.PrincipalUser, "ann", "OWN"))
	wantErr(t, st.DeleteIAMUser(ctx, "acme", "ann"), catalog.ErrDeleteConflict)
	must(t, st.RemoveUserFromGroup(ctx, "acme", "devs", "ann"))
	must(t, s.PutAccessKey(ctx, catalog.AccessKey{AccessKey: "AKANN", SecretSealed: []byte{1}, Owner: "c-ann", Tenant: "acme", User: "ann", CreatedAt: time.Now()}))
	wantErr(t, st.DeleteIAMUser(ctx, "acme", "ann"), catalog.ErrDeleteConflict)
	must(t, s.DeleteAccessKey(ctx, "AKANN"))
	must(t, st.TagPrincipal(ctx, "acme", catalog.PrincipalUser, "ann", []catalog.Tag{{Key: "team", Value: "x"}}))
	must(t, st.DeleteIAMUser(ctx, "acme", "ann")) // tags go with it
	wantErr(t, st.DeleteIAMUser(ctx, "acme", "ann"), catalog.ErrNoSuchUser)

	// A tenant deleted takes its IAM entities with it.
	must(t, s.DeleteTenant(ctx, "acme"))
	tenant(t, s, "acme")
	if gs, _ := st.ListGroups(ctx, "acme"); len(gs) != 0 {
		t.Fatalf("groups outlive their tenant: %+v", gs)
	}
	if ps, _ := st.ListPolicies(ctx, "acme"); len(ps) != 0 {
		t.Fatalf("policies outlive their tenant: %+v", ps)
	}
}

// Roles, OIDC providers, tags, user paths and renames.
func testIAMRolesAndTags(t *testing.T, s catalog.Store) {
	st := iamStore(t, s)
	r := catalog.Role{Tenant: "acme", Name: "Builder", Path: "/ci/", ID: "AROA1", Description: "builds", TrustPolicy: docA, MaxSessionDuration: 7200, Created: time.Now()}
	must(t, st.CreateRole(ctx, r))
	wantErr(t, st.CreateRole(ctx, r), catalog.ErrEntityExists)
	got, err := st.GetRole(ctx, "acme", "builder")
	must(t, err)
	if got.Name != "Builder" || got.Path != "/ci/" || got.MaxSessionDuration != 7200 || got.TrustPolicy != docA || got.Description != "builds" {
		t.Fatalf("role = %+v", got)
	}
	advances(t, s, "SetRoleTrustPolicy", func() error { return st.SetRoleTrustPolicy(ctx, "acme", "BUILDER", docB) })
	if got, _ := st.GetRole(ctx, "acme", "builder"); got.TrustPolicy != docB {
		t.Fatalf("trust policy = %s", got.TrustPolicy)
	}
	wantErr(t, st.SetRoleTrustPolicy(ctx, "beta", "builder", docB), catalog.ErrNoSuchEntity)

	// Tags: replaced by key without regard to case, bounded.
	must(t, st.TagPrincipal(ctx, "acme", catalog.PrincipalRole, "builder", []catalog.Tag{{Key: "Team", Value: "a"}, {Key: "env", Value: "prod"}}))
	must(t, st.TagPrincipal(ctx, "acme", catalog.PrincipalRole, "builder", []catalog.Tag{{Key: "team", Value: "b"}}))
	tags, err := st.PrincipalTags(ctx, "acme", catalog.PrincipalRole, "Builder")
	must(t, err)
	if !slices.Equal(tags, []catalog.Tag{{Key: "env", Value: "prod"}, {Key: "team", Value: "b"}}) {
		t.Fatalf("tags = %+v", tags)
	}
	many := make([]catalog.Tag, catalog.MaxTags-1)
	for i := range many {
		many[i] = catalog.Tag{Key: fmt.Sprintf("k%d", i), Value: "v"}
	}
	wantErr(t, st.TagPrincipal(ctx, "acme", catalog.PrincipalRole, "builder", many), catalog.ErrLimitExceeded)
	if tags, _ := st.PrincipalTags(ctx, "acme", catalog.PrincipalRole, "builder"); len(tags) != 2 {
		t.Fatalf("a refused tagging left %d tags", len(tags))
	}
	must(t, st.UntagPrincipal(ctx, "acme", catalog.PrincipalRole, "builder", []string{"ENV", "absent"}))
	wantErr(t, st.TagPrincipal(ctx, "acme", catalog.PrincipalUser, "nobody", []catalog.Tag{{Key: "a", Value: "b"}}), catalog.ErrNoSuchUser)
	must(t, st.TagPrincipal(ctx, "acme", catalog.PrincipalUser, "ann", []catalog.Tag{{Key: "dept", Value: "x"}}))
	must(t, st.DeleteRole(ctx, "acme", "builder"))
	must(t, st.CreateRole(ctx, r))
	if tags, _ := st.PrincipalTags(ctx, "acme", catalog.PrincipalRole, "builder"); len(tags) != 0 {
		t.Fatalf("a role made again inherits tags %+v", tags)
	}

	// OIDC providers.
	p := catalog.OIDCProvider{Tenant: "acme", URL: "idp.example.com/realms/a", ClientIDs: []string{"c1", "c2"}, Thumbprints: []string{"0123456789012345678901234567890123456789"}, Created: time.Now()}
	must(t, st.CreateOIDCProvider(ctx, p))
	wantErr(t, st.CreateOIDCProvider(ctx, p), catalog.ErrEntityExists)
	if got, err := st.GetOIDCProvider(ctx, "acme", p.URL); err != nil || !slices.Equal(got.ClientIDs, p.ClientIDs) || !slices.Equal(got.Thumbprints, p.Thumbprints) {
		t.Fatalf("provider = %+v %v", got, err)
	}
	_, err = st.GetOIDCProvider(ctx, "beta", p.URL)
	wantErr(t, err, catalog.ErrNoSuchEntity)
	if ps, err := st.ListOIDCProviders(ctx, "acme"); err != nil || len(ps) != 1 {
		t.Fatalf("providers = %+v %v", ps, err)
	}
	must(t, st.DeleteOIDCProvider(ctx, "acme", p.URL))
	wantErr(t, st.DeleteOIDCProvider(ctx, "acme", p.URL), catalog.ErrNoSuchEntity)

	// Paths and renames: a renamed user keeps its keys, groups and tags.
	if p, err := st.UserPath(ctx, "acme", "ann"); err != nil || p != "/" {
		t.Fatalf("default path = %q %v", p, err)
	}
	must(t, st.SetUserPath(ctx, "acme", "ann", "/eng/"))
	if ps, err := st.UserPaths(ctx, "acme"); err != nil || len(ps) != 2 || ps["ann"] != "/eng/" || ps["bob"] != "/" {
		t.Fatalf("paths = %v %v", ps, err)
	}
	must(t, st.CreateGroup(ctx, catalog.Group{Tenant: "acme", Name: "devs", Path: "/", ID: "AGPA1"}))
	must(t, st.AddUserToGroup(ctx, "acme", "devs", "ann"))
	must(t, s.PutAccessKey(ctx, catalog.AccessKey{AccessKey: "AKANN", SecretSealed: []byte{1}, Owner: "c-ann", DisplayName: "ann", Tenant: "acme", User: "ann", CreatedAt: time.Now()}))
	wantErr(t, st.RenameUser(ctx, "acme", "ann", "bob"), catalog.ErrUserExists)
	advances(t, s, "RenameUser", func() error { return st.RenameUser(ctx, "acme", "ann", "anna") })
	_, err = s.GetUser(ctx, "acme", "ann")
	wantErr(t, err, catalog.ErrNoSuchUser)
	if p, _ := st.UserPath(ctx, "acme", "anna"); p != "/eng/" {
		t.Fatalf("path after rename = %q", p)
	}
	if k, err := s.GetAccessKey(ctx, "AKANN"); err != nil || k.User != "anna" || k.DisplayName != "anna" {
		t.Fatalf("key after rename = %+v %v", k, err)
	}
	if gs, _ := st.UserGroups(ctx, "acme", "anna"); len(gs) != 1 {
		t.Fatalf("groups after rename = %+v", gs)
	}
	if tags, _ := st.PrincipalTags(ctx, "acme", catalog.PrincipalUser, "anna"); len(tags) != 1 {
		t.Fatalf("tags after rename = %+v", tags)
	}
}

// Limits hold under concurrent changes: of more attachments than the
// limit made at once, exactly the limit's worth succeed, the others
// are LimitExceeded (PostgreSQL runs them side by side, so the count
// must be taken under a lock).
func testIAMConcurrentLimits(t *testing.T, s catalog.Store) {
	st := iamStore(t, s)
	const n = catalog.MaxAttachedPolicies + 4
	for i := range n {
		_, err := st.CreatePolicy(ctx, catalog.ManagedPolicy{Tenant: "acme", Name: fmt.Sprintf("p%d", i), Path: "/", ID: fmt.Sprintf("ANPA%d", i)}, docA)
		must(t, err)
	}
	errs := make(chan error, n)
	for i := range n {
		go func() { errs <- st.AttachPolicy(ctx, "acme", catalog.PrincipalUser, "ann", fmt.Sprintf("p%d", i)) }()
	}
	ok, limited := 0, 0
	for range n {
		switch err := <-errs; {
		case err == nil:
			ok++
		case errors.Is(err, catalog.ErrLimitExceeded):
			limited++
		default:
			t.Fatal(err)
		}
	}
	ps, err := st.AttachedPolicies(ctx, "acme", catalog.PrincipalUser, "ann")
	must(t, err)
	if ok != catalog.MaxAttachedPolicies || limited != n-ok || len(ps) != catalog.MaxAttachedPolicies {
		t.Fatalf("%d attached, %d refused, %d held; want %d attached", ok, limited, len(ps), catalog.MaxAttachedPolicies)
	}
}
