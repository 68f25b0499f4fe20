// Package faults runs a workload's fault schedule: at set times of a run
// (from its start, or from the start of a named stage) it runs shell
// commands that break or mend what the run measures (kill a node, stop
// the catalog, stop a platform's process, start it again), keeps what
// each printed, and records the run's availability second by second so
// that the report can say what each fault cost: its error window, the
// time to recover, and whether every acknowledged write is still there.
package faults

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// DefaultTimeout bounds a fault command that names no timeout.
const DefaultTimeout = 60 * time.Second

// Fault is one entry of a schedule.
type Fault struct {
	Line int `yaml:"-" json:"line,omitempty"`
	// Name is how the report names the fault; "fault N" when unset.
	Name string `yaml:"name" json:"name"`
	// Stage, if set, is the stage At counts from; else At counts from the
	// start of the run.
	Stage string   `yaml:"stage" json:"stage,omitempty"`
	At    Duration `yaml:"at" json:"at"`
	// Command is run by sh -c, in its own process group.
	Command string   `yaml:"command" json:"command"`
	Timeout Duration `yaml:"timeout" json:"timeout,omitempty"`
	// Fatal: a command that fails (exits non-zero, times out) ends the
	// run; otherwise it is reported and the run goes on.
	Fatal bool `yaml:"fatal" json:"fatal,omitempty"`
}

// Duration is a time a schedule writes as Go does ("90s", "1m30s",
// "500ms") or as a number of seconds.
type Duration time.Duration

// ParseDuration reads a Duration.
func ParseDuration(s string) (Duration, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a time (90s, 1m30s, 500ms, or seconds)", s)
	}
	return Duration(d), nil
}

func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*d = v
	return nil
}

func (d Duration) String() string { return time.Duration(d).String() }

// Span is what validation knows of a stage: its name and how long it
// lasts (0 when a count or byte limit ends it, which cannot be known
// before it runs), closure delay included separately.
type Span struct {
	Name    string
	Length  time.Duration
	Closure time.Duration
}

// Validate checks a schedule against the stages it refers to, before
// anything runs, and fills in the defaults (names, timeouts). Each error
// names the fault's line.
func Validate(fs []Fault, stages []Span) error {
	total, known := time.Duration(0), true
	for _, st := range stages {
		if st.Length == 0 {
			known = false
		}
		total += st.Length + st.Closure
	}
	names := map[string]bool{}
	for i := range fs {
		f := &fs[i]
		if f.Name == "" {
			f.Name = "fault " + strconv.Itoa(i+1)
		}
		at := func(format string, args ...any) error {
			where := ""
			if f.Line > 0 {
				where = fmt.Sprintf("line %d: ", f.Line)
			}
			return fmt.Errorf("%sfault %q: %s", where, f.Name, fmt.Sprintf(format, args...))
		}
		if names[f.Name] {
			return at("the name is used by another fault")
		}
		names[f.Name] = true
		if strings.TrimSpace(f.Command) == "" {
			return at("no command")
		}
		if f.At < 0 {
			return at("at %s is before the start", f.At)
		}
		if f.Timeout < 0 {
			return at("timeout %s is negative", f.Timeout)
		}
		if f.Timeout == 0 {
			f.Timeout = Duration(DefaultTimeout)
		}
		if f.Stage == "" {
			if known && time.Duration(f.At) >= total {
				return at("at %s is after the end of the run (%s)", f.At, total)
			}
			continue
		}
		var span *Span
		for j := range stages {
			if stages[j].Name == f.Stage {
				span = &stages[j]
				break
			}
		}
		if span == nil {
			return at("no stage is named %q", f.Stage)
		}
		if span.Length > 0 && time.Duration(f.At) >= span.Length {
			return at("at %s is after the end of stage %q (%s)", f.At, f.Stage, span.Length)
		}
	}
	return nil
}
