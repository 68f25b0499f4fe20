package s3_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// echoService answers a query-protocol call with what it was given: the
// caller and the form's Action.
type echoService struct{ name string }

func (e echoService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	who := "anonymous"
	if id := iam.IdentityOf(r.Context()); id != nil {
		who = id.AccessKey
	}
	fmt.Fprintf(w, "%s %s %s", e.name, who, r.PostForm.Get("Action"))
}

// signedForm POSTs form to the endpoint's root signed as the SDKs sign
// IAM and STS calls: V4 for service, the payload's hash signed but sent
// only to S3.
func signedForm(t *testing.T, srv *nodetest.Server, service, form string, tamper bool) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/", strings.NewReader(form))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	sum := sha256.Sum256([]byte(form))
	if service == "s3" {
		req.Header.Set("X-Amz-Content-Sha256", hex.EncodeToString(sum[:]))
	}
	creds := aws.Credentials{AccessKeyID: nodetest.AccessKey, SecretAccessKey: nodetest.SecretKey}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, hex.EncodeToString(sum[:]), service, "us-east-1", time.Now()); err != nil {
		t.Fatal(err)
	}
	if tamper {
		req.Body = io.NopCloser(strings.NewReader(form + "&Extra=1"))
		req.ContentLength += int64(len("&Extra=1"))
	}
	code, _, body := send(t, srv, req)
	return code, string(body)
}

// TestQueryAPIServices: a form POSTed to "/" goes to the service its
// signature names, with the signer's identity; a signature for S3, for a
// service not served, or over another body never reaches one.
func TestQueryAPIServices(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	srv.Node.S3.Serve("iam", echoService{"iam"})
	srv.Node.S3.Serve("sts", echoService{"sts"})
	form := url.Values{"Action": {"ListUsers"}, "Version": {"2010-05-08"}}.Encode()

	if code, body := signedForm(t, srv, "iam", form, false); code != 200 || body != "iam "+nodetest.AccessKey+" ListUsers" {
		t.Errorf("signed for iam: %d %q", code, body)
	}
	if code, body := signedForm(t, srv, "sts", form, false); code != 200 || !strings.HasPrefix(body, "sts "+nodetest.AccessKey) {
		t.Errorf("signed for sts: %d %q", code, body)
	}
	// S3 has no POST on the service root, as AWS answers.
	if code, body := signedForm(t, srv, "s3", form, false); code != http.StatusMethodNotAllowed || !strings.Contains(body, "MethodNotAllowed") {
		t.Errorf("signed for s3: %d %q", code, body)
	}
	if code, body := signedForm(t, srv, "ec2", form, false); code != http.StatusBadRequest || !strings.Contains(body, "AuthorizationHeaderMalformed") {
		t.Errorf("signed for ec2: %d %q", code, body)
	}
	if code, body := signedForm(t, srv, "iam", form, true); code != http.StatusForbidden || !strings.Contains(body, "SignatureDoesNotMatch") {
		t.Errorf("body changed after signing: %d %q", code, body)
	}
	// Unsigned calls go to STS, which decides which of its actions need
	// no signature.
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/", strings.NewReader("Action=AssumeRoleWithWebIdentity"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if code, _, body := send(t, srv, req); code != 200 || string(body) != "sts anonymous AssumeRoleWithWebIdentity" {
		t.Errorf("unsigned: %d %q", code, body)
	}
	// A body past the bound is refused before it is verified.
	big := form + "&Pad=" + strings.Repeat("a", 1<<20)
	if code, body := signedForm(t, srv, "iam", big, false); code != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized form: %d %.200q", code, body)
	}
}
