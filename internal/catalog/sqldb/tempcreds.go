package sqldb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

var _ catalog.TempCreds = (*Store)(nil)

func (s *Store) PutTempCred(ctx context.Context, se catalog.TempCred) error {
	tags := ""
	if len(se.Tags) > 0 {
		b, err := json.Marshal(se.Tags)
		if err != nil {
			return fmt.Errorf("sqldb: put temporary credentials: %w", err)
		}
		tags = string(b)
	}
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		return s.insertOnce(ctx, tx, catalog.ErrAccessKeyExists,
			`INSERT INTO temp_creds (access_key, secret_sealed, token_hash, tenant, user_name, owner, role_name, session_name, policy, tags, created, expires)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (access_key) DO NOTHING`,
			se.AccessKey, se.SecretSealed, se.TokenHash, se.Tenant, se.User, se.Owner, se.RoleName, se.SessionName,
			se.Policy, tags, nanos(se.Created), nanos(se.Expires))
	})
	return wrap("put temporary credentials", err)
}

func (s *Store) GetTempCred(ctx context.Context, accessKey string) (catalog.TempCred, error) {
	var se catalog.TempCred
	var tags string
	var created, expires int64
	err := s.row(ctx, nil, s.q(`SELECT access_key, secret_sealed, token_hash, tenant, user_name, owner, role_name, session_name, policy, tags, created, expires
		FROM temp_creds WHERE access_key = ?`), accessKey).Scan(&se.AccessKey, &se.SecretSealed, &se.TokenHash, &se.Tenant, &se.User,
		&se.Owner, &se.RoleName, &se.SessionName, &se.Policy, &tags, &created, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return se, catalog.ErrNoSuchTempCred
	}
	if err != nil {
		return se, wrap("get temporary credentials", err)
	}
	se.Created, se.Expires = fromNanos(created), fromNanos(expires)
	if tags != "" {
		if err := json.Unmarshal([]byte(tags), &se.Tags); err != nil {
			return se, fmt.Errorf("sqldb: temporary credentials %s: tags: %w", accessKey, err)
		}
	}
	return se, nil
}

func (s *Store) DeleteExpiredTempCreds(ctx context.Context, before time.Time) (int, error) {
	var n int
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		res, err := s.exec(ctx, tx, s.q(`DELETE FROM temp_creds WHERE expires < ?`), nanos(before))
		if err != nil {
			return err
		}
		d, err := res.RowsAffected()
		n = int(d)
		return err
	})
	return n, wrap("delete expired temporary credentials", err)
}
