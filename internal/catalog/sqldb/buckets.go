package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/ostiumio/ostium/internal/catalog"
)

func (s *Store) CreateBucket(ctx context.Context, b catalog.Bucket) error {
	return s.w.Write(ctx, func(tx *sql.Tx) error {
		res, err := s.exec(ctx, tx, s.q(`INSERT INTO buckets (name, owner, region, created) VALUES (?, ?, ?, ?) ON CONFLICT (name) DO NOTHING`),
			[]byte(b.Name), b.Owner, b.Region, nanos(b.CreatedAt))
		if err != nil {
			return fmt.Errorf("sqldb: create bucket: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return catalog.ErrBucketExists
		}
		return nil
	})
}

func (s *Store) GetBucket(ctx context.Context, name string) (catalog.Bucket, error) {
	b := catalog.Bucket{Name: name}
	var created int64
	err := s.row(ctx, nil, s.q(`SELECT owner, region, created FROM buckets WHERE name = ?`), []byte(name)).
		Scan(&b.Owner, &b.Region, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return b, catalog.ErrNoSuchBucket
	}
	if err != nil {
		return b, fmt.Errorf("sqldb: get bucket: %w", err)
	}
	b.CreatedAt = fromNanos(created)
	return b, nil
}

func (s *Store) ListBuckets(ctx context.Context, owner string) ([]catalog.Bucket, error) {
	query, args := `SELECT name, owner, region, created FROM buckets`, []any{}
	if owner != "" {
		query += ` WHERE owner = ?`
		args = append(args, owner)
	}
	rows, err := s.read.QueryContext(ctx, s.q(query+` ORDER BY name`), args...)
	if err != nil {
		return nil, fmt.Errorf("sqldb: list buckets: %w", err)
	}
	defer rows.Close()
	var out []catalog.Bucket
	for rows.Next() {
		var b catalog.Bucket
		var name []byte
		var created int64
		if err := rows.Scan(&name, &b.Owner, &b.Region, &created); err != nil {
			return nil, fmt.Errorf("sqldb: list buckets: %w", err)
		}
		b.Name, b.CreatedAt = string(name), fromNanos(created)
		out = append(out, b)
	}
	return out, rows.Err()
}

func (s *Store) DeleteBucket(ctx context.Context, name string) error {
	return s.w.Write(ctx, func(tx *sql.Tx) error {
		var one int
		err := s.row(ctx, tx, s.q(`SELECT 1 FROM buckets WHERE name = ? {{forupdate}}`), []byte(name)).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return catalog.ErrNoSuchBucket
		}
		if err != nil {
			return fmt.Errorf("sqldb: delete bucket: %w", err)
		}
		for _, q := range []string{`SELECT 1 FROM objects WHERE bucket = ? LIMIT 1`, `SELECT 1 FROM uploads WHERE bucket = ? LIMIT 1`} {
			err := s.row(ctx, tx, s.q(q), []byte(name)).Scan(&one)
			if err == nil {
				return catalog.ErrBucketNotEmpty
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("sqldb: delete bucket: %w", err)
			}
		}
		if _, err := s.exec(ctx, tx, s.q(`DELETE FROM buckets WHERE name = ?`), []byte(name)); err != nil {
			return fmt.Errorf("sqldb: delete bucket: %w", err)
		}
		return nil
	})
}

// bucketExists checks, inside a write, that the bucket is there and keeps
// it there (a shared lock where the engine has them) until commit.
func (s *Store) bucketExists(ctx context.Context, tx *sql.Tx, name string) error {
	var one int
	err := s.row(ctx, tx, s.q(`SELECT 1 FROM buckets WHERE name = ? {{forshare}}`), []byte(name)).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return catalog.ErrNoSuchBucket
	}
	if err != nil {
		return fmt.Errorf("sqldb: check bucket: %w", err)
	}
	return nil
}
