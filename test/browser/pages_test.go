package browser_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/test/browser/browsertest"
)

// screenshots is where TestConsolePages writes its PNGs; empty (the
// default, and CI's) writes none. The committed ones are made with
//
//	go test ./test/browser -run TestConsolePages -args -screenshots ../../docs/console
var screenshots = flag.String("screenshots", "", "write the console's screenshots (PNG) into this directory")

// widths are the two that matter: a laptop's, and a phone's.
var widths = []struct {
	name          string
	width, height int
}{{"1280", 1280, 900}, {"390", 390, 844}}

// demo fills a node with what the pages show: the provider, two tenants,
// acme's admin (password changed), a bucket of folders, images and text,
// a key, a quota. It returns alice's session (API) and password.
func demo(t *testing.T, srv *nodetest.Server) (alice *api, password string) {
	t.Helper()
	p := provider(t, srv)
	onboard(t, p, "acme", "alice", "provider-set-1")
	onboard(t, p, "globex", "bob", "provider-set-2")
	password = "alice-own-password"
	alice = tenantUser(t, srv, "acme", "alice", "provider-set-1", password)
	alice.must(201, "POST", "/buckets", map[string]any{"name": "photos", "versioning": true}, nil)
	alice.must(201, "POST", "/buckets", map[string]any{"name": "reports"}, nil)
	alice.must(200, "PUT", "/buckets/photos/settings/encryption", map[string]any{"algorithm": "AES256"}, nil)
	for key, body := range map[string][]byte{
		"2026/beach.png":      pngOf(t, 320, 200, color.RGBA{0x2a, 0x7f, 0xc1, 0xff}),
		"2026/forest.png":     pngOf(t, 200, 320, color.RGBA{0x2e, 0x8b, 0x57, 0xff}),
		"2025/notes.txt":      []byte("Trip notes\n\nDay 1: arrived.\n"),
		"README.md":           []byte("# Photos\n\nThe family's pictures, by year.\n"),
		"drafts/summary.json": []byte(`{"albums": 2, "pictures": 2}` + "\n"),
	} {
		alice.upload("photos", key, body)
	}
	alice.must(201, "POST", "/tenants/acme/users/alice/keys", nil, nil)
	p.must(200, "PUT", "/tenants/acme/quotas", map[string]any{"max_bytes": 50 << 30, "max_objects": 1_000_000}, nil)
	p.must(200, "PUT", "/tenants/acme/encryption", map[string]any{"default": "sse-s3"}, nil)
	return alice, password
}

// upload PUTs body as bucket/key through the console's API.
func (a *api) upload(bucket, key string, body []byte) {
	a.t.Helper()
	req, _ := http.NewRequest("PUT", a.srv.Console.URL+"/console/api/buckets/"+bucket+"/object?key="+url.QueryEscape(key), bytes.NewReader(body))
	req.AddCookie(a.cookie)
	req.Header.Set("X-CSRF-Token", a.csrf)
	if strings.HasSuffix(key, ".png") {
		req.Header.Set("Content-Type", "image/png")
	} else {
		req.Header.Set("Content-Type", "text/plain")
	}
	resp, err := a.srv.Console.Client().Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		a.t.Fatalf("upload %s/%s: %d", bucket, key, resp.StatusCode)
	}
}

// pngOf is a w x h PNG: a gradient of c, so a preview shows something.
func pngOf(t testing.TB, w, h int, c color.RGBA) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			f := float64(x+y) / float64(w+h)
			img.Set(x, y, color.RGBA{uint8(float64(c.R) * (0.5 + f/2)), uint8(float64(c.G) * (0.5 + f/2)), uint8(float64(c.B) * (0.5 + f/2)), 0xff})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// settled waits until the page has rendered: its heading is there, no
// loading indicator is left, and its fonts are in.
func settled() chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		browsertest.Until(`!!document.querySelector('main h1') && !document.querySelector('[data-testid="loading"]') && document.fonts.status === 'loaded'`),
		chromedp.Sleep(150*time.Millisecond), // transitions
	)
}

// TestConsolePages opens each main page of the console, as a tenant's
// admin and as the provider, at 1280 px and at 390 px: each renders
// without an error or an exception, axe-core finds no serious or critical
// violation on it, and with -screenshots its PNG is written.
func TestConsolePages(t *testing.T) {
	browsertest.Need(t)
	srv := nodetest.Start(t, nodetest.Options{})
	_, password := demo(t, srv)
	if *screenshots != "" {
		if err := os.MkdirAll(*screenshots, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	type page struct{ name, route, ready string }
	tenantPages := []page{
		{"buckets", "/buckets", "bucket-link"},
		{"object-browser", "/buckets/photos", "folder-link"},
		{"object-folder", "/buckets/photos?prefix=2026/", "object-link"},
		{"bucket-settings", "/buckets/photos/settings", ""},
		{"bucket-encryption", "/buckets/photos/settings?tab=encryption", "encryption-current"},
		{"access-keys", "/access", ""},
		{"usage", "/usage", ""},
		{"iam-policies", "/iam/policies", "iam-policy-editor-valid"},
		{"iam-roles", "/iam/roles", "iam-trust-editor-valid"},
		{"iam-groups", "/iam/groups", ""},
		{"iam-explain", "/iam/explain", "explain-submit"},
	}
	providerPages := []page{
		{"provider-tenants", "/provider/tenants", "provider-encryption-form"},
		{"provider-tenant", "/provider/tenants/acme", "tenant-encryption-form"},
		{"provider-usage", "/provider/usage", ""},
		{"provider-health", "/provider/health", ""},
		{"provider-idps", "/provider/idps", "idp-add"},
	}
	for _, w := range widths {
		t.Run(w.name, func(t *testing.T) {
			shoot := func(ctx context.Context, name string) {
				t.Helper()
				browsertest.CheckAxe(t, ctx, name)
				if *screenshots == "" {
					return
				}
				img, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
				if err != nil {
					t.Fatalf("%s: screenshot: %v", name, err)
				}
				p := filepath.Join(*screenshots, fmt.Sprintf("%s-%s.png", name, w.name))
				if err := os.WriteFile(p, img, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			visit := func(ctx context.Context, pages []page) {
				for _, pg := range pages {
					steps := []chromedp.Action[chromedp.Void]{browsertest.Open(srv.Console.URL, pg.route), settled()}
					if pg.ready != "" {
						steps = append(steps, chromedp.WaitVisible(browsertest.T(pg.ready)))
					}
					browsertest.Step(t, ctx, "open "+pg.name, 20*time.Second, steps...)
					// Any error the page shows (a failed call of a tab or
					// a panel, not only the page's own) fails it.
					shown, _ := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[role="alert"]')]
						.filter(e => !e.hidden && e.offsetParent !== null && e.innerText.trim() !== '').map(e => e.innerText.trim())`))
					for _, msg := range shown {
						t.Errorf("%s: the page shows an error: %s", pg.name, msg)
					}
					shoot(ctx, pg.name)
				}
			}

			ctx := browsertest.New(t, w.width, w.height)
			browsertest.Step(t, ctx, "open sign-in", 20*time.Second, browsertest.Open(srv.Console.URL, "/signin"), settled(),
				chromedp.WaitVisible(browsertest.T("signin-form")))
			shoot(ctx, "signin")
			browsertest.Step(t, ctx, "sign in as alice", 20*time.Second,
				browsertest.SignInPassword("acme", "alice", password), chromedp.WaitReady(browsertest.T("nav-buckets")))
			visit(ctx, tenantPages)

			pctx := browsertest.New(t, w.width, w.height)
			browsertest.Step(t, pctx, "sign in as the provider", 20*time.Second,
				browsertest.Open(srv.Console.URL, "/signin"), browsertest.SignInKey(nodetest.AccessKey, nodetest.SecretKey),
				chromedp.WaitReady(browsertest.T("nav-tenants")))
			visit(pctx, providerPages)
		})
	}
}
