package browser_test

import (
	"context"
	"crypto/rand"
	"image/color"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/chromedp/chromedp"

	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/test/browser/browsertest"
)

// x is an XPath selector (chromedp's Search takes XPath).
type x = chromedp.Search

// rowOf selects the element with testid in the table row of key.
func rowOf(key, testid string) x {
	return x(`//tr[.//*[@data-key="` + key + `"]]//*[@data-testid="` + testid + `"]`)
}

// withText selects the element with testid whose text is text.
func withText(testid, text string) x {
	return x(`//*[@data-testid="` + testid + `"][normalize-space(.)="` + text + `"]`)
}

// folderLink selects the object browser's link into folder prefix.
func folderLink(prefix string) x {
	return x(`//a[@data-testid="folder-link"][contains(@href, "prefix=` + url.QueryEscape(prefix) + `")]`)
}

// s3As is an SDK client of srv with an access key.
func s3As(srv *nodetest.Server, ak, sk string) *s3.Client {
	return s3.New(s3.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(ak, sk, ""),
		HTTPClient:  srv.Client(), RetryMaxAttempts: 1,
	})
}

// js evaluates expr in the page and decodes its value into T.
func js[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// TestConsoleTenantFlow walks a tenant's admin through the console in
// Chromium: first sign-in with the forced password change, a new bucket,
// a 50 MiB upload whose progress bar is seen moving, folders, the preview
// of an image and of a text file, a share link fetched anonymously, a
// delete, and access keys (the secret shown once, disabled, deleted).
// Each step's effect is checked through S3, not only on the page.
func TestConsoleTenantFlow(t *testing.T) {
	browsertest.Need(t)
	srv := nodetest.Start(t, nodetest.Options{})
	p := provider(t, srv)
	onboard(t, p, "acme", "alice", "provider-set-1")
	ctx := browsertest.New(t, 1280, 900)
	root := s3As(srv, nodetest.AccessKey, nodetest.SecretKey)
	bg := context.Background()

	// First sign-in: the password the provider set must be changed.
	browsertest.Step(t, ctx, "sign in", 20*time.Second,
		browsertest.Open(srv.Console.URL, "/signin"),
		browsertest.SignInPassword("acme", "alice", "provider-set-1"),
		chromedp.WaitVisible(browsertest.T("password-forced")),
		browsertest.Type("password-current", "provider-set-1"),
		browsertest.Type("password-new", "alice-own-password"),
		browsertest.Type("password-confirm", "alice-own-password"),
		browsertest.Click("password-submit"),
		chromedp.WaitVisible(browsertest.T("bucket-create")),
	)
	// The old password no longer signs in; the new one does.
	if st, _ := (&api{t: t, srv: srv}).call("POST", "/session", map[string]string{"tenant": "acme", "user": "alice", "password": "provider-set-1"}, nil); st != 401 {
		t.Fatalf("the provider's password after the change: %d, want 401", st)
	}

	browsertest.Step(t, ctx, "create a bucket", 20*time.Second,
		browsertest.Click("bucket-create"),
		browsertest.Type("bucket-name", "holiday"),
		browsertest.Click("bucket-create-dialog-submit"),
		// A new bucket opens in the object browser.
		browsertest.Until(`location.hash === '#/buckets/holiday'`),
	)
	if _, err := root.HeadBucket(bg, &s3.HeadBucketInput{Bucket: aws.String("holiday")}); err != nil {
		t.Fatalf("the bucket made in the console: %v", err)
	}

	// A 50 MiB upload (multipart: parts in flight at once), with every
	// value its progress bar takes recorded in the page as it goes.
	big := filepath.Join(t.TempDir(), "video.bin")
	data := make([]byte, 50<<20)
	rand.Read(data)
	if err := os.WriteFile(big, data, 0o600); err != nil {
		t.Fatal(err)
	}
	browsertest.Step(t, ctx, "open the bucket", 20*time.Second,
		chromedp.WaitReady(browsertest.T("upload-input")),
		chromedp.Evaluate[chromedp.Void](`window.__progress = [];
			window.__progressTimer = setInterval(() => {
				for (const p of document.querySelectorAll('[data-testid="upload-progress"]'))
					if (window.__progress[window.__progress.length - 1] !== p.value) window.__progress.push(p.value);
			}, 5)`),
	)
	browsertest.Step(t, ctx, "upload 50 MiB", 2*time.Minute,
		chromedp.SetUploadFiles(browsertest.T("upload-input"), []string{big}),
		browsertest.UploadDone("video.bin"),
		chromedp.WaitVisible(rowOf("video.bin", "object-link")),
	)
	seen := js[[]float64](t, ctx, `clearInterval(window.__progressTimer); window.__progress`)
	var between int
	for _, v := range seen {
		if v > 0 && v < 100 {
			between++
		}
	}
	if between < 2 || seen[len(seen)-1] != 100 {
		t.Fatalf("the progress bar took the values %v: want at least two between 0 and 100, then 100", seen)
	}
	t.Logf("progress bar values seen: %v", seen)
	got, err := root.GetObject(bg, &s3.GetObjectInput{Bucket: aws.String("holiday"), Key: aws.String("video.bin")})
	if err != nil {
		t.Fatal(err)
	}
	back, _ := io.ReadAll(got.Body)
	got.Body.Close()
	if string(back) != string(data) {
		t.Fatalf("the uploaded object differs from the file: %d bytes, want %d", len(back), len(data))
	}

	// Folders: objects under two prefixes, put through S3.
	for key, body := range map[string][]byte{
		"docs/readme.txt":  []byte("Hello from the console test.\n"),
		"images/pixel.png": pngOf(t, 48, 32, color.RGBA{0x2a, 0x7f, 0xc1, 0xff}),
	} {
		ct := "text/plain"
		if strings.HasSuffix(key, ".png") {
			ct = "image/png"
		}
		if _, err := root.PutObject(bg, &s3.PutObjectInput{Bucket: aws.String("holiday"), Key: aws.String(key),
			Body: strings.NewReader(string(body)), ContentType: aws.String(ct)}); err != nil {
			t.Fatal(err)
		}
	}
	browsertest.Step(t, ctx, "browse into images/ and preview the image", 20*time.Second,
		browsertest.Click("object-refresh"),
		chromedp.Click(folderLink("images/")),
		chromedp.WaitVisible(rowOf("images/pixel.png", "object-link")),
		chromedp.Click(rowOf("images/pixel.png", "object-link")),
		chromedp.WaitVisible(browsertest.T("preview-image")),
		browsertest.Until(`(() => { const i = document.querySelector('[data-testid="preview-image"]'); return i && i.complete && i.naturalWidth === 48 && i.naturalHeight === 32 })()`),
		browsertest.Click("object-dialog-close"),
	)
	browsertest.Step(t, ctx, "back to the root, into docs/, preview the text", 20*time.Second,
		browsertest.Click("crumb-root"),
		chromedp.Click(folderLink("docs/")),
		chromedp.WaitVisible(rowOf("docs/readme.txt", "object-link")),
		chromedp.Click(rowOf("docs/readme.txt", "object-link")),
		chromedp.WaitVisible(browsertest.T("preview-text")),
		browsertest.Until(`document.querySelector('[data-testid="preview-text"]').textContent.includes('Hello from the console test.')`),
	)

	// Share: the link is fetched by Go's http client with no credentials.
	browsertest.Step(t, ctx, "share a link", 20*time.Second,
		browsertest.Click("tab-share"),
		browsertest.Click("share-create"),
		chromedp.WaitVisible(browsertest.T("share-url")),
	)
	link := js[string](t, ctx, `(() => { const e = document.querySelector('[data-testid="share-url"]'); return e.value || e.textContent })()`)
	resp, err := http.Get(strings.TrimSpace(link))
	if err != nil {
		t.Fatalf("fetch the share link %q: %v", link, err)
	}
	shared, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(shared) != "Hello from the console test.\n" {
		t.Fatalf("anonymous GET of the share link: %d %q", resp.StatusCode, shared)
	}
	// The link is the object's only: another key of the bucket is refused.
	if other := strings.Replace(link, "docs/readme.txt", "video.bin", 1); other != link {
		if r, err := http.Get(other); err == nil {
			r.Body.Close()
			if r.StatusCode != 403 {
				t.Fatalf("the share link altered to another key: %d, want 403", r.StatusCode)
			}
		}
	}

	browsertest.Step(t, ctx, "delete the text file", 20*time.Second,
		browsertest.Click("object-dialog-close"),
		chromedp.Click(rowOf("docs/readme.txt", "object-delete")),
		browsertest.Click("confirm-object-delete-ok"),
		chromedp.WaitNotPresent(rowOf("docs/readme.txt", "object-link")),
	)
	if _, err := root.HeadObject(bg, &s3.HeadObjectInput{Bucket: aws.String("holiday"), Key: aws.String("docs/readme.txt")}); err == nil {
		t.Fatal("docs/readme.txt is still there after the console deleted it")
	}

	keysFlow(t, ctx, srv)
}

// keysFlow: on the access page, alice creates a key (its secret is shown
// once and works against S3), disables it (S3 refuses it) and deletes it.
func keysFlow(t *testing.T, ctx context.Context, srv *nodetest.Server) {
	bg := context.Background()
	keyRow := func(ak, testid string) x {
		return x(`//tr[.//code[normalize-space(.)="` + ak + `"]]//*[@data-testid="` + testid + `"]`)
	}
	browsertest.Step(t, ctx, "create a key", 20*time.Second,
		browsertest.Open(srv.Console.URL, "/access"),
		settled(),
		chromedp.Click(x(`//tr[.//*[normalize-space(.)="alice"]]//*[@data-testid="user-keys"]`)),
		browsertest.Click("key-create"),
		chromedp.WaitVisible(browsertest.T("new-secret-key")),
	)
	secret := js[string](t, ctx, `document.querySelector('[data-testid="new-secret-key"]').value`)
	ak := js[string](t, ctx, `document.querySelector('[data-testid="new-access-key"]').value`)
	if ak == "" || len(secret) < 20 {
		t.Fatalf("the new key as shown: %q / %q", ak, secret)
	}
	cl := s3As(srv, ak, secret)
	if _, err := cl.ListBuckets(bg, &s3.ListBucketsInput{}); err != nil {
		t.Fatalf("the new key against S3: %v", err)
	}
	browsertest.Step(t, ctx, "close the secret", 20*time.Second,
		browsertest.Click("secret-done"),
		chromedp.WaitNotPresent(browsertest.T("new-secret-key")),
		chromedp.WaitVisible(keyRow(ak, "key-disable")),
	)
	// Shown once: the page holds it nowhere any more.
	if html := js[string](t, ctx, `document.documentElement.outerHTML`); strings.Contains(html, secret) {
		t.Fatal("the secret is still in the page after its dialog closed")
	}
	browsertest.Step(t, ctx, "disable the key", 20*time.Second,
		chromedp.Click(keyRow(ak, "key-disable")),
		chromedp.WaitVisible(keyRow(ak, "key-enable")),
	)
	if status := js[string](t, ctx, `document.evaluate('//tr[.//code[normalize-space(.)="`+ak+`"]]//*[@data-testid="key-status"]', document, null, XPathResult.STRING_TYPE, null).stringValue`); status == "active" {
		t.Fatalf("the disabled key's status reads %q", status)
	}
	if _, err := cl.ListBuckets(bg, &s3.ListBucketsInput{}); err == nil {
		t.Fatal("a disabled key still works against S3")
	}
	browsertest.Step(t, ctx, "delete the key", 20*time.Second,
		chromedp.Click(keyRow(ak, "key-delete")),
		browsertest.Click("confirm-key-delete-ok"),
		chromedp.WaitNotPresent(keyRow(ak, "key-delete")),
	)
	var keys []struct {
		AccessKey string `json:"access_key"`
	}
	p := provider(t, srv)
	p.must(200, "GET", "/tenants/acme/users/alice/keys", nil, &keys)
	for _, k := range keys {
		if k.AccessKey == ak {
			t.Fatalf("the deleted key is still listed: %+v", keys)
		}
	}
}

// TestConsoleProviderFlow: the provider signs in with its access key,
// onboards a tenant with its first admin and sets the tenant's quota, in
// the provider portal; the admin API's view confirms both, and the new
// admin's first sign-in is the forced password change.
func TestConsoleProviderFlow(t *testing.T) {
	browsertest.Need(t)
	srv := nodetest.Start(t, nodetest.Options{})
	ctx := browsertest.New(t, 1280, 900)
	browsertest.Step(t, ctx, "sign in as the provider", 20*time.Second,
		browsertest.Open(srv.Console.URL, "/signin"),
		browsertest.SignInKey(nodetest.AccessKey, nodetest.SecretKey),
		chromedp.WaitVisible(browsertest.T("nav-tenants")),
		chromedp.WaitVisible(browsertest.T("tenant-create")),
	)
	browsertest.Step(t, ctx, "onboard a tenant", 20*time.Second,
		browsertest.Click("tenant-create"),
		browsertest.Type("tenant-name", "initech"),
		browsertest.Type("tenant-display-name", "Initech"),
		browsertest.Type("tenant-admin-name", "peter"),
		browsertest.Type("tenant-admin-password", "first-password-1"),
		browsertest.Click("tenant-create-dialog-submit"),
		chromedp.WaitVisible(withText("tenant-link", "initech")),
	)
	browsertest.Step(t, ctx, "set its quota", 20*time.Second,
		chromedp.Click(withText("tenant-link", "initech")),
		browsertest.Click("tab-quotas"),
		browsertest.Type("quota-max-bytes", "10 GiB"),
		browsertest.Type("quota-max-objects", "5000"),
		browsertest.Type("quota-requests-per-sec", "300"),
		browsertest.Type("quota-bytes-out-per-sec", "50 MiB"),
		browsertest.Click("quota-save"),
		chromedp.WaitVisible(x(`//*[@data-testid="quota-table"]//td[contains(., "10")]`)),
	)
	p := provider(t, srv)
	var quotas []struct {
		Bucket     string `json:"bucket"`
		MaxBytes   int64  `json:"max_bytes"`
		MaxObjects int64  `json:"max_objects"`
		Requests   int64  `json:"requests_per_sec"`
		In         int64  `json:"bytes_in_per_sec"`
		Out        int64  `json:"bytes_out_per_sec"`
	}
	p.must(200, "GET", "/tenants/initech/quotas", nil, &quotas)
	ok := false
	for _, q := range quotas {
		if q.Bucket == "" && q.MaxBytes == 10<<30 && q.MaxObjects == 5000 && q.Requests == 300 && q.In == 0 && q.Out == 50<<20 {
			ok = true
		}
	}
	if !ok {
		t.Fatalf("initech's quotas after the provider set them: %+v", quotas)
	}
	// The tenant's admin exists, and must change the password it was given.
	tenantUser(t, srv, "initech", "peter", "first-password-1", "peters-own-password")
}

// TestConsoleTenantIsolationUI: a tenant's user, signed in, is shown none
// of another tenant's buckets, gets an error (and no object) when it
// types that bucket's address, and reaches no provider page: no link to
// one, and an error with nothing of the provider's data when it types its
// address. TestConsoleAPIIsolation proves the same of the API beneath.
func TestConsoleTenantIsolationUI(t *testing.T) {
	browsertest.Need(t)
	srv := nodetest.Start(t, nodetest.Options{})
	p := provider(t, srv)
	onboard(t, p, "acme", "alice", "provider-set-1")
	onboard(t, p, "globex", "bob", "provider-set-2")
	alice := tenantUser(t, srv, "acme", "alice", "provider-set-1", "alice-own-password")
	alice.must(201, "POST", "/buckets", map[string]any{"name": "acme-private"}, nil)
	alice.upload("acme-private", "secret.txt", []byte("acme's secret"))
	tenantUser(t, srv, "globex", "bob", "provider-set-2", "bob-own-password")
	bob := signIn(t, srv, map[string]string{"tenant": "globex", "user": "bob", "password": "bob-own-password"})
	bob.must(201, "POST", "/buckets", map[string]any{"name": "globex-data"}, nil)

	ctx := browsertest.New(t, 1280, 900)
	browsertest.Step(t, ctx, "sign in as bob", 20*time.Second,
		browsertest.Open(srv.Console.URL, "/signin"),
		browsertest.SignInPassword("globex", "bob", "bob-own-password"),
		chromedp.WaitVisible(withText("bucket-link", "globex-data")),
	)
	if n := js[int](t, ctx, `document.querySelectorAll('[data-testid="bucket-link"]').length`); n != 1 {
		t.Fatalf("bob sees %d buckets, want his one", n)
	}
	if n := js[int](t, ctx, `document.querySelectorAll('[data-testid^="nav-tenants"], [data-testid="nav-health"], [data-testid="nav-provider-usage"]').length`); n != 0 {
		t.Fatal("bob's navigation links to provider pages")
	}
	browsertest.Step(t, ctx, "type acme's bucket's address", 20*time.Second,
		browsertest.Open(srv.Console.URL, "/buckets/acme-private"),
		browsertest.Until(`!!document.querySelector('[data-testid="object-list-error"], [data-testid="page-error"]')`),
	)
	if html := js[string](t, ctx, `document.body.innerText`); strings.Contains(html, "secret.txt") {
		t.Fatal("bob is shown acme's object")
	}
	for _, route := range []string{"/provider/tenants", "/provider/usage", "/provider/health", "/provider/tenants/acme"} {
		browsertest.Step(t, ctx, "type "+route, 20*time.Second,
			browsertest.Open(srv.Console.URL, route),
			browsertest.Until(`!document.querySelector('[data-testid="loading"]') && !!document.querySelector('main h1')`),
		)
		text := js[string](t, ctx, `document.querySelector('main').innerText`)
		if strings.Contains(text, "acme") || js[int](t, ctx, `document.querySelectorAll('[data-testid="tenant-link"]').length`) > 0 {
			t.Fatalf("%s shows bob the provider's data: %s", route, text)
		}
	}
}
