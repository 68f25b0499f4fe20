// Package histogram records latencies at microsecond resolution, so that
// percentiles come from every sample (not from averaged percentiles) and
// the histograms of many workers or drivers merge exactly by adding
// counts.
//
// Values below 2,048 µs have a bucket each; above, each power of two is cut
// into 1,024 buckets, so a value is known to within 0.1%. Recording is one
// atomic add: workers share a histogram without a lock.
package histogram

import (
	"encoding/json"
	"fmt"
	"math/bits"
	"sync/atomic"
	"time"
)

const (
	linear   = 2048 // values below this have a bucket each
	subBits  = 10   // 1,024 buckets per power of two above
	maxExp   = 40   // 2^40 µs, about 12 days: longer values are clamped
	nBuckets = linear + (maxExp-11+1)<<subBits
)

// H is a latency histogram. The zero value is not ready; use New.
type H struct {
	counts   []atomic.Uint64
	n, sum   atomic.Uint64
	min, max atomic.Uint64
}

// New returns an empty histogram.
func New() *H {
	h := &H{counts: make([]atomic.Uint64, nBuckets)}
	h.min.Store(^uint64(0))
	return h
}

func index(us uint64) int {
	if us < linear {
		return int(us)
	}
	e := bits.Len64(us) - 1
	if e > maxExp {
		return nBuckets - 1
	}
	sub := (us >> (e - subBits)) & (1<<subBits - 1)
	return linear + (e-11)<<subBits + int(sub)
}

// bounds is the range [lo, hi] of values that fall in bucket i.
func bounds(i int) (lo, hi uint64) {
	if i < linear {
		return uint64(i), uint64(i)
	}
	i -= linear
	e := uint(i>>subBits) + 11
	sub := uint64(i & (1<<subBits - 1))
	lo = (1<<subBits | sub) << (e - subBits)
	return lo, lo + 1<<(e-subBits) - 1
}

// Record adds one latency.
func (h *H) Record(d time.Duration) { h.RecordMicros(uint64(max(d, 0) / time.Microsecond)) }

// RecordMicros adds one latency given in microseconds.
func (h *H) RecordMicros(us uint64) {
	h.counts[index(us)].Add(1)
	h.n.Add(1)
	h.sum.Add(us)
	for v := h.min.Load(); us < v && !h.min.CompareAndSwap(v, us); v = h.min.Load() {
	}
	for v := h.max.Load(); us > v && !h.max.CompareAndSwap(v, us); v = h.max.Load() {
	}
}

// Merge adds every sample of o to h.
func (h *H) Merge(o *H) {
	for i := range o.counts {
		if c := o.counts[i].Load(); c > 0 {
			h.counts[i].Add(c)
		}
	}
	h.n.Add(o.n.Load())
	h.sum.Add(o.sum.Load())
	if m := o.min.Load(); m < h.min.Load() {
		h.min.Store(m)
	}
	if m := o.max.Load(); m > h.max.Load() {
		h.max.Store(m)
	}
}

// Count is the number of samples.
func (h *H) Count() uint64 { return h.n.Load() }

// Mean is the exact mean of the samples.
func (h *H) Mean() time.Duration {
	n := h.n.Load()
	if n == 0 {
		return 0
	}
	return time.Duration(h.sum.Load()/n) * time.Microsecond
}

// Max is the largest sample.
func (h *H) Max() time.Duration { return time.Duration(h.max.Load()) * time.Microsecond }

// Min is the smallest sample (0 when empty).
func (h *H) Min() time.Duration {
	if h.n.Load() == 0 {
		return 0
	}
	return time.Duration(h.min.Load()) * time.Microsecond
}

// Quantile is the latency at or below which a fraction q of the samples
// fall: the upper bound of the bucket where that sample lies, never more
// than the largest sample.
func (h *H) Quantile(q float64) time.Duration {
	n := h.n.Load()
	if n == 0 {
		return 0
	}
	rank := uint64(q*float64(n) + 0.5)
	rank = min(max(rank, 1), n)
	var seen uint64
	for i := range h.counts {
		seen += h.counts[i].Load()
		if seen >= rank {
			_, hi := bounds(i)
			return time.Duration(min(hi, h.max.Load())) * time.Microsecond
		}
	}
	return h.Max()
}

// Each calls fn for every non-empty bucket, in increasing order, with the
// range of microseconds it holds.
func (h *H) Each(fn func(lo, hi, count uint64)) {
	for i := range h.counts {
		if c := h.counts[i].Load(); c > 0 {
			lo, hi := bounds(i)
			fn(lo, hi, c)
		}
	}
}

// wire is the sparse form a histogram travels in between drivers.
type wire struct {
	Buckets [][2]uint64 `json:"buckets"` // [index, count]
	Sum     uint64      `json:"sum_us"`
	Min     uint64      `json:"min_us"`
	Max     uint64      `json:"max_us"`
}

// MarshalJSON writes the non-empty buckets only.
func (h *H) MarshalJSON() ([]byte, error) {
	w := wire{Sum: h.sum.Load(), Min: h.min.Load(), Max: h.max.Load(), Buckets: [][2]uint64{}}
	for i := range h.counts {
		if c := h.counts[i].Load(); c > 0 {
			w.Buckets = append(w.Buckets, [2]uint64{uint64(i), c})
		}
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads what MarshalJSON wrote into an empty histogram.
func (h *H) UnmarshalJSON(b []byte) error {
	var w wire
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("histogram: %w", err)
	}
	if h.counts == nil {
		*h = H{counts: make([]atomic.Uint64, nBuckets)}
	}
	var n uint64
	for _, bc := range w.Buckets {
		if bc[0] >= nBuckets {
			return fmt.Errorf("histogram: bucket %d out of range", bc[0])
		}
		h.counts[bc[0]].Add(bc[1])
		n += bc[1]
	}
	h.n.Store(n)
	h.sum.Store(w.Sum)
	h.min.Store(w.Min)
	h.max.Store(w.Max)
	return nil
}
