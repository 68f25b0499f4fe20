package faults

import (
	"errors"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/ostiumio/ostium/internal/bench/report"
	"github.com/ostiumio/ostium/internal/bench/target"
)

// MaxSeconds bounds a timeline: six hours of seconds (about 3 KB each).
// Operations that end later are counted as dropped.
const MaxSeconds = 6 * 3600

// Latencies are kept per second in buckets 5% wide from 1 µs to about
// 17 minutes: a second's p99 is known to within 5%, in 1.7 KB.
const (
	growth   = 1.05
	nBuckets = 430
)

var logGrowth = math.Log(growth)

func bucket(d time.Duration) int {
	us := float64(d.Microseconds())
	if us < 1 {
		return 0
	}
	return min(int(math.Log(us)/logGrowth)+1, nBuckets-1)
}

// upper is the largest latency bucket i holds, in ms.
func upper(i int) float64 { return math.Pow(growth, float64(i)) / 1000 }

type second struct {
	ok     int64
	errors map[string]int64
	lat    [nBuckets]uint32
}

// Timeline records every operation of a run in the second it ended.
type Timeline struct {
	start   time.Time
	mu      sync.Mutex
	seconds []*second
	dropped int64
	stages  []stageMark
}

type stageMark struct {
	name string
	at   time.Duration
}

// NewTimeline starts a timeline at start.
func NewTimeline(start time.Time) *Timeline { return &Timeline{start: start} }

// ErrorKind is how the timeline files a failure: the HTTP status of an
// S3 error answer, else "transport" (no answer: refused, reset, timed
// out).
func ErrorKind(err error) string {
	var e *target.Error
	if errors.As(err, &e) {
		return strconv.Itoa(e.Status)
	}
	return "transport"
}

// Observe records an operation that started at t0 and took lat; err is
// its failure, or nil.
func (t *Timeline) Observe(_ string, t0 time.Time, lat time.Duration, err error) {
	i := int(t0.Add(lat).Sub(t.start) / time.Second)
	if i < 0 {
		i = 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if i >= MaxSeconds {
		t.dropped++
		return
	}
	for len(t.seconds) <= i {
		t.seconds = append(t.seconds, nil)
	}
	s := t.seconds[i]
	if s == nil {
		s = &second{}
		t.seconds[i] = s
	}
	if err != nil {
		if s.errors == nil {
			s.errors = map[string]int64{}
		}
		s.errors[ErrorKind(err)]++
		return
	}
	s.ok++
	s.lat[bucket(lat)]++
}

// StageStarted labels the seconds from now on with a stage's name.
func (t *Timeline) StageStarted(name string, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stages = append(t.stages, stageMark{name, at.Sub(t.start)})
}

// Seconds is the timeline so far, one entry a second from the start to
// the last second anything ended in; quiet seconds are there, empty.
func (t *Timeline) Seconds() []report.Second {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]report.Second, len(t.seconds))
	for i, s := range t.seconds {
		out[i] = report.Second{T: i, Stage: t.stageAt(time.Duration(i) * time.Second)}
		if s == nil {
			continue
		}
		out[i].OK = s.ok
		if len(s.errors) > 0 {
			out[i].Errors = map[string]int64{}
			for k, v := range s.errors {
				out[i].Errors[k] = v
			}
		}
		out[i].P50Ms, out[i].P99Ms = s.quantile(.5), s.quantile(.99)
	}
	return out
}

// Dropped is how many operations ended past MaxSeconds.
func (t *Timeline) Dropped() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dropped
}

// stageAt is the stage that was running at the start of second off (the
// one that started last, at or before it; the first for a second that
// began before any stage).
func (t *Timeline) stageAt(off time.Duration) string {
	name := ""
	for _, m := range t.stages {
		if m.at <= off+time.Second/2 || name == "" {
			name = m.name
		}
	}
	return name
}

func (s *second) quantile(q float64) float64 {
	if s.ok == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(s.ok)))
	var seen uint64
	for i, c := range s.lat {
		seen += uint64(c)
		if seen >= rank && c > 0 {
			return upper(i)
		}
	}
	return upper(nBuckets - 1)
}
