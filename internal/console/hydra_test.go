package console_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ostiumio/ostium/internal/testenv"
)

// TestOIDCWithHydra: the sign-in against a real OpenID Connect
// provider, ORY Hydra. The provider's identity provider signs people in
// to the tenant their claim names, admins by group; a second browser
// cannot use the first one's callback; sign-out reaches Hydra's logout,
// which comes back to the console.
func TestOIDCWithHydra(t *testing.T) {
	h := testenv.StartHydra(t)
	e := startOIDC(t)
	h.CreateClient(opClient, "s3cret", []string{e.base + "/console/api/oidc/callback"}, []string{e.base + "/console/"})
	e.must(e.admin.Do(context.Background(), "PUT", "/idps/hydra", map[string]any{"issuer": h.Issuer, "client_id": opClient,
		"client_secret": "s3cret", "thumbprints": []string{h.Thumbprint}, "scopes": []string{"profile", "groups"},
		"tenant_claim": "ostium_tenant", "admin_groups": []string{"storage-admins"}, "create_users": true}, nil))
	h.AddUser("olga", testenv.HydraUser{Subject: "u-olga", Claims: map[string]any{"preferred_username": "olga",
		"groups": []string{"storage-admins"}, "ostium_tenant": "globex"}})
	h.AutoLogin("olga")

	b := newBrowser(t, e.srv, e.op)
	pool := b.hc.Transport.(*http.Transport).TLSClientConfig.RootCAs
	pool.AppendCertsFromPEM(h.CA)

	// Follow the provider's redirects (login, consent) until it sends
	// the browser back to the console.
	follow := func(u string) string {
		t.Helper()
		for i := 0; i < 10; i++ {
			if strings.HasPrefix(u, e.base) {
				return u
			}
			resp := b.get(u)
			if resp.StatusCode != http.StatusFound && resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("provider at %s: %s", u, resp.Status)
			}
			next, err := url.Parse(resp.Header.Get("Location"))
			if err != nil {
				t.Fatal(err)
			}
			base, _ := url.Parse(u)
			u = base.ResolveReference(next).String()
		}
		t.Fatalf("the provider never sent the browser back")
		return ""
	}
	back := follow(b.start(e.base, "", "hydra", "/console/buckets"))
	if where := b.callback(back); where != "/console/buckets" {
		t.Fatalf("signed in, sent to %q", where)
	}
	status, s := b.session(e.base)
	id, _ := s["identity"].(map[string]any)
	if status != 200 || s["method"] != "oidc" || id["tenant"] != "globex" || id["user"] != "olga" || id["role"] != "admin" {
		t.Fatalf("session %d %v", status, s)
	}
	// The callback again, from another browser: refused.
	other := newBrowser(t, e.srv, e.op)
	refusedWith(t, other.callback(back), "InvalidState")

	// Sign-out reaches Hydra's logout and comes back to the console.
	req, _ := http.NewRequest("DELETE", e.base+"/console/api/session", nil)
	req.Header.Set("X-CSRF-Token", s["csrf_token"].(string))
	resp, err := b.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		LogoutURL string `json:"logout_url"`
	}
	jsonDecode(t, resp, &out)
	if !strings.HasPrefix(out.LogoutURL, h.Issuer) {
		t.Fatalf("logout URL %q", out.LogoutURL)
	}
	if where := follow(out.LogoutURL); where != e.base+"/console/" || h.Logouts() != 1 {
		t.Fatalf("after logout: %q, %d logouts", where, h.Logouts())
	}

	// A user the provider does not know is refused at Hydra, and so at
	// the console.
	h.AutoLogin("mallory")
	b3 := newBrowser(t, e.srv, e.op)
	b3.hc.Transport.(*http.Transport).TLSClientConfig.RootCAs.AppendCertsFromPEM(h.CA)
	refusedWith(t, b3.callback(follow(b3.start(e.base, "", "hydra", "/console/"))), "AccessDeniedByProvider")
}
