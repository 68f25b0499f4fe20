package faults

import (
	"math"
	"testing"

	"github.com/ostiumio/ostium/internal/bench/report"
)

// timeline builds seconds from (ok, 503s, transport errors) triples, all
// of stage "main" unless stages says otherwise.
func timeline(rows [][3]int64, stages ...string) []report.Second {
	out := make([]report.Second, len(rows))
	for i, r := range rows {
		out[i] = report.Second{T: i, Stage: "main", OK: r[0]}
		if i < len(stages) {
			out[i].Stage = stages[i]
		}
		if r[1]+r[2] > 0 {
			out[i].Errors = map[string]int64{}
			if r[1] > 0 {
				out[i].Errors["503"] = r[1]
			}
			if r[2] > 0 {
				out[i].Errors["transport"] = r[2]
			}
		}
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestAnalyzeOneFault(t *testing.T) {
	secs := timeline([][3]int64{
		{30, 0, 0}, // the first second, partial: not the baseline's
		{100, 0, 0}, {98, 0, 0}, {102, 0, 0}, {100, 0, 0},
		{40, 10, 0}, // the fault at 5.3 s
		{0, 50, 0}, {0, 0, 20}, {60, 0, 0},
		{95, 0, 0},               // back within 10% of 100
		{100, 0, 0}, {100, 3, 0}, // a later error is still this fault's
	})
	fs := []report.FaultRun{{Name: "kill", AtS: 5.3}}
	Analyze(secs, fs)
	f := fs[0]
	if f.BaselineOK != 100 || f.FirstErrorS != 5 || f.LastErrorS != 11 || f.ErrorWindowS != 7 || f.Failed != 83 {
		t.Errorf("baseline %v, errors %d-%d (%d s), %d failed", f.BaselineOK, f.FirstErrorS, f.LastErrorS, f.ErrorWindowS, f.Failed)
	}
	if !f.Impact || !near(f.RecoverS, 9-5.3) {
		t.Errorf("impact %v, recovered after %v s, want 3.7", f.Impact, f.RecoverS)
	}
}

func TestAnalyzeNoEffectAndNoRecovery(t *testing.T) {
	steady := timeline([][3]int64{{50, 0, 0}, {100, 0, 0}, {100, 0, 0}, {99, 0, 0}, {100, 0, 0}, {100, 0, 0}})
	fs := []report.FaultRun{{Name: "harmless", AtS: 3}}
	Analyze(steady, fs)
	if f := fs[0]; f.Impact || f.RecoverS != 0 || f.FirstErrorS != -1 || f.ErrorWindowS != 0 || f.Failed != 0 {
		t.Errorf("a fault that changed nothing: %+v", f)
	}
	// Slower but no failures is still an effect: successes under 90%.
	down := timeline([][3]int64{{50, 0, 0}, {100, 0, 0}, {100, 0, 0}, {80, 0, 0}, {85, 0, 0}, {70, 0, 0}})
	fs = []report.FaultRun{{Name: "slow", AtS: 3}}
	Analyze(down, fs)
	if f := fs[0]; !f.Impact || f.RecoverS != -1 || f.FirstErrorS != -1 {
		t.Errorf("a fault the run never recovered from: %+v", f)
	}
}

// A stop and a start: the stop has not recovered when the start comes,
// so the start is measured against the stop's baseline, and each has the
// failures of its own seconds.
func TestAnalyzeStopThenStart(t *testing.T) {
	secs := timeline([][3]int64{
		{10, 0, 0}, {200, 0, 0}, {210, 0, 0}, {190, 0, 0},
		{5, 40, 0}, {0, 60, 0}, {0, 60, 0}, // stop at 4.5
		{0, 30, 0}, {100, 0, 0}, {185, 0, 0}, {200, 0, 0}, // start at 7.2
	})
	fs := []report.FaultRun{{Name: "stop", AtS: 4.5}, {Name: "start", AtS: 7.2}, {Name: "never", AtS: -1}}
	Analyze(secs, fs)
	stop, start, never := fs[0], fs[1], fs[2]
	if stop.BaselineOK != 200 || stop.FirstErrorS != 4 || stop.LastErrorS != 6 || stop.Failed != 160 || stop.RecoverS != -1 || !stop.Impact {
		t.Errorf("stop: %+v", stop)
	}
	if start.BaselineOK != 200 || start.FirstErrorS != 7 || start.LastErrorS != 7 || start.Failed != 30 || !near(start.RecoverS, 9-7.2) {
		t.Errorf("start: %+v", start)
	}
	if never.Impact || never.FirstErrorS != -1 || never.RecoverS != -1 {
		t.Errorf("a fault that never ran: %+v", never)
	}
}

// The baseline is the fault's stage: a prepare stage's rate before it
// says nothing of the measured stage's, nor do quiet seconds.
func TestAnalyzeBaselineOfTheStage(t *testing.T) {
	secs := timeline([][3]int64{{900, 0, 0}, {1000, 0, 0}, {1000, 0, 0}, {0, 0, 0}, {40, 0, 0}, {50, 0, 0}, {60, 0, 0}, {0, 9, 0}, {45, 0, 0}},
		"prepare", "prepare", "prepare", "main", "main", "main", "main", "main", "main")
	fs := []report.FaultRun{{Name: "f", AtS: 7}}
	Analyze(secs, fs)
	if f := fs[0]; f.BaselineOK != 50 || !near(f.RecoverS, 1) {
		t.Errorf("baseline %v (want the median of 40, 50, 60), recovered after %v", f.BaselineOK, f.RecoverS)
	}
}
