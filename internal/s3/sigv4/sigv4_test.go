package sigv4

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

const (
	testAK     = "AKIAIOSFODNN7EXAMPLE"
	testSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
)

func lookup(ctx context.Context, ak string) (string, error) {
	if ak != testAK {
		return "", fmt.Errorf("%w: %s", ErrUnknownKey, ak)
	}
	return testSecret, nil
}

var creds = aws.Credentials{AccessKeyID: testAK, SecretAccessKey: testSecret}

// signer is the SDK's signer as its S3 client configures it: S3 paths are
// escaped once, not twice.
func signer() *v4.Signer {
	return v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })
}

// serverRequest turns a client request into what a server handler sees.
func serverRequest(t *testing.T, req *http.Request) *http.Request {
	t.Helper()
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
	}
	sr := httptest.NewRequest(req.Method, req.URL.String(), bytes.NewReader(body))
	sr.Header = req.Header.Clone()
	sr.Host = req.URL.Host
	return sr
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("error = %v, want %s", err, code)
	}
}

func signedPut(t *testing.T, body []byte, at time.Time, tamper func(*http.Request)) *http.Request {
	t.Helper()
	req, _ := http.NewRequest("PUT", "http://s3.example.com/bucket/some%20key/%E2%82%AC?tagging=&x=a%2Fb", bytes.NewReader(body))
	h := sha256.Sum256(body)
	hash := hex.EncodeToString(h[:])
	req.Header.Set("X-Amz-Content-Sha256", hash)
	req.Header.Set("X-Amz-Meta-Color", "  blue   and  green ")
	if err := signer().SignHTTP(context.Background(), creds, req, hash, "s3", "eu-west-3", at); err != nil {
		t.Fatal(err)
	}
	if tamper != nil {
		tamper(req)
	}
	return serverRequest(t, req)
}

// Requests signed by the AWS SDK's own signer verify; any change to what
// was signed fails with the error AWS returns.
func TestHeaderSignedBySDK(t *testing.T) {
	now := time.Now().UTC()
	body := []byte("hello, world")
	a, err := Verify(context.Background(), signedPut(t, body, now, nil), lookup, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(a.Body)
	if err != nil || !bytes.Equal(got, body) || a.AccessKey != testAK || a.DecodedLength != -1 {
		t.Fatalf("body %q err %v auth %+v", got, err, a)
	}

	cases := map[string]struct {
		tamper func(*http.Request)
		at     time.Time
		code   string
	}{
		"header": {func(r *http.Request) { r.Header.Set("X-Amz-Meta-Color", "red") }, now, "SignatureDoesNotMatch"},
		"path":   {func(r *http.Request) { r.URL.Path = "/bucket/other" }, now, "SignatureDoesNotMatch"},
		"query":  {func(r *http.Request) { r.URL.RawQuery = "tagging=&x=b" }, now, "SignatureDoesNotMatch"},
		"method": {func(r *http.Request) { r.Method = "POST" }, now, "SignatureDoesNotMatch"},
		"unknown key": {func(r *http.Request) {
			r.Header.Set("Authorization", strings.Replace(r.Header.Get("Authorization"), testAK, "AKIDNOPE", 1))
		}, now, "InvalidAccessKeyId"},
		"skew":      {nil, now.Add(-16 * time.Minute), "RequestTimeTooSkewed"},
		"no sha256": {func(r *http.Request) { r.Header.Del("X-Amz-Content-Sha256") }, now, "InvalidRequest"},
		"malformed": {func(r *http.Request) { r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=x") }, now, "AuthorizationHeaderMalformed"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Verify(context.Background(), signedPut(t, body, c.at, c.tamper), lookup, Options{})
			wantCode(t, err, c.code)
		})
	}
}

// A body that does not hash to the signed x-amz-content-sha256 fails at
// its end, and never reads as good.
func TestPayloadHashMismatch(t *testing.T) {
	r := signedPut(t, []byte("the body"), time.Now(), nil)
	r.Body = io.NopCloser(strings.NewReader("the bodY"))
	a, err := Verify(context.Background(), r, lookup, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(a.Body)
	wantCode(t, err, "XAmzContentSHA256Mismatch")
}

func TestPresignedBySDK(t *testing.T) {
	ctx := context.Background()
	now := time.Now().UTC()
	presign := func(at time.Time, expires string) *http.Request {
		req, _ := http.NewRequest("GET", "http://s3.example.com/bucket/a%2Bb.txt?X-Amz-Expires="+expires+"&response-content-type=text%2Fplain", nil)
		u, _, err := signer().PresignHTTP(ctx, creds, req, "UNSIGNED-PAYLOAD", "s3", "us-east-1", at)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := http.NewRequest("GET", u, nil)
		return serverRequest(t, out)
	}
	if _, err := Verify(ctx, presign(now, "300"), lookup, Options{}); err != nil {
		t.Fatal(err)
	}
	// Presigned URLs outlive the skew window until they expire.
	if _, err := Verify(ctx, presign(now.Add(-time.Hour), "7200"), lookup, Options{}); err != nil {
		t.Fatalf("an hour-old URL valid for two: %v", err)
	}
	_, err := Verify(ctx, presign(now.Add(-10*time.Minute), "300"), lookup, Options{})
	wantCode(t, err, "AccessDenied")
	_, err = Verify(ctx, presign(now, "604801"), lookup, Options{})
	wantCode(t, err, "AuthorizationQueryParametersError")
	r := presign(now, "300")
	r.URL.RawQuery = strings.Replace(r.URL.RawQuery, "text%2Fplain", "text%2Fhtml", 1)
	_, err = Verify(ctx, r, lookup, Options{})
	wantCode(t, err, "SignatureDoesNotMatch")
}

func TestAnonymous(t *testing.T) {
	r := httptest.NewRequest("GET", "http://s3.example.com/bucket/key?x=1", nil)
	if _, err := Verify(context.Background(), r, lookup, Options{}); !errors.Is(err, ErrNoAuth) {
		t.Fatalf("error = %v, want ErrNoAuth", err)
	}
	r.Header.Set("Authorization", "Bearer xyz")
	_, err := Verify(context.Background(), r, lookup, Options{})
	wantCode(t, err, "InvalidArgument")
}
