// Package postgres is the catalog driver for several nodes sharing one
// PostgreSQL database, through pgx. Writes are ordinary concurrent
// transactions (PostgreSQL groups their WAL flushes itself); row locks and
// per-key advisory locks order the writers that touch the same rows.
package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/catalog/sqldb"
)

var dialect = sqldb.Dialect{
	Name: "postgres", Bytes: "BYTEA", Serial: "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY", Numbered: true,
	ReadOnly: `SELECT pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on'`,
	ForShare: "FOR SHARE", ForUpdate: "FOR UPDATE",
	LockKey: func(ctx context.Context, tx *sql.Tx, hash int64) error {
		_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, hash)
		return err
	},
	// Buckets' locks are advisory locks of the two-int4 kind, a space of
	// their own apart from the keys' bigint ones.
	LockBucket: func(ctx context.Context, tx *sql.Tx, hash int64, exclusive bool) error {
		q := `SELECT pg_advisory_xact_lock_shared($1, $2)`
		if exclusive {
			q = `SELECT pg_advisory_xact_lock($1, $2)`
		}
		_, err := tx.ExecContext(ctx, q, int32(hash>>32), int32(hash))
		return err
	},
	// The bucket's lock first, as LockBucket then LockKey would take
	// them: PostgreSQL evaluates a select list in order.
	LockWrite: func(ctx context.Context, tx *sql.Tx, bucket, key int64) error {
		_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock_shared($1, $2), pg_advisory_xact_lock($3)`, int32(bucket>>32), int32(bucket), key)
		return err
	},
	WritableCTE: true,
	Notify:      `SELECT pg_notify('` + changesChannel + `', '')`,
	// pgx prepares each query on the connection that runs it, inside the
	// transaction's own connection, and keeps it there (512 per
	// connection, least recently used out).
	CachesStatements: true,
}

// changesChannel carries a notification at the commit of every change
// to what nodes cache (identities, quotas, buckets).
const changesChannel = "ostium_changes"

// DefaultMaxConns is a node's connection pool when none is configured.
const DefaultMaxConns = 32

// migrationLock is the advisory lock that lets one node at a time migrate.
const migrationLock = 0x6f737469756d // "ostium"

// Open connects to the database at url (postgres://...) and migrates it.
//
// maxConns bounds this process's connections (0 = DefaultMaxConns): every
// node sharing the catalog holds up to that many, so their sum must stay
// below PostgreSQL's max_connections (see deploy/README.md).
func Open(ctx context.Context, url string, maxConns int, opts ...sqldb.Option) (catalog.Store, error) {
	return open(ctx, url, maxConns, nil, opts...)
}

// open is Open with a tracer of every statement the pool's connections
// send (nil: none), for tests that count them.
func open(ctx context.Context, url string, maxConns int, tracer pgx.QueryTracer, opts ...sqldb.Option) (catalog.Store, error) {
	db, err := openDB(url, tracer)
	if err != nil {
		return nil, err
	}
	if maxConns <= 0 {
		maxConns = DefaultMaxConns
	}
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	if err := migrate(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	return &store{Store: sqldb.New(db, txWriter{db}, dialect, db.Close, opts...), url: url}, nil
}

// CheckURL parses a catalog URL as Open does, without connecting: what
// `ostium config validate` can tell of it. pgx leaves the password out of
// its errors.
func CheckURL(url string) error {
	db, err := openDB(url, nil)
	if err != nil {
		return err
	}
	return db.Close()
}

// openDB parses url into a pool that has not connected yet. sql.Open
// would leave the parsing to the first connection.
func openDB(url string, tracer pgx.QueryTracer) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	cfg.Tracer = tracer
	return stdlib.OpenDB(*cfg), nil
}

// store is the SQL catalog plus change notifications.
type store struct {
	*sqldb.Store
	url string
}

// WatchChanges calls fn at each change committed by any node, until ctx
// ends, over a connection of its own that LISTENs; it reconnects after a
// failure (changes in between are caught by the generation polling).
func (s *store) WatchChanges(ctx context.Context, fn func()) {
	for ctx.Err() == nil {
		err := s.listen(ctx, fn)
		if ctx.Err() != nil {
			return
		}
		slog.Warn("catalog change notifications interrupted", "err", err)
		fn() // whatever was missed
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

func (s *store) listen(ctx context.Context, fn func()) error {
	conn, err := pgx.Connect(ctx, s.url)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+changesChannel); err != nil {
		return err
	}
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return err
		}
		fn()
	}
}

func migrate(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("postgres: connect: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLock); err != nil {
		return fmt.Errorf("postgres: migration lock: %w", err)
	}
	if err := sqldb.Migrate(ctx, tx, dialect); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("postgres: commit migrations: %w", err)
	}
	return nil
}

// txWriter runs each write in its own READ COMMITTED transaction.
type txWriter struct{ db *sql.DB }

func (w txWriter) Write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("postgres: begin: %w", err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("postgres: commit: %w", err)
	}
	return nil
}

func (w txWriter) DB() *sql.DB { return w.db }

func (txWriter) Close() error { return nil }
