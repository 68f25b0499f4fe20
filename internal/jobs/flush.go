package jobs

import (
	"context"
	"log/slog"
	"time"
)

// FlushEvery calls flush every interval until ctx ends, and once more
// then (with 5 s of its own), so that a node stopped in order hands over
// what it held in memory. what names the flush in the log.
func FlushEvery(ctx context.Context, every time.Duration, what string, flush func(context.Context) error) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			if err := flush(fctx); err != nil {
				slog.Warn("final "+what+" flush failed", "err", err)
			}
			cancel()
			return
		case <-t.C:
			if err := flush(ctx); err != nil && ctx.Err() == nil {
				slog.Warn(what+" flush failed", "err", err)
			}
		}
	}
}
