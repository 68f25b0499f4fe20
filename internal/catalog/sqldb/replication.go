package sqldb

import (
	"context"
	"database/sql"
	"errors"

	"github.com/ostiumio/ostium/internal/catalog"
)

var _ catalog.ReplicationTargets = (*Store)(nil)

const targetCols = `tenant, name, endpoint, region, access_key, secret, shared, path_style, created`

func scanTarget(sc interface{ Scan(...any) error }) (catalog.ReplicationTarget, error) {
	var t catalog.ReplicationTarget
	var shared, pathStyle int
	var created int64
	err := sc.Scan(&t.Tenant, &t.Name, &t.Endpoint, &t.Region, &t.AccessKey, &t.SecretSealed, &shared, &pathStyle, &created)
	t.Shared, t.PathStyle, t.Created = shared != 0, pathStyle != 0, fromNanos(created)
	return t, err
}

func (s *Store) AddReplicationTarget(ctx context.Context, t catalog.ReplicationTarget) error {
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		if t.Tenant != "" {
			var one int
			err := s.row(ctx, tx, s.q(`SELECT 1 FROM tenants WHERE name = ?`), t.Tenant).Scan(&one)
			if errors.Is(err, sql.ErrNoRows) {
				return catalog.ErrNoSuchTenant
			}
			if err != nil {
				return err
			}
		}
		return s.insertOnce(ctx, tx, catalog.ErrReplicationTargetExists,
			`INSERT INTO replication_targets (`+targetCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
			t.Tenant, t.Name, t.Endpoint, t.Region, t.AccessKey, t.SecretSealed, boolInt(t.Shared), boolInt(t.PathStyle), nanos(t.Created))
	})
	return wrap("add replication target", err)
}

func (s *Store) GetReplicationTarget(ctx context.Context, tenant, name string) (catalog.ReplicationTarget, error) {
	t, err := scanTarget(s.row(ctx, nil, s.q(`SELECT `+targetCols+` FROM replication_targets WHERE tenant = ? AND name = ?`), tenant, name))
	if errors.Is(err, sql.ErrNoRows) {
		return t, catalog.ErrNoSuchReplicationTarget
	}
	return t, wrap("get replication target", err)
}

func (s *Store) ListReplicationTargets(ctx context.Context, tenant string) ([]catalog.ReplicationTarget, error) {
	return queryAll(ctx, s, "list replication targets", scanTarget,
		`SELECT `+targetCols+` FROM replication_targets WHERE tenant = ? ORDER BY name`, tenant)
}

func (s *Store) DeleteReplicationTarget(ctx context.Context, tenant, name string) error {
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		res, err := s.exec(ctx, tx, s.q(`DELETE FROM replication_targets WHERE tenant = ? AND name = ?`), tenant, name)
		return affected(res, err, catalog.ErrNoSuchReplicationTarget)
	})
	return wrap("delete replication target", err)
}

func (s *Store) SettleReplicationStatus(ctx context.Context, e catalog.Event, status string, events ...catalog.Event) error {
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		if err := s.lockKey(ctx, tx, e.Bucket, e.Key); err != nil {
			return err
		}
		var one int
		err := s.row(ctx, tx, s.q(`SELECT 1 FROM object_events WHERE sink = ? AND bucket = ? AND key = ? AND id > ? AND version_id = ? LIMIT 1`),
			e.Sink, []byte(e.Bucket), []byte(e.Key), e.ID, e.VersionID).Scan(&one)
		switch {
		case err == nil:
			return nil // a later change settles it
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		return s.updateMetaTx(ctx, tx, e.Bucket, e.Key, e.VersionID, catalog.ChangeOptions{Events: events}, func(m *catalog.Meta) { m.Replication = status })
	})
	return wrap("settle replication status", err)
}

func (s *Store) SetReplicationStatus(ctx context.Context, bucket, key, versionID, status string) error {
	return wrap("set replication status", s.updateMeta(ctx, bucket, key, versionID, catalog.ChangeOptions{}, func(m *catalog.Meta) { m.Replication = status }))
}
