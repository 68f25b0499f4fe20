package sqldb

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ostiumio/ostium/internal/catalog"
)

var _ catalog.KeyStore = (*Store)(nil)

func (s *Store) CreateKey(ctx context.Context, k catalog.TenantKey) error {
	version := 0
	if n := len(k.Versions); n > 0 {
		version = k.Versions[n-1].Version
	}
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		// No conflict target: the id's key and the partial index on the
		// name are both "taken".
		if err := s.insertOnce(ctx, tx, catalog.ErrKeyExists,
			`INSERT INTO kms_keys (id, tenant, name, state, created, version) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
			k.ID, k.Tenant, k.Name, k.State, nanos(k.Created), version); err != nil {
			return err
		}
		for _, v := range k.Versions {
			if err := s.insertVersion(ctx, tx, k.ID, v); err != nil {
				return err
			}
		}
		return nil
	})
	return wrap("create key", err)
}

func (s *Store) insertVersion(ctx context.Context, tx *sql.Tx, id string, v catalog.KeyVersion) error {
	if err := s.holdMaster(ctx, tx, v.MasterVersion); err != nil {
		return err
	}
	return s.insertOnce(ctx, tx, catalog.ErrKeyExists,
		`INSERT INTO kms_key_versions (key_id, version, sealed, master, created) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		id, v.Version, v.Sealed, v.MasterVersion, nanos(v.Created))
}

// holdMaster share-locks the master version that seals what tx writes,
// so that DeleteMasterKey cannot remove it under a commit that still
// needs it; ErrNoSuchKey if it is gone (the writer reloads the master
// versions and seals again).
func (s *Store) holdMaster(ctx context.Context, tx *sql.Tx, version int) error {
	if version == 0 { // held by an external KMS
		return nil
	}
	var one int
	err := s.row(ctx, tx, s.q(`SELECT 1 FROM kms_master_keys WHERE version = ? {{forshare}}`), version).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("master key version %d: %w", version, catalog.ErrNoSuchKey)
	}
	return err
}

const tenantKeyCols = `id, tenant, name, state, created, version`

func scanTenantKey(sc interface{ Scan(...any) error }) (catalog.TenantKey, error) {
	var k catalog.TenantKey
	var created int64
	err := sc.Scan(&k.ID, &k.Tenant, &k.Name, &k.State, &created, &k.Version)
	k.Created = fromNanos(created)
	return k, err
}

func (s *Store) GetKey(ctx context.Context, id string) (catalog.TenantKey, error) {
	return s.keyWhere(ctx, "get key", `id = ?`, id)
}

func (s *Store) KeyByName(ctx context.Context, tenant, name string) (catalog.TenantKey, error) {
	if name == "" {
		return catalog.TenantKey{}, catalog.ErrNoSuchKey
	}
	return s.keyWhere(ctx, "key by name", `tenant = ? AND name = ? AND state <> 'destroyed'`, tenant, name)
}

func (s *Store) keyWhere(ctx context.Context, what, where string, args ...any) (catalog.TenantKey, error) {
	k, err := scanTenantKey(s.row(ctx, nil, s.q(`SELECT `+tenantKeyCols+` FROM kms_keys WHERE `+where), args...))
	if errors.Is(err, sql.ErrNoRows) {
		return k, catalog.ErrNoSuchKey
	}
	if err != nil {
		return k, wrap(what, err)
	}
	k.Versions, err = queryAll(ctx, s, what, func(sc interface{ Scan(...any) error }) (catalog.KeyVersion, error) {
		var v catalog.KeyVersion
		var created int64
		err := sc.Scan(&v.Version, &v.Sealed, &v.MasterVersion, &created)
		v.Created = fromNanos(created)
		return v, err
	}, `SELECT version, sealed, master, created FROM kms_key_versions WHERE key_id = ? ORDER BY version`, k.ID)
	return k, err
}

func (s *Store) ListKeys(ctx context.Context, tenant string) ([]catalog.TenantKey, error) {
	return queryAll(ctx, s, "list keys", scanTenantKey, `SELECT `+tenantKeyCols+` FROM kms_keys WHERE tenant = ? ORDER BY created, id`, tenant)
}

// lockedKeyState reads a key's state and newest version, locking its row
// for the rest of tx.
func (s *Store) lockedKeyState(ctx context.Context, tx *sql.Tx, id string) (state string, version int, err error) {
	err = s.row(ctx, tx, s.q(`SELECT state, version FROM kms_keys WHERE id = ? {{forupdate}}`), id).Scan(&state, &version)
	if errors.Is(err, sql.ErrNoRows) {
		return "", 0, catalog.ErrNoSuchKey
	}
	return state, version, err
}

func (s *Store) SetKeyState(ctx context.Context, id, state string) error {
	switch state {
	case catalog.KeyEnabled, catalog.KeyDisabled, catalog.KeyDestroyed:
	default:
		return fmt.Errorf("sqldb: set key state: unknown state %q", state)
	}
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		cur, _, err := s.lockedKeyState(ctx, tx, id)
		if err != nil {
			return err
		}
		if cur == catalog.KeyDestroyed {
			if state == catalog.KeyDestroyed {
				return nil
			}
			return catalog.ErrKeyDestroyed
		}
		if _, err := s.exec(ctx, tx, s.q(`UPDATE kms_keys SET state = ? WHERE id = ?`), state, id); err != nil {
			return err
		}
		if state == catalog.KeyDestroyed {
			_, err = s.exec(ctx, tx, s.q(`DELETE FROM kms_key_versions WHERE key_id = ?`), id)
		}
		return err
	})
	return wrap("set key state", err)
}

func (s *Store) AddKeyVersion(ctx context.Context, id string, v catalog.KeyVersion) error {
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		state, version, err := s.lockedKeyState(ctx, tx, id)
		if err != nil {
			return err
		}
		if state == catalog.KeyDestroyed {
			return catalog.ErrKeyDestroyed
		}
		if v.Version != version+1 {
			return catalog.ErrKeyExists
		}
		if err := s.insertVersion(ctx, tx, id, v); err != nil {
			return err
		}
		_, err = s.exec(ctx, tx, s.q(`UPDATE kms_keys SET version = ? WHERE id = ?`), v.Version, id)
		return err
	})
	return wrap("add key version", err)
}

func (s *Store) ResealKeyVersion(ctx context.Context, id string, version int, sealed []byte, masterVersion, fromMaster int) (bool, error) {
	var done bool
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		if err := s.holdMaster(ctx, tx, masterVersion); err != nil {
			return err
		}
		res, err := s.exec(ctx, tx, s.q(`UPDATE kms_key_versions SET sealed = ?, master = ? WHERE key_id = ? AND version = ? AND master = ?`),
			sealed, masterVersion, id, version, fromMaster)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		done = n == 1
		return err
	})
	return done, wrap("reseal key version", err)
}

func (s *Store) KeysSealedBefore(ctx context.Context, master, limit int) ([]catalog.KeyRef, error) {
	return queryAll(ctx, s, "keys sealed before", func(sc interface{ Scan(...any) error }) (catalog.KeyRef, error) {
		var r catalog.KeyRef
		return r, sc.Scan(&r.ID, &r.Version)
	}, `SELECT key_id, version FROM kms_key_versions WHERE master > 0 AND master < ? ORDER BY key_id, version LIMIT ?`, master, limit)
}

func (s *Store) MasterKeys(ctx context.Context) ([]catalog.MasterKey, error) {
	return queryAll(ctx, s, "master keys", func(sc interface{ Scan(...any) error }) (catalog.MasterKey, error) {
		var m catalog.MasterKey
		var created int64
		err := sc.Scan(&m.Version, &m.Sealed, &created)
		m.Created = fromNanos(created)
		return m, err
	}, `SELECT version, sealed, created FROM kms_master_keys ORDER BY version`)
}

func (s *Store) AddMasterKey(ctx context.Context, m catalog.MasterKey) error {
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		return s.insertOnce(ctx, tx, catalog.ErrKeyExists,
			`INSERT INTO kms_master_keys (version, sealed, created) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
			m.Version, m.Sealed, nanos(m.Created))
	})
	return wrap("add master key", err)
}

func (s *Store) DeleteMasterKey(ctx context.Context, version int) error {
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		// Under the master row's lock, so that no re-seal to it races.
		var one int
		err := s.row(ctx, tx, s.q(`SELECT 1 FROM kms_master_keys WHERE version = ? {{forupdate}}`), version).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return catalog.ErrNoSuchKey
		}
		if err != nil {
			return err
		}
		err = s.row(ctx, tx, s.q(`SELECT 1 FROM kms_key_versions WHERE master = ? LIMIT 1`), version).Scan(&one)
		if err == nil {
			return catalog.ErrKeyExists
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		_, err = s.exec(ctx, tx, s.q(`DELETE FROM kms_master_keys WHERE version = ?`), version)
		return err
	})
	return wrap("delete master key", err)
}

var _ catalog.WrappedKeys = (*Store)(nil)

func swapWrapped(m *catalog.Meta, old, wrapped []byte) bool {
	if m.Encryption == nil || len(old) == 0 || !bytes.Equal(m.Encryption.WrappedKey, old) {
		return false
	}
	m.Encryption.WrappedKey = bytes.Clone(wrapped)
	return true
}

func (s *Store) RewrapVersion(ctx context.Context, bucket, key, versionID string, old, wrapped []byte) (bool, error) {
	var done bool
	err := s.updateMeta(ctx, bucket, key, versionID, catalog.ChangeOptions{}, func(m *catalog.Meta) { done = swapWrapped(m, old, wrapped) })
	if errors.Is(err, catalog.ErrNoSuchObject) {
		return false, nil
	}
	return done, wrap("rewrap version", err)
}

func (s *Store) RewrapUpload(ctx context.Context, bucket, key, uploadID string, old, wrapped []byte) (bool, error) {
	var done bool
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		done = false
		u, err := s.getUpload(ctx, tx, bucket, key, uploadID, s.d.ForUpdate)
		if errors.Is(err, catalog.ErrNoSuchUpload) {
			return nil
		}
		if err != nil || !swapWrapped(&u.Meta, old, wrapped) {
			return err
		}
		meta, err := json.Marshal(u.Meta)
		if err != nil {
			return err
		}
		_, err = s.exec(ctx, tx, s.q(`UPDATE uploads SET meta = ? WHERE upload_id = ?`), string(meta), uploadID)
		done = err == nil
		return err
	})
	return done, wrap("rewrap upload", err)
}
