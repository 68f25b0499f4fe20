package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A fault run's report: the faults' figures in text, CSV and HTML, the
// timeline's charts with each fault marked at its second, and the
// commands' outputs kept.
func TestAvailabilityReport(t *testing.T) {
	a := &Availability{
		Seconds: []Second{{T: 0, OK: 90, P50Ms: 2, P99Ms: 9}, {T: 1, OK: 100, P50Ms: 2, P99Ms: 8},
			{T: 2, OK: 10, Errors: map[string]int64{"503": 40, "transport": 3}, P50Ms: 3, P99Ms: 30}, {T: 3, OK: 99, P50Ms: 2, P99Ms: 9},
			{T: 4, Errors: map[string]int64{"503": 50}}, {T: 5, OK: 100, P50Ms: 2, P99Ms: 9}},
		Faults: []FaultRun{{Name: "kill node", Command: "kill -9 1234", AtS: 2.4, DurationS: 0.01, Output: "killed\n",
			BaselineOK: 100, Failed: 43, FirstErrorS: 2, LastErrorS: 2, ErrorWindowS: 1, RecoverS: 0.6, Impact: true},
			{Name: "later", Command: "true", AtS: -1, FirstErrorS: -1, LastErrorS: -1, RecoverS: -1}},
		Acknowledged: &AckCheck{Acknowledged: 250, Verified: 249, Missing: 1},
	}
	var b strings.Builder
	WriteAvailability(&b, a)
	for _, want := range []string{"kill node  2.4 s  ok in 0.0 s  100 op/s  43      1 s (2-2)     0.6 s", "later", "not run",
		"250 acknowledged writes read back: 249 verified, 1 missing", "503", "transport"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	// A long run prints the seconds around its faults.
	long := &Availability{Faults: []FaultRun{{Name: "f", AtS: 100.5, RecoverS: 2.5, Impact: true, FirstErrorS: 100, LastErrorS: 101}}}
	for i := range 300 {
		long.Seconds = append(long.Seconds, Second{T: i, OK: 1000 + int64(i)})
	}
	var lb strings.Builder
	WriteAvailability(&lb, long)
	if l := lb.String(); !strings.Contains(l, "\n   95  1095") || strings.Contains(l, "\n   94  1094") || !strings.Contains(l, "\n  108  1108") ||
		strings.Contains(l, "\n  109  1109") || !strings.Contains(l, "timeline.csv has every second") {
		t.Errorf("a long timeline:\n%s", l)
	}
	s := Summary{Started: time.Now(), Availability: a}
	h := HTML(s, nil)
	// Successes and two kinds of errors, one line each; p50 and p99 each
	// in two lines, broken at the second without a success (and so
	// without a latency) rather than bridging it.
	if n := strings.Count(h, "<polyline"); n != 3+4 {
		t.Errorf("%d lines in the charts, want 7", n)
	}
	// The mark is a dashed line at 2.4 s on both charts, named.
	if strings.Count(h, `stroke-dasharray="4 3"`) != 2 || strings.Count(h, ">kill node</text>") != 2 || !strings.Contains(h, "class=\"err\">Acknowledged writes") {
		t.Errorf("report.html's availability section:\n%s", h)
	}
	if err := Check(s, 1); err == nil || !strings.Contains(err.Error(), "acknowledged writes lost") {
		t.Errorf("a run that lost an acknowledged write passed: %v", err)
	}
	dir := t.TempDir()
	if err := WriteDir(dir, s, nil); err != nil {
		t.Fatal(err)
	}
	tl, _ := os.ReadFile(filepath.Join(dir, "timeline.csv"))
	if !strings.Contains(string(tl), "t_s,stage,ok,errors_503,errors_transport,p50_ms,p99_ms,fault\n") || !strings.Contains(string(tl), "2,,10,40,3,3.000,30.000,kill node\n3,,99,0,0,2.000,9.000,\n4,,0,50,0,0.000,0.000,\n") {
		t.Errorf("timeline.csv:\n%s", tl)
	}
	out, err := os.ReadFile(filepath.Join(dir, "faults", "01-kill-node.log"))
	if err != nil || !strings.Contains(string(out), "# $ kill -9 1234") || !strings.HasSuffix(string(out), "killed\n") {
		t.Errorf("the output kept: %q, %v", out, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "faults", "02-later.log")); err == nil {
		t.Error("an output kept of a fault that never ran")
	}
}
