package s3_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// A PUT that announces "Expect: 100-continue" gets "100 Continue" before
// its answer even when its body is empty, as every other PUT does. The aws
// cli's botocore keeps the status line of an answer that came without one
// and misreads the next response on that connection (a part's ETag went
// missing in `aws s3 sync` of an empty file and a large one).
func TestExpectContinueEmptyBody(t *testing.T) {
	c, srv := nodeWithBucket(t, nodetest.Options{}, "expect")
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	rd := bufio.NewReader(conn)

	for _, body := range []string{"", "hello"} {
		key := fmt.Sprintf("k%d", len(body))
		writeSignedPut(t, conn, srv, "/expect/"+key, len(body), http.Header{"Expect": {"100-continue"}})

		res, err := http.ReadResponse(rd, nil)
		if err != nil {
			t.Fatalf("%q: %v", key, err)
		}
		if res.StatusCode != http.StatusContinue {
			t.Fatalf("%q: first answer %s, want 100 Continue", key, res.Status)
		}
		conn.Write([]byte(body))
		if res, err = http.ReadResponse(rd, nil); err != nil {
			t.Fatalf("%q: %v", key, err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK || res.Header.Get("ETag") == "" || res.Close {
			t.Fatalf("%q: %s, ETag %q, close %v; want 200 with an ETag on a kept connection",
				key, res.Status, res.Header.Get("ETag"), res.Close)
		}
	}
	if got := get(t, c, "expect", "k5"); string(got) != "hello" {
		t.Fatalf("k5 reads %q", got)
	}
}
