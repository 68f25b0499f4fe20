package node_test

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/console"
	"github.com/ostiumio/ostium/internal/console/consoletest"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

func fetch(t *testing.T, hc *http.Client, method, url string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestS3ListenerServesNoConsole: the S3 listener no longer routes
// /console/: a request there is S3's, for a bucket no one may create,
// and gets S3's own error, never a page or the console's API.
func TestS3ListenerServesNoConsole(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	noRedirect := *srv.Client()
	noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for _, p := range []string{"/console", "/console/", "/console/index.html", "/console/js/main.js", "/console/api/session", "/console/api/nonsense"} {
		resp, body := fetch(t, &noRedirect, "GET", srv.URL+p)
		if resp.StatusCode < 400 || !strings.Contains(resp.Header.Get("Content-Type"), "xml") || !strings.Contains(body, "<Code>") ||
			strings.Contains(strings.ToLower(body), "<html") || resp.Header.Get("Set-Cookie") != "" {
			t.Errorf("S3 listener GET %s: %d %s %q", p, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
	// A sign-in posted to S3's listener is an anonymous S3 request.
	resp, err := srv.Client().Post(srv.URL+"/console/api/session", "application/json",
		strings.NewReader(`{"access_key":"`+nodetest.AccessKey+`","secret_key":"`+nodetest.SecretKey+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode < 400 || len(resp.Cookies()) != 0 {
		t.Errorf("sign-in on the S3 listener: %d, cookies %v", resp.StatusCode, resp.Cookies())
	}
}

// TestConsoleListenerServesOnlyConsole: the console's listener answers
// the console (/ leads to it) and 404 for S3, the admin API, health and
// metrics; every answer, a 404 too, carries nosniff, and the pages the
// policy that lets no script but the console's own files run.
func TestConsoleListenerServesOnlyConsole(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	ctx := context.Background()
	if err := admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, srv.Client()).Do(ctx, "POST", "/tenants", map[string]string{"name": "acme"}, nil); err != nil {
		t.Fatal(err)
	}
	hc := srv.Console.Client()
	for _, p := range []string{"/acme-bucket", "/acme-bucket/key", admin.Prefix + "/tenants", "/health/ready", "/metrics", "/favicon.ico", "/consolex"} {
		for _, m := range []string{"GET", "PUT", "HEAD"} {
			resp, body := fetch(t, hc, m, srv.Console.URL+p)
			if resp.StatusCode != 404 || resp.Header.Get("X-Content-Type-Options") != "nosniff" || strings.Contains(body, "<Code>") {
				t.Errorf("console listener %s %s: %d %v %q", m, p, resp.StatusCode, resp.Header, body)
			}
		}
	}
	noRedirect := *hc
	noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	if resp, _ := fetch(t, &noRedirect, "GET", srv.Console.URL+"/"); resp.StatusCode != 302 || resp.Header.Get("Location") != console.Prefix {
		t.Errorf("GET /: %d %v", resp.StatusCode, resp.Header)
	}
	for _, p := range []string{"/console/", "/console/js/main.js", "/console/app.css", "/console/api/session", "/console/api/nonsense"} {
		resp, _ := fetch(t, hc, "GET", srv.Console.URL+p)
		h := resp.Header
		if h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: no nosniff: %v", p, h)
		}
		if strings.HasPrefix(p, console.API) {
			continue
		}
		csp := h.Get("Content-Security-Policy")
		if resp.StatusCode != 200 || !strings.Contains(csp, "script-src 'self';") || strings.Contains(csp, "unsafe-") || strings.Contains(csp, "*") {
			t.Errorf("GET %s: %d, policy %q", p, resp.StatusCode, csp)
		}
	}
}

// TestConsoleRefusesS3Origin: a page of the S3 listener (same host, its
// own port) or a sandboxed one (Origin: null) cannot sign in nor make a
// changing call, even carrying the session's cookie and CSRF token.
func TestConsoleRefusesS3Origin(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	c := consoletest.New(t, srv.Console.URL, srv.Console.Client())
	for _, o := range []string{srv.URL, "null"} {
		c.Origin = o
		if r := c.SignIn(map[string]string{"access_key": nodetest.AccessKey, "secret_key": nodetest.SecretKey}); r.Status != 403 || r.Code() != "InvalidOrigin" {
			t.Errorf("sign-in from %s: %d %s", o, r.Status, r.Body)
		}
	}
	c.Origin = srv.Console.URL
	c.MustSignIn(map[string]string{"access_key": nodetest.AccessKey, "secret_key": nodetest.SecretKey})
	for _, o := range []string{srv.URL, "null"} {
		c.Origin = o
		if r := c.Do("POST", "/tenants", map[string]string{"name": "evil"}); r.Status != 403 || r.Code() != "InvalidCSRFToken" {
			t.Errorf("a changing call from %s: %d %s", o, r.Status, r.Body)
		}
	}
	c.Origin = srv.Console.URL
	if r := c.Do("GET", "/tenants/evil/users", nil); r.Status != 404 {
		t.Errorf("the refused calls made a tenant: %d %s", r.Status, r.Body)
	}
}

// TestHSTSOverHTTPS: every answer over HTTPS (S3, the admin API, health,
// the console's pages and API, its 404s) carries Strict-Transport-
// Security; the console listener serves HTTPS with the node's reloadable
// certificate, and its session cookie is __Host- prefixed: Secure,
// Path=/, no Domain. Over plain HTTP there is no HSTS.
func TestHSTSOverHTTPS(t *testing.T) {
	srv := nodetest.StartHTTPS(t, nodetest.Options{}, time.Hour)
	hc := srv.Client()
	for _, u := range []string{srv.URL + "/", srv.URL + "/no-such-bucket/k", srv.URL + admin.Prefix + "/tenants", srv.URL + "/health/ready",
		srv.ConsoleURL + "/console/", srv.ConsoleURL + "/console/api/session", srv.ConsoleURL + "/nothing"} {
		resp, _ := fetch(t, hc, "GET", u)
		if resp.Header.Get("Strict-Transport-Security") != "max-age=31536000" {
			t.Errorf("GET %s: %d, no HSTS: %v", u, resp.StatusCode, resp.Header)
		}
	}
	// The console's handshake presents the node's certificate, and a
	// reload reaches it too.
	serial := func() int64 {
		t.Helper()
		conn, err := tls.Dial("tcp", strings.TrimPrefix(srv.ConsoleURL, "https://"), &tls.Config{RootCAs: srv.CA.Pool})
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		return conn.ConnectionState().PeerCertificates[0].SerialNumber.Int64()
	}
	if s := serial(); s != 1 {
		t.Fatalf("console certificate serial %d, want 1", s)
	}
	srv.CA.Issue(t, 2, srv.CertFile, srv.KeyFile)
	srv.HUP <- nil
	deadline := time.Now().Add(20 * time.Second)
	for serial() != 2 {
		if time.Now().After(deadline) {
			t.Fatal("the console's listener kept the old certificate after a reload")
		}
		time.Sleep(50 * time.Millisecond)
	}

	c := consoletest.New(t, srv.ConsoleURL, hc)
	r := c.MustSignIn(map[string]string{"access_key": nodetest.AccessKey, "secret_key": nodetest.SecretKey})
	var ck *http.Cookie
	for _, line := range r.Header.Values("Set-Cookie") {
		if c, err := http.ParseSetCookie(line); err == nil && c.Name == console.SecureCookieName {
			ck = c
		}
	}
	if ck == nil || !ck.Secure || ck.Path != "/" || ck.Domain != "" || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode {
		t.Fatalf("session cookie over HTTPS: %+v in %v", ck, r.Header.Values("Set-Cookie"))
	}
	c.Must(200, "GET", "/session", nil)

	plain := nodetest.Start(t, nodetest.Options{})
	for _, u := range []string{plain.URL + "/", plain.Console.URL + "/console/"} {
		if resp, _ := fetch(t, plain.Client(), "GET", u); resp.Header.Get("Strict-Transport-Security") != "" {
			t.Errorf("plain HTTP %s: HSTS sent", u)
		}
	}
}

// TestConsoleListenConfig: console_listen is host:port or off, never
// S3's own listener; console_s3_url is an http(s) origin.
func TestConsoleListenConfig(t *testing.T) {
	for name, c := range map[string]node.Config{
		"console_listen: same as listen":     {DataDir: "d", Listen: ":9000", ConsoleListen: ":9000"},
		"console_listen: same as tls_listen": {DataDir: "d", TLSListen: ":9443", TLSCert: "c", TLSKey: "k", ConsoleListen: ":9443"},
		"console_listen: not an address":     {DataDir: "d", ConsoleListen: "yes"},
		"console_s3_url: a path":             {DataDir: "d", ConsoleS3URL: "https://s3.example.com/bucket"},
		"console_s3_url: no scheme":          {DataDir: "d", ConsoleS3URL: "s3.example.com"},
	} {
		want, _, _ := strings.Cut(name, ":")
		if err := c.Validate(); err == nil || !strings.HasPrefix(err.Error(), want+":") {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, c := range []node.Config{
		{DataDir: "d", Listen: ":9000", ConsoleListen: ":9001", ConsoleS3URL: "https://s3.example.com"},
		{DataDir: "d", Listen: ":9000", ConsoleListen: node.ConsoleOff},
	} {
		if err := c.Validate(); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
	// Off means no socket.
	l, err := node.Listen(context.Background(), node.Config{Listen: "127.0.0.1:0", ConsoleListen: node.ConsoleOff})
	if err != nil || l.Console != nil {
		t.Fatalf("console off: %+v %v", l, err)
	}
	l.Close()
}

// TestShareLinkNamesS3: a share link the console makes points at the
// S3 endpoint, never the console's listener, and its answer of a page
// is sandboxed; with no console_s3_url it is the host name the console
// was asked for, with the S3 listener's port.
func TestShareLinkNamesS3(t *testing.T) {
	share := func(srv *nodetest.Server) string {
		t.Helper()
		root := consoletest.New(t, srv.Console.URL, srv.Console.Client())
		root.Key(nodetest.AccessKey, nodetest.SecretKey)
		root.Must(201, "POST", "/tenants", map[string]string{"name": "acme"})
		root.Must(201, "POST", "/tenants/acme/users", map[string]any{"name": "ann", "admin": true})
		var key struct {
			AccessKey string `json:"access_key"`
			SecretKey string `json:"secret_key"`
		}
		root.Must(201, "POST", "/tenants/acme/users/ann/keys", nil).JSON(t, &key)
		ann := consoletest.New(t, srv.Console.URL, srv.Console.Client())
		ann.Key(key.AccessKey, key.SecretKey)
		ann.Must(201, "POST", "/buckets", map[string]string{"name": "pages"})
		ann.Must(200, "PUT", "/buckets/pages/object?key=p.html", []byte("<script>1</script>"), "Content-Type", "text/html")
		var link struct {
			URL string `json:"url"`
		}
		ann.Must(201, "POST", "/buckets/pages/share", map[string]any{"key": "p.html", "expires_seconds": 600}).JSON(t, &link)
		return link.URL
	}
	srv := nodetest.Start(t, nodetest.Options{})
	u := share(srv)
	if !strings.HasPrefix(u, srv.URL+"/pages/p.html?") {
		t.Fatalf("share link %s is not on S3's listener %s", u, srv.URL)
	}
	resp, body := fetch(t, srv.Client(), "GET", u)
	if resp.StatusCode != 200 || body != "<script>1</script>" || resp.Header.Get("Content-Security-Policy") != "sandbox" ||
		resp.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("share link: %d %v %q", resp.StatusCode, resp.Header, body)
	}

	def := nodetest.Start(t, nodetest.Options{Config: func(c *node.Config) { c.ConsoleS3URL, c.Listen = "", "127.0.0.1:19000" }})
	if u := share(def); !strings.HasPrefix(u, "http://127.0.0.1:19000/pages/p.html?") {
		t.Fatalf("default share link %s, want the console's host with S3's port 19000", u)
	}
}
