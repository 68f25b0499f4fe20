package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

var (
	_ catalog.AuditLog = (*Store)(nil)
	_ catalog.RootKeys = (*Store)(nil)
)

// maxAuditField bounds what a caller can make the log keep of a field it
// chose (a claimed access key, a bucket name).
const maxAuditField = 1024

func clip(s string) string {
	if len(s) > maxAuditField {
		return s[:maxAuditField]
	}
	return s
}

func (s *Store) AppendAudit(ctx context.Context, e catalog.AuditEntry) (int64, error) {
	var id int64
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		// The row lock on the counter orders writers, so ids follow
		// commit order and a reader paging by id skips nothing.
		if _, err := s.exec(ctx, tx, s.q(`UPDATE audit_seq SET n = n + 1 WHERE id = 1`)); err != nil {
			return err
		}
		if err := s.row(ctx, tx, s.q(`SELECT n FROM audit_seq WHERE id = 1`)).Scan(&id); err != nil {
			return err
		}
		_, err := s.exec(ctx, tx, s.q(`INSERT INTO audit_log (id, at, access_key, tenant, user_name, root, action, target, source, outcome, status, request_id)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
			id, nanos(e.Time), clip(e.AccessKey), e.Tenant, e.User, boolInt(e.Root), e.Action, clip(e.Target), clip(e.Source),
			clip(e.Outcome), e.Status, clip(e.RequestID))
		return err
	})
	return id, wrap("append audit entry", err)
}

func (s *Store) ListAudit(ctx context.Context, q catalog.AuditQuery) ([]catalog.AuditEntry, error) {
	var cond strings.Builder
	args := []any{q.After}
	cond.WriteString(`id > ?`)
	if !q.From.IsZero() {
		cond.WriteString(` AND at >= ?`)
		args = append(args, nanos(q.From))
	}
	if !q.To.IsZero() {
		cond.WriteString(` AND at < ?`)
		args = append(args, nanos(q.To))
	}
	if q.Tenant != "" || q.Provider {
		cond.WriteString(` AND tenant = ?`)
		args = append(args, q.Tenant)
	}
	args = append(args, limit(q.Limit))
	return queryAll(ctx, s, "list audit entries", func(sc interface{ Scan(...any) error }) (catalog.AuditEntry, error) {
		var e catalog.AuditEntry
		var at int64
		var root int
		err := sc.Scan(&e.ID, &at, &e.AccessKey, &e.Tenant, &e.User, &root, &e.Action, &e.Target, &e.Source, &e.Outcome, &e.Status, &e.RequestID)
		e.Time, e.Root = fromNanos(at), root != 0
		return e, err
	}, `SELECT id, at, access_key, tenant, user_name, root, action, target, source, outcome, status, request_id
		FROM audit_log WHERE `+cond.String()+` ORDER BY id LIMIT ?`, args...)
}

func (s *Store) PruneAudit(ctx context.Context, before time.Time, n int) (int, error) {
	var gone int64
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		res, err := s.exec(ctx, tx, s.q(`DELETE FROM audit_log WHERE id IN
			(SELECT id FROM audit_log WHERE at < ? ORDER BY id LIMIT ?)`), nanos(before), limit(n))
		if err != nil {
			return err
		}
		gone, err = res.RowsAffected()
		return err
	})
	return int(gone), wrap("prune audit log", err)
}

func (s *Store) ReplaceStartKey(ctx context.Context, k catalog.AccessKey) error {
	kind, status := or(k.Kind, catalog.KeyUser), or(k.Status, catalog.KeyActive)
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		var owner string
		err := s.row(ctx, tx, s.q(`SELECT owner FROM access_keys WHERE access_key = ?`), k.AccessKey).Scan(&owner)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if _, err := s.exec(ctx, tx, s.q(`INSERT INTO access_keys (access_key, secret_sealed, owner, display_name, created, tenant, user_name, kind, status, expires, buckets, read_only, source)
				VALUES (?, ?, ?, ?, ?, '', 'root', ?, ?, ?, '', 0, ?)`),
				k.AccessKey, k.SecretSealed, k.Owner, k.DisplayName, nanos(k.CreatedAt), kind, status, expiry(k.Expires), k.Source); err != nil {
				return err
			}
		case err != nil:
			return err
		case owner != k.Owner:
			return catalog.ErrAccessKeyExists
		default:
			// A key given at start is the start key from now on,
			// whatever made it.
			if _, err := s.exec(ctx, tx, s.q(`UPDATE access_keys SET source = ? WHERE access_key = ?`), k.Source, k.AccessKey); err != nil {
				return err
			}
		}
		_, err = s.exec(ctx, tx, s.q(`DELETE FROM access_keys WHERE tenant = '' AND user_name = 'root' AND source = ? AND access_key <> ?`), k.Source, k.AccessKey)
		return err
	})
	return wrap("replace start key", err)
}
