package engine

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/ostiumio/ostium/internal/bench/histogram"
)

// statsWire is Stats as it travels from a driver to the controller.
type statsWire struct {
	Kind      string       `json:"kind"`
	Ops       int64        `json:"ops"`
	Errors    int64        `json:"errors"`
	Bytes     int64        `json:"bytes"`
	LatencyUs int64        `json:"latency_sum_us"`
	LastError string       `json:"last_error,omitempty"`
	Latency   *histogram.H `json:"latency"`
	TTFB      *histogram.H `json:"ttfb"`
}

// MarshalJSON writes the figures and both histograms.
func (s *Stats) MarshalJSON() ([]byte, error) {
	return json.Marshal(statsWire{Kind: s.Kind, Ops: s.Ops(), Errors: s.Errors(), Bytes: s.Bytes(),
		LatencyUs: s.latSum.Load(), LastError: s.LastError(), Latency: s.Latency, TTFB: s.TTFB})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (s *Stats) UnmarshalJSON(b []byte) error {
	w := statsWire{Latency: histogram.New(), TTFB: histogram.New()}
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("engine: stats: %w", err)
	}
	*s = Stats{Kind: w.Kind, Latency: w.Latency, TTFB: w.TTFB}
	s.ops.Store(w.Ops)
	s.errs.Store(w.Errors)
	s.bytes.Store(w.Bytes)
	s.latSum.Store(w.LatencyUs)
	if w.LastError != "" {
		s.lastErr.Store(w.LastError)
	}
	return nil
}

// NewStats returns empty figures for an operation kind.
func NewStats(kind string) *Stats {
	return &Stats{Kind: kind, Latency: histogram.New(), TTFB: histogram.New()}
}

// Merge combines the results of one work run in parts (by several
// drivers started together): counts add up, histograms merge exactly, the
// time series add up interval by interval.
func Merge(parts ...*Result) (*Result, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("engine: nothing to merge")
	}
	out := &Result{Name: parts[0].Name, Type: parts[0].Type} // the fine series are not merged: the charts fall back on Series
	kinds := map[string]*Stats{}
	for _, p := range parts {
		if p.Name != out.Name {
			return nil, fmt.Errorf("engine: merging %q with %q", out.Name, p.Name)
		}
		if out.Start.IsZero() || p.Start.Before(out.Start) {
			out.Start = p.Start
		}
		if p.End.After(out.End) {
			out.End = p.End
		}
		out.Workers += p.Workers
		for _, s := range p.Stats {
			m, ok := kinds[s.Kind]
			if !ok {
				m = NewStats(s.Kind)
				kinds[s.Kind] = m
				out.Stats = append(out.Stats, m)
			}
			m.ops.Add(s.Ops())
			m.errs.Add(s.Errors())
			m.bytes.Add(s.Bytes())
			m.latSum.Add(s.latSum.Load())
			m.Latency.Merge(s.Latency)
			m.TTFB.Merge(s.TTFB)
			if e := s.LastError(); e != "" {
				m.lastErr.Store(e)
			}
		}
	}
	// The series are cumulative: a part that finished earlier keeps
	// counting its final totals in the later intervals of the others.
	n := 0
	for _, p := range parts {
		n = max(n, len(p.Series))
	}
	for i := range n {
		out.Series = append(out.Series, Sample{Ops: map[string]int64{}, Bytes: map[string]int64{},
			Errors: map[string]int64{}, LatencyUs: map[string]int64{}})
		o := &out.Series[i]
		for _, p := range parts {
			if len(p.Series) == 0 {
				continue
			}
			smp := p.Series[min(i, len(p.Series)-1)]
			o.Elapsed = max(o.Elapsed, smp.Elapsed)
			for k, v := range smp.Ops {
				o.Ops[k] += v
			}
			for k, v := range smp.Bytes {
				o.Bytes[k] += v
			}
			for k, v := range smp.Errors {
				o.Errors[k] += v
			}
			for k, v := range smp.LatencyUs {
				o.LatencyUs[k] += v
			}
		}
	}
	return out, nil
}

// Empty is the result of a work this part ran no worker of.
func Empty(name string, kinds []string) *Result {
	now := time.Now()
	r := &Result{Name: name, Start: now, End: now}
	for _, k := range kinds {
		r.Stats = append(r.Stats, NewStats(k))
	}
	return r
}
