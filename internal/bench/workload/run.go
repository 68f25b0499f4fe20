package workload

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ostiumio/ostium/internal/bench/engine"
	"github.com/ostiumio/ostium/internal/bench/mock"
	"github.com/ostiumio/ostium/internal/bench/report"
	"github.com/ostiumio/ostium/internal/bench/target"
)

// Options override the workload's storage and watch its progress.
type Options struct {
	Endpoints            []string
	AccessKey, SecretKey string
	// Progress, if set, gives the progress callback of a stage's work.
	Progress func(name string) func(engine.Progress)
}

// Run runs the stages one after another, the works of a stage together.
func Run(ctx context.Context, w *Workload, o Options) (report.Summary, []*engine.Result, error) {
	sum := report.Summary{Started: time.Now()}
	var all []*engine.Result
	targets := map[*Storage]*target.Target{}
	defer func() {
		for _, t := range targets {
			t.Close()
		}
	}()
	for si := range w.Stages {
		st := &w.Stages[si]
		results := make([]*engine.Result, len(st.Works))
		errs := make([]error, len(st.Works))
		var wg sync.WaitGroup
		for wi := range st.Works {
			wk := &st.Works[wi]
			storage := &w.Storage
			if wk.Storage != nil {
				storage = wk.Storage
			} else if st.Storage != nil {
				storage = st.Storage
			}
			t, ok := targets[storage]
			if !ok {
				var err error
				if t, err = newTarget(storage, o); err != nil {
					return sum, all, err
				}
				targets[storage] = t
			}
			name := st.Name
			if len(st.Works) > 1 || wk.Name != "" && wk.Name != st.Name {
				name = st.Name + "/" + wk.Name
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[wi], errs[wi] = runWork(ctx, t, name, wk, o)
			}()
		}
		wg.Wait()
		for i, res := range results {
			if res != nil {
				all = append(all, res)
				sum.Stages = append(sum.Stages, report.Summarize(res))
			}
			if errs[i] != nil {
				return sum, all, errs[i]
			}
		}
		if err := sleep(ctx, time.Duration(st.ClosureDelay)*time.Second); err != nil {
			return sum, all, err
		}
	}
	return sum, all, nil
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// newTarget makes the target a storage element describes; command-line
// options override its endpoint and keys.
func newTarget(s *Storage, o Options) (*target.Target, error) {
	c := target.Config{Endpoints: []string{s.Config["endpoint"]}, AccessKey: s.Config["accesskey"], SecretKey: s.Config["secretkey"]}
	switch s.Type {
	case "mock", "none":
		c.Transport, c.Endpoints = mock.New(), []string{"http://mock"}
	case "s3", "":
		// COSBench's default is virtual-hosted style.
		c.VirtualHost = s.Config["path_style_access"] != "true"
		if n, err := strconv.Atoi(s.Config["max_connections"]); err == nil {
			c.MaxConns = n
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
	return target.New(c)
}

// runWork runs one work: its ramp-up and ramp-down are run but not counted.
func runWork(ctx context.Context, t *target.Target, name string, wk *Work, o Options) (*engine.Result, error) {
	ops, err := operations(t, wk)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	ew := engine.Work{Name: name, Workers: wk.Workers, Ops: ops, Interval: time.Duration(wk.Interval) * time.Second}
	switch wk.Type {
	case "delay":
		return nil, sleep(ctx, time.Duration(wk.Runtime)*time.Second)
	case "init", "prepare", "cleanup", "dispose":
		ew.UntilDone = true
	default:
		ew.Runtime, ew.TotalOps, ew.TotalBytes = time.Duration(wk.Runtime)*time.Second, wk.TotalOps, wk.TotalBytes
	}
	if o.Progress != nil {
		ew.Progress = o.Progress(name)
	}
	for _, ramp := range []int{wk.Rampup} {
		if ramp > 0 {
			if _, err := engine.Run(ctx, engine.Work{Name: name + " (rampup)", Workers: wk.Workers, Ops: ops, Runtime: time.Duration(ramp) * time.Second}); err != nil {
				return nil, err
			}
		}
	}
	res, err := engine.Run(ctx, ew)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if wk.Rampdown > 0 {
		if _, err := engine.Run(ctx, engine.Work{Name: name + " (rampdown)", Workers: wk.Workers, Ops: ops, Runtime: time.Duration(wk.Rampdown) * time.Second}); err != nil {
			return res, err
		}
	}
	if wk.Type == "cleanup" && wk.Config["deleteContainer"] == "true" {
		if err := deleteContainers(ctx, t, wk.Config); err != nil {
			return res, fmt.Errorf("%s: %w", name, err)
		}
	}
	if wk.AFR >= 0 {
		var okOps, failed int64
		for _, s := range res.Stats {
			okOps += s.Ops()
			failed += s.Errors()
		}
		if total := okOps + failed; total > 0 && failed*1_000_000/total > wk.AFR {
			return res, fmt.Errorf("%s: %d of %d operations failed, more than the %d per million the work accepts", name, failed, total, wk.AFR)
		}
	}
	return res, nil
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
func operations(t *target.Target, wk *Work) ([]engine.Op, error) {
	switch wk.Type {
	case "delay":
		return nil, nil
	case "init", "dispose":
		n, err := parseNaming(wk.Config, "containers")
		if err != nil {
			return nil, err
		}
		pickers := perWorker(wk.Workers, func(i int) *Picker { return n.containers.For(i, wk.Workers, true, nil) })
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
		walks := perWorker(wk.Workers, func(i int) *walk {
			return &walk{c: n.containers.Lo, created: -1, obj: n.objects.For(i, wk.Workers, true, nil),
				sz: n.sizes.For(i, wk.Workers, false, new(atomic.Int64))}
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
				wl.obj = n.objects.For(w.Index, wk.Workers, true, nil)
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
		pickers := perWorker(wk.Workers, func(i int) *pick {
			return &pick{n.containers.For(i, wk.Workers, division == "container", &sc),
				n.objects.For(i, wk.Workers, division == "object", &so), n.sizes.For(i, wk.Workers, false, &ss)}
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
