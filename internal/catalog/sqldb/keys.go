package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/ostiumio/ostium/internal/catalog"
)

func (s *Store) PutAccessKey(ctx context.Context, k catalog.AccessKey) error {
	return s.w.Write(ctx, func(tx *sql.Tx) error {
		res, err := s.exec(ctx, tx, s.q(`INSERT INTO access_keys (access_key, secret_sealed, owner, display_name, created) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (access_key) DO NOTHING`), k.AccessKey, k.SecretSealed, k.Owner, k.DisplayName, nanos(k.CreatedAt))
		if err != nil {
			return fmt.Errorf("sqldb: put access key: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return catalog.ErrAccessKeyExists
		}
		return nil
	})
}

const keyCols = `access_key, secret_sealed, owner, display_name, created`

func scanKey(sc interface{ Scan(...any) error }) (catalog.AccessKey, error) {
	var k catalog.AccessKey
	var created int64
	err := sc.Scan(&k.AccessKey, &k.SecretSealed, &k.Owner, &k.DisplayName, &created)
	k.CreatedAt = fromNanos(created)
	return k, err
}

func (s *Store) GetAccessKey(ctx context.Context, accessKey string) (catalog.AccessKey, error) {
	k, err := scanKey(s.row(ctx, nil, s.q(`SELECT `+keyCols+` FROM access_keys WHERE access_key = ?`), accessKey))
	if errors.Is(err, sql.ErrNoRows) {
		return k, catalog.ErrNoSuchAccessKey
	}
	if err != nil {
		return k, fmt.Errorf("sqldb: get access key: %w", err)
	}
	return k, nil
}

func (s *Store) ListAccessKeys(ctx context.Context, owner string) ([]catalog.AccessKey, error) {
	rows, err := s.read.QueryContext(ctx, s.q(`SELECT `+keyCols+` FROM access_keys WHERE owner = ? ORDER BY access_key`), owner)
	if err != nil {
		return nil, fmt.Errorf("sqldb: list access keys: %w", err)
	}
	defer rows.Close()
	var out []catalog.AccessKey
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, fmt.Errorf("sqldb: list access keys: %w", err)
		}
		out = append(out, k)
	}
	return out, rows.Err()
}
