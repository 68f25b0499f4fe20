package security_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// Shares that no group of tenants can defeat: tenants' shares of the
// request slots shrink as others become active, and a body must keep a
// minimum average rate, so that cooperating tenants whose uploads trickle
// cannot take what a third tenant needs.

// trickle is a signed PUT whose body comes 10 bytes at a time, each
// within the idle timeout, on a connection of its own; answer receives
// the answer (status 0: the connection failed first).
type trickle struct {
	conn   net.Conn
	answer chan stallResult
}

func startTrickle(t *testing.T, srv *nodetest.Server, c creds, path string, every time.Duration, stop <-chan struct{}) *trickle {
	t.Helper()
	conn := rawPut(t, srv, c, path, 1<<20)
	tr := &trickle{conn: conn, answer: make(chan stallResult, 1)}
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			tr.answer <- stallResult{err: err}
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		tr.answer <- stallResult{status: resp.StatusCode, body: b}
	}()
	go func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			if _, err := io.WriteString(conn, "0123456789"); err != nil {
				return
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	return tr
}

// waitSteady waits until the node's requests in flight stop changing
// (for half a second) and returns their number.
func waitSteady(t *testing.T, srv *nodetest.Server) int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	last, since := -1, time.Now()
	for time.Now().Before(deadline) {
		n, _ := srv.Node.S3.Load()
		if n != last {
			last, since = n, time.Now()
		} else if time.Since(since) > 500*time.Millisecond {
			return n
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("requests in flight still changing after 30 s (%d)", last)
	return 0
}

// With max_requests 256, two tenants each try to hold 140 PUTs whose
// bodies trickle (10 bytes every 4 s, under the idle timeout). A fixed
// share of half the slots let them take all 256 between them; fair
// shares leave each less than half, and a third tenant's GETs are served
// at once (each within 1 s: they take milliseconds on an idle node).
func TestCooperatingTenantsCannotStarveAThird(t *testing.T) {
	srv := start(t, nodetest.Options{Config: func(c *node.Config) { c.MaxRequests = 256 }})
	acme := tenantWithObject(t, srv, "acme")
	beta := tenantWithObject(t, srv, "beta")
	gamma := tenantWithObject(t, srv, "gamma")
	stop := make(chan struct{})
	defer close(stop)

	const each = 140
	trickles := map[string][]*trickle{}
	for i := range each {
		for name, c := range map[string]creds{"acme": acme, "beta": beta} {
			trickles[name] = append(trickles[name], startTrickle(t, srv, c, fmt.Sprintf("/%s-data/t%d", name, i), 4*time.Second, stop))
		}
	}
	inFlight := waitSteady(t, srv)
	held := map[string]int{}
	for name, ts := range trickles {
		for _, tr := range ts {
			select {
			case a := <-tr.answer:
				if a.status != 503 {
					t.Errorf("%s: a trickling PUT answered %d %s (%v) before its body ended, want 503 SlowDown or nothing yet",
						name, a.status, a.body, a.err)
				}
			default:
				held[name]++
			}
		}
	}
	t.Logf("of 256 slots, acme holds %d and beta %d (%d in flight)", held["acme"], held["beta"], inFlight)
	for _, name := range []string{"acme", "beta"} {
		if held[name] >= 128 {
			t.Errorf("%s holds %d slots of 256 while another tenant is active, want less than half", name, held[name])
		}
	}

	var worst time.Duration
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				begin := time.Now()
				resp, err := srv.Client().Do(signed(t, srv, gamma, "GET", "/gamma-data/k", nil, nil))
				if err != nil {
					t.Error(err)
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				d := time.Since(begin)
				mu.Lock()
				worst = max(worst, d)
				mu.Unlock()
				if resp.StatusCode != 200 || string(b) != "hello" {
					t.Errorf("gamma's GET while acme and beta trickle: %d %s", resp.StatusCode, b)
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("gamma's 20 GETs (4 at once): slowest %v", worst)
	if worst > time.Second {
		t.Errorf("gamma's slowest GET took %v, want under 1 s", worst)
	}
}

// A body that trickles (10 bytes every 300 ms, each well within the idle
// timeout) falls under body_min_rate once the node has waited on it for
// body_idle_timeout: 400 RequestTimeout, as a stalled body gets, and
// nothing stored. A body that is slow but keeps the rate (2,000 B/s
// against 1,000, for six idle timeouts) is stored.
func TestTricklingBodyCutSteadyBodyServed(t *testing.T) {
	const idle = 500 * time.Millisecond
	srv := start(t, nodetest.Options{Config: func(c *node.Config) {
		c.BodyIdleTimeout, c.BodyMinRate = idle, 1000
	}})
	u := tenantWithObject(t, srv, "acme")

	stop := make(chan struct{})
	defer close(stop)
	begin := time.Now()
	tr := startTrickle(t, srv, u, "/acme-data/trickle", 300*time.Millisecond, stop)
	tr.conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	select {
	case a := <-tr.answer:
		d := time.Since(begin)
		if a.err != nil {
			t.Fatalf("trickling body: no answer: %v", a.err)
		}
		wantError(t, a.status, a.body, 400, "RequestTimeout")
		if d < idle/2 || d > idle+5*time.Second {
			t.Fatalf("trickling body cut after %v, want about body_idle_timeout (%v)", d, idle)
		}
		t.Logf("trickling body (33 B/s against 1,000) cut after %v", d)
	case <-time.After(30 * time.Second):
		t.Fatal("a trickling body was not cut within 30 s")
	}
	if exists(t, srv, "acme-data", "trickle") {
		t.Fatal("a trickling upload that was cut was stored")
	}

	// 6,000 bytes, 200 every 100 ms: 3 s in all.
	body := make([]byte, 6000)
	for i := range body {
		body[i] = byte('a' + i%26)
	}
	conn := rawPut(t, srv, u, "/acme-data/steady", int64(len(body)))
	for i := 0; i < len(body); i += 200 {
		time.Sleep(100 * time.Millisecond)
		if _, err := conn.Write(body[i : i+200]); err != nil {
			t.Fatalf("steady body cut after %d bytes: %v", i, err)
		}
	}
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("steady body: %d %s", resp.StatusCode, b)
	}
	if st, got := do(t, srv, signed(t, srv, u, "GET", "/acme-data/steady", nil, nil)); st != 200 || string(got) != string(body) {
		t.Fatalf("steady upload read back: %d, %d bytes", st, len(got))
	}
}
