// Package report turns finished works into what people read: COSBench's
// General Report columns and exact latency percentiles, as a text table,
// summary.json and CSV files.
package report

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ostiumio/ostium/internal/bench/engine"
	"github.com/ostiumio/ostium/internal/bench/histogram"
)

// Percentiles reported for every operation, by their names in the report.
var Percentiles = []struct {
	Name string
	Q    float64
}{{"p50", .5}, {"p60", .6}, {"p80", .8}, {"p90", .9}, {"p95", .95}, {"p99", .99}, {"p99.9", .999}, {"max", 1}}

// Op is one operation type of one stage, in COSBench's terms. Field names
// in JSON are the documented summary.json format.
type Op struct {
	Stage         string             `json:"stage"`
	OpType        string             `json:"op_type"`
	OpCount       int64              `json:"op_count"`
	ErrorCount    int64              `json:"error_count"`
	ByteCount     int64              `json:"byte_count"`
	AvgResTimeMs  float64            `json:"avg_restime_ms"`  // mean latency of successful operations
	AvgProcTimeMs float64            `json:"avg_proctime_ms"` // mean time to first byte
	ThroughputOps float64            `json:"throughput_ops"`  // successful operations per second
	BandwidthMBps float64            `json:"bandwidth_mbps"`  // payload MB (10^6 bytes) per second
	SuccessRatio  float64            `json:"success_ratio"`   // successful / all
	PercentilesMs map[string]float64 `json:"percentiles_ms"`
	TTFBPctMs     map[string]float64 `json:"ttfb_percentiles_ms"`
	LastError     string             `json:"last_error,omitempty"`
}

// Stage is one work's summary.
type Stage struct {
	Name string `json:"name"`
	// Type is the work's type: normal, or a set-up and tear-down type
	// (init, prepare, cleanup, dispose) that the across-stages chart
	// leaves out.
	Type      string  `json:"type,omitempty"`
	Workers   int     `json:"workers"`
	DurationS float64 `json:"duration_s"`
	Ops       []Op    `json:"ops"`
}

// Summary is summary.json.
type Summary struct {
	Started time.Time `json:"started"`
	// Ended is when the run ended, its cleanup included.
	Ended  time.Time `json:"ended,omitzero"`
	Stages []Stage   `json:"stages"`
	// Ceiling is what the generator reached against a target that does
	// nothing, in the same process, just before the run: the headroom the
	// figures above it were measured with.
	Ceiling *Ceiling `json:"generator_ceiling,omitempty"`
	// Ceilings are the ceilings of every object size the run uses; the
	// first is Ceiling.
	Ceilings []Ceiling `json:"generator_ceilings,omitempty"`
	// Verified is what the reads that check contents checked, when any
	// did.
	Verified *Verified `json:"verified,omitempty"`
	// ClientCPU is the CPU the bench process used, Bounds how near each
	// measured stage came to what the bench process can do (Headroom).
	ClientCPU *ClientCPU `json:"client_cpu,omitempty"`
	Bounds    []Bound    `json:"bounds,omitempty"`
	// Availability is the timeline and the faults' figures of a run with
	// a fault schedule.
	Availability *Availability `json:"availability,omitempty"`
}

// Verified counts the reads whose every byte was checked.
type Verified struct {
	Objects    int64 `json:"objects"`
	Bytes      int64 `json:"bytes"`
	Mismatches int64 `json:"mismatches"`
}

func (v *Verified) String() string {
	unit, div := "MB", 1e6
	if v.Bytes >= 1e10 {
		unit, div = "GB", 1e9
	}
	return fmt.Sprintf("verified %d objects, %d bytes (%.2f %s): %d mismatches", v.Objects, v.Bytes, float64(v.Bytes)/div, unit, v.Mismatches)
}

// Took says how long the run took in all and stage by stage, set-up and
// cleanup included: where the time went that the measured stages do not
// account for.
func (s *Summary) Took() string {
	if s.Ended.IsZero() || len(s.Stages) == 0 {
		return ""
	}
	var parts []string
	for _, st := range s.Stages {
		parts = append(parts, fmt.Sprintf("%s %.1f s", st.Name, st.DurationS))
	}
	return fmt.Sprintf("took %.1f s: %s", s.Ended.Sub(s.Started).Seconds(), strings.Join(parts, ", "))
}

// setup reports whether a stage only sets up or tears down.
func setup(typ string) bool {
	switch typ {
	case "init", "prepare", "cleanup", "dispose":
		return true
	}
	return false
}

// Check says why a run failed, or nil: an acknowledged write was lost
// (a run with faults), no operation succeeded, a stage had
// only failures, reads found mismatched contents, or more than
// maxErrorRatio of all operations failed.
func Check(s Summary, maxErrorRatio float64) error {
	if a := s.Availability; a != nil && a.Acknowledged != nil && a.Acknowledged.Lost() {
		return fmt.Errorf("acknowledged writes lost: %s", a.Acknowledged)
	}
	var ok, failed int64
	for _, st := range s.Stages {
		var sOK, sFailed int64
		for _, op := range st.Ops {
			sOK += op.OpCount
			sFailed += op.ErrorCount
		}
		if sOK == 0 && sFailed > 0 {
			last := ""
			for _, op := range st.Ops {
				if op.LastError != "" {
					last = "; last: " + op.LastError
				}
			}
			return fmt.Errorf("stage %s: all %d operations failed%s", st.Name, sFailed, last)
		}
		ok, failed = ok+sOK, failed+sFailed
	}
	if ok == 0 {
		return errors.New("no operation succeeded")
	}
	if s.Verified != nil && s.Verified.Mismatches > 0 {
		return fmt.Errorf("%d reads returned other contents than were written", s.Verified.Mismatches)
	}
	if ratio := float64(failed) / float64(ok+failed); ratio > maxErrorRatio {
		return fmt.Errorf("%d of %d operations failed (%.2f%%), more than --max-error-ratio %g allows", failed, ok+failed, 100*ratio, maxErrorRatio)
	}
	return nil
}

// Ceiling is a measured generator ceiling.
type Ceiling struct {
	// Stage is the measured stage (work) it is the ceiling of.
	Stage         string  `json:"stage,omitempty"`
	What          string  `json:"what"`
	ThroughputOps float64 `json:"throughput_ops"`
	BandwidthMBps float64 `json:"bandwidth_mbps"`
}

func (c *Ceiling) String() string {
	of := ""
	if c.Stage != "" {
		of = " of " + c.Stage
	}
	return fmt.Sprintf("generator ceiling%s (%s): %.0f op/s, %.2f MB/s", of, c.What, c.ThroughputOps, c.BandwidthMBps)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func percentiles(h *histogram.H) map[string]float64 {
	m := map[string]float64{}
	for _, p := range Percentiles {
		m[p.Name] = ms(h.Quantile(p.Q))
	}
	return m
}

// Summarize computes a stage's figures.
func Summarize(r *engine.Result) Stage {
	dur := r.End.Sub(r.Start).Seconds()
	st := Stage{Name: r.Name, Type: r.Type, Workers: r.Workers, DurationS: dur}
	for _, s := range r.Stats {
		op := Op{Stage: r.Name, OpType: s.Kind, OpCount: s.Ops(), ErrorCount: s.Errors(), ByteCount: s.Bytes(),
			AvgResTimeMs: ms(s.Latency.Mean()), AvgProcTimeMs: ms(s.TTFB.Mean()),
			PercentilesMs: percentiles(s.Latency), TTFBPctMs: percentiles(s.TTFB), LastError: s.LastError()}
		if dur > 0 {
			op.ThroughputOps = float64(op.OpCount) / dur
			op.BandwidthMBps = float64(op.ByteCount) / 1e6 / dur
		}
		if all := op.OpCount + op.ErrorCount; all > 0 {
			op.SuccessRatio = float64(op.OpCount) / float64(all)
		}
		st.Ops = append(st.Ops, op)
	}
	return st
}

// WriteText prints the General Report table and the percentiles.
func WriteText(w io.Writer, st Stage) {
	fmt.Fprintf(w, "\nStage %s: %d workers, %.1f s\n", st.Name, st.Workers, st.DurationS)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "Op-Type\tOp-Count\tByte-Count\tAvg-ResTime\tAvg-ProcTime\tThroughput\tBandwidth\tSucc-Ratio\t")
	for _, op := range st.Ops {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f ms\t%.2f ms\t%.2f op/s\t%.2f MB/s\t%.2f%%\t\n", op.OpType, op.OpCount, op.ByteCount,
			op.AvgResTimeMs, op.AvgProcTimeMs, op.ThroughputOps, op.BandwidthMBps, 100*op.SuccessRatio)
	}
	fmt.Fprintln(tw)
	head := "Op-Type\t"
	for _, p := range Percentiles {
		head += p.Name + "\t"
	}
	fmt.Fprintln(tw, head)
	for _, op := range st.Ops {
		for _, row := range []struct {
			name string
			m    map[string]float64
		}{{op.OpType + " latency", op.PercentilesMs}, {op.OpType + " ttfb", op.TTFBPctMs}} {
			line := row.name + "\t"
			for _, p := range Percentiles {
				line += strconv.FormatFloat(row.m[p.Name], 'f', 3, 64) + " ms\t"
			}
			fmt.Fprintln(tw, line)
		}
	}
	tw.Flush()
	for _, op := range st.Ops {
		if op.LastError != "" {
			fmt.Fprintf(w, "%s: %d failed, last: %s\n", op.OpType, op.ErrorCount, op.LastError)
		}
	}
}

// ProgressLine is the live line of a running work: elapsed time, rates of
// the last interval, totals, errors and, when a limit allows, an estimate
// of the time left.
func ProgressLine(name string, p engine.Progress) string {
	// Of how many, when the work knows: a cleanup's deleted of to delete.
	ops := strconv.FormatInt(p.Ops, 10)
	if total := max(p.TotalOps, p.Expect); total > 0 {
		ops += "/" + strconv.FormatInt(total, 10)
	}
	if p.Final {
		return fmt.Sprintf("[%s] %6.1fs  %9.0f ops/s  %9.2f MB/s  ops %s  errors %d  done (mean rates)",
			name, p.Elapsed.Seconds(), p.OpsPerSecond, p.BytesPerSec/1e6, ops, p.Errors)
	}
	// The time left is the least of what each limit allows; a count limit
	// is estimated at the mean rate so far, which a slow interval does not
	// throw off.
	left := time.Duration(-1)
	less := func(d time.Duration) {
		if d >= 0 && (left < 0 || d < left) {
			left = d
		}
	}
	secs := p.Elapsed.Seconds()
	if p.Runtime > 0 {
		less(max(p.Runtime-p.Elapsed, 0))
	}
	if secs > 0 {
		done := p.Ops + p.Errors
		for _, lim := range []struct{ total, done int64 }{{p.TotalOps, done}, {p.Expect, done}, {p.TotalBytes, p.Bytes}} {
			if lim.total > 0 && lim.done > 0 {
				rate := float64(lim.done) / secs
				less(time.Duration(float64(max(lim.total-lim.done, 0)) / rate * float64(time.Second)))
			}
		}
	}
	eta := ""
	if left >= 0 {
		eta = "  ETA " + left.Round(time.Second).String()
	}
	return fmt.Sprintf("[%s] %6.1fs  %9.0f ops/s  %9.2f MB/s  ops %s  errors %d%s",
		name, p.Elapsed.Seconds(), p.OpsPerSecond, p.BytesPerSec/1e6, ops, p.Errors, eta)
}

// WriteDir writes summary.json, summary.csv, timeseries.csv,
// histogram.csv and report.html into dir; with faults, timeline.csv,
// faults.csv and each fault command's output in faults/.
func WriteDir(dir string, s Summary, results []*engine.Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	var summary, series, hist [][]string
	summary = append(summary, []string{"stage", "op_type", "op_count", "error_count", "byte_count", "avg_restime_ms", "avg_proctime_ms",
		"throughput_ops", "bandwidth_mbps", "success_ratio"})
	for _, p := range Percentiles {
		summary[0] = append(summary[0], p.Name+"_ms")
	}
	for _, st := range s.Stages {
		for _, op := range st.Ops {
			row := []string{st.Name, op.OpType, itoa(op.OpCount), itoa(op.ErrorCount), itoa(op.ByteCount), f(op.AvgResTimeMs),
				f(op.AvgProcTimeMs), f(op.ThroughputOps), f(op.BandwidthMBps), f(op.SuccessRatio)}
			for _, p := range Percentiles {
				row = append(row, f(op.PercentilesMs[p.Name]))
			}
			summary = append(summary, row)
		}
	}
	series = append(series, []string{"stage", "elapsed_s", "op_type", "ops", "bytes", "errors"})
	hist = append(hist, []string{"stage", "op_type", "latency_from_us", "latency_to_us", "count"})
	for _, r := range results {
		for _, smp := range r.Series {
			for _, st := range r.Stats {
				series = append(series, []string{r.Name, f(smp.Elapsed.Seconds()), st.Kind, itoa(smp.Ops[st.Kind]),
					itoa(smp.Bytes[st.Kind]), itoa(smp.Errors[st.Kind])})
			}
		}
		for _, st := range r.Stats {
			st.Latency.Each(func(lo, hi, n uint64) {
				hist = append(hist, []string{r.Name, st.Kind, strconv.FormatUint(lo, 10), strconv.FormatUint(hi, 10), strconv.FormatUint(n, 10)})
			})
		}
	}
	files := map[string][][]string{"summary.csv": summary, "timeseries.csv": series, "histogram.csv": hist}
	if a := s.Availability; a != nil {
		files["timeline.csv"], files["faults.csv"] = availabilityRows(a)
		if err := writeOutputs(dir, a); err != nil {
			return err
		}
	}
	for name, rows := range files {
		if err := writeCSV(filepath.Join(dir, name), rows); err != nil {
			return err
		}
	}
	return WriteHTML(filepath.Join(dir, "report.html"), s, results)
}

func writeCSV(path string, rows [][]string) error {
	fh, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	w := csv.NewWriter(fh)
	w.WriteAll(rows)
	if err := w.Error(); err != nil {
		fh.Close()
		return fmt.Errorf("report: %s: %w", path, err)
	}
	return fh.Close()
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
func f(v float64) string  { return strconv.FormatFloat(v, 'f', 3, 64) }
