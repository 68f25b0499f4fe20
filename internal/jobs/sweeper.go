package jobs

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ostiumio/ostium/internal/blob"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/metrics"
)

// Sweeper deletes blobs that no catalog record refers to and that are older
// than a grace period. The grace protects writes in flight: a blob being
// written now is in no record yet, and must not be taken for debris.
type Sweeper struct {
	cat      catalog.Store
	blobs    blob.Store
	interval time.Duration
	grace    time.Duration
	metrics  *metrics.Jobs
}

// NewSweeper returns a sweeper that runs every interval and spares blobs
// younger than grace; m counts its passes (nil: none).
func NewSweeper(cat catalog.Store, blobs blob.Store, interval, grace time.Duration, m *metrics.Jobs) *Sweeper {
	return &Sweeper{cat: cat, blobs: blobs, interval: interval, grace: grace, metrics: m}
}

const sweepBatch = 500

// RunOnce walks the blob store once and returns how many blobs it removed.
// Blobs queued for collection count as referenced: only the collector
// deletes those.
func (s *Sweeper) RunOnce(ctx context.Context) (int, error) {
	cutoff := time.Now().Add(-s.grace)
	removed := 0
	var candidates []string
	flush := func() error {
		if len(candidates) == 0 {
			return nil
		}
		refs, err := s.cat.Referenced(ctx, candidates)
		if err != nil {
			return fmt.Errorf("sweeper: check references: %w", err)
		}
		for _, id := range candidates {
			if refs[id] {
				continue
			}
			if err := s.blobs.Delete(ctx, id); err != nil {
				return fmt.Errorf("sweeper: delete blob %s: %w", id, err)
			}
			removed++
		}
		candidates = candidates[:0]
		return nil
	}
	err := s.blobs.Walk(ctx, func(in blob.Info) error {
		if in.ModTime.After(cutoff) || idTime(in.ID).After(cutoff) {
			return nil
		}
		candidates = append(candidates, in.ID)
		if len(candidates) >= sweepBatch {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	return removed, err
}

// idTime is when a blob id was made: its NewID part (the last 32 digits,
// after any platform and namespace) starts with 8 bytes of nanoseconds.
// An id that does not parse counts as made now, so it is never swept.
func idTime(id string) time.Time {
	id = id[max(0, len(id)-32):]
	b, err := hex.DecodeString(id[:min(16, len(id))])
	if err != nil || len(b) != 8 {
		return time.Now()
	}
	return time.Unix(0, int64(binary.BigEndian.Uint64(b)))
}

// Run calls RunOnce every interval until ctx is done.
func (s *Sweeper) Run(ctx context.Context) {
	every(ctx, s.interval, func() {
		n, err := s.RunOnce(ctx)
		s.metrics.Pass("sweeper", n, err)
		switch {
		case err != nil && !errors.Is(err, context.Canceled):
			slog.Error("blob sweep failed", "err", err, "removed", n)
		case n > 0:
			slog.Info("unreferenced blobs swept", "removed", n)
		}
	})
}
