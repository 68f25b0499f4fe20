package report

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// series is one line of a chart.
type series struct {
	name string
	x, y []float64
}

var palette = []string{"#3b7dd8", "#d1495b", "#2a9d8f", "#e9a23b", "#6a4c93", "#8d6e63", "#00838f", "#7cb342"}

const (
	chartW, chartH = 600, 290
	padL, padR     = 70, 70
	padT, padB     = 36, 46
)

// niceMax rounds a chart's top up to 1, 2 or 5 times a power of ten.
func niceMax(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// mark is a vertical line across a chart at x: a fault, say.
type mark struct {
	x    float64
	name string
}

// lineChart draws series against shared axes as an inline SVG. logX puts
// the x axis on a log scale (latency distributions).
func lineChart(title, xLabel, yLabel string, ss []series, logX bool) string {
	return markedLineChart(title, xLabel, yLabel, ss, logX, nil)
}

// markedChart is a line chart over time with marks.
func markedChart(title, xLabel, yLabel string, ss []series, ms []mark) string {
	return markedLineChart(title, xLabel, yLabel, ss, false, ms)
}

func markedLineChart(title, xLabel, yLabel string, ss []series, logX bool, ms []mark) string {
	var xmin, xmax, ymax float64 = math.Inf(1), math.Inf(-1), 0
	for _, s := range ss {
		for i := range s.x {
			xmin, xmax = math.Min(xmin, s.x[i]), math.Max(xmax, s.x[i])
			if !math.IsNaN(s.y[i]) {
				ymax = math.Max(ymax, s.y[i])
			}
		}
	}
	if math.IsInf(xmin, 0) {
		return ""
	}
	ymax = niceMax(ymax)
	lo, hi, scale := xmin, xmax, func(x float64) float64 { return x }
	if logX {
		scale = func(x float64) float64 { return math.Log10(math.Max(x, 1e-3)) }
	}
	lo, hi = scale(lo), scale(hi)
	fx := func(x float64) float64 {
		if hi == lo {
			return padL
		}
		return padL + (scale(x)-lo)/(hi-lo)*(chartW-padL-padR)
	}
	fy := func(y float64) float64 { return chartH - padB - y/ymax*(chartH-padT-padB) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %[1]d %[2]d" font-family="sans-serif" font-size="11"><rect width="100%%" height="100%%" fill="white"/>`, chartW, chartH)
	fmt.Fprintf(&b, `<text x="%d" y="18" font-size="14">%s</text>`, padL, html.EscapeString(title))
	for i := 0; i <= 4; i++ {
		y := ymax * float64(i) / 4
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end">%s</text>`,
			padL, chartW-padR, fy(y), fy(y), padL-4, fy(y)+4, short(y))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">%s</text>`, (chartW+padL-padR)/2, chartH-8, html.EscapeString(xLabel))
	fmt.Fprintf(&b, `<text x="14" y="%d" transform="rotate(-90 14 %d)" text-anchor="middle">%s</text>`, chartH/2, chartH/2, html.EscapeString(yLabel))
	ticks := []float64{xmin, (xmin + xmax) / 2, xmax}
	if logX {
		ticks = []float64{xmin, math.Sqrt(math.Max(xmin, 1e-3) * xmax), xmax}
	}
	if xmin == xmax {
		ticks = ticks[:1]
	}
	for _, x := range ticks {
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`, fx(x), chartH-padB+14, short(x))
	}
	for i, m := range ms {
		if m.x < xmin || m.x > xmax {
			continue
		}
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#555" stroke-dasharray="4 3"/><text x="%.1f" y="%d" font-size="10" fill="#555">%s</text>`,
			fx(m.x), fx(m.x), padT-4, chartH-padB, fx(m.x)+3, padT+6+(i%3)*11, html.EscapeString(m.name))
	}
	for i, s := range ss {
		color := palette[i%len(palette)]
		// A NaN is a gap (a second without a value): the line stops there
		// rather than bridging it.
		var pts []string
		line := func() {
			if len(pts) > 0 {
				fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.8" points="%s"/>`, color, strings.Join(pts, " "))
			}
			pts = pts[:0]
		}
		for j := range s.x {
			if math.IsNaN(s.y[j]) {
				line()
				continue
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", fx(s.x[j]), fy(s.y[j])))
		}
		line()
		if len(s.x) < 40 { // a few points: marked, so that one alone shows
			for j := range s.x {
				if math.IsNaN(s.y[j]) {
					continue
				}
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"/>`, fx(s.x[j]), fy(s.y[j]), color)
			}
		}
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d">%s</text>`,
			chartW-padR+6, padT+i*16, color, chartW-padR+20, padT+i*16+9, html.EscapeString(s.name))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// short prints an axis value compactly.
func short(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.3gM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.3gk", v/1e3)
	case v == math.Trunc(v):
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// butterfly draws operations per second (bars, left axis) and MB/s (line,
// right axis) across stages: over an object-size sweep, ops/s fall and
// MB/s rise, the two wings of the chart.
func butterfly(title string, labels []string, ops, mbs []float64) string {
	if len(labels) == 0 {
		return ""
	}
	omax, bmax := 0.0, 0.0
	for i := range labels {
		omax, bmax = math.Max(omax, ops[i]), math.Max(bmax, mbs[i])
	}
	omax, bmax = niceMax(omax), niceMax(bmax)
	// As wide as the stages need, up to what a 1280-pixel window shows;
	// names are slanted when a slot is too narrow for them.
	width := min(max(chartW, padL+padR+90*len(labels)), 1200)
	slot := float64(width-padL-padR) / float64(len(labels))
	slant := false
	for _, l := range labels {
		slant = slant || float64(len(l))*6.5 > slot
	}
	height := chartH
	if slant {
		height += 50
	}
	base := float64(chartH - padB)
	fy := func(v, top float64) float64 { return base - v/top*(chartH-padT-padB) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %[1]d %[2]d" font-family="sans-serif" font-size="11"><rect width="100%%" height="100%%" fill="white"/>`, width, height)
	fmt.Fprintf(&b, `<text x="%d" y="18" font-size="14">%s</text>`, padL, html.EscapeString(title))
	for i := 0; i <= 4; i++ {
		f := float64(i) / 4
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end" fill="%s">%s</text><text x="%d" y="%.1f" fill="%s">%s</text>`,
			padL, width-padR, fy(f*omax, omax), fy(f*omax, omax), padL-4, fy(f*omax, omax)+4, palette[0], short(f*omax),
			width-padR+4, fy(f*bmax, bmax)+4, palette[1], short(f*bmax))
	}
	fmt.Fprintf(&b, `<text x="%d" y="30" fill="%s">ops/s</text><text x="%d" y="30" fill="%s">MB/s</text>`, padL-40, palette[0], width-padR+4, palette[1])
	var pts []string
	for i, l := range labels {
		x := float64(padL) + slot*float64(i)
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" opacity="0.8"/>`, x+slot*0.2, fy(ops[i], omax), slot*0.6, fy(0, omax)-fy(ops[i], omax), palette[0])
		if slant {
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end" transform="rotate(-35 %.1f %.1f)">%s</text>`, x+slot/2+4, base+12, x+slot/2+4, base+12, html.EscapeString(l))
		} else {
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, x+slot/2, base+14, html.EscapeString(l))
		}
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x+slot/2, fy(mbs[i], bmax)))
	}
	fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2.2" points="%s"/>`, palette[1], strings.Join(pts, " "))
	b.WriteString(`</svg>`)
	return b.String()
}
