package report

import (
	"fmt"
	"html"
	"os"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/bench/engine"
)

// HTML renders report.html: self-contained (inline SVG, no scripts), with
// the summary tables and, per stage, throughput and latency over time and
// the latency distribution; with several stages, ops/s and MB/s across
// them (the butterfly chart of a size sweep).
func HTML(s Summary, results []*engine.Result) string {
	var b strings.Builder
	// Sized for a 1280-pixel window: the figures and the percentiles are
	// two tables, and the charts scale to two a row.
	b.WriteString(`<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>ostium bench report</title><style>
body{font-family:sans-serif;font-size:13px;margin:16px auto;max-width:1240px;padding:0 12px;color:#222}
h1{font-size:22px} h2{font-size:17px;margin:22px 0 4px;border-top:1px solid #ddd;padding-top:12px}
table{border-collapse:collapse;margin:6px 0 10px;max-width:100%} td,th{border:1px solid #ccc;padding:2px 7px;text-align:right;white-space:nowrap} th{background:#f3f3f3;font-weight:600}
td:first-child,th:first-child{text-align:left} .note{color:#555} .err{color:#b00}
.wide svg{max-width:100%;height:auto;border:1px solid #eee} .charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(540px,1fr));gap:8px} .charts svg{width:100%;height:auto;border:1px solid #eee}
</style></head><body>`)
	fmt.Fprintf(&b, "<h1>ostium bench</h1><p>Started %s</p>", s.Started.Format("2006-01-02 15:04:05 MST"))
	switch {
	case len(s.Ceilings) > 1:
		b.WriteString("<p>Measured with these generator ceilings:</p><ul>")
		for _, c := range s.Ceilings {
			fmt.Fprintf(&b, "<li>%s</li>", html.EscapeString(c.String()))
		}
		b.WriteString("</ul>")
	case s.Ceiling != nil:
		fmt.Fprintf(&b, "<p>Measured with a %s.</p>", html.EscapeString(s.Ceiling.String()))
	}
	for _, bd := range s.Bounds {
		class := "note"
		if bd.ClientBound {
			class = "err"
		}
		fmt.Fprintf(&b, "<p class=%q>Headroom: %s.</p>", class, html.EscapeString(bd.String()))
	}
	if s.Verified != nil {
		fmt.Fprintf(&b, "<p>Contents: %s.</p>", html.EscapeString(s.Verified.String()))
	}
	if s.Availability != nil {
		b.WriteString(availabilityHTML(s.Availability))
	}
	var labels []string
	var ops, mbs []float64
	for i, st := range s.Stages {
		kind := ""
		if st.Type != "" && st.Type != "normal" {
			kind = ", " + st.Type
		}
		fmt.Fprintf(&b, "<h2 id=\"stage-%d\">%s</h2><p class=note>%d workers, %.2f s%s</p>", i, html.EscapeString(st.Name), st.Workers, st.DurationS, html.EscapeString(kind))
		b.WriteString("<table><tr><th>Op-Type</th><th>Op-Count</th><th>Errors</th><th>Byte-Count</th><th>Avg-ResTime ms</th><th>Avg-ProcTime ms</th><th>Throughput op/s</th><th>Bandwidth MB/s</th><th>Succ-Ratio</th></tr>")
		var stOps, stMB float64
		for _, op := range st.Ops {
			fmt.Fprintf(&b, "<tr><td>%s</td><td>%d</td><td>%d</td><td>%d</td><td>%.2f</td><td>%.2f</td><td>%.1f</td><td>%.2f</td><td>%.2f%%</td></tr>",
				html.EscapeString(op.OpType), op.OpCount, op.ErrorCount, op.ByteCount, op.AvgResTimeMs, op.AvgProcTimeMs, op.ThroughputOps, op.BandwidthMBps, 100*op.SuccessRatio)
			stOps += op.ThroughputOps
			stMB += op.BandwidthMBps
		}
		b.WriteString("</table><table><tr><th>ms</th>")
		for _, p := range Percentiles {
			fmt.Fprintf(&b, "<th>%s</th>", p.Name)
		}
		b.WriteString("</tr>")
		for _, op := range st.Ops {
			for _, row := range []struct {
				name string
				m    map[string]float64
			}{{op.OpType + " latency", op.PercentilesMs}, {op.OpType + " first byte", op.TTFBPctMs}} {
				fmt.Fprintf(&b, "<tr><td>%s</td>", html.EscapeString(row.name))
				for _, p := range Percentiles {
					fmt.Fprintf(&b, "<td>%.3f</td>", row.m[p.Name])
				}
				b.WriteString("</tr>")
			}
		}
		b.WriteString("</table>")
		for _, op := range st.Ops {
			if op.LastError != "" {
				fmt.Fprintf(&b, "<p class=err>%s: %d failed, last: %s</p>", html.EscapeString(op.OpType), op.ErrorCount, html.EscapeString(op.LastError))
			}
		}
		if !setup(st.Type) {
			labels, ops, mbs = append(labels, st.Name), append(ops, stOps), append(mbs, stMB)
		}
		if i < len(results) {
			b.WriteString(stageCharts(results[i]))
		}
	}
	if len(labels) > 1 {
		// Set-up and tear-down stages (init, prepare, cleanup, dispose)
		// are left out: their rates say nothing of the workload and, a
		// bucket call being cheap, would flatten the stages that do.
		b.WriteString("<h2 id=across>Across stages</h2><p class=note>The measured stages; init, prepare, cleanup and dispose stages are left out.</p><div class=wide>")
		b.WriteString(butterfly("Throughput (bars) and bandwidth (line) by stage", labels, ops, mbs))
		b.WriteString("</div>")
	}
	b.WriteString("</body></html>\n")
	return b.String()
}

// stageCharts draws a stage's time series and latency distribution, from
// the fine series when there is one (see engine.Result.Fine).
func stageCharts(r *engine.Result) string {
	samples := bins(r.Fine, 80)
	if len(samples) < 3 {
		samples = r.Series
	}
	var count uint64
	for _, st := range r.Stats {
		count += st.Latency.Count()
	}
	if count < 2 {
		return "<p class=note>Too few operations to chart.</p>"
	}
	var thr, lat, dist []series
	for _, st := range r.Stats {
		k := st.Kind
		var t, l series
		t.name, l.name = k, k
		for i := 1; i < len(samples); i++ {
			a, z := samples[i-1], samples[i]
			dt := (z.Elapsed - a.Elapsed).Seconds()
			if dt <= 0 || i == len(samples)-1 && i > 1 && dt < 0.5*(samples[1].Elapsed-samples[0].Elapsed).Seconds() {
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
	overTime := lineChart("Throughput over time", "seconds", "ops/s", thr, false) +
		lineChart("Mean latency over time", "seconds", "ms", lat, false)
	if len(samples) < 4 {
		overTime = "" // a stage of a few milliseconds has no shape over time
	}
	return "<div class=charts>" + overTime + lineChart("Latency distribution (cumulative)", "ms (log scale)", "% of operations", dist, true) + "</div>"
}

// bins keeps samples at least a 1/n of the series' span apart (and its
// last): a stage of a second is drawn at the engine's finest sampling, one
// of an hour in n steps, neither as noise nor as two points.
func bins(ss []engine.Sample, n int) []engine.Sample {
	if len(ss) < 2 {
		return ss
	}
	step := ss[len(ss)-1].Elapsed / time.Duration(n)
	out := []engine.Sample{ss[0]}
	for _, smp := range ss[1 : len(ss)-1] {
		if smp.Elapsed-out[len(out)-1].Elapsed >= step {
			out = append(out, smp)
		}
	}
	return append(out, ss[len(ss)-1])
}

// WriteHTML writes report.html.
func WriteHTML(path string, s Summary, results []*engine.Result) error {
	if err := os.WriteFile(path, []byte(HTML(s, results)), 0o644); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}
