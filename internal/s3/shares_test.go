package s3

import (
	"testing"

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
