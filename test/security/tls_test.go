package security_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// tlsOnly denies every action on the bucket to requests that did not
// arrive over TLS: AWS's documented way to require HTTPS.
const tlsOnly = `{"Version":"2012-10-17","Statement":[{"Sid":"TLSOnly","Effect":"Deny","Principal":"*","Action":"s3:*",
 "Resource":["arn:aws:s3:::%[1]s","arn:aws:s3:::%[1]s/*"],"Condition":{"Bool":{"aws:SecureTransport":"false"}}}]}`

// sendTo signs (SigV4, headers in h unsigned unless x-amz-*) and sends a
// request to base through hc; it returns the status and body.
func sendTo(t *testing.T, hc *http.Client, base string, c creds, method, path string, body []byte, h http.Header) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, base+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])
	req.Header.Set("X-Amz-Content-Sha256", hash)
	if err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: c.AccessKey, SecretAccessKey: c.SecretKey},
		req, hash, "s3", "us-east-1", time.Now()); err != nil {
		t.Fatal(err)
	}
	for k, vs := range h { // after signing: a balancer adds these on the way
		req.Header[http.CanonicalHeaderKey(k)] = vs
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// policyBucket creates bucket with one object and the TLS-only policy,
// as u over hc (which must be TLS, or the policy is put last).
func policyBucket(t *testing.T, hc *http.Client, base string, u creds, bucket string) {
	t.Helper()
	for _, step := range []struct {
		path string
		body string
	}{{"/" + bucket, ""}, {"/" + bucket + "/k", "secret"}, {"/" + bucket + "?policy", strings.ReplaceAll(tlsOnly, "%[1]s", bucket)}} {
		if st, b := sendTo(t, hc, base, u, "PUT", step.path, []byte(step.body), nil); st != 200 && st != 204 {
			t.Fatalf("PUT %s: %d %s", step.path, st, b)
		}
	}
}

// aws:SecureTransport is true over the node's own TLS, and behind a
// trusted balancer when its X-Forwarded-Proto (the last value: the one
// the nearest balancer set) says https; never from anyone else's header.
// A bucket policy denying non-TLS requests (AWS's pattern for requiring
// HTTPS) tells which.
func TestSecureTransportFromTLSOrTrustedBalancer(t *testing.T) {
	direct := start(t, nodetest.Options{})
	u := newUser(t, direct, "acme", "ann", "admin")
	policyBucket(t, direct.Client(), direct.URL, u, "acme-tls")
	// The same catalog behind a balancer on 127.0.0.1.
	behind := nodetest.StartPeer(t, direct, nodetest.Options{Config: func(c *node.Config) { c.TrustedProxies = []string{"127.0.0.1"} }})

	for _, tc := range []struct {
		name  string
		srv   *nodetest.Server
		proto []string
		want  int
	}{
		{"plain HTTP", direct, nil, 403},
		{"untrusted peer claims https", direct, []string{"https"}, 403},
		{"trusted balancer, no header", behind, nil, 403},
		{"trusted balancer says http", behind, []string{"http"}, 403},
		{"trusted balancer says https", behind, []string{"https"}, 200},
		{"client's https before the balancer's http", behind, []string{"https, http"}, 403},
		{"client's https header before the balancer's http header", behind, []string{"https", "http"}, 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h http.Header
			if tc.proto != nil {
				h = http.Header{"X-Forwarded-Proto": tc.proto}
			}
			st, b := sendTo(t, tc.srv.Client(), tc.srv.URL, u, "GET", "/acme-tls/k", nil, h)
			if tc.want == 403 {
				wantError(t, st, b, 403, "AccessDenied")
			} else if st != tc.want || string(b) != "secret" {
				t.Fatalf("got %d %s, want %d", st, b, tc.want)
			}
		})
	}

	// Over the node's own TLS (serve --tls-listen), with a private CA.
	srv := nodetest.StartHTTPS(t, nodetest.Options{}, time.Hour)
	hc := srv.Client()
	a := admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, hc)
	ctx := context.Background()
	if err := a.Do(ctx, "POST", "/tenants", map[string]string{"name": "acme"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := a.Do(ctx, "POST", "/tenants/acme/users", map[string]string{"name": "ann", "role": "admin"}, nil); err != nil {
		t.Fatal(err)
	}
	var k admin.Key
	if err := a.Do(ctx, "POST", "/tenants/acme/users/ann/keys", nil, &k); err != nil {
		t.Fatal(err)
	}
	ut := creds{k.AccessKey, k.SecretKey}
	policyBucket(t, hc, srv.URL, ut, "acme-tls")
	cl := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true, HTTPClient: hc,
		Credentials: credentials.NewStaticCredentialsProvider(ut.AccessKey, ut.SecretKey, "")})
	out, err := cl.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("acme-tls"), Key: aws.String("k")})
	if err != nil {
		t.Fatalf("GetObject over TLS under a TLS-only policy: %v", err)
	}
	b, _ := io.ReadAll(out.Body)
	out.Body.Close()
	if string(b) != "secret" {
		t.Fatalf("GetObject over TLS: %q", b)
	}
}

// TLS 1.0 and 1.1 are refused, and so are TLS 1.2's suites without
// forward secrecy or without AEAD; 1.2 with ECDHE and GCM, and 1.3, work.
func TestTLSBelow12AndWeakSuitesRefused(t *testing.T) {
	srv := nodetest.StartHTTPS(t, nodetest.Options{}, time.Hour)
	addr := srv.Listeners.HTTPS.Addr().String()
	dial := func(c *tls.Config) error {
		c.RootCAs, c.ServerName = srv.CA.Pool, "localhost"
		conn, err := tls.Dial("tcp", addr, c)
		if err == nil {
			conn.Close()
		}
		return err
	}
	for name, c := range map[string]*tls.Config{
		"TLS 1.0": {MinVersion: tls.VersionTLS10, MaxVersion: tls.VersionTLS10},
		"TLS 1.1": {MinVersion: tls.VersionTLS10, MaxVersion: tls.VersionTLS11},
		"TLS 1.2 CBC": {MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{
			tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA, tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256}},
		"TLS 1.2 without ECDHE": {MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{
			tls.TLS_RSA_WITH_AES_128_GCM_SHA256, tls.TLS_RSA_WITH_AES_256_GCM_SHA384}},
	} {
		if err := dial(c); err == nil {
			t.Errorf("%s: handshake succeeded", name)
		}
	}
	for name, c := range map[string]*tls.Config{
		"TLS 1.2 ECDHE GCM": {MinVersion: tls.VersionTLS12, MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}},
		"TLS 1.3":           {MinVersion: tls.VersionTLS13},
	} {
		if err := dial(c); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
