package histogram

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"
)

// Every value lands in a bucket that holds it, and buckets tile the range
// without gaps.
func TestBucketsHoldTheirValues(t *testing.T) {
	var prevHi uint64
	for i := 0; i < nBuckets; i++ {
		lo, hi := bounds(i)
		if i > 0 && lo != prevHi+1 {
			t.Fatalf("bucket %d starts at %d, previous ended at %d", i, lo, prevHi)
		}
		if index(lo) != i || index(hi) != i {
			t.Fatalf("bucket %d [%d, %d] maps back to %d, %d", i, lo, hi, index(lo), index(hi))
		}
		if lo >= linear && float64(hi-lo+1)/float64(lo) > 1.0/1024 {
			t.Fatalf("bucket %d is wider than 0.1%% of its values", i)
		}
		prevHi = hi
	}
}

// Percentiles agree with those of the sorted samples within the bucket
// precision, and small values are exact.
func TestQuantiles(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	h := New()
	var samples []uint64
	for range 100_000 {
		us := uint64(r.ExpFloat64() * 5000) // a long tail, as latencies have
		samples = append(samples, us)
		h.RecordMicros(us)
	}
	slices.Sort(samples)
	for _, q := range []float64{0.5, 0.6, 0.8, 0.9, 0.95, 0.99, 0.999, 1} {
		want := samples[int(q*float64(len(samples))+0.5)-1]
		got := uint64(h.Quantile(q) / time.Microsecond)
		if got < want || float64(got-want) > float64(want)/1024+1 {
			t.Errorf("p%g = %d µs, samples say %d", q*100, got, want)
		}
	}
	if h.Max() != time.Duration(samples[len(samples)-1])*time.Microsecond || h.Min() != time.Duration(samples[0])*time.Microsecond {
		t.Errorf("min/max %v/%v", h.Min(), h.Max())
	}
	small := New()
	for us := range uint64(1000) {
		small.RecordMicros(us + 1)
	}
	if got := small.Quantile(0.5); got != 500*time.Microsecond {
		t.Errorf("median of 1..1000 µs = %v", got)
	}
}

// Merging the workers' histograms gives exactly the histogram of all
// samples, also after a trip through JSON (as between drivers).
func TestMergeIsExact(t *testing.T) {
	all := New()
	parts := []*H{New(), New(), New()}
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i, p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(i), 9))
			for range 10_000 {
				us := r.Uint64N(1 << uint(10+i*8))
				p.RecordMicros(us)
				mu.Lock()
				all.RecordMicros(us)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	merged := New()
	for _, p := range parts {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var back H
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		merged.Merge(&back)
	}
	a, _ := json.Marshal(all)
	m, _ := json.Marshal(merged)
	if string(a) != string(m) || merged.Mean() != all.Mean() {
		t.Fatal("merged histogram differs from the histogram of all samples")
	}
}

func BenchmarkRecordParallel(b *testing.B) {
	h := New()
	b.RunParallel(func(pb *testing.PB) {
		us := uint64(1)
		for pb.Next() {
			us = us*6364136223846793005 + 1
			h.RecordMicros(us >> 44)
		}
	})
}
