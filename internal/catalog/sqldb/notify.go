package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/ostiumio/ostium/internal/catalog"
)

var _ catalog.NotifyTargets = (*Store)(nil)

const notifyTargetCols = `arn, kind, endpoint, subject, secret_sealed, tenants, created`

func scanNotifyTarget(sc interface{ Scan(...any) error }) (catalog.NotifyTarget, error) {
	var t catalog.NotifyTarget
	var tenants string
	var created int64
	err := sc.Scan(&t.ARN, &t.Kind, &t.Endpoint, &t.Subject, &t.SecretSealed, &tenants, &created)
	if tenants != "" {
		t.Tenants = strings.Split(tenants, ",")
	}
	t.CreatedAt = fromNanos(created)
	return t, err
}

func (s *Store) PutNotifyTarget(ctx context.Context, t catalog.NotifyTarget) error {
	secret := t.SecretSealed
	if secret == nil {
		secret = []byte{}
	}
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		if _, err := s.exec(ctx, tx, s.q(`DELETE FROM notify_targets WHERE arn = ?`), t.ARN); err != nil {
			return err
		}
		_, err := s.exec(ctx, tx, s.q(`INSERT INTO notify_targets (`+notifyTargetCols+`) VALUES (?, ?, ?, ?, ?, ?, ?)`),
			t.ARN, t.Kind, t.Endpoint, t.Subject, secret, strings.Join(t.Tenants, ","), nanos(t.CreatedAt))
		return err
	})
	return wrap("put notification target", err)
}

func (s *Store) NotifyTarget(ctx context.Context, arn string) (catalog.NotifyTarget, error) {
	t, err := scanNotifyTarget(s.row(ctx, nil, s.q(`SELECT `+notifyTargetCols+` FROM notify_targets WHERE arn = ?`), arn))
	if errors.Is(err, sql.ErrNoRows) {
		return t, catalog.ErrNoSuchNotifyTarget
	}
	return t, wrap("get notification target", err)
}

func (s *Store) ListNotifyTargets(ctx context.Context) ([]catalog.NotifyTarget, error) {
	return queryAll(ctx, s, "list notification targets", scanNotifyTarget, `SELECT `+notifyTargetCols+` FROM notify_targets ORDER BY arn`)
}

func (s *Store) DeleteNotifyTarget(ctx context.Context, arn string) error {
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		res, err := s.exec(ctx, tx, s.q(`DELETE FROM notify_targets WHERE arn = ?`), arn)
		return affected(res, err, catalog.ErrNoSuchNotifyTarget)
	})
	return wrap("delete notification target", err)
}
