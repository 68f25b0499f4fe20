package report

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"math"
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

// ComparePath is where a comparison's chart goes by default: beside run
// A (in the directory that holds it), named after both runs, so that a
// comparison lands with the results it compares and not wherever the
// command happened to run.
func ComparePath(a, b string) string {
	dir := func(p string) string {
		p = filepath.Clean(p)
		if filepath.Base(p) == "summary.json" {
			p = filepath.Dir(p)
		}
		return p
	}
	da, db := dir(a), dir(b)
	return filepath.Join(filepath.Dir(da), "compare-"+filepath.Base(da)+"-vs-"+filepath.Base(db)+".svg")
}

// Figures of a comparison, and which way is better: more operations and
// bytes per second, less latency.
var figures = []struct {
	Name         string
	HigherBetter bool
}{{"throughput", true}, {"bandwidth", true}, {"mean latency", false}, {"p99 latency", false}}

// verdict says whether a change of a figure is for the better.
func verdict(change float64, higherBetter bool) string {
	switch {
	case math.Abs(change) < 1:
		return "same"
	case (change > 0) == higherBetter:
		return "better"
	}
	return "worse"
}

func (d Delta) changes() []float64 { return []float64{d.Throughput, d.Bandwidth, d.Mean, d.P99} }

// WriteCompare prints the comparison table; each change says whether B is
// better or worse than A (within 1%: the same).
func WriteCompare(w io.Writer, nameA, nameB string, ds []Delta) {
	fmt.Fprintf(w, "A = %s\nB = %s (changes are B against A; higher throughput and bandwidth are better, lower latency is better)\n\n", nameA, nameB)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "Stage\tOp-Type\tThroughput A\tB\tchange (higher better)\tBandwidth change (higher better)\tMean A\tB\tchange (lower better)\tp99 A\tB\tchange (lower better)\t")
	for _, d := range ds {
		c := d.changes()
		v := func(i int) string { return fmt.Sprintf("%+.1f%% %s", c[i], verdict(c[i], figures[i].HigherBetter)) }
		fmt.Fprintf(tw, "%s\t%s\t%.1f op/s\t%.1f op/s\t%s\t%s\t%.2f ms\t%.2f ms\t%s\t%.2f ms\t%.2f ms\t%s\t\n",
			d.Stage, d.OpType, d.A.ThroughputOps, d.B.ThroughputOps, v(0), v(1),
			d.A.AvgResTimeMs, d.B.AvgResTimeMs, v(2), d.A.PercentilesMs["p99"], d.B.PercentilesMs["p99"], v(3))
	}
	tw.Flush()
}

// CompareSVG charts the changes: one group of bars per operation
// (throughput, bandwidth, mean and p99 latency), around a zero line; each
// value is marked better (green) or worse (red), as the legend says which
// way each figure is better.
func CompareSVG(nameA, nameB string, ds []Delta) string {
	const rowH, left, half, right = 74, 230, 250, 130 // half: pixels for 100%
	width := left + 2*half + right
	h := 100 + rowH*len(ds)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`, width, h)
	b.WriteString(`<rect width="100%" height="100%" fill="white"/><text x="10" y="20" font-size="14">Change of B against A, percent (bars to the right: B higher)</text>`)
	fmt.Fprintf(&b, `<text x="10" y="38" fill="#555">A = %s   B = %s</text>`, html.EscapeString(nameA), html.EscapeString(nameB))
	fmt.Fprintf(&b, `<line x1="%d" y1="70" x2="%d" y2="%d" stroke="#333"/>`, left+half, left+half, h-10)
	for _, t := range []int{-100, -50, 50, 100} {
		x := left + half + t*half/100
		fmt.Fprintf(&b, `<line x1="%d" y1="70" x2="%d" y2="%d" stroke="#eee"/><text x="%d" y="%d" text-anchor="middle" fill="#777" font-size="10">%+d%%</text>`,
			x, x, h-10, x, h-1, t)
	}
	colors := []string{"#3b7dd8", "#2a9d8f", "#e9a23b", "#8e6cc0"}
	for i, f := range figures {
		dir := "higher is better"
		if !f.HigherBetter {
			dir = "lower is better"
		}
		fmt.Fprintf(&b, `<rect x="%d" y="50" width="10" height="10" fill="%s"/><text x="%d" y="59">%s (%s)</text>`, 10+i*200, colors[i], 24+i*200, f.Name, dir)
	}
	for i, d := range ds {
		y := 80 + i*rowH
		fmt.Fprintf(&b, `<text x="10" y="%d">%s %s</text>`, y+32, html.EscapeString(d.Stage), html.EscapeString(d.OpType))
		for j, v := range d.changes() {
			w := min(max(v, -100), 100) / 100 * half
			x := float64(left + half)
			if w < 0 {
				x += w
				w = -w
			}
			verd := verdict(v, figures[j].HigherBetter)
			mark := map[string]string{"better": "#1b7f3b", "worse": "#c0392b", "same": "#777"}[verd]
			fmt.Fprintf(&b, `<rect x="%.0f" y="%d" width="%.0f" height="13" fill="%s"/><text x="%d" y="%d" font-size="11" fill="%s">%+.1f%% %s</text>`,
				x, y+j*16, max(w, 1), colors[j], left+2*half+12, y+j*16+11, mark, v, verd)
			if v > 100 || v < -100 { // beyond the scale: an arrowhead says the bar goes on
				tip, back := float64(left+2*half+4), float64(left+2*half-4)
				if v < 0 {
					tip, back = float64(left-4), float64(left+4)
				}
				fmt.Fprintf(&b, `<polygon points="%.0f,%d %.0f,%d %.0f,%d" fill="%s"/>`, back, y+j*16-1, tip, y+j*16+6, back, y+j*16+14, colors[j])
			}
		}
	}
	b.WriteString(`</svg>`)
	return b.String()
}
