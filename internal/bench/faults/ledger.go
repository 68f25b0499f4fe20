package faults

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ostiumio/ostium/internal/bench/payload"
	"github.com/ostiumio/ostium/internal/bench/report"
	"github.com/ostiumio/ostium/internal/bench/target"
)

// MaxAcked bounds the ledger: writes acknowledged beyond it are counted,
// not kept nor checked.
const MaxAcked = 1 << 20

type ackKey struct {
	store       int
	bucket, key string
}

// Ledger keeps the last acknowledged write of every key (a later
// acknowledged delete removes it), so that after the run each can be read
// back: an endpoint that acknowledged a write and then lost it, during a
// fault or its recovery, shows here.
type Ledger struct {
	mu        sync.Mutex
	keys      map[ackKey]int64 // the size written
	untracked int64
}

// NewLedger returns an empty ledger.
func NewLedger() *Ledger { return &Ledger{keys: map[ackKey]int64{}} }

// For is the target.Config.Acked of the targets of one storage (store
// numbers the storages, as the caller's verification targets do).
func (l *Ledger) For(store int) func(op, bucket, key string, size int64) {
	return func(op, bucket, key string, size int64) {
		k := ackKey{store, bucket, key}
		l.mu.Lock()
		defer l.mu.Unlock()
		switch _, ok := l.keys[k]; {
		case op == "delete":
			delete(l.keys, k)
		case ok || len(l.keys) < MaxAcked:
			l.keys[k] = size
		default:
			l.untracked++
		}
	}
}

// Len is how many keys the ledger holds.
func (l *Ledger) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.keys)
}

// verifyWorkers read back at once; attempts and retryWait give an
// endpoint still recovering the time to answer, within retryFor of the
// check's start (an endpoint that stays away is not waited on for every
// key).
const (
	verifyWorkers = 8
	attempts      = 5
	retryWait     = time.Second
	retryFor      = time.Minute
)

// Verify reads back every key of the ledger through the target of its
// storage, checking each byte against what the generator writes for the
// key and the size against the size acknowledged. A 404 is a missing
// write; a 5xx or a request without an answer is retried a few times
// (during the check's first minute), and unreadable after that.
func (l *Ledger) Verify(ctx context.Context, targets func(store int) (*target.Target, error)) (*report.AckCheck, error) {
	l.mu.Lock()
	type entry struct {
		k    ackKey
		size int64
	}
	work := make(chan entry)
	n, untracked := len(l.keys), l.untracked
	entries := make([]entry, 0, n)
	for k, size := range l.keys {
		entries = append(entries, entry{k, size})
	}
	l.mu.Unlock()
	ts := map[int]*target.Target{}
	for _, e := range entries {
		if ts[e.k.store] == nil {
			t, err := targets(e.k.store)
			if err != nil {
				return nil, err
			}
			defer t.Close()
			ts[e.k.store] = t
		}
	}
	retryUntil := time.Now().Add(retryFor)
	var verified, missing, mismatched, unreadable atomic.Int64
	var lastErr atomic.Value
	var wg sync.WaitGroup
	for range verifyWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for e := range work {
				t := ts[e.k.store]
				var err error
				for a := 0; a < attempts; a++ {
					var res target.Result
					res, err = t.Get(ctx, e.k.bucket, e.k.key, -1, true)
					if err == nil && res.Bytes != e.size {
						err = payload.ErrMismatch
					}
					var se *target.Error
					retry := err != nil && !errors.Is(err, payload.ErrMismatch) && ctx.Err() == nil && time.Now().Before(retryUntil) &&
						(!errors.As(err, &se) || se.Status == http.StatusServiceUnavailable || se.Status >= 500)
					if !retry {
						break
					}
					select {
					case <-time.After(retryWait):
					case <-ctx.Done():
					}
				}
				var se *target.Error
				switch {
				case err == nil:
					verified.Add(1)
					continue
				case errors.Is(err, payload.ErrMismatch):
					mismatched.Add(1)
				case errors.As(err, &se) && se.Status == http.StatusNotFound:
					missing.Add(1)
				default:
					unreadable.Add(1)
				}
				lastErr.Store(e.k.bucket + "/" + e.k.key + ": " + err.Error())
			}
		}()
	}
	for _, e := range entries {
		select {
		case work <- e:
		case <-ctx.Done():
		}
	}
	close(work)
	wg.Wait()
	c := &report.AckCheck{Acknowledged: int64(n), Verified: verified.Load(), Missing: missing.Load(), Mismatched: mismatched.Load(),
		Unreadable: unreadable.Load(), Untracked: untracked}
	c.LastError, _ = lastErr.Load().(string)
	if err := ctx.Err(); err != nil {
		return c, err
	}
	return c, nil
}
