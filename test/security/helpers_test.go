// Package security_test sends the attacks of test/security/README.md to a real
// node over real sockets and asserts each refusal. Each file holds one
// family of attacks; this one holds what they share.
package security_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/jackc/pgx/v5"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// creds is an access key pair.
type creds struct{ AccessKey, SecretKey string }

var rootCreds = creds{nodetest.AccessKey, nodetest.SecretKey}

// start runs a plain-HTTP node (raw sockets are simplest without TLS).
func start(t *testing.T, opt nodetest.Options) *nodetest.Server {
	t.Helper()
	return nodetest.Start(t, opt)
}

// adminClient is the provider's admin API client of srv.
func adminClient(srv *nodetest.Server) *admin.Client {
	return admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, srv.Client())
}

// newUser creates tenant (if new), its user with role ("admin" or
// "user") and an access key, and returns the key.
func newUser(t *testing.T, srv *nodetest.Server, tenant, user, role string) creds {
	t.Helper()
	ctx := context.Background()
	a := adminClient(srv)
	_ = a.Do(ctx, "POST", "/tenants", map[string]string{"name": tenant}, nil) // exists already: fine
	if err := a.Do(ctx, "POST", "/tenants/"+tenant+"/users", map[string]string{"name": user, "role": role}, nil); err != nil {
		t.Fatalf("create user %s/%s: %v", tenant, user, err)
	}
	var k admin.Key
	if err := a.Do(ctx, "POST", "/tenants/"+tenant+"/users/"+user+"/keys", nil, &k); err != nil {
		t.Fatalf("create key of %s/%s: %v", tenant, user, err)
	}
	return creds{k.AccessKey, k.SecretKey}
}

// sdk returns an aws-sdk-go-v2 client of srv (path style) with c.
func sdk(srv *nodetest.Server, c creds) *s3.Client {
	return s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(srv.URL),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(c.AccessKey, c.SecretKey, ""),
		HTTPClient:   srv.Client(),
	})
}

// signed builds a SigV4-signed request (header auth) for srv's path with
// body; headers in h are set before signing, so they are signed.
func signed(t *testing.T, srv *nodetest.Server, c creds, method, path string, body []byte, h http.Header) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range h {
		req.Header[http.CanonicalHeaderKey(k)] = vs
	}
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])
	req.Header.Set("X-Amz-Content-Sha256", hash)
	err = v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: c.AccessKey, SecretAccessKey: c.SecretKey},
		req, hash, "s3", "us-east-1", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// do sends req and returns the status and body.
func do(t *testing.T, srv *nodetest.Server, req *http.Request) (int, []byte) {
	t.Helper()
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// s3Error is S3's XML error body.
type s3Error struct {
	Code    string
	Message string
}

// wantError asserts an S3 error with status and code.
func wantError(t *testing.T, status int, body []byte, wantStatus int, wantCode string) {
	t.Helper()
	var e s3Error
	_ = xml.Unmarshal(body, &e)
	if status != wantStatus || e.Code != wantCode {
		t.Fatalf("got %d %s (%s), want %d %s", status, e.Code, body, wantStatus, wantCode)
	}
}

// dial opens a raw TCP connection to srv.
func dial(t *testing.T, srv *nodetest.Server) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// exists tells whether bucket/key is there, asked as the root.
func exists(t *testing.T, srv *nodetest.Server, bucket, key string) bool {
	t.Helper()
	st, b := do(t, srv, signed(t, srv, rootCreds, "HEAD", "/"+bucket+"/"+key, nil, nil))
	if st != 200 && st != 404 {
		t.Fatalf("HEAD %s/%s: %d %s", bucket, key, st, b)
	}
	return st == 200
}

// lockTable holds table in ACCESS EXCLUSIVE mode from a session of its
// own on srv's PostgreSQL catalog, so that every catalog call needing it
// stalls, until the returned release (also run when the test ends).
func lockTable(t *testing.T, srv *nodetest.Server, table string) (release func()) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, srv.Catalog)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	release = sync.OnceFunc(func() {
		tx.Rollback(ctx)
		conn.Close(ctx)
	})
	t.Cleanup(release)
	if _, err := tx.Exec(ctx, "LOCK TABLE "+table+" IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	return release
}
