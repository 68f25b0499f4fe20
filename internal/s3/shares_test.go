package s3

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/iam"
)

// fill takes units one at a time for id until refused, returning how
// many it got.
func fill(s *shares, id *iam.Identity) int64 {
	var n int64
	for s.take(id, 1) {
		n++
	}
	return n
}

// The share rule on 256 slots (25 anonymous, a cap of 128 per tenant,
// so 231 usable by tenants and a reserve of 16 for those holding fewer
// than 2): a tenant's share shrinks as others become active, one over
// its share keeps what it holds but gets no more, newcomers always find
// room, and the root is bounded by the whole only.
func TestSharesMaxMinFair(t *testing.T) {
	s := newShares(256, 25, 128)
	a, b := &iam.Identity{Tenant: "a"}, &iam.Identity{Tenant: "b"}

	// Alone, a takes while it holds less than 231/2.
	if got := fill(s, a); got != 116 {
		t.Fatalf("a alone took %d slots, want 116 (while holding less than 231/2)", got)
	}
	// With a active, b takes while it holds less than 231/3; a, over
	// that, gets none.
	if got := fill(s, b); got != 77 {
		t.Fatalf("b beside a took %d, want 77 (while holding less than 231/3)", got)
	}
	if s.take(a, 1) {
		t.Fatal("a, over its share of 231/3, took another slot")
	}
	// A newcomer takes the free slots down to the reserve (256-193-16).
	c := &iam.Identity{Tenant: "c"}
	if got := fill(s, c); got != 47 {
		t.Fatalf("c took %d, want the 47 free above the reserve", got)
	}
	// The reserve serves those holding little: eight newcomers take two
	// each; the ninth finds none, and neither does an anonymous request.
	for i := range 8 {
		if got := fill(s, &iam.Identity{Tenant: string(rune('d' + i))}); got != 2 {
			t.Fatalf("newcomer %d took %d of the reserve, want 2", i, got)
		}
	}
	if s.take(&iam.Identity{Tenant: "z"}, 1) || s.take(nil, 1) {
		t.Fatal("a slot taken beyond the whole")
	}
	// Given back, the slots go to whoever is under its share: a, holding
	// 116 of a share of 231/12 with eleven tenants active, gets none; a newcomer does.
	for range 10 {
		s.give(b, 1)
	}
	if s.take(a, 1) {
		t.Fatal("a, over its share, took a slot given back")
	}
	if !s.take(nil, 1) || !s.take(&iam.Identity{Tenant: "z"}, 1) {
		t.Fatal("an anonymous request or a newcomer found no slot among those given back")
	}
	// The root is bounded by the whole only.
	root := &iam.Identity{Root: true}
	if got := fill(s, root); got != 8 {
		t.Fatalf("root took %d, want the 8 left", got)
	}
	if s.inUse != s.max {
		t.Fatalf("%d of %d in use", s.inUse, s.max)
	}
}

// The anonymous budget is a cap of its own; a tenant's cap (tenant_share)
// holds whatever its fair share; units come back whole.
func TestSharesCapsAndBytes(t *testing.T) {
	s := newShares(100, 10, 20)
	if got := fill(s, nil); got != 10 {
		t.Fatalf("anonymous took %d, want its budget of 10", got)
	}
	a := &iam.Identity{Tenant: "a"}
	if got := fill(s, a); got != 20 {
		t.Fatalf("a took %d, want its cap of 20", got)
	}

	// Bytes: a 256 MiB budget, 5 MiB documents. One tenant alone holds
	// about half of what tenants may use, and is then refused while a
	// newcomer is served.
	const mib = 1 << 20
	m := newShares(256*mib, 25*mib, 128*mib)
	var n int
	for m.take(a, 5*mib) {
		n++
	}
	if n < 20 || n > 25 {
		t.Fatalf("one tenant held %d documents of 5 MiB in 256 MiB, want about half", n)
	}
	if !m.take(&iam.Identity{Tenant: "b"}, 5*mib) {
		t.Fatal("a newcomer's document refused while one tenant holds its share")
	}
	m.give(&iam.Identity{Tenant: "b"}, 5*mib)
	for range n {
		m.give(a, 5*mib)
	}
	if m.inUse != 0 || len(m.tenants) != 0 {
		t.Fatalf("after every give: %d in use, %d tenants", m.inUse, len(m.tenants))
	}
}

// waitingOn is a request waiting on its client (blocked reading its
// body).
func waitingOn() *transfer {
	_, cancel := context.WithCancel(context.Background())
	t := &transfer{rc: http.NewResponseController(httptest.NewRecorder()), cancel: cancel}
	t.state.Store(onBody)
	return t
}

// flood acquires the free units id may take one at a time (each for a
// request of its own, waiting on its client), returning the claims.
func flood(s *shares, id *iam.Identity) []*claim {
	var cs []*claim
	for {
		s.mu.Lock()
		free := s.admits(id, 1)
		s.mu.Unlock()
		if !free {
			return cs
		}
		c, _ := s.acquire(context.Background(), id, 1, waitingOn())
		cs = append(cs, c)
	}
}

// acquired is the answer of an acquire run in the background.
type acquired struct {
	c  *claim
	ok bool
}

func acquireAsync(s *shares, id *iam.Identity) <-chan acquired {
	ch := make(chan acquired, 1)
	go func() {
		c, ok := s.acquire(context.Background(), id, 1, waitingOn())
		ch <- acquired{c, ok}
	}()
	return ch
}

// cut lists which of cs were preempted.
func cut(cs []*claim) []int {
	var out []int
	for i, c := range cs {
		if c.t.isCut() {
			out = append(out, i)
		}
	}
	return out
}

// With nothing free, a tenant under its fair share ends the oldest
// request still waiting on its client of the tenant furthest over its
// share, and is handed the slot that request gives back; a committing
// request is passed over; nobody over its share, nor the root, takes a
// slot back, and the root is never taken from.
func TestSharesPreemptVictim(t *testing.T) {
	s := newShares(256, 25, 128)
	a, b, c, d := &iam.Identity{Tenant: "a"}, &iam.Identity{Tenant: "b"}, &iam.Identity{Tenant: "c"}, &iam.Identity{Tenant: "d"}
	as, bs, cs := flood(s, a), flood(s, b), flood(s, c)
	if len(as) != 116 || len(bs) != 77 || len(cs) != 47 {
		t.Fatalf("a, b, c took %d, %d, %d, want 116, 77, 47 (as take does)", len(as), len(bs), len(cs))
	}
	root := &iam.Identity{Root: true}
	rootClaim, ok := s.acquire(context.Background(), root, 1, waitingOn())
	if !ok {
		t.Fatal("the root found no slot with the reserve free")
	}
	// d takes two of the reserve, as before.
	flood(s, d)
	if s.inUse != 116+77+47+1+2 {
		t.Fatalf("%d in use, want a's, b's, c's, the root's and 2 for d", s.inUse)
	}
	// The rest of the reserve goes to newcomers, two each; the root takes
	// what is left of the whole.
	for i := range 7 {
		flood(s, &iam.Identity{Tenant: string(rune('e' + i))})
	}
	for s.take(root, 1) {
	}
	if s.inUse != s.max {
		t.Fatalf("%d of %d in use", s.inUse, s.max)
	}

	// a, furthest over its share (231/11), is the victim; its oldest
	// request is ended, unless it is committing (its body read whole).
	as[0].t.state.Store(0)
	got := acquireAsync(s, d)
	deadline := time.Now().Add(5 * time.Second)
	for len(cut(as)) == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if w := cut(as); len(w) != 1 || w[0] != 1 {
		t.Fatalf("a's requests ended: %v, want its oldest waiting on its client (1; 0 is committing)", w)
	}
	if len(cut(bs))+len(cut(cs)) != 0 || rootClaim.t.isCut() {
		t.Fatal("a request of b, c or the root was ended, not a's")
	}
	select {
	case <-got:
		t.Fatal("d got a slot before the ended request gave its back")
	case <-time.After(50 * time.Millisecond):
	}
	s.release(as[1])
	if r := <-got; !r.ok {
		t.Fatal("d was not handed the slot a's ended request gave back")
	} else if s.tenants["d"].n != 3 || s.tenants["a"].n != 115 || s.inUse != s.max {
		t.Fatalf("after the hand-off: d holds %d, a %d, %d in use", s.tenants["d"].n, s.tenants["a"].n, s.inUse)
	}

	// Over its share, a takes nothing back (and is refused at once); nor
	// does the root; an anonymous caller within its budget does.
	for _, id := range []*iam.Identity{a, root} {
		if _, ok := s.acquire(context.Background(), id, 1, waitingOn()); ok {
			t.Fatalf("%+v, over its share or the root, got a slot of a full node", id)
		}
	}
	if w := cut(as); len(w) != 1 {
		t.Fatalf("a refused request ended others: %v", w)
	}
	got = acquireAsync(s, nil)
	for len(cut(as)) == 1 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if w := cut(as); len(w) != 2 || w[1] != 2 {
		t.Fatalf("for an anonymous caller, a's requests ended: %v, want 1 and 2", w)
	}
	s.release(as[2])
	if r := <-got; !r.ok || s.anon != 1 {
		t.Fatalf("the anonymous caller got %v, anonymous holds %d", r.ok, s.anon)
	}

	// A victim that never gives back leaves the waiter with SlowDown after
	// preemptWait, and nothing counted as waiting.
	begin := time.Now()
	if _, ok := s.acquire(context.Background(), d, 1, waitingOn()); ok {
		t.Fatal("a slot that was never given back was handed on")
	}
	if d := time.Since(begin); d < preemptWait {
		t.Fatalf("gave up after %v, want preemptWait", d)
	}
	if len(s.waiting) != 0 || s.tenants["d"].waiting != 0 || s.tenants["a"].leaving != 1 {
		t.Fatalf("after the wait: %d waiters, d waits for %d, a has %d leaving", len(s.waiting), s.tenants["d"].waiting, s.tenants["a"].leaving)
	}
	// That slot, given back at last, goes to whoever asks.
	s.release(as[3])
	if s.tenants["a"].leaving != 0 || s.inUse != s.max-1 {
		t.Fatalf("a has %d leaving, %d in use", s.tenants["a"].leaving, s.inUse)
	}
}

// A burst from one tenant takes back no more than the others hold over
// their shares: what it waits for counts as held, and no tenant is taken
// below its share.
func TestSharesPreemptBurstBounded(t *testing.T) {
	s := newShares(64, 0, 64)
	a, b, c := &iam.Identity{Tenant: "a"}, &iam.Identity{Tenant: "b"}, &iam.Identity{Tenant: "c"}
	as, cs := flood(s, a), flood(s, c)
	for s.take(&iam.Identity{Root: true}, 1) {
	}
	if len(as) != 32 || len(cs) != 22 || s.inUse != 64 {
		t.Fatalf("a took %d, c %d, %d in use", len(as), len(cs), s.inUse)
	}
	// b arrives: the share is 64/3, so a (32) is 11 over it and c (22) 1.
	var gots []<-chan acquired
	for range 20 {
		gots = append(gots, acquireAsync(s, b))
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(cut(as))+len(cut(cs)) < 12 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	if na, nc := len(cut(as)), len(cut(cs)); na != 11 || nc != 1 {
		t.Fatalf("20 requests of b ended %d of a's and %d of c's, want 11 and 1", na, nc)
	}
	for _, x := range append(as, cs...) {
		if x.t.isCut() {
			s.release(x)
		}
	}
	granted := 0
	for _, g := range gots {
		if r := <-g; r.ok {
			granted++
		}
	}
	if granted != 12 || s.tenants["b"].n != 12 || s.tenants["b"].waiting != 0 {
		t.Fatalf("b was handed %d (holds %d, waits for %d), want the 12 taken back", granted, s.tenants["b"].n, s.tenants["b"].waiting)
	}
}

// Document memory is taken back the same way: a newcomer asking for 3
// MiB of a full budget held in 1 MiB documents ends the three oldest of
// the tenant furthest over its share, and is handed the 3 MiB once they
// are given back.
func TestSharesPreemptBytes(t *testing.T) {
	const mib = 1 << 20
	s := newShares(64*mib, 0, 64*mib)
	a, b, c := &iam.Identity{Tenant: "a"}, &iam.Identity{Tenant: "b"}, &iam.Identity{Tenant: "c"}
	docs := func(id *iam.Identity) []*claim {
		var cs []*claim
		for {
			s.mu.Lock()
			free := s.admits(id, mib)
			s.mu.Unlock()
			if !free {
				return cs
			}
			c, _ := s.acquire(context.Background(), id, mib, waitingOn())
			cs = append(cs, c)
		}
	}
	as, cs := docs(a), docs(c)
	for s.take(&iam.Identity{Root: true}, mib) {
	}
	if len(as) != 32 || len(cs) != 22 || s.inUse != 64*mib {
		t.Fatalf("a holds %d MiB, c %d, %d MiB in use", len(as), len(cs), s.inUse/mib)
	}
	got := make(chan bool, 1)
	go func() {
		_, ok := s.acquire(context.Background(), b, 3*mib, waitingOn())
		got <- ok
	}()
	deadline := time.Now().Add(5 * time.Second)
	for len(cut(as)) < 3 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if w := cut(as); len(w) != 3 || w[0] != 0 || w[2] != 2 || len(cut(cs)) != 0 {
		t.Fatalf("a's documents ended: %v (and %d of c's), want a's three oldest", w, len(cut(cs)))
	}
	for _, c := range as[:3] {
		s.release(c)
	}
	if !<-got || s.tenants["b"].n != 3*mib || s.tenants["a"].n != 29*mib {
		t.Fatalf("b holds %d MiB, a %d", s.tenants["b"].n/mib, s.tenants["a"].n/mib)
	}
}
