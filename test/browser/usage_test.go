package browser_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/test/browser/browsertest"
)

// axisLabel is what a chart's axis may read: a time (hh:mm or MM-DD), or
// a whole number of bytes in one unit or of requests and objects; never
// "0.25 B" or "1.3 MiB".
var axisLabel = regexp.MustCompile(`^(\d\d:\d\d|\d\d-\d\d|(0|[1-9][\d,]*)( (B|KiB|MiB|GiB|TiB|PiB))?)$`)

// TestConsoleUsage opens the usage page of a tenant with data in
// Chromium: every chart's axis reads whole units; the totals are the live
// ones quotas count, for the tenant and for a bucket made within the hour
// (which no hourly sample has seen yet: the page showed 0 B for it); the
// page says up to when the hourly figures are final and when the open
// hour closes. With -screenshots, it writes usage-data-*.png there.
func TestConsoleUsage(t *testing.T) {
	browsertest.Need(t)
	srv := nodetest.Start(t, nodetest.Options{Config: func(c *node.Config) { c.MeterInterval = 200 * time.Millisecond }})
	alice, password := demo(t, srv)
	// reports: 3 objects, 6,000 bytes, all written after this hour's
	// storage sample.
	for i, n := range []int{1000, 2000, 3000} {
		alice.upload("reports", fmt.Sprintf("q%d.txt", i+1), []byte(strings.Repeat("r", n)))
	}
	// The meter reports the uploads within a few of its intervals.
	var u struct {
		Rows []struct {
			Bucket string `json:"bucket"`
			Put    int64  `json:"put"`
		} `json:"rows"`
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		alice.must(200, "GET", "/tenants/acme/usage", nil, &u)
		var puts int64
		for _, r := range u.Rows {
			if r.Bucket == "reports" {
				puts += r.Put
			}
		}
		if puts >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the uploads to reports were not metered: %+v", u.Rows)
		}
	}

	ctx := browsertest.New(t, 1280, 900)
	browsertest.Step(t, ctx, "sign in as alice", 20*time.Second, browsertest.Open(srv.Console.URL, "/signin"), settled(),
		browsertest.SignInPassword("acme", "alice", password), chromedp.WaitReady(browsertest.T("nav-buckets")))
	shoot := func(name string) {
		if *screenshots == "" {
			return
		}
		img, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(*screenshots, name+".png"), img, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	browsertest.Step(t, ctx, "open usage", 20*time.Second, browsertest.Open(srv.Console.URL, "/usage"), settled(),
		chromedp.WaitVisible(browsertest.T("chart-requests")))
	shoot("usage-data-1280")

	labels := js[[]string](t, ctx, `[...document.querySelectorAll('[data-testid^="chart-"] svg text')].map(e => e.textContent)`)
	if len(labels) < 4*3 {
		t.Fatalf("%d axis labels on the usage page's charts, want at least 3 on each axis of 4 charts: %q", len(labels), labels)
	}
	for _, l := range labels {
		if !axisLabel.MatchString(l) {
			t.Errorf("axis label %q is not a whole number of its unit", l)
		}
	}

	stat := func(id string) string {
		return js[string](t, ctx, `document.querySelector('[data-testid="`+id+`"] .v').textContent`)
	}
	if got := stat("usage-stored"); got == "0 B" || got == "–" {
		t.Errorf("the tenant's stored bytes read %q beside its uploads", got)
	}
	browsertest.Step(t, ctx, "choose reports", 10*time.Second, choose("usage-bucket", "reports"),
		browsertest.Until(`document.querySelector('[data-testid="usage-bucket"]').value === 'reports'`), chromedp.WaitVisible(browsertest.T("chart-storage")))
	shoot("usage-data-bucket-1280")
	if got, want := stat("usage-stored"), "5.9 KiB"; got != want { // 6,000 B
		t.Errorf("reports: stored %q, want the live %q", got, want)
	}
	if got := stat("usage-objects"); got != "3" {
		t.Errorf("reports: %q objects, want the live 3", got)
	}

	note := js[string](t, ctx, `(document.querySelector('[data-testid="usage-hourly-note"]') || {}).textContent || ''`)
	now := time.Now().UTC()
	ok := false
	for _, h := range []time.Time{now.Truncate(time.Hour), now.Add(-time.Minute).Truncate(time.Hour)} { // the hour may just have turned
		if strings.Contains(note, "final up to "+h.Format("15:04")+" UTC") &&
			strings.Contains(note, "closes at "+h.Add(time.Hour).Format("15:04")+":00 UTC") {
			ok = true
		}
	}
	if !ok {
		t.Errorf("the page says %q; want when the open hour's figures close", note)
	}
}
