package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

// ExpiredKeyRetention is how long an expired access key stays listed
// after its expiry (a share link's credential, a key rotated out with
// grace) before the key pruner deletes it: long enough for its owner to
// see it expired, or for an admin to give it a new expiry.
const ExpiredKeyRetention = 7 * 24 * time.Hour

// KeyPruner deletes access keys that expired more than retention ago.
type KeyPruner struct {
	Keys      catalog.Identities
	Retention time.Duration
	Interval  time.Duration
}

// RunOnce deletes what has expired by now and reports how many keys went.
func (p KeyPruner) RunOnce(ctx context.Context, now time.Time) (int, error) {
	return p.Keys.DeleteExpiredAccessKeys(ctx, now.Add(-p.Retention))
}

// Run prunes every interval until ctx ends.
func (p KeyPruner) Run(ctx context.Context) {
	t := time.NewTicker(p.Interval)
	defer t.Stop()
	for {
		switch n, err := p.RunOnce(ctx, time.Now()); {
		case err != nil && ctx.Err() == nil:
			slog.Warn("key pruner", "err", err)
		case n > 0:
			slog.Info("expired access keys deleted", "keys", n, "expired_before", time.Now().Add(-p.Retention).UTC().Format(time.RFC3339))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
