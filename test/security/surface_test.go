package security_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// The request surface: what a client may ask for in headers, parameters
// and documents, and how the endpoint answers what it does not do or
// what is malformed.

// surfaceNode starts a node with bucket "sec" holding "obj".
func surfaceNode(t *testing.T) *nodetest.Server {
	t.Helper()
	srv := start(t, nodetest.Options{})
	if st, b := do(t, srv, signed(t, srv, rootCreds, "PUT", "/sec", nil, nil)); st != 200 {
		t.Fatalf("create bucket: %d %s", st, b)
	}
	if st, b := do(t, srv, signed(t, srv, rootCreds, "PUT", "/sec/obj", []byte("content"), nil)); st != 200 {
		t.Fatalf("put: %d %s", st, b)
	}
	return srv
}

// rawHead writes the head of a request to conn: SigV4-signed by c with
// an UNSIGNED-PAYLOAD body of length n (anonymous when c is nil), with
// h's fields signed too.
func rawHead(t *testing.T, conn net.Conn, srv *nodetest.Server, c *creds, method, path string, n int, h http.Header) {
	t.Helper()
	req, _ := http.NewRequest(method, srv.URL+path, nil)
	for k, vs := range h {
		req.Header[http.CanonicalHeaderKey(k)] = vs
	}
	if c != nil {
		req.Header.Set("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD")
		err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: c.AccessKey, SecretAccessKey: c.SecretKey},
			req, "UNSIGNED-PAYLOAD", "s3", "us-east-1", time.Now())
		if err != nil {
			t.Fatal(err)
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n", method, path, req.Host, n)
	for k, vs := range req.Header {
		fmt.Fprintf(&b, "%s: %s\r\n", k, vs[0])
	}
	b.WriteString("\r\n")
	if _, err := conn.Write(b.Bytes()); err != nil {
		t.Fatal(err)
	}
}

// readAnswer reads one response from conn within d.
func readAnswer(t *testing.T, conn net.Conn, d time.Duration) (int, []byte) {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(d))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer within %s: %v", d, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, body
}

// Headers that ask for what Ostium does not do (dual-layer encryption,
// object lock, archive classes, ...) or that it must refuse (SSE-C over
// plain HTTP, a KMS key that does not exist) get AWS's error, and nothing
// is stored. The whole table is walked by
// internal/s3's TestHonouredTableRefusals; these are the ones a backup
// tool relies on.
func TestRefusedHeadersStoreNothing(t *testing.T) {
	srv := surfaceNode(t)
	for i, tc := range []struct {
		h          http.Header
		status     int
		code       string
		copySource bool
	}{
		{http.Header{"X-Amz-Server-Side-Encryption": {"aws:kms:dsse"}}, 501, "NotImplemented", false},
		{http.Header{"X-Amz-Server-Side-Encryption": {"aws:kms"}, "X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id": {"k"}}, 400, "KMS.NotFoundException", false},
		// SSE-C's key would cross plain HTTP in the clear: refused as AWS.
		{http.Header{"X-Amz-Server-Side-Encryption-Customer-Algorithm": {"AES256"}, "X-Amz-Server-Side-Encryption-Customer-Key": {"a2V5"}}, 400, "InvalidRequest", false},
		// Object lock asked of a bucket without it: AWS's InvalidRequest.
		{http.Header{"X-Amz-Object-Lock-Mode": {"COMPLIANCE"}, "X-Amz-Object-Lock-Retain-Until-Date": {"2030-01-01T00:00:00Z"}}, 400, "InvalidRequest", false},
		{http.Header{"X-Amz-Object-Lock-Legal-Hold": {"ON"}}, 400, "InvalidRequest", false},
		{http.Header{"X-Amz-Object-Lock-Event-Hold": {"ON"}}, 501, "NotImplemented", false},
		{http.Header{"X-Amz-Website-Redirect-Location": {"/elsewhere"}}, 501, "NotImplemented", false},
		{http.Header{"X-Amz-Storage-Class": {"GLACIER"}}, 400, "InvalidStorageClass", false},
		{http.Header{"X-Amz-Storage-Class": {"DEEP_ARCHIVE"}}, 400, "InvalidStorageClass", false},
		{http.Header{"X-Amz-Copy-Source-Server-Side-Encryption-Customer-Algorithm": {"AES256"}}, 400, "InvalidRequest", true},
	} {
		key := fmt.Sprintf("refused-%d", i)
		body := []byte("protected data")
		if tc.copySource {
			tc.h.Set("X-Amz-Copy-Source", "/sec/obj")
			body = nil
		}
		st, b := do(t, srv, signed(t, srv, rootCreds, "PUT", "/sec/"+key, body, tc.h))
		wantError(t, st, b, tc.status, tc.code)
		if exists(t, srv, "sec", key) {
			t.Fatalf("%v: object stored", tc.h)
		}
		// A multipart upload asking the same opens no upload.
		if !tc.copySource {
			st, b = do(t, srv, signed(t, srv, rootCreds, "POST", "/sec/"+key+"?uploads", nil, tc.h))
			wantError(t, st, b, tc.status, tc.code)
		}
	}
	if st, b := do(t, srv, signed(t, srv, rootCreds, "GET", "/sec?uploads", nil, nil)); st != 200 || bytes.Contains(b, []byte("<Upload>")) {
		t.Fatalf("uploads opened: %d %s", st, b)
	}
}

// An anonymous request with a document for a bucket it may not write is
// refused before its body is read: only the headers are sent, declaring
// 2 MiB, and the 403 comes at once.
func TestAnonymousBodyRefusedBeforeRead(t *testing.T) {
	srv := surfaceNode(t)
	for _, path := range []string{"/sec?delete", "/sec?policy", "/sec?acl", "/sec/obj?acl",
		"/sec/obj?uploadId=x", "/sec?ownershipControls", "/sec?publicAccessBlock", "/newbucket"} {
		method := "PUT"
		if strings.Contains(path, "delete") || strings.Contains(path, "uploadId") {
			method = "POST"
		}
		conn := dial(t, srv)
		rawHead(t, conn, srv, nil, method, path, 2<<20, http.Header{"Content-Type": {"application/xml"}})
		st, b := readAnswer(t, conn, 2*time.Second)
		wantError(t, st, b, 403, "AccessDenied")
	}
	// A tenant's user is held the same way on another tenant's bucket
	// (but for DeleteObjects, which AWS answers key by key: authz_test.go).
	u := newUser(t, srv, "other", "eve", "admin")
	conn := dial(t, srv)
	rawHead(t, conn, srv, &u, "PUT", "/sec?policy", 20<<10, nil)
	st, b := readAnswer(t, conn, 2*time.Second)
	wantError(t, st, b, 403, "AccessDenied")
	if !exists(t, srv, "sec", "obj") {
		t.Fatal("object deleted")
	}
}

// A document larger than its operation allows is refused (from its
// declared length, without reading it) as AWS: MalformedXML, or for a
// policy, MalformedPolicy.
func TestOversizedXML(t *testing.T) {
	srv := surfaceNode(t)
	for _, tc := range []struct {
		method, path, code string
		size               int
	}{
		{"POST", "/sec?delete", "MalformedXML", 3 << 20},
		{"PUT", "/sec?policy", "MalformedPolicy", 21 << 10},
		{"PUT", "/sec?acl", "MalformedACLError", 1 << 20},
		{"PUT", "/sec?publicAccessBlock", "MalformedXML", 1 << 20},
		{"POST", "/sec/obj?uploadId=x", "MalformedXML", 6 << 20},
	} {
		conn := dial(t, srv)
		rawHead(t, conn, srv, &rootCreds, tc.method, tc.path, tc.size, nil)
		st, b := readAnswer(t, conn, 2*time.Second)
		wantError(t, st, b, 400, tc.code)
	}
	// Sent in full, without a declared length (chunked), it is cut at
	// the cap and refused alike.
	big := "<Delete>" + strings.Repeat("<Object><Key>k</Key></Object>", 100_000) + "</Delete>"
	req, _ := http.NewRequest("POST", srv.URL+"/sec?delete", io.NopCloser(strings.NewReader(big)))
	sum := sha256.Sum256([]byte(big))
	req.Header.Set("X-Amz-Content-Sha256", hex.EncodeToString(sum[:]))
	if err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: rootCreds.AccessKey, SecretAccessKey: rootCreds.SecretKey},
		req, hex.EncodeToString(sum[:]), "s3", "us-east-1", time.Now()); err != nil {
		t.Fatal(err)
	}
	st, b := do(t, srv, req)
	wantError(t, st, b, 400, "MalformedXML")
	if !exists(t, srv, "sec", "obj") {
		t.Fatal("object deleted")
	}
}

// logCapture records what the node logs at ERROR while a test runs.
type logCapture struct {
	mu     sync.Mutex
	errors []string
}

func (l *logCapture) Enabled(_ context.Context, lv slog.Level) bool { return lv >= slog.LevelError }
func (l *logCapture) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errors = append(l.errors, r.Message)
	return nil
}
func (l *logCapture) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logCapture) WithGroup(string) slog.Handler      { return l }

func captureErrors(t *testing.T) *logCapture {
	l := &logCapture{}
	old := slog.Default()
	slog.SetDefault(slog.New(l))
	t.Cleanup(func() { slog.SetDefault(old) })
	return l
}

// A document that stops short of its Content-Length (the client hangs
// up) is 400 IncompleteBody; one that arrives whole but ends mid-document
// is 400 MalformedXML; neither is a 500, and a client that hangs up is
// not logged as the node's error.
func TestTruncatedXMLBody(t *testing.T) {
	srv := surfaceNode(t)
	logs := captureErrors(t)
	doc := "<Delete><Object><Key>obj</Key></Object></Delete>"
	for _, tc := range []struct{ method, path string }{
		{"POST", "/sec?delete"}, {"PUT", "/sec?acl"}, {"PUT", "/sec?policy"}, {"PUT", "/sec/big"},
	} {
		conn := dial(t, srv)
		rawHead(t, conn, srv, &rootCreds, tc.method, tc.path, 1000, nil)
		conn.Write([]byte(doc[:20]))
		conn.(*net.TCPConn).CloseWrite()
		st, b := readAnswer(t, conn, 5*time.Second)
		wantError(t, st, b, 400, "IncompleteBody")
	}
	// A client that vanishes altogether.
	conn := dial(t, srv)
	rawHead(t, conn, srv, &rootCreds, "POST", "/sec?delete", 1000, nil)
	conn.Write([]byte(doc[:20]))
	conn.Close()
	time.Sleep(200 * time.Millisecond)

	st, b := do(t, srv, signed(t, srv, rootCreds, "POST", "/sec?delete", []byte(doc[:30]), nil))
	wantError(t, st, b, 400, "MalformedXML")
	st, b = do(t, srv, signed(t, srv, rootCreds, "PUT", "/sec?ownershipControls", []byte("<OwnershipControls><Rule>"), nil))
	wantError(t, st, b, 400, "MalformedXML")
	if !exists(t, srv, "sec", "obj") || exists(t, srv, "sec", "big") {
		t.Fatal("a truncated request changed the bucket")
	}
	logs.mu.Lock()
	defer logs.mu.Unlock()
	if len(logs.errors) > 0 {
		t.Fatalf("logged at ERROR: %v", logs.errors)
	}
}

// Anonymous requests may not choose response headers with response-*,
// as AWS ("Request specific response headers cannot be used for
// anonymous GET requests."); signed ones may.
func TestAnonymousResponseOverrides(t *testing.T) {
	srv := surfaceNode(t)
	if st, b := do(t, srv, signed(t, srv, rootCreds, "DELETE", "/sec?publicAccessBlock", nil, nil)); st != 204 {
		t.Fatalf("delete block: %d %s", st, b)
	}
	policy := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::sec/*"}]}`
	if st, b := do(t, srv, signed(t, srv, rootCreds, "PUT", "/sec?policy", []byte(policy), nil)); st != 204 {
		t.Fatalf("policy: %d %s", st, b)
	}
	get := func(path string) (int, []byte, http.Header) {
		resp, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b, resp.Header
	}
	if st, b, _ := get("/sec/obj"); st != 200 {
		t.Fatalf("anonymous read: %d %s", st, b)
	}
	st, b, _ := get("/sec/obj?response-content-type=text/html")
	wantError(t, st, b, 400, "InvalidRequest")
	st, b, _ = get("/sec/obj?response-content-disposition=attachment")
	wantError(t, st, b, 400, "InvalidRequest")
	resp, err := srv.Client().Do(signed(t, srv, rootCreds, "GET", "/sec/obj?response-content-type=text/plain", nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/plain" {
		t.Fatalf("signed override: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

// A malformed versionId is 400 InvalidArgument ("Invalid version id
// specified"), on reads, deletes and copies; "null" is the version of an
// unversioned object.
func TestBadVersionID(t *testing.T) {
	srv := surfaceNode(t)
	for _, tc := range []struct {
		method, path string
		h            http.Header
	}{
		{"GET", "/sec/obj?versionId=not%20a%20version", nil},
		{"GET", "/sec/obj?versionId=", nil},
		{"DELETE", "/sec/obj?versionId=%00", nil},
		{"GET", "/sec/obj?acl&versionId=a/b", nil},
		{"PUT", "/sec/copy", http.Header{"X-Amz-Copy-Source": {"/sec/obj?versionId=bad%20id"}}},
	} {
		st, b := do(t, srv, signed(t, srv, rootCreds, tc.method, tc.path, nil, tc.h))
		wantError(t, st, b, 400, "InvalidArgument")
	}
	if !exists(t, srv, "sec", "obj") || exists(t, srv, "sec", "copy") {
		t.Fatal("a refused request changed the bucket")
	}
	if st, b := do(t, srv, signed(t, srv, rootCreds, "GET", "/sec/obj?versionId=null", nil, nil)); st != 200 {
		t.Fatalf("null version: %d %s", st, b)
	}
}

// An empty Content-MD5 is 400 InvalidDigest, as AWS, and stores nothing.
func TestEmptyContentMD5(t *testing.T) {
	srv := surfaceNode(t)
	st, b := do(t, srv, signed(t, srv, rootCreds, "PUT", "/sec/md5", []byte("data"), http.Header{"Content-Md5": {""}}))
	wantError(t, st, b, 400, "InvalidDigest")
	if exists(t, srv, "sec", "md5") {
		t.Fatal("stored")
	}
	st, b = do(t, srv, signed(t, srv, rootCreds, "POST", "/sec?delete", []byte("<Delete><Object><Key>obj</Key></Object></Delete>"), http.Header{"Content-Md5": {""}}))
	wantError(t, st, b, 400, "InvalidDigest")
	if !exists(t, srv, "sec", "obj") {
		t.Fatal("deleted")
	}
}
