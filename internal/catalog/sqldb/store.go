// Package sqldb implements catalog.Store once over database/sql for every
// SQL driver. A driver supplies a Dialect (how its SQL differs) and a
// Writer (how it runs write transactions: SQLite batches many into one
// commit, PostgreSQL runs them side by side).
package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

var _ catalog.Store = (*Store)(nil)

// Dialect is what differs between SQL engines.
type Dialect struct {
	Name string
	// Bytes is the column type of binary names and keys.
	Bytes string
	// Serial is the column definition of an id the engine numbers.
	Serial string
	// ReadOnly, where set, is a query telling (true) that the server
	// takes no writes: a standby.
	ReadOnly string
	// Numbered placeholders ($1, $2, ...) instead of ?.
	Numbered bool
	// ForShare and ForUpdate lock rows read in a transaction; empty where a
	// single writer makes locks moot.
	ForShare, ForUpdate string
	// LockKey serialises writers of one object key within a transaction;
	// nil where a single writer makes it moot.
	LockKey func(ctx context.Context, tx *sql.Tx, hash int64) error
	// LockBucket, where set, keeps a bucket from being deleted while
	// writes into it are in flight (shared) or from being written while
	// it is deleted (exclusive), in place of a shared row lock on the
	// bucket's row: every writer of a bucket share-locking one row made
	// PostgreSQL write that row (a new multixact) on each write.
	LockBucket func(ctx context.Context, tx *sql.Tx, hash int64, exclusive bool) error
	// LockWrite, where set, takes a bucket's shared lock and then a
	// key's lock (LockBucket's and LockKey's) in one statement: a write
	// of one key needs both, and each statement is a round trip.
	LockWrite func(ctx context.Context, tx *sql.Tx, bucketHash, keyHash int64) error
	// WritableCTE says that the engine runs INSERT and UPDATE in WITH
	// (PostgreSQL), so that a PUT's demotion of the latest version, its
	// counting and its row go in one statement (putshort.go).
	WritableCTE bool
	// Notify, when set, runs in every transaction that advances the
	// identity generation, to tell other nodes at commit.
	Notify string
	// CachesStatements says that the driver prepares and caches each
	// statement on every connection itself (pgx's default exec mode,
	// cache_statement), so sqldb keeps no database/sql Stmts of its own.
	// Those need a free pool connection to be prepared, which a
	// transaction holding one of a full pool's connections waits for
	// forever; only a writer whose pool always has a spare (SQLite's
	// single group writer) may use them.
	CachesStatements bool
}

// Writer runs write transactions. fn may be called inside a transaction
// shared with other callers (SQLite's group commit); an error from fn undoes
// fn's changes only. A nil result means the changes are durable.
type Writer interface {
	Write(ctx context.Context, fn func(tx *sql.Tx) error) error
	// DB is the database the transactions run on.
	DB() *sql.DB
	Close() error
}

// Store is a catalog over a SQL database.
type Store struct {
	read    *sql.DB
	w       Writer
	rstmts  *stmts // prepared on read; nil if the driver caches statements
	wstmts  *stmts // prepared on w.DB(); nil likewise
	d       Dialect
	closeDB func() error
	shards  *shardPool // nil with a single writer

	mu    sync.RWMutex
	bound map[string]string // ?-form query -> dialect form
}

// New returns a Store reading through read and writing through w. closeDB
// releases the databases on Close, after the writer.
func New(read *sql.DB, w Writer, d Dialect, closeDB func() error, opts ...Option) *Store {
	s := &Store{read: read, w: w, d: d, closeDB: closeDB, bound: map[string]string{}}
	if d.LockKey != nil { // writers run side by side
		s.shards = newShardPool()
		s.w = shardWriter{w, s.shards}
	}
	if m := Apply(opts).Metrics; m != nil { // outermost: a wait for a shard counts
		s.w = timedWriter{s.w, m}
	}
	if !d.CachesStatements {
		s.rstmts, s.wstmts = newStmts(read), newStmts(w.DB())
	}
	return s
}

// Close stops the writer and closes the databases.
func (s *Store) Close() error {
	err := s.w.Close()
	s.rstmts.close()
	s.wstmts.close()
	if s.closeDB != nil {
		if cerr := s.closeDB(); err == nil {
			err = cerr
		}
	}
	return err
}

// q turns a query written with ? placeholders and {{forshare}} /
// {{forupdate}} markers into the dialect's form.
func (s *Store) q(query string) string {
	s.mu.RLock()
	b, ok := s.bound[query]
	s.mu.RUnlock()
	if ok {
		return b
	}
	b = strings.NewReplacer("{{forshare}}", s.d.ForShare, "{{forupdate}}", s.d.ForUpdate).Replace(query)
	if s.d.Numbered {
		var sb strings.Builder
		n := 0
		for _, c := range b {
			if c == '?' {
				n++
				sb.WriteString("$" + strconv.Itoa(n))
				continue
			}
			sb.WriteRune(c)
		}
		b = sb.String()
	}
	s.mu.Lock()
	s.bound[query] = b
	s.mu.Unlock()
	return b
}

// placeholders returns n comma-separated ? placeholders.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// lockKey serialises concurrent writers of one key, so that each sees the
// version the other committed and queues its blobs.
func (s *Store) lockKey(ctx context.Context, tx *sql.Tx, bucket, key string) error {
	if s.d.LockKey == nil {
		return nil
	}
	h := fnv.New64a()
	h.Write([]byte(bucket))
	h.Write([]byte{0})
	h.Write([]byte(key))
	return s.d.LockKey(ctx, tx, int64(h.Sum64()))
}

// lockBucket takes the bucket's lock where the dialect has one.
func (s *Store) lockBucket(ctx context.Context, tx *sql.Tx, bucket string, exclusive bool) error {
	if s.d.LockBucket == nil {
		return nil
	}
	h := fnv.New64a()
	h.Write([]byte(bucket))
	if err := s.d.LockBucket(ctx, tx, int64(h.Sum64()), exclusive); err != nil {
		return fmt.Errorf("sqldb: lock bucket: %w", err)
	}
	return nil
}

// enqueue queues blobs for collection.
func (s *Store) enqueue(ctx context.Context, tx *sql.Tx, ids []string) error {
	now := time.Now().UnixNano()
	for _, id := range ids {
		if _, err := s.exec(ctx, tx, s.q(`INSERT INTO gc_queue (blob_id, enqueued) VALUES (?, ?) ON CONFLICT (blob_id) DO NOTHING`), id, now); err != nil {
			return fmt.Errorf("queue blob %s: %w", id, err)
		}
	}
	return nil
}

func nanos(t time.Time) int64 { return t.UnixNano() }

func fromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }

// prefixEnd is the smallest key greater than every key starting with
// prefix, or nil if there is none (the prefix is empty or all 0xff).
func prefixEnd(prefix string) []byte {
	b := []byte(prefix)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return b[:i+1]
		}
	}
	return nil
}

// keyRange appends the WHERE conditions and arguments that select keys
// with prefix, after start (or from it, if inclusive).
func keyRange(col, prefix, start string, inclusive bool, args []any) (string, []any) {
	var cond strings.Builder
	if prefix != "" {
		cond.WriteString(" AND " + col + " >= ?")
		args = append(args, []byte(prefix))
		if end := prefixEnd(prefix); end != nil {
			cond.WriteString(" AND " + col + " < ?")
			args = append(args, end)
		}
	}
	if start != "" || inclusive {
		op := " > ?"
		if inclusive {
			op = " >= ?"
		}
		cond.WriteString(" AND " + col + op)
		args = append(args, []byte(start))
	}
	return cond.String(), args
}

func limit(n int) int {
	if n <= 0 || n > 10000 {
		return 10000
	}
	return n
}

// resumeFrom describes where a listing of rows ordered by (key, time, id)
// resumes.
type resumeFrom struct {
	table, timeCol, idCol string
	older                 bool // within a key, rows run newest first
	bucket, prefix        string
	key, id               string // resume after this row; id "" = after every row of key
	start                 string // with no key: from here
	inclusive             bool
}

// resume returns the WHERE conditions (after "bucket = ?") and arguments
// that select the rows after the marker. A marker row that no longer
// exists resumes after its whole key.
func (s *Store) resume(ctx context.Context, r resumeFrom) (string, []any, error) {
	args := []any{[]byte(r.bucket)}
	switch {
	case r.key == "":
		cond, args := keyRange("key", r.prefix, r.start, r.inclusive, args)
		return cond, args, nil
	case r.id == "":
		cond, args := keyRange("key", r.prefix, r.key, false, args)
		return cond, args, nil
	}
	var t int64
	err := s.row(ctx, nil, s.q(`SELECT `+r.timeCol+` FROM `+r.table+` WHERE bucket = ? AND key = ? AND `+r.idCol+` = ?`),
		[]byte(r.bucket), []byte(r.key), r.id).Scan(&t)
	if errors.Is(err, sql.ErrNoRows) {
		cond, args := keyRange("key", r.prefix, r.key, false, args)
		return cond, args, nil
	}
	if err != nil {
		return "", nil, err
	}
	cmp := ">"
	if r.older {
		cmp = "<"
	}
	cond, args := keyRange("key", r.prefix, r.key, true, args)
	cond += ` AND (key > ? OR ` + r.timeCol + ` ` + cmp + ` ? OR (` + r.timeCol + ` = ? AND ` + r.idCol + ` ` + cmp + ` ?))`
	return cond, append(args, []byte(r.key), t, t, r.id), nil
}

// errReadOnly: the server took the transaction but will not write.
var errReadOnly = errors.New("the catalog's server takes no writes (a standby, or read-only)")

func (s *Store) CanWrite(ctx context.Context) error {
	return wrap("probe writes", s.w.Write(ctx, func(tx *sql.Tx) error {
		if s.d.ReadOnly == "" {
			return nil
		}
		var ro bool
		if err := tx.QueryRowContext(ctx, s.d.ReadOnly).Scan(&ro); err != nil {
			return err
		}
		if ro {
			return errReadOnly
		}
		return nil
	}))
}
