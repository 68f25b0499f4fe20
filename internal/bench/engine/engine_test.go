package engine

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"
)

func constOp(kind string, ratio int, bytes int64) Op {
	return Op{Kind: kind, Ratio: ratio, Do: func(ctx context.Context, w *Worker) (Outcome, error) {
		return Outcome{Bytes: bytes, TTFB: time.Microsecond}, nil
	}}
}

func TestTotalOpsIsExactAndRatiosHold(t *testing.T) {
	res, err := Run(context.Background(), Work{Workers: 8, TotalOps: 20_000,
		Ops: []Op{constOp("read", 70, 10), constOp("write", 30, 20)}})
	if err != nil {
		t.Fatal(err)
	}
	read, write := res.Stats[0].Ops(), res.Stats[1].Ops()
	if read+write != 20_000 {
		t.Fatalf("%d operations, want exactly 20000", read+write)
	}
	if share := float64(read) / 20_000; math.Abs(share-0.7) > 0.02 {
		t.Fatalf("read share %.3f, want 0.70", share)
	}
	if res.Stats[0].Bytes() != read*10 || res.Stats[0].Latency.Count() != uint64(read) {
		t.Fatal("bytes or latency samples do not match the operations")
	}
}

func TestTotalBytesStops(t *testing.T) {
	res, err := Run(context.Background(), Work{Workers: 4, TotalBytes: 50_000, Ops: []Op{constOp("write", 100, 1000)}})
	if err != nil {
		t.Fatal(err)
	}
	// Workers in flight when the limit is crossed finish their operation.
	if n := res.Stats[0].Ops(); n < 50 || n > 50+4 {
		t.Fatalf("%d operations of 1000 bytes for a 50,000-byte limit", n)
	}
}

func TestRuntimeStopsAndFailuresCount(t *testing.T) {
	boom := errors.New("boom")
	var progress []Progress
	res, err := Run(context.Background(), Work{Workers: 4, Runtime: 300 * time.Millisecond, Interval: 50 * time.Millisecond,
		Progress: func(p Progress) { progress = append(progress, p) },
		Ops: []Op{{Kind: "read", Ratio: 100, Do: func(ctx context.Context, w *Worker) (Outcome, error) {
			select {
			case <-time.After(time.Millisecond):
			case <-ctx.Done():
				return Outcome{}, ctx.Err()
			}
			if w.Seq%10 == 0 {
				return Outcome{}, boom
			}
			return Outcome{Bytes: 1}, nil
		}}}})
	if err != nil {
		t.Fatal(err)
	}
	if d := res.End.Sub(res.Start); d < 300*time.Millisecond || d > 2*time.Second {
		t.Fatalf("ran %v for a 300 ms runtime", d)
	}
	st := res.Stats[0]
	if st.Errors() == 0 || st.LastError() != "boom" || st.Ops() < 9*st.Errors()-8 {
		t.Fatalf("%d ok, %d failed (%q)", st.Ops(), st.Errors(), st.LastError())
	}
	// A loaded machine drops ticks (time.Ticker does): ask for some, and
	// for the final line to count every operation.
	if len(progress) < 2 || len(res.Series) < 2 || progress[len(progress)-1].Ops != st.Ops() {
		t.Fatalf("%d progress calls, %d samples", len(progress), len(res.Series))
	}
}

func TestBadWorks(t *testing.T) {
	for name, w := range map[string]Work{
		"no workers":   {Ops: []Op{constOp("read", 100, 0)}, TotalOps: 1},
		"ratios":       {Workers: 1, Ops: []Op{constOp("read", 60, 0), constOp("write", 30, 0)}, TotalOps: 1},
		"no stop":      {Workers: 1, Ops: []Op{constOp("read", 100, 0)}},
		"no operation": {Workers: 1, TotalOps: 1},
	} {
		if _, err := Run(context.Background(), w); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// Operations in flight when the runtime ends finish and count, as
// COSBench's do: a write cut off by the client could still be committed
// by the server after the next stage (a cleanup) has begun.
func TestRuntimeLetsInFlightOperationsFinish(t *testing.T) {
	res, err := Run(context.Background(), Work{Workers: 3, Runtime: 50 * time.Millisecond,
		Ops: []Op{{Kind: "write", Ratio: 100, Do: func(ctx context.Context, w *Worker) (Outcome, error) {
			select {
			case <-time.After(200 * time.Millisecond):
				return Outcome{Bytes: 1}, nil
			case <-ctx.Done():
				return Outcome{}, ctx.Err()
			}
		}}}})
	if err != nil {
		t.Fatal(err)
	}
	if st := res.Stats[0]; st.Ops() != 3 || st.Errors() != 0 {
		t.Fatalf("%d finished, %d failed of the 3 in flight at the stop", st.Ops(), st.Errors())
	}
}
