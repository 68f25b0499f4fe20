package workload

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ostiumio/ostium/internal/bench/engine"
	"github.com/ostiumio/ostium/internal/bench/mock"
	"github.com/ostiumio/ostium/internal/bench/report"
	"github.com/ostiumio/ostium/internal/bench/target"
)

// Options override the workload's storage, say which share of the workers
// this process runs, and watch the progress.
type Options struct {
	Endpoints []string `json:"endpoints,omitempty"`
	AccessKey string   `json:"access_key,omitempty"`
	SecretKey string   `json:"secret_key,omitempty"`
	Share     Share    `json:"share"`
	// Progress, if set, gives the progress callback of a stage's work.
	Progress func(name string) func(engine.Progress) `json:"-"`
	// Verified, if set, adds up what the reads with hashCheck checked.
	Verified *Verified `json:"-"`
	// Transport, if set, carries the requests of a work (by its name)
	// whose storage is the in-process mock: the generator ceiling's own.
	Transport func(work string) http.RoundTripper `json:"-"`
	// faults is the fault schedule's machinery, in a run that has one.
	faults *faultRun
}

// Verified adds up the verification counts of a run's targets.
type Verified struct{ objects, bytes, mismatches atomic.Int64 }

func (v *Verified) add(t *target.Target) {
	c := t.Verified()
	v.objects.Add(c.Objects)
	v.bytes.Add(c.Bytes)
	v.mismatches.Add(c.Mismatches)
}

// Report is what was checked, or nil when nothing was.
func (v *Verified) Report() *report.Verified {
	if v == nil || v.objects.Load()+v.mismatches.Load() == 0 {
		return nil
	}
	return &report.Verified{Objects: v.objects.Load(), Bytes: v.bytes.Load(), Mismatches: v.mismatches.Load()}
}

// Share is the part of every work a driver runs: its slice of the
// workers (and of their ids and operation totals), when Count drivers run
// a workload together.
type Share struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// slice returns how many of n workers this share runs and the global index
// of its first.
func (s Share) slice(n int) (local, offset int) {
	if s.Count <= 1 {
		return n, 0
	}
	lo, hi := n*s.Index/s.Count, n*(s.Index+1)/s.Count
	return hi - lo, lo
}

// part is this share of a total that splits like the workers.
func (s Share) part(total int64, workers int) int64 {
	local, offset := s.slice(workers)
	if total == 0 || workers == 0 {
		return total
	}
	return total*int64(offset+local)/int64(workers) - total*int64(offset)/int64(workers)
}

// Run runs the whole workload here, stage after stage; with a fault
// schedule, its faults alongside, and the availability it measured in the
// summary.
func Run(ctx context.Context, w *Workload, o Options) (report.Summary, []*engine.Result, error) {
	sum := report.Summary{Started: time.Now()}
	if o.Verified == nil {
		o.Verified = &Verified{}
	}
	if len(w.Faults) == 0 {
		return run(ctx, w, o, sum)
	}
	fr := startFaults(ctx, w, sum.Started)
	o.faults = fr
	sum, all, err := run(fr.ctx, w, o, sum)
	a, ferr := fr.finish(ctx, o)
	sum.Availability = a
	if ferr != nil { // a fatal fault's failure says more than the run's end it caused
		err = ferr
	}
	return sum, all, err
}

func run(ctx context.Context, w *Workload, o Options, sum report.Summary) (report.Summary, []*engine.Result, error) {
	var all []*engine.Result
	for si := range w.Stages {
		if o.faults != nil {
			o.faults.session.StageStarted(w.Stages[si].Name, time.Now())
		}
		var done func()
		if measured(&w.Stages[si]) {
			if sum.ClientCPU == nil {
				sum.ClientCPU = &report.ClientCPU{}
			}
			done = sum.ClientCPU.Measure()
		}
		results, err := RunStage(ctx, w, si, o)
		if done != nil {
			done()
		}
		for _, res := range results {
			if res != nil {
				all = append(all, res)
				sum.Stages = append(sum.Stages, report.Summarize(res))
			}
		}
		if err == nil {
			err = AfterStage(ctx, w, si, results, o)
		}
		sum.Verified = o.Verified.Report()
		sum.Ended = time.Now()
		if err != nil {
			return sum, all, err
		}
	}
	return sum, all, nil
}

// measured: the stage has a normal work, one the report measures.
func measured(st *Stage) bool {
	for _, wk := range st.Works {
		if wk.Type == "" || wk.Type == "normal" {
			return true
		}
	}
	return false
}

// storageOf is the storage a work uses: its own, its stage's or the
// workload's.
func storageOf(w *Workload, st *Stage, wk *Work) *Storage {
	switch {
	case wk.Storage != nil:
		return wk.Storage
	case st.Storage != nil:
		return st.Storage
	}
	return &w.Storage
}

func workName(st *Stage, wk *Work) string {
	if len(st.Works) > 1 || wk.Name != "" && wk.Name != st.Name {
		return st.Name + "/" + wk.Name
	}
	return st.Name
}

// RunStage runs the works of stage si together (this share of their
// workers), then waits the stage's closure delay. A delay work has a nil
// result.
func RunStage(ctx context.Context, w *Workload, si int, o Options) ([]*engine.Result, error) {
	st := &w.Stages[si]
	results := make([]*engine.Result, len(st.Works))
	errs := make([]error, len(st.Works))
	var wg sync.WaitGroup
	for wi := range st.Works {
		wk := &st.Works[wi]
		t, err := newTarget(storageOf(w, st, wk), o, workName(st, wk))
		if err != nil {
			return results, err
		}
		defer t.Close()
		if o.Verified != nil {
			defer o.Verified.add(t)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[wi], errs[wi] = runWork(ctx, t, workName(st, wk), wk, o)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return results, err
	}
	return results, sleep(ctx, time.Duration(st.ClosureDelay)*time.Second)
}

// AfterStage ends stage si once all of it is done everywhere: a cleanup
// with deleteContainer=true removes its containers, and each work is held
// to its failure budget (afr, failures per million operations).
func AfterStage(ctx context.Context, w *Workload, si int, results []*engine.Result, o Options) error {
	st := &w.Stages[si]
	for wi := range st.Works {
		wk, res := &st.Works[wi], results[wi]
		if res == nil {
			continue
		}
		if wk.Type == "cleanup" && wk.Config["deleteContainer"] == "true" {
			t, err := newTarget(storageOf(w, st, wk), o, res.Name)
			if err != nil {
				return err
			}
			err = deleteContainers(ctx, t, wk.Config)
			t.Close()
			if err != nil {
				return fmt.Errorf("%s: %w", res.Name, err)
			}
		}
		if wk.AFR >= 0 {
			var okOps, failed int64
			for _, s := range res.Stats {
				okOps += s.Ops()
				failed += s.Errors()
			}
			if total := okOps + failed; total > 0 && failed*1_000_000/total > wk.AFR {
				return fmt.Errorf("%s: %d of %d operations failed, more than the %d per million the work accepts", res.Name, failed, total, wk.AFR)
			}
		}
	}
	return nil
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// inProcess is the mock storage of this process: one, so that what a stage
// writes a later stage reads.
var inProcess = sync.OnceValue(mock.New)

// newTarget makes the target a storage element describes; command-line
// options override its endpoint and keys.
func newTarget(s *Storage, o Options, work string) (*target.Target, error) {
	c := target.Config{Endpoints: []string{s.Config["endpoint"]}, AccessKey: s.Config["accesskey"], SecretKey: s.Config["secretkey"],
		SSE: s.Config["sse"]}
	switch s.Type {
	case "mock", "none":
		c.Transport, c.Endpoints = inProcess(), []string{"http://mock"}
		if o.Transport != nil {
			c.Transport = o.Transport(work)
		}
	case "s3", "":
		// COSBench's default is virtual-hosted style.
		c.VirtualHost = s.Config["path_style_access"] != "true"
		if n, err := strconv.Atoi(s.Config["max_connections"]); err == nil {
			c.MaxConns = n
		}
		if ms, err := strconv.Atoi(s.Config["timeout"]); err == nil {
			c.Timeout = time.Duration(ms) * time.Millisecond
		}
		if host := s.Config["proxyhost"]; host != "" {
			port := s.Config["proxyport"]
			if port == "" {
				port = "80"
			}
			c.Proxy = &url.URL{Scheme: "http", Host: net.JoinHostPort(host, port)}
		}
		if len(o.Endpoints) > 0 {
			c.Endpoints = o.Endpoints
		}
	default:
		return nil, fmt.Errorf("workload: storage type %q is not supported (s3, mock, none)", s.Type)
	}
	if o.AccessKey != "" {
		c.AccessKey, c.SecretKey = o.AccessKey, o.SecretKey
	}
	if o.faults != nil {
		c.Acked = o.faults.acked(s)
	}
	return target.New(c)
}

// runWork runs this share of one work: its ramp-up and ramp-down are run
// but not counted.
func runWork(ctx context.Context, t *target.Target, name string, wk *Work, o Options) (*engine.Result, error) {
	local, offset := o.Share.slice(wk.Workers)
	if wk.Type == "delay" {
		return nil, sleep(ctx, time.Duration(wk.Runtime)*time.Second)
	}
	ops, err := operations(t, wk, local, offset)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if local == 0 { // more drivers than workers: this one sits the work out
		var kinds []string
		for _, op := range ops {
			kinds = append(kinds, op.Kind)
		}
		return engine.Empty(name, kinds), nil
	}
	var observe func(string, time.Time, time.Duration, error)
	if o.faults != nil {
		observe = o.faults.session.Timeline().Observe
	}
	ew := engine.Work{Name: name, Type: wk.Type, Workers: local, Ops: ops, Interval: time.Duration(wk.Interval) * time.Second, Observe: observe}
	switch wk.Type {
	case "init", "prepare", "cleanup", "dispose":
		ew.UntilDone = true
		ew.Expect = expect(wk, local)
		// What a set-up work fails to create, every later stage fails on:
		// its first failure (a 403 for a wrong key) ends the run at once.
		ew.StopOnError = wk.Type == "init" || wk.Type == "prepare"
	default:
		ew.Type = "normal"
		ew.Runtime = time.Duration(wk.Runtime) * time.Second
		ew.TotalOps, ew.TotalBytes = o.Share.part(wk.TotalOps, wk.Workers), o.Share.part(int64(wk.TotalBytes), wk.Workers)
	}
	if o.Progress != nil {
		ew.Progress = o.Progress(name)
	}
	ramp := func(secs int, what string) error {
		if secs <= 0 {
			return nil
		}
		_, err := engine.Run(ctx, engine.Work{Name: name + " (" + what + ")", Workers: local, Ops: ops, Runtime: time.Duration(secs) * time.Second,
			Observe: observe})
		return err
	}
	if err := ramp(wk.Rampup, "rampup"); err != nil {
		return nil, err
	}
	res, err := engine.Run(ctx, ew)
	if err != nil {
		return res, fmt.Errorf("%s: %w", name, err)
	}
	return res, ramp(wk.Rampdown, "rampdown")
}

// expect is how many operations this share of a set-up work issues: one a
// container (init, dispose) or one an object of every container.
func expect(wk *Work, local int) int64 {
	n, err := parseNaming(wk.Config, "containers")
	if err != nil || wk.Workers == 0 {
		return 0
	}
	total := n.containers.Hi - n.containers.Lo + 1
	if wk.Type == "prepare" || wk.Type == "cleanup" {
		o, err := parseNaming(wk.Config, "objects")
		if err != nil {
			return 0
		}
		total *= o.objects.Hi - o.objects.Lo + 1
	}
	return total * int64(local) / int64(wk.Workers)
}

// naming holds a config's container and object names and selectors.
type naming struct {
	cprefix, csuffix, oprefix, osuffix string
	containers, objects, sizes         Selector
	hashCheck                          bool
}

func (n naming) container(i int64) string { return n.cprefix + strconv.FormatInt(i, 10) + n.csuffix }
func (n naming) object(j int64) string    { return n.oprefix + strconv.FormatInt(j, 10) + n.osuffix }

func parseNaming(cfg map[string]string, need ...string) (naming, error) {
	n := naming{cprefix: "mycontainers_", oprefix: "myobjects_", hashCheck: cfg["hashCheck"] == "true"}
	for k, dst := range map[string]*string{"cprefix": &n.cprefix, "csuffix": &n.csuffix, "oprefix": &n.oprefix, "osuffix": &n.osuffix} {
		if v, ok := cfg[k]; ok {
			*dst = v
		}
	}
	for _, key := range need {
		v, ok := cfg[key]
		if !ok {
			return n, fmt.Errorf("config lacks %s", key)
		}
		sel, err := ParseSelector(v, key == "sizes")
		if err != nil {
			return n, err
		}
		switch key {
		case "containers":
			n.containers = sel
		case "objects":
			n.objects = sel
		case "sizes":
			n.sizes = sel
		}
	}
	return n, nil
}

func merge(a, b map[string]string) map[string]string {
	m := map[string]string{}
	for k, v := range a {
		m[k] = v
	}
	for k, v := range b {
		m[k] = v
	}
	return m
}

func outcome(r target.Result, err error) (engine.Outcome, error) {
	return engine.Outcome{Bytes: r.Bytes, TTFB: r.TTFB}, err
}

// operations builds the engine operations of a work.
func operations(t *target.Target, wk *Work, local, offset int) ([]engine.Op, error) {
	switch wk.Type {
	case "init", "dispose":
		n, err := parseNaming(wk.Config, "containers")
		if err != nil {
			return nil, err
		}
		pickers := perWorker(local, func(i int) *Picker { return n.containers.For(offset+i, wk.Workers, true, nil) })
		do := t.CreateBucket
		if wk.Type == "dispose" {
			do = t.DeleteBucket
		}
		return []engine.Op{{Kind: wk.Type, Ratio: 100, Do: func(ctx context.Context, w *engine.Worker) (engine.Outcome, error) {
			c, ok := pickers[w.Index].Next(w.Rand)
			if !ok {
				return engine.Outcome{}, engine.ErrWorkerDone
			}
			t0 := time.Now() // a bucket call has no body: its first byte is its end
			err := do(ctx, n.container(c))
			return engine.Outcome{TTFB: time.Since(t0)}, err
		}}}, nil
	case "prepare", "cleanup":
		need := []string{"containers", "objects"}
		if wk.Type == "prepare" {
			need = append(need, "sizes")
		}
		n, err := parseNaming(wk.Config, need...)
		if err != nil {
			return nil, err
		}
		// Each worker takes its slice of the objects in every container.
		type walk struct {
			c, created int64
			obj, sz    *Picker
		}
		walks := perWorker(local, func(i int) *walk {
			return &walk{c: n.containers.Lo, created: -1, obj: n.objects.For(offset+i, wk.Workers, true, nil),
				sz: n.sizes.For(offset+i, wk.Workers, false, new(atomic.Int64))}
		})
		kind := map[string]string{"prepare": "write", "cleanup": "delete"}[wk.Type]
		create := wk.Config["createContainer"] == "true"
		return []engine.Op{{Kind: kind, Ratio: 100, Do: func(ctx context.Context, w *engine.Worker) (engine.Outcome, error) {
			wl := walks[w.Index]
			for {
				if wl.c > n.containers.Hi {
					return engine.Outcome{}, engine.ErrWorkerDone
				}
				if o, ok := wl.obj.Next(w.Rand); ok {
					c := n.container(wl.c)
					if kind == "delete" {
						return outcome(t.Delete(ctx, c, n.object(o)))
					}
					if create && wl.created != wl.c {
						if err := t.CreateBucket(ctx, c); err != nil {
							return engine.Outcome{}, err
						}
						wl.created = wl.c
					}
					size, _ := wl.sz.Next(w.Rand)
					return outcome(t.Put(ctx, c, n.object(o), size))
				}
				wl.c++
				wl.obj = n.objects.For(offset+w.Index, wk.Workers, true, nil)
			}
		}}}, nil
	}
	var ops []engine.Op
	for _, op := range wk.Ops {
		if op.Ratio == 0 {
			continue
		}
		cfg := merge(wk.Config, op.Config)
		need := []string{"containers", "objects"}
		if op.Type == "write" {
			need = append(need, "sizes")
		}
		n, err := parseNaming(cfg, need...)
		if err != nil {
			return nil, fmt.Errorf("operation %s: %w", op.Type, err)
		}
		division := op.Division
		if division == "" {
			division = wk.Division
		}
		type pick struct{ c, o, s *Picker }
		var sc, so, ss atomic.Int64
		pickers := perWorker(local, func(i int) *pick {
			g := offset + i
			return &pick{n.containers.For(g, wk.Workers, division == "container", &sc),
				n.objects.For(g, wk.Workers, division == "object", &so), n.sizes.For(g, wk.Workers, false, &ss)}
		})
		names := func(w *engine.Worker) (string, string, int64, error) {
			p := pickers[w.Index]
			c, ok1 := p.c.Next(w.Rand)
			o, ok2 := p.o.Next(w.Rand)
			if !ok1 || !ok2 {
				return "", "", 0, engine.ErrWorkerDone
			}
			size := int64(0)
			if op.Type == "write" {
				size, _ = p.s.Next(w.Rand)
			}
			return n.container(c), n.object(o), size, nil
		}
		var do func(ctx context.Context, w *engine.Worker) (engine.Outcome, error)
		switch op.Type {
		case "read":
			do = func(ctx context.Context, w *engine.Worker) (engine.Outcome, error) {
				c, o, _, err := names(w)
				if err != nil {
					return engine.Outcome{}, err
				}
				return outcome(t.Get(ctx, c, o, -1, n.hashCheck))
			}
		case "write":
			do = func(ctx context.Context, w *engine.Worker) (engine.Outcome, error) {
				c, o, size, err := names(w)
				if err != nil {
					return engine.Outcome{}, err
				}
				return outcome(t.Put(ctx, c, o, size))
			}
		case "delete":
			do = func(ctx context.Context, w *engine.Worker) (engine.Outcome, error) {
				c, o, _, err := names(w)
				if err != nil {
					return engine.Outcome{}, err
				}
				return outcome(t.Delete(ctx, c, o))
			}
		case "list":
			do = func(ctx context.Context, w *engine.Worker) (engine.Outcome, error) {
				c, o, _, err := names(w)
				if err != nil {
					return engine.Outcome{}, err
				}
				return outcome(t.List(ctx, c, o))
			}
		}
		ops = append(ops, engine.Op{Kind: op.Type, Ratio: op.Ratio, Do: do})
	}
	return ops, nil
}

func perWorker[T any](n int, mk func(i int) T) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = mk(i)
	}
	return out
}

// deleteContainers removes the containers of a cleanup with
// deleteContainer=true, once its objects are gone.
func deleteContainers(ctx context.Context, t *target.Target, cfg map[string]string) error {
	n, err := parseNaming(cfg, "containers")
	if err != nil {
		return err
	}
	var errs []error
	for c := n.containers.Lo; c <= n.containers.Hi; c++ {
		if err := t.DeleteBucket(ctx, n.container(c)); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
