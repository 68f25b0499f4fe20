package report

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
)

// ReadSummary reads a run's summary.json, given the file or its directory.
func ReadSummary(path string) (Summary, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, "summary.json")
	}
	var s Summary
	b, err := os.ReadFile(path)
	if err != nil {
		return s, fmt.Errorf("report: %w", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("report: %s: %w", path, err)
	}
	return s, nil
}

// Delta is one operation of two runs side by side; the changes are B
// relative to A, in percent.
type Delta struct {
	Stage, OpType                    string
	A, B                             Op
	Throughput, Bandwidth, Mean, P99 float64
}

func pct(a, b float64) float64 {
	if a == 0 {
		return 0
	}
	return (b - a) / a * 100
}

// Compare pairs the operations of two runs by stage and type.
func Compare(a, b Summary) []Delta {
	index := map[string]Op{}
	for _, st := range b.Stages {
		for _, op := range st.Ops {
			index[st.Name+"\x00"+op.OpType] = op
		}
	}
	var out []Delta
	for _, st := range a.Stages {
		for _, op := range st.Ops {
			ob, ok := index[st.Name+"\x00"+op.OpType]
			if !ok {
				continue
			}
			out = append(out, Delta{Stage: st.Name, OpType: op.OpType, A: op, B: ob,
				Throughput: pct(op.ThroughputOps, ob.ThroughputOps), Bandwidth: pct(op.BandwidthMBps, ob.BandwidthMBps),
				Mean: pct(op.AvgResTimeMs, ob.AvgResTimeMs), P99: pct(op.PercentilesMs["p99"], ob.PercentilesMs["p99"])})
		}
	}
	return out
}

// WriteCompare prints the comparison table.
func WriteCompare(w io.Writer, nameA, nameB string, ds []Delta) {
	fmt.Fprintf(w, "A = %s\nB = %s (changes are B against A)\n\n", nameA, nameB)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "Stage\tOp-Type\tThroughput A\tB\tchange\tBandwidth change\tMean A\tB\tchange\tp99 A\tB\tchange\t")
	for _, d := range ds {
		fmt.Fprintf(tw, "%s\t%s\t%.1f op/s\t%.1f op/s\t%+.1f%%\t%+.1f%%\t%.2f ms\t%.2f ms\t%+.1f%%\t%.2f ms\t%.2f ms\t%+.1f%%\t\n",
			d.Stage, d.OpType, d.A.ThroughputOps, d.B.ThroughputOps, d.Throughput, d.Bandwidth,
			d.A.AvgResTimeMs, d.B.AvgResTimeMs, d.Mean, d.A.PercentilesMs["p99"], d.B.PercentilesMs["p99"], d.P99)
	}
	tw.Flush()
}

// CompareSVG charts the changes: one group of bars per operation
// (throughput, bandwidth, mean and p99 latency), around a zero line.
func CompareSVG(ds []Delta) string {
	const rowH, left, half = 70, 220, 260 // half: pixels for 100%
	h := 60 + rowH*len(ds)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`, left+2*half+40, h)
	b.WriteString(`<rect width="100%" height="100%" fill="white"/><text x="10" y="20" font-size="14">Change of B against A, percent (bars to the right: B higher)</text>`)
	fmt.Fprintf(&b, `<line x1="%d" y1="30" x2="%d" y2="%d" stroke="#333"/>`, left+half, left+half, h-10)
	colors := []string{"#3b7dd8", "#2a9d8f", "#e9a23b", "#d1495b"}
	names := []string{"throughput", "bandwidth", "mean latency", "p99 latency"}
	for i, n := range names {
		fmt.Fprintf(&b, `<rect x="%d" y="32" width="10" height="10" fill="%s"/><text x="%d" y="41">%s</text>`, left+i*120, colors[i], left+i*120+14, n)
	}
	for i, d := range ds {
		y := 55 + i*rowH
		fmt.Fprintf(&b, `<text x="10" y="%d">%s %s</text>`, y+30, html.EscapeString(d.Stage), html.EscapeString(d.OpType))
		for j, v := range []float64{d.Throughput, d.Bandwidth, d.Mean, d.P99} {
			w := min(max(v, -100), 100) / 100 * half
			x := float64(left + half)
			if w < 0 {
				x += w
				w = -w
			}
			fmt.Fprintf(&b, `<rect x="%.0f" y="%d" width="%.0f" height="13" fill="%s"/><text x="%d" y="%d" font-size="10">%+.1f%%</text>`,
				x, y+j*15, max(w, 1), colors[j], left+2*half+2, y+j*15+11, v)
		}
	}
	b.WriteString(`</svg>`)
	return b.String()
}
