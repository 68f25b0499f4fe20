package sqldb

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/ostiumio/ostium/internal/metrics"
)

// Option tunes a Store as a driver opens it.
type Option func(*Options)

// Options are what the Options given to a driver set.
type Options struct {
	Metrics *metrics.Catalog
}

// WithMetrics times the Store's write transactions (and, for SQLite, its
// group commits) in m.
func WithMetrics(m *metrics.Catalog) Option { return func(o *Options) { o.Metrics = m } }

// Apply gathers opts, for a driver that needs them itself.
func Apply(opts []Option) Options {
	var o Options
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// timedWriter times each write transaction from its call to its durable
// commit, so a wait for the writer counts as the caller sees it.
type timedWriter struct {
	Writer
	m *metrics.Catalog
}

func (w timedWriter) Write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	start := time.Now()
	err := w.Writer.Write(ctx, fn)
	w.m.Write(start, err)
	return err
}

// Pools returns the database/sql pools the Store reads and writes through
// (one and the same for PostgreSQL), for their statistics.
func (s *Store) Pools() (read, write *sql.DB) { return s.read, s.w.DB() }

// GCBacklog tells how many blobs wait for the collector and how long the
// oldest has waited (0 when none).
func (s *Store) GCBacklog(ctx context.Context) (n int64, oldest time.Duration, err error) {
	var first sql.NullInt64
	err = s.read.QueryRowContext(ctx, `SELECT COUNT(*), MIN(enqueued) FROM gc_queue`).Scan(&n, &first)
	if err != nil {
		return 0, 0, fmt.Errorf("sqldb: gc backlog: %w", err)
	}
	if first.Valid {
		oldest = max(time.Since(fromNanos(first.Int64)), 0)
	}
	return n, oldest, nil
}
