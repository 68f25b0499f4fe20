package faults

import (
	"slices"

	"github.com/ostiumio/ostium/internal/bench/report"
)

// recovered is how near a second's successes must come to the baseline to
// count as recovered: within 10% of the median before the fault.
const recovered = 0.9

// baselineSeconds is how many seconds before a fault its baseline looks
// at, at most.
const baselineSeconds = 60

// Analyze fills in each fault's figures from the timeline: faults that
// ran, in the order they started. A fault's effects are looked for from
// its second up to the next fault's second (or the end of the timeline);
// its baseline is the median successes per second over the seconds of the
// same stage before it (after the previous fault's recovery), leaving out
// quiet ones and the run's first, partial, second. A fault that comes
// before the previous one recovered (a stop, then a start) inherits its
// baseline.
func Analyze(secs []report.Second, fs []report.FaultRun) {
	order := make([]int, 0, len(fs))
	for i := range fs {
		if fs[i].Ran() {
			order = append(order, i)
		} else {
			fs[i].FirstErrorS, fs[i].LastErrorS, fs[i].RecoverS = -1, -1, -1
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case fs[a].AtS < fs[b].AtS:
			return -1
		case fs[a].AtS > fs[b].AtS:
			return 1
		}
		return 0
	})
	floor := 1 // seconds before are not the baseline's
	carry := -1.0
	for n, i := range order {
		f := &fs[i]
		at := int(f.AtS)
		end := len(secs)
		for _, j := range order[n+1:] {
			if s := int(fs[j].AtS); s > at {
				end = min(end, s)
				break
			}
		}
		stage := ""
		if at < len(secs) {
			stage = secs[at].Stage
		}
		var base []float64
		for s := at - 1; s >= max(floor, at-baselineSeconds); s-- {
			if secs[s].Stage != stage || secs[s].OK+secs[s].Failed() == 0 {
				continue
			}
			base = append(base, float64(secs[s].OK))
		}
		f.BaselineOK = median(base)
		if carry >= 0 {
			// The previous fault had not recovered when this one came (a
			// stop, then a start): this one is measured against the same
			// healthy baseline.
			f.BaselineOK = carry
		}
		f.FirstErrorS, f.LastErrorS, f.ErrorWindowS, f.Failed = -1, -1, 0, 0
		for s := at; s < end; s++ {
			if n := secs[s].Failed(); n > 0 {
				if f.FirstErrorS < 0 {
					f.FirstErrorS = s
				}
				f.LastErrorS = s
				f.Failed += n
			}
		}
		if f.FirstErrorS >= 0 {
			f.ErrorWindowS = f.LastErrorS - f.FirstErrorS + 1
		}
		// The effect begins at the first second with a failure or with
		// successes below the baseline's 90%, and ends at the first second
		// after it back at 90%.
		hit := -1
		for s := at; s < end && hit < 0; s++ {
			if secs[s].Failed() > 0 || float64(secs[s].OK) < recovered*f.BaselineOK {
				hit = s
			}
		}
		f.Impact, f.RecoverS = hit >= 0, 0
		if hit < 0 {
			carry = -1
			continue
		}
		f.RecoverS = -1
		for s := hit + 1; s < end; s++ {
			if float64(secs[s].OK) >= recovered*f.BaselineOK && (f.BaselineOK > 0 || secs[s].Failed() == 0) {
				f.RecoverS = float64(s) - f.AtS
				floor, carry = s, -1
				break
			}
		}
		if f.RecoverS < 0 {
			floor, carry = end, f.BaselineOK
		}
	}
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}
