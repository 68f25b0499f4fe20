package workload

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/ostiumio/ostium/internal/bench/faults"
	"github.com/ostiumio/ostium/internal/bench/report"
	"github.com/ostiumio/ostium/internal/bench/target"
)

// faultRun is a run's fault schedule, its timeline, and the ledger of the
// writes its endpoints acknowledged.
type faultRun struct {
	ctx     context.Context // ends when a fatal fault fails
	session *faults.Session
	ledger  *faults.Ledger
	mu      sync.Mutex
	stores  []*Storage // numbered for the ledger
}

func startFaults(ctx context.Context, w *Workload, start time.Time) *faultRun {
	fr := &faultRun{session: faults.NewSession(w.Faults), ledger: faults.NewLedger()}
	fr.ctx = fr.session.Start(ctx, start)
	return fr
}

// acked is the Acked hook of a target of storage s.
func (fr *faultRun) acked(s *Storage) func(op, bucket, key string, size int64) {
	fr.mu.Lock()
	defer fr.mu.Unlock()
	for i, x := range fr.stores {
		if x == s {
			return fr.ledger.For(i)
		}
	}
	fr.stores = append(fr.stores, s)
	return fr.ledger.For(len(fr.stores) - 1)
}

// finish ends the schedule, then reads back every acknowledged write
// (through ctx, the caller's: a fatal fault does not stop the check).
func (fr *faultRun) finish(ctx context.Context, o Options) (*report.Availability, error) {
	a, fatal := fr.session.Finish()
	if ctx.Err() != nil { // stopped: nothing to read back with
		return a, fatal
	}
	o.faults = nil
	check, err := fr.ledger.Verify(ctx, func(i int) (*target.Target, error) {
		fr.mu.Lock()
		s := fr.stores[i]
		fr.mu.Unlock()
		return newTarget(s, o, "verify")
	})
	a.Acknowledged = check
	if err == nil {
		err = fatal
	} else {
		err = fmt.Errorf("reading back the acknowledged writes: %w", err)
	}
	return a, err
}
