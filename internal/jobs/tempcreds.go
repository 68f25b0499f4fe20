package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

// ExpiredTempCredRetention is how long temporary credentials stay in the
// catalog after they expire: while they do, a request signed with them
// is told its token expired (ExpiredToken) rather than that the key is
// unknown, which is what clients refresh their credentials on.
const ExpiredTempCredRetention = time.Hour

// TempCredPruner deletes temporary credentials that expired more than
// Retention ago.
type TempCredPruner struct {
	Creds     catalog.TempCreds
	Retention time.Duration
	Interval  time.Duration
}

// RunOnce deletes what has expired by now less Retention and reports how
// many went.
func (p TempCredPruner) RunOnce(ctx context.Context, now time.Time) (int, error) {
	return p.Creds.DeleteExpiredTempCreds(ctx, now.Add(-p.Retention))
}

// Run prunes every interval until ctx ends.
func (p TempCredPruner) Run(ctx context.Context) {
	t := time.NewTicker(p.Interval)
	defer t.Stop()
	for {
		switch n, err := p.RunOnce(ctx, time.Now()); {
		case err != nil && ctx.Err() == nil:
			slog.Warn("temporary credentials pruner", "err", err)
		case n > 0:
			slog.Info("expired temporary credentials deleted", "credentials", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
