// Command chart turns the output of the gateway benchmarks (bench/*_test.go)
// into a table of each figure next to its same-run ceiling and an SVG bar
// chart of the ratios.
//
//	go run ./bench/chart -svg out.svg < bench.txt > table.md
package main

import (
	"bufio"
	"flag"
	"fmt"
	"html"
	"io"
	"log"
	"os"
	"sort"
	"strconv"
	"strings"
)

// base, when set, is the target every other one is a ratio of (the SSE
// benchmarks: plain); otherwise ostium is a ratio of ceiling.
var base string

// title, when set, is the chart's title in place of the default, which
// describes the gateway benchmarks' 16 clients.
var title string

// figure is the mean of one metric over the runs of one benchmark target.
type figure struct {
	sum float64
	n   int
}

func (f figure) mean() float64 { return f.sum / float64(f.n) }

// result holds, per benchmark, the headline metric of each target.
type result struct {
	name, unit      string
	ceiling, ostium figure
}

func main() {
	svgPath := flag.String("svg", "", "write the ratio chart to this SVG file")
	flag.StringVar(&base, "base", "", "compare every target with this one (e.g. plain) instead of ostium with ceiling")
	flag.StringVar(&title, "title", "", "the chart's title (default: the gateway benchmarks')")
	flag.Parse()
	results, err := parse(os.Stdin)
	if err != nil {
		log.Fatal(err)
	}
	if len(results) == 0 {
		log.Fatal("chart: no gateway benchmark results on stdin")
	}
	if base != "" {
		fmt.Printf("| benchmark | unit | %s | target | ratio |\n", base)
	} else {
		fmt.Println("| benchmark | unit | ceiling | ostium | ratio |")
	}
	fmt.Println("| --- | --- | ---: | ---: | ---: |")
	for _, r := range results {
		fmt.Printf("| %s | %s | %.0f | %.0f | %.2f |\n", r.name, r.unit, r.ceiling.mean(), r.ostium.mean(), r.ratio())
	}
	if *svgPath != "" {
		if err := os.WriteFile(*svgPath, []byte(svg(results)), 0o644); err != nil {
			log.Fatal(err)
		}
	}
}

func (r result) ratio() float64 {
	if r.ceiling.n == 0 || r.ostium.n == 0 {
		return 0
	}
	return r.ostium.mean() / r.ceiling.mean()
}

// parse reads `go test -bench` lines such as
// "BenchmarkGet1MiB/target=ostium-2  5000  210000 ns/op  1800 MiB/s  1800 ops/s".
// The headline metric is MiB/s for the 1 MiB benchmarks, else ops/s.
func parse(r io.Reader) ([]result, error) {
	byName := map[string]*result{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name, sub, ok := strings.Cut(f[0], "/target=")
		if !ok {
			continue
		}
		target := sub
		if i := strings.LastIndexByte(sub, '-'); i > 0 {
			target = sub[:i]
		}
		// A sub-benchmark run again under the same name (interleaved
		// rounds) is target#01, #02, ...: the same target.
		if i := strings.IndexByte(target, '#'); i > 0 {
			target = target[:i]
		}
		name = strings.TrimPrefix(name, "Benchmark")
		unit := "ops/s"
		if strings.Contains(name, "MiB") {
			unit = "MiB/s"
		}
		for i := 2; i+1 < len(f); i += 2 {
			if f[i+1] != unit {
				continue
			}
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("chart: %q: %w", sc.Text(), err)
			}
			res := byName[name]
			if res == nil {
				res = &result{name: name, unit: unit}
				byName[name] = res
			}
			var fig *figure
			switch {
			case base != "" && target == base:
				// The base is every other target's ceiling: kept under
				// the bare name and copied to each row below.
				fig = &res.ceiling
			case base != "":
				key := name + " " + target
				r := byName[key]
				if r == nil {
					r = &result{name: key, unit: unit}
					byName[key] = r
				}
				fig = &r.ostium
			case target == "ceiling":
				fig = &res.ceiling
			case target == "ostium":
				fig = &res.ostium
			default: // a reference such as target=hop: in the text, not the chart
				continue
			}
			fig.sum += v
			fig.n++
		}
	}
	out := make([]result, 0, len(byName))
	for key, r := range byName {
		if base != "" {
			name, _, ok := strings.Cut(key, " ")
			if !ok {
				continue // the base's own row
			}
			if b := byName[name]; b != nil {
				r.ceiling = b.ceiling
			}
		}
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, sc.Err()
}

// svg draws one horizontal bar per benchmark: the ratio to the ceiling, the
// absolute figures written beside it.
func svg(results []result) string {
	const w, rowH, left, barW = 880, 46, 200, 420
	h := 60 + rowH*len(results)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="13">`, w, h)
	title := title
	switch {
	case title != "":
	case base != "":
		title = "Each kind as a fraction of " + base + ", same node, same run (16 clients)"
	default:
		title = "Ostium as a fraction of the same-run ceiling (16 clients)"
	}
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/><text x="10" y="22" font-size="15">%s</text>`, html.EscapeString(title))
	for i, r := range results {
		y := 40 + i*rowH
		ratio := r.ratio()
		fill := min(ratio, 1) * barW
		fmt.Fprintf(&b, `<text x="10" y="%d">%s</text>`, y+20, html.EscapeString(r.name))
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="26" fill="#eee" stroke="#999"/>`, left, y+4, barW)
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.0f" height="26" fill="#3b7dd8"/>`, left, y+4, fill)
		fmt.Fprintf(&b, `<text x="%d" y="%d">%.0f%%  (%.0f of %.0f %s)</text>`, left+barW+8, y+22, ratio*100, r.ostium.mean(), r.ceiling.mean(), r.unit)
	}
	b.WriteString(`</svg>`)
	return b.String()
}
