// Package quick runs the one-off benchmark modes of `ostium bench` (put,
// get, delete, stat, list, mixed), in the manner of warp: prepare what a
// mode reads, run it, clean up, report.
package quick

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/ostiumio/ostium/internal/bench/engine"
	"github.com/ostiumio/ostium/internal/bench/report"
	"github.com/ostiumio/ostium/internal/bench/target"
)

// Modes are the quick modes.
var Modes = []string{"put", "get", "delete", "stat", "list", "mixed", "multipart"}

// Options configure a quick run.
type Options struct {
	Mode         string
	Duration     time.Duration
	Ops, Bytes   int64 // limits of the main stage besides Duration
	Concurrency  int
	Size         Size
	PartSize     int64 // multipart mode
	Buckets      int
	BucketPrefix string
	Objects      int // prepared for the modes that read
	Verify       bool
	Mix          []Share // the mixed mode's operations (default DefaultMix)
	Keep         bool    // leave objects and buckets behind
	Interval     time.Duration
	// Progress receives the live lines; Terminal rewrites one line.
	Progress io.Writer
	Terminal bool
}

// run is one quick run's state: names derive from counters, so nothing is
// kept per object.
type run struct {
	o        Options
	t        *target.Target
	prepared int64        // objects obj-N, N < prepared
	deleted  atomic.Int64 // delete mode: obj-N, N < deleted, were deleted
	missed   atomic.Int64 // delete mode: deletes that failed or were cut short
	puts     atomic.Int64 // put mode: put-N, N < puts
	mixPut   []atomic.Int64
	mixDel   []atomic.Int64
}

func (r *run) bucket(n int64) string {
	return fmt.Sprintf("%s-%d", r.o.BucketPrefix, n%int64(r.o.Buckets))
}

func objName(n int64) string        { return fmt.Sprintf("obj-%08d", n) }
func putName(n int64) string        { return fmt.Sprintf("put-%010d", n) }
func mixName(w int, n int64) string { return fmt.Sprintf("mix-%04d-%010d", w, n) }
func outcome(res target.Result, err error) (engine.Outcome, error) {
	return engine.Outcome{Bytes: res.Bytes, TTFB: res.TTFB}, err
}

func (r *run) put(ctx context.Context, bucket, key string) (engine.Outcome, error) {
	return outcome(r.t.Put(ctx, bucket, key, r.o.Size.Of(target.ContentName(bucket, key))))
}

func (r *run) get(ctx context.Context, bucket, key string) (engine.Outcome, error) {
	return outcome(r.t.Get(ctx, bucket, key, r.o.Size.Of(target.ContentName(bucket, key)), r.o.Verify))
}

// Run runs a quick mode against t and returns the summary of its stages.
func Run(ctx context.Context, t *target.Target, o Options) (report.Summary, []*engine.Result, error) {
	if o.Concurrency <= 0 || o.Buckets <= 0 {
		return report.Summary{}, nil, errors.New("quick: concurrency and buckets must be positive")
	}
	if o.Duration <= 0 && o.Ops <= 0 && o.Bytes <= 0 {
		return report.Summary{}, nil, errors.New("quick: give --duration, --ops or --bytes")
	}
	r := &run{o: o, t: t, mixPut: make([]atomic.Int64, o.Concurrency), mixDel: make([]atomic.Int64, o.Concurrency)}
	sum := report.Summary{Started: time.Now()}
	var results []*engine.Result
	stage := func(w engine.Work) error {
		w.Workers, w.Interval = o.Concurrency, o.Interval
		w.Progress = r.progress(w.Name)
		res, err := engine.Run(ctx, w)
		if o.Terminal && o.Progress != nil {
			fmt.Fprintln(o.Progress)
		}
		if res != nil {
			results = append(results, res)
			sum.Stages = append(sum.Stages, report.Summarize(res))
		}
		if err != nil {
			return err
		}
		return ctx.Err()
	}
	for i := range int64(o.Buckets) {
		if err := t.CreateBucket(ctx, r.bucket(i)); err != nil {
			return sum, results, fmt.Errorf("quick: create bucket %s: %w", r.bucket(i), err)
		}
	}
	if o.Mode != "put" && o.Mode != "multipart" {
		if o.Objects <= 0 {
			return sum, results, fmt.Errorf("quick: mode %s needs --objects to prepare", o.Mode)
		}
		var next atomic.Int64
		err := stage(engine.Work{Name: "prepare", Type: "prepare", StopOnError: true, TotalOps: int64(o.Objects), Ops: []engine.Op{{Kind: "write", Ratio: 100,
			Do: func(ctx context.Context, w *engine.Worker) (engine.Outcome, error) {
				n := next.Add(1) - 1
				return r.put(ctx, r.bucket(n), objName(n))
			}}}})
		r.prepared = int64(o.Objects)
		if err != nil {
			return sum, results, err
		}
	}
	main := engine.Work{Name: "main", Type: "normal", Runtime: o.Duration, TotalOps: o.Ops, TotalBytes: o.Bytes}
	var err error
	if main.Ops, err = r.mainOps(); err != nil {
		return sum, results, err
	}
	if o.Mode == "delete" && (main.TotalOps == 0 || main.TotalOps > r.prepared) {
		main.TotalOps = r.prepared
	}
	sum.ClientCPU = &report.ClientCPU{}
	done := sum.ClientCPU.Measure()
	runErr := stage(main)
	done()
	if o.Verify {
		v := t.Verified()
		sum.Verified = &report.Verified{Objects: v.Objects, Bytes: v.Bytes, Mismatches: v.Mismatches}
	}
	if !o.Keep {
		if err := r.cleanup(context.WithoutCancel(ctx), stage); err != nil && runErr == nil {
			runErr = err
		}
	}
	sum.Ended = time.Now()
	return sum, results, runErr
}

func (r *run) random(w *engine.Worker) int64 { return w.Rand.Int64N(r.prepared) }

func (r *run) mainOps() ([]engine.Op, error) {
	get := engine.Op{Kind: "read", Do: func(ctx context.Context, w *engine.Worker) (engine.Outcome, error) {
		n := r.random(w)
		return r.get(ctx, r.bucket(n), objName(n))
	}}
	stat := engine.Op{Kind: "stat", Do: func(ctx context.Context, w *engine.Worker) (engine.Outcome, error) {
		n := r.random(w)
		return outcome(r.t.Head(ctx, r.bucket(n), objName(n)))
	}}
	switch r.o.Mode {
	case "put":
		return []engine.Op{{Kind: "write", Ratio: 100, Do: func(ctx context.Context, w *engine.Worker) (engine.Outcome, error) {
			n := r.puts.Add(1) - 1
			return r.put(ctx, r.bucket(n), putName(n))
		}}}, nil
	case "multipart":
		part := max(r.o.PartSize, 5<<20)
		return []engine.Op{{Kind: "write", Ratio: 100, Do: func(ctx context.Context, w *engine.Worker) (engine.Outcome, error) {
			n := r.puts.Add(1) - 1
			b, k := r.bucket(n), putName(n)
			return outcome(r.t.Multipart(ctx, b, k, r.o.Size.Of(target.ContentName(b, k)), part))
		}}}, nil
	case "get":
		get.Ratio = 100
		return []engine.Op{get}, nil
	case "stat":
		stat.Ratio = 100
		return []engine.Op{stat}, nil
	case "delete":
		return []engine.Op{{Kind: "delete", Ratio: 100, Do: func(ctx context.Context, w *engine.Worker) (engine.Outcome, error) {
			n := r.deleted.Add(1) - 1
			out, err := outcome(r.t.Delete(ctx, r.bucket(n), objName(n)))
			if err != nil {
				r.missed.Add(1)
			}
			return out, err
		}}}, nil
	case "list":
		return []engine.Op{{Kind: "list", Ratio: 100, Do: func(ctx context.Context, w *engine.Worker) (engine.Outcome, error) {
			return outcome(r.t.List(ctx, r.bucket(int64(w.Index)), "obj-"))
		}}}, nil
	case "mixed":
		// Reads, stats and listings of the prepared objects; each worker
		// writes its own objects and deletes its oldest.
		mix := r.o.Mix
		if len(mix) == 0 {
			mix, _ = ParseMix(DefaultMix)
		}
		put := engine.Op{Kind: "write", Do: func(ctx context.Context, w *engine.Worker) (engine.Outcome, error) {
			n := r.mixPut[w.Index].Add(1) - 1
			return r.put(ctx, r.bucket(n), mixName(w.Index, n))
		}}
		del := engine.Op{Kind: "delete", Do: func(ctx context.Context, w *engine.Worker) (engine.Outcome, error) {
			n := r.mixDel[w.Index].Load()
			if n >= r.mixPut[w.Index].Load() {
				return engine.Outcome{Skipped: true}, nil // nothing of its own to delete yet
			}
			out, err := outcome(r.t.Delete(ctx, r.bucket(n), mixName(w.Index, n)))
			if err == nil { // else the next delete tries it again, or cleanup does
				r.mixDel[w.Index].Add(1)
			}
			return out, err
		}}
		list := engine.Op{Kind: "list", Do: func(ctx context.Context, w *engine.Worker) (engine.Outcome, error) {
			return outcome(r.t.List(ctx, r.bucket(int64(w.Index)), "obj-"))
		}}
		byName := map[string]engine.Op{"get": get, "stat": stat, "put": put, "delete": del, "list": list}
		var ops []engine.Op
		for _, m := range mix {
			op, ok := byName[m.Op]
			if !ok {
				return nil, fmt.Errorf("quick: unknown operation %q in the mix", m.Op)
			}
			op.Ratio = m.Ratio
			ops = append(ops, op)
		}
		return ops, nil
	}
	return nil, fmt.Errorf("quick: unknown mode %q (want one of %v)", r.o.Mode, Modes)
}

// cleanup deletes what the run wrote, then its buckets.
func (r *run) cleanup(ctx context.Context, stage func(engine.Work) error) error {
	type obj struct {
		bucket int64
		key    string
	}
	var names []func(i int64) obj
	var counts []int64
	off := min(r.deleted.Load(), r.prepared)
	if r.missed.Load() > 0 {
		off = 0 // which deletes failed is not known: go over them all
	}
	if n := r.prepared - off; n > 0 {
		names = append(names, func(i int64) obj { return obj{off + i, objName(off + i)} })
		counts = append(counts, n)
	}
	if n := r.puts.Load(); n > 0 {
		names = append(names, func(i int64) obj { return obj{i, putName(i)} })
		counts = append(counts, n)
	}
	for w := range r.mixPut {
		if from, to := r.mixDel[w].Load(), r.mixPut[w].Load(); to > from {
			names = append(names, func(i int64) obj { return obj{from + i, mixName(w, from+i)} })
			counts = append(counts, to-from)
		}
	}
	var total int64
	for _, c := range counts {
		total += c
	}
	if r.o.Progress != nil {
		// A cleanup can take as long as the run: say what it is doing.
		fmt.Fprintf(r.o.Progress, "cleanup: deleting the %d objects and %d bucket(s) the run wrote (--no-cleanup keeps them)\n", total, r.o.Buckets)
	}
	if total > 0 {
		var next atomic.Int64
		err := stage(engine.Work{Name: "cleanup", Type: "cleanup", TotalOps: total, Ops: []engine.Op{{Kind: "delete", Ratio: 100,
			Do: func(ctx context.Context, w *engine.Worker) (engine.Outcome, error) {
				i := next.Add(1) - 1
				for k, c := range counts {
					if i < c {
						o := names[k](i)
						return outcome(r.t.Delete(ctx, r.bucket(o.bucket), o.key))
					}
					i -= c
				}
				return engine.Outcome{}, nil
			}}}})
		if err != nil {
			return err
		}
	}
	for i := range int64(r.o.Buckets) {
		if err := r.t.DeleteBucket(ctx, r.bucket(i)); err != nil {
			return fmt.Errorf("quick: delete bucket %s: %w", r.bucket(i), err)
		}
	}
	return nil
}

// progress prints the live line of a stage.
func (r *run) progress(stage string) func(engine.Progress) {
	if r.o.Progress == nil {
		return nil
	}
	return func(p engine.Progress) {
		line := report.ProgressLine(stage, p)
		if r.o.Terminal {
			fmt.Fprintf(r.o.Progress, "\r%-100s", line)
		} else {
			fmt.Fprintln(r.o.Progress, line)
		}
	}
}
