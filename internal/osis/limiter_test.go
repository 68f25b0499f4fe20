package osis

import (
	"fmt"
	"testing"
	"time"
)

// An address gets its failures, then waits the window out; others are
// counted apart; the map never outgrows its bound, and when full of live
// windows it refuses newcomers rather than forget whom it follows.
func TestLimiter(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := newLimiter(3, time.Minute, 4)
	for i := 0; i < 3; i++ {
		if !l.allowed("a", now) {
			t.Fatalf("refused after %d failures", i)
		}
		l.failed("a", now)
	}
	if l.allowed("a", now.Add(59*time.Second)) {
		t.Fatal("allowed past its failures within the window")
	}
	if !l.allowed("b", now) {
		t.Fatal("another address refused")
	}
	if !l.allowed("a", now.Add(time.Minute)) {
		t.Fatal("still refused once the window ended")
	}

	for i := 0; i < 4; i++ {
		l.failed(fmt.Sprint("x", i), now)
	}
	if l.allowed("newcomer", now) {
		t.Fatal("a newcomer let in while the map is full of live windows")
	}
	l.failed("newcomer", now)
	if len(l.seen) > 4 {
		t.Fatalf("map grew to %d", len(l.seen))
	}
	if !l.allowed("x0", now) {
		t.Fatal("a followed address under its limit refused")
	}
	later := now.Add(2 * time.Minute)
	if !l.allowed("newcomer", later) {
		t.Fatal("newcomer refused after every window ended")
	}
	l.failed("newcomer", later)
	if len(l.seen) != 1 {
		t.Fatalf("ended windows kept: %d", len(l.seen))
	}
}
