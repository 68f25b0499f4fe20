package catalogtest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

// IdentityProviders: the provider's and a tenant's identity providers
// are put, replaced (keeping their creation) and deleted apart; a
// subject is linked once, to a user made for it or, when creating is
// off, to one the tenant made that nothing else has linked (never to a
// directory's or another provider's user); later sign-ins find it by
// subject, whatever its login, and a new role advances the identity
// generation.
func testIdentityProviders(t *testing.T, s catalog.Store) {
	ps, ok := s.(catalog.IdentityProviders)
	if !ok {
		t.Skip("the driver keeps no identity providers")
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	wantErr(t, ps.PutIdentityProvider(ctx, catalog.IdentityProvider{Tenant: "nope", Name: "kc", Config: "{}"}), catalog.ErrNoSuchTenant)
	tenant(t, s, "acme")
	_, err := ps.GetIdentityProvider(ctx, "acme", "kc")
	wantErr(t, err, catalog.ErrNoSuchIdentityProvider)
	must(t, ps.PutIdentityProvider(ctx, catalog.IdentityProvider{Tenant: "", Name: "kc", Config: `{"p":1}`, SecretSealed: []byte("sp"), Created: now, Updated: now}))
	must(t, ps.PutIdentityProvider(ctx, catalog.IdentityProvider{Tenant: "acme", Name: "kc", Config: `{"a":1}`, SecretSealed: []byte("s1"), Created: now, Updated: now}))
	later := now.Add(time.Hour)
	must(t, ps.PutIdentityProvider(ctx, catalog.IdentityProvider{Tenant: "acme", Name: "kc", Config: `{"a":2}`, SecretSealed: []byte("s2"), Created: later, Updated: later}))
	p, err := ps.GetIdentityProvider(ctx, "acme", "kc")
	must(t, err)
	if p.Config != `{"a":2}` || string(p.SecretSealed) != "s2" || !p.Created.Equal(now) || !p.Updated.Equal(later) {
		t.Fatalf("identity provider %+v", p)
	}
	if all, err := ps.ListIdentityProviders(ctx, ""); err != nil || len(all) != 1 || all[0].Config != `{"p":1}` {
		t.Fatalf("the provider's: %+v %v", all, err)
	}

	gen := func() int64 {
		g, err := s.IdentityGeneration(ctx)
		must(t, err)
		return g
	}
	link := catalog.IdentityProviderUser{Tenant: "acme", User: "bob", IdPTenant: "acme", IdP: "kc", Subject: "sub-bob", Login: "bob", Groups: []string{"g1", "g2"}, SignedIn: now}
	// Creating off, no such user: refused.
	_, _, err = ps.SignInIdentityProviderUser(ctx, link, catalog.User{Role: catalog.RoleUser, CanonicalID: "c-bob", CreatedAt: now}, false)
	wantErr(t, err, catalog.ErrNoSuchUser)
	g0 := gen()
	u, changed, err := ps.SignInIdentityProviderUser(ctx, link, catalog.User{Role: catalog.RoleUser, CanonicalID: "c-bob", CreatedAt: now}, true)
	must(t, err)
	if !changed || u.Name != "bob" || u.CanonicalID != "c-bob" || u.Role != catalog.RoleUser || gen() == g0 {
		t.Fatalf("created %+v %v", u, changed)
	}
	g1 := gen()
	if _, changed, err := ps.SignInIdentityProviderUser(ctx, link, catalog.User{Role: catalog.RoleUser, CanonicalID: "c-other"}, true); err != nil || changed || gen() != g1 {
		t.Fatalf("same again: %v %v", changed, err)
	}
	// A new login claim, a new role: the same user, found by subject.
	link.Login, link.User, link.Groups, link.SignedIn = "robert", "robert", []string{"admins"}, later
	u, changed, err = ps.SignInIdentityProviderUser(ctx, link, catalog.User{Role: catalog.RoleAdmin, CanonicalID: "c-other"}, true)
	must(t, err)
	if !changed || u.Name != "bob" || u.Role != catalog.RoleAdmin || u.CanonicalID != "c-bob" || gen() == g1 {
		t.Fatalf("again %+v %v", u, changed)
	}
	links, err := ps.IdentityProviderUsers(ctx, "acme")
	must(t, err)
	if len(links) != 1 || links[0].User != "bob" || links[0].Login != "robert" || !slices.Equal(links[0].Groups, []string{"admins"}) || !links[0].SignedIn.Equal(later) {
		t.Fatalf("links %+v", links)
	}

	// A user made another way is never taken over by a created one...
	must(t, s.CreateUser(ctx, catalog.User{Tenant: "acme", Name: "carol", Role: catalog.RoleUser, CanonicalID: "c-carol", CreatedAt: now}))
	carol := catalog.IdentityProviderUser{Tenant: "acme", User: "carol", IdPTenant: "acme", IdP: "kc", Subject: "sub-carol", Login: "carol", SignedIn: now}
	_, _, err = ps.SignInIdentityProviderUser(ctx, carol, catalog.User{Role: catalog.RoleUser, CanonicalID: "c-x"}, true)
	wantErr(t, err, catalog.ErrUserExists)
	// ...but with creating off it is the user the tenant made for it.
	u, _, err = ps.SignInIdentityProviderUser(ctx, carol, catalog.User{Role: catalog.RoleUser, CanonicalID: "c-x"}, false)
	must(t, err)
	if u.Name != "carol" || u.CanonicalID != "c-carol" {
		t.Fatalf("pre-made %+v", u)
	}
	// A user linked to one subject is not linked to another, of this
	// provider or another.
	other := catalog.IdentityProviderUser{Tenant: "acme", User: "carol", IdPTenant: "", IdP: "kc", Subject: "sub-evil", Login: "carol", SignedIn: now}
	_, _, err = ps.SignInIdentityProviderUser(ctx, other, catalog.User{Role: catalog.RoleAdmin}, false)
	wantErr(t, err, catalog.ErrUserExists)

	// Deleted: the provider goes, the links stay; the provider's own
	// is another.
	must(t, ps.DeleteIdentityProvider(ctx, "acme", "kc"))
	wantErr(t, ps.DeleteIdentityProvider(ctx, "acme", "kc"), catalog.ErrNoSuchIdentityProvider)
	if _, err := ps.GetIdentityProvider(ctx, "", "kc"); err != nil {
		t.Fatal(err)
	}
	if links, err := ps.IdentityProviderUsers(ctx, "acme"); err != nil || len(links) != 2 {
		t.Fatalf("links after delete %+v %v", links, err)
	}
	// A user deleted takes its link along.
	must(t, s.DeleteUser(ctx, "acme", "carol"))
	if links, err := ps.IdentityProviderUsers(ctx, "acme"); err != nil || len(links) != 1 {
		t.Fatalf("links after delete user %+v %v", links, err)
	}

	// A state is used once; once expired it is forgotten.
	exp := now.Add(10 * time.Minute)
	if fresh, err := ps.UseSignInState(ctx, "h1", exp, now); err != nil || !fresh {
		t.Fatalf("first use: %v %v", fresh, err)
	}
	if fresh, err := ps.UseSignInState(ctx, "h1", exp, now.Add(time.Minute)); err != nil || fresh {
		t.Fatalf("second use: %v %v", fresh, err)
	}
	if fresh, err := ps.UseSignInState(ctx, "h1", exp.Add(time.Hour), exp.Add(time.Second)); err != nil || !fresh {
		t.Fatalf("after it expired: %v %v", fresh, err)
	}

	// A session's provider and token are kept until taken; the record of
	// a session that ended goes at the next put.
	if c, ok := s.(catalog.Console); ok {
		sess := catalog.Session{IDHash: "sess-1", Subject: "user:acme/bob", Method: "oidc", Tenant: "acme", User: "bob", UserID: "c-bob",
			CSRF: "x", Created: now, LastSeen: now, Expires: now.Add(time.Hour)}
		must(t, c.CreateSession(ctx, sess))
		must(t, ps.PutIdPSession(ctx, catalog.IdPSession{SessionHash: "gone", IdPTenant: "", IdP: "kc", IDToken: "t0"}))
		must(t, ps.PutIdPSession(ctx, catalog.IdPSession{SessionHash: "sess-1", IdPTenant: "acme", IdP: "kc", IDToken: "t1"}))
		if _, err := ps.TakeIdPSession(ctx, "gone"); !errors.Is(err, catalog.ErrNoSuchSession) {
			t.Fatalf("the record of an ended session: %v", err)
		}
		is, err := ps.TakeIdPSession(ctx, "sess-1")
		if err != nil || is.IdPTenant != "acme" || is.IdP != "kc" || is.IDToken != "t1" {
			t.Fatalf("take %+v %v", is, err)
		}
		_, err = ps.TakeIdPSession(ctx, "sess-1")
		wantErr(t, err, catalog.ErrNoSuchSession)
	}
}
