package sqldb

import (
	"context"
	"database/sql"
	"sync"
	"time"
)

// stmts holds statements prepared once and reused: parsing SQL was a fifth
// of the CPU of a small PUT. database/sql prepares a Stmt again on each
// connection it meets, so one Stmt per query serves the whole pool.
type stmts struct {
	db *sql.DB
	mu sync.Mutex
	m  map[string]*sql.Stmt
	// preparing counts the background prepares: close waits for them, as
	// one may be opening a connection (for SQLite, creating files beside
	// the database) that the database's own Close does not wait for.
	preparing sync.WaitGroup
	stop      context.CancelFunc
	stopped   context.Context
}

func newStmts(db *sql.DB) *stmts {
	ctx, cancel := context.WithCancel(context.Background())
	return &stmts{db: db, m: map[string]*sql.Stmt{}, stop: cancel, stopped: ctx}
}

// get returns the statement for query, or nil while it is being prepared
// or when c is nil (the driver caches statements itself); the caller then
// runs the query unprepared. Preparing takes a connection of the pool: a
// caller inside a transaction already holds one, and with every
// connection so held, waiting for another (or for a lock held by who
// waits) would never end; so statements are prepared in the background.
func (c *stmts) get(query string) *sql.Stmt {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.m[query]; ok || c.m == nil {
		return st // nil while being prepared
	}
	c.m[query] = nil
	c.preparing.Add(1)
	go func() {
		defer c.preparing.Done()
		ctx, cancel := context.WithTimeout(c.stopped, time.Minute)
		defer cancel()
		st, err := c.db.PrepareContext(ctx, query)
		c.mu.Lock()
		defer c.mu.Unlock()
		switch {
		case c.m == nil: // closed meanwhile
			if st != nil {
				st.Close()
			}
		case err != nil:
			delete(c.m, query) // tried again on next use; the query reports the error
		default:
			c.m[query] = st
		}
	}()
	return nil
}

func (c *stmts) close() {
	if c == nil {
		return
	}
	c.stop()
	c.mu.Lock()
	for _, st := range c.m {
		if st != nil {
			st.Close()
		}
	}
	c.m = nil
	c.mu.Unlock()
	c.preparing.Wait()
}

// exec runs a fixed statement within tx.
func (s *Store) exec(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	if st := s.wstmts.get(query); st != nil {
		return tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return tx.ExecContext(ctx, query, args...)
}

// row runs a fixed single-row query within tx, or on the read pool when tx
// is nil.
func (s *Store) row(ctx context.Context, tx *sql.Tx, query string, args ...any) *sql.Row {
	if tx == nil {
		if st := s.rstmts.get(query); st != nil {
			return st.QueryRowContext(ctx, args...)
		}
		return s.read.QueryRowContext(ctx, query, args...)
	}
	if st := s.wstmts.get(query); st != nil {
		return tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return tx.QueryRowContext(ctx, query, args...)
}
