package engine

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// A stage shorter than the interval still gets a time series fine enough
// to draw (every 50 ms), and a long one never more than fineMax samples.
func TestFineSeries(t *testing.T) {
	op := Op{Kind: "read", Ratio: 100, Do: func(ctx context.Context, w *Worker) (Outcome, error) {
		time.Sleep(time.Millisecond)
		return Outcome{Bytes: 1}, nil
	}}
	res, err := Run(context.Background(), Work{Name: "short", Workers: 2, Ops: []Op{op}, Runtime: 600 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Series) > 3 || len(res.Fine) < 8 {
		t.Fatalf("a 0.6 s stage: %d samples at the interval, %d fine", len(res.Series), len(res.Fine))
	}
	for i := 1; i < len(res.Fine); i++ {
		if res.Fine[i].Elapsed < res.Fine[i-1].Elapsed || res.Fine[i].Ops["read"] < res.Fine[i-1].Ops["read"] {
			t.Fatalf("fine series out of order at %d", i)
		}
	}
}

// StopOnError ends a work at its first failure and returns it; the final
// progress call is marked and gives the rate over the whole work.
func TestStopOnErrorAndFinalProgress(t *testing.T) {
	var calls atomic.Int64
	var final []Progress
	res, err := Run(context.Background(), Work{Name: "prepare", Workers: 4, UntilDone: true, StopOnError: true, Expect: 1000,
		Interval: 20 * time.Millisecond,
		Progress: func(p Progress) {
			if p.Final {
				final = append(final, p)
			}
		},
		Ops: []Op{{Kind: "write", Ratio: 100, Do: func(ctx context.Context, w *Worker) (Outcome, error) {
			if calls.Add(1) == 50 {
				return Outcome{}, errors.New("S3 error 403 AccessDenied: Access Denied")
			}
			time.Sleep(time.Millisecond)
			return Outcome{Bytes: 10}, nil
		}}}})
	if err == nil || res == nil || err.Error() != "prepare stopped at its first failure: S3 error 403 AccessDenied: Access Denied" {
		t.Fatalf("err %v", err)
	}
	if n := calls.Load(); n > 60 {
		t.Fatalf("%d operations issued; the work went on after its failure", n)
	}
	if res.Stats[0].Errors() != 1 {
		t.Fatalf("%d errors", res.Stats[0].Errors())
	}
	if len(final) != 1 || final[0].Expect != 1000 {
		t.Fatalf("final progress %+v", final)
	}
	if want := float64(final[0].Ops) / final[0].Elapsed.Seconds(); final[0].OpsPerSecond < want*0.99 || final[0].OpsPerSecond > want*1.01 {
		t.Fatalf("final rate %.0f, want the mean %.0f", final[0].OpsPerSecond, want)
	}
}

// A timed work shows one line a tick and one final line, never a tick
// line at its very end beside the final one.
func TestNoDuplicateLastLine(t *testing.T) {
	var lines []Progress
	_, err := Run(context.Background(), Work{Name: "main", Workers: 2, Runtime: 500 * time.Millisecond, Interval: 100 * time.Millisecond,
		Progress: func(p Progress) { lines = append(lines, p) },
		Ops: []Op{{Kind: "read", Ratio: 100, Do: func(ctx context.Context, w *Worker) (Outcome, error) {
			time.Sleep(time.Millisecond)
			return Outcome{}, nil
		}}}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(lines); n < 2 || n > 5 || !lines[n-1].Final {
		t.Fatalf("%d lines, last %+v", n, lines[len(lines)-1])
	}
	if prev := lines[len(lines)-2]; lines[len(lines)-1].Elapsed-prev.Elapsed < 5*time.Millisecond {
		t.Fatalf("a tick line at %v just before the final one at %v", prev.Elapsed, lines[len(lines)-1].Elapsed)
	}
}
