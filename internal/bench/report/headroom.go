package report

import (
	"fmt"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// ClientBoundAt is the share of its ceiling above which a stage measured
// the generator rather than the target: the same operations against a
// target that does nothing go hardly faster.
const ClientBoundAt = 0.8

// Bound is how near a measured stage came to what the bench process can do
// at all: its generator ceiling (the same operations, workers and sizes
// against an in-process target that does nothing) and its share of the
// machine's CPU.
type Bound struct {
	Stage string `json:"stage"`
	// Ratio is the stage's rate over its ceiling's (the higher of the
	// op/s and MB/s ratios, that of MB/s only when objects are read or
	// written). A ratio over 1 is within the noise of a two-second
	// ceiling: it is reported as 1.
	Ratio float64 `json:"ceiling_ratio"`
	// Ceiling is the ceiling's description.
	Ceiling string `json:"ceiling"`
	// ClientBound: the stage measured the bench process, not the target.
	ClientBound bool `json:"client_bound"`
	// Why says what bound it, when ClientBound.
	Why string `json:"why,omitempty"`
}

// ClientCPU is the CPU the bench process used over the measured stages
// (set-up and cleanup stages left out).
type ClientCPU struct {
	Seconds float64 `json:"seconds"` // CPU seconds, user and system
	Wall    float64 `json:"wall_s"`
	Cores   int     `json:"cores"`
}

// Measure starts counting the CPU this process uses; the function it
// returns adds what it used since, and the time, to c.
func (c *ClientCPU) Measure() func() {
	t0, c0 := time.Now(), cpuSeconds()
	return func() {
		c.Seconds += cpuSeconds() - c0
		c.Wall += time.Since(t0).Seconds()
		c.Cores = runtime.NumCPU()
	}
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// Share is the part of the machine's cores the bench process kept busy.
func (c *ClientCPU) Share() float64 {
	if c == nil || c.Wall <= 0 || c.Cores <= 0 {
		return 0
	}
	return c.Seconds / c.Wall / float64(c.Cores)
}

// Headroom compares every measured stage with the ceiling measured for it
// (by name: the ceiling of the same work), and with the CPU the bench
// process used, and says which stages were bound by the client.
func Headroom(s *Summary) {
	s.Bounds = nil
	ceilings := map[string]Ceiling{}
	for _, c := range s.Ceilings {
		ceilings[c.Stage] = c
	}
	if s.Ceiling != nil {
		if _, ok := ceilings[s.Ceiling.Stage]; !ok {
			ceilings[s.Ceiling.Stage] = *s.Ceiling
		}
	}
	cpu := s.ClientCPU.Share()
	for _, st := range s.Stages {
		if setup(st.Type) {
			continue
		}
		var ops, mbps float64
		for _, op := range st.Ops {
			ops += op.ThroughputOps
			mbps += op.BandwidthMBps
		}
		b := Bound{Stage: st.Name}
		c, ok := ceilings[st.Name]
		if ok && c.ThroughputOps > 0 {
			b.Ceiling = c.String()
			b.Ratio = ops / c.ThroughputOps
			if c.BandwidthMBps > 0 && mbps > 0 {
				b.Ratio = max(b.Ratio, mbps/c.BandwidthMBps)
			}
			b.Ratio = min(b.Ratio, 1)
		}
		var why []string
		if b.Ratio >= ClientBoundAt {
			w := fmt.Sprintf("%.2f of the generator ceiling", b.Ratio)
			if strings.Contains(c.What, "verifying") {
				w += " (hashing every byte read to verify it)"
			}
			why = append(why, w)
		}
		if cpu >= ClientBoundAt {
			why = append(why, fmt.Sprintf("the bench process kept %.0f%% of %d cores busy", 100*cpu, s.ClientCPU.Cores))
		}
		if len(why) > 0 {
			b.ClientBound, b.Why = true, strings.Join(why, "; ")
		}
		if ok || b.ClientBound {
			s.Bounds = append(s.Bounds, b)
		}
	}
}

// String is the report's line for the bound.
func (b Bound) String() string {
	var line string
	if b.Ceiling != "" {
		line = fmt.Sprintf("stage %s: %.2f of its generator ceiling", b.Stage, b.Ratio)
		if b.Ratio >= 1 {
			line = fmt.Sprintf("stage %s: at its generator ceiling", b.Stage)
		}
	} else {
		line = "stage " + b.Stage
	}
	if b.ClientBound {
		line += ": bound by the client, not the target (" + b.Why + "): these figures measure this bench process;" +
			" spread the load over more machines (bench driver) or give the bench more CPU"
	}
	return line
}
