package sqldb

import (
	"context"
	"database/sql"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

func (s *Store) AcquireLease(ctx context.Context, name, holder string, ttl time.Duration) (bool, error) {
	now := time.Now()
	var got bool
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		res, err := s.exec(ctx, tx, s.q(`INSERT INTO leases (name, holder, expires) VALUES (?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires = excluded.expires
			WHERE leases.holder = excluded.holder OR leases.expires < ?`),
			name, holder, nanos(now.Add(ttl)), nanos(now))
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		got = n == 1
		return err
	})
	return got, wrap("acquire lease "+name, err)
}

func (s *Store) ReleaseLease(ctx context.Context, name, holder string) error {
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		_, err := s.exec(ctx, tx, s.q(`DELETE FROM leases WHERE name = ? AND holder = ?`), name, holder)
		return err
	})
	return wrap("release lease "+name, err)
}

func (s *Store) ListLeases(ctx context.Context) ([]catalog.Lease, error) {
	return queryAll(ctx, s, "list leases", func(sc interface{ Scan(...any) error }) (catalog.Lease, error) {
		var l catalog.Lease
		var expires int64
		err := sc.Scan(&l.Name, &l.Holder, &expires)
		l.Expires = fromNanos(expires)
		return l, err
	}, `SELECT name, holder, expires FROM leases ORDER BY name`)
}
