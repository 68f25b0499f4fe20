package workload

import (
	"math/rand/v2"
	"sort"
)

// SizeSpec is one object-size selector a workload writes with, and sizes
// drawn from it: what the generator ceiling reads, so that it is measured
// with the run's own sizes.
type SizeSpec struct {
	Spec    string // the selector as the file writes it
	Sizes   []int64
	Workers int  // the most workers of a work writing these sizes
	Verify  bool // some read of the workload checks contents
}

// Sizes lists the distinct size selectors of the workload's prepare works
// and write operations, in the order the file names them, at most limit
// of them.
func Sizes(w *Workload, samples, limit int) []SizeSpec {
	verify := false
	type acc struct {
		spec    SizeSpec
		first   int
		workers int
	}
	seen := map[string]*acc{}
	add := func(cfg map[string]string, workers int) {
		v, ok := cfg["sizes"]
		if !ok {
			return
		}
		a := seen[v]
		if a == nil {
			sel, err := ParseSelector(v, true)
			if err != nil {
				return
			}
			r := rand.New(rand.NewPCG(1, uint64(len(seen))))
			sizes := make([]int64, samples)
			for i := range sizes {
				sizes[i] = sel.sample(r)
			}
			a = &acc{spec: SizeSpec{Spec: v, Sizes: sizes}, first: len(seen)}
			seen[v] = a
		}
		a.workers = max0(a.workers, workers)
	}
	for _, st := range w.Stages {
		for _, wk := range st.Works {
			if wk.Type == "prepare" {
				add(wk.Config, wk.Workers)
			}
			for _, op := range wk.Ops {
				cfg := merge(wk.Config, op.Config)
				if op.Type == "write" && op.Ratio > 0 {
					add(cfg, wk.Workers)
				}
				if op.Type == "read" && op.Ratio > 0 && cfg["hashCheck"] == "true" {
					verify = true
				}
			}
		}
	}
	var out []*acc
	for _, a := range seen {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].first < out[j].first })
	var specs []SizeSpec
	for i, a := range out {
		if i == limit {
			break
		}
		a.spec.Workers, a.spec.Verify = a.workers, verify
		specs = append(specs, a.spec)
	}
	return specs
}

func max0(a, b int) int {
	if a > b {
		return a
	}
	return b
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
