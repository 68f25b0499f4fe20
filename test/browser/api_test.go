package browser_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/ostiumio/ostium/internal/console"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// api is a console API client with one session, as a browser holds it:
// the session cookie and the CSRF token its sign-in answered.
type api struct {
	t      testing.TB
	srv    *nodetest.Server
	cookie *http.Cookie
	csrf   string
}

// session is the part of the console's Session answer the tests read.
type session struct {
	MustChangePassword bool   `json:"must_change_password"`
	Provider           bool   `json:"provider"`
	CSRFToken          string `json:"csrf_token"`
	Identity           struct {
		Tenant string `json:"tenant"`
		User   string `json:"user"`
		Root   bool   `json:"root"`
	} `json:"identity"`
}

// signIn opens a console session with creds (the JSON of POST /session).
func signIn(t testing.TB, srv *nodetest.Server, creds map[string]string) *api {
	t.Helper()
	a := &api{t: t, srv: srv}
	var s session
	st, body := a.call("POST", "/session", creds, &s)
	if st != 200 {
		t.Fatalf("sign in as %v: %d %s", creds["user"]+creds["access_key"], st, body)
	}
	a.csrf = s.CSRFToken
	return a
}

// provider is the provider's root, signed in with its access key.
func provider(t testing.TB, srv *nodetest.Server) *api {
	return signIn(t, srv, map[string]string{"access_key": nodetest.AccessKey, "secret_key": nodetest.SecretKey})
}

// call sends method path (under /console/api) with the session's cookie
// and CSRF token and JSON in, decoding a 2xx answer into out.
func (a *api) call(method, path string, in, out any) (int, []byte) {
	a.t.Helper()
	var rd io.Reader
	if in != nil {
		b, _ := json.Marshal(in)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, a.srv.Console.URL+"/console/api"+path, rd)
	if err != nil {
		a.t.Fatal(err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if a.cookie != nil {
		req.AddCookie(a.cookie)
	}
	if a.csrf != "" {
		req.Header.Set("X-CSRF-Token", a.csrf)
	}
	resp, err := a.srv.Console.Client().Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Name == console.CookieName || c.Name == console.SecureCookieName {
			a.cookie = c
		}
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if out != nil && resp.StatusCode/100 == 2 {
		if err := json.Unmarshal(body, out); err != nil {
			a.t.Fatalf("%s %s: %v in %s", method, path, err, body)
		}
	}
	return resp.StatusCode, body
}

// must is call that fails the test unless the answer is want.
func (a *api) must(want int, method, path string, in, out any) []byte {
	a.t.Helper()
	st, body := a.call(method, path, in, out)
	if st != want {
		a.t.Fatalf("%s %s: %d %s, want %d", method, path, st, body, want)
	}
	return body
}

// errorCode is the code of the console's error answer.
func errorCode(body []byte) string {
	var e struct {
		Error struct{ Code string } `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	return e.Error.Code
}

// onboard has the provider create tenant with its first admin (password
// set by the provider, so it must be changed), as the provider portal
// does.
func onboard(t testing.TB, p *api, tenant, admin, password string) {
	t.Helper()
	p.must(201, "POST", "/tenants", map[string]any{
		"name": tenant, "display_name": strings.ToUpper(tenant[:1]) + tenant[1:],
		"admin": map[string]string{"name": admin, "password": password},
	}, nil)
}

// tenantUser signs in as tenant/user with password and changes the
// password the provider set to newPassword, as the first sign-in must.
func tenantUser(t testing.TB, srv *nodetest.Server, tenant, user, password, newPassword string) *api {
	t.Helper()
	a := signIn(t, srv, map[string]string{"tenant": tenant, "user": user, "password": password})
	var s session
	a.must(200, "GET", "/session", nil, &s)
	if !s.MustChangePassword {
		t.Fatalf("%s/%s: a password set by the provider must be changed on first sign-in", tenant, user)
	}
	// Until it is changed, nothing else answers.
	if st, body := a.call("GET", "/buckets", nil, nil); st != 403 || errorCode(body) != "PasswordChangeRequired" {
		t.Fatalf("GET /buckets before the password change: %d %s, want 403 PasswordChangeRequired", st, body)
	}
	a.must(204, "POST", "/password", map[string]string{"current": password, "new": newPassword}, nil)
	return signIn(t, srv, map[string]string{"tenant": tenant, "user": user, "password": newPassword})
}

// TestConsoleAPIIsolation: a tenant's user, holding a valid console
// session, cannot reach another tenant's bucket nor any provider call
// through the console's own API, whatever the pages show: each answers
// 403, as the S3 and admin APIs would.
func TestConsoleAPIIsolation(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	p := provider(t, srv)
	onboard(t, p, "acme", "alice", "provider-set-1")
	onboard(t, p, "globex", "bob", "provider-set-2")
	alice := tenantUser(t, srv, "acme", "alice", "provider-set-1", "alice-own-password")
	bob := tenantUser(t, srv, "globex", "bob", "provider-set-2", "bob-own-password")

	alice.must(201, "POST", "/buckets", map[string]any{"name": "acme-private"}, nil)
	req, _ := http.NewRequest("PUT", srv.Console.URL+"/console/api/buckets/acme-private/object?key=secret.txt", strings.NewReader("acme's secret"))
	req.AddCookie(alice.cookie)
	req.Header.Set("X-CSRF-Token", alice.csrf)
	if resp, err := srv.Console.Client().Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("alice's upload: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}

	var list struct {
		Buckets []struct{ Name string } `json:"buckets"`
	}
	bob.must(200, "GET", "/buckets", nil, &list)
	for _, b := range list.Buckets {
		if b.Name == "acme-private" {
			t.Fatalf("bob (globex) is shown acme's bucket: %+v", list)
		}
	}

	denied := []struct{ method, path string }{
		// Another tenant's bucket and objects.
		{"GET", "/buckets/acme-private"},
		{"GET", "/buckets/acme-private/objects?delimiter=/"},
		{"GET", "/buckets/acme-private/object?key=secret.txt"},
		{"GET", "/buckets/acme-private/metadata?key=secret.txt"},
		{"GET", "/buckets/acme-private/settings/versioning"},
		{"GET", "/buckets/acme-private/settings/policy"},
		{"POST", "/buckets/acme-private/share"},
		{"DELETE", "/buckets/acme-private/object?key=secret.txt"},
		{"DELETE", "/buckets/acme-private"},
		// Another tenant's control plane.
		{"GET", "/tenants/acme/users"},
		{"GET", "/tenants/acme/usage"},
		{"POST", "/tenants/acme/users"},
		// The provider's pages' calls.
		{"GET", "/tenants"},
		{"POST", "/tenants"},
		{"GET", "/tenants/acme"},
		{"GET", "/tenants/acme/quotas"},
		{"POST", "/tenants/globex/resume"},
		{"PUT", "/tenants/globex/quotas"},
		{"GET", "/health"},
		{"GET", "/usage"},
	}
	bodies := map[string]any{
		"/buckets/acme-private/share": map[string]any{"key": "secret.txt", "expires_seconds": 600},
		"/tenants":                    map[string]any{"name": "evil"},
		"/tenants/acme/users":         map[string]any{"name": "mallory", "role": "admin", "password": "mallory-pass"},
		"/tenants/globex/quotas":      map[string]any{"max_bytes": 1 << 40, "max_objects": 1 << 30},
	}
	for _, d := range denied {
		var in any
		if d.method != "GET" && d.method != "DELETE" {
			in = bodies[d.path]
			if in == nil {
				in = map[string]any{}
			}
		}
		st, body := bob.call(d.method, d.path, in, nil)
		if st != 403 {
			t.Errorf("bob: %s %s: %d %s, want 403", d.method, d.path, st, body)
		}
	}
	// Nothing of it happened.
	var got []byte
	got = alice.must(200, "GET", "/buckets/acme-private/object?key=secret.txt", nil, nil)
	if string(got) != "acme's secret" {
		t.Fatalf("acme's object after bob's attempts: %q", got)
	}
	var tenants []struct{ Name string }
	p.must(200, "GET", "/tenants", nil, &tenants)
	for _, tn := range tenants {
		if tn.Name == "evil" {
			t.Fatal("bob created a tenant")
		}
	}
	// Without a session at all: 401.
	anon := &api{t: t, srv: srv}
	if st, body := anon.call("GET", "/buckets", nil, nil); st != 401 {
		t.Fatalf("no session: %d %s, want 401", st, body)
	}
}
