package console_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/oidc"
)

// op is a small OpenID Connect provider on loopback HTTPS whose ID
// tokens the test shapes: it keeps the authorization request's nonce and
// PKCE challenge, checks the verifier at the token endpoint as a real
// provider does, and signs with its key unless the test says otherwise.
type op struct {
	t   *testing.T
	srv *httptest.Server
	key *ecdsa.PrivateKey

	mu sync.Mutex
	// claims are the ID token's claims besides iss, aud, sub, exp, iat
	// and nonce; shape, when set, changes the token before it is signed.
	claims map[string]any
	shape  func(c *jwt.Claims, extra map[string]any)
	// sign, when set, replaces the signing (another key, alg none).
	sign   func(c jwt.Claims, extra map[string]any) string
	codes  map[string]grant
	delay  time.Duration // before every answer: a slow provider
	logins int
}

type grant struct{ nonce, challenge, redirect string }

const opClient = "ostium-console"

func newOP(t *testing.T) *op {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	o := &op{t: t, key: key, codes: map[string]grant{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		u := o.srv.URL
		json.NewEncoder(w).Encode(map[string]any{"issuer": u, "authorization_endpoint": u + "/authorize", "token_endpoint": u + "/token",
			"jwks_uri": u + "/keys", "end_session_endpoint": u + "/logout", "code_challenge_methods_supported": []string{"S256"}})
	})
	mux.HandleFunc("/keys", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &o.key.PublicKey, KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("client_id") != opClient || q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" ||
			q.Get("code_challenge") == "" || q.Get("nonce") == "" || !strings.Contains(q.Get("scope"), "openid") {
			http.Error(w, "bad authorization request: "+r.URL.RawQuery, http.StatusBadRequest)
			return
		}
		code := base64.RawURLEncoding.EncodeToString(sha256.New().Sum([]byte(q.Get("state"))))[:20]
		o.mu.Lock()
		o.codes[code] = grant{nonce: q.Get("nonce"), challenge: q.Get("code_challenge"), redirect: q.Get("redirect_uri")}
		o.logins++
		o.mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code="+code+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		user, pass, _ := r.BasicAuth()
		r.ParseForm()
		o.mu.Lock()
		g, ok := o.codes[r.PostForm.Get("code")]
		delete(o.codes, r.PostForm.Get("code"))
		o.mu.Unlock()
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		if user != opClient || pass != "s3cret" || !ok || g.redirect != r.PostForm.Get("redirect_uri") ||
			base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":"invalid_grant"}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": "at", "token_type": "Bearer", "expires_in": 60, "id_token": o.idToken(g.nonce)})
	})
	o.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.mu.Lock()
		d := o.delay
		o.mu.Unlock()
		if d > 0 {
			select {
			case <-time.After(d):
			case <-r.Context().Done():
				return
			}
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(o.srv.Close)
	return o
}

func (o *op) idToken(nonce string) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	now := time.Now()
	c := jwt.Claims{Issuer: o.srv.URL, Audience: jwt.Audience{opClient}, Subject: "sub-1", Expiry: jwt.NewNumericDate(now.Add(5 * time.Minute)),
		IssuedAt: jwt.NewNumericDate(now)}
	extra := map[string]any{"nonce": nonce}
	for k, v := range o.claims {
		extra[k] = v
	}
	if o.shape != nil {
		o.shape(&c, extra)
	}
	if o.sign != nil {
		return o.sign(c, extra)
	}
	return signES(o.t, o.key, "k1", c, extra)
}

func signES(t *testing.T, key *ecdsa.PrivateKey, kid string, c jwt.Claims, extra map[string]any) string {
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: key, KeyID: kid}}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := jwt.Signed(s).Claims(c).Claims(extra).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func (o *op) set(f func(o *op)) {
	o.mu.Lock()
	defer o.mu.Unlock()
	f(o)
}

func (o *op) thumbprint() string { return oidc.Thumbprint([]*x509.Certificate{o.srv.Certificate()}) }

// browser is one browser: a cookie jar, following no redirect by itself,
// trusting the node's and the provider's test certificates.
type browser struct {
	t  *testing.T
	hc *http.Client
}

func newBrowser(t *testing.T, srv *nodetest.Server, o *op) *browser {
	jar, _ := cookiejar.New(nil)
	pool := x509.NewCertPool()
	pool.AddCert(o.srv.Certificate())
	tr := srv.Console.Client().Transport.(*http.Transport).Clone()
	if tr.TLSClientConfig == nil {
		tr.TLSClientConfig = &tls.Config{}
	}
	if tr.TLSClientConfig.RootCAs != nil {
		pool = tr.TLSClientConfig.RootCAs.Clone()
		pool.AddCert(o.srv.Certificate())
	}
	tr.TLSClientConfig.RootCAs = pool
	return &browser{t: t, hc: &http.Client{Jar: jar, Transport: tr, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *browser) get(u string) *http.Response {
	b.t.Helper()
	resp, err := b.hc.Get(u)
	if err != nil {
		b.t.Fatalf("GET %s: %v", u, err)
	}
	resp.Body.Close()
	return resp
}

// start asks the console to sign in with tenant's provider name and
// returns the provider's URL it was sent to.
func (b *browser) start(base, tenant, name, ret string) string {
	b.t.Helper()
	resp := b.get(base + "/console/api/oidc/start?tenant=" + url.QueryEscape(tenant) + "&idp=" + name + "&return=" + url.QueryEscape(ret))
	if resp.StatusCode != http.StatusSeeOther {
		b.t.Fatalf("start: %s", resp.Status)
	}
	return resp.Header.Get("Location")
}

// signIn runs the whole flow and returns where the console sent the
// browser in the end.
func (b *browser) signIn(base, tenant, name, ret string) string {
	b.t.Helper()
	resp := b.get(b.start(base, tenant, name, ret))
	if resp.StatusCode != http.StatusFound {
		b.t.Fatalf("provider: %s", resp.Status)
	}
	return b.callback(resp.Header.Get("Location"))
}

func (b *browser) callback(u string) string {
	b.t.Helper()
	resp := b.get(u)
	if resp.StatusCode != http.StatusSeeOther {
		b.t.Fatalf("callback: %s", resp.Status)
	}
	return resp.Header.Get("Location")
}

// session is GET /session as this browser.
func (b *browser) session(base string) (int, map[string]any) {
	b.t.Helper()
	resp, err := b.hc.Get(base + "/console/api/session")
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func refusedWith(t *testing.T, where, code string) {
	t.Helper()
	if where != "/console/?signin_error="+code {
		t.Fatalf("sent to %q, want the sign-in page with %s", where, code)
	}
}

type oidcEnv struct {
	srv   *nodetest.Server
	op    *op
	admin *admin.Client
	base  string
}

func startOIDC(t *testing.T) *oidcEnv { return startOIDCWith(t, false) }

func startOIDCWith(t *testing.T, tls bool) *oidcEnv {
	srv := nodetest.Start(t, nodetest.Options{TLS: tls, Config: func(c *node.Config) {
		c.STS.OIDCAllowNetworks = []string{"127.0.0.0/8"}
	}})
	e := &oidcEnv{srv: srv, op: newOP(t), admin: admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, srv.Client()), base: srv.Console.URL}
	for _, tn := range []string{"acme", "globex"} {
		e.must(e.admin.Do(context.Background(), "POST", "/tenants", map[string]any{"name": tn}, nil))
	}
	return e
}

func (e *oidcEnv) must(err error) {
	if err != nil {
		panic(err)
	}
}

func (e *oidcEnv) register(t *testing.T, path string, cfg map[string]any) {
	t.Helper()
	body := map[string]any{"issuer": e.op.srv.URL, "client_id": opClient, "client_secret": "s3cret", "thumbprints": []string{e.op.thumbprint()}}
	for k, v := range cfg {
		body[k] = v
	}
	if err := e.admin.Do(context.Background(), "PUT", path, body, nil); err != nil {
		t.Fatalf("PUT %s: %v", path, err)
	}
}

// TestOIDCSignIn: a tenant's provider signs a user in; the user is made
// at the first sign-in with the role its groups give, the session is an
// ordinary one of method oidc, the browser lands where it started, and
// sign-out sends it to the provider's end_session_endpoint with the ID
// token as hint. The secret is never shown back.
func TestOIDCSignIn(t *testing.T) {
	e := startOIDC(t)
	e.register(t, "/tenants/acme/idps/corp", map[string]any{"display_name": "Corp SSO", "admin_groups": []string{"ops"}, "create_users": true})
	e.op.set(func(o *op) { o.claims = map[string]any{"preferred_username": "dana", "groups": []string{"ops", "dev"}} })

	var got admin.IdentityProvider
	e.must(e.admin.Do(context.Background(), "GET", "/tenants/acme/idps/corp", nil, &got))
	raw, _ := json.Marshal(got)
	if strings.Contains(string(raw), "s3cret") || got.Config.Issuer != e.op.srv.URL {
		t.Fatalf("the provider as shown: %s", raw)
	}

	b := newBrowser(t, e.srv, e.op)
	// The sign-in page's buttons: the tenant's provider for its page.
	resp, err := b.hc.Get(e.base + "/console/api/oidc/providers?tenant=acme")
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Providers []struct{ Tenant, Name, Label string }
	}
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if len(list.Providers) != 1 || list.Providers[0].Label != "Corp SSO" || list.Providers[0].Tenant != "acme" {
		t.Fatalf("buttons: %+v", list)
	}

	start := b.get(e.base + "/console/api/oidc/start?tenant=acme&idp=corp&return=" + url.QueryEscape("/console/buckets"))
	var state *http.Cookie
	for _, c := range start.Cookies() {
		if c.Name == "ostium_oidc" {
			state = c
		}
	}
	if state == nil || !state.HttpOnly || state.SameSite != http.SameSiteLaxMode || state.MaxAge <= 0 || state.MaxAge > 600 ||
		state.Path != "/console/api/oidc/" || len(state.Value) > 2048 {
		t.Fatalf("state cookie %+v", state)
	}
	resp = b.get(start.Header.Get("Location"))
	if where := b.callback(resp.Header.Get("Location")); where != "/console/buckets" {
		t.Fatalf("landed on %q", where)
	}
	status, s := b.session(e.base)
	id, _ := s["identity"].(map[string]any)
	if status != 200 || s["method"] != "oidc" || id["tenant"] != "acme" || id["user"] != "dana" || id["role"] != "admin" {
		t.Fatalf("session %d %v", status, s)
	}

	// Sign-out: the console session ends, the browser is sent to the
	// provider's logout.
	csrf, _ := s["csrf_token"].(string)
	req, _ := http.NewRequest("DELETE", e.base+"/console/api/session", nil)
	req.Header.Set("X-CSRF-Token", csrf)
	resp, err = b.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		LogoutURL string `json:"logout_url"`
	}
	json.NewDecoder(resp.Body).Decode(&out)
	resp.Body.Close()
	lu, _ := url.Parse(out.LogoutURL)
	if resp.StatusCode != 200 || lu == nil || !strings.HasPrefix(out.LogoutURL, e.op.srv.URL+"/logout?") ||
		lu.Query().Get("id_token_hint") == "" || lu.Query().Get("post_logout_redirect_uri") != e.base+"/console/" {
		t.Fatalf("sign-out: %d %q", resp.StatusCode, out.LogoutURL)
	}
	if status, _ := b.session(e.base); status != 401 {
		t.Fatalf("session after sign-out: %d", status)
	}

	// A second sign-in finds the same user by subject, whatever its name
	// claim says now; not an admin any more.
	e.op.set(func(o *op) { o.claims = map[string]any{"preferred_username": "dana2", "groups": []string{"dev"}} })
	b.signIn(e.base, "acme", "corp", "/console/")
	if _, s := b.session(e.base); s["identity"].(map[string]any)["user"] != "dana" || s["identity"].(map[string]any)["role"] != "user" {
		t.Fatalf("second sign-in: %v", s)
	}

	// dana is marked as the provider's, by subject.
	var linked []admin.IdentityProviderUser
	e.must(e.admin.Do(context.Background(), "GET", "/tenants/acme/idp-users", nil, &linked))
	if len(linked) != 1 || linked[0].User != "dana" || linked[0].IdPTenant != "acme" || linked[0].IdP != "corp" || linked[0].Subject != "sub-1" ||
		linked[0].Login != "dana2" || linked[0].Role != "user" {
		t.Fatalf("linked users %+v", linked)
	}

	// Every sign-in is audited, the refused ones with their reason.
	b2 := newBrowser(t, e.srv, e.op)
	e.op.set(func(o *op) { o.claims = map[string]any{"preferred_username": "eve", "ostium_tenant": "globex"} })
	e.register(t, "/tenants/acme/idps/corp", map[string]any{"tenant_claim": "ostium_tenant", "create_users": true})
	refusedWith(t, b2.signIn(e.base, "acme", "corp", "/console/"), "WrongTenant")
	var page admin.AuditPage
	e.must(e.admin.Do(context.Background(), "GET", "/audit?limit=1000", nil, &page))
	seen := map[string]int{}
	for _, en := range page.Entries {
		if en.Action == "console:SignIn" {
			seen[en.Target+" "+en.Outcome+" "+en.User]++
		}
	}
	if seen["oidc:acme/corp ok dana"] != 2 || seen["oidc:acme/corp WrongTenant "] != 1 {
		t.Fatalf("audit: %v", seen)
	}
	for _, en := range page.Entries {
		if en.Action == "admin:PutIdentityProvider" && en.Outcome == "ok" {
			return
		}
	}
	t.Fatalf("the provider's registration is not audited")
}

// TestOIDCHostile: what a hostile browser, provider or tenant tries is
// refused with a reason, and opens no session.
func TestOIDCHostile(t *testing.T) {
	e := startOIDC(t)
	e.register(t, "/tenants/acme/idps/corp", map[string]any{"create_users": true})
	e.register(t, "/tenants/acme/idps/strict", map[string]any{"create_users": true, "tenant_claim": "ostium_tenant"})
	e.register(t, "/idps/shared", map[string]any{"create_users": true, "tenant_claim": "ostium_tenant"})
	e.register(t, "/tenants/acme/idps/staff", map[string]any{"create_users": true, "user_groups": []string{"staff"}})
	e.register(t, "/tenants/acme/idps/invited", map[string]any{})
	e.must(e.admin.Do(context.Background(), "POST", "/tenants/acme/users", map[string]any{"name": "root-like", "role": "admin"}, nil))
	base := func(o *op) {
		o.claims = map[string]any{"preferred_username": "carl", "ostium_tenant": "acme"}
		o.shape, o.sign, o.delay = nil, nil, 0
	}
	other, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, tenant, idp string
		op                func(o *op)
		code              string
	}{
		{"nonce mismatch", "acme", "corp", func(o *op) { o.shape = func(c *jwt.Claims, x map[string]any) { x["nonce"] = "not-this-one" } }, "InvalidIdentityToken"},
		{"another client id", "acme", "corp", func(o *op) {
			o.shape = func(c *jwt.Claims, x map[string]any) { c.Audience = jwt.Audience{"other-app"} }
		}, "InvalidIdentityToken"},
		{"azp of another client", "acme", "corp", func(o *op) {
			o.shape = func(c *jwt.Claims, x map[string]any) {
				c.Audience = jwt.Audience{opClient, "other"}
				x["azp"] = "other"
			}
		}, "InvalidIdentityToken"},
		{"expired", "acme", "corp", func(o *op) {
			o.shape = func(c *jwt.Claims, x map[string]any) {
				c.Expiry, c.IssuedAt = jwt.NewNumericDate(time.Now().Add(-time.Hour)), jwt.NewNumericDate(time.Now().Add(-2*time.Hour))
			}
		}, "ExpiredToken"},
		{"another issuer", "acme", "corp", func(o *op) { o.shape = func(c *jwt.Claims, x map[string]any) { c.Issuer = "https://evil.example" } }, "InvalidIdentityToken"},
		{"alg none", "acme", "corp", func(o *op) {
			o.sign = func(c jwt.Claims, x map[string]any) string {
				h := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`))
				all := map[string]any{"iss": c.Issuer, "aud": []string(c.Audience), "sub": c.Subject, "exp": c.Expiry}
				for k, v := range x {
					all[k] = v
				}
				p, _ := json.Marshal(all)
				return h + "." + base64.RawURLEncoding.EncodeToString(p) + "."
			}
		}, "InvalidIdentityToken"},
		{"a key not in the JWKS", "acme", "corp", func(o *op) {
			o.sign = func(c jwt.Claims, x map[string]any) string { return signES(t, other, "k9", c, x) }
		}, "InvalidIdentityToken"},
		{"the provider's key id, another key", "acme", "corp", func(o *op) {
			o.sign = func(c jwt.Claims, x map[string]any) string { return signES(t, other, "k1", c, x) }
		}, "InvalidIdentityToken"},
		{"a user name that is none", "acme", "corp", func(o *op) { o.claims["preferred_username"] = "../../root" }, "InvalidIdentityToken"},
		{"provider-wide, no such tenant", "", "shared", func(o *op) { o.claims["ostium_tenant"] = "initech" }, "NoSuchTenant"},
		{"provider-wide, no tenant claim", "", "shared", func(o *op) { delete(o.claims, "ostium_tenant") }, "WrongTenant"},
		{"a tenant's provider claiming another tenant", "acme", "strict", func(o *op) { o.claims["ostium_tenant"] = "globex" }, "WrongTenant"},
		{"in none of the user groups", "acme", "staff", func(o *op) { o.claims["groups"] = []string{"contractors"} }, "NotAllowed"},
		{"a user the tenant did not make, creating off", "acme", "invited", func(o *op) {}, "NoSuchUser"},
		{"a user made another way is not taken over", "acme", "corp", func(o *op) { o.claims["preferred_username"] = "root-like" }, "UserExists"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.op.set(func(o *op) { base(o); c.op(o) })
			b := newBrowser(t, e.srv, e.op)
			refusedWith(t, b.signIn(e.base, c.tenant, c.idp, "/console/"), c.code)
			if status, _ := b.session(e.base); status != 401 {
				t.Fatalf("a session after a refused sign-in: %d", status)
			}
		})
	}

	t.Run("suspended tenant", func(t *testing.T) {
		e.op.set(func(o *op) { base(o); o.claims["ostium_tenant"] = "globex" })
		e.must(e.admin.Do(context.Background(), "POST", "/tenants/globex/suspend", nil, nil))
		defer e.admin.Do(context.Background(), "POST", "/tenants/globex/resume", nil, nil)
		b := newBrowser(t, e.srv, e.op)
		refusedWith(t, b.signIn(e.base, "", "shared", "/console/"), "TenantSuspended")
		var users []map[string]any
		e.must(e.admin.Do(context.Background(), "GET", "/tenants/globex/users", nil, &users))
		if len(users) != 0 {
			t.Fatalf("a user made in a suspended tenant: %v", users)
		}
	})

	t.Run("provider-wide signs in to the tenant its claim names", func(t *testing.T) {
		e.op.set(func(o *op) { base(o); o.claims["ostium_tenant"] = "globex" })
		b := newBrowser(t, e.srv, e.op)
		b.signIn(e.base, "", "shared", "/console/")
		if _, s := b.session(e.base); s["identity"].(map[string]any)["tenant"] != "globex" {
			t.Fatalf("session %v", s)
		}
	})

	t.Run("state replayed", func(t *testing.T) {
		e.op.set(base)
		b := newBrowser(t, e.srv, e.op)
		resp := b.get(b.start(e.base, "acme", "corp", "/console/"))
		back := resp.Header.Get("Location")
		// The cookie as it was, kept by an attacker who saw the traffic.
		u, _ := url.Parse(e.base + "/console/api/oidc/")
		saved := b.hc.Jar.Cookies(u)
		if where := b.callback(back); where != "/console/" {
			t.Fatalf("first use: %q", where)
		}
		b2 := newBrowser(t, e.srv, e.op)
		b2.hc.Jar.SetCookies(u, saved)
		refusedWith(t, b2.callback(back), "InvalidState")
		// The browser that used it forgot it, too.
		refusedWith(t, b.callback(back), "InvalidState")
	})

	t.Run("state from another browser", func(t *testing.T) {
		e.op.set(base)
		victim, attacker := newBrowser(t, e.srv, e.op), newBrowser(t, e.srv, e.op)
		resp := attacker.get(attacker.start(e.base, "acme", "corp", "/console/"))
		// The attacker's callback URL, opened in the victim's browser
		// (login CSRF), which has no state cookie or one of its own.
		refusedWith(t, victim.callback(resp.Header.Get("Location")), "InvalidState")
		victim.start(e.base, "acme", "corp", "/console/")
		refusedWith(t, victim.callback(resp.Header.Get("Location")), "InvalidState")
		if status, _ := victim.session(e.base); status != 401 {
			t.Fatalf("the victim was signed in: %d", status)
		}
	})

	t.Run("open redirect through the return URL", func(t *testing.T) {
		for _, ret := range []string{"https://evil.example/", "//evil.example/console/", "/console/\\\\evil.example", "/\\evil.example",
			"javascript:alert(1)", "/console/../../evil", "/other/"} {
			e.op.set(base)
			b := newBrowser(t, e.srv, e.op)
			if where := b.signIn(e.base, "acme", "corp", ret); where != "/console/" {
				t.Errorf("return %q: sent to %q", ret, where)
			}
		}
	})

	t.Run("the provider refuses", func(t *testing.T) {
		e.op.set(base)
		b := newBrowser(t, e.srv, e.op)
		auth, _ := url.Parse(b.start(e.base, "acme", "corp", "/console/"))
		refusedWith(t, b.callback(e.base+"/console/api/oidc/callback?error=access_denied&state="+url.QueryEscape(auth.Query().Get("state"))), "AccessDeniedByProvider")
	})
}

// TestOIDCSlowProvider: a provider that does not answer holds a
// sign-in no longer than the node's fetch timeout, and the browser is
// told the provider is unavailable.
func TestOIDCSlowProvider(t *testing.T) {
	e := startOIDC(t)
	e.register(t, "/tenants/acme/idps/corp", map[string]any{"create_users": true})
	e.op.set(func(o *op) { o.delay = time.Minute })
	b := newBrowser(t, e.srv, e.op)
	b.hc.Timeout = 45 * time.Second // well past the node's bound, well before the provider's answer
	resp, err := b.hc.Get(e.base + "/console/api/oidc/start?tenant=acme&idp=corp")
	if err != nil {
		t.Fatalf("the console did not answer within the node's bound: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway {
		t.Fatalf("start with a slow provider: %s", resp.Status)
	}
}

// TestOIDCLoopbackRefusedUnlessAllowed: without oidc_allow_networks the
// node does not fetch a provider on loopback (the guard of every fetch
// applies to sign-in too).
func TestOIDCLoopbackRefusedUnlessAllowed(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	o := newOP(t)
	ac := admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, srv.Client())
	if err := ac.Do(context.Background(), "POST", "/tenants", map[string]any{"name": "acme"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := ac.Do(context.Background(), "PUT", "/tenants/acme/idps/corp", map[string]any{"issuer": o.srv.URL, "client_id": opClient,
		"client_secret": "s3cret", "thumbprints": []string{o.thumbprint()}}, nil); err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t, srv, o)
	resp := b.get(srv.Console.URL + "/console/api/oidc/start?tenant=acme&idp=corp")
	if resp.StatusCode != http.StatusBadGateway || o.logins != 0 {
		t.Fatalf("start against a loopback provider not allowed: %s", resp.Status)
	}
}

func jsonDecode(t *testing.T, resp *http.Response, v any) {
	t.Helper()
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("%s: %v", resp.Status, err)
	}
}

// TestOIDCProvidersBounded: a tenant registers at most 20 identity
// providers (the sign-in page lists them); changing one it has stays
// possible, and a new one needs its client secret.
func TestOIDCProvidersBounded(t *testing.T) {
	e := startOIDC(t)
	for i := 0; i < 20; i++ {
		e.register(t, fmt.Sprintf("/tenants/acme/idps/p%d", i), nil)
	}
	err := e.admin.Do(context.Background(), "PUT", "/tenants/acme/idps/p20", map[string]any{"issuer": e.op.srv.URL, "client_id": opClient, "client_secret": "s"}, nil)
	var ae *admin.Error
	if !errors.As(err, &ae) || ae.Code != "InvalidIdentityProvider" {
		t.Fatalf("the 21st: %v", err)
	}
	e.register(t, "/tenants/acme/idps/p3", map[string]any{"display_name": "Three"})
	err = e.admin.Do(context.Background(), "PUT", "/tenants/globex/idps/new", map[string]any{"issuer": e.op.srv.URL, "client_id": opClient}, nil)
	if !errors.As(err, &ae) || ae.Code != "InvalidIdentityProvider" || !strings.Contains(ae.Message, "client_secret") {
		t.Fatalf("a new one without a secret: %v", err)
	}
}

// TestOIDCOverTLS: over HTTPS the state cookie is "__Host-" (Secure,
// Path=/, no Domain), which no sibling host name can plant, and the
// sign-in works with it.
func TestOIDCOverTLS(t *testing.T) {
	e := startOIDCWith(t, true)
	e.register(t, "/tenants/acme/idps/corp", map[string]any{"create_users": true})
	e.op.set(func(o *op) { o.claims = map[string]any{"preferred_username": "tess"} })
	b := newBrowser(t, e.srv, e.op)
	start := b.get(e.base + "/console/api/oidc/start?tenant=acme&idp=corp")
	var state *http.Cookie
	for _, c := range start.Cookies() {
		if strings.Contains(c.Name, "ostium_oidc") {
			state = c
		}
	}
	if state == nil || state.Name != "__Host-ostium_oidc" || !state.Secure || state.Path != "/" || state.Domain != "" || state.SameSite != http.SameSiteLaxMode {
		t.Fatalf("state cookie over TLS: %+v", state)
	}
	resp := b.get(start.Header.Get("Location"))
	if where := b.callback(resp.Header.Get("Location")); where != "/console/" {
		t.Fatalf("landed on %q", where)
	}
	if status, s := b.session(e.base); status != 200 || s["identity"].(map[string]any)["user"] != "tess" {
		t.Fatalf("session %d %v", status, s)
	}
}

// TestOIDCProvidersTenantBound: a tenant's admin manages its own
// identity providers, and neither another tenant's nor the provider's
// own; an ordinary user none.
func TestOIDCProvidersTenantBound(t *testing.T) {
	e := startOIDC(t)
	bg := context.Background()
	keyOf := func(tenant, user, role string) *admin.Client {
		e.must(e.admin.Do(bg, "POST", "/tenants/"+tenant+"/users", map[string]any{"name": user, "role": role}, nil))
		var k admin.Key
		e.must(e.admin.Do(bg, "POST", "/tenants/"+tenant+"/users/"+user+"/keys", nil, &k))
		return admin.NewClient(e.srv.URL, k.AccessKey, k.SecretKey, e.srv.Client())
	}
	acmeAdmin, acmeUser := keyOf("acme", "ann", "admin"), keyOf("acme", "bob", "user")
	body := map[string]any{"issuer": e.op.srv.URL, "client_id": opClient, "client_secret": "s3cret", "tenant_claim": "t"}
	if err := acmeAdmin.Do(bg, "PUT", "/tenants/acme/idps/corp", body, nil); err != nil {
		t.Fatalf("acme's admin registers acme's: %v", err)
	}
	for _, c := range []struct {
		who  *admin.Client
		path string
	}{{acmeAdmin, "/tenants/globex/idps/corp"}, {acmeAdmin, "/idps/corp"}, {acmeUser, "/tenants/acme/idps/other"}} {
		var ae *admin.Error
		if err := c.who.Do(bg, "PUT", c.path, body, nil); !errors.As(err, &ae) || ae.Status != http.StatusForbidden {
			t.Errorf("PUT %s: %v, want 403", c.path, err)
		}
		if err := c.who.Do(bg, "GET", c.path, nil, nil); !errors.As(err, &ae) || ae.Status != http.StatusForbidden {
			t.Errorf("GET %s: %v, want 403", c.path, err)
		}
	}
	var ae *admin.Error
	if err := acmeUser.Do(bg, "DELETE", "/tenants/acme/idps/corp", nil, nil); !errors.As(err, &ae) || ae.Status != http.StatusForbidden {
		t.Errorf("a user deletes its tenant's provider: %v", err)
	}
}

// TestOIDCIAMGroups: the groups a token names make the user a member of
// the IAM groups they map to, at each sign-in, and no longer of those
// its groups stop mapping to; an IAM group the mapping does not name is
// left alone.
func TestOIDCIAMGroups(t *testing.T) {
	e := startOIDC(t)
	ia, ok := e.srv.Node.Catalog.(catalog.IAM)
	if !ok {
		t.Skip("the catalog keeps no IAM groups")
	}
	bg := context.Background()
	for _, g := range []string{"developers", "auditors", "other"} {
		e.must(ia.CreateGroup(bg, catalog.Group{Tenant: "acme", Name: g, Path: "/", ID: "AGPA" + strings.ToUpper(g), Created: time.Now()}))
	}
	e.register(t, "/tenants/acme/idps/corp", map[string]any{"create_users": true,
		"iam_groups": map[string]string{"dev": "developers", "audit": "auditors"}})
	groups := func() []string {
		gs, err := ia.UserGroups(bg, "acme", "gus")
		e.must(err)
		var out []string
		for _, g := range gs {
			out = append(out, g.Name)
		}
		return out
	}
	e.op.set(func(o *op) {
		o.claims = map[string]any{"preferred_username": "gus", "groups": []string{"dev", "audit"}}
	})
	newBrowser(t, e.srv, e.op).signIn(e.base, "acme", "corp", "/console/")
	if got := strings.Join(groups(), ","); got != "auditors,developers" {
		t.Fatalf("after the first sign-in: %s", got)
	}
	e.must(ia.AddUserToGroup(bg, "acme", "other", "gus"))
	e.op.set(func(o *op) { o.claims = map[string]any{"preferred_username": "gus", "groups": []string{"dev"}} })
	newBrowser(t, e.srv, e.op).signIn(e.base, "acme", "corp", "/console/")
	if got := strings.Join(groups(), ","); got != "developers,other" {
		t.Fatalf("after leaving audit: %s", got)
	}
}
