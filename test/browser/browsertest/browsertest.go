// Package browsertest drives a real Chromium (Debian's chromium package)
// with chromedp for the console's browser tests, its screenshots and its
// upload benchmark: the browser's launch, the axe-core accessibility check,
// and waits bounded by the caller's context.
package browsertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Chromium is where Debian's chromium package puts the browser.
const Chromium = "/usr/bin/chromium"

// Required tells whether a missing browser (or axe-core) fails the tests
// instead of skipping them: .ci/run sets it, so CI cannot pass by skipping.
func Required() bool { return os.Getenv("OSTIUM_REQUIRE_BROWSER") == "1" }

// Need skips t (or fails it, when Required) unless Chromium is installed.
// The browser tests run once, in test/all.sh's SQLite pass: the pages do
// not see the catalog, and the console's catalog records are tested on
// PostgreSQL by the API tests (TestConsoleAPIIsolation, internal/console),
// which run in both passes. OSTIUM_BROWSER_ON_POSTGRES=1 runs them there too.
func Need(t testing.TB) {
	t.Helper()
	if os.Getenv("OSTIUM_TEST_CATALOG") == "postgres" && os.Getenv("OSTIUM_BROWSER_ON_POSTGRES") != "1" {
		t.Skip("browser tests run in the SQLite pass (OSTIUM_BROWSER_ON_POSTGRES=1 runs them on PostgreSQL too)")
	}
	if _, err := os.Stat(Chromium); err != nil {
		if Required() {
			t.Fatalf("OSTIUM_REQUIRE_BROWSER=1 and %s is missing (apt-get install chromium)", Chromium)
		}
		t.Skipf("%s is missing (apt-get install chromium): browser tests skipped", Chromium)
	}
}

// Browser is one Chromium process with a fresh profile.
type Browser struct {
	alloc context.Context
	stop  context.CancelFunc
	// Errors collects the page's uncaught exceptions, which a test
	// reports: a console that throws is broken even if the flow passed.
	Errors chan string
}

// Launch starts Chromium with a window of width x height; it exits when
// Close is called. The flags are those that work headless on a build
// machine: no sandbox (containers run as root), no GPU, no network of its
// own (updates, sync, QUIC), and a profile of its own in a temp dir.
// extra adds to them (a flag a test needs, as trusting its identity
// provider's test certificate).
func Launch(ctx context.Context, userDataDir string, width, height int, extra ...chromedp.ExecAllocatorOption) (*Browser, context.Context, error) {
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(Chromium),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("font-render-hinting", "none"),
		chromedp.UserDataDir(userDataDir),
		chromedp.WindowSize(width, height),
	}
	opts = append(opts, extra...)
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	b := &Browser{alloc: alloc, Errors: make(chan string, 64)}
	bctx, cancelCtx := chromedp.NewContext(alloc, chromedp.WithListener(func(ev any) {
		if e, ok := ev.(*runtime.EventExceptionThrown); ok {
			msg := e.ExceptionDetails.Text
			if e.ExceptionDetails.Exception != nil && e.ExceptionDetails.Exception.Description != "" {
				msg = e.ExceptionDetails.Exception.Description
			}
			select {
			case b.Errors <- msg:
			default:
			}
		}
	}))
	b.stop = func() { cancelCtx(); cancelAlloc() }
	// The first Run starts the browser: fail here, not in the first step.
	if err := chromedp.Do(bctx, chromedp.EmulateViewport(int64(width), int64(height))); err != nil {
		b.stop()
		return nil, nil, fmt.Errorf("start %s: %w", Chromium, err)
	}
	return b, bctx, nil
}

// Close ends the browser.
func (b *Browser) Close() { b.stop() }

// New launches a browser for t at width x height (closed when t ends) and
// returns its tab's context. Exceptions thrown by the page fail t.
func New(t testing.TB, width, height int, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	Need(t)
	b, ctx, err := Launch(context.Background(), t.TempDir(), width, height, extra...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		b.Close()
		close(b.Errors)
		for msg := range b.Errors {
			t.Errorf("the page threw: %s", msg)
		}
	})
	return ctx
}

// AxePath is axe-core's browser script: OSTIUM_AXE, else where .ci/run
// installs it (npm into ~/.cache/ostium-ci).
func AxePath() string {
	if p := os.Getenv("OSTIUM_AXE"); p != "" {
		return p
	}
	home, _ := os.UserHomeDir()
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "ostium-ci", "node_modules", "axe-core", "axe.min.js")
}

// Violation is one axe-core rule a page breaks.
type Violation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []any  `json:"target"`
		HTML   string `json:"html"`
	} `json:"nodes"`
}

func (v Violation) String() string {
	var where []string
	for i, n := range v.Nodes {
		if i == 3 {
			where = append(where, fmt.Sprintf("and %d more", len(v.Nodes)-3))
			break
		}
		where = append(where, fmt.Sprintf("%v %s", n.Target, n.HTML))
	}
	return fmt.Sprintf("%s (%s): %s\n\t%s", v.ID, v.Impact, v.Help, strings.Join(where, "\n\t"))
}

// Axe runs axe-core (WCAG 2.1 A and AA rules and best practices) on the
// page in ctx and returns its violations.
func Axe(ctx context.Context) ([]Violation, error) {
	src, err := os.ReadFile(AxePath())
	if err != nil {
		return nil, fmt.Errorf("axe-core (npm install axe-core, or set OSTIUM_AXE): %w", err)
	}
	loaded, err := chromedp.Run(ctx, chromedp.Evaluate[bool](string(src)+";typeof axe === 'object'"))
	if err != nil {
		return nil, fmt.Errorf("inject axe-core: %w", err)
	}
	if !loaded {
		return nil, errors.New("axe-core did not load")
	}
	run := `axe.run(document, {resultTypes: ['violations']}).then(r => JSON.stringify(r.violations))`
	out, err := chromedp.Run(ctx, chromedp.Evaluate[string](run, chromedp.EvalAwaitPromise))
	if err != nil {
		return nil, fmt.Errorf("run axe-core: %w", err)
	}
	var vs []Violation
	if err := json.Unmarshal([]byte(out), &vs); err != nil {
		return nil, fmt.Errorf("axe-core's answer: %w", err)
	}
	return vs, nil
}

// CheckAxe fails t on any violation of impact serious or critical on the
// page in ctx, and logs the lesser ones. Without axe-core it skips the
// check (or fails, when Required).
func CheckAxe(t testing.TB, ctx context.Context, page string) {
	t.Helper()
	if _, err := os.Stat(AxePath()); err != nil {
		if Required() {
			t.Fatalf("OSTIUM_REQUIRE_BROWSER=1 and axe-core is missing at %s", AxePath())
		}
		t.Logf("%s: axe-core is missing at %s (npm install axe-core): accessibility not checked", page, AxePath())
		return
	}
	vs, err := Axe(ctx)
	if err != nil {
		t.Fatalf("%s: %v", page, err)
	}
	for _, v := range vs {
		if v.Impact == "serious" || v.Impact == "critical" {
			t.Errorf("%s: accessibility: %s", page, v)
		} else {
			t.Logf("%s: accessibility (%s, not failing): %s", page, v.Impact, v.ID)
		}
	}
}

// Step bounds one action of a flow, so a missing element fails in seconds
// with the step's name rather than hanging until the test's deadline.
func Step(t testing.TB, ctx context.Context, name string, d time.Duration, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	if err := chromedp.Do(sctx, actions...); err != nil {
		lctx, lcancel := context.WithTimeout(ctx, 2*time.Second)
		defer lcancel()
		where, _ := chromedp.Run(lctx, chromedp.Location())
		text, _ := chromedp.Run(lctx, chromedp.Evaluate[string](`document.body ? document.body.innerText.slice(0, 600) : ''`))
		if dir := os.Getenv("OSTIUM_BROWSER_FAILURES"); dir != "" {
			if img, err := chromedp.Run(lctx, chromedp.CaptureScreenshot()); err == nil {
				p := filepath.Join(dir, strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()+"-"+name)+".png")
				_ = os.WriteFile(p, img, 0o644)
			}
		}
		t.Fatalf("%s (at %s): %v\nthe page says:\n%s", name, where, err, text)
	}
}

// TestID is the CSS selector of an element's data-testid.
func TestID(id string) string { return `[data-testid="` + id + `"]` }

// Void is the value of an action that answers nothing.
type Void = chromedp.Void

// T is the chromedp selector of a data-testid.
func T(id string) chromedp.CSS { return chromedp.CSS(TestID(id)) }

// Type replaces the value of the input with testid and types v into it,
// as a person would (key events, so the page's handlers run).
func Type(id, v string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.WaitVisible(T(id)),
		chromedp.Evaluate[Void](`document.querySelector(`+strconvQuote(TestID(id))+`).value = ''`),
		chromedp.SendKeys(T(id), v),
	)
}

// Click waits for the element with testid to be visible and clicks it.
func Click(id string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(chromedp.WaitVisible(T(id)), chromedp.Click(T(id)))
}

// Until polls the page's expression (true when done) every 50 ms.
func Until(expr string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Poll[bool](expr, chromedp.WithPollingInterval(50*time.Millisecond))(ctx, t)
		return err
	})
}

// SignInPassword signs in on the console at base (the node's URL) with the
// password form.
func SignInPassword(tenant, user, password string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		Click("signin-method-password"),
		Type("signin-tenant", tenant),
		Type("signin-user", user),
		Type("signin-password", password),
		Click("signin-submit"),
	)
}

// SignInKey signs in with an access key and its secret.
func SignInKey(accessKey, secretKey string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		Click("signin-method-access_key"),
		Type("signin-access-key", accessKey),
		Type("signin-secret-key", secretKey),
		Click("signin-submit"),
	)
}

// Open navigates to the console's route (a hash path such as "/buckets")
// on the node at base.
func Open(base, route string) chromedp.Action[chromedp.Void] {
	return chromedp.Navigate(base + "/console/#" + route)
}

// UploadDone waits until the upload of key is done, failing at once if it
// failed.
func UploadDone(key string) chromedp.Action[chromedp.Void] {
	sel, _ := json.Marshal(`[data-testid="upload-item"][data-key=` + strconvQuote(key) + `]`)
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		st, err := chromedp.Poll[string](`(() => { const e = document.querySelector(`+string(sel)+`);
			return e && (e.dataset.state === 'done' || e.dataset.state === 'failed' || e.dataset.state === 'cancelled') ? e.dataset.state : false })()`,
			chromedp.WithPollingInterval(50*time.Millisecond))(ctx, t)
		if err != nil {
			return err
		}
		if st != "done" {
			msg, _ := chromedp.Text(T("upload-status"))(ctx, t)
			return fmt.Errorf("upload of %s: %s (%s)", key, st, msg)
		}
		return nil
	})
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
