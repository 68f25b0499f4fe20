package redact_test

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/ostiumio/ostium/internal/redact"
)

// Each credential is masked where it appears; what names the caller and
// the request stays.
func TestString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/b/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKID%2F20261127%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20261127T000000Z&X-Amz-Expires=60&X-Amz-SignedHeaders=host&X-Amz-Signature=0123abcd",
			"/b/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKID%2F20261127%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20261127T000000Z&X-Amz-Expires=60&X-Amz-SignedHeaders=host&X-Amz-Signature=REDACTED"},
		{"/b/k?AWSAccessKeyId=AKID&Expires=1700000000&Signature=abc%2Bdef%3D", "/b/k?AWSAccessKeyId=AKID&Expires=1700000000&Signature=REDACTED"},
		{"/b/k?x-amz-security-token=tok&versionId=v", "/b/k?x-amz-security-token=REDACTED&versionId=v"},
		{"GET /b/k?x-amz-server-side-encryption-customer-key=a2V5&x-amz-server-side-encryption-customer-key-MD5=bWQ1 HTTP/1.1",
			"GET /b/k?x-amz-server-side-encryption-customer-key=REDACTED&x-amz-server-side-encryption-customer-key-MD5=bWQ1 HTTP/1.1"},
		{"AWS4-HMAC-SHA256 Credential=AKID/20261127/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature=fe5f80f7",
			"AWS4-HMAC-SHA256 Credential=AKID/20261127/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature=REDACTED"},
		{"AWS AKID:c2lnbmF0dXJl", "AWS AKID:REDACTED"},
		{"X-Amz-Copy-Source-Server-Side-Encryption-Customer-Key: a2V5", "X-Amz-Copy-Source-Server-Side-Encryption-Customer-Key: REDACTED"},
		{"/b/photo.jpg?versionId=3&partNumber=2", "/b/photo.jpg?versionId=3&partNumber=2"},
		// A name with characters percent-encoded is the same parameter
		// to the server, which decodes names before reading them.
		{"/b/k?X-Amz-Credential=AKID%2F1&X-Amz-%53ignature=0123abcd&x=1", "/b/k?X-Amz-Credential=AKID%2F1&X-Amz-%53ignature=REDACTED&x=1"},
		{"/b/k?%53ignature=abc%2B&Expires=1", "/b/k?%53ignature=REDACTED&Expires=1"},
		{"/b/k?x-amz-security-%74oken=tok", "/b/k?x-amz-security-%74oken=REDACTED"},
		{"/b/k?x-amz-server-side-encryption-customer-key%2DMD5=bWQ1", "/b/k?x-amz-server-side-encryption-customer-key%2DMD5=bWQ1"},
		{"/b/100%25.txt?versionId=3", "/b/100%25.txt?versionId=3"},
		{"/?Action=AssumeRoleWithLDAPIdentity&LDAPPassword=s3cret&LDAPUsername=acme%5Cbob&Version=2011-06-15",
			"/?Action=AssumeRoleWithLDAPIdentity&LDAPPassword=REDACTED&LDAPUsername=acme%5Cbob&Version=2011-06-15"},
	} {
		if got := redact.String(tc.in); got != tc.want {
			t.Errorf("String(%q)\n = %q\nwant %q", tc.in, got, tc.want)
		}
	}
	h := http.Header{"X-Amz-Server-Side-Encryption-Customer-Key": {"a2V5LW9mLTMyLWJ5dGVzLWluLWJhc2U2NA=="}, "X-Amz-Security-Token": {"tok"}}
	if got := redact.String(strings.TrimSpace(fmtHeader(h))); strings.Contains(got, "a2V5") || strings.Contains(got, "tok]") {
		t.Errorf("printed header keeps its secrets: %s", got)
	}
}

func fmtHeader(h http.Header) string {
	var b bytes.Buffer
	h.Write(&b)
	return b.String()
}

// The handler masks every attribute, in groups and errors too.
func TestHandler(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(redact.Handler(slog.NewJSONHandler(&buf, nil)))
	log.With("url", "/b?X-Amz-Signature=s1").Error("panic: GET /b?Signature=s2",
		"err", errors.New("bad request /x?X-Amz-Security-Token=s3"), slog.Group("req", "authz", "AWS AK:s4"))
	out := buf.String()
	for _, s := range []string{"s1", "s2", "s3", "s4"} {
		if strings.Contains(out, s) {
			t.Errorf("%s logged: %s", s, out)
		}
	}
	if strings.Count(out, redact.Mask) != 4 {
		t.Errorf("want 4 masks: %s", out)
	}
}
