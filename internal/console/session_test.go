package console_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/console"
	"github.com/ostiumio/ostium/internal/console/consoletest"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// root signs in as the provider with the test node's root key.
func root(t *testing.T, srv *nodetest.Server) *consoletest.Client {
	t.Helper()
	c := consoletest.New(t, srv.Console.URL, srv.Console.Client())
	c.Key(nodetest.AccessKey, nodetest.SecretKey)
	return c
}

// onboard makes tenant with an admin user ann (password "first-pass-1",
// to be changed) and a user bob (password "bob-pass-1", changed), and
// returns ann's and bob's signed-in clients (ann has not changed hers).
func onboard(t *testing.T, srv *nodetest.Server, tenant string) (ann, bob *consoletest.Client) {
	t.Helper()
	rc := root(t, srv)
	rc.Must(201, "POST", "/tenants", map[string]any{"name": tenant, "admin": map[string]string{"name": "ann", "password": "first-pass-1"}})
	rc.Must(201, "POST", "/tenants/"+tenant+"/users", map[string]any{"name": "bob", "password": "bob-first-1"})
	ann = consoletest.New(t, srv.Console.URL, srv.Console.Client())
	ann.MustSignIn(map[string]string{"tenant": tenant, "user": "ann", "password": "first-pass-1"})
	bob = consoletest.New(t, srv.Console.URL, srv.Console.Client())
	bob.MustSignIn(map[string]string{"tenant": tenant, "user": "bob", "password": "bob-first-1"})
	bob.Must(204, "POST", "/password", map[string]string{"current": "bob-first-1", "new": "bob-pass-1"})
	return ann, bob
}

func cookie(t *testing.T, r *consoletest.Response) *http.Cookie {
	t.Helper()
	for _, line := range r.Header.Values("Set-Cookie") {
		cs, err := http.ParseSetCookie(line)
		if err == nil && (cs.Name == console.CookieName || cs.Name == console.SecureCookieName) {
			return cs
		}
	}
	t.Fatalf("no session cookie in %v", r.Header)
	return nil
}

// TestSignInAndOut: an access key signs in; the cookie is HttpOnly,
// SameSite=Strict, scoped to /console/ (Secure only over TLS, see
// TestCookieSecureOverTLS); GET /session tells who; sign-out ends the
// session in the catalog, so the same cookie is refused after.
func TestSignInAndOut(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	c := consoletest.New(t, srv.Console.URL, srv.Console.Client())
	if r := c.Do("GET", "/session", nil); r.Status != 401 || r.Code() != "NotSignedIn" {
		t.Fatalf("no session: %d %s", r.Status, r.Body)
	}
	r := c.Key(nodetest.AccessKey, nodetest.SecretKey)
	ck := cookie(t, r)
	if !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Path != "/console/" || ck.Secure || len(ck.Value) < 43 {
		t.Fatalf("cookie %+v: want HttpOnly, SameSite=Strict, Path=/console/, not Secure over plain HTTP, 256 random bits", ck)
	}
	var s struct {
		Method   string `json:"method"`
		Provider bool   `json:"provider"`
		CSRF     string `json:"csrf_token"`
		Identity struct {
			Root      bool   `json:"root"`
			AccessKey string `json:"access_key"`
		} `json:"identity"`
	}
	c.Must(200, "GET", "/session", nil).JSON(t, &s)
	if s.Method != "access_key" || !s.Provider || !s.Identity.Root || s.Identity.AccessKey != nodetest.AccessKey || s.CSRF != c.CSRF {
		t.Fatalf("session %+v", s)
	}
	// The cookie's value is not what the catalog keeps.
	old := *ck
	c.Must(204, "DELETE", "/session", nil)
	if r := c.Do("GET", "/buckets", nil); r.Status != 401 {
		t.Fatalf("after sign-out: %d %s", r.Status, r.Body)
	}
	// A browser that kept the cookie gets nothing for it.
	c2 := consoletest.New(t, srv.Console.URL, srv.Console.Client())
	req, _ := http.NewRequest("GET", srv.Console.URL+"/console/api/session", nil)
	req.AddCookie(&old)
	resp, err := c2.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("a signed-out cookie got %d", resp.StatusCode)
	}
	// Wrong secrets and unknown keys get one answer.
	for _, f := range []map[string]string{
		{"access_key": nodetest.AccessKey, "secret_key": "wrong"},
		{"access_key": "NOSUCHKEY", "secret_key": nodetest.SecretKey},
		{"tenant": "acme", "user": "nobody", "password": "whatever-1"},
	} {
		if r := c.SignIn(f); r.Status != 401 || r.Code() != "InvalidCredentials" {
			t.Fatalf("sign in %v: %d %s", f, r.Status, r.Body)
		}
	}
}

// TestCookieSecureOverTLS: over TLS the cookie is Secure.
func TestCookieSecureOverTLS(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{TLS: true})
	c := consoletest.New(t, srv.Console.URL, srv.Console.Client())
	if ck := cookie(t, c.Key(nodetest.AccessKey, nodetest.SecretKey)); !ck.Secure {
		t.Fatalf("cookie over TLS is not Secure: %+v", ck)
	}
}

// TestForcedPasswordChange: a password set by someone else lets its
// user do nothing but change it (with the current one given again);
// the change ends the user's other sessions, and the new password signs
// in.
func TestForcedPasswordChange(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	ann, _ := onboard(t, srv, "acme")
	var s struct {
		MustChange bool `json:"must_change_password"`
		Identity   struct {
			Tenant, User, Role string
		} `json:"identity"`
	}
	ann.Must(200, "GET", "/session", nil).JSON(t, &s)
	if !s.MustChange || s.Identity.Tenant != "acme" || s.Identity.User != "ann" || s.Identity.Role != "admin" {
		t.Fatalf("session %+v", s)
	}
	if r := ann.Do("GET", "/buckets", nil); r.Status != 403 || r.Code() != "PasswordChangeRequired" {
		t.Fatalf("before the change: %d %s", r.Status, r.Body)
	}
	// A second session of ann's, to be ended by the change.
	other := consoletest.New(t, srv.Console.URL, srv.Console.Client())
	other.MustSignIn(map[string]string{"tenant": "acme", "user": "ann", "password": "first-pass-1"})

	if r := ann.Do("POST", "/password", map[string]string{"current": "wrong-pass-1", "new": "second-pass-2"}); r.Status != 403 || r.Code() != "InvalidCredentials" {
		t.Fatalf("wrong current password: %d %s", r.Status, r.Body)
	}
	if r := ann.Do("POST", "/password", map[string]string{"current": "first-pass-1", "new": "short"}); r.Status != 400 || r.Code() != "InvalidPassword" {
		t.Fatalf("short new password: %d %s", r.Status, r.Body)
	}
	ann.Must(204, "POST", "/password", map[string]string{"current": "first-pass-1", "new": "second-pass-2"})
	ann.Must(200, "GET", "/buckets", nil)
	if r := other.Do("GET", "/session", nil); r.Status != 401 {
		t.Fatalf("another session outlived the password change: %d %s", r.Status, r.Body)
	}
	fresh := consoletest.New(t, srv.Console.URL, srv.Console.Client())
	if r := fresh.SignIn(map[string]string{"tenant": "acme", "user": "ann", "password": "first-pass-1"}); r.Status != 401 {
		t.Fatalf("the old password still signs in: %d", r.Status)
	}
	fresh.MustSignIn(map[string]string{"tenant": "acme", "user": "ann", "password": "second-pass-2"})
	fresh.Must(200, "GET", "/buckets", nil)

	// A tenant admin resetting a user's password makes it one to change,
	// and ends the user's sessions.
	bob := consoletest.New(t, srv.Console.URL, srv.Console.Client())
	bob.MustSignIn(map[string]string{"tenant": "acme", "user": "bob", "password": "bob-pass-1"})
	fresh.Must(204, "PUT", "/tenants/acme/users/bob/password", map[string]string{"password": "reset-pass-3"})
	if r := bob.Do("GET", "/buckets", nil); r.Status != 401 {
		t.Fatalf("bob's session outlived the reset: %d", r.Status)
	}
	bob.MustSignIn(map[string]string{"tenant": "acme", "user": "bob", "password": "reset-pass-3"})
	if r := bob.Do("GET", "/buckets", nil); r.Code() != "PasswordChangeRequired" {
		t.Fatalf("after a reset: %d %s", r.Status, r.Body)
	}
	// A user cannot set another's password (the admin service's rule).
	bob.Must(204, "POST", "/password", map[string]string{"current": "reset-pass-3", "new": "bob-pass-4"})
	if r := bob.Do("PUT", "/tenants/acme/users/ann/password", map[string]string{"password": "hijacked-1"}); r.Status != 403 {
		t.Fatalf("a user set its admin's password: %d %s", r.Status, r.Body)
	}
}

// TestSessionExpiry: a session unused for the idle expiry ends, one in
// use lives on, and none outlives its absolute expiry.
func TestSessionExpiry(t *testing.T) {
	const idleExpiry, maxAge = 2 * time.Second, 5 * time.Second
	srv := nodetest.Start(t, nodetest.Options{Config: func(c *node.Config) {
		c.ConsoleIdleExpiry, c.ConsoleMaxAge = idleExpiry, maxAge
	}})
	start := time.Now()
	busy, idle := root(t, srv), root(t, srv)
	checkedIdle := false
	for {
		time.Sleep(200 * time.Millisecond)
		r := busy.Do("GET", "/session", nil)
		age := time.Since(start)
		if !checkedIdle && age > idleExpiry+time.Second {
			if r := idle.Do("GET", "/session", nil); r.Status != 401 {
				t.Fatalf("a session idle for %v with a %v idle expiry: %d", age, idleExpiry, r.Status)
			}
			checkedIdle = true
		}
		if r.Status == 200 {
			if age > maxAge+2*time.Second {
				t.Fatalf("a session in use outlived its absolute expiry of %v: %v", maxAge, age)
			}
			continue
		}
		if r.Status != 401 || age < maxAge-500*time.Millisecond {
			t.Fatalf("a session in use ended after %v (absolute expiry %v): %d", age, maxAge, r.Status)
		}
		if !checkedIdle {
			t.Fatal("the idle session was never checked")
		}
		return
	}
}

// TestCSRF: a changing call needs the session's own token, and a
// browser's Origin must be the console's.
func TestCSRF(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	a, b := root(t, srv), root(t, srv)
	create := map[string]string{"name": "csrf-test"}
	mine := a.CSRF
	a.CSRF = ""
	if r := a.Do("POST", "/buckets", create); r.Status != 403 || r.Code() != "InvalidCSRFToken" {
		t.Fatalf("no token: %d %s", r.Status, r.Body)
	}
	a.CSRF = b.CSRF
	if r := a.Do("POST", "/buckets", create); r.Status != 403 || r.Code() != "InvalidCSRFToken" {
		t.Fatalf("another session's token: %d %s", r.Status, r.Body)
	}
	a.CSRF, a.Origin = mine, "https://evil.example"
	if r := a.Do("POST", "/buckets", create); r.Status != 403 || r.Code() != "InvalidCSRFToken" {
		t.Fatalf("another origin: %d %s", r.Status, r.Body)
	}
	a.Origin = srv.Console.URL
	a.Must(201, "POST", "/buckets", create)
	// Sign-in from another origin is refused too.
	c := consoletest.New(t, srv.Console.URL, srv.Console.Client())
	c.Origin = "https://evil.example"
	if r := c.SignIn(map[string]string{"access_key": nodetest.AccessKey, "secret_key": nodetest.SecretKey}); r.Status != 403 || r.Code() != "InvalidOrigin" {
		t.Fatalf("cross-origin sign-in: %d %s", r.Status, r.Body)
	}
	// GETs need no token.
	a.CSRF = ""
	a.Must(200, "GET", "/buckets", nil)
}

// TestSignInRateLimit: after 5 failures a stranger's browser (no device
// cookie of the user's, see TestDeviceCookie) is refused for the user,
// even with the right password, with 429 and Retry-After; after 20 from
// one address, that address is, whoever it claims to be.
func TestSignInRateLimit(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	onboard(t, srv, "acme")
	c := consoletest.New(t, srv.Console.URL, srv.Console.Client())
	for i := 0; i < 5; i++ {
		if r := c.SignIn(map[string]string{"tenant": "acme", "user": "bob", "password": "wrong-pass-1"}); r.Status != 401 {
			t.Fatalf("failure %d: %d %s", i+1, r.Status, r.Body)
		}
	}
	r := c.SignIn(map[string]string{"tenant": "acme", "user": "bob", "password": "bob-pass-1"})
	if r.Status != 429 || r.Code() != "TooManyAttempts" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("the right password after 5 failures: %d %s %v", r.Status, r.Body, r.Header)
	}
	// Another user is not held back by bob's failures (the address has
	// 5 of its 20).
	ann := consoletest.New(t, srv.Console.URL, srv.Console.Client())
	ann.MustSignIn(map[string]string{"tenant": "acme", "user": "ann", "password": "first-pass-1"})
	for i := 0; i < 15; i++ {
		c.SignIn(map[string]string{"access_key": "NOKEY" + strings.Repeat("X", i), "secret_key": "x"})
	}
	r = c.SignIn(map[string]string{"access_key": nodetest.AccessKey, "secret_key": nodetest.SecretKey})
	if r.Status != 429 || r.Header.Get("Retry-After") == "" {
		t.Fatalf("after 20 failures from one address: %d %s", r.Status, r.Body)
	}
}

// TestSessionAcrossNodes: sessions live in the catalog, so a cookie
// from one node serves on another sharing it (on PostgreSQL as nodes
// behind a balancer run), and sign-out on either ends it on both.
func TestSessionAcrossNodes(t *testing.T) {
	a := nodetest.Start(t, nodetest.Options{})
	b := nodetest.StartPeer(t, a, nodetest.Options{})
	c := root(t, a)
	c.Must(201, "POST", "/buckets", map[string]string{"name": "across"})
	c.Base = b.Console.URL // the cookie jar holds the cookie for the host, whatever the port
	c.Must(200, "PUT", "/buckets/across/object?key=k", []byte("written through b"))
	c.Base = a.Console.URL
	if r := c.Must(200, "GET", "/buckets/across/object?key=k", nil); string(r.Body) != "written through b" {
		t.Fatalf("read through a: %q", r.Body)
	}
	c.Base = b.Console.URL
	c.Must(204, "DELETE", "/session", nil)
	c.Base = a.Console.URL
	if r := c.Do("GET", "/session", nil); r.Status != 401 {
		t.Fatalf("signed out on b, still signed in on a: %d", r.Status)
	}
}

// TestRequestSlots: console calls hold the node's request slots as S3
// requests do: with one slot, an upload in progress leaves none, and
// another call gets 503 SlowDown with Retry-After.
func TestRequestSlots(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{Config: func(c *node.Config) { c.MaxRequests = 1 }})
	c, other := root(t, srv), root(t, srv)
	c.Must(201, "POST", "/buckets", map[string]string{"name": "slots"})
	pr, pw := io.Pipe()
	done := make(chan *consoletest.Response)
	go func() {
		done <- c.Do("PUT", "/buckets/slots/object?key=slow", io.Reader(pr), "Content-Length", "4")
	}()
	pw.Write([]byte("ab"))
	time.Sleep(100 * time.Millisecond) // the upload holds the slot
	r := other.Do("GET", "/session", nil)
	if r.Status != 503 || r.Code() != "SlowDown" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("a call while the one slot is held: %d %s", r.Status, r.Body)
	}
	pw.Write([]byte("cd"))
	pw.Close()
	if r := <-done; r.Status != 200 {
		t.Fatalf("the upload: %d %s", r.Status, r.Body)
	}
	other.Must(200, "GET", "/session", nil)
}

// TestCookieSecureBehindProxy: behind a trusted balancer that ended TLS
// (X-Forwarded-Proto: https) the cookie is Secure; the same header from
// a client that is not a trusted proxy changes nothing.
func TestCookieSecureBehindProxy(t *testing.T) {
	creds := map[string]string{"access_key": nodetest.AccessKey, "secret_key": nodetest.SecretKey}
	for _, tc := range []struct {
		proxies []string
		secure  bool
	}{{[]string{"127.0.0.1", "::1"}, true}, {nil, false}} {
		srv := nodetest.Start(t, nodetest.Options{Config: func(c *node.Config) { c.TrustedProxies = tc.proxies }})
		c := consoletest.New(t, srv.Console.URL, srv.Console.Client())
		r := c.Do("POST", "/session", creds, "X-Forwarded-Proto", "https", "Origin", "https://"+strings.TrimPrefix(srv.Console.URL, "http://"))
		if r.Status != 200 {
			t.Fatalf("proxies %v: sign in: %d %s", tc.proxies, r.Status, r.Body)
		}
		if ck := cookie(t, r); ck.Secure != tc.secure {
			t.Errorf("proxies %v: cookie Secure=%v, want %v", tc.proxies, ck.Secure, tc.secure)
		}
	}
}
