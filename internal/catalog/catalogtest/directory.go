package catalogtest

import (
	"slices"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

// Directories: a tenant's directory is put, replaced (keeping its
// creation and last sync) and deleted; a directory user is created and
// linked once, then updated through its external id (never taking over
// a user of its name that is not linked), disabled with its sessions,
// and each change of a user advances the identity generation.
func testDirectories(t *testing.T, s catalog.Store) {
	ds, ok := s.(catalog.Directories)
	if !ok {
		t.Skip("the driver keeps no directories")
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	wantErr(t, ds.PutDirectory(ctx, catalog.Directory{Tenant: "nope", Config: "{}", SecretSealed: []byte("s")}), catalog.ErrNoSuchTenant)
	tenant(t, s, "acme")
	_, err := ds.GetDirectory(ctx, "acme")
	wantErr(t, err, catalog.ErrNoSuchDirectory)
	must(t, ds.PutDirectory(ctx, catalog.Directory{Tenant: "acme", Config: "{\"a\":1}", SecretSealed: []byte("s1"), Created: now, Updated: now}))
	must(t, ds.RecordDirectorySync(ctx, "acme", now.Add(time.Second), "{\"users\":1}"))
	later := now.Add(time.Hour)
	must(t, ds.PutDirectory(ctx, catalog.Directory{Tenant: "acme", Config: "{\"a\":2}", SecretSealed: []byte("s2"), Created: later, Updated: later}))
	d, err := ds.GetDirectory(ctx, "acme")
	must(t, err)
	if d.Config != "{\"a\":2}" || string(d.SecretSealed) != "s2" || !d.Created.Equal(now) || !d.Updated.Equal(later) ||
		!d.LastSync.Equal(now.Add(time.Second)) || d.LastResult != "{\"users\":1}" {
		t.Fatalf("directory %+v", d)
	}
	if all, err := ds.ListDirectories(ctx); err != nil || len(all) != 1 {
		t.Fatalf("list %+v %v", all, err)
	}

	gen := func() int64 {
		g, err := s.IdentityGeneration(ctx)
		must(t, err)
		return g
	}
	link := catalog.DirectoryUser{Tenant: "acme", User: "bob", ExternalID: "uuid-bob", Login: "bob", DN: "uid=bob", Groups: []string{"g1", "g2"}, Synced: now}
	g0 := gen()
	u, changed, err := ds.ImportDirectoryUser(ctx, link, catalog.User{Role: catalog.RoleUser, CanonicalID: "c-bob", Email: "bob@example.org", CreatedAt: now})
	must(t, err)
	if !changed || u.Name != "bob" || u.CanonicalID != "c-bob" || u.Email != "bob@example.org" || gen() == g0 {
		t.Fatalf("created %+v %v", u, changed)
	}
	// Nothing new: nothing changes, the generation stays.
	g1 := gen()
	if _, changed, err := ds.ImportDirectoryUser(ctx, link, catalog.User{Role: catalog.RoleUser, CanonicalID: "c-other", Email: "bob@example.org"}); err != nil || changed || gen() != g1 {
		t.Fatalf("same again: %v %v", changed, err)
	}
	// Renamed in the directory: the same user, a new login; a new role.
	link.Login, link.User = "robert", "robert"
	u, changed, err = ds.ImportDirectoryUser(ctx, link, catalog.User{Role: catalog.RoleAdmin, CanonicalID: "c-other", Email: "bob@example.org"})
	must(t, err)
	if !changed || u.Name != "bob" || u.Role != catalog.RoleAdmin || u.CanonicalID != "c-bob" || gen() == g1 {
		t.Fatalf("renamed %+v %v", u, changed)
	}
	if l, err := ds.DirectoryUserByLogin(ctx, "acme", "robert"); err != nil || l.User != "bob" || !slices.Equal(l.Groups, []string{"g1", "g2"}) {
		t.Fatalf("by login %+v %v", l, err)
	}
	_, err = ds.DirectoryUser(ctx, "acme", "uuid-none")
	wantErr(t, err, catalog.ErrNoSuchUser)
	// A user of the name not linked is never taken over; an e-mail
	// another user has is left out.
	must(t, s.CreateUser(ctx, catalog.User{Tenant: "acme", Name: "ann", Role: catalog.RoleUser, CanonicalID: "c-ann", CreatedAt: now}))
	_, _, err = ds.ImportDirectoryUser(ctx, catalog.DirectoryUser{Tenant: "acme", User: "ann", ExternalID: "uuid-ann", Login: "ann"},
		catalog.User{Role: catalog.RoleAdmin, CanonicalID: "c-x"})
	wantErr(t, err, catalog.ErrUserExists)
	u, _, err = ds.ImportDirectoryUser(ctx, catalog.DirectoryUser{Tenant: "acme", User: "cat", ExternalID: "uuid-cat", Login: "cat"},
		catalog.User{Role: catalog.RoleUser, CanonicalID: "c-cat", Email: "bob@example.org"})
	must(t, err)
	if u.Email != "" {
		t.Fatalf("cat took bob's e-mail: %+v", u)
	}
	// Disabling ends the user's sessions.
	con := s.(catalog.Console)
	must(t, con.CreateSession(ctx, catalog.Session{IDHash: "h-bob", Subject: "user:acme/bob", Method: "directory", Tenant: "acme", User: "bob",
		UserID: "c-bob", CSRF: "x", Created: now, LastSeen: now, Expires: later}))
	g2 := gen()
	must(t, ds.SetUserDisabled(ctx, "acme", "bob", true))
	if got, _ := s.GetUser(ctx, "acme", "bob"); !got.Disabled || gen() == g2 {
		t.Fatalf("disabled %+v", got)
	}
	_, err = con.GetSession(ctx, "h-bob")
	wantErr(t, err, catalog.ErrNoSuchSession)
	wantErr(t, ds.SetUserDisabled(ctx, "acme", "nobody", true), catalog.ErrNoSuchUser)
	must(t, ds.ReplaceDirectoryGroups(ctx, "acme", []catalog.DirectoryGroup{{ExternalID: "g-2", Name: "b", Role: catalog.RoleUser, Members: 2}, {ExternalID: "g-1", Name: "a"}}))
	if gs, err := ds.DirectoryGroups(ctx, "acme"); err != nil || len(gs) != 2 || gs[0].Name != "a" || gs[1].Members != 2 {
		t.Fatalf("groups %+v %v", gs, err)
	}
	// Deleting the user deletes its link; deleting the directory its
	// groups, but not its users.
	must(t, s.DeleteUser(ctx, "acme", "cat"))
	_, err = ds.DirectoryUser(ctx, "acme", "uuid-cat")
	wantErr(t, err, catalog.ErrNoSuchUser)
	must(t, ds.DeleteDirectory(ctx, "acme"))
	wantErr(t, ds.DeleteDirectory(ctx, "acme"), catalog.ErrNoSuchDirectory)
	if gs, err := ds.DirectoryGroups(ctx, "acme"); err != nil || len(gs) != 0 {
		t.Fatalf("groups after delete %+v %v", gs, err)
	}
	if ls, err := ds.DirectoryUsers(ctx, "acme"); err != nil || len(ls) != 1 || ls[0].User != "bob" {
		t.Fatalf("links after delete %+v %v", ls, err)
	}
}
