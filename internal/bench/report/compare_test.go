package report

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCompare(t *testing.T) {
	a := Summary{Stages: []Stage{{Name: "main", Ops: []Op{
		{OpType: "read", ThroughputOps: 1000, BandwidthMBps: 4, AvgResTimeMs: 2, PercentilesMs: map[string]float64{"p99": 10}},
		{OpType: "write", ThroughputOps: 100},
	}}}}
	b := Summary{Stages: []Stage{{Name: "main", Ops: []Op{
		{OpType: "read", ThroughputOps: 900, BandwidthMBps: 3.6, AvgResTimeMs: 2.5, PercentilesMs: map[string]float64{"p99": 12}},
	}}}}
	dir := t.TempDir()
	if err := WriteDir(dir, b, nil); err != nil {
		t.Fatal(err)
	}
	back, err := ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	ds := Compare(a, back)
	if len(ds) != 1 {
		t.Fatalf("%d pairs; only read is in both runs", len(ds))
	}
	d := ds[0]
	for name, c := range map[string][2]float64{"throughput": {d.Throughput, -10}, "bandwidth": {d.Bandwidth, -10}, "mean": {d.Mean, 25}, "p99": {d.P99, 20}} {
		if math.Abs(c[0]-c[1]) > 1e-9 {
			t.Errorf("%s change %.3f%%, want %.0f%%", name, c[0], c[1])
		}
	}
	var text bytes.Buffer
	WriteCompare(&text, "direct", "gateway", ds)
	if !strings.Contains(text.String(), "-10.0%") || !strings.Contains(text.String(), "+25.0%") {
		t.Fatalf("table:\n%s", text.String())
	}
	if svg := CompareSVG("a", "b", ds); !strings.HasPrefix(svg, "<svg") || !strings.Contains(svg, "+25.0%") {
		t.Fatal("chart lacks the figures")
	}
	os.Remove(filepath.Join(dir, "summary.json"))
	if _, err := ReadSummary(dir); err == nil {
		t.Fatal("a directory without summary.json was read")
	}
}
