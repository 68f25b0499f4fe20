package report

import (
	"fmt"
	"html"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Availability is a run with a fault schedule, second by second, and what
// each fault cost.
type Availability struct {
	Seconds []Second   `json:"seconds"`
	Faults  []FaultRun `json:"faults"`
	// Acknowledged is the check, after the run, of every write the
	// endpoint acknowledged.
	Acknowledged *AckCheck `json:"acknowledged_writes,omitempty"`
	// Dropped counts operations that ended past the timeline's bound.
	Dropped int64 `json:"dropped,omitempty"`
}

// Second is one second of the run, counted from its start: operations
// that ended in it.
type Second struct {
	T     int    `json:"t"`
	Stage string `json:"stage,omitempty"`
	OK    int64  `json:"ok"`
	// Errors by HTTP status ("503"), or "transport" for a request that
	// got no answer (refused, reset, timed out).
	Errors map[string]int64 `json:"errors,omitempty"`
	P50Ms  float64          `json:"p50_ms"`
	P99Ms  float64          `json:"p99_ms"`
}

// Failed is the second's failed operations.
func (s Second) Failed() int64 {
	var n int64
	for _, v := range s.Errors {
		n += v
	}
	return n
}

// FaultRun is one fault: when its command ran, how it ended, and the
// figures computed from the timeline around it.
type FaultRun struct {
	Name    string `json:"name"`
	Command string `json:"command"`
	Stage   string `json:"stage,omitempty"`
	// AtS is when the command started, in seconds from the run's start;
	// -1 when it never ran (its stage did not start, or the run ended
	// first).
	AtS       float64 `json:"at_s"`
	DurationS float64 `json:"duration_s"`
	ExitCode  int     `json:"exit_code"`
	Error     string  `json:"error,omitempty"`
	Output    string  `json:"output,omitempty"`
	// BaselineOK is the median successes per second of the stage before
	// the fault: what recovery is measured against.
	BaselineOK float64 `json:"baseline_ok_per_s"`
	// Failed counts the failures from the fault's second to the next
	// fault's (or the end); FirstErrorS and LastErrorS are the first and
	// last seconds with any (-1: none), ErrorWindowS the seconds between
	// them, both counted.
	Failed       int64 `json:"failed"`
	FirstErrorS  int   `json:"first_error_s"`
	LastErrorS   int   `json:"last_error_s"`
	ErrorWindowS int   `json:"error_window_s"`
	// RecoverS is from the fault to the start of the first second, after
	// its effect began, whose successes are back within 10% of the
	// baseline; 0 when no second was hit; -1 when none came back before
	// the next fault or the end.
	RecoverS float64 `json:"recover_s"`
	Impact   bool    `json:"impact"`
}

// Ran says whether the command was started.
func (f FaultRun) Ran() bool { return f.AtS >= 0 }

// AckCheck counts acknowledged writes read back after the run.
type AckCheck struct {
	// Acknowledged is the number of keys whose last acknowledged
	// operation was a write (a later acknowledged delete takes it off).
	Acknowledged int64 `json:"acknowledged"`
	Verified     int64 `json:"verified"`
	Missing      int64 `json:"missing"`
	Mismatched   int64 `json:"mismatched"`
	Unreadable   int64 `json:"unreadable"`
	// Untracked writes were acknowledged beyond the ledger's bound and
	// not checked.
	Untracked int64  `json:"untracked,omitempty"`
	LastError string `json:"last_error,omitempty"`
}

func (a *AckCheck) String() string {
	s := fmt.Sprintf("%d acknowledged writes read back: %d verified, %d missing, %d with other contents, %d unreadable",
		a.Acknowledged, a.Verified, a.Missing, a.Mismatched, a.Unreadable)
	if a.Untracked > 0 {
		s += fmt.Sprintf(" (%d more not tracked)", a.Untracked)
	}
	return s
}

// Lost is whether any acknowledged write failed its check.
func (a *AckCheck) Lost() bool { return a.Missing+a.Mismatched+a.Unreadable > 0 }

// statuses are the error keys of a timeline, in order.
func (a *Availability) statuses() []string {
	set := map[string]bool{}
	for _, s := range a.Seconds {
		for k := range s.Errors {
			set[k] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// recoverText says what RecoverS means.
func (f FaultRun) recoverText() string {
	switch {
	case !f.Ran():
		return "not run"
	case !f.Impact:
		return "no effect"
	case f.RecoverS < 0:
		return "not recovered"
	}
	return strconv.FormatFloat(f.RecoverS, 'f', 1, 64) + " s"
}

func (f FaultRun) windowText() string {
	if f.FirstErrorS < 0 {
		return "none"
	}
	return fmt.Sprintf("%d s (%d-%d)", f.ErrorWindowS, f.FirstErrorS, f.LastErrorS)
}

func (f FaultRun) commandText() string {
	switch {
	case !f.Ran():
		return "not run"
	case f.Error != "":
		return "failed: " + f.Error
	}
	return fmt.Sprintf("ok in %.1f s", f.DurationS)
}

// WriteAvailability prints the faults' figures and the timeline.
func WriteAvailability(w io.Writer, a *Availability) {
	fmt.Fprintln(w, "\nFaults")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "fault\tat\tcommand\tbaseline\tfailed\terror window\trecovered after\t")
	for _, f := range a.Faults {
		at := "-"
		if f.Ran() {
			at = fmt.Sprintf("%.1f s", f.AtS)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.0f op/s\t%d\t%s\t%s\t\n", f.Name, at, f.commandText(), f.BaselineOK, f.Failed, f.windowText(), f.recoverText())
	}
	tw.Flush()
	if a.Acknowledged != nil {
		fmt.Fprintf(w, "Acknowledged writes: %s.\n", a.Acknowledged)
	}
	show := a.shown()
	if show == nil {
		fmt.Fprintln(w, "\nAvailability per second (operations that ended in it)")
	} else {
		fmt.Fprintln(w, "\nAvailability per second around the faults (operations that ended in it; timeline.csv has every second)")
	}
	st := a.statuses()
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "s\tok\t"
	for _, k := range st {
		head += k + "\t"
	}
	fmt.Fprintln(tw, head+"p50 ms\tp99 ms\tfault\t")
	marks := a.marks()
	for i, s := range a.Seconds {
		if show != nil && !show[i] {
			if i > 0 && show[i-1] {
				fmt.Fprintln(tw, "...\t")
			}
			continue
		}
		line := fmt.Sprintf("%d\t%d\t", s.T, s.OK)
		for _, k := range st {
			line += strconv.FormatInt(s.Errors[k], 10) + "\t"
		}
		fmt.Fprintf(tw, "%s%.2f\t%.2f\t%s\t\n", line, s.P50Ms, s.P99Ms, strings.Join(marks[s.T], ", "))
	}
	tw.Flush()
}

// printedSeconds is the longest timeline printed whole; a longer one is
// printed around its faults only.
const printedSeconds = 120

// shown are the seconds a long timeline prints: from 5 s before each
// fault to 5 s after its recovery (or the next fault); nil for all.
func (a *Availability) shown() map[int]bool {
	if len(a.Seconds) <= printedSeconds {
		return nil
	}
	m := map[int]bool{}
	for _, f := range a.Faults {
		if !f.Ran() {
			continue
		}
		end := f.AtS + 10
		if f.RecoverS > 0 {
			end = f.AtS + f.RecoverS + 5
		} else if f.LastErrorS >= 0 {
			end = max(end, float64(f.LastErrorS)+5)
		}
		for s := int(f.AtS) - 5; float64(s) <= end; s++ {
			m[s] = true
		}
	}
	return m
}

// marks are the names of the faults started in each second.
func (a *Availability) marks() map[int][]string {
	m := map[int][]string{}
	for _, f := range a.Faults {
		if f.Ran() {
			m[int(f.AtS)] = append(m[int(f.AtS)], f.Name)
		}
	}
	return m
}

// availabilityRows are timeline.csv and faults.csv.
func availabilityRows(a *Availability) (timeline, faults [][]string) {
	st := a.statuses()
	head := []string{"t_s", "stage", "ok"}
	for _, k := range st {
		head = append(head, "errors_"+k)
	}
	timeline = append(timeline, append(head, "p50_ms", "p99_ms", "fault"))
	marks := a.marks()
	for _, s := range a.Seconds {
		row := []string{strconv.Itoa(s.T), s.Stage, itoa(s.OK)}
		for _, k := range st {
			row = append(row, itoa(s.Errors[k]))
		}
		timeline = append(timeline, append(row, f(s.P50Ms), f(s.P99Ms), strings.Join(marks[s.T], "; ")))
	}
	faults = append(faults, []string{"name", "stage", "command", "at_s", "duration_s", "exit_code", "error", "baseline_ok_per_s",
		"failed", "first_error_s", "last_error_s", "error_window_s", "recover_s", "impact"})
	for _, x := range a.Faults {
		faults = append(faults, []string{x.Name, x.Stage, x.Command, f(x.AtS), f(x.DurationS), strconv.Itoa(x.ExitCode), x.Error,
			f(x.BaselineOK), itoa(x.Failed), strconv.Itoa(x.FirstErrorS), strconv.Itoa(x.LastErrorS), strconv.Itoa(x.ErrorWindowS),
			f(x.RecoverS), strconv.FormatBool(x.Impact)})
	}
	return timeline, faults
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// OutputFile is where a fault's output is kept in the results directory.
func OutputFile(dir string, i int, name string) string {
	return filepath.Join(dir, "faults", fmt.Sprintf("%02d-%s.log", i+1, strings.Trim(unsafeName.ReplaceAllString(name, "-"), "-")))
}

// writeOutputs keeps each fault command's output in dir/faults.
func writeOutputs(dir string, a *Availability) error {
	for i, x := range a.Faults {
		if !x.Ran() {
			continue
		}
		path := OutputFile(dir, i, x.Name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("report: %w", err)
		}
		head := fmt.Sprintf("# %s\n# $ %s\n# started %.3f s into the run, took %.3f s, exit code %d\n", x.Name, x.Command, x.AtS, x.DurationS, x.ExitCode)
		if x.Error != "" {
			head += "# failed: " + x.Error + "\n"
		}
		if err := os.WriteFile(path, []byte(head+x.Output), 0o644); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	return nil
}

// availabilityHTML is the report's section: the faults' table and the
// timeline's two charts, faults marked.
func availabilityHTML(a *Availability) string {
	var b strings.Builder
	b.WriteString("<h2 id=availability>Availability</h2>")
	b.WriteString("<table><tr><th>Fault</th><th>At s</th><th>Command</th><th>Baseline op/s</th><th>Failed</th><th>Error window</th><th>Recovered after</th></tr>")
	for _, x := range a.Faults {
		at := "-"
		if x.Ran() {
			at = fmt.Sprintf("%.1f", x.AtS)
		}
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%.0f</td><td>%d</td><td>%s</td><td>%s</td></tr>", html.EscapeString(x.Name), at,
			html.EscapeString(x.commandText()), x.BaselineOK, x.Failed, html.EscapeString(x.windowText()), html.EscapeString(x.recoverText()))
	}
	b.WriteString("</table>")
	for _, x := range a.Faults {
		fmt.Fprintf(&b, "<p class=note>%s: <code>%s</code></p>", html.EscapeString(x.Name), html.EscapeString(x.Command))
	}
	if a.Acknowledged != nil {
		class := "note"
		if a.Acknowledged.Lost() {
			class = "err"
		}
		fmt.Fprintf(&b, "<p class=%q>Acknowledged writes: %s.</p>", class, html.EscapeString(a.Acknowledged.String()))
	}
	var ms []mark
	for _, x := range a.Faults {
		if x.Ran() {
			ms = append(ms, mark{x: x.AtS, name: x.Name})
		}
	}
	ok := series{name: "ok"}
	var errs []series
	st := a.statuses()
	for _, k := range st {
		errs = append(errs, series{name: k})
	}
	p50, p99 := series{name: "p50"}, series{name: "p99"}
	for _, s := range a.Seconds {
		x := float64(s.T) + 0.5 // the middle of the second it counts
		ok.x, ok.y = append(ok.x, x), append(ok.y, float64(s.OK))
		for i, k := range st {
			errs[i].x, errs[i].y = append(errs[i].x, x), append(errs[i].y, float64(s.Errors[k]))
		}
		l50, l99 := s.P50Ms, s.P99Ms
		if s.OK == 0 { // no success, no latency: a gap in the lines
			l50, l99 = math.NaN(), math.NaN()
		}
		p50.x, p50.y = append(p50.x, x), append(p50.y, l50)
		p99.x, p99.y = append(p99.x, x), append(p99.y, l99)
	}
	b.WriteString("<div class=charts>")
	b.WriteString(markedChart("Operations per second: successes and errors by status", "seconds from the start of the run", "ops/s", append([]series{ok}, errs...), ms))
	b.WriteString(markedChart("Latency of successes per second", "seconds from the start of the run", "ms", []series{p50, p99}, ms))
	b.WriteString("</div>")
	return b.String()
}
