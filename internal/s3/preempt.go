package s3

import (
	"container/list"
	"context"
	"errors"
	"time"

	"github.com/ostiumio/ostium/internal/iam"
)

// Preemption makes the shares a guarantee rather than a rule for free
// units only. With M the units tenants may use and n the tenants active
// (holding or waiting for units), the requester included:
//
// A tenant that holds less than M/n, and so would hold at most M/n with
// what it asks (or an anonymous caller within the anonymous budget), and
// finds nothing free for it, ends requests of the tenant furthest over
// M/n (oldest first) until they hold what it asks, and is handed the
// units they free, waiting at most preemptWait for them. Nothing free
// with the requester under M/n means the other tenants hold more than M
// in all, so one of them is over M/n: a victim exists unless the units
// are held by the provider's root (never preempted: it is bounded by the
// whole only), by the console's streams (not preemptible), or by
// requests of the over-share tenants that are not waiting on their
// clients. So however many tenants arrived first and whatever they hold,
// any tenant gets up to M/n units, and a tenant holding nothing gets one,
// within about a second.
//
// Only a request that waits on its client is ended: one blocked reading
// its body, or one blocked writing its response. Its reads and
// writes are cut at once (deadlines of now, its context cancelled), so it
// stores nothing (a body that fails is deleted, never committed), and it
// answers 503 SlowDown with Retry-After, which SDKs retry; a response
// already under way is cut short instead. A request that is not reading
// (it read its body, or its handler has what it needs of it) is
// committing and runs to its end.
//
// The requester's own waiting counts as held, so a burst of a tenant's
// requests takes back no more than its share; every waiter has ended a
// request of its own, so the waiters are bounded by the requests in
// flight.

// preemptWait bounds how long a request waits for the units it took
// back: the requests it ended answer at once, so only a node too loaded
// to unwind them within it answers SlowDown.
const preemptWait = time.Second

// errPreempted is what a preempted request's reads and writes fail with;
// transfer.outcome answers SlowDown for it.
var errPreempted = errors.New("s3: request ended to give its slot to a tenant under its fair share")

// claim is the units one request holds.
type claim struct {
	id *iam.Identity
	n  int64
	t  *transfer     // nil: never preempted
	el *list.Element // in its tenant's claims, if preemptible
	// cut: preempted, its units count as leaving.
	cut bool
}

// waiter is a request waiting for the units it took back.
type waiter struct {
	c       *claim
	granted bool
	ready   chan struct{}
}

// acquire takes n units for id (nil: anonymous) for the request t (nil:
// one that may not be preempted), taking them back from a tenant over its
// fair share if none are free for it; false when neither can be done
// (SlowDown). The claim is given back with release.
func (s *shares) acquire(ctx context.Context, id *iam.Identity, n int64, t *transfer) (*claim, bool) {
	c := &claim{id: id, n: n, t: t}
	if n <= 0 {
		return c, true
	}
	s.mu.Lock()
	if s.admits(id, n) {
		s.count(id, n)
		s.enlist(c)
		s.mu.Unlock()
		return c, true
	}
	victims := s.preempt(id, n)
	if len(victims) == 0 {
		s.mu.Unlock()
		return nil, false
	}
	w := &waiter{c: c, ready: make(chan struct{})}
	s.waiting = append(s.waiting, w)
	s.waits(id, n)
	s.mu.Unlock()
	for _, v := range victims {
		v.interrupt()
	}
	timer := time.NewTimer(preemptWait)
	defer timer.Stop()
	select {
	case <-w.ready:
		return c, true
	case <-timer.C:
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if w.granted {
		return c, true
	}
	for i, o := range s.waiting {
		if o == w {
			s.waiting = append(s.waiting[:i], s.waiting[i+1:]...)
			break
		}
	}
	s.waits(id, -n)
	s.handOff() // the next waiter may ask for less
	return nil, false
}

// release gives back c's units (nil: none).
func (s *shares) release(c *claim) {
	if c == nil || c.n <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.el != nil {
		h := s.tenants[c.id.Tenant]
		h.claims.Remove(c.el)
		if c.cut {
			h.leaving -= c.n
		}
	}
	s.uncount(c.id, c.n)
}

// enlist makes c a candidate for preemption: a tenant's request that can
// be ended.
func (s *shares) enlist(c *claim) {
	if c.t != nil && c.id != nil && !c.id.Root && c.id.Tenant != "" {
		c.el = s.tenants[c.id.Tenant].claims.PushBack(c)
	}
}

// waits counts n units more (or less) that id waits for.
func (s *shares) waits(id *iam.Identity, n int64) {
	if id == nil {
		s.anonWaiting += n
		return
	}
	s.holding(id.Tenant).waiting += n
	s.forget(id.Tenant)
}

// handOff gives free units to the waiters, first come first served.
func (s *shares) handOff() {
	for len(s.waiting) > 0 {
		w := s.waiting[0]
		if w.c.n > s.max-s.inUse {
			return
		}
		s.waiting[0] = nil
		s.waiting = s.waiting[1:]
		s.count(w.c.id, w.c.n)
		s.waits(w.c.id, -w.c.n)
		s.enlist(w.c)
		w.granted = true
		close(w.ready)
	}
}

// preempt marks the requests to end so that id gets n units, if id is
// under its fair share: the oldest of the tenant furthest over its share,
// again until they free n. It returns their transfers, to interrupt once
// the lock is released.
func (s *shares) preempt(id *iam.Identity, n int64) []*transfer {
	active := int64(len(s.tenants))
	switch {
	case id == nil:
		if s.anon+s.anonWaiting+n > s.anonMax {
			return nil
		}
	case id.Root || id.Tenant == "":
		return nil
	default:
		var held int64
		if h := s.tenants[id.Tenant]; h != nil {
			held = h.n + h.waiting
		} else {
			active++
		}
		// It would hold at most M/active.
		if held+n > s.tenantMax || (held+n)*active > s.usable {
			return nil
		}
	}
	var victims []*transfer
	skip := map[*holding]bool{}
	for got := int64(0); got < n; {
		var worst *holding
		var most int64
		for name, h := range s.tenants {
			k := h.n - h.leaving
			if skip[h] || id != nil && name == id.Tenant || k*active <= s.usable || k <= most {
				continue
			}
			worst, most = h, k
		}
		if worst == nil {
			break
		}
		c := worst.oldestWaiting()
		if c == nil {
			skip[worst] = true
			continue
		}
		c.cut = true
		worst.leaving += c.n
		got += c.n
		victims = append(victims, c.t)
	}
	return victims
}

// oldestWaiting marks as cut, and returns, h's oldest request that waits
// on its client; nil if none does.
func (h *holding) oldestWaiting() *claim {
	for e := h.claims.Front(); e != nil; e = e.Next() {
		if c := e.Value.(*claim); !c.cut && c.t.tryCut() {
			return c
		}
	}
	return nil
}

// A request's state, for preemption: bits of transfer.state.
const (
	onBody  int32 = 1 << iota // blocked reading its body from the client
	onWrite                   // a response write is under way
	cutOff                    // preempted
)

// tryCut marks the request preempted if it waits on its client.
func (t *transfer) tryCut() bool {
	for {
		st := t.state.Load()
		if st&cutOff != 0 || st&(onBody|onWrite) == 0 {
			return false
		}
		if t.state.CompareAndSwap(st, st|cutOff) {
			return true
		}
	}
}

func (t *transfer) isCut() bool { return t.state.Load()&cutOff != 0 }

// mark sets or clears bit, reporting false (and changing nothing) once
// the request is preempted.
func (t *transfer) mark(bit int32, on bool) bool {
	for {
		st := t.state.Load()
		if st&cutOff != 0 {
			return false
		}
		next := st &^ bit
		if on {
			next = st | bit
		}
		if t.state.CompareAndSwap(st, next) {
			return true
		}
	}
}

// interrupt ends a preempted request's wait on its client at once: a
// blocked body read or response write fails, and so does whatever uses
// its context. Nothing is touched once the request is over (its
// connection may serve another).
func (t *transfer) interrupt() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done {
		return
	}
	now := time.Now()
	_ = t.rc.SetReadDeadline(now)
	_ = t.rc.SetWriteDeadline(now)
	t.cancel()
}

// writing brackets a response write: false if the request was preempted
// (and is not answering for it), done to call after the write.
func (t *transfer) writing() (ok bool, done func()) {
	if t.mark(onWrite, true) {
		return true, func() { t.mark(onWrite, false) }
	}
	return t.answering.Load(), func() {}
}

// cutSince tells whether the request was preempted after a write that
// began as ok set its deadline: the interrupt's deadline may have come
// first and been overwritten.
func (t *transfer) cutSince() bool { return t.isCut() && !t.answering.Load() }
