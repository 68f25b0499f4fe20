package s3_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ostiumio/ostium/internal/node/nodetest"
)

func putCors(c *s3.Client, bucket string, rules ...types.CORSRule) error {
	_, err := c.PutBucketCors(context.Background(), &s3.PutBucketCorsInput{Bucket: &bucket,
		CORSConfiguration: &types.CORSConfiguration{CORSRules: rules}})
	return err
}

// Put/Get/DeleteBucketCors with the SDK: the rules come back as sent, a
// bucket without any answers 404 NoSuchCORSConfiguration, and what AWS
// refuses is refused with AWS's code.
func TestBucketCorsConfig(t *testing.T) {
	c, bucket, srv := setup(t)
	ctx := context.Background()
	_, err := c.GetBucketCors(ctx, &s3.GetBucketCorsInput{Bucket: &bucket})
	wantCode(t, err, "NoSuchCORSConfiguration")

	rules := []types.CORSRule{
		{ID: aws.String("uploads"), AllowedOrigins: []string{"https://app.example", "https://*.example.org"},
			AllowedMethods: []string{"PUT", "POST"}, AllowedHeaders: []string{"x-amz-*", "Content-Type"},
			ExposeHeaders: []string{"ETag"}, MaxAgeSeconds: aws.Int32(600)},
		{AllowedOrigins: []string{"*"}, AllowedMethods: []string{"GET", "HEAD"}},
	}
	if err := putCors(c, bucket, rules...); err != nil {
		t.Fatal(err)
	}
	got, err := c.GetBucketCors(ctx, &s3.GetBucketCorsInput{Bucket: &bucket})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.CORSRules) != 2 {
		t.Fatalf("rules: %+v", got.CORSRules)
	}
	r0, r1 := got.CORSRules[0], got.CORSRules[1]
	if aws.ToString(r0.ID) != "uploads" || strings.Join(r0.AllowedOrigins, ",") != "https://app.example,https://*.example.org" ||
		strings.Join(r0.AllowedMethods, ",") != "PUT,POST" || strings.Join(r0.AllowedHeaders, ",") != "x-amz-*,Content-Type" ||
		strings.Join(r0.ExposeHeaders, ",") != "ETag" || aws.ToInt32(r0.MaxAgeSeconds) != 600 {
		t.Errorf("rule 0: %+v", r0)
	}
	if r1.ID != nil || r1.MaxAgeSeconds != nil || len(r1.AllowedHeaders) != 0 || strings.Join(r1.AllowedMethods, ",") != "GET,HEAD" {
		t.Errorf("rule 1: %+v", r1)
	}

	// AWS's refusals (LocalStack's and versitygw's recordings of S3).
	wantCode(t, putCors(c, bucket, types.CORSRule{AllowedOrigins: []string{"*"}, AllowedMethods: []string{"OPTIONS"}}), "InvalidRequest")
	wantCode(t, putCors(c, bucket, types.CORSRule{AllowedOrigins: []string{"*a*"}, AllowedMethods: []string{"GET"}}), "InvalidRequest")
	wantCode(t, putCors(c, bucket, types.CORSRule{AllowedOrigins: []string{"*"}, AllowedMethods: []string{"GET"}, AllowedHeaders: []string{"*-*"}}), "InvalidRequest")
	// What the SDK would not send, sent by hand.
	for _, doc := range []string{
		`<CORSConfiguration><CORSRule><AllowedMethod>GET</AllowedMethod></CORSRule></CORSConfiguration>`,
		`<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin></CORSRule></CORSConfiguration>`,
		`<CORSConfiguration></CORSConfiguration>`,
		`<CORSConfiguration><CORSRule>`,
		`<Other/>`,
	} {
		h := http.Header{"Content-Md5": {md5b64([]byte(doc))}}
		if st, code, body := send(t, srv, signedRequest(t, srv, "PUT", "/"+bucket+"?cors", []byte(doc), h)); st != 400 || code != "MalformedXML" {
			t.Errorf("%s: %d %s %s", doc, st, code, body)
		}
	}
	many := make([]types.CORSRule, 101)
	for i := range many {
		many[i] = types.CORSRule{AllowedOrigins: []string{"*"}, AllowedMethods: []string{"GET"}}
	}
	wantCode(t, putCors(c, bucket, many...), "InvalidRequest")
	if err := putCors(c, bucket, many[:100]...); err != nil {
		t.Fatalf("100 rules: %v", err)
	}

	if _, err := c.DeleteBucketCors(ctx, &s3.DeleteBucketCorsInput{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetBucketCors(ctx, &s3.GetBucketCorsInput{Bucket: &bucket})
	wantCode(t, err, "NoSuchCORSConfiguration")
	// Deleting again is no error, as AWS.
	if _, err := c.DeleteBucketCors(ctx, &s3.DeleteBucketCorsInput{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
}

// PutBucketCors requires a digest of its body, as AWS: Content-MD5 or a
// checksum (the SDKs send a CRC32); with neither it is 400
// InvalidRequest, and one that does not match is BadDigest.
func TestBucketCorsDigestRequired(t *testing.T) {
	_, srv := nodeWithBucket(t, nodetest.Options{}, "dgst")
	doc := []byte(`<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod></CORSRule></CORSConfiguration>`)
	st, code, body := send(t, srv, signedRequest(t, srv, "PUT", "/dgst?cors", doc, nil))
	if st != 400 || code != "InvalidRequest" || !bytes.Contains(body, []byte("Content-MD5")) {
		t.Fatalf("no digest: %d %s %s", st, code, body)
	}
	h := http.Header{"Content-Md5": {"1B2M2Y8AsgTpgAmY7PhCfg=="}} // MD5 of nothing
	if st, code, body := send(t, srv, signedRequest(t, srv, "PUT", "/dgst?cors", doc, h)); st != 400 || code != "BadDigest" {
		t.Fatalf("wrong digest: %d %s %s", st, code, body)
	}
	h = http.Header{"Content-Md5": {md5b64(doc)}}
	if st, code, body := send(t, srv, signedRequest(t, srv, "PUT", "/dgst?cors", doc, h)); st != 200 {
		t.Fatalf("with Content-MD5: %d %s %s", st, code, body)
	}
}

// options sends an unsigned preflight.
func options(t *testing.T, srv *nodetest.Server, path string, h map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("OPTIONS", srv.URL+path, nil)
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

type corsErrorDoc struct {
	Code, Message, Method, ResourceType string
}

func corsErr(body string) corsErrorDoc {
	var e corsErrorDoc
	_ = xml.Unmarshal([]byte(body), &e)
	return e
}

// Preflights are answered without a signature by the first matching
// rule, with the statuses, codes and messages AWS answers (as recorded
// against S3 by LocalStack's validated tests and ceph s3-tests).
func TestCorsPreflight(t *testing.T) {
	c, bucket, srv := setup(t)
	obj := "/" + bucket + "/photos/a.jpg"
	origin := map[string]string{"Origin": "https://app.example"}

	// No Origin: 400, whatever the bucket.
	resp, body := options(t, srv, obj, nil)
	if e := corsErr(body); resp.StatusCode != 400 || e.Code != "BadRequest" || e.Message != "Insufficient information. Origin request header needed." {
		t.Fatalf("no origin: %d %s", resp.StatusCode, body)
	}
	// A bucket that does not exist: 403, as AWS (not 404).
	resp, body = options(t, srv, "/no-such-bucket/k", map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "GET"})
	if e := corsErr(body); resp.StatusCode != 403 || e.Code != "AccessForbidden" || e.Message != "CORSResponse: Bucket not found" || e.Method != "GET" {
		t.Fatalf("no bucket: %d %s", resp.StatusCode, body)
	}
	// No configuration: 403, Method OPTIONS when none was asked.
	resp, body = options(t, srv, obj, origin)
	if e := corsErr(body); resp.StatusCode != 403 || e.Code != "AccessForbidden" || e.Message != "CORSResponse: CORS is not enabled for this bucket." ||
		e.Method != "OPTIONS" || e.ResourceType != "BUCKET" {
		t.Fatalf("no configuration: %d %s", resp.StatusCode, body)
	}

	if err := putCors(c, bucket,
		types.CORSRule{AllowedOrigins: []string{"https://app.example"}, AllowedMethods: []string{"GET", "PUT"},
			AllowedHeaders: []string{"x-amz-*", "content-type"}, ExposeHeaders: []string{"ETag", "x-amz-request-id"}, MaxAgeSeconds: aws.Int32(3000)},
		types.CORSRule{AllowedOrigins: []string{"http://*.example.org"}, AllowedMethods: []string{"GET"}},
		types.CORSRule{AllowedOrigins: []string{"*"}, AllowedMethods: []string{"HEAD"}},
	); err != nil {
		t.Fatal(err)
	}
	// Origin without a method: 400.
	resp, body = options(t, srv, obj, origin)
	if e := corsErr(body); resp.StatusCode != 400 || e.Code != "BadRequest" {
		t.Fatalf("no method: %d %s", resp.StatusCode, body)
	}
	// Allowed: the first matching rule's headers, requested headers in
	// lower case, no body.
	resp, body = options(t, srv, obj, map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "PUT",
		"Access-Control-Request-Headers": "X-Amz-Date,Content-Type, x-amz-content-sha256"})
	want := map[string]string{
		"Access-Control-Allow-Origin":      "https://app.example",
		"Access-Control-Allow-Credentials": "true",
		"Access-Control-Allow-Methods":     "GET, PUT",
		"Access-Control-Allow-Headers":     "x-amz-date, content-type, x-amz-content-sha256",
		"Access-Control-Expose-Headers":    "ETag, x-amz-request-id",
		"Access-Control-Max-Age":           "3000",
		"Vary":                             "Origin, Access-Control-Request-Headers, Access-Control-Request-Method",
	}
	if resp.StatusCode != 200 || body != "" {
		t.Fatalf("allowed: %d %q", resp.StatusCode, body)
	}
	for k, v := range want {
		if got := resp.Header.Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	// A wildcard origin, on the bucket itself.
	resp, _ = options(t, srv, "/"+bucket, map[string]string{"Origin": "http://shop.example.org", "Access-Control-Request-Method": "GET"})
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "http://shop.example.org" || resp.Header.Get("Access-Control-Max-Age") != "" {
		t.Fatalf("wildcard origin: %d %v", resp.StatusCode, resp.Header)
	}
	// A rule of any origin answers "*", without credentials.
	resp, _ = options(t, srv, obj, map[string]string{"Origin": "https://elsewhere.test", "Access-Control-Request-Method": "HEAD"})
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "*" || resp.Header.Get("Access-Control-Allow-Credentials") != "" {
		t.Fatalf("any origin: %d %v", resp.StatusCode, resp.Header)
	}
	// Refused: an origin, a method or a header no rule allows.
	for _, h := range []map[string]string{
		{"Origin": "https://evil.example", "Access-Control-Request-Method": "PUT"},
		{"Origin": "https://app.example", "Access-Control-Request-Method": "DELETE"},
		{"Origin": "https://APP.example", "Access-Control-Request-Method": "GET"},
		{"Origin": "http://shop.example.org", "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "x-amz-date"},
	} {
		resp, body := options(t, srv, obj, h)
		e := corsErr(body)
		if resp.StatusCode != 403 || e.Code != "AccessForbidden" || !strings.HasPrefix(e.Message, "CORSResponse: This CORS request is not allowed.") ||
			e.Method != h["Access-Control-Request-Method"] || e.ResourceType != "OBJECT" {
			t.Errorf("%v: %d %s", h, resp.StatusCode, body)
		}
		if resp.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("%v: refused with CORS headers", h)
		}
	}
	// A signature, even a wrong one, is not looked at.
	resp, _ = options(t, srv, obj, map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "GET",
		"Authorization": "AWS4-HMAC-SHA256 Credential=nobody/20260101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00"})
	if resp.StatusCode != 200 {
		t.Fatalf("signed preflight: %d", resp.StatusCode)
	}
}

// A browser's actual requests (with Origin) get the first matching
// rule's headers on their answers, errors included, as AWS; one that no
// rule allows, or without Origin, gets none (the browser refuses it).
func TestCorsActualRequests(t *testing.T) {
	c, bucket, srv := setup(t)
	put(t, c, bucket, "k", []byte("data"))
	if err := putCors(c, bucket,
		types.CORSRule{AllowedOrigins: []string{"https://app.example"}, AllowedMethods: []string{"GET", "PUT"}, ExposeHeaders: []string{"ETag"}},
	); err != nil {
		t.Fatal(err)
	}
	do := func(req *http.Request) *http.Response {
		t.Helper()
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	signed := func(method, path string, body []byte, origin string) *http.Request {
		h := http.Header{}
		if origin != "" {
			h.Set("Origin", origin)
		}
		return signedRequest(t, srv, method, path, body, h)
	}
	for _, tc := range []struct {
		name   string
		req    *http.Request
		status int
		cors   bool
	}{
		{"signed GET from the origin", signed("GET", "/"+bucket+"/k", nil, "https://app.example"), 200, true},
		{"signed PUT from the origin", signed("PUT", "/"+bucket+"/k2", []byte("x"), "https://app.example"), 200, true},
		{"missing key from the origin", signed("GET", "/"+bucket+"/nope", nil, "https://app.example"), 404, true},
		{"DELETE: no rule allows the method", signed("DELETE", "/"+bucket+"/k2", nil, "https://app.example"), 204, false},
		{"another origin", signed("GET", "/"+bucket+"/k", nil, "https://evil.example"), 200, false},
		{"no origin", signed("GET", "/"+bucket+"/k", nil, ""), 200, false},
	} {
		resp := do(tc.req)
		if resp.StatusCode != tc.status {
			t.Errorf("%s: status %d", tc.name, resp.StatusCode)
		}
		got := resp.Header.Get("Access-Control-Allow-Origin")
		if tc.cors && (got != "https://app.example" || resp.Header.Get("Access-Control-Expose-Headers") != "ETag" ||
			resp.Header.Get("Access-Control-Allow-Methods") != "GET, PUT" || resp.Header.Get("Vary") == "") {
			t.Errorf("%s: CORS headers missing: %v", tc.name, resp.Header)
		}
		if !tc.cors && (got != "" || resp.Header.Get("Vary") != "") {
			t.Errorf("%s: CORS headers given: %v", tc.name, resp.Header)
		}
	}
	// Refusals carry them too: an anonymous GET (403) and a bad
	// signature (403 before any handler runs).
	anon, _ := http.NewRequest("GET", srv.URL+"/"+bucket+"/k", nil)
	anon.Header.Set("Origin", "https://app.example")
	if resp := do(anon); resp.StatusCode != 403 || resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example" {
		t.Errorf("anonymous: %d %v", resp.StatusCode, resp.Header)
	}
	bad := signed("GET", "/"+bucket+"/k", nil, "https://app.example")
	bad.Header.Set("Authorization", strings.Replace(bad.Header.Get("Authorization"), "Signature=", "Signature=00", 1))
	if resp := do(bad); resp.StatusCode != 403 || resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example" {
		t.Errorf("bad signature: %d %v", resp.StatusCode, resp.Header)
	}
	// The SDK's own requests are unaffected (no Origin).
	if _, err := c.HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: &bucket, Key: aws.String("k")}); err != nil {
		t.Fatal(err)
	}
}

func md5b64(b []byte) string {
	s := md5.Sum(b)
	return base64.StdEncoding.EncodeToString(s[:])
}

// A preflight is answered at once without reading a body it declares:
// a client that never sends it holds nothing, and the connection is
// closed after the answer rather than drained.
func TestCorsPreflightReadsNoBody(t *testing.T) {
	c, srv := nodeWithBucket(t, nodetest.Options{}, "nobody")
	if err := putCors(c, "nobody", types.CORSRule{AllowedOrigins: []string{"*"}, AllowedMethods: []string{"GET"}}); err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(conn, "OPTIONS /nobody/k HTTP/1.1\r\nHost: %s\r\nOrigin: https://a.example\r\nAccess-Control-Request-Method: GET\r\nContent-Length: 100000\r\n\r\n", srv.Listener.Addr())
	start := time.Now()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "*" || !resp.Close {
		t.Fatalf("%d %v close=%v", resp.StatusCode, resp.Header, resp.Close)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("answered after %v", d)
	}
}
