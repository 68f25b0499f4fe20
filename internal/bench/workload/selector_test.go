package workload

import (
	"math/rand/v2"
	"sync/atomic"
	"testing"
)

func mustSel(t *testing.T, s string, sizes bool) Selector {
	t.Helper()
	sel, err := ParseSelector(s, sizes)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}

func TestSelectors(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	if v, _ := mustSel(t, "c(64)KB", true).For(0, 1, false, nil).Next(r); v != 64000 {
		t.Fatalf("c(64)KB = %d, want 64000 (decimal units, as COSBench)", v)
	}
	// r(): every id once, split among workers in contiguous slices.
	seen := map[int64]int{}
	for w := range 3 {
		p := mustSel(t, "r(1,10)", false).For(w, 3, false, nil)
		last := int64(0)
		for {
			v, ok := p.Next(r)
			if !ok {
				break
			}
			if v <= last {
				t.Fatalf("worker %d walked back to %d", w, v)
			}
			last = v
			seen[v]++
		}
	}
	if len(seen) != 10 {
		t.Fatalf("r(1,10) over 3 workers touched %v", seen)
	}
	for v, n := range seen {
		if n != 1 || v < 1 || v > 10 {
			t.Fatalf("id %d drawn %d times", v, n)
		}
	}
	// u() draws every value about equally often.
	counts := make([]int, 11)
	up := mustSel(t, "u(1,10)", false).For(0, 1, false, nil)
	for range 50_000 {
		v, _ := up.Next(r)
		counts[v]++
	}
	for v := 1; v <= 10; v++ {
		if counts[v] < 4700 || counts[v] > 5300 {
			t.Fatalf("u(1,10) drew %d %d times of 50,000", v, counts[v])
		}
	}
	// u() with a division: each worker stays in its slice.
	for w := range 4 {
		p := mustSel(t, "u(1,100)", false).For(w, 4, true, nil)
		for range 200 {
			v, _ := p.Next(r)
			if v < int64(1+25*w) || v > int64(25*(w+1)) {
				t.Fatalf("worker %d drew %d outside its slice", w, v)
			}
		}
	}
	// s(): one shared sequence, wrapping.
	var shared atomic.Int64
	sel := mustSel(t, "s(5,7)", false)
	a, b := sel.For(0, 2, false, &shared), sel.For(1, 2, false, &shared)
	var got []int64
	for i := range 6 {
		p := a
		if i%2 == 1 {
			p = b
		}
		v, _ := p.Next(r)
		got = append(got, v)
	}
	if want := []int64{5, 6, 7, 5, 6, 7}; !equal(got, want) {
		t.Fatalf("s(5,7) gave %v", got)
	}
	// h(): buckets by weight.
	h := mustSel(t, "h(1|1|50,64|64|35,1024|1024|15)KB", true).For(0, 1, false, nil)
	count := map[int64]int{}
	for range 10000 {
		v, _ := h.Next(r)
		count[v]++
	}
	if len(count) != 3 || count[1000] < 4700 || count[1000] > 5300 || count[1024000] < 1300 || count[1024000] > 1700 {
		t.Fatalf("h() drew %v", count)
	}
	for _, bad := range []string{"x(1)", "u(5,1)", "c(1", "h(1|2)KB", "c(1)QB"} {
		if _, err := ParseSelector(bad, true); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if _, err := ParseSelector("c(1)KB", false); err == nil {
		t.Error("an id selector with a unit accepted")
	}
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
