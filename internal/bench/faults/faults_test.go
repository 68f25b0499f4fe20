package faults

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/bench/target"
)

func TestValidate(t *testing.T) {
	stages := []Span{{Name: "prepare"}, {Name: "main", Length: 60 * time.Second, Closure: 5 * time.Second}}
	for _, tc := range []struct {
		f    Fault
		want string
	}{
		{Fault{Line: 7, Name: "x", Stage: "main", At: Duration(time.Minute), Command: "true"}, `line 7: fault "x": at 1m0s is after the end of stage "main" (1m0s)`},
		{Fault{Name: "x", Stage: "mian", At: 1, Command: "true"}, `fault "x": no stage is named "mian"`},
		{Fault{Line: 3, Stage: "main", Command: "  "}, `line 3: fault "fault 1": no command`},
		{Fault{Name: "x", At: -1, Command: "true"}, "before the start"},
		{Fault{Name: "x", Command: "true", Timeout: -1}, "timeout -1ns is negative"},
	} {
		err := Validate([]Fault{tc.f}, stages)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.f, err, tc.want)
		}
	}
	if err := Validate([]Fault{{Name: "a", Command: "true"}, {Name: "a", Command: "true"}}, stages); err == nil || !strings.Contains(err.Error(), "used by another") {
		t.Errorf("two faults of one name: %v", err)
	}
	// From the run's start, a prepare of unknown length makes any time
	// possible; with every length known, the run's end bounds it.
	ok := []Fault{{Command: "kill 1", At: Duration(10 * time.Minute)}, {Stage: "main", At: Duration(59 * time.Second), Command: "x"}}
	if err := Validate(ok, stages); err != nil {
		t.Fatal(err)
	}
	if ok[0].Name != "fault 1" || ok[1].Timeout != Duration(DefaultTimeout) {
		t.Errorf("defaults: %+v", ok)
	}
	err := Validate([]Fault{{Command: "x", At: Duration(66 * time.Second)}}, stages[1:])
	if err == nil || !strings.Contains(err.Error(), "after the end of the run (1m5s)") {
		t.Errorf("a fault after the run: %v", err)
	}
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{"90": 90 * time.Second, "1.5": 1500 * time.Millisecond, "1m30s": 90 * time.Second, "500ms": 500 * time.Millisecond} {
		if d, err := ParseDuration(in); err != nil || time.Duration(d) != want {
			t.Errorf("%q: %v, %v", in, d, err)
		}
	}
	if _, err := ParseDuration("soon"); err == nil {
		t.Error("soon parsed")
	}
}

func TestTimeline(t *testing.T) {
	start := time.Now()
	tl := NewTimeline(start)
	tl.StageStarted("prepare", start)
	tl.StageStarted("main", start.Add(2*time.Second))
	at := func(s float64) time.Time { return start.Add(time.Duration(s * float64(time.Second))) }
	// Second 0: 100 successes of 1..100 ms; an operation counts in the
	// second it ended.
	for i := 1; i <= 100; i++ {
		tl.Observe("write", at(0.1), time.Duration(i)*time.Millisecond, nil)
	}
	tl.Observe("write", at(0.5), 600*time.Millisecond, &target.Error{Status: 503, Code: "SlowDown"}) // ends in second 1
	tl.Observe("read", at(2.5), time.Millisecond, errors.New("dial tcp: connection refused"))
	tl.Observe("read", at(2.5), time.Millisecond, &target.Error{Status: 500})
	tl.Observe("read", at(MaxSeconds+1), time.Millisecond, nil)
	secs := tl.Seconds()
	if len(secs) != 3 || tl.Dropped() != 1 {
		t.Fatalf("%d seconds, %d dropped", len(secs), tl.Dropped())
	}
	s0 := secs[0]
	if s0.OK != 100 || s0.Failed() != 0 || s0.Stage != "prepare" {
		t.Errorf("second 0: %+v", s0)
	}
	// Buckets are 5% wide: the p50 of 1..100 ms is 50 ms, the p99 99 ms.
	if s0.P50Ms < 50 || s0.P50Ms > 52.5 || s0.P99Ms < 99 || s0.P99Ms > 104 {
		t.Errorf("p50 %.2f, p99 %.2f ms", s0.P50Ms, s0.P99Ms)
	}
	if secs[1].OK != 0 || secs[1].Errors["503"] != 1 || secs[1].P99Ms != 0 {
		t.Errorf("second 1: %+v", secs[1])
	}
	if e := secs[2].Errors; e["transport"] != 1 || e["500"] != 1 || secs[2].Stage != "main" {
		t.Errorf("second 2: %+v", secs[2])
	}
}

func TestRunCommand(t *testing.T) {
	out, code, err := runCommand(context.Background(), "echo hello; echo oops >&2; exit 3", 10*time.Second)
	if code != 3 || err == nil || !strings.Contains(out, "hello") || !strings.Contains(out, "oops") {
		t.Errorf("exit %d, %v, %q", code, err, out)
	}
	// A timeout kills the command's whole group, a child in the
	// background that keeps its output open included.
	t0 := time.Now()
	_, _, err = runCommand(context.Background(), "sleep 60 & sleep 60", 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "timed out after 300ms") || time.Since(t0) > 5*time.Second {
		t.Errorf("%v after %v", err, time.Since(t0))
	}
	// One that starts a server in the background and returns is done.
	t0 = time.Now()
	if _, code, err := runCommand(context.Background(), "sleep 30 & echo started", 10*time.Second); err != nil || code != 0 || time.Since(t0) > 8*time.Second {
		t.Errorf("exit %d, %v after %v", code, err, time.Since(t0))
	}
}

// A schedule fires each fault at its time from the run's or its stage's
// start; a failing command is reported and the run goes on, unless the
// fault is fatal; a fault of a stage that never started never runs.
func TestSession(t *testing.T) {
	fs := []Fault{
		{Name: "early", At: Duration(100 * time.Millisecond), Command: "echo early", Timeout: Duration(5 * time.Second)},
		{Name: "failing", Stage: "main", At: Duration(200 * time.Millisecond), Command: "exit 2", Timeout: Duration(5 * time.Second)},
		{Name: "never", Stage: "cleanup", At: 0, Command: "echo never", Timeout: Duration(5 * time.Second)},
	}
	s := NewSession(fs)
	start := time.Now()
	ctx := s.Start(context.Background(), start)
	time.Sleep(300 * time.Millisecond)
	s.StageStarted("main", time.Now())
	time.Sleep(600 * time.Millisecond)
	if ctx.Err() != nil {
		t.Fatal("a failed fault that is not fatal ended the run")
	}
	a, err := s.Finish()
	if err != nil {
		t.Fatal(err)
	}
	early, failing, never := a.Faults[0], a.Faults[1], a.Faults[2]
	if early.AtS < 0.1 || early.AtS > 0.3 || early.Output != "early\n" || early.ExitCode != 0 || early.Error != "" {
		t.Errorf("early: %+v", early)
	}
	if failing.AtS < 0.5 || failing.ExitCode != 2 || failing.Error == "" {
		t.Errorf("failing (200 ms after main started at 0.3 s): %+v", failing)
	}
	if never.Ran() {
		t.Errorf("never: %+v", never)
	}

	s = NewSession([]Fault{{Name: "must", At: 0, Command: "exit 1", Fatal: true, Timeout: Duration(5 * time.Second)}})
	ctx = s.Start(context.Background(), time.Now())
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("a fatal fault's failure did not end the run")
	}
	if _, err := s.Finish(); err == nil || !strings.Contains(err.Error(), `fault "must"`) || !strings.Contains(context.Cause(ctx).Error(), "must") {
		t.Errorf("%v", err)
	}
}
