package sqldb

import (
	"context"
	"database/sql"
	"sync"
)

// stmts holds statements prepared once and reused: parsing SQL was a fifth
// of the CPU of a small PUT. database/sql prepares a Stmt again on each
// connection it meets, so one Stmt per query serves the whole pool.
type stmts struct {
	db *sql.DB
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

func newStmts(db *sql.DB) *stmts { return &stmts{db: db, m: map[string]*sql.Stmt{}} }

// get returns the statement for query, or nil if it cannot be prepared
// (the caller then runs the query unprepared and reports its error) or c
// is nil (the driver caches statements itself).
func (c *stmts) get(ctx context.Context, query string) *sql.Stmt {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.m[query]; ok {
		return st
	}
	st, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil
	}
	c.m[query] = st
	return st
}

func (c *stmts) close() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		st.Close()
	}
	c.m = nil
}

// exec runs a fixed statement within tx.
func (s *Store) exec(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	if st := s.wstmts.get(ctx, query); st != nil {
		return tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return tx.ExecContext(ctx, query, args...)
}

// row runs a fixed single-row query within tx, or on the read pool when tx
// is nil.
func (s *Store) row(ctx context.Context, tx *sql.Tx, query string, args ...any) *sql.Row {
	if tx == nil {
		if st := s.rstmts.get(ctx, query); st != nil {
			return st.QueryRowContext(ctx, args...)
		}
		return s.read.QueryRowContext(ctx, query, args...)
	}
	if st := s.wstmts.get(ctx, query); st != nil {
		return tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return tx.QueryRowContext(ctx, query, args...)
}
