package report

import (
	"fmt"
	"html"
	"os"
	"strings"

	"github.com/ostiumio/ostium/internal/bench/engine"
)

// HTML renders report.html: self-contained (inline SVG, no scripts), with
// the summary tables and, per stage, throughput and latency over time and
// the latency distribution; with several stages, ops/s and MB/s across
// them (the butterfly chart of a size sweep).
func HTML(s Summary, results []*engine.Result) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><meta charset="utf-8"><title>ostium bench report</title><style>
body{font-family:sans-serif;margin:24px;color:#222} table{border-collapse:collapse;margin:8px 0 16px} td,th{border:1px solid #ccc;padding:3px 8px;text-align:right} th{background:#f3f3f3} td:first-child,th:first-child{text-align:left}
</style></head><body>`)
	fmt.Fprintf(&b, "<h1>ostium bench</h1><p>Started %s</p>", s.Started.Format("2006-01-02 15:04:05 MST"))
	if s.Ceiling != nil {
		fmt.Fprintf(&b, "<p>Measured with a %s.</p>", html.EscapeString(s.Ceiling.String()))
	}
	var labels []string
	var ops, mbs []float64
	for i, st := range s.Stages {
		fmt.Fprintf(&b, "<h2>%s</h2><p>%d workers, %.1f s</p>", html.EscapeString(st.Name), st.Workers, st.DurationS)
		b.WriteString("<table><tr><th>Op-Type</th><th>Op-Count</th><th>Byte-Count</th><th>Avg-ResTime ms</th><th>Avg-ProcTime ms</th><th>Throughput op/s</th><th>Bandwidth MB/s</th><th>Succ-Ratio</th>")
		for _, p := range Percentiles {
			fmt.Fprintf(&b, "<th>%s ms</th>", p.Name)
		}
		b.WriteString("</tr>")
		var stOps, stMB float64
		for _, op := range st.Ops {
			fmt.Fprintf(&b, "<tr><td>%s</td><td>%d</td><td>%d</td><td>%.2f</td><td>%.2f</td><td>%.1f</td><td>%.2f</td><td>%.2f%%</td>",
				html.EscapeString(op.OpType), op.OpCount, op.ByteCount, op.AvgResTimeMs, op.AvgProcTimeMs, op.ThroughputOps, op.BandwidthMBps, 100*op.SuccessRatio)
			for _, p := range Percentiles {
				fmt.Fprintf(&b, "<td>%.3f</td>", op.PercentilesMs[p.Name])
			}
			b.WriteString("</tr>")
			stOps += op.ThroughputOps
			stMB += op.BandwidthMBps
		}
		b.WriteString("</table>")
		labels, ops, mbs = append(labels, st.Name), append(ops, stOps), append(mbs, stMB)
		if i < len(results) {
			b.WriteString(stageCharts(results[i]))
		}
	}
	if len(labels) > 1 {
		b.WriteString("<h2>Across stages</h2>")
		b.WriteString(butterfly("Throughput (bars) and bandwidth (line) by stage", labels, ops, mbs))
	}
	b.WriteString("</body></html>\n")
	return b.String()
}

// stageCharts draws a stage's time series and latency distribution.
func stageCharts(r *engine.Result) string {
	var thr, lat, dist []series
	for _, st := range r.Stats {
		k := st.Kind
		var t, l series
		t.name, l.name = k, k
		for i := 1; i < len(r.Series); i++ {
			a, z := r.Series[i-1], r.Series[i]
			dt := (z.Elapsed - a.Elapsed).Seconds()
			if dt <= 0 || i == len(r.Series)-1 && i > 1 && dt < 0.5*(r.Series[1].Elapsed-r.Series[0].Elapsed).Seconds() {
				continue // the short tail after the last tick would read as a drop
			}
			x := z.Elapsed.Seconds()
			n := z.Ops[k] - a.Ops[k]
			t.x, t.y = append(t.x, x), append(t.y, float64(n)/dt)
			if n > 0 {
				l.x, l.y = append(l.x, x), append(l.y, float64(z.LatencyUs[k]-a.LatencyUs[k])/float64(n)/1000)
			}
		}
		thr, lat = append(thr, t), append(lat, l)
		var d series
		d.name = k
		var seen uint64
		total := st.Latency.Count()
		st.Latency.Each(func(lo, hi, c uint64) {
			seen += c
			d.x, d.y = append(d.x, float64(hi)/1000), append(d.y, 100*float64(seen)/float64(total))
		})
		dist = append(dist, d)
	}
	return lineChart("Throughput over time", "seconds", "ops/s", thr, false) +
		lineChart("Mean latency over time", "seconds", "ms", lat, false) +
		lineChart("Latency distribution (cumulative)", "ms (log scale)", "% of operations", dist, true)
}

// WriteHTML writes report.html.
func WriteHTML(path string, s Summary, results []*engine.Result) error {
	if err := os.WriteFile(path, []byte(HTML(s, results)), 0o644); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}
