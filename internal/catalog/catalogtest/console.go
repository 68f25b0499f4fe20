package catalogtest

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

// testConsole checks the console's records: a password goes with its
// user, sessions are found by their id's hash and end one by one, by
// subject or by expiry; sign-in attempts are reserved atomically and wait
// doubling delays; devices are bounded per subject and go with a new
// password.
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

	// Sign-in attempts: Free count freely, then each waits a doubling
	// delay after the last; a release takes one back.
	lim := catalog.SignInLimit{Free: 3, Base: time.Minute, Cap: 4 * time.Minute, Forget: 15 * time.Minute}
	t0 := now
	reserve := func(key string, at time.Time, want bool) time.Time {
		t.Helper()
		next, ok, err := c.ReserveSignIn(ctx, key, at, lim)
		must(t, err)
		if ok != want {
			t.Fatalf("reserve %s at +%v: ok %v, want %v (next +%v)", key, at.Sub(t0), ok, want, next.Sub(t0))
		}
		return next
	}
	for i := 0; i < 3; i++ {
		reserve("user:acme/alice", t0, true)
	}
	if next := reserve("user:acme/alice", t0.Add(59*time.Second), false); !next.Equal(t0.Add(time.Minute)) {
		t.Fatalf("the 4th attempt may come at +%v, want +1m", next.Sub(t0))
	}
	reserve("addr:192.0.2.1", t0, true) // another key is not held back
	reserve("user:acme/alice", t0.Add(time.Minute), true)
	// Now 4 counted: the next waits 2 minutes after the last.
	if next := reserve("user:acme/alice", t0.Add(2*time.Minute), false); !next.Equal(t0.Add(3 * time.Minute)) {
		t.Fatalf("the 5th attempt may come at +%v, want +3m", next.Sub(t0))
	}
	// A release (a success, or an attempt never evaluated) takes one back.
	must(t, c.ReleaseSignIn(ctx, "user:acme/alice"))
	reserve("user:acme/alice", t0.Add(2*time.Minute), true)
	reserve("user:acme/alice", t0.Add(2*time.Minute), false)
	// The delay doubles up to its cap.
	last := t0.Add(2 * time.Minute)
	for _, wait := range []time.Duration{2 * time.Minute, 4 * time.Minute, 4 * time.Minute} {
		if next := reserve("user:acme/alice", last, false); !next.Equal(last.Add(wait)) {
			t.Fatalf("after an attempt at +%v: next at +%v, want +%v", last.Sub(t0), next.Sub(t0), last.Add(wait).Sub(t0))
		}
		last = last.Add(wait)
		reserve("user:acme/alice", last, true)
	}
	// Quiet for Forget past its wait, a key starts again.
	later := last.Add(4*time.Minute + 15*time.Minute)
	for i := 0; i < 3; i++ {
		reserve("user:acme/alice", later, true)
	}
	reserve("user:acme/alice", later, false)
	must(t, c.ClearSignIns(ctx, "user:acme/alice"))
	reserve("user:acme/alice", later, true)
	// A key quiet for Cap+Forget is pruned by anyone's reservation: the
	// table holds only keys that tried lately.
	reserve("addr:192.0.2.9", later.Add(4*time.Minute+15*time.Minute), true)
	must(t, c.ReleaseSignIn(ctx, "addr:192.0.2.1")) // pruned: no error

	// Concurrent attempts of one key: exactly Free pass, on any number of
	// connections (nodes).
	var wg sync.WaitGroup
	var passed atomic.Int32
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, ok, err := c.ReserveSignIn(ctx, "user:acme/raced", now, lim); err != nil {
				t.Error(err)
			} else if ok {
				passed.Add(1)
			}
		}()
	}
	wg.Wait()
	if n := passed.Load(); n != 3 {
		t.Fatalf("%d of 40 concurrent attempts passed a limit of 3", n)
	}

	// Devices: found by their token's hash, a subject keeps its newest,
	// expired ones go, and setting a user's password forgets its own.
	dev := func(id, subject, user string, created time.Time) catalog.Device {
		d := catalog.Device{TokenHash: id, Subject: subject, Created: created, Expires: created.Add(30 * 24 * time.Hour)}
		if user != "" {
			d.Tenant, d.User = "acme", user
		}
		return d
	}
	must(t, c.SetPassword(ctx, "acme", "alice", catalog.Password{Hash: "$argon2id$y"}))
	must(t, s.CreateUser(ctx, catalog.User{Tenant: "acme", Name: "carol", Role: catalog.RoleUser, CanonicalID: "c-carol", CreatedAt: time.Now()}))
	for i, d := range []catalog.Device{dev("d1", "user:acme/alice", "alice", now), dev("d2", "user:acme/alice", "alice", now.Add(time.Second)),
		dev("d3", "user:acme/carol", "carol", now), dev("d4", "key:AK", "", now)} {
		must(t, c.CreateDevice(ctx, d, 2))
		if got, err := c.GetDevice(ctx, d.TokenHash); err != nil || got != d {
			t.Fatalf("device %d: GetDevice = %+v, %v\nwant %+v", i, got, err, d)
		}
	}
	_, err = c.GetDevice(ctx, "nope")
	wantErr(t, err, catalog.ErrNoSuchDevice)
	// A third device of alice's drops her oldest.
	must(t, c.CreateDevice(ctx, dev("d5", "user:acme/alice", "alice", now.Add(2*time.Second)), 2))
	_, err = c.GetDevice(ctx, "d1")
	wantErr(t, err, catalog.ErrNoSuchDevice)
	for _, id := range []string{"d2", "d3", "d4", "d5"} {
		if _, err := c.GetDevice(ctx, id); err != nil {
			t.Fatalf("device %s: %v", id, err)
		}
	}
	must(t, c.DeleteDevice(ctx, "d2"))
	must(t, c.DeleteDevice(ctx, "d2")) // twice: no error
	_, err = c.GetDevice(ctx, "d2")
	wantErr(t, err, catalog.ErrNoSuchDevice)
	// A new password revokes alice's devices, not carol's nor a key's.
	must(t, c.SetPassword(ctx, "acme", "alice", catalog.Password{Hash: "$argon2id$z"}))
	_, err = c.GetDevice(ctx, "d5")
	wantErr(t, err, catalog.ErrNoSuchDevice)
	for _, id := range []string{"d3", "d4"} {
		if _, err := c.GetDevice(ctx, id); err != nil {
			t.Fatalf("device %s after alice's new password: %v", id, err)
		}
	}
	// Expired devices go when another is made.
	must(t, c.CreateDevice(ctx, dev("d6", "key:AK2", "", now.Add(31*24*time.Hour)), 2))
	for _, id := range []string{"d3", "d4"} {
		_, err = c.GetDevice(ctx, id)
		wantErr(t, err, catalog.ErrNoSuchDevice)
	}
}
