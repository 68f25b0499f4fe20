package faults

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/ostiumio/ostium/internal/bench/report"
)

// maxOutput bounds what is kept of a command's output (its head).
const maxOutput = 64 << 10

// Session runs a schedule alongside a run: Start when the run starts,
// StageStarted as each stage starts, Observe as each operation ends,
// Finish once it is over.
type Session struct {
	faults   []Fault
	timeline *Timeline
	start    time.Time
	ctx      context.Context
	cancel   context.CancelCauseFunc

	mu      sync.Mutex
	runs    []report.FaultRun
	timers  []*time.Timer
	armed   map[string]bool // stages whose faults are set
	running sync.WaitGroup
	ended   bool
	fatal   error
}

// NewSession prepares a validated schedule.
func NewSession(fs []Fault) *Session {
	s := &Session{faults: fs, armed: map[string]bool{}, runs: make([]report.FaultRun, len(fs))}
	for i, f := range fs {
		s.runs[i] = report.FaultRun{Name: f.Name, Command: f.Command, Stage: f.Stage, AtS: -1, ExitCode: -1}
	}
	return s
}

// Start begins the run at start: the faults timed from it are set. The
// context returned ends when a fatal fault fails (its cause says which).
func (s *Session) Start(ctx context.Context, start time.Time) context.Context {
	s.start, s.timeline = start, NewTimeline(start)
	s.ctx, s.cancel = context.WithCancelCause(ctx)
	s.arm("", start)
	return s.ctx
}

// Timeline is the session's timeline, for the engine to feed.
func (s *Session) Timeline() *Timeline { return s.timeline }

// StageStarted sets the faults timed from the start of this stage (its
// first start, should two stages share a name).
func (s *Session) StageStarted(name string, at time.Time) {
	s.timeline.StageStarted(name, at)
	s.arm(name, at)
}

func (s *Session) arm(stage string, from time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended || (stage != "" && s.armed[stage]) {
		return
	}
	s.armed[stage] = true
	for i, f := range s.faults {
		if f.Stage != stage {
			continue
		}
		s.running.Add(1)
		i, f := i, f
		s.timers = append(s.timers, time.AfterFunc(time.Until(from.Add(time.Duration(f.At))), func() {
			defer s.running.Done()
			s.fire(i, f)
		}))
	}
}

// fire runs one fault's command, unless the run has ended.
func (s *Session) fire(i int, f Fault) {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	t0 := time.Now()
	s.runs[i].AtS = t0.Sub(s.start).Seconds()
	s.mu.Unlock()
	out, code, err := runCommand(s.ctx, f.Command, time.Duration(f.Timeout))
	s.mu.Lock()
	r := &s.runs[i]
	r.DurationS, r.ExitCode, r.Output = time.Since(t0).Seconds(), code, out
	if err != nil {
		r.Error = err.Error()
	}
	s.mu.Unlock()
	if err != nil && f.Fatal {
		err = fmt.Errorf("fault %q: %w", f.Name, err)
		s.mu.Lock()
		s.fatal = err
		s.mu.Unlock()
		s.cancel(err)
	}
}

// runCommand runs sh -c command in its own process group, killed whole at
// the timeout or when ctx ends: output (the head of it), exit code, and
// why it failed.
func runCommand(ctx context.Context, command string, timeout time.Duration) (string, int, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// A child that keeps the output open (a server started in the
	// background) must not hold the fault past its command.
	cmd.WaitDelay = 2 * time.Second
	var out capped
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := -1
	if cmd.ProcessState != nil {
		code = cmd.ProcessState.ExitCode()
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		err = fmt.Errorf("timed out after %s", timeout)
	case errors.Is(err, exec.ErrWaitDelay):
		err = nil // it ended; something it started keeps its output
	case err != nil:
		err = fmt.Errorf("%w", err)
	}
	return out.String(), code, err
}

// capped keeps the first maxOutput bytes written to it.
type capped struct {
	mu  sync.Mutex
	buf bytes.Buffer
	cut bool
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := maxOutput - c.buf.Len(); room < len(p) {
		c.buf.Write(p[:max(room, 0)])
		c.cut = true
	} else {
		c.buf.Write(p)
	}
	return len(p), nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cut {
		return c.buf.String() + "\n[output cut at 64 KiB]\n"
	}
	return c.buf.String()
}

// Finish ends the schedule: faults not yet started never are, and the
// commands running are waited for (each within its timeout). It returns
// the timeline and each fault's figures, and the cause if a fatal fault
// ended the run.
func (s *Session) Finish() (*report.Availability, error) {
	s.mu.Lock()
	s.ended = true
	for _, t := range s.timers {
		if t.Stop() {
			s.running.Done()
		}
	}
	s.mu.Unlock()
	s.running.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	a := &report.Availability{Seconds: s.timeline.Seconds(), Faults: append([]report.FaultRun(nil), s.runs...), Dropped: s.timeline.Dropped()}
	Analyze(a.Seconds, a.Faults)
	s.cancel(nil)
	return a, s.fatal
}
