package browser_test

import (
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ostiumio/ostium/test/browser/browsertest"
)

// TestAxeCatchesViolations shows that the accessibility check can fail: a
// page with an image without alternative text and an unlabelled input
// gives axe-core critical violations, so a clean run of the console's
// pages means something.
func TestAxeCatchesViolations(t *testing.T) {
	ctx := browsertest.New(t, 1280, 800)
	if _, err := os.Stat(browsertest.AxePath()); err != nil && !browsertest.Required() {
		t.Skipf("axe-core is missing at %s", browsertest.AxePath())
	}
	page := `data:text/html,<!doctype html><html lang="en"><title>t</title><main><img src="x.png"><input type="text"></main></html>`
	browsertest.Step(t, ctx, "open", 10*time.Second, chromedp.Navigate(page))
	vs, err := browsertest.Axe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]string{}
	for _, v := range vs {
		found[v.ID] = v.Impact
	}
	if found["image-alt"] != "critical" || found["label"] != "critical" {
		t.Fatalf("axe-core found %v, want image-alt and label as critical", found)
	}
}
