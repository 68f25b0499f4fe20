package security_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/ostiumio/ostium/internal/blob/s3blob"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/platform"
)

// Request slots: an anonymous client, or one tenant,
// cannot take the request slots others need; a slow client cannot hold a
// connection or a slot by sending nothing; a saturated node says so to
// the balancer. Item 4: no request waits forever.

// stall is a PUT in flight whose body stops after its first bytes: it
// holds a request slot until its body is given or the body times out.
type stall struct {
	pw   *io.PipeWriter
	done chan stallResult
}

type stallResult struct {
	status int
	body   []byte
	err    error
}

// startStall sends a PUT of size bytes to path, signed by c (nil:
// anonymous) with an unsigned payload, and writes only its first byte.
func startStall(t *testing.T, srv *nodetest.Server, c *creds, path string, size int64) *stall {
	t.Helper()
	pr, pw := io.Pipe()
	req, err := http.NewRequest("PUT", srv.URL+path, pr)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = size
	if c != nil {
		req.Header.Set("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD")
		if err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: c.AccessKey, SecretAccessKey: c.SecretKey},
			req, "UNSIGNED-PAYLOAD", "s3", "us-east-1", time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	s := &stall{pw: pw, done: make(chan stallResult, 1)}
	// Each stall on a connection of its own, as separate clients.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	go func() {
		resp, err := client.Do(req)
		if err != nil {
			s.done <- stallResult{err: err}
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		s.done <- stallResult{status: resp.StatusCode, body: b}
	}()
	go pw.Write([]byte{'x'})
	t.Cleanup(func() { pw.CloseWithError(errors.New("test over")) })
	return s
}

// waitLoad waits until srv serves want S3 requests at once.
func waitLoad(t *testing.T, srv *nodetest.Server, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, _ := srv.Node.S3.Load()
		if n == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d requests in flight, want %d", n, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// wantSlowDown asserts 503 SlowDown with Retry-After, as AWS throttles.
func wantSlowDown(t *testing.T, srv *nodetest.Server, req *http.Request) {
	t.Helper()
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	wantError(t, resp.StatusCode, b, 503, "SlowDown")
	if resp.Header.Get("Retry-After") == "" {
		t.Fatal("503 SlowDown without Retry-After")
	}
}

// tenantWithObject makes tenant's admin, its bucket with an object "k",
// and returns the admin's keys.
func tenantWithObject(t *testing.T, srv *nodetest.Server, tenant string) creds {
	t.Helper()
	u := newUser(t, srv, tenant, "admin", "admin")
	if st, b := do(t, srv, signed(t, srv, u, "PUT", "/"+tenant+"-data", nil, nil)); st != 200 {
		t.Fatalf("create bucket: %d %s", st, b)
	}
	if st, b := do(t, srv, signed(t, srv, u, "PUT", "/"+tenant+"-data/k", []byte("hello"), nil)); st != 200 {
		t.Fatalf("put k: %d %s", st, b)
	}
	return u
}

// Anonymous requests fill their budget (a tenth of max_requests) with
// bodies that never arrive, on a bucket whose policy lets anyone write:
// the next anonymous request is told to slow down, and a tenant's GET is
// served at once.
func TestAnonymousFloodCannotStarveTenant(t *testing.T) {
	srv := start(t, nodetest.Options{Config: func(c *node.Config) { c.MaxRequests = 20 }}) // anonymous: 2 slots
	u := tenantWithObject(t, srv, "acme")
	// New buckets block public policies, as on AWS; this one opens.
	if st, b := do(t, srv, signed(t, srv, u, "DELETE", "/acme-data?publicAccessBlock", nil, nil)); st != 204 {
		t.Fatalf("delete public access block: %d %s", st, b)
	}
	policy := `{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::acme-data/drop/*"}]}`
	if st, b := do(t, srv, signed(t, srv, u, "PUT", "/acme-data?policy", []byte(policy), nil)); st != 204 && st != 200 {
		t.Fatalf("put policy: %d %s", st, b)
	}
	for i := range 2 {
		startStall(t, srv, nil, "/acme-data/drop/"+string(rune('a'+i)), 1<<20)
	}
	waitLoad(t, srv, 2)
	req, _ := http.NewRequest("PUT", srv.URL+"/acme-data/drop/c", strings.NewReader("x"))
	wantSlowDown(t, srv, req)
	start := time.Now()
	if st, b := do(t, srv, signed(t, srv, u, "GET", "/acme-data/k", nil, nil)); st != 200 || string(b) != "hello" {
		t.Fatalf("tenant GET under an anonymous flood: %d %s", st, b)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("tenant GET took %v under an anonymous flood", d)
	}
}

// One tenant holds its share (half of max_requests) with stalled
// uploads: its next request is told to slow down; another tenant, and
// the provider's root, are served.
func TestTenantCannotStarveAnother(t *testing.T) {
	srv := start(t, nodetest.Options{Config: func(c *node.Config) { c.MaxRequests = 10 }}) // 5 per tenant
	acme := tenantWithObject(t, srv, "acme")
	beta := tenantWithObject(t, srv, "beta")
	for i := range 5 {
		startStall(t, srv, &acme, "/acme-data/big"+string(rune('a'+i)), 1<<20)
	}
	waitLoad(t, srv, 5)
	wantSlowDown(t, srv, signed(t, srv, acme, "GET", "/acme-data/k", nil, nil))
	if st, b := do(t, srv, signed(t, srv, beta, "GET", "/beta-data/k", nil, nil)); st != 200 {
		t.Fatalf("beta's GET while acme holds its share: %d %s", st, b)
	}
	if st, b := do(t, srv, signed(t, srv, rootCreds, "GET", "/acme-data/k", nil, nil)); st != 200 {
		t.Fatalf("root's GET while acme holds its share: %d %s", st, b)
	}
}

// rawPut writes a signed PUT's head (unsigned payload, Content-Length
// size) on a connection of its own and returns it.
func rawPut(t *testing.T, srv *nodetest.Server, c creds, path string, size int64) net.Conn {
	t.Helper()
	req, _ := http.NewRequest("PUT", srv.URL+path, nil)
	req.ContentLength = size
	req.Header.Set("Content-Length", itoa(size))
	req.Header.Set("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD")
	if err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: c.AccessKey, SecretAccessKey: c.SecretKey},
		req, "UNSIGNED-PAYLOAD", "s3", "us-east-1", time.Now()); err != nil {
		t.Fatal(err)
	}
	conn := dial(t, srv)
	var head strings.Builder
	head.WriteString("PUT " + path + " HTTP/1.1\r\nHost: " + req.Host + "\r\n")
	for k, vs := range req.Header {
		for _, v := range vs {
			head.WriteString(k + ": " + v + "\r\n")
		}
	}
	head.WriteString("\r\n")
	if _, err := io.WriteString(conn, head.String()); err != nil {
		t.Fatal(err)
	}
	return conn
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// A body that stops arriving gets 400 RequestTimeout, as from AWS, once
// body_idle_timeout passes, and the connection is closed; a body that
// arrives slowly but keeps moving is stored, however long it takes in
// all (here well past both the idle and the request timeout).
func TestStalledBodyTimesOutMovingBodySucceeds(t *testing.T) {
	const idle = 500 * time.Millisecond
	srv := start(t, nodetest.Options{Config: func(c *node.Config) {
		// The slow body keeps 6 B/s: the minimum rate, tested on its own
		// (fairness_test.go), is set below it.
		c.BodyIdleTimeout, c.RequestTimeout, c.BodyMinRate = idle, time.Second, 1
	}})
	u := tenantWithObject(t, srv, "acme")

	conn := rawPut(t, srv, u, "/acme-data/stalled", 100)
	io.WriteString(conn, "0123456789")
	begin := time.Now()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no response to a stalled body: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	wantError(t, resp.StatusCode, b, 400, "RequestTimeout")
	if d := time.Since(begin); d < idle/2 || d > idle+2*time.Second {
		t.Fatalf("RequestTimeout after %v, want about %v", d, idle)
	}
	if _, err := br.ReadByte(); err == nil {
		t.Fatal("connection left open after RequestTimeout")
	}
	if st, _ := do(t, srv, signed(t, srv, u, "HEAD", "/acme-data/stalled", nil, nil)); st != 404 {
		t.Fatalf("a timed-out upload was stored: HEAD %d", st)
	}

	// 20 bytes, one every 150 ms: 3 s in all, six idle timeouts.
	conn = rawPut(t, srv, u, "/acme-data/slow", 20)
	for i := range 20 {
		time.Sleep(150 * time.Millisecond)
		if _, err := conn.Write([]byte{byte('a' + i)}); err != nil {
			t.Fatalf("slow body cut after %d bytes: %v", i, err)
		}
	}
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err = http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("slow but moving body: %d %s", resp.StatusCode, b)
	}
	if st, b := do(t, srv, signed(t, srv, u, "GET", "/acme-data/slow", nil, nil)); st != 200 || string(b) != "abcdefghijklmnopqrst" {
		t.Fatalf("slow upload read back: %d %q", st, b)
	}
}

// A connection that sends no complete request head is closed after
// header_timeout; one left idle after a response after keepalive_timeout.
func TestIdleConnectionsClosed(t *testing.T) {
	const hdr, keep = 400 * time.Millisecond, 700 * time.Millisecond
	srv := start(t, nodetest.Options{Config: func(c *node.Config) { c.HeaderTimeout, c.KeepAliveTimeout = hdr, keep }})
	closedWithin := func(conn net.Conn, min, max time.Duration, what string) {
		t.Helper()
		begin := time.Now()
		conn.SetReadDeadline(time.Now().Add(max + 5*time.Second))
		_, err := io.Copy(io.Discard, conn)
		d := time.Since(begin)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("%s: still open after %v", what, d)
		}
		if d < min || d > max {
			t.Fatalf("%s: closed after %v, want %v to %v", what, d, min, max)
		}
	}
	closedWithin(dial(t, srv), hdr/2, hdr+2*time.Second, "a connection that sends nothing")

	conn := dial(t, srv)
	io.WriteString(conn, "GET /health/live HTTP/1.1\r\nHost: x\r\n") // the head never ends
	closedWithin(conn, hdr/2, hdr+2*time.Second, "a connection whose head never ends")

	conn = dial(t, srv)
	io.WriteString(conn, "GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n")
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("live: %v %v", resp, err)
	}
	resp.Body.Close()
	closedWithin(conn, keep/2, keep+2*time.Second, "an idle keep-alive connection")
}

// readiness returns /health/ready's status and its body's saturated flag.
func readiness(t *testing.T, srv *nodetest.Server) (int, bool) {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + "/health/ready")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Saturated bool }
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out.Saturated
}

// While nearly every slot is taken (here 9 of 10, by the provider's
// root, whom no share bounds), /health/ready answers 503 so that HAProxy
// sends new clients to other nodes; once they are free, 200 again.
func TestReadinessFailsWhileSaturated(t *testing.T) {
	srv := start(t, nodetest.Options{Config: func(c *node.Config) { c.MaxRequests = 10 }})
	tenantWithObject(t, srv, "acme")
	if st, sat := readiness(t, srv); st != 200 || sat {
		t.Fatalf("idle node: ready %d saturated %v", st, sat)
	}
	var stalls []*stall
	for i := range 8 {
		stalls = append(stalls, startStall(t, srv, &rootCreds, "/acme-data/r"+string(rune('a'+i)), 1<<20))
	}
	waitLoad(t, srv, 8)
	if st, _ := readiness(t, srv); st != 200 {
		t.Fatalf("8 of 10 slots taken: ready %d, want 200", st)
	}
	stalls = append(stalls, startStall(t, srv, &rootCreds, "/acme-data/ri", 1<<20))
	waitLoad(t, srv, 9)
	if st, sat := readiness(t, srv); st != 503 || !sat {
		t.Fatalf("9 of 10 slots taken: ready %d saturated %v, want 503", st, sat)
	}
	for _, s := range stalls {
		s.pw.CloseWithError(errors.New("client gone"))
	}
	waitLoad(t, srv, 0)
	if st, _ := readiness(t, srv); st != 200 {
		t.Fatalf("slots free again: ready %d", st)
	}
}

// A platform that accepts connections and never answers object requests
// (its bucket answers, so its health checks pass): a PUT there gets 503
// ServiceUnavailable with Retry-After once request_timeout passes, not
// after the platform's own minute-long timeout.
func TestStalledPlatformGets503(t *testing.T) {
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The bucket answers, and deletes (the cleanup of a failed write).
		if strings.Trim(r.URL.Path, "/") == "ostium" || r.Method == http.MethodDelete {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(release) })
	const limit = time.Second
	srv := start(t, nodetest.Options{Config: func(c *node.Config) {
		c.RequestTimeout = limit
		c.Platforms = map[string]platform.Spec{
			"local": {Type: platform.TypeFS, Path: filepath.Join(c.DataDir, "blobs")},
			"hang": {Type: platform.TypeS3, S3: s3blob.Config{Endpoint: hang.URL, AccessKey: "k", SecretKey: "s",
				PathStyle: true, Layout: s3blob.LayoutShared, Bucket: "ostium", Retries: -1, Timeout: time.Minute}},
		}
	}})
	ctx := context.Background()
	a := adminClient(srv)
	if err := a.Do(ctx, "POST", "/tenants", map[string]string{"name": "acme", "platform": "hang"}, nil); err != nil {
		t.Fatal(err)
	}
	u := newUser(t, srv, "acme", "ann", "admin")
	if st, b := do(t, srv, signed(t, srv, u, "PUT", "/acme-data", nil, nil)); st != 200 {
		t.Fatalf("create bucket: %d %s", st, b)
	}
	body := make([]byte, 100<<10) // past the inline limit: a blob on the platform
	begin := time.Now()
	req := signed(t, srv, u, "PUT", "/acme-data/k", body, nil)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	d := time.Since(begin)
	wantError(t, resp.StatusCode, b, 503, "ServiceUnavailable")
	if resp.Header.Get("Retry-After") == "" {
		t.Fatal("503 without Retry-After")
	}
	if d < limit || d > limit+5*time.Second {
		t.Fatalf("answered after %v, want about the request timeout %v", d, limit)
	}
}

// A client that stops reading a response is cut once body_idle_timeout
// passes with no byte taken (here from the sendfile path of a local
// blob); one that reads slowly but steadily gets every byte.
func TestStalledReaderCutSteadyReaderServed(t *testing.T) {
	const idle = 500 * time.Millisecond
	srv := start(t, nodetest.Options{Config: func(c *node.Config) { c.BodyIdleTimeout = idle }})
	u := tenantWithObject(t, srv, "acme")
	big := make([]byte, 32<<20) // more than loopback's socket buffers hold
	if st, b := do(t, srv, signed(t, srv, u, "PUT", "/acme-data/big", big, nil)); st != 200 {
		t.Fatalf("put big: %d %s", st, b)
	}
	get := func() (net.Conn, *http.Response) {
		t.Helper()
		conn := dial(t, srv)
		if err := signed(t, srv, u, "GET", "/acme-data/big", nil, nil).Write(conn); err != nil {
			t.Fatal(err)
		}
		conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET big: %v %v", resp, err)
		}
		return conn, resp
	}

	_, resp := get()
	time.Sleep(idle + 2*time.Second) // reads nothing
	n, err := io.Copy(io.Discard, resp.Body)
	if err == nil || n >= int64(len(big)) {
		t.Fatalf("a reader that stalled got %d of %d bytes (err %v), want the response cut", n, len(big), err)
	}

	_, resp = get()
	buf := make([]byte, 256<<10)
	var total int64
	for {
		time.Sleep(20 * time.Millisecond) // about 12 MB/s
		m, err := io.ReadFull(resp.Body, buf)
		total += int64(m)
		if err != nil {
			break
		}
	}
	if total != int64(len(big)) {
		t.Fatalf("a steady reader got %d of %d bytes", total, len(big))
	}
}

// A catalog that does not answer (a PostgreSQL table held by another
// session's exclusive lock): a GET gets 503 ServiceUnavailable with
// Retry-After once request_timeout passes, and the node serves again as
// soon as the lock goes.
func TestStalledCatalogGets503(t *testing.T) {
	const limit = time.Second
	srv := start(t, nodetest.Options{Config: func(c *node.Config) { c.RequestTimeout = limit }})
	if !strings.HasPrefix(srv.Catalog, "postgres") {
		t.Skip("needs a PostgreSQL catalog (OSTIUM_TEST_CATALOG=postgres)")
	}
	u := tenantWithObject(t, srv, "acme")
	release := lockTable(t, srv, "objects")
	begin := time.Now()
	resp, err := srv.Client().Do(signed(t, srv, u, "GET", "/acme-data/k", nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	d := time.Since(begin)
	wantError(t, resp.StatusCode, b, 503, "ServiceUnavailable")
	if resp.Header.Get("Retry-After") == "" {
		t.Fatal("503 without Retry-After")
	}
	if d < limit || d > limit+5*time.Second {
		t.Fatalf("answered after %v, want about the request timeout %v", d, limit)
	}
	release()
	if st, b := do(t, srv, signed(t, srv, u, "GET", "/acme-data/k", nil, nil)); st != 200 || string(b) != "hello" {
		t.Fatalf("GET once the lock is gone: %d %s", st, b)
	}
}

// An admin API request whose body stops arriving does not hold its
// connection past body_idle_timeout either.
func TestStalledAdminBodyClosed(t *testing.T) {
	const idle = 500 * time.Millisecond
	srv := start(t, nodetest.Options{Config: func(c *node.Config) { c.BodyIdleTimeout = idle }})
	conn := dial(t, srv)
	io.WriteString(conn, "POST /admin/v1/tenants HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
	begin := time.Now()
	conn.SetReadDeadline(time.Now().Add(idle + 5*time.Second))
	_, err := io.Copy(io.Discard, conn) // whatever the answer, then the close
	if d := time.Since(begin); err != nil || d > idle+2*time.Second {
		t.Fatalf("connection held %v (%v), want closed within about %v", d, err, idle)
	}
}
