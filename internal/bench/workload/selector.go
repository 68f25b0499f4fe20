// Package workload reads workload files (COSBench XML unchanged, and a
// native YAML form of the same model) and runs them on the engine.
package workload

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/ostiumio/ostium/internal/bench/quick"
)

// Selector is a COSBench id or size selector: c(N), u(LO,HI), r(LO,HI),
// s(LO,HI), or, for sizes, h(LO|HI|W,...); sizes carry a unit.
type Selector struct {
	Kind    byte // 'c', 'u', 'r', 's', 'h'
	Lo, Hi  int64
	Buckets []histBucket // h only
	Unit    int64        // bytes per unit, sizes only (decimal, as COSBench)
}

type histBucket struct{ lo, hi, weight int64 }

// ParseSelector reads a selector; sizes allows h() and a unit suffix.
func ParseSelector(s string, sizes bool) (Selector, error) {
	bad := func(why string) (Selector, error) { return Selector{}, fmt.Errorf("selector %q: %s", s, why) }
	open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open != 1 || close < open {
		return bad("want c(N), u(LO,HI), r(LO,HI), s(LO,HI) or h(LO|HI|W,...)")
	}
	sel := Selector{Kind: s[0], Unit: 1}
	args, unit := s[open+1:close], strings.TrimSpace(s[close+1:])
	if sizes {
		// The bench's one unit table: COSBench's decimal units, and
		// binary ones besides.
		u, ok := quick.Unit(unit)
		if !ok {
			return bad("unknown unit " + unit)
		}
		sel.Unit = u
	} else if unit != "" {
		return bad("ids take no unit")
	}
	num := func(t string) (int64, error) {
		n, err := strconv.ParseInt(strings.TrimSpace(t), 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("selector %q: %q is not a count", s, t)
		}
		return n, nil
	}
	switch sel.Kind {
	case 'c':
		n, err := num(args)
		if err != nil {
			return Selector{}, err
		}
		sel.Lo, sel.Hi = n, n
	case 'u', 'r', 's':
		lo, hi, ok := strings.Cut(args, ",")
		if !ok {
			return bad("want two bounds")
		}
		var err error
		if sel.Lo, err = num(lo); err != nil {
			return Selector{}, err
		}
		if sel.Hi, err = num(hi); err != nil {
			return Selector{}, err
		}
		if sel.Hi < sel.Lo {
			return bad("the range runs backwards")
		}
	case 'h':
		if !sizes {
			return bad("h() is for sizes only")
		}
		for _, b := range strings.Split(args, ",") {
			f := strings.Split(b, "|")
			if len(f) != 3 {
				return bad("a histogram bucket is LO|HI|WEIGHT")
			}
			var hb histBucket
			var err error
			for i, p := range []*int64{&hb.lo, &hb.hi, &hb.weight} {
				if *p, err = num(f[i]); err != nil {
					return Selector{}, err
				}
			}
			if hb.hi < hb.lo || hb.weight == 0 {
				return bad("a bucket runs backwards or weighs nothing")
			}
			sel.Buckets = append(sel.Buckets, hb)
		}
	default:
		return bad("unknown selector " + string(sel.Kind))
	}
	return sel, nil
}

// Picker draws values of a selector for one worker.
type Picker struct {
	sel      Selector
	lo, hi   int64         // this worker's slice
	next     int64         // r: the next value of the slice
	shared   *atomic.Int64 // s: the sequence all workers share
	weights  int64
	finished bool
}

// For binds the selector to worker i of n. divided splits u() ranges into
// per-worker slices (the work's division); r() is always split. shared is
// the counter s() workers share (one per selector and work).
func (s Selector) For(i, n int, divided bool, shared *atomic.Int64) *Picker {
	p := &Picker{sel: s, lo: s.Lo, hi: s.Hi, shared: shared}
	if s.Kind == 'r' || s.Kind == 'u' && divided {
		size := s.Hi - s.Lo + 1
		p.lo = s.Lo + size*int64(i)/int64(n)
		p.hi = s.Lo + size*int64(i+1)/int64(n) - 1
	}
	p.next = p.lo
	for _, b := range s.Buckets {
		p.weights += b.weight
	}
	return p
}

// Next draws a value; ok is false once an r() slice is used up (or is
// empty: more workers than ids).
func (p *Picker) Next(r *rand.Rand) (v int64, ok bool) {
	s := p.sel
	switch s.Kind {
	case 'c':
		v = s.Lo
	case 'u':
		if p.hi < p.lo {
			return 0, false
		}
		v = p.lo + r.Int64N(p.hi-p.lo+1)
	case 'r':
		if p.next > p.hi {
			return 0, false
		}
		v = p.next
		p.next++
	case 's':
		v = s.Lo + (p.shared.Add(1)-1)%(s.Hi-s.Lo+1)
	case 'h':
		w := r.Int64N(p.weights)
		for _, b := range s.Buckets {
			if w < b.weight {
				v = b.lo + r.Int64N(b.hi-b.lo+1)
				break
			}
			w -= b.weight
		}
	}
	return v * s.Unit, true
}

// parseConfig reads a COSBench config string: key=value pairs separated by
// semicolons.
func parseConfig(s string) (map[string]string, error) {
	m := map[string]string{}
	for _, kv := range strings.Split(s, ";") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("config %q: %q is not key=value", s, kv)
		}
		m[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return m, nil
}
