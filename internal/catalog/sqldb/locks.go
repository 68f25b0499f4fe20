package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/objectlock"
)

var _ catalog.Locks = (*Store)(nil)

// lockColumns are a version's (or an upload's) lock as its row keeps
// it: mode, retain-until in nanoseconds (0: none), legal hold 0 or 1.
type lockColumns struct {
	mode  string
	until int64
	hold  int
}

func toLockColumns(l catalog.Lock) lockColumns {
	c := lockColumns{mode: string(l.Mode)}
	if l.Mode != "" {
		c.until = nanos(l.RetainUntil)
	}
	if l.LegalHold {
		c.hold = 1
	}
	return c
}

func (c lockColumns) lock() catalog.Lock {
	l := catalog.Lock{Mode: objectlock.Mode(c.mode), LegalHold: c.hold == 1}
	if c.mode != "" {
		l.RetainUntil = fromNanos(c.until)
	}
	return l
}

// mayRemove is the one check every removal of a version passes, in its
// transaction.
func mayRemove(o catalog.Object, opt catalog.DeleteOptions) error {
	if err := objectlock.MayRemove(o.Lock, opt.BypassGovernance, time.Now()); err != nil {
		return fmt.Errorf("%w: %s/%s version %s", catalog.ErrObjectLocked, o.Bucket, o.Key, o.VersionID)
	}
	return nil
}

// changeLock reads a version under its key's lock, lets change decide
// and alter its lock, and writes the lock back, with opt's events and
// status.
func (s *Store) changeLock(ctx context.Context, what, bucket, key, versionID string, opt catalog.ChangeOptions, change func(*catalog.Object) error) (catalog.Object, error) {
	var o catalog.Object
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		if err := s.lockKey(ctx, tx, bucket, key); err != nil {
			return fmt.Errorf("lock key: %w", err)
		}
		q, args := versionQuery(bucket, key, versionID)
		var err error
		o, err = scanObject(s.row(ctx, tx, s.q(q), args...), bucket, true)
		if errors.Is(err, sql.ErrNoRows) || err == nil && o.DeleteMarker {
			return catalog.ErrNoSuchObject
		}
		if err != nil {
			return err
		}
		if err := change(&o); err != nil {
			return err
		}
		c := toLockColumns(o.Lock)
		_, err = s.exec(ctx, tx, s.q(`UPDATE objects SET lock_mode = ?, retain_until = ?, legal_hold = ? WHERE bucket = ? AND key = ? AND version_id = ?`),
			c.mode, c.until, c.hold, []byte(bucket), []byte(key), o.VersionID)
		if err != nil {
			return err
		}
		if opt.Replication != "" && opt.Replication != o.Meta.Replication {
			o.Meta.Replication = opt.Replication
			meta, err := encodeMeta(o.Meta)
			if err != nil {
				return err
			}
			if _, err := s.exec(ctx, tx, s.q(`UPDATE objects SET meta = ? WHERE bucket = ? AND key = ? AND version_id = ?`),
				meta, []byte(bucket), []byte(key), o.VersionID); err != nil {
				return err
			}
		}
		return s.addEvents(ctx, tx, opt.Events, &o)
	})
	return o, wrap(what, err)
}

func (s *Store) SetRetention(ctx context.Context, bucket, key, versionID string, r objectlock.Retention, opt catalog.ChangeOptions) (catalog.Object, error) {
	return s.changeLock(ctx, "set retention", bucket, key, versionID, opt, func(o *catalog.Object) error {
		if err := objectlock.MayChange(o.Lock, r, opt.BypassGovernance, time.Now()); err != nil {
			return catalog.ErrObjectLocked
		}
		o.Lock.Mode, o.Lock.RetainUntil = r.Mode, r.Until
		if r.Mode == "" {
			o.Lock.RetainUntil = time.Time{}
		}
		return nil
	})
}

func (s *Store) SetLegalHold(ctx context.Context, bucket, key, versionID string, on bool, opt catalog.ChangeOptions) (catalog.Object, error) {
	return s.changeLock(ctx, "set legal hold", bucket, key, versionID, opt, func(o *catalog.Object) error {
		o.Lock.LegalHold = on
		return nil
	})
}

func (s *Store) HoldsLocked(ctx context.Context, bucket string, now time.Time) (bool, error) {
	var one int
	// The index objects_locked's own condition, repeated, lets both
	// engines use it: only locked rows are read, however large the bucket.
	err := s.row(ctx, nil, s.q(`SELECT 1 FROM objects WHERE bucket = ? AND (retain_until > 0 OR legal_hold = 1)
		AND (legal_hold = 1 OR retain_until > ?) LIMIT 1`),
		[]byte(bucket), nanos(now)).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("sqldb: locked versions of %s: %w", bucket, err)
	}
	return true, nil
}
