package catalogtest

import (
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

// testConsole checks the console's records: a password goes with its
// user, sessions are found by their id's hash and end one by one, by
// subject or by expiry, and failed sign-ins count in windows.
func testConsole(t *testing.T, s catalog.Store) {
	c, ok := s.(catalog.Console)
	if !ok {
		t.Fatalf("%T does not keep the console's records (catalog.Console)", s)
	}
	tenant(t, s, "acme")
	must(t, s.CreateUser(ctx, catalog.User{Tenant: "acme", Name: "alice", Role: catalog.RoleUser, CanonicalID: "c-alice", CreatedAt: time.Now()}))

	// Passwords.
	if p, err := c.GetPassword(ctx, "acme", "alice"); err != nil || p.Hash != "" || p.MustChange {
		t.Fatalf("a new user's password = %+v, %v; want none", p, err)
	}
	wantErr(t, c.SetPassword(ctx, "acme", "bob", catalog.Password{Hash: "h"}), catalog.ErrNoSuchUser)
	_, err := c.GetPassword(ctx, "acme", "bob")
	wantErr(t, err, catalog.ErrNoSuchUser)
	gen, _ := s.IdentityGeneration(ctx)
	must(t, c.SetPassword(ctx, "acme", "alice", catalog.Password{Hash: "$argon2id$x", MustChange: true}))
	if p, err := c.GetPassword(ctx, "acme", "alice"); err != nil || p.Hash != "$argon2id$x" || !p.MustChange {
		t.Fatalf("password = %+v, %v", p, err)
	}
	if g, _ := s.IdentityGeneration(ctx); g != gen {
		t.Errorf("a password change moved the identity generation (%d -> %d): nodes would drop their caches for nothing", gen, g)
	}
	// A user deleted and created again under its name has no password.
	must(t, s.DeleteUser(ctx, "acme", "alice"))
	must(t, s.CreateUser(ctx, catalog.User{Tenant: "acme", Name: "alice", Role: catalog.RoleUser, CanonicalID: "c-alice2", CreatedAt: time.Now()}))
	if p, _ := c.GetPassword(ctx, "acme", "alice"); p.Hash != "" {
		t.Fatalf("a new user inherited its name's old password: %+v", p)
	}

	// Sessions.
	now := time.Now().UTC().Truncate(time.Millisecond)
	sess := func(id, subject string) catalog.Session {
		return catalog.Session{IDHash: id, Subject: subject, Method: "password", Tenant: "acme", User: "alice", UserID: "c-alice2",
			CSRF: "csrf-" + id, MustChange: true, Created: now, LastSeen: now, Expires: now.Add(12 * time.Hour)}
	}
	for _, ss := range []catalog.Session{sess("s1", "user:acme/alice"), sess("s2", "user:acme/alice"), sess("s3", "user:acme/alice"), sess("k1", "key:AK")} {
		must(t, c.CreateSession(ctx, ss))
	}
	got, err := c.GetSession(ctx, "s1")
	must(t, err)
	if want := sess("s1", "user:acme/alice"); got != want {
		t.Fatalf("GetSession = %+v\nwant %+v", got, want)
	}
	_, err = c.GetSession(ctx, "nope")
	wantErr(t, err, catalog.ErrNoSuchSession)
	must(t, c.TouchSession(ctx, "s1", now.Add(time.Minute)))
	must(t, c.UpdateSession(ctx, "s1", false))
	if got, _ := c.GetSession(ctx, "s1"); !got.LastSeen.Equal(now.Add(time.Minute)) || got.MustChange {
		t.Fatalf("after touch and update: %+v", got)
	}
	must(t, c.DeleteSession(ctx, "s2"))
	must(t, c.DeleteSession(ctx, "s2")) // twice: no error
	_, err = c.GetSession(ctx, "s2")
	wantErr(t, err, catalog.ErrNoSuchSession)
	// A password change ends the user's other sessions, not its own nor
	// anyone else's.
	must(t, c.DeleteSessions(ctx, "user:acme/alice", "s1"))
	_, err = c.GetSession(ctx, "s3")
	wantErr(t, err, catalog.ErrNoSuchSession)
	for _, id := range []string{"s1", "k1"} {
		if _, err := c.GetSession(ctx, id); err != nil {
			t.Fatalf("session %s: %v", id, err)
		}
	}
	// Expiry: idle and absolute.
	idle := sess("idle", "key:B")
	idle.LastSeen = now.Add(-time.Hour)
	old := sess("old", "key:C")
	old.Expires = now.Add(-time.Second)
	must(t, c.CreateSession(ctx, idle))
	must(t, c.CreateSession(ctx, old))
	must(t, c.PruneSessions(ctx, now, now.Add(-30*time.Minute)))
	for id, want := range map[string]error{"idle": catalog.ErrNoSuchSession, "old": catalog.ErrNoSuchSession, "s1": nil, "k1": nil} {
		_, err := c.GetSession(ctx, id)
		if want == nil {
			must(t, err)
		} else {
			wantErr(t, err, want)
		}
	}

	// Failed sign-ins count in a window; an old window starts again.
	window := 15 * time.Minute
	t0 := now
	for i := 1; i <= 3; i++ {
		n, start, err := c.AddSignInFailure(ctx, "user:acme/alice", t0.Add(time.Duration(i)*time.Second), t0.Add(-window))
		must(t, err)
		if n != i || !start.Equal(t0.Add(time.Second)) {
			t.Fatalf("failure %d: count %d, window %v", i, n, start)
		}
	}
	if n, _, err := c.SignInFailures(ctx, "user:acme/alice", t0.Add(-window)); err != nil || n != 3 {
		t.Fatalf("SignInFailures = %d, %v; want 3", n, err)
	}
	if n, _, _ := c.SignInFailures(ctx, "addr:192.0.2.1", t0.Add(-window)); n != 0 {
		t.Fatalf("an unknown key has %d failures", n)
	}
	// Past the window: it counts from one again.
	later := t0.Add(window + time.Minute)
	if n, _, _ := c.SignInFailures(ctx, "user:acme/alice", later.Add(-window)); n != 0 {
		t.Fatalf("failures of an old window still count: %d", n)
	}
	n, start, err := c.AddSignInFailure(ctx, "user:acme/alice", later, later.Add(-window))
	must(t, err)
	if n != 1 || !start.Equal(later) {
		t.Fatalf("after the window: count %d from %v, want 1 from %v", n, start, later)
	}
	must(t, c.ClearSignInFailures(ctx, "user:acme/alice"))
	if n, _, _ := c.SignInFailures(ctx, "user:acme/alice", later.Add(-window)); n != 0 {
		t.Fatalf("after clear: %d", n)
	}
}
