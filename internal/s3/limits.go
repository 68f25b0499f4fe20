package s3

import (
	"container/list"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ostiumio/ostium/internal/iam"
)

// shares hand out one of a node's capacities (its request slots, the
// memory of the request documents it reads) so that no one caller, and no
// group of tenants, can take it all: anonymous requests have a budget of
// their own, tenants share the rest max-min fairly, and the provider's
// root is bounded only by the whole.
//
// The tenants' rule for free units, with M the units tenants may use (the
// whole less the anonymous budget) and n the tenants holding some:
//
//   - a tenant holding nothing may take any free units;
//   - a tenant holding some may take more only while it holds less than
//     M/(n+1), and never more than its cap (tenant_share), so that one
//     share is left over for the next tenant to arrive;
//   - the last sixteenth of the whole is a reserve that only callers
//     holding little (less than an eighth of the reserve) may dig into;
//     anonymous requests count as one holder for it.
//
// Holdings are sticky, though: tenants arriving one after another each
// take what is free, and a dozen of them can hold everything. So when
// nothing is free, units are taken back (preempt.go): a tenant holding
// less than its fair share M/n (n the active tenants, itself included),
// or an anonymous caller within its budget, ends the oldest waiting
// request of the tenant furthest over M/n and is handed the units it
// frees. Any tenant therefore gets up to M/n, whatever the others did
// first; preempt.go states the guarantee and its limits precisely.
//
// One mutex guards a few integers, a map and short lists: the critical
// section is a map access (a walk of one tenant's requests to preempt),
// far cheaper than anything a request then does, and the map holds only
// tenants with requests in flight or waiting.
type shares struct {
	max, anonMax, tenantMax int64
	// usable is M above; reserve the units kept for callers holding less
	// than few.
	usable, reserve, few int64

	mu      sync.Mutex
	inUse   int64
	anon    int64
	tenants map[string]*holding
	// anonWaiting is what anonymous waiters ask for; waiting the
	// requests waiting for units taken back, first come first served.
	anonWaiting int64
	waiting     []*waiter
}

// holding is what one tenant holds and waits for.
type holding struct {
	n int64
	// waiting is the units its waiters ask for; leaving those of its
	// requests preempted that have not given them back yet.
	waiting, leaving int64
	// claims are its preemptible requests, oldest first.
	claims list.List
}

func newShares(total, anon, tenant int64) *shares {
	s := &shares{max: total, anonMax: min(anon, total), tenantMax: min(tenant, total), tenants: map[string]*holding{}}
	s.usable = max(s.max-s.anonMax, 1)
	s.reserve = s.max / 16
	s.few = max(s.reserve/8, 1)
	return s
}

// take reserves n units for id (nil: anonymous), reporting false when
// id's share or the node's whole is spent. They are not taken back.
func (s *shares) take(id *iam.Identity, n int64) bool {
	if n <= 0 {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.admits(id, n) {
		return false
	}
	s.count(id, n)
	return true
}

// admits tells whether id may take n of the free units.
func (s *shares) admits(id *iam.Identity, n int64) bool {
	free := s.max - s.inUse
	if n > free {
		return false
	}
	// Digging into the reserve is for those holding little.
	reserved := free-n < s.reserve
	switch {
	case id == nil:
		return s.anon+n <= s.anonMax && !(reserved && s.anon >= s.few)
	case id.Root || id.Tenant == "":
		return true
	}
	var held int64
	if h := s.tenants[id.Tenant]; h != nil {
		held = h.n
	}
	return s.fair(held, n, len(s.tenants)) && !(reserved && held >= s.few)
}

// fair tells whether a tenant holding held may take n more while active
// tenants (itself included, if it holds any) hold some.
func (s *shares) fair(held, n int64, active int) bool {
	if held+n > s.tenantMax {
		return false
	}
	// held < usable/(active+1), in integers.
	return held == 0 || held*int64(active+1) < s.usable
}

// count adds n units to what id holds.
func (s *shares) count(id *iam.Identity, n int64) {
	s.inUse += n
	switch {
	case id == nil:
		s.anon += n
	case id.Root || id.Tenant == "":
	default:
		s.holding(id.Tenant).n += n
	}
}

func (s *shares) holding(tenant string) *holding {
	h := s.tenants[tenant]
	if h == nil {
		h = &holding{}
		s.tenants[tenant] = h
	}
	return h
}

// forget drops tenant's holding once it holds and waits for nothing.
func (s *shares) forget(tenant string) {
	if h := s.tenants[tenant]; h != nil && h.n <= 0 && h.waiting <= 0 {
		delete(s.tenants, tenant)
	}
}

// give returns n units take reserved for id.
func (s *shares) give(id *iam.Identity, n int64) {
	if n <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.uncount(id, n)
}

// uncount returns n units of id's and hands what is free to waiters.
func (s *shares) uncount(id *iam.Identity, n int64) {
	s.inUse -= n
	switch {
	case id == nil:
		s.anon -= n
	case id.Root || id.Tenant == "":
	default:
		if h := s.tenants[id.Tenant]; h != nil {
			h.n -= n
			s.forget(id.Tenant)
		}
	}
	s.handOff()
}

// coldKeys bounds the access key lookups that read the catalog, which
// come before the caller is known: at most cap(budget) keys at once
// (apart from the anonymous slots, so that an anonymous flood does not
// refuse tenants whose keys left the cache), and one lookup per key, which
// the other requests signed with it wait for (a tenant's burst is one).
type coldKeys struct {
	budget  chan struct{}
	mu      sync.Mutex
	loading map[string]chan struct{}
}

func newColdKeys(n int) *coldKeys {
	return &coldKeys{budget: make(chan struct{}, max(n, 1)), loading: map[string]chan struct{}{}}
}

// load runs fill for key, or waits for the request already running it;
// with the budget spent it returns SlowDown.
func (c *coldKeys) load(ctx context.Context, key string, fill func()) error {
	c.mu.Lock()
	if done, ok := c.loading[key]; ok {
		c.mu.Unlock()
		select {
		case <-done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	select {
	case c.budget <- struct{}{}:
	default:
		c.mu.Unlock()
		return &errSlowDown
	}
	done := make(chan struct{})
	c.loading[key] = done
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.loading, key)
		c.mu.Unlock()
		close(done)
		<-c.budget
	}()
	fill()
	return nil
}

// Load reports the requests being served and the most the node serves at
// once.
func (s *Server) Load() (inUse, max int) {
	s.slots.mu.Lock()
	defer s.slots.mu.Unlock()
	return int(s.slots.inUse), int(s.slots.max)
}

// Saturated reports whether nearly every slot is taken (a tenth or less
// free): the readiness check then fails so that the balancer sends new
// connections to other nodes before this one answers SlowDown.
func (s *Server) Saturated() bool {
	inUse, max := s.Load()
	return max-inUse <= max/10
}

// dispatch runs c's handler in a slot of its caller's budget. It comes
// after authentication, which reads no body, so that a request is counted
// against whoever it turned out to be; admission's catalog reads, if any,
// hit the bucket cache.
//
// A form upload (PostObject) says who sends it in its body: it reads
// its fields (bounded, as headers are) before it takes the slot of
// whoever signed them (takeSlot), so that an anonymous flood does not
// refuse signed uploads.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request, c *call) error {
	if c.Op != OpPostObject {
		slot, ok := s.slots.acquire(r.Context(), c.id, 1, c.t)
		if !ok {
			return &errSlowDown
		}
		c.slot = slot
	}
	defer func() { s.slots.release(c.slot) }()
	if c.slot != nil {
		s.corsHeaders(w, r, c, false)
	}
	// A document is read into memory (or, CompleteMultipartUpload's,
	// parsed as it streams) only once its size is reserved from its
	// caller's share of the node's document memory.
	if doc, ok := documents[c.Op]; ok && c.slot != nil {
		mem, ok := s.docs.acquire(r.Context(), c.slot.id, documentSize(r, c, doc.limit), c.t)
		if !ok {
			return &errSlowDown
		}
		defer s.docs.release(mem)
	}
	if c.serveWith != nil {
		return c.serveWith(s, w, r, c)
	}
	return handlers[c.Op](s, w, r, c)
}

// takeSlot gives a request the slot of id's budget once it turns out
// who is asking after its handler began (a form upload's signature is
// in its body), giving back any it held: SlowDown if id's budget is
// spent, and the request then holds none.
func (s *Server) takeSlot(ctx context.Context, c *call, id *iam.Identity) error {
	s.slots.release(c.slot)
	c.slot = nil
	slot, ok := s.slots.acquire(ctx, id, 1, c.t)
	if !ok {
		return &errSlowDown
	}
	c.slot = slot
	return nil
}

// Defaults of a request in flight (node.Config can change them).
const (
	DefaultIdleTimeout    = 30 * time.Second
	DefaultRequestTimeout = 5 * time.Minute
	// DefaultMinBodyRate is the average rate a request body must keep
	// (bytes a second) once it has been read for the idle timeout: 4 KiB/s
	// (32 kbit/s), which any working link exceeds, and which bounds how
	// long a body of size s may hold its slot to s/4 KiB seconds.
	DefaultMinBodyRate = 4 << 10
	// DefaultDocumentMemory is the node's budget for request documents.
	DefaultDocumentMemory = 256 << 20
)

// timing is what each request is held to: the idle and request timeouts
// and the minimum rate of its body.
type timing struct {
	idle, limit time.Duration
	minRate     int64 // bytes a second; 0: none
}

// transfer watches one request's progress: each body byte read or
// response byte written moves its deadlines on. A socket that neither
// gives nor takes a byte for the idle timeout is cut (request bodies get
// 400 RequestTimeout, as from AWS); a request that makes no progress for
// the request timeout (a catalog or a platform that stopped answering)
// has its context cancelled and gets 503. So a slow upload or download
// lasts as long as it keeps moving, and nothing waits forever.
//
// Moving is not enough for a request body, though: one that sends a few
// bytes just within every idle timeout would hold its slot for ever.
// Once the node has waited on a body for the idle timeout, the body must
// have kept the minimum rate on average over that wait, or it gets 400
// RequestTimeout too. The wait counted is the time spent in the body's
// reads, not the time the node spent elsewhere (writing to a slow
// platform), so a client is held to its own pace only.
type transfer struct {
	rc *http.ResponseController
	timing
	cancel  context.CancelFunc
	mu      sync.Mutex // guards timer (made after check may be armed) and done
	timer   *time.Timer
	done    bool
	last    atomic.Int64 // unix nanoseconds of the latest progress
	readTO  atomic.Bool  // a body read hit the idle timeout
	stalled atomic.Bool  // the request timeout fired
	// state is what the request waits on, for preemption (preempt.go);
	// answering that a preempted request is answering SlowDown.
	state     atomic.Int32
	answering atomic.Bool
}

// watch starts watching r's progress; stop ends it. The returned request
// carries the context the request timeout cancels.
func watch(w http.ResponseWriter, r *http.Request, tm timing) (*transfer, *http.Request) {
	t := &transfer{rc: http.NewResponseController(w), timing: tm}
	t.last.Store(time.Now().UnixNano())
	ctx, cancel := context.WithCancel(r.Context())
	t.cancel = cancel
	t.mu.Lock()
	t.timer = time.AfterFunc(tm.limit, t.check)
	t.mu.Unlock()
	// A deadline left by this connection's previous response must not cut
	// this one's first write (the server's own "100 Continue").
	_ = t.rc.SetWriteDeadline(time.Time{})
	r = r.WithContext(ctx)
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = &idleBody{ReadCloser: r.Body, t: t}
	}
	return t, r
}

// check runs when the request timeout may have passed since the latest
// progress: it cancels the request, or waits for the rest of the time.
func (t *transfer) check() {
	left := t.limit - time.Since(time.Unix(0, t.last.Load()))
	if left > 0 {
		t.mu.Lock()
		if !t.done {
			t.timer.Reset(left)
		}
		t.mu.Unlock()
		return
	}
	t.stalled.Store(true)
	t.cancel()
}

// stop ends the watch. The deadlines it leaves bound what the server does
// after the handler: reading what is left of an unread body (up to 256
// KiB, before the response goes out, so that the connection can serve
// another request), then flushing the response; the server sets its own
// for the next request.
func (t *transfer) stop() {
	t.mu.Lock()
	t.timer.Stop()
	t.done = true
	t.mu.Unlock()
	t.cancel()
	now := time.Now()
	read := now.Add(t.idle)
	if t.readTO.Load() || t.isCut() {
		read = now // that body has had its time: close after the response
	}
	_ = t.rc.SetReadDeadline(read)
	_ = t.rc.SetWriteDeadline(now.Add(2 * t.idle))
}

// outcome replaces the error of a request cut by a timeout or preempted,
// whatever the layers below made of the cut.
func (t *transfer) outcome(c *call, err error) error {
	switch {
	case err == nil:
	case t.isCut():
		t.answering.Store(true)
		return &errSlowDown
	case t.readTO.Load():
		return &errRequestTimeout
	case t.stalled.Load():
		slog.Warn("request stalled past the request timeout", "op", c.Op.String(), "bucket", c.Bucket, "key", c.Key,
			"request_id", c.reqID, "timeout", t.limit, "err", err)
		return &errUnavailable
	}
	return err
}

// progress records that bytes moved at now.
func (t *transfer) progress(now time.Time) { t.last.Store(now.UnixNano()) }

// idleBody is a request body whose every read must make progress within
// the idle timeout, and which must keep the minimum rate on average.
type idleBody struct {
	io.ReadCloser
	t *transfer
	// read is the bytes read so far, waited the time spent waiting in
	// reads for them.
	read   int64
	waited time.Duration
}

func (b *idleBody) Read(p []byte) (int, error) {
	if b.t.isCut() {
		return 0, errPreempted
	}
	start := time.Now()
	wait := b.t.idle
	if rate := b.t.minRate; rate > 0 {
		// The wait this body has earned: the idle timeout, or the time
		// its bytes so far last at the minimum rate, less what it has had.
		earned := b.t.idle
		if secs := float64(b.read) / float64(rate); secs > earned.Seconds() {
			earned = time.Duration(min(secs, 1<<32) * float64(time.Second))
		}
		if left := earned - b.waited; left < wait {
			wait = left
		}
		if wait <= 0 {
			b.t.readTO.Store(true)
			return 0, &errRequestTimeout
		}
	}
	// Preemptible only while it waits on its client in a read: a request
	// that stopped reading (it read its body, or its handler has what it
	// needs of it) is committing and runs to its end.
	if !b.t.mark(onBody, true) {
		return 0, errPreempted
	}
	_ = b.t.rc.SetReadDeadline(start.Add(wait))
	if b.t.isCut() { // preempted before that deadline was set
		return 0, errPreempted
	}
	n, err := b.ReadCloser.Read(p)
	if !b.t.mark(onBody, false) {
		return n, errPreempted
	}
	now := time.Now()
	b.read += int64(n)
	b.waited += now.Sub(start)
	if n > 0 {
		b.t.progress(now)
	}
	switch {
	case err == io.EOF:
		// net/http now reads the connection in the background to notice a
		// client that goes away; a deadline left here would cancel the
		// request once the idle timeout passed, even as it commits.
		_ = b.t.rc.SetReadDeadline(time.Time{})
	case err != nil && b.t.isCut():
		return n, errPreempted
	case err != nil && (errors.Is(err, os.ErrDeadlineExceeded) || os.IsTimeout(err)):
		b.t.readTO.Store(true)
		return n, &errRequestTimeout
	}
	return n, err
}

// idleWriter is the response writer whose every write must go out within
// the idle timeout.
type idleWriter struct {
	http.ResponseWriter
	t *transfer
}

func (w *idleWriter) WriteHeader(status int) {
	// A response with no body goes out after the handler; stop sets the
	// deadline for that.
	w.ResponseWriter.WriteHeader(status)
}

func (w *idleWriter) Write(p []byte) (int, error) {
	ok, done := w.t.writing()
	defer done()
	if !ok {
		return 0, errPreempted
	}
	_ = w.t.rc.SetWriteDeadline(time.Now().Add(w.t.idle))
	if w.t.cutSince() {
		return 0, errPreempted
	}
	n, err := w.ResponseWriter.Write(p)
	if n > 0 {
		w.t.progress(time.Now())
	}
	return n, err
}

// sendChunk is how much of a file one write deadline covers: a reader
// slower than sendChunk per idle timeout (8.7 KB/s at 30 s) is cut.
const sendChunk = 256 << 10

var copyBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// ReadFrom keeps net/http's sendfile path for a file range (what the fs
// driver hands over), in chunks so that each has its own deadline; other
// readers are copied through Write.
func (w *idleWriter) ReadFrom(src io.Reader) (int64, error) {
	rf, ok := w.ResponseWriter.(io.ReaderFrom)
	lr, isRange := src.(*io.LimitedReader)
	if isRange {
		_, isRange = lr.R.(*os.File)
	}
	if !ok || !isRange {
		buf := copyBufs.Get().(*[]byte)
		defer copyBufs.Put(buf)
		return io.CopyBuffer(struct{ io.Writer }{w}, src, *buf)
	}
	ok, done := w.t.writing()
	defer done()
	if !ok {
		return 0, errPreempted
	}
	var total int64
	for lr.N > 0 {
		rest := lr.N
		lr.N = min(rest, sendChunk)
		want := lr.N
		_ = w.t.rc.SetWriteDeadline(time.Now().Add(w.t.idle))
		if w.t.cutSince() {
			lr.N = rest
			return total, errPreempted
		}
		n, err := rf.ReadFrom(lr)
		total += n
		lr.N = rest - n
		if n > 0 {
			w.t.progress(time.Now())
		}
		if err != nil {
			return total, err
		}
		if n < want { // the file ended early
			return total, nil
		}
	}
	return total, nil
}

// Unwrap lets http.ResponseController reach the connection.
func (w *idleWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
