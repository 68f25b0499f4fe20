package engine

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// Two parts of a work, each sent as JSON (as drivers send them), merge
// into what one run of both would report.
func TestMergeParts(t *testing.T) {
	var parts []*Result
	for i := range 2 {
		res, err := Run(context.Background(), Work{Name: "main", Workers: 2 + i, TotalOps: int64(500 * (i + 1)),
			Ops: []Op{{Kind: "read", Ratio: 100, Do: func(ctx context.Context, w *Worker) (Outcome, error) {
				return Outcome{Bytes: 10, TTFB: time.Duration(i+1) * time.Millisecond}, nil
			}}}})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		var back Result
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, &back)
	}
	m, err := Merge(parts...)
	if err != nil {
		t.Fatal(err)
	}
	s := m.Stats[0]
	if s.Ops() != 1500 || s.Bytes() != 15000 || s.Latency.Count() != 1500 || m.Workers != 5 {
		t.Fatalf("merged %d ops, %d bytes, %d samples, %d workers", s.Ops(), s.Bytes(), s.Latency.Count(), m.Workers)
	}
	// 500 samples at 1 ms and 1000 at 2 ms: the median is 2 ms, exactly.
	if s.TTFB.Quantile(0.5) != 2*time.Millisecond || s.TTFB.Quantile(0.3) != time.Millisecond {
		t.Fatalf("merged ttfb p50 %v p30 %v", s.TTFB.Quantile(0.5), s.TTFB.Quantile(0.3))
	}
	last := m.Series[len(m.Series)-1]
	if last.Ops["read"] != 1500 {
		t.Fatalf("merged series ends at %d operations", last.Ops["read"])
	}
	if _, err := Merge(parts[0], Empty("other", nil)); err == nil {
		t.Fatal("merged two different works")
	}
}
