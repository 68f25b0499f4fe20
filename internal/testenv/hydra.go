package testenv

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// HydraUser is a person the test's login app signs in at Hydra, with
// the claims its ID token carries.
type HydraUser struct {
	Subject string
	// Claims go into the ID token (preferred_username, groups, a tenant
	// claim, ...).
	Claims map[string]any
}

// Hydra is ORY Hydra (an OpenID Connect provider) run on loopback HTTPS
// with an in-memory database, with the small login, consent and logout
// app it asks for: the login page asks for a user name (or, with
// AutoLogin, takes one), consent is given at once with the user's
// claims in the ID token, logout is accepted and counted.
type Hydra struct {
	// Issuer is the public URL (the tokens' iss); Admin the admin API's.
	Issuer, Admin string
	// Thumbprint is the SHA-1 (hex) of the top certificate Hydra serves,
	// as an identity provider's registration pins it.
	Thumbprint string
	// CA is the PEM of the certificate authority of Hydra's certificate;
	// SPKI the base64 SHA-256 of its certificate's public key, what
	// Chromium's --ignore-certificate-errors-spki-list takes.
	CA   []byte
	SPKI string

	t      testing.TB
	client *http.Client
	app    *httptest.Server

	mu    sync.Mutex
	users map[string]HydraUser
	// AutoLogin, when set, signs this user in without a page.
	autoLogin string
	logouts   int
}

// HydraBinary is where the tests find hydra: $OSTIUM_TEST_HYDRA, else
// hydra in the CI cache (.ci/run builds it there), else on PATH.
func HydraBinary() string {
	if p := os.Getenv("OSTIUM_TEST_HYDRA"); p != "" {
		return p
	}
	if home, err := os.UserHomeDir(); err == nil {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			cache = filepath.Join(home, ".cache")
		}
		if p := filepath.Join(cache, "ostium-ci", "bin", "hydra"); fileExists(p) {
			return p
		}
	}
	if p, err := exec.LookPath("hydra"); err == nil {
		return p
	}
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// StartHydra runs Hydra until the test ends. Without the binary the test
// is skipped, unless CI=true, where it fails.
func StartHydra(t testing.TB) *Hydra {
	t.Helper()
	bin := HydraBinary()
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("hydra is not built (.ci/run builds it into ~/.cache/ostium-ci/bin), and CI=true says the OIDC tests must run")
		}
		t.Skip("hydra is not built: .ci/run builds it into ~/.cache/ostium-ci/bin (or set OSTIUM_TEST_HYDRA)")
	}
	dir := t.TempDir()
	caPEM, certPEM, keyPEM := slapdCerts(t)
	// The chain served ends with the CA, whose thumbprint is pinned.
	if err := os.WriteFile(filepath.Join(dir, "cert.pem"), append(append([]byte{}, certPEM...), caPEM...), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "key.pem"), keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	leafBlk, _ := pem.Decode(certPEM)
	leaf, err := x509.ParseCertificate(leafBlk.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	spki := sha256.Sum256(leaf.RawSubjectPublicKeyInfo)
	blk, _ := pem.Decode(caPEM)
	sum := sha1.Sum(blk.Bytes)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	h := &Hydra{t: t, CA: caPEM, SPKI: base64.StdEncoding.EncodeToString(spki[:]), Thumbprint: hex.EncodeToString(sum[:]), users: map[string]HydraUser{},
		client: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}}
	h.app = httptest.NewServer(http.HandlerFunc(h.serveApp))
	t.Cleanup(h.app.Close)

	pub, adm := freePort(t), freePort(t)
	h.Issuer = fmt.Sprintf("https://127.0.0.1:%d", pub)
	h.Admin = fmt.Sprintf("https://127.0.0.1:%d", adm)
	cmd := exec.Command(bin, "serve", "all", "--sqa-opt-out")
	cmd.Env = append(os.Environ(),
		"DSN=memory",
		"LOG_LEVEL=warn",
		"SECRETS_SYSTEM=ostium-test-hydra-system-secret-0123456789",
		"URLS_SELF_ISSUER="+h.Issuer,
		"URLS_LOGIN="+h.app.URL+"/login",
		"URLS_CONSENT="+h.app.URL+"/consent",
		"URLS_LOGOUT="+h.app.URL+"/logout",
		"SERVE_PUBLIC_HOST=127.0.0.1", fmt.Sprintf("SERVE_PUBLIC_PORT=%d", pub),
		"SERVE_ADMIN_HOST=127.0.0.1", fmt.Sprintf("SERVE_ADMIN_PORT=%d", adm),
		"SERVE_TLS_ENABLED=true",
		"SERVE_TLS_CERT_PATH="+filepath.Join(dir, "cert.pem"),
		"SERVE_TLS_KEY_PATH="+filepath.Join(dir, "key.pem"),
		"TTL_ID_TOKEN=5m",
	)
	var log bytes.Buffer
	var logMu sync.Mutex
	w := writerFunc(func(p []byte) (int, error) { logMu.Lock(); defer logMu.Unlock(); return log.Write(p) })
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-done })
	logText := func() string { logMu.Lock(); defer logMu.Unlock(); return log.String() }
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		select {
		case <-done:
			t.Fatalf("hydra exited: %s", logText())
		default:
		}
		if resp, err := h.client.Get(h.Admin + "/health/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("hydra did not start: %s", logText())
		}
	}
	// Hydra makes its signing keys (RSA 4096) when first asked for them,
	// which takes seconds on a loaded machine: made now, not within a
	// sign-in's bounded wait.
	for try := 1; ; try++ {
		resp, err := h.client.Get(h.Issuer + "/.well-known/jwks.json")
		if err == nil {
			resp.Body.Close()
			break
		}
		// Hydra loads its certificate a moment after it reports ready
		// (it watches the file): a first handshake may fail.
		if try == 20 {
			t.Fatalf("hydra: keys: %v", err)
		}
		time.Sleep(250 * time.Millisecond)
	}
	return h
}

type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// AddUser makes u known to the login app under name.
func (h *Hydra) AddUser(name string, u HydraUser) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.users[name] = u
}

// AutoLogin makes the login app sign name in without showing its page
// ("" = show it).
func (h *Hydra) AutoLogin(name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.autoLogin = name
}

// Logouts is how many logouts Hydra asked the app to accept.
func (h *Hydra) Logouts() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.logouts
}

// CreateClient registers a confidential client (client_secret_basic)
// with its redirect and post-logout redirect URIs.
func (h *Hydra) CreateClient(id, secret string, redirects, postLogout []string) {
	h.t.Helper()
	body := map[string]any{"client_id": id, "client_secret": secret, "grant_types": []string{"authorization_code"},
		"response_types": []string{"code"}, "scope": "openid profile email groups", "redirect_uris": redirects,
		"post_logout_redirect_uris": postLogout, "token_endpoint_auth_method": "client_secret_basic"}
	if err := h.admin(context.Background(), "POST", "/admin/clients", body, nil); err != nil {
		h.t.Fatalf("hydra: create client: %v", err)
	}
}

func (h *Hydra) admin(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, _ := json.Marshal(in)
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, h.Admin+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := h.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %s %s", method, path, resp.Status, b)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

var loginPage = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Test identity provider</title></head>
<body><main><h1>Test identity provider</h1>
<form method="post" action="/login">
<input type="hidden" name="challenge" value="{{.}}">
<label for="username">User name</label> <input id="username" name="username" autocomplete="username">
<button id="accept" type="submit">Sign in</button>
</form></main></body></html>
`))

// serveApp is Hydra's login, consent and logout app.
func (h *Hydra) serveApp(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	redirect := func(path string, in any) {
		var out struct {
			RedirectTo string `json:"redirect_to"`
		}
		if err := h.admin(ctx, "PUT", path, in, &out); err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		http.Redirect(w, r, out.RedirectTo, http.StatusFound)
	}
	switch r.URL.Path {
	case "/login":
		challenge := r.URL.Query().Get("login_challenge")
		name := ""
		if r.Method == http.MethodPost {
			r.ParseForm()
			challenge, name = r.PostForm.Get("challenge"), r.PostForm.Get("username")
		} else {
			h.mu.Lock()
			name = h.autoLogin
			h.mu.Unlock()
		}
		if name == "" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			loginPage.Execute(w, challenge)
			return
		}
		h.mu.Lock()
		u, ok := h.users[name]
		h.mu.Unlock()
		if !ok {
			redirect("/admin/oauth2/auth/requests/login/reject?login_challenge="+url.QueryEscape(challenge),
				map[string]any{"error": "access_denied", "error_description": "no such user"})
			return
		}
		redirect("/admin/oauth2/auth/requests/login/accept?login_challenge="+url.QueryEscape(challenge),
			map[string]any{"subject": u.Subject, "remember": true, "remember_for": 3600})
	case "/consent":
		challenge := r.URL.Query().Get("consent_challenge")
		var req struct {
			Subject        string   `json:"subject"`
			RequestedScope []string `json:"requested_scope"`
			RequestedAud   []string `json:"requested_access_token_audience"`
		}
		if err := h.admin(ctx, "GET", "/admin/oauth2/auth/requests/consent?consent_challenge="+url.QueryEscape(challenge), nil, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		var claims map[string]any
		h.mu.Lock()
		for _, u := range h.users {
			if u.Subject == req.Subject {
				claims = u.Claims
			}
		}
		h.mu.Unlock()
		redirect("/admin/oauth2/auth/requests/consent/accept?consent_challenge="+url.QueryEscape(challenge),
			map[string]any{"grant_scope": req.RequestedScope, "grant_access_token_audience": req.RequestedAud, "remember": false,
				"session": map[string]any{"id_token": claims}})
	case "/logout":
		h.mu.Lock()
		h.logouts++
		h.mu.Unlock()
		redirect("/admin/oauth2/auth/requests/logout/accept?logout_challenge="+url.QueryEscape(r.URL.Query().Get("logout_challenge")), nil)
	default:
		http.NotFound(w, r)
	}
}
