package workload

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/bench/mock"
	"github.com/ostiumio/ostium/internal/bench/report"
)

// CeilingTime is how long the ceiling of a stage runs.
const CeilingTime = 2 * time.Second

// fillLimit bounds the containers whose object sizes the ceiling's mock
// knows.
const fillLimit = 100_000

// Ceilings measures the generator ceiling of each measured stage (one
// with normal works; at most limit of them): the stage as the file writes
// it (its works together, with their workers, operations and ratios,
// selectors, sizes and hashCheck) run for CeilingTime against a mock in
// this process, no network, no storage. A read finds any object of a
// container that a prepare or a write fills, of a size drawn from that
// work's sizes, so nothing is prepared. Each work gets its ceiling, named
// as its results are: a run's figures are compared with the same
// operations, never with another operation's or size's rate. each, if set,
// is told of every ceiling as it is measured.
func Ceilings(ctx context.Context, w *Workload, limit int, each func(report.Ceiling)) ([]report.Ceiling, error) {
	m := mock.New()
	fill := fillSizes(w)
	m.Fill = func(bucket, key string) (int64, bool) {
		var sel *Selector
		for _, f := range fill[bucket] { // the longest names that match
			if strings.HasPrefix(key, f.oprefix) && strings.HasSuffix(key, f.osuffix) {
				sel = &f.sizes
				break
			}
		}
		if sel == nil {
			return 0, false
		}
		h := fnv.New64a()
		h.Write([]byte(bucket + "/" + key))
		return sel.sample(rand.New(rand.NewPCG(h.Sum64(), 0))), true
	}
	counters := map[string]*mock.Counting{}
	var out []report.Ceiling
	for si := range w.Stages {
		if len(out) >= limit {
			break
		}
		st := w.Stages[si]
		st.ClosureDelay, st.Storage, st.Works = 0, nil, nil
		for _, wk := range w.Stages[si].Works {
			if wk.Type != "" && wk.Type != "normal" {
				continue
			}
			wk.Runtime, wk.TotalOps, wk.TotalBytes = int(CeilingTime/time.Second), 0, 0
			wk.Rampup, wk.Rampdown, wk.Interval, wk.Storage = 0, 0, 0, nil
			st.Works = append(st.Works, wk)
			counters[workName(&st, &wk)] = &mock.Counting{RT: m}
		}
		if len(st.Works) == 0 {
			continue
		}
		one := &Workload{Name: w.Name, Storage: Storage{Type: "mock"}, Stages: []Stage{st}}
		results, err := RunStage(ctx, one, 0, Options{Transport: func(work string) http.RoundTripper { return counters[work] }})
		if err != nil {
			return out, fmt.Errorf("workload: generator ceiling of stage %s: %w", st.Name, err)
		}
		for wi, res := range results {
			if res == nil {
				continue
			}
			wk := &st.Works[wi]
			var finished, bytes int64
			for _, s := range res.Stats {
				finished += s.Ops()
				bytes += s.Bytes()
				// What fails against a target that does nothing (a read of
				// a container nothing fills) would make no ceiling of it.
				if s.Errors() > 0 {
					return out, fmt.Errorf("workload: generator ceiling of %s: %d of its %s operations failed against the in-process mock; last: %s",
						res.Name, s.Errors(), s.Kind, s.LastError())
				}
			}
			secs := res.End.Sub(res.Start).Seconds()
			flowed := counters[res.Name].Bytes()
			if finished == 0 && flowed == 0 || secs <= 0 {
				continue
			}
			c := report.Ceiling{Stage: res.Name, What: fmt.Sprintf("in-process mock, %s, %d workers", describe(wk), wk.Workers),
				ThroughputOps: float64(finished) / secs, BandwidthMBps: float64(flowed) / 1e6 / secs}
			if finished < 2*int64(wk.Workers) && bytes > 0 {
				// Few operations finished (large objects): their rate is
				// what flowed, in operations of the mean size finished.
				c.ThroughputOps = float64(flowed) / (float64(bytes) / float64(finished)) / secs
			}
			out = append(out, c)
			if each != nil {
				each(c)
			}
		}
	}
	return out, nil
}

// describe names a work's operations as a ceiling says them.
func describe(wk *Work) string {
	var parts []string
	verify := false
	for _, op := range wk.Ops {
		if op.Ratio == 0 {
			continue
		}
		cfg := merge(wk.Config, op.Config)
		p := fmt.Sprintf("%s %d%%", op.Type, op.Ratio)
		if op.Type == "write" && cfg["sizes"] != "" {
			p += " of " + cfg["sizes"]
		}
		parts = append(parts, p)
		verify = verify || op.Type == "read" && cfg["hashCheck"] == "true"
	}
	s := strings.Join(parts, ", ")
	if verify {
		s += ", verifying"
	}
	return s
}

// fill is the size selector of the objects a prepare or a write names
// oprefix + N + osuffix.
type fill struct {
	oprefix, osuffix string
	sizes            Selector
}

// fillSizes maps each container a prepare or a write fills to the size
// selectors of the objects it writes there, the longest names first (the
// first work to name them wins).
func fillSizes(w *Workload) map[string][]fill {
	fills := map[string][]fill{}
	n := 0
	add := func(cfg map[string]string) {
		nm, err := parseNaming(cfg, "containers", "sizes")
		if err != nil {
			return
		}
		for c := nm.containers.Lo; c <= nm.containers.Hi && n < fillLimit; c++ {
			name := nm.container(c)
			if slices.ContainsFunc(fills[name], func(f fill) bool { return f.oprefix == nm.oprefix && f.osuffix == nm.osuffix }) {
				continue
			}
			fills[name] = append(fills[name], fill{nm.oprefix, nm.osuffix, nm.sizes})
			slices.SortStableFunc(fills[name], func(a, b fill) int { return len(b.oprefix+b.osuffix) - len(a.oprefix+a.osuffix) })
			n++
		}
	}
	for _, st := range w.Stages {
		for _, wk := range st.Works {
			if wk.Type == "prepare" {
				add(wk.Config)
			}
			for _, op := range wk.Ops {
				if op.Type == "write" && op.Ratio > 0 {
					add(merge(wk.Config, op.Config))
				}
			}
		}
	}
	return fills
}

// sample draws a size of the selector as any worker could.
func (s Selector) sample(r *rand.Rand) int64 {
	switch s.Kind {
	case 'h':
		p := s.For(0, 1, false, nil)
		v, _ := p.Next(r)
		return v
	case 'c':
		return s.Lo * s.Unit
	}
	return (s.Lo + r.Int64N(s.Hi-s.Lo+1)) * s.Unit
}
