// Package jobs runs the background work of a node: the collector deletes
// blobs the catalog has queued, the sweeper deletes blobs no record ever
// came to refer to (uploads cut short by a crash or a dropped client).
package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/ostiumio/ostium/internal/blob"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/metrics"
)

const batch = 1000

// Collector deletes the blobs that catalog transactions queued when they
// replaced or removed what referred to them.
type Collector struct {
	cat      catalog.Store
	blobs    blob.Store
	interval time.Duration
	metrics  *metrics.Jobs
}

// NewCollector returns a collector that runs every interval; m counts its
// passes (nil: none).
func NewCollector(cat catalog.Store, blobs blob.Store, interval time.Duration, m *metrics.Jobs) *Collector {
	return &Collector{cat: cat, blobs: blobs, interval: interval, metrics: m}
}

// RunOnce empties the queue as it stands now and returns how many blobs
// it deleted. A blob is dequeued only after its deletion succeeded, so a
// crash in between means deleting it again, which is harmless.
func (c *Collector) RunOnce(ctx context.Context) (int, error) {
	deleted := 0
	before := time.Now()
	for {
		pending, err := c.cat.GCPending(ctx, before, batch)
		if err != nil {
			return deleted, fmt.Errorf("collector: list queue: %w", err)
		}
		if len(pending) == 0 {
			return deleted, nil
		}
		ids := make([]string, 0, len(pending))
		for _, e := range pending {
			if err := c.blobs.Delete(ctx, e.BlobID); err != nil {
				return deleted, fmt.Errorf("collector: delete blob %s: %w", e.BlobID, err)
			}
			ids = append(ids, e.BlobID)
		}
		if err := c.cat.GCDone(ctx, ids); err != nil {
			return deleted, fmt.Errorf("collector: dequeue: %w", err)
		}
		deleted += len(ids)
	}
}

// Run calls RunOnce every interval until ctx is done.
func (c *Collector) Run(ctx context.Context) {
	every(ctx, c.interval, func() {
		n, err := c.RunOnce(ctx)
		c.metrics.Pass("collector", n, err)
		if err != nil {
			slog.Error("blob collection failed", "err", err, "deleted", n)
		} else if n > 0 {
			slog.Debug("blobs collected", "deleted", n)
		}
	})
}

// every runs fn at once and then every interval until ctx is done.
func every(ctx context.Context, interval time.Duration, fn func()) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		fn()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
