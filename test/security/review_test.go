package security_test

import (
	"bufio"
	"fmt"
	"net/http"
	"testing"
	"time"

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
}
