package osis

import (
	"sync"
	"time"
)

// Failed authentications: an address gets maxFailures in failWindow,
// then is refused (429) until the window ends; at most maxTracked
// addresses are followed at once.
const (
	maxFailures = 10
	failWindow  = time.Minute
	maxTracked  = 4096
)

// limiter counts failures by address in fixed windows. Its map is
// bounded: when full, windows that ended are dropped, and if none has,
// new addresses are refused until one ends (a flood of addresses cannot
// grow it, nor reset the count of one it follows).
type limiter struct {
	mu     sync.Mutex
	max    int
	window time.Duration
	cap    int
	seen   map[string]*window
}

type window struct {
	start time.Time
	fails int
}

func newLimiter(max int, w time.Duration, capacity int) *limiter {
	return &limiter{max: max, window: w, cap: capacity, seen: make(map[string]*window)}
}

// allowed tells whether addr may try to authenticate now.
func (l *limiter) allowed(addr string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	w, ok := l.seen[addr]
	if !ok {
		return len(l.seen) < l.cap || l.sweep(now)
	}
	if now.Sub(w.start) >= l.window {
		delete(l.seen, addr)
		return true
	}
	return w.fails < l.max
}

// failed counts a failure of addr.
func (l *limiter) failed(addr string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w, ok := l.seen[addr]
	if ok && now.Sub(w.start) >= l.window {
		ok = false
	}
	if !ok {
		if len(l.seen) >= l.cap && !l.sweep(now) {
			return // allowed refuses new addresses while full
		}
		w = &window{start: now}
		l.seen[addr] = w
	}
	w.fails++
}

// sweep drops ended windows and reports whether there is room.
func (l *limiter) sweep(now time.Time) bool {
	for a, w := range l.seen {
		if now.Sub(w.start) >= l.window {
			delete(l.seen, a)
		}
	}
	return len(l.seen) < l.cap
}
