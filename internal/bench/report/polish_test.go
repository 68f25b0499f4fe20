package report

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/bench/engine"
)

func TestCheck(t *testing.T) {
	stage := func(name string, ok, failed int64) Stage {
		return Stage{Name: name, Ops: []Op{{OpType: "read", OpCount: ok, ErrorCount: failed, LastError: "S3 error 403 AccessDenied"}}}
	}
	for _, c := range []struct {
		s    Summary
		want string // "" = passes
	}{
		{Summary{Stages: []Stage{stage("main", 1000, 5)}}, ""},
		{Summary{Stages: []Stage{stage("main", 1000, 50)}}, "50 of 1050 operations failed"},
		{Summary{Stages: []Stage{stage("main", 0, 0)}}, "no operation succeeded"},
		{Summary{}, "no operation succeeded"},
		{Summary{Stages: []Stage{stage("prepare", 100, 0), stage("main", 0, 3)}}, "stage main: all 3 operations failed; last: S3 error 403 AccessDenied"},
		{Summary{Stages: []Stage{stage("main", 10, 0)}, Verified: &Verified{Objects: 9, Mismatches: 1}}, "1 reads returned other contents"},
	} {
		err := Check(c.s, 0.01)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("Check(%+v) = %v, want %q", c.s, err, c.want)
		}
	}
}

func TestProgressLine(t *testing.T) {
	for _, c := range []struct {
		p    engine.Progress
		want string
	}{
		{engine.Progress{Elapsed: 10 * time.Second, Runtime: 30 * time.Second, Ops: 100}, "ETA 20s"},
		// A count limit is estimated at the mean rate: 100 of 1000 in 10 s.
		{engine.Progress{Elapsed: 10 * time.Second, TotalOps: 1000, Ops: 100, OpsPerSecond: 1}, "ETA 1m30s"},
		{engine.Progress{Elapsed: 10 * time.Second, Expect: 200, Ops: 100}, "ETA 10s"},
		{engine.Progress{Elapsed: 10 * time.Second, TotalBytes: 4e9, Bytes: 1e9, Ops: 1}, "ETA 30s"},
		// The nearest limit wins.
		{engine.Progress{Elapsed: 10 * time.Second, Runtime: 20 * time.Second, TotalOps: 1000, Ops: 100}, "ETA 10s"},
		{engine.Progress{Elapsed: 10 * time.Second, Ops: 100, OpsPerSecond: 10, Final: true}, "done (mean rates)"},
		// Of how many: a cleanup says what it deleted of what it has to.
		{engine.Progress{Elapsed: 10 * time.Second, TotalOps: 37565, Ops: 35473}, "ops 35473/37565"},
		{engine.Progress{Elapsed: 10 * time.Second, Expect: 800, Ops: 200}, "ops 200/800"},
	} {
		if got := ProgressLine("main", c.p); !strings.Contains(got, c.want) {
			t.Errorf("%+v: %q lacks %q", c.p, got, c.want)
		}
	}
	if got := ProgressLine("main", engine.Progress{Elapsed: time.Second, Ops: 5}); strings.Contains(got, "ETA") {
		t.Errorf("an ETA without a limit: %q", got)
	}
}

// The across-stages chart leaves set-up stages out; the tables are split
// so that none is wider than a 1280-pixel window can show.
func TestHTMLLayout(t *testing.T) {
	s := Summary{Stages: []Stage{
		{Name: "init", Type: "init", Ops: []Op{{OpType: "init", ThroughputOps: 50000}}},
		{Name: "read-1MB", Type: "normal", Ops: []Op{{OpType: "read", ThroughputOps: 300}}},
		{Name: "read-4MB", Type: "normal", Ops: []Op{{OpType: "read", ThroughputOps: 100}}},
		{Name: "cleanup", Type: "cleanup", Ops: []Op{{OpType: "delete", ThroughputOps: 40000}}},
	}}
	h := HTML(s, nil)
	across := h[strings.Index(h, "Across stages"):]
	if strings.Contains(across, ">init<") || strings.Contains(across, ">cleanup<") || !strings.Contains(across, ">read-4MB<") {
		t.Fatal("the across-stages chart shows set-up stages, or not the measured ones")
	}
	for _, table := range regexp.MustCompile(`(?s)<tr>.*?</tr>`).FindAllString(h, -1) {
		if n := strings.Count(table, "<th>") + strings.Count(table, "<td>"); n > 10 {
			t.Fatalf("a row of %d cells: %s", n, table)
		}
	}
}

func TestCompareDirections(t *testing.T) {
	if got := ComparePath("runs/a", "runs/b/summary.json"); got != filepath.Join("runs", "compare-a-vs-b.svg") {
		t.Fatalf("ComparePath = %q", got)
	}
	a := Summary{Stages: []Stage{{Name: "main", Ops: []Op{{OpType: "read", ThroughputOps: 100, BandwidthMBps: 10, AvgResTimeMs: 10, PercentilesMs: map[string]float64{"p99": 20}}}}}}
	b := Summary{Stages: []Stage{{Name: "main", Ops: []Op{{OpType: "read", ThroughputOps: 150, BandwidthMBps: 15, AvgResTimeMs: 12, PercentilesMs: map[string]float64{"p99": 20}}}}}}
	ds := Compare(a, b)
	var out strings.Builder
	WriteCompare(&out, "a", "b", ds)
	// Throughput up is better, mean latency up is worse, p99 unchanged.
	if !strings.Contains(out.String(), "+50.0% better") || !strings.Contains(out.String(), "+20.0% worse") || !strings.Contains(out.String(), "+0.0% same") {
		t.Fatalf("table:\n%s", out.String())
	}
	svg := CompareSVG("a", "b", ds)
	if !strings.Contains(svg, "throughput (higher is better)") || !strings.Contains(svg, "mean latency (lower is better)") || !strings.Contains(svg, "+20.0% worse") {
		t.Fatal("the chart does not say which way is better")
	}
}
