package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/ostiumio/ostium/internal/metrics"
)

// maxBatch bounds how many requests share one commit, so that one commit
// never holds the write lock for long.
const maxBatch = 256

// request is one caller's write, waiting for its batch's commit.
type request struct {
	ctx  context.Context
	fn   func(tx *sql.Tx) error
	done chan error
}

// groupWriter commits concurrent writes together: it takes every request
// waiting, runs each in a savepoint of one transaction and commits once.
type groupWriter struct {
	db      *sql.DB
	queue   chan request
	stopped chan struct{}
	metrics *metrics.Catalog
}

var errClosed = errors.New("sqlite: catalog closed")

func newGroupWriter(db *sql.DB, m *metrics.Catalog) *groupWriter {
	g := &groupWriter{db: db, queue: make(chan request, maxBatch), stopped: make(chan struct{}), metrics: m}
	go g.loop()
	return g
}

// Write queues fn and waits for the commit of the batch that ran it.
func (g *groupWriter) Write(ctx context.Context, fn func(tx *sql.Tx) error) (err error) {
	r := request{ctx: ctx, fn: fn, done: make(chan error, 1)}
	defer func() {
		if v := recover(); v != nil { // send on the closed queue
			err = errClosed
		}
	}()
	select {
	case g.queue <- r:
	case <-ctx.Done():
		return ctx.Err()
	}
	// Once queued, wait for the outcome even if ctx ends: the write may
	// already be committed, and the caller must not be told otherwise.
	return <-r.done
}

func (g *groupWriter) DB() *sql.DB { return g.db }

// Close stops the writer after the requests already queued.
func (g *groupWriter) Close() error {
	close(g.queue)
	<-g.stopped
	return nil
}

func (g *groupWriter) loop() {
	defer close(g.stopped)
	batch := make([]request, 0, maxBatch)
	for r := range g.queue {
		batch = append(batch[:0], r)
	fill:
		for len(batch) < maxBatch {
			select {
			case r, ok := <-g.queue:
				if !ok {
					break fill
				}
				batch = append(batch, r)
			default:
				break fill
			}
		}
		g.metrics.Batch(len(batch))
		g.commit(batch)
	}
}

// commit runs a batch in one transaction. A request whose fn fails is
// rolled back to its savepoint alone; if the commit itself fails, every
// request in the batch fails.
func (g *groupWriter) commit(batch []request) {
	results := make([]error, len(batch))
	fail := func(err error) {
		for _, r := range batch {
			r.done <- err
		}
	}
	ctx := context.Background() // the batch outlives any one caller
	tx, err := g.db.BeginTx(ctx, nil)
	if err != nil {
		fail(fmt.Errorf("sqlite: begin: %w", err))
		return
	}
	for i, r := range batch {
		if err := r.ctx.Err(); err != nil {
			results[i] = err
			continue
		}
		results[i] = g.run(ctx, tx, r)
	}
	if err := tx.Commit(); err != nil {
		fail(fmt.Errorf("sqlite: commit: %w", err))
		return
	}
	for i, r := range batch {
		r.done <- results[i]
	}
}

func (g *groupWriter) run(ctx context.Context, tx *sql.Tx, r request) (err error) {
	if _, err := tx.ExecContext(ctx, "SAVEPOINT w"); err != nil {
		return fmt.Errorf("sqlite: savepoint: %w", err)
	}
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("sqlite: write panicked: %v", v)
		}
		if err != nil {
			if _, rerr := tx.ExecContext(ctx, "ROLLBACK TO w"); rerr != nil {
				err = errors.Join(err, fmt.Errorf("sqlite: rollback to savepoint: %w", rerr))
			}
		}
		if _, rerr := tx.ExecContext(ctx, "RELEASE w"); rerr != nil && err == nil {
			err = fmt.Errorf("sqlite: release savepoint: %w", rerr)
		}
	}()
	// fn runs with the caller's context for its statements' values only;
	// the transaction itself belongs to the batch.
	return r.fn(tx)
}
