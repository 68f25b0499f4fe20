// Package sqlite is the embedded catalog driver: a SQLite database file
// through the pure-Go modernc.org/sqlite, in WAL mode with
// synchronous=FULL, so that a committed write survives power loss.
//
// SQLite allows one writer at a time and a durable commit costs a device
// flush, so one transaction per request would cap writes at the disk's
// flush rate. All writes therefore go through one goroutine that commits
// whatever requests are waiting as one transaction (group commit), each
// request inside its own savepoint. Reads use a separate pool: WAL lets
// them run beside the writer.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/catalog/sqldb"
)

var dialect = sqldb.Dialect{Name: "sqlite", Bytes: "BLOB", Serial: "INTEGER PRIMARY KEY AUTOINCREMENT"}

// Open opens (creating if needed) the catalog in the file at path.
func Open(ctx context.Context, path string, opts ...sqldb.Option) (catalog.Store, error) {
	if err := private(path); err != nil {
		return nil, err
	}
	dsn := func(extra string) string {
		v := url.Values{}
		for _, p := range []string{"journal_mode(WAL)", "synchronous(FULL)", "busy_timeout(10000)", "foreign_keys(OFF)"} {
			v.Add("_pragma", p)
		}
		return "file:" + path + "?" + v.Encode() + extra
	}
	wdb, err := sql.Open("sqlite", dsn("&_txlock=immediate"))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	// One connection writes (only the group writer begins transactions);
	// a second lets statements be prepared while a batch holds the first.
	wdb.SetMaxOpenConns(2)
	wdb.SetMaxIdleConns(2)
	wdb.SetConnMaxLifetime(0)
	tx, err := wdb.BeginTx(ctx, nil)
	if err == nil {
		if err = sqldb.Migrate(ctx, tx, dialect); err == nil {
			err = tx.Commit()
		} else {
			tx.Rollback()
		}
	}
	if err != nil {
		wdb.Close()
		return nil, fmt.Errorf("sqlite: prepare %s: %w", path, err)
	}
	rdb, err := sql.Open("sqlite", dsn("&mode=ro"))
	if err != nil {
		wdb.Close()
		return nil, fmt.Errorf("sqlite: open %s for reading: %w", path, err)
	}
	rdb.SetMaxOpenConns(8)
	rdb.SetMaxIdleConns(8)
	closeDBs := func() error {
		rerr := rdb.Close()
		if werr := wdb.Close(); werr != nil {
			return werr
		}
		return rerr
	}
	return sqldb.New(rdb, newGroupWriter(wdb, sqldb.Apply(opts).Metrics), dialect, closeDBs, opts...), nil
}

// private makes the database and its WAL and shared-memory files the
// owner's alone (0600), whatever the umask. SQLite creates a new database
// 0644 less the umask and gives -wal and -shm the database's mode, so
// creating the database 0600 first is what keeps all three private; files
// left looser by an older version are tightened.
func private(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("sqlite: create %s: %w", path, err)
	}
	f.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		fi, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("sqlite: %w", err)
		}
		if fi.Mode().Perm()&0o077 == 0 {
			continue
		}
		if err := os.Chmod(p, 0o600); err != nil {
			return fmt.Errorf("sqlite: %s has mode %v, readable by others, and cannot be made 0600: %w", p, fi.Mode().Perm(), err)
		}
		slog.Warn("sqlite: others could read this catalog file; made it 0600", "path", p, "was", fi.Mode().Perm().String())
	}
	return nil
}
