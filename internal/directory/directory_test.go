package directory_test

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-ldap/ldap/v3"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/catalog/postgres"
	"github.com/ostiumio/ostium/internal/catalog/sqlite"
	"github.com/ostiumio/ostium/internal/directory"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/testenv"
)

type env struct {
	t      *testing.T
	ctx    context.Context
	slapd  *testenv.Slapd
	cat    catalog.Store
	sealer *iam.Sealer
	keys   *iam.Keyring
	dir    *directory.Service
}

const tenant = "acme"

func newEnv(t *testing.T) *env {
	t.Helper()
	s := testenv.StartSlapd(t)
	ctx := context.Background()
	var cat catalog.Store
	var err error
	if u := testenv.CatalogURL(t); u != "" {
		cat, err = postgres.Open(ctx, u, 0)
	} else {
		cat, err = sqlite.Open(ctx, filepath.Join(t.TempDir(), "catalog.db"))
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	sealer, err := iam.NewSealer(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.CreateTenant(ctx, catalog.Tenant{Name: tenant, Status: catalog.TenantActive, CanonicalID: iam.NewCanonicalID()}); err != nil {
		t.Fatal(err)
	}
	d, err := directory.New(cat, sealer)
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, ctx: ctx, slapd: s, cat: cat, sealer: sealer, keys: iam.NewKeyring(cat, sealer, time.Minute, nil), dir: d}
}

// config is the test tree's directory over LDAPS with the test's CA.
func (e *env) config() directory.Config {
	return directory.Config{URL: e.slapd.LDAPS, CA: e.slapd.CA, BindDN: testenv.SlapdReaderDN,
		UserBase: testenv.SlapdPeople, GroupBase: testenv.SlapdGroups,
		DisabledAttribute: "employeeType", DisabledValue: "disabled",
		AdminGroups: []string{testenv.SlapdAdminsGroup}, UserGroups: []string{testenv.SlapdUsersGroup}, PageSize: 2}
}

func (e *env) configure(cfg directory.Config) {
	e.t.Helper()
	if _, err := e.dir.Configure(e.ctx, tenant, cfg, testenv.SlapdReaderPass); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) sync() directory.Result {
	e.t.Helper()
	res, err := e.dir.Sync(e.ctx, tenant)
	if err != nil {
		e.t.Fatalf("sync: %v (%+v)", err, res)
	}
	return res
}

func (e *env) user(name string) catalog.User {
	e.t.Helper()
	u, err := e.cat.GetUser(e.ctx, tenant, name)
	if err != nil {
		e.t.Fatalf("user %s: %v", name, err)
	}
	return u
}

func TestSyncImportsUsersAndGroupsWithRoles(t *testing.T) {
	e := newEnv(t)
	e.configure(e.config())
	res := e.sync()
	// alice (admins), bob and carol (users); dave is disabled in the
	// directory and never was a user here; erin is in no mapped group.
	if res.Users != 5 || res.Imported != 3 || res.Created != 3 || res.Groups != 2 || res.Disabled != 0 {
		t.Fatalf("result %+v", res)
	}
	for name, role := range map[string]string{"alice": catalog.RoleAdmin, "bob": catalog.RoleUser, "carol": catalog.RoleUser} {
		u := e.user(name)
		if u.Role != role || u.Disabled || u.Email != name+"@example.org" {
			t.Errorf("%s: %+v", name, u)
		}
	}
	for _, name := range []string{"dave", "erin"} {
		if _, err := e.cat.GetUser(e.ctx, tenant, name); !errors.Is(err, catalog.ErrNoSuchUser) {
			t.Errorf("%s imported: %v", name, err)
		}
	}
	links, err := e.cat.(catalog.Directories).DirectoryUsers(e.ctx, tenant)
	if err != nil || len(links) != 3 {
		t.Fatalf("links %+v %v", links, err)
	}
	for _, l := range links {
		if len(l.ExternalID) != 36 || l.DN != "uid="+l.User+","+testenv.SlapdPeople {
			t.Errorf("link %+v: want the entryUUID and DN", l)
		}
	}
	gs, err := e.cat.(catalog.Directories).DirectoryGroups(e.ctx, tenant)
	if err != nil || len(gs) != 2 || gs[0].Name != testenv.SlapdAdminsGroup || gs[0].Role != catalog.RoleAdmin || gs[0].Members != 1 ||
		gs[1].Role != catalog.RoleUser || gs[1].Members != 2 {
		t.Fatalf("groups %+v %v", gs, err)
	}
	// A second sync changes nothing.
	if res := e.sync(); res.Created+res.Updated+res.Disabled != 0 {
		t.Fatalf("second sync %+v", res)
	}
	d, err := e.cat.(catalog.Directories).GetDirectory(e.ctx, tenant)
	if r, _ := directory.DecodeResult(d.LastResult); err != nil || d.LastSync.IsZero() || r.Imported != 3 {
		t.Fatalf("recorded %+v %v", d, err)
	}
}

// A user removed from the directory loses its key and console session
// at the next sync; one disabled there too; a rename is the same user.
func TestRemovedOrDisabledUserIsCutOffAtNextSync(t *testing.T) {
	e := newEnv(t)
	e.configure(e.config())
	e.sync()
	key := func(user string) string {
		ak, secret := iam.NewAccessKey()
		u := e.user(user)
		if err := e.cat.PutAccessKey(e.ctx, catalog.AccessKey{AccessKey: ak, SecretSealed: e.sealer.Seal(secret, ak), Owner: u.CanonicalID,
			DisplayName: user, Tenant: tenant, User: user, CreatedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
		return ak
	}
	session := func(user string) string {
		u := e.user(user)
		h := "hash-" + user
		if err := e.cat.(catalog.Console).CreateSession(e.ctx, catalog.Session{IDHash: h, Subject: "user:" + tenant + "/" + user, Method: "directory",
			Tenant: tenant, User: user, UserID: u.CanonicalID, CSRF: "x", Created: time.Now(), LastSeen: time.Now(), Expires: time.Now().Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		return h
	}
	bobKey, carolKey, aliceKey := key("bob"), key("carol"), key("alice")
	bobSession := session("bob")
	for _, k := range []string{bobKey, carolKey, aliceKey} {
		if _, _, err := e.keys.Lookup(e.ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	gen, _ := e.cat.IdentityGeneration(e.ctx)

	e.slapd.Admin(func(c *ldap.Conn) error {
		if err := c.Del(ldap.NewDelRequest("uid=bob,"+testenv.SlapdPeople, nil)); err != nil {
			return err
		}
		m := ldap.NewModifyRequest("uid=carol,"+testenv.SlapdPeople, nil)
		m.Add("employeeType", []string{"disabled"})
		if err := c.Modify(m); err != nil {
			return err
		}
		// alice renamed: the same entry (entryUUID), a new login (and
		// DN, which her group follows).
		if err := c.ModifyDN(ldap.NewModifyDNRequest("uid=alice,"+testenv.SlapdPeople, "uid=alice2", true, "")); err != nil {
			return err
		}
		m = ldap.NewModifyRequest("cn="+testenv.SlapdAdminsGroup+","+testenv.SlapdGroups, nil)
		m.Replace("member", []string{"uid=alice2," + testenv.SlapdPeople})
		return c.Modify(m)
	})
	res := e.sync()
	if res.Disabled != 2 || res.Created != 0 {
		t.Fatalf("result %+v", res)
	}
	if g, _ := e.cat.IdentityGeneration(e.ctx); g == gen {
		t.Fatal("the identity generation did not move: other nodes keep their caches")
	}
	e.keys.Flush() // as Watch does on the generation's change
	for _, k := range []string{bobKey, carolKey} {
		if _, _, err := e.keys.Lookup(e.ctx, k); !errors.Is(err, iam.ErrUnknownKey) {
			t.Errorf("key of a user gone from the directory still signs: %v", err)
		}
	}
	if _, err := e.cat.(catalog.Console).GetSession(e.ctx, bobSession); !errors.Is(err, catalog.ErrNoSuchSession) {
		t.Errorf("bob's console session survived: %v", err)
	}
	if _, err := e.keys.UserIdentity(e.ctx, tenant, "bob", e.user("bob").CanonicalID); !errors.Is(err, iam.ErrUnknownUser) {
		t.Errorf("bob still has an identity: %v", err)
	}
	// alice, renamed in the directory, keeps her user, key and role.
	if _, id, err := e.keys.Lookup(e.ctx, aliceKey); err != nil || id.Role != catalog.RoleAdmin {
		t.Fatalf("alice after her rename: %v %+v", err, id)
	}
	if _, err := e.cat.GetUser(e.ctx, tenant, "alice2"); !errors.Is(err, catalog.ErrNoSuchUser) {
		t.Fatal("a rename made a new user")
	}
	// carol enabled again in the directory comes back with her key.
	e.slapd.Admin(func(c *ldap.Conn) error {
		m := ldap.NewModifyRequest("uid=carol,"+testenv.SlapdPeople, nil)
		m.Delete("employeeType", nil)
		return c.Modify(m)
	})
	e.sync()
	e.keys.Flush()
	if _, _, err := e.keys.Lookup(e.ctx, carolKey); err != nil {
		t.Fatalf("carol enabled again: %v", err)
	}
}

func TestGroupChangeChangesRole(t *testing.T) {
	e := newEnv(t)
	e.configure(e.config())
	e.sync()
	e.slapd.Admin(func(c *ldap.Conn) error {
		m := ldap.NewModifyRequest("cn="+testenv.SlapdAdminsGroup+","+testenv.SlapdGroups, nil)
		m.Add("member", []string{"uid=bob," + testenv.SlapdPeople})
		if err := c.Modify(m); err != nil {
			return err
		}
		m = ldap.NewModifyRequest("cn="+testenv.SlapdAdminsGroup+","+testenv.SlapdGroups, nil)
		m.Delete("member", []string{"uid=alice," + testenv.SlapdPeople})
		m.Add("member", []string{"uid=erin," + testenv.SlapdPeople})
		return c.Modify(m)
	})
	res := e.sync()
	// bob up to admin; alice out of every mapped group (disabled); erin
	// in one now (created).
	if res.Updated != 1 || res.Disabled != 1 || res.Created != 1 {
		t.Fatalf("result %+v", res)
	}
	if u := e.user("bob"); u.Role != catalog.RoleAdmin {
		t.Errorf("bob %+v", u)
	}
	if u := e.user("alice"); !u.Disabled {
		t.Errorf("alice %+v", u)
	}
	if u := e.user("erin"); u.Role != catalog.RoleAdmin || u.Disabled {
		t.Errorf("erin %+v", u)
	}
}

func TestSignInBindsAsTheUser(t *testing.T) {
	e := newEnv(t)
	e.configure(e.config())
	// First sign-in imports the user.
	u, err := e.dir.SignIn(e.ctx, tenant, "bob", testenv.SlapdUserPass)
	if err != nil || u.Name != "bob" {
		t.Fatalf("sign-in: %+v %v", u, err)
	}
	if got := e.user("bob"); got.Role != catalog.RoleUser {
		t.Fatalf("bob %+v", got)
	}
	// Login names match as the directory matches them (case aside), and
	// sign in the directory's user.
	if u, err := e.dir.SignIn(e.ctx, tenant, "BOB", testenv.SlapdUserPass); err != nil || u.Name != "bob" {
		t.Fatalf("BOB: %+v %v", u, err)
	}
	for _, c := range []struct{ login, password string }{
		{"bob", "wrong"},
		{"bob", ""},
		{"", testenv.SlapdUserPass},
		{"nobody", testenv.SlapdUserPass},
		{"erin", testenv.SlapdUserPass}, // in no mapped group
		{"dave", testenv.SlapdUserPass}, // disabled in the directory
		// Filter injection: each would match a user if not escaped.
		{"*", testenv.SlapdUserPass},
		{"b*", testenv.SlapdUserPass},
		{"bob)(uid=*", testenv.SlapdUserPass},
		{"*)(|(uid=*", testenv.SlapdUserPass},
		{"bob\x00", testenv.SlapdUserPass},
		{"bob\xff", testenv.SlapdUserPass},
	} {
		if _, err := e.dir.SignIn(e.ctx, tenant, c.login, c.password); !errors.Is(err, directory.ErrInvalidCredentials) {
			t.Errorf("%q/%q: %v, want invalid credentials", c.login, c.password, err)
		}
	}
	if _, err := e.dir.SignIn(e.ctx, "other", "bob", testenv.SlapdUserPass); !errors.Is(err, directory.ErrInvalidCredentials) {
		t.Errorf("a tenant without a directory: %v", err)
	}
	// A failed sign-in of a user gone from the directory disables it at
	// once, without waiting for a sync.
	e.slapd.Admin(func(c *ldap.Conn) error { return c.Del(ldap.NewDelRequest("uid=bob,"+testenv.SlapdPeople, nil)) })
	if _, err := e.dir.SignIn(e.ctx, tenant, "bob", testenv.SlapdUserPass); !errors.Is(err, directory.ErrInvalidCredentials) {
		t.Fatalf("removed bob: %v", err)
	}
	if u := e.user("bob"); !u.Disabled {
		t.Fatalf("bob not disabled at once: %+v", u)
	}
}

func TestTLSAndPlain(t *testing.T) {
	e := newEnv(t)
	signIn := func(cfg directory.Config) error {
		t.Helper()
		e.configure(cfg)
		_, err := e.dir.SignIn(e.ctx, tenant, "alice", testenv.SlapdUserPass)
		return err
	}
	if err := signIn(e.config()); err != nil {
		t.Fatalf("ldaps: %v", err)
	}
	st := e.config()
	st.URL, st.StartTLS = e.slapd.LDAP, true
	if err := signIn(st); err != nil {
		t.Fatalf("StartTLS: %v", err)
	}
	other, _, _ := testenv.NewCA(t, "another CA")
	for _, cfg := range []directory.Config{e.config(), st} {
		cfg.CA = string(other)
		err := signIn(cfg)
		if err == nil || errors.Is(err, directory.ErrInvalidCredentials) || !strings.Contains(err.Error(), "certificate") {
			t.Errorf("%s with another CA: %v, want a certificate error", cfg.URL, err)
		}
		if _, err := e.dir.Sync(e.ctx, tenant); err == nil {
			t.Errorf("%s: a sync with another CA passed", cfg.URL)
		}
	}
	plain := e.config()
	plain.URL, plain.CA = e.slapd.LDAP, ""
	if _, err := e.dir.Configure(e.ctx, tenant, plain, testenv.SlapdReaderPass); err == nil || !strings.Contains(err.Error(), "clear") {
		t.Fatalf("plain ldap:// accepted: %v", err)
	}
	plain.AllowPlain = true
	if err := signIn(plain); err != nil {
		t.Fatalf("plain ldap:// where allowed: %v", err)
	}
}

func TestSyncBounds(t *testing.T) {
	e := newEnv(t)
	e.configure(e.config())
	e.sync()
	cfg := e.config()
	cfg.MaxUsers = 4 // the tree has 5
	e.configure(cfg)
	res, err := e.dir.Sync(e.ctx, tenant)
	if err == nil || !strings.Contains(err.Error(), "max_users") || res.Disabled != 0 {
		t.Fatalf("over max_users: %+v %v", res, err)
	}
	for _, name := range []string{"alice", "bob", "carol"} {
		if e.user(name).Disabled {
			t.Fatalf("a failed sync disabled %s", name)
		}
	}
	// A dead directory: the sign-in fails within its timeout, and the
	// users keep what they have.
	cfg.MaxUsers, cfg.TimeoutSeconds = 0, 2
	e.configure(cfg)
	e.slapd.Stop()
	start := time.Now()
	if _, err := e.dir.SignIn(e.ctx, tenant, "alice", testenv.SlapdUserPass); err == nil || errors.Is(err, directory.ErrInvalidCredentials) {
		t.Fatalf("dead directory: %v", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("the sign-in took %v", d)
	}
	if _, err := e.dir.Sync(e.ctx, tenant); err == nil {
		t.Fatal("a sync of a dead directory passed")
	}
	if e.user("alice").Disabled {
		t.Fatal("a dead directory disabled alice")
	}
}

// A directory that accepts connections and never answers (a hung
// server, a black hole): sign-in and sync fail within the timeout, for
// LDAPS (the handshake), StartTLS and the bind alike.
func TestSlowDirectoryTimesOut(t *testing.T) {
	e := newEnv(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var held []net.Conn
	var mu sync.Mutex
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c) // read nothing, answer nothing
			mu.Unlock()
		}
	}()
	silent := l.Addr().String()
	for _, url := range []string{"ldaps://" + silent, "ldap://" + silent} {
		cfg := e.config()
		cfg.URL, cfg.StartTLS, cfg.TimeoutSeconds = url, strings.HasPrefix(url, "ldap:"), 1
		e.configure(cfg)
		start := time.Now()
		if _, err := e.dir.SignIn(e.ctx, tenant, "alice", testenv.SlapdUserPass); err == nil || errors.Is(err, directory.ErrInvalidCredentials) {
			t.Fatalf("%s: sign-in %v, want the directory's error", url, err)
		}
		if _, err := e.dir.Sync(e.ctx, tenant); err == nil {
			t.Fatalf("%s: a sync passed", url)
		}
		// Generous: the machine is shared; without the timeout both
		// would wait forever.
		if d := time.Since(start); d > 30*time.Second {
			t.Fatalf("%s: %v to fail with a 1 s timeout", url, d)
		}
	}
}
