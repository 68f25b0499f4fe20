package report

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/bench/engine"
)

func run(t *testing.T) *engine.Result {
	t.Helper()
	res, err := engine.Run(context.Background(), engine.Work{Name: "main", Workers: 2, TotalOps: 1000, Ops: []engine.Op{
		{Kind: "write", Ratio: 50, Do: func(ctx context.Context, w *engine.Worker) (engine.Outcome, error) {
			return engine.Outcome{Bytes: 4096, TTFB: 100 * time.Microsecond}, nil
		}},
		{Kind: "read", Ratio: 50, Do: func(ctx context.Context, w *engine.Worker) (engine.Outcome, error) {
			if w.Seq%4 == 0 {
				return engine.Outcome{}, errors.New("NoSuchKey")
			}
			return engine.Outcome{Bytes: 1000}, nil
		}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestSummaryFigures(t *testing.T) {
	res := run(t)
	st := Summarize(res)
	w, r := st.Ops[0], st.Ops[1]
	if w.OpCount+r.OpCount+r.ErrorCount != 1000 || w.ByteCount != 4096*w.OpCount || w.SuccessRatio != 1 {
		t.Fatalf("write %+v read %+v", w, r)
	}
	if r.ErrorCount == 0 || r.SuccessRatio >= 1 || r.LastError != "NoSuchKey" {
		t.Fatalf("read failures not reported: %+v", r)
	}
	if want := float64(w.OpCount) / st.DurationS; w.ThroughputOps != want {
		t.Fatalf("throughput %f, want %f", w.ThroughputOps, want)
	}
	if w.AvgProcTimeMs != 0.1 || len(w.PercentilesMs) != len(Percentiles) {
		t.Fatalf("proc time %f, percentiles %v", w.AvgProcTimeMs, w.PercentilesMs)
	}
	var text bytes.Buffer
	WriteText(&text, st)
	for _, col := range []string{"Op-Type", "Op-Count", "Byte-Count", "Avg-ResTime", "Avg-ProcTime", "Throughput", "Bandwidth", "Succ-Ratio", "p99.9", "read ttfb"} {
		if !strings.Contains(text.String(), col) {
			t.Errorf("report lacks %q:\n%s", col, text.String())
		}
	}
}

func TestResultsDirectory(t *testing.T) {
	res := run(t)
	// A stage of a few milliseconds gets no chart over time; one of 200 ms
	// does, from the fine series.
	timed, err := engine.Run(context.Background(), engine.Work{Name: "timed", Workers: 2, Runtime: 200 * time.Millisecond, Ops: []engine.Op{
		{Kind: "read", Ratio: 100, Do: func(ctx context.Context, w *engine.Worker) (engine.Outcome, error) {
			time.Sleep(time.Millisecond)
			return engine.Outcome{Bytes: 10}, nil
		}}}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := WriteDir(dir, Summary{Started: res.Start, Stages: []Stage{Summarize(res), Summarize(timed)}}, []*engine.Result{res, timed}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Stages []struct {
			Ops []map[string]any `json:"ops"`
		} `json:"stages"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{"op_type", "op_count", "byte_count", "avg_restime_ms", "avg_proctime_ms", "throughput_ops", "bandwidth_mbps", "success_ratio", "percentiles_ms"} {
		if _, ok := doc.Stages[0].Ops[0][field]; !ok {
			t.Errorf("summary.json lacks %s", field)
		}
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<table>", "Latency distribution", "Throughput over time", "p99.9"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.Contains(string(page), "<script") {
		t.Error("report.html must be self-contained, without scripts")
	}
	for _, name := range []string{"summary.csv", "timeseries.csv", "histogram.csv"} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil || len(rows) < 2 {
			t.Errorf("%s: %d rows, %v", name, len(rows), err)
		}
	}
}
