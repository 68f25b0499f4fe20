package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

// changed advances the identity generation inside tx.
func (s *Store) changed(ctx context.Context, tx *sql.Tx) error {
	if _, err := s.exec(ctx, tx, s.q(`UPDATE identity_generation SET gen = gen + 1 WHERE id = 1`)); err != nil {
		return fmt.Errorf("sqldb: advance identity generation: %w", err)
	}
	if s.d.Notify != "" {
		if _, err := s.exec(ctx, tx, s.d.Notify); err != nil {
			return fmt.Errorf("sqldb: notify change: %w", err)
		}
	}
	return nil
}

// identityWrite runs fn in a write transaction that also advances the
// identity generation.
func (s *Store) identityWrite(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return s.w.Write(ctx, func(tx *sql.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		return s.changed(ctx, tx)
	})
}

func (s *Store) IdentityGeneration(ctx context.Context) (int64, error) {
	var gen int64
	if err := s.row(ctx, nil, s.q(`SELECT gen FROM identity_generation WHERE id = 1`)).Scan(&gen); err != nil {
		return 0, fmt.Errorf("sqldb: identity generation: %w", err)
	}
	return gen, nil
}

// insertOnce runs an INSERT ... ON CONFLICT DO NOTHING and maps "nothing
// inserted" to exists.
func (s *Store) insertOnce(ctx context.Context, tx *sql.Tx, exists error, query string, args ...any) error {
	res, err := s.exec(ctx, tx, s.q(query), args...)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return exists
	}
	return nil
}

// affected maps "no row changed" to missing.
func affected(res sql.Result, err error, missing error) error {
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return missing
	}
	return nil
}

func (s *Store) CreateTenant(ctx context.Context, t catalog.Tenant) error {
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		return s.insertOnce(ctx, tx, catalog.ErrTenantExists,
			`INSERT INTO tenants (name, display_name, status, canonical_id, platform, created) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING`,
			t.Name, t.DisplayName, t.Status, t.CanonicalID, t.Platform, nanos(t.CreatedAt))
	})
	return wrap("create tenant", err)
}

const tenantCols = `name, display_name, status, canonical_id, platform, encryption, storage_classes, created`

func scanTenant(sc interface{ Scan(...any) error }) (catalog.Tenant, error) {
	var t catalog.Tenant
	var created int64
	err := sc.Scan(&t.Name, &t.DisplayName, &t.Status, &t.CanonicalID, &t.Platform, &t.Encryption, &t.StorageClasses, &created)
	t.CreatedAt = fromNanos(created)
	return t, err
}

func (s *Store) GetTenant(ctx context.Context, name string) (catalog.Tenant, error) {
	t, err := scanTenant(s.row(ctx, nil, s.q(`SELECT `+tenantCols+` FROM tenants WHERE name = ?`), name))
	if errors.Is(err, sql.ErrNoRows) {
		return t, catalog.ErrNoSuchTenant
	}
	return t, wrap("get tenant", err)
}

func (s *Store) ListTenants(ctx context.Context) ([]catalog.Tenant, error) {
	return queryAll(ctx, s, "list tenants", scanTenant, `SELECT `+tenantCols+` FROM tenants ORDER BY name`)
}

func (s *Store) SetTenantStatus(ctx context.Context, name, status string) error {
	return s.setTenant(ctx, name, "status", status)
}

func (s *Store) SetTenantPlatform(ctx context.Context, name, platform string) error {
	return s.setTenant(ctx, name, "platform", platform)
}

func (s *Store) SetTenantEncryption(ctx context.Context, name, encryption string) error {
	return s.setTenant(ctx, name, "encryption", encryption)
}

func (s *Store) ProviderSetting(ctx context.Context, name string) (string, error) {
	var v string
	err := s.row(ctx, nil, s.q(`SELECT value FROM provider_settings WHERE name = ?`), name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, wrap("provider setting "+name, err)
}

func (s *Store) SetProviderSetting(ctx context.Context, name, value string) error {
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		if value == "" {
			_, err := s.exec(ctx, tx, s.q(`DELETE FROM provider_settings WHERE name = ?`), name)
			return err
		}
		_, err := s.exec(ctx, tx, s.q(`INSERT INTO provider_settings (name, value) VALUES (?, ?)
			ON CONFLICT (name) DO UPDATE SET value = excluded.value`), name, value)
		return err
	})
	return wrap("set provider setting "+name, err)
}

func (s *Store) InitProviderSetting(ctx context.Context, name, value string) (string, error) {
	if value == "" {
		return "", fmt.Errorf("sqldb: provider setting %s: an empty value sets nothing", name)
	}
	var have string
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		if _, err := s.exec(ctx, tx, s.q(`INSERT INTO provider_settings (name, value) VALUES (?, ?)
			ON CONFLICT (name) DO NOTHING`), name, value); err != nil {
			return err
		}
		return s.row(ctx, tx, s.q(`SELECT value FROM provider_settings WHERE name = ?`), name).Scan(&have)
	})
	return have, wrap("init provider setting "+name, err)
}

func (s *Store) setTenant(ctx context.Context, name, col, value string) error {
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		res, err := s.exec(ctx, tx, s.q(`UPDATE tenants SET `+col+` = ? WHERE name = ?`), value, name)
		return affected(res, err, catalog.ErrNoSuchTenant)
	})
	return wrap("set tenant "+col, err)
}

func (s *Store) DeleteTenant(ctx context.Context, name string) error {
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		var one int
		err := s.row(ctx, tx, s.q(`SELECT 1 FROM buckets WHERE tenant = ? LIMIT 1`), name).Scan(&one)
		if err == nil {
			return catalog.ErrTenantNotEmpty
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		res, err := s.exec(ctx, tx, s.q(`DELETE FROM tenants WHERE name = ?`), name)
		if err := affected(res, err, catalog.ErrNoSuchTenant); err != nil {
			return err
		}
		for _, q := range []string{`DELETE FROM users WHERE tenant = ?`, `DELETE FROM access_keys WHERE tenant = ?`, `DELETE FROM quotas WHERE tenant = ?`,
			`DELETE FROM publications WHERE tenant = ?`, `DELETE FROM publication_docs WHERE tenant = ?`, `DELETE FROM cloud_director_ids WHERE tenant = ?`,
			`DELETE FROM directories WHERE tenant = ?`, `DELETE FROM directory_users WHERE tenant = ?`, `DELETE FROM directory_groups WHERE tenant = ?`,
			`DELETE FROM identity_providers WHERE tenant = ?`, `DELETE FROM idp_users WHERE tenant = ?`} {
			if _, err := s.exec(ctx, tx, s.q(q), name); err != nil {
				return err
			}
		}
		for _, table := range iamTables {
			if _, err := s.exec(ctx, tx, s.q(`DELETE FROM `+table+` WHERE tenant = ?`), name); err != nil {
				return err
			}
		}
		return nil
	})
	return wrap("delete tenant", err)
}

func (s *Store) CreateUser(ctx context.Context, u catalog.User) error {
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		var one int
		err := s.row(ctx, tx, s.q(`SELECT 1 FROM tenants WHERE name = ? {{forshare}}`), u.Tenant).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return catalog.ErrNoSuchTenant
		}
		if err != nil {
			return err
		}
		if u.Email != "" {
			err := s.row(ctx, tx, s.q(`SELECT 1 FROM users WHERE email = ?`), u.Email).Scan(&one)
			if err == nil {
				return catalog.ErrEmailExists
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		return s.insertOnce(ctx, tx, catalog.ErrUserExists,
			`INSERT INTO users (tenant, name, role, canonical_id, email, created) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (tenant, name) DO NOTHING`,
			u.Tenant, u.Name, u.Role, u.CanonicalID, u.Email, nanos(u.CreatedAt))
	})
	return wrap("create user", err)
}

const userCols = `tenant, name, role, canonical_id, email, created, disabled`

func scanUser(sc interface{ Scan(...any) error }) (catalog.User, error) {
	var u catalog.User
	var created int64
	var disabled int
	err := sc.Scan(&u.Tenant, &u.Name, &u.Role, &u.CanonicalID, &u.Email, &created, &disabled)
	u.CreatedAt, u.Disabled = fromNanos(created), disabled != 0
	return u, err
}

func (s *Store) GetUser(ctx context.Context, tenant, name string) (catalog.User, error) {
	u, err := scanUser(s.row(ctx, nil, s.q(`SELECT `+userCols+` FROM users WHERE tenant = ? AND name = ?`), tenant, name))
	if errors.Is(err, sql.ErrNoRows) {
		return u, catalog.ErrNoSuchUser
	}
	return u, wrap("get user", err)
}

func (s *Store) UserByEmail(ctx context.Context, email string) (catalog.User, error) {
	if email == "" {
		return catalog.User{}, catalog.ErrNoSuchUser
	}
	u, err := scanUser(s.row(ctx, nil, s.q(`SELECT `+userCols+` FROM users WHERE email = ?`), email))
	if errors.Is(err, sql.ErrNoRows) {
		return u, catalog.ErrNoSuchUser
	}
	return u, wrap("user by e-mail", err)
}

func (s *Store) ListUsers(ctx context.Context, tenant string) ([]catalog.User, error) {
	return queryAll(ctx, s, "list users", scanUser, `SELECT `+userCols+` FROM users WHERE tenant = ? ORDER BY name`, tenant)
}

func (s *Store) SetUserEmail(ctx context.Context, tenant, name, email string) error {
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		if email != "" {
			var t, n string
			err := s.row(ctx, tx, s.q(`SELECT tenant, name FROM users WHERE email = ?`), email).Scan(&t, &n)
			if err == nil && (t != tenant || n != name) {
				return catalog.ErrEmailExists
			}
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		res, err := s.exec(ctx, tx, s.q(`UPDATE users SET email = ? WHERE tenant = ? AND name = ?`), email, tenant, name)
		return affected(res, err, catalog.ErrNoSuchUser)
	})
	return wrap("set user e-mail", err)
}

func (s *Store) DeleteUser(ctx context.Context, tenant, name string) error {
	err := s.identityWrite(ctx, func(tx *sql.Tx) error { return s.deleteUser(ctx, tx, tenant, name) })
	return wrap("delete user", err)
}

// deleteUser removes a user with its keys and everything else of it.
func (s *Store) deleteUser(ctx context.Context, tx *sql.Tx, tenant, name string) error {
	res, err := s.exec(ctx, tx, s.q(`DELETE FROM users WHERE tenant = ? AND name = ?`), tenant, name)
	if err := affected(res, err, catalog.ErrNoSuchUser); err != nil {
		return err
	}
	for _, q := range []string{`DELETE FROM access_keys WHERE tenant = ? AND user_name = ?`, `DELETE FROM cloud_director_ids WHERE tenant = ? AND user_name = ?`,
		`DELETE FROM directory_users WHERE tenant = ? AND user_name = ?`, `DELETE FROM idp_users WHERE tenant = ? AND user_name = ?`} {
		if _, err := s.exec(ctx, tx, s.q(q), tenant, name); err != nil {
			return err
		}
	}
	return s.deleteIAMOfUser(ctx, tx, tenant, name)
}

func (s *Store) PutAccessKey(ctx context.Context, k catalog.AccessKey) error {
	kind, status, user := or(k.Kind, catalog.KeyUser), or(k.Status, catalog.KeyActive), or(k.User, "root")
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		return s.insertOnce(ctx, tx, catalog.ErrAccessKeyExists,
			`INSERT INTO access_keys (access_key, secret_sealed, owner, display_name, created, tenant, user_name, kind, status, expires, buckets, read_only, source)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (access_key) DO NOTHING`,
			k.AccessKey, k.SecretSealed, k.Owner, k.DisplayName, nanos(k.CreatedAt), k.Tenant, user, kind, status,
			expiry(k.Expires), strings.Join(k.Buckets, "/"), boolInt(k.ReadOnly), k.Source)
	})
	return wrap("put access key", err)
}

const keyCols = `access_key, secret_sealed, owner, display_name, created, tenant, user_name, kind, status, expires, buckets, read_only, source`

func scanKey(sc interface{ Scan(...any) error }) (catalog.AccessKey, error) {
	var k catalog.AccessKey
	var created, expires int64
	var buckets string
	var readOnly int
	err := sc.Scan(&k.AccessKey, &k.SecretSealed, &k.Owner, &k.DisplayName, &created,
		&k.Tenant, &k.User, &k.Kind, &k.Status, &expires, &buckets, &readOnly, &k.Source)
	k.CreatedAt, k.ReadOnly = fromNanos(created), readOnly != 0
	if expires != 0 {
		k.Expires = fromNanos(expires)
	}
	if buckets != "" {
		// "/" cannot occur in a bucket name, so it separates them.
		k.Buckets = strings.Split(buckets, "/")
	}
	return k, err
}

func (s *Store) GetAccessKey(ctx context.Context, accessKey string) (catalog.AccessKey, error) {
	k, err := scanKey(s.row(ctx, nil, s.q(`SELECT `+keyCols+` FROM access_keys WHERE access_key = ?`), accessKey))
	if errors.Is(err, sql.ErrNoRows) {
		return k, catalog.ErrNoSuchAccessKey
	}
	return k, wrap("get access key", err)
}

func (s *Store) ListAccessKeys(ctx context.Context, tenant, user string) ([]catalog.AccessKey, error) {
	return queryAll(ctx, s, "list access keys", scanKey,
		`SELECT `+keyCols+` FROM access_keys WHERE tenant = ? AND user_name = ? ORDER BY access_key`, tenant, user)
}

func (s *Store) UpdateAccessKey(ctx context.Context, accessKey, status string, expires time.Time) error {
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		res, err := s.exec(ctx, tx, s.q(`UPDATE access_keys SET status = ?, expires = ? WHERE access_key = ?`), status, expiry(expires), accessKey)
		return affected(res, err, catalog.ErrNoSuchAccessKey)
	})
	return wrap("update access key", err)
}

func (s *Store) DeleteAccessKey(ctx context.Context, accessKey string) error {
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		res, err := s.exec(ctx, tx, s.q(`DELETE FROM access_keys WHERE access_key = ?`), accessKey)
		return affected(res, err, catalog.ErrNoSuchAccessKey)
	})
	return wrap("delete access key", err)
}

func (s *Store) DeleteExpiredAccessKeys(ctx context.Context, before time.Time) (int, error) {
	const expired = `expires <> 0 AND expires < ?`
	var n int
	// Most passes find none: only a pass that deletes writes, so the
	// identity generation (every node's caches) moves only then.
	if err := s.row(ctx, nil, s.q(`SELECT COUNT(*) FROM access_keys WHERE `+expired), nanos(before)).Scan(&n); err != nil || n == 0 {
		return 0, wrap("count expired access keys", err)
	}
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		res, err := s.exec(ctx, tx, s.q(`DELETE FROM access_keys WHERE `+expired), nanos(before))
		if err != nil {
			return err
		}
		d, err := res.RowsAffected()
		n = int(d)
		return err
	})
	return n, wrap("delete expired access keys", err)
}

func (s *Store) SetQuota(ctx context.Context, q catalog.Quota) error {
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		var one int
		err := s.row(ctx, tx, s.q(`SELECT 1 FROM tenants WHERE name = ?`), q.Tenant).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return catalog.ErrNoSuchTenant
		}
		if err != nil {
			return err
		}
		_, err = s.exec(ctx, tx, s.q(`INSERT INTO quotas (tenant, bucket, max_bytes, max_objects, requests_per_sec, bytes_in_per_sec, bytes_out_per_sec)
			VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (tenant, bucket) DO UPDATE SET max_bytes = excluded.max_bytes, max_objects = excluded.max_objects,
			requests_per_sec = excluded.requests_per_sec, bytes_in_per_sec = excluded.bytes_in_per_sec, bytes_out_per_sec = excluded.bytes_out_per_sec`),
			q.Tenant, []byte(q.Bucket), q.MaxBytes, q.MaxObjects, q.RequestsPerSec, q.BytesInPerSec, q.BytesOutPerSec)
		return err
	})
	return wrap("set quota", err)
}

func (s *Store) ListQuotas(ctx context.Context, tenant string) ([]catalog.Quota, error) {
	return queryAll(ctx, s, "list quotas", func(sc interface{ Scan(...any) error }) (catalog.Quota, error) {
		var q catalog.Quota
		var b []byte
		err := sc.Scan(&q.Tenant, &b, &q.MaxBytes, &q.MaxObjects, &q.RequestsPerSec, &q.BytesInPerSec, &q.BytesOutPerSec)
		q.Bucket = string(b)
		return q, err
	}, `SELECT tenant, bucket, max_bytes, max_objects, requests_per_sec, bytes_in_per_sec, bytes_out_per_sec FROM quotas WHERE tenant = ? ORDER BY bucket`, tenant)
}

// queryAll runs a query on the read pool and scans every row.
func queryAll[T any](ctx context.Context, s *Store, what string, scan func(interface{ Scan(...any) error }) (T, error), query string, args ...any) ([]T, error) {
	rows, err := s.read.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return nil, fmt.Errorf("sqldb: %s: %w", what, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("sqldb: %s: %w", what, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqldb: %s: %w", what, err)
	}
	return out, nil
}

// wrap adds context to an error; errors.Is still finds the catalog's own.
func wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("sqldb: %s: %w", what, err)
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func expiry(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return nanos(t)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
