package security_test

import (
	"bufio"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/jackc/pgx/v5"

	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// What the review of the merged hardening found, each attack with the
// answer it must get.

// The node's own paths refuse or serve a request without reading its
// body; net/http then waits for the body before it answers (up to 256
// KiB of it), so a client that declares a body and never sends it held
// the connection: on /health/* with no deadline at all, on the admin API
// for the body idle timeout. Each answer must come at once.
func TestNodePathsAnswerWithoutWaitingForBody(t *testing.T) {
	srv := start(t, nodetest.Options{})
	for _, rq := range []struct{ method, path string }{
		{"GET", "/health/ready"},
		{"GET", "/health/live"},
		{"POST", "/health/ready"},
		{"POST", "/admin/v1/tenants"},
		{"GET", "/admin/v1/openapi.yaml"},
		{"PUT", "/admin/v1/no-such-route"},
		{"GET", "/catalogs/acme/lib/lib.json"},
		{"PUT", "/catalogs/acme/lib/item/x.iso"},
	} {
		for _, n := range []int{1 << 10, 1 << 30} {
			conn := dial(t, srv)
			fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n\r\n", rq.method, rq.path, srv.Listener.Addr(), n)
			conn.SetReadDeadline(time.Now().Add(2 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("%s %s with %d body bytes declared and none sent: no answer in 2 s: %v", rq.method, rq.path, n, err)
			}
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && rq.path == "/admin/v1/tenants" {
				t.Fatalf("anonymous %s %s: 200", rq.method, rq.path)
			}
		}
	}
}

// The same on the S3 endpoint for requests answered with success: a GET,
// HEAD, listing or DELETE that declares a body it does not need went on
// holding its slot, and got its answer only when the body idle timeout
// (30 s) ran out.
func TestS3AnswersWithoutWaitingForUnneededBody(t *testing.T) {
	srv := start(t, nodetest.Options{})
	if st, b := do(t, srv, signed(t, srv, rootCreds, "PUT", "/unread", nil, nil)); st != 200 {
		t.Fatalf("create bucket: %d %s", st, b)
	}
	if st, b := do(t, srv, signed(t, srv, rootCreds, "PUT", "/unread/obj", []byte("content"), nil)); st != 200 {
		t.Fatalf("put: %d %s", st, b)
	}
	for _, rq := range []struct {
		method, path string
		want         int
	}{
		{"GET", "/unread/obj", 200},
		{"HEAD", "/unread/obj", 200},
		{"GET", "/unread", 200},
		{"GET", "/", 200},
		{"DELETE", "/unread/absent", 204},
	} {
		conn := dial(t, srv)
		rawHead(t, conn, srv, &rootCreds, rq.method, rq.path, 1<<10, nil)
		conn.SetReadDeadline(time.Now().Add(2 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: rq.method})
		if err != nil {
			t.Fatalf("%s %s with 1 KiB declared and none sent: no answer in 2 s: %v", rq.method, rq.path, err)
		}
		resp.Body.Close()
		if resp.StatusCode != rq.want || !resp.Close {
			t.Fatalf("%s %s: %d (close %v), want %d and the connection closed", rq.method, rq.path, resp.StatusCode, resp.Close, rq.want)
		}
	}
	// A request whose body was read keeps its connection.
	resp, err := srv.Client().Do(signed(t, srv, rootCreds, "PUT", "/unread/kept", make([]byte, 300<<10), nil))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Close {
		t.Fatalf("PUT with its body: %d (close %v), want 200 on a kept connection", resp.StatusCode, resp.Close)
	}
}

// A request signed with an access key the node has not met costs a
// catalog read before anyone is known. Those reads came before any slot,
// so a flood of made-up keys took the catalog from every tenant with no
// bound; they now have a budget of their own, the size of the anonymous
// one. Seen with the catalog stalled (a PostgreSQL lock on access_keys):
// of eight made-up keys at once, those beyond that budget (2, for 20
// slots) get SlowDown at once instead of each waiting on the catalog;
// the admin API, on the same listener, bounds its own lookups (to 4).
func TestUnknownKeysHaveABudget(t *testing.T) {
	const limit = 2 * time.Second
	srv := start(t, nodetest.Options{Config: func(c *node.Config) { c.MaxRequests, c.RequestTimeout = 20, limit }})
	if !strings.HasPrefix(srv.Catalog, "postgres") {
		t.Skip("needs a PostgreSQL catalog (OSTIUM_TEST_CATALOG=postgres)")
	}
	release := lockTable(t, srv, "access_keys")
	// Made-up keys at once on path (the S3 endpoint or the admin API,
	// which looks keys up the same way) with the catalog stalled: all but
	// budget get SlowDown before the request timeout.
	flood := func(path string, n, budget int) {
		codes := make([]string, n)
		took := make([]time.Duration, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				made := creds{fmt.Sprintf("OSMADEUP%02d%010d", len(path), i), "made-up-secret"}
				begin := time.Now()
				// The admin API has no request timeout of its own: a
				// lookup stuck on the catalog waits for the lock.
				hc := *srv.Client()
				hc.Timeout = 2 * limit
				resp, err := hc.Do(signed(t, srv, made, "GET", path, nil, nil))
				if err != nil {
					codes[i] = err.Error()
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				var e s3Error
				_ = xml.Unmarshal(b, &e)
				var ae struct{ Error struct{ Code string } }
				_ = json.Unmarshal(b, &ae)
				codes[i], took[i] = e.Code+ae.Error.Code, time.Since(begin)
			}()
		}
		wg.Wait()
		fast := 0
		for i, c := range codes {
			if c == "SlowDown" && took[i] < limit/2 {
				fast++
			}
		}
		if fast < n-budget {
			t.Fatalf("%s, made-up keys with the catalog stalled: %v after %v; want SlowDown at once for all but %d", path, codes, took, budget)
		}
	}
	flood("/any/key", 8, 2)
	flood("/admin/v1/tenants", 12, 4)
	release()
	st, b := do(t, srv, signed(t, srv, creds{"OSMADEUPAFTER0000000", "x"}, "GET", "/any/key", nil, nil))
	wantError(t, st, b, 403, "InvalidAccessKeyId")
}

// Anyone may ask /health/ready, and each check read the catalog twice:
// a flood of checks queued catalog reads ahead of the tenants' with no
// bound. One check at a time reads it now, and its answer stands for a
// second. Seen with the catalog stalled (a PostgreSQL lock on the table
// the check reads): twenty checks at once leave one query waiting, not
// twenty; the check is ready again soon after the lock goes.
func TestReadinessChecksShareCatalogReads(t *testing.T) {
	srv := start(t, nodetest.Options{})
	if !strings.HasPrefix(srv.Catalog, "postgres") {
		t.Skip("needs a PostgreSQL catalog (OSTIUM_TEST_CATALOG=postgres)")
	}
	ctx := context.Background()
	time.Sleep(1100 * time.Millisecond) // past the answer the node's start may have left
	release := lockTable(t, srv, "identity_generation")
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if resp, err := srv.Client().Get(srv.URL + "/health/ready"); err == nil {
				resp.Body.Close()
			}
		}()
	}
	time.Sleep(500 * time.Millisecond)
	watch, err := pgx.Connect(ctx, srv.Catalog)
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close(ctx)
	var waiting int
	if err := watch.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
		WHERE wait_event_type = 'Lock' AND query LIKE '%identity_generation%'`).Scan(&waiting); err != nil {
		t.Fatal(err)
	}
	if waiting > 1 {
		t.Fatalf("%d catalog queries of readiness checks waiting, want at most 1", waiting)
	}
	release()
	wg.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for {
		resp, err := srv.Client().Get(srv.URL + "/health/ready")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("readiness %d 5 s after the catalog came back", resp.StatusCode)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// A presigned V4 URL signs its whole query string: a parameter appended
// to it (a response-* override, a security token) breaks the signature,
// as on AWS; a token sent as a header is an unsigned x-amz-* header. With
// virtual-hosted style, a request signed for one bucket's host and sent
// with another's fails its signature (the Host is signed), and SigV2,
// which does not sign the Host, signs the bucket it names in its
// resource.
func TestSignedRequestCannotBeRetargeted(t *testing.T) {
	srv := start(t, nodetest.Options{Domains: []string{"s3.test"}})
	ann := newUser(t, srv, "acme", "ann", "admin")
	eve := newUser(t, srv, "evil", "eve", "admin")
	for _, b := range []struct {
		c      creds
		bucket string
	}{{ann, "acme-rt"}, {eve, "evil-rt"}} {
		if st, body := do(t, srv, signed(t, srv, b.c, "PUT", "/"+b.bucket, nil, nil)); st != 200 {
			t.Fatalf("create %s: %d %s", b.bucket, st, body)
		}
		if st, body := do(t, srv, signed(t, srv, b.c, "PUT", "/"+b.bucket+"/k", []byte("data of "+b.bucket), nil)); st != 200 {
			t.Fatalf("put %s/k: %d %s", b.bucket, st, body)
		}
	}
	req, _ := http.NewRequest("GET", srv.URL+"/evil-rt/k?X-Amz-Expires=300", nil)
	url, _, err := v4.NewSigner().PresignHTTP(context.Background(), aws.Credentials{AccessKeyID: eve.AccessKey, SecretAccessKey: eve.SecretKey},
		req, "UNSIGNED-PAYLOAD", "s3", "us-east-1", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	get := func(u string, h http.Header) (int, []byte) {
		req, _ := http.NewRequest("GET", u, nil)
		for k, v := range h {
			req.Header[k] = v
		}
		return do(t, srv, req)
	}
	if st, b := get(url, nil); st != 200 {
		t.Fatalf("presigned GET as signed: %d %s", st, b)
	}
	for _, extra := range []string{"response-content-type=text%2Fhtml", "X-Amz-Security-Token=x", "versionId=null"} {
		st, b := get(url+"&"+extra, nil)
		wantError(t, st, b, 403, "SignatureDoesNotMatch")
	}
	st, b := get(url, http.Header{"X-Amz-Security-Token": {"x"}})
	wantError(t, st, b, 403, "AccessDenied")

	// Virtual-hosted: eve signs for her bucket's host, then sends the
	// request with ann's.
	vreq := signed(t, srv, eve, "GET", "/k", nil, http.Header{"Host": {"evil-rt.s3.test"}})
	vreq.Host = "evil-rt.s3.test"
	vreq = signedHost(t, eve, vreq)
	if st, b := do(t, srv, vreq); st != 200 || string(b) != "data of evil-rt" {
		t.Fatalf("virtual-hosted GET as signed: %d %s", st, b)
	}
	vreq = signedHost(t, eve, vreq)
	vreq.Host = "acme-rt.s3.test"
	st, b = do(t, srv, vreq)
	wantError(t, st, b, 403, "SignatureDoesNotMatch")

	// SigV2: eve's signature of her own object, sent with ann's host.
	date := time.Now().UTC().Format(http.TimeFormat)
	v2 := func(host, path string) (int, []byte) {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Host = host
		req.Header.Set("Date", date)
		req.Header.Set("Authorization", "AWS "+eve.AccessKey+":"+signV2(eve, "GET\n\n\n"+date+"\n/evil-rt/k"))
		return do(t, srv, req)
	}
	if st, b := v2("evil-rt.s3.test", "/k"); st != 200 {
		t.Fatalf("SigV2 virtual-hosted GET as signed: %d %s", st, b)
	}
	st, b = v2("acme-rt.s3.test", "/k")
	wantError(t, st, b, 403, "SignatureDoesNotMatch")
}

// signedHost signs req again (SigV4, header auth, empty payload) for the
// Host it carries now.
func signedHost(t *testing.T, c creds, req *http.Request) *http.Request {
	t.Helper()
	req.Header.Del("Authorization")
	const empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	req.Header.Set("X-Amz-Content-Sha256", empty)
	err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: c.AccessKey, SecretAccessKey: c.SecretKey},
		req, empty, "s3", "us-east-1", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return req
}
