package browser_test

import (
	"context"
	"crypto/md5"
	"crypto/rand"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/chromedp/chromedp"

	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/test/browser/browsertest"
)

// choose sets the select with testid to value as a person would: the
// page's change handlers run.
func choose(id, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.WaitVisible(browsertest.T(id)),
		chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelector(`+quote(browsertest.TestID(id))+`);
			s.value = `+quote(value)+`; s.dispatchEvent(new Event('change', { bubbles: true })); })()`),
	)
}

func quote(s string) string { return `'` + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + `'` }

// TestConsoleEncryption: in Chromium, a tenant's admin creates a bucket
// with SSE-S3 chosen in the create dialog (S3 then reports the bucket's
// default, and an object uploaded after is encrypted), sees it in the
// bucket's settings, sees an object's encryption in its dialog and, for
// an SSE-C object, a message in place of a preview; the provider sets the
// tenant's default encryption on its page and the provider-wide default
// on the tenants page (the console's API reads each back). axe-core
// checks the dialog, the settings tab, the tenant's and tenants' pages.
func TestConsoleEncryption(t *testing.T) {
	browsertest.Need(t)
	srv := nodetest.Start(t, nodetest.Options{Config: func(c *node.Config) { c.SSE.COverHTTP = true }})
	p := provider(t, srv)
	onboard(t, p, "acme", "alice", "provider-set-1")
	alice := tenantUser(t, srv, "acme", "alice", "provider-set-1", "alice-own-password")
	root := s3As(srv, nodetest.AccessKey, nodetest.SecretKey)
	bg := context.Background()
	ctx := browsertest.New(t, 1280, 900)

	browsertest.Step(t, ctx, "sign in", 20*time.Second,
		browsertest.Open(srv.Console.URL, "/signin"),
		browsertest.SignInPassword("acme", "alice", "alice-own-password"),
		chromedp.WaitVisible(browsertest.T("bucket-create")),
	)
	browsertest.Step(t, ctx, "open the create dialog and choose SSE-S3", 20*time.Second,
		browsertest.Click("bucket-create"),
		browsertest.Type("bucket-name", "secure"),
		choose("bucket-encryption-algorithm", "AES256"),
		// SSE-S3 names no key.
		browsertest.Until(`document.querySelector('[data-testid="bucket-encryption-kms-key"]').closest('.field').hidden`),
	)
	browsertest.CheckAxe(t, ctx, "create dialog with encryption")
	browsertest.Step(t, ctx, "create the bucket", 20*time.Second,
		browsertest.Click("bucket-create-dialog-submit"),
		browsertest.Until(`location.hash === '#/buckets/secure'`),
	)
	enc, err := root.GetBucketEncryption(bg, &s3.GetBucketEncryptionInput{Bucket: aws.String("secure")})
	if err != nil || enc.ServerSideEncryptionConfiguration.Rules[0].ApplyServerSideEncryptionByDefault.SSEAlgorithm != types.ServerSideEncryptionAes256 {
		t.Fatalf("GetBucketEncryption of the bucket created with SSE-S3: %v", err)
	}

	browsertest.Step(t, ctx, "see it in the bucket's settings", 20*time.Second,
		browsertest.Open(srv.Console.URL, "/buckets/secure/settings?tab=encryption"),
		chromedp.WaitVisible(browsertest.T("encryption-current")),
		browsertest.Until(`document.querySelector('[data-testid="encryption-current"]').textContent.includes('SSE-S3 (AES256)')`),
		browsertest.Until(`document.querySelector('[data-testid="encryption-algorithm"]').value === 'AES256'`),
	)
	browsertest.CheckAxe(t, ctx, "encryption settings")

	// An object uploaded after is encrypted; its dialog says so.
	alice.upload("secure", "notes.txt", []byte("sealed notes\n"))
	head, err := root.HeadObject(bg, &s3.HeadObjectInput{Bucket: aws.String("secure"), Key: aws.String("notes.txt")})
	if err != nil || head.ServerSideEncryption != types.ServerSideEncryptionAes256 {
		t.Fatalf("HEAD of an object uploaded after: %v %q", err, head.ServerSideEncryption)
	}
	browsertest.Step(t, ctx, "an object's encryption in its dialog", 20*time.Second,
		browsertest.Open(srv.Console.URL, "/buckets/secure"),
		chromedp.WaitVisible(rowOf("notes.txt", "object-link")),
		chromedp.Click(rowOf("notes.txt", "object-link")),
		chromedp.WaitVisible(browsertest.T("preview-text")),
		browsertest.Until(`document.querySelector('[data-testid="object-encryption"]').textContent === 'SSE-S3 (AES256)'`),
		browsertest.Click("object-dialog-close"),
	)

	// An SSE-C object: a message, not a broken preview or download.
	key := make([]byte, 32)
	rand.Read(key)
	sum := md5.Sum(key)
	if _, err := root.PutObject(bg, &s3.PutObjectInput{Bucket: aws.String("secure"), Key: aws.String("mine.txt"), Body: strings.NewReader("only with my key"),
		ContentType: aws.String("text/plain"), SSECustomerAlgorithm: aws.String("AES256"),
		SSECustomerKey: aws.String(base64.StdEncoding.EncodeToString(key)), SSECustomerKeyMD5: aws.String(base64.StdEncoding.EncodeToString(sum[:]))}); err != nil {
		t.Fatal(err)
	}
	browsertest.Step(t, ctx, "an SSE-C object's dialog", 20*time.Second,
		browsertest.Click("object-refresh"),
		chromedp.WaitVisible(rowOf("mine.txt", "object-link")),
		chromedp.Click(rowOf("mine.txt", "object-link")),
		chromedp.WaitVisible(browsertest.T("object-sse-c")),
		browsertest.Until(`document.querySelector('[data-testid="object-encryption"]').textContent.startsWith('SSE-C')`),
	)
	if n := js[int](t, ctx, `document.querySelectorAll('[data-testid^="preview-"], [data-testid="object-dialog-download"], [role="alert"]:not([hidden])').length`); n != 0 {
		t.Fatalf("an SSE-C object's dialog shows %d previews, download links or errors", n)
	}
	browsertest.CheckAxe(t, ctx, "SSE-C object dialog")

	// The provider sets acme's default encryption on acme's page.
	pctx := browsertest.New(t, 1280, 900)
	browsertest.Step(t, pctx, "the provider sets acme's default", 20*time.Second,
		browsertest.Open(srv.Console.URL, "/signin"),
		browsertest.SignInKey(nodetest.AccessKey, nodetest.SecretKey),
		chromedp.WaitVisible(browsertest.T("nav-tenants")),
		browsertest.Open(srv.Console.URL, "/provider/tenants/acme"),
		chromedp.WaitVisible(browsertest.T("tenant-encryption")),
		browsertest.Until(`document.querySelector('[data-testid="tenant-encryption"]').textContent.startsWith('None')`),
		choose("tenant-encryption-default", "sse-s3"),
		browsertest.Click("tenant-encryption-save"),
		browsertest.Until(`document.querySelector('[data-testid="tenant-encryption"]').textContent === 'SSE-S3 (AES256)'`),
	)
	browsertest.CheckAxe(t, pctx, "tenant page with encryption")
	var tn struct {
		Encryption *struct {
			Default string `json:"default"`
		} `json:"encryption"`
	}
	p.must(200, "GET", "/tenants/acme", nil, &tn)
	if tn.Encryption == nil || tn.Encryption.Default != "sse-s3" {
		t.Fatalf("acme's default after the provider set it in the page: %+v", tn.Encryption)
	}

	// The provider sets the provider-wide default on the tenants page.
	browsertest.Step(t, pctx, "the provider sets the provider-wide default", 20*time.Second,
		browsertest.Open(srv.Console.URL, "/provider/tenants"),
		chromedp.WaitVisible(browsertest.T("provider-encryption")),
		browsertest.Until(`document.querySelector('[data-testid="provider-encryption"]').textContent.startsWith('None')`),
		choose("provider-encryption-default", "sse-kms"),
		browsertest.Click("provider-encryption-save"),
		browsertest.Until(`document.querySelector('[data-testid="provider-encryption"]').textContent === "SSE-KMS, each tenant's own key"`),
	)
	browsertest.CheckAxe(t, pctx, "tenants page with the provider-wide encryption")
	var pe struct {
		Default string `json:"default"`
	}
	p.must(200, "GET", "/encryption", nil, &pe)
	if pe.Default != "sse-kms" {
		t.Fatalf("the provider-wide default after the provider set it in the page: %+v", pe)
	}
}
