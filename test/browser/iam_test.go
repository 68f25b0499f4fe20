package browser_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/chromedp/chromedp"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/test/browser/browsertest"
)

// A tenant admin writes a policy with a JSON mistake in Chromium and is
// shown the line and column beside the text; fixes it, saves it, attaches
// it to alice, and asks why alice may read an object: the page shows the
// decision and the managed policy's statement. S3 agrees: alice reads
// the object with her own key.
func TestConsolePolicyEditorAndExplanation(t *testing.T) {
	browsertest.Need(t)
	srv := nodetest.Start(t, nodetest.Options{})
	c := admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, srv.Client())
	bg := context.Background()
	mustDo := func(method, path string, in, out any) {
		t.Helper()
		if err := c.Do(bg, method, path, in, out); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
	}
	mustDo("POST", "/tenants", map[string]string{"name": "acme"}, nil)
	mustDo("POST", "/tenants/acme/users", map[string]string{"name": "ann", "role": "admin"}, nil)
	mustDo("POST", "/tenants/acme/users", map[string]string{"name": "alice"}, nil)
	var annKey, aliceKey admin.Key
	mustDo("POST", "/tenants/acme/users/ann/keys", nil, &annKey)
	mustDo("POST", "/tenants/acme/users/alice/keys", nil, &aliceKey)
	ann := s3As(srv, annKey.AccessKey, annKey.SecretKey)
	if _, err := ann.CreateBucket(bg, &s3.CreateBucketInput{Bucket: aws.String("reports")}); err != nil {
		t.Fatal(err)
	}
	if _, err := ann.PutObject(bg, &s3.PutObjectInput{Bucket: aws.String("reports"), Key: aws.String("q1.csv"), Body: strings.NewReader("a,b\n")}); err != nil {
		t.Fatal(err)
	}
	alice := s3As(srv, aliceKey.AccessKey, aliceKey.SecretKey)
	read := func() error {
		_, err := alice.GetObject(bg, &s3.GetObjectInput{Bucket: aws.String("reports"), Key: aws.String("q1.csv")})
		return err
	}
	if read() == nil {
		t.Fatal("alice reads before any policy")
	}

	ctx := browsertest.New(t, 1280, 1000)
	shoot := func(name string) {
		t.Helper()
		browsertest.CheckAxe(t, ctx, name)
		if *screenshots == "" {
			return
		}
		img, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("%s: screenshot: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(*screenshots, name+".png"), img, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The missing comma after "Effect": "Allow" is on line 3.
	bad := "{\"Version\": \"2012-10-17\",\n\"Statement\": [\n{\"Sid\": \"ReadReports\", \"Effect\": \"Allow\" \"Action\": \"s3:GetObject\",\n\"Resource\": \"arn:aws:s3:::reports/*\"}]}"
	good := strings.Replace(bad, `"Allow" "Action"`, `"Allow", "Action"`, 1)
	browsertest.Step(t, ctx, "the policies page", 20*time.Second,
		browsertest.Open(srv.Console.URL, "/signin"),
		browsertest.SignInKey(annKey.AccessKey, annKey.SecretKey),
		browsertest.Click("nav-iam-policies"),
		chromedp.WaitVisible(browsertest.T("iam-policy-editor")),
		browsertest.Type("iam-policy-name", "read-reports"),
		browsertest.Type("iam-policy-editor", bad),
		chromedp.WaitVisible(x(`//*[@data-testid="iam-policy-editor-problem"][contains(., "Line 3, column")][contains(., "not valid JSON")]`)),
	)
	shoot("iam-policy-bad")
	// Saving is refused while the document has an error.
	browsertest.Step(t, ctx, "save refused", 20*time.Second,
		browsertest.Click("iam-policy-save"),
		chromedp.WaitVisible(browsertest.T("iam-policy-editor-problem")),
	)
	if js[bool](t, ctx, `!!document.querySelector('[data-testid="iam-policies"]')`) {
		t.Fatal("a policy with an error was saved")
	}
	browsertest.Step(t, ctx, "fixed and saved", 20*time.Second,
		browsertest.Type("iam-policy-editor", good),
		chromedp.WaitVisible(browsertest.T("iam-policy-editor-valid")),
		browsertest.Click("iam-policy-save"),
		chromedp.WaitVisible(x(`//*[@data-testid="iam-policies"]//td[normalize-space(.)="read-reports"]`)),
		chromedp.SetValue(browsertest.T("iam-attach-policy"), "read-reports"),
		browsertest.Type("iam-attach-to", "alice"),
		browsertest.Click("iam-attach-submit"),
		chromedp.WaitVisible(x(`//*[@data-testid="iam-policies"]//tr[td[normalize-space(.)="read-reports"]]/td[normalize-space(.)="1"]`)),
	)
	shoot("iam-policies")
	if err := read(); err != nil {
		t.Fatalf("alice after the attachment: %v", err)
	}
	browsertest.Step(t, ctx, "why may alice read?", 20*time.Second,
		browsertest.Click("nav-iam-explain"),
		browsertest.Type("explain-user", "alice"),
		browsertest.Type("explain-action", "s3:GetObject"),
		browsertest.Type("explain-resource", "reports/q1.csv"),
		browsertest.Click("explain-submit"),
		chromedp.WaitVisible(x(`//*[@data-testid="explain-decision"][normalize-space(.)="allowed"]`)),
		chromedp.WaitVisible(x(`//*[@data-testid="explain-statement"][contains(., "ReadReports")][contains(., "managed policy arn:aws:iam::acme:policy/read-reports (v1)")]`)),
	)
	shoot("iam-explain")
	browsertest.Step(t, ctx, "and why may she not delete?", 20*time.Second,
		browsertest.Type("explain-action", "s3:DeleteObject"),
		browsertest.Click("explain-submit"),
		chromedp.WaitVisible(x(`//*[@data-testid="explain-decision"][normalize-space(.)="implicitDeny"]`)),
		chromedp.WaitVisible(browsertest.T("explain-none")),
	)
}
