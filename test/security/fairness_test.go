package security_test

import (
	"bufio"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"syscall"
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

// answers keeps what each trickling PUT of a flood was answered, and
// whether it held its slot at some point (had no answer once the node
// settled after its tenant arrived).
type answers struct {
	ts      []*trickle
	got     []*stallResult
	wasHeld []bool
}

// poll records the answers that came; it returns how many came in all.
func (a *answers) poll() int {
	n := 0
	for i, tr := range a.ts {
		if a.got[i] == nil {
			select {
			case r := <-tr.answer:
				a.got[i] = &r
			default:
			}
		}
		if a.got[i] != nil {
			n++
		}
	}
	return n
}

// holding is how many have no answer yet; it marks them as having held.
func (a *answers) holding() int {
	a.poll()
	n := 0
	for i := range a.ts {
		if a.got[i] == nil {
			a.wasHeld[i] = true
			n++
		}
	}
	return n
}

// settle waits until neither the node's requests in flight nor the
// floods' answers change for a second (preemption keeps the node full
// while slots change hands, so the answers are watched too).
func settle(t *testing.T, srv *nodetest.Server, floods []*answers) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	last, since := -1, time.Now()
	for time.Now().Before(deadline) {
		n, _ := srv.Node.S3.Load()
		for _, f := range floods {
			n += 1000 * f.poll()
		}
		if n != last {
			last, since = n, time.Now()
		} else if time.Since(since) > time.Second {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the node still changing after 60 s")
}

// With max_requests 256 and a minimum body rate low enough that
// trickling bodies keep their slots, twelve tenants arrive one after
// another, each trying to hold 140 PUTs whose bodies trickle. Holdings
// used to be sticky: the first three took 116, 77 and 47 slots, the next
// few two each from the reserve, and the twelfth, like any later tenant,
// got none. A tenant under its fair share now takes a slot back from the
// tenant furthest over it (its oldest waiting request answers 503
// SlowDown, which SDKs retry), so a thirteenth tenant's GETs answer 200
// within 1 s each (milliseconds on an idle node).
func TestFairShareTakenBackFromTenantsArrivingInTurn(t *testing.T) {
	srv := start(t, nodetest.Options{Config: func(c *node.Config) { c.MaxRequests, c.BodyMinRate = 256, 1 }})
	const attackers, each = 12, 140
	keys := make([]creds, attackers)
	for i := range keys {
		keys[i] = tenantWithObject(t, srv, fmt.Sprintf("flood%02d", i))
	}
	newcomer := tenantWithObject(t, srv, "newcomer")
	stop := make(chan struct{})
	defer close(stop)

	floods := make([]*answers, attackers)
	for i, c := range keys {
		f := &answers{got: make([]*stallResult, each), wasHeld: make([]bool, each)}
		for j := range each {
			f.ts = append(f.ts, startTrickle(t, srv, c, fmt.Sprintf("/flood%02d-data/t%d", i, j), 4*time.Second, stop))
		}
		floods[i] = f
		settle(t, srv, floods[:i+1])
		var held []int
		for _, f := range floods[:i+1] {
			held = append(held, f.holding())
		}
		t.Logf("tenant %2d arrived: slots held %v", i+1, held)
	}
	var held []int
	for _, f := range floods {
		held = append(held, f.holding())
	}
	if held[attackers-1] == 0 {
		t.Errorf("the last of %d tenants to arrive holds no slot (held: %v)", attackers, held)
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
				resp, err := srv.Client().Do(signed(t, srv, newcomer, "GET", "/newcomer-data/k", nil, nil))
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
					t.Errorf("the newcomer's GET while %d tenants trickle: %d %s", attackers, resp.StatusCode, b)
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("the newcomer's 20 GETs (4 at once): slowest %v", worst)
	if worst > time.Second {
		t.Errorf("the newcomer's slowest GET took %v, want under 1 s", worst)
	}

	// Every answer an attacker got is 503 SlowDown: refused at once, or
	// ended after holding its slot (preempted), never 500 or 400.
	settle(t, srv, floods)
	preempted := 0
	for i, f := range floods {
		f.poll()
		for j, a := range f.got {
			if a == nil {
				continue
			}
			var e s3Error
			_ = xml.Unmarshal(a.body, &e)
			if a.err != nil || a.status != 503 || e.Code != "SlowDown" {
				t.Errorf("tenant %d's PUT %d answered %d %s (%v), want 503 SlowDown", i+1, j, a.status, a.body, a.err)
			}
			if f.wasHeld[j] {
				preempted++
			}
		}
	}
	t.Logf("%d of the attackers' PUTs were preempted after holding their slots", preempted)
	if preempted == 0 {
		t.Error("no attacker's request was preempted")
	}

	// Nothing of a preempted upload was stored: the attackers go away and
	// each key they were answered for is looked up.
	for _, f := range floods {
		for _, tr := range f.ts {
			tr.conn.Close()
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for n, _ := srv.Node.S3.Load(); n > 0 && time.Now().Before(deadline); n, _ = srv.Node.S3.Load() {
		time.Sleep(50 * time.Millisecond)
	}
	for i, f := range floods {
		for j, a := range f.got {
			if a != nil && f.wasHeld[j] && exists(t, srv, fmt.Sprintf("flood%02d-data", i), fmt.Sprintf("t%d", j)) {
				t.Errorf("tenant %d's preempted PUT %d was stored", i+1, j)
			}
		}
	}
}

// slowGet is a signed GET whose reader takes the response's headers and
// then reads nothing, on a connection with a small receive buffer, so
// that the node's response write blocks.
type slowGet struct {
	conn   net.Conn
	status int
	length int64
	body   io.Reader
}

func startSlowGet(t *testing.T, srv *nodetest.Server, c creds, path string) *slowGet {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	conn, err := d.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := signed(t, srv, c, "GET", path, nil, nil).Write(conn); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReaderSize(conn, 4096), nil)
	if err != nil {
		t.Fatalf("slow GET: %v", err)
	}
	return &slowGet{conn: conn, status: resp.StatusCode, length: resp.ContentLength, body: resp.Body}
}

// A request blocked writing its response to a client that does not read
// is waiting on its client too: three tenants arriving in turn hold the
// slots of max_requests 32 with GETs of an 8 MiB object that are never
// read, and a fourth tenant's GETs answer 200 within 1 s each, taking
// back slots whose blocked writes are cut at once (the reader gets the
// response cut short), while the GETs not taken back are whole.
func TestFairShareTakenBackFromBlockedResponses(t *testing.T) {
	srv := start(t, nodetest.Options{Config: func(c *node.Config) { c.MaxRequests = 32 }})
	big := make([]byte, 8<<20)
	for i := range big {
		big[i] = byte(i)
	}
	var keys []creds
	for _, name := range []string{"sink1", "sink2", "sink3"} {
		c := tenantWithObject(t, srv, name)
		if st, b := do(t, srv, signed(t, srv, c, "PUT", "/"+name+"-data/big", big, nil)); st != 200 {
			t.Fatalf("put big: %d %s", st, b)
		}
		keys = append(keys, c)
	}
	newcomer := tenantWithObject(t, srv, "reader")

	var gets [][]*slowGet
	for i, c := range keys {
		var held []*slowGet
		for range 20 {
			g := startSlowGet(t, srv, c, fmt.Sprintf("/sink%d-data/big", i+1))
			if g.status == 200 {
				held = append(held, g)
			} else if g.status != 503 {
				t.Errorf("a slow GET answered %d, want 200 or 503 SlowDown", g.status)
			}
		}
		gets = append(gets, held)
		t.Logf("tenant %d took %d slots", i+1, len(held))
	}
	if n, _ := srv.Node.S3.Load(); n < 30 {
		t.Fatalf("%d slots of 32 held, want the node full", n)
	}

	var worst time.Duration
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				begin := time.Now()
				resp, err := srv.Client().Do(signed(t, srv, newcomer, "GET", "/reader-data/k", nil, nil))
				if err != nil {
					t.Error(err)
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				mu.Lock()
				worst = max(worst, time.Since(begin))
				mu.Unlock()
				if resp.StatusCode != 200 || string(b) != "hello" {
					t.Errorf("the newcomer's GET while the node is full of blocked GETs: %d %s", resp.StatusCode, b)
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("the newcomer's 12 GETs (4 at once): slowest %v", worst)
	if worst > time.Second {
		t.Errorf("the newcomer's slowest GET took %v, want under 1 s", worst)
	}

	// Read everything now: a GET taken back ends short, the others whole.
	cut := 0
	for _, held := range gets {
		for _, g := range held {
			wg.Add(1)
			go func() {
				defer wg.Done()
				g.conn.SetReadDeadline(time.Now().Add(60 * time.Second))
				n, err := io.Copy(io.Discard, g.body)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case n == g.length && err == nil:
				case n < g.length && err != nil && !errors.Is(err, os.ErrDeadlineExceeded):
					cut++
				default:
					t.Errorf("a slow GET read %d of %d bytes: %v", n, g.length, err)
				}
			}()
		}
	}
	wg.Wait()
	t.Logf("%d of the blocked GETs were cut short", cut)
	if cut == 0 {
		t.Error("no blocked GET was taken back")
	}
}
