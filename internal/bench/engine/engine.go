// Package engine runs a work: workers issuing a mix of operations until a
// stop condition (time, operation count, bytes), recording each operation's
// latency and time to first byte in exact-merging histograms and a time
// series. What an operation does is the caller's: the engine only picks,
// times and counts.
package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ostiumio/ostium/internal/bench/histogram"
)

// Outcome is what one operation reports besides its latency.
type Outcome struct {
	Bytes int64
	TTFB  time.Duration
	// Skipped: the operation found nothing to do and is not counted.
	Skipped bool
}

// Op is one kind of operation and its share of a work's requests.
type Op struct {
	Kind  string // read, write, delete, list, stat, ...
	Ratio int    // percent; the ratios of a work add up to 100
	Do    func(ctx context.Context, w *Worker) (Outcome, error)
}

// ErrWorkerDone, returned by an operation, ends its worker without
// counting: the worker has no more ids to work on (COSBench's init,
// prepare, cleanup and dispose).
var ErrWorkerDone = errors.New("engine: worker done")

// Work is what a set of workers runs together.
type Work struct {
	Name string
	// Type is COSBench's work type (normal, init, prepare, cleanup,
	// dispose), carried into the result for the report.
	Type       string
	Workers    int
	Ops        []Op
	Runtime    time.Duration // 0: no time limit
	TotalOps   int64         // 0: no count limit
	TotalBytes int64         // 0: no byte limit
	Interval   time.Duration // time-series sampling; 0 = 1 s
	// UntilDone lets a work end only when every worker is done (see
	// ErrWorkerDone), with no other limit.
	UntilDone bool
	// Expect is how many operations a work that runs until done will
	// issue, when known: the progress line's estimate of the time left.
	Expect int64
	// StopOnError ends the work at its first failure and returns it: set-up
	// works (creating buckets, writing what the run reads) are worth
	// nothing once one request fails, and a 403 would fail them all.
	StopOnError bool
	// Progress, if set, is called at each interval with the work so far.
	Progress func(Progress)
	// Observe, if set, hears of every operation counted, as it ends: the
	// availability timeline of a run with faults.
	Observe func(kind string, start time.Time, latency time.Duration, err error)
}

// Worker is one worker's state, handed to each operation it runs.
type Worker struct {
	Index int        // 0 .. Workers-1
	Rand  *rand.Rand // the worker's own source
	Seq   int64      // operations this worker has started
}

// Stats are one operation kind's figures.
type Stats struct {
	Kind    string
	Latency *histogram.H
	TTFB    *histogram.H
	ops     atomic.Int64
	errs    atomic.Int64
	bytes   atomic.Int64
	latSum  atomic.Int64 // µs, for the latency of each interval
	// LastError is an example of what failed, for the report.
	lastErr atomic.Value
}

// Ops is the count of successful operations; Errors of failed ones.
func (s *Stats) Ops() int64    { return s.ops.Load() }
func (s *Stats) Errors() int64 { return s.errs.Load() }
func (s *Stats) Bytes() int64  { return s.bytes.Load() }

// LastError is the most recent failure, or "".
func (s *Stats) LastError() string {
	v, _ := s.lastErr.Load().(string)
	return v
}

// Sample is the work's totals at one instant of the time series.
type Sample struct {
	Elapsed time.Duration
	Ops     map[string]int64 // successful operations so far, by kind
	Bytes   map[string]int64
	Errors  map[string]int64
	// LatencyUs is the summed latency of the successful operations so far:
	// differences between samples give each interval's mean latency.
	LatencyUs map[string]int64
}

// Progress is the state handed to Work.Progress.
type Progress struct {
	Elapsed      time.Duration
	Ops, Errors  int64
	Bytes        int64
	Runtime      time.Duration // the work's limits, to estimate what is left
	TotalOps     int64
	TotalBytes   int64
	Expect       int64   // operations a work run until done will issue, or 0
	OpsPerSecond float64 // over the last interval; over the whole work when Final
	BytesPerSec  float64
	// Final marks the call made once the work has ended.
	Final bool
}

// Result is a finished work.
type Result struct {
	Name       string
	Type       string
	Start, End time.Time
	Workers    int
	Stats      []*Stats // in the order of Work.Ops
	Series     []Sample
	// Fine is the time series the charts draw: sampled every 10 ms at
	// first, and half as often each time it reaches fineMax samples, so a
	// stage of a second and one of an hour both get enough points, and
	// never too many.
	Fine []Sample
}

const fineMax = 600

// stopGrace bounds how long operations in flight at a work's stop may
// take to finish.
const stopGrace = 30 * time.Second

// Run runs w until a limit is reached or ctx ends.
func Run(ctx context.Context, w Work) (*Result, error) {
	if w.Workers <= 0 {
		return nil, errors.New("engine: workers must be positive")
	}
	if len(w.Ops) == 0 {
		return nil, errors.New("engine: no operations")
	}
	total := 0
	for _, op := range w.Ops {
		total += op.Ratio
	}
	if total != 100 {
		return nil, fmt.Errorf("engine: operation ratios add up to %d, not 100", total)
	}
	if w.Runtime <= 0 && w.TotalOps <= 0 && w.TotalBytes <= 0 && !w.UntilDone {
		return nil, errors.New("engine: a work needs a runtime, a total of operations or a total of bytes")
	}
	if w.Interval <= 0 {
		w.Interval = time.Second
	}
	res := &Result{Name: w.Name, Type: w.Type, Workers: w.Workers, Start: time.Now()}
	var firstErr atomic.Pointer[error]
	for _, op := range w.Ops {
		res.Stats = append(res.Stats, &Stats{Kind: op.Kind, Latency: histogram.New(), TTFB: histogram.New()})
	}
	// Operations in flight when the work stops (its runtime, byte total or
	// first failure) finish, as COSBench's workers finish theirs: a write
	// cut off by the client may still be committed by the server after the
	// next stage has begun, behind a cleanup that already passed its key,
	// and the dispose then finds the bucket not empty. Only the caller's
	// ctx, or stopGrace after the stop, cuts them.
	opCtx, opCancel := context.WithCancel(ctx)
	defer opCancel()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if w.Runtime > 0 {
		ctx, cancel = context.WithTimeout(ctx, w.Runtime)
		defer cancel()
	}
	go func() {
		<-ctx.Done()
		t := time.NewTimer(stopGrace)
		defer t.Stop()
		select {
		case <-t.C:
			opCancel()
		case <-opCtx.Done():
		}
	}()
	var issued, moved atomic.Int64
	var wg sync.WaitGroup
	for i := range w.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wk := &Worker{Index: i, Rand: rand.New(rand.NewPCG(uint64(i), uint64(res.Start.UnixNano())))}
			for ctx.Err() == nil {
				if w.TotalOps > 0 && issued.Add(1) > w.TotalOps {
					return
				}
				k := pick(w.Ops, wk.Rand)
				st := res.Stats[k]
				wk.Seq++
				t0 := time.Now()
				out, err := w.Ops[k].Do(opCtx, wk)
				lat := time.Since(t0)
				if err != nil {
					if ctx.Err() != nil || errors.Is(err, ErrWorkerDone) {
						return // cut short by the stop, or out of work: not a failure
					}
					st.errs.Add(1)
					st.lastErr.Store(err.Error())
					if w.Observe != nil {
						w.Observe(st.Kind, t0, lat, err)
					}
					if w.StopOnError {
						firstErr.CompareAndSwap(nil, &err)
						cancel()
						return
					}
					continue
				}
				if out.Skipped {
					continue
				}
				if w.Observe != nil {
					w.Observe(st.Kind, t0, lat, nil)
				}
				st.ops.Add(1)
				st.bytes.Add(out.Bytes)
				st.Latency.Record(lat)
				st.latSum.Add(lat.Microseconds())
				st.TTFB.Record(out.TTFB)
				if w.TotalBytes > 0 && moved.Add(out.Bytes) >= w.TotalBytes {
					cancel()
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	tick := time.NewTicker(w.Interval)
	defer tick.Stop()
	finePeriod := 10 * time.Millisecond
	fine := time.NewTicker(finePeriod)
	defer fine.Stop()
	res.Series = append(res.Series, res.sample(res.Start)) // the origin of every time series
	res.Fine = append(res.Fine, res.Series[0])
	var last Progress
	for {
		select {
		case <-done:
			res.End = time.Now()
			end := res.sample(res.End)
			res.Series, res.Fine = append(res.Series, end), append(res.Fine, end)
			if w.Progress != nil {
				// Over the whole work: the rate of the few milliseconds
				// since the last tick would read as a drop or a spike.
				p := res.progress(w, Progress{}, res.End)
				p.Final = true
				w.Progress(p)
			}
			if ep := firstErr.Load(); ep != nil {
				return res, fmt.Errorf("%s stopped at its first failure: %w", w.Name, *ep)
			}
			return res, nil
		case now := <-fine.C:
			res.Fine = append(res.Fine, res.sample(now))
			if len(res.Fine) >= fineMax {
				kept := res.Fine[:0]
				for i := 0; i < len(res.Fine); i += 2 {
					kept = append(kept, res.Fine[i])
				}
				res.Fine = kept
				finePeriod *= 2
				fine.Reset(finePeriod)
			}
		case now := <-tick.C:
			res.Series = append(res.Series, res.sample(now))
			// A tick at the runtime's end is not shown: the final line
			// follows at once, and the two would say the same thing twice.
			atEnd := w.Runtime > 0 && now.Sub(res.Start) >= w.Runtime-w.Interval/10
			if w.Progress != nil && !atEnd {
				last = res.progress(w, last, now)
				w.Progress(last)
			}
		}
	}
}

// pick chooses an operation by its ratio.
func pick(ops []Op, r *rand.Rand) int {
	if len(ops) == 1 {
		return 0
	}
	n := r.IntN(100)
	for i, op := range ops {
		if n < op.Ratio {
			return i
		}
		n -= op.Ratio
	}
	return len(ops) - 1
}

func (r *Result) sample(now time.Time) Sample {
	s := Sample{Elapsed: now.Sub(r.Start), Ops: map[string]int64{}, Bytes: map[string]int64{}, Errors: map[string]int64{},
		LatencyUs: map[string]int64{}}
	for _, st := range r.Stats {
		s.LatencyUs[st.Kind] += st.latSum.Load()
		s.Ops[st.Kind] += st.Ops()
		s.Bytes[st.Kind] += st.Bytes()
		s.Errors[st.Kind] += st.Errors()
	}
	return s
}

func (r *Result) progress(w Work, last Progress, now time.Time) Progress {
	p := Progress{Elapsed: now.Sub(r.Start), Runtime: w.Runtime, TotalOps: w.TotalOps, TotalBytes: w.TotalBytes, Expect: w.Expect}
	for _, st := range r.Stats {
		p.Ops += st.Ops()
		p.Errors += st.Errors()
		p.Bytes += st.Bytes()
	}
	if dt := (p.Elapsed - last.Elapsed).Seconds(); dt > 0 {
		p.OpsPerSecond = float64(p.Ops-last.Ops) / dt
		p.BytesPerSec = float64(p.Bytes-last.Bytes) / dt
	}
	return p
}
