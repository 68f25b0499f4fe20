package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/metrics"
)

// LeaseTTL is how long a job's lease lasts without renewal: how soon
// another node takes a job over from a node that died.
const LeaseTTL = 15 * time.Second

// Leased runs job while holder holds the lease name, so that of the nodes
// sharing a catalog one runs it at a time. It tries to take the lease
// every ttl/3, renews it as often while it holds it, stops the job when
// renewal fails or does not answer within ttl/3 (another node may take
// over once the lease expires), and
// gives the lease up when ctx ends. m tells whether this node holds the
// lease (nil: nothing).
func Leased(ctx context.Context, leases catalog.Leases, name, holder string, ttl time.Duration, job func(context.Context), m *metrics.Jobs) {
	var stop func() // set while the job runs
	t := time.NewTicker(ttl / 3)
	defer t.Stop()
	for {
		held, err := acquire(ctx, leases, name, holder, ttl)
		switch {
		case err != nil && ctx.Err() == nil:
			slog.Warn("job lease", "job", name, "err", err)
			held = false
		case held && stop == nil:
			slog.Info("job lease taken", "job", name, "holder", holder)
			stop = start(ctx, job)
		}
		if !held && stop != nil {
			slog.Warn("job lease lost", "job", name, "holder", holder)
			stop()
			stop = nil
		}
		m.Lease(name, stop != nil)
		select {
		case <-ctx.Done():
			m.Lease(name, false)
			if stop != nil {
				stop()
			}
			rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			leases.ReleaseLease(rctx, name, holder)
			cancel()
			return
		case <-t.C:
		}
	}
}

// acquire takes or renews the lease within a third of its ttl. A catalog
// that does not answer (a network cut, a primary gone without closing
// its connections) must not hold the renewal past the lease's expiry
// while the job runs on: another node takes the lease then. Given up
// after a third, the job stops with a third of the ttl to spare.
func acquire(ctx context.Context, leases catalog.Leases, name, holder string, ttl time.Duration) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, ttl/3)
	defer cancel()
	return leases.AcquireLease(ctx, name, holder, ttl)
}

// start runs job until the returned stop is called, which waits for it.
func start(ctx context.Context, job func(context.Context)) (stop func()) {
	jctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); job(jctx) }()
	return func() { cancel(); <-done }
}
