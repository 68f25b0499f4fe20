package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

func (s *Store) CreateBucket(ctx context.Context, b catalog.Bucket) error {
	return s.identityWrite(ctx, func(tx *sql.Tx) error {
		res, err := s.exec(ctx, tx, s.q(`INSERT INTO buckets (name, owner, tenant, region, created, `+settingCols+`)
			VALUES (?, ?, ?, ?, ?`+strings.Repeat(", ?", len(settingColumns))+`) ON CONFLICT (name) DO NOTHING`),
			append([]any{[]byte(b.Name), b.Owner, b.Tenant, b.Region, nanos(b.CreatedAt)}, settingValues(&b.Settings)...)...)
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
	err := s.row(ctx, nil, s.q(`SELECT owner, tenant, region, created, `+settingCols+` FROM buckets WHERE name = ?`), []byte(name)).
		Scan(append([]any{&b.Owner, &b.Tenant, &b.Region, &created}, settingPointers(&b.Settings)...)...)
	if errors.Is(err, sql.ErrNoRows) {
		return b, catalog.ErrNoSuchBucket
	}
	if err != nil {
		return b, fmt.Errorf("sqldb: get bucket: %w", err)
	}
	b.CreatedAt = fromNanos(created)
	return b, nil
}

func (s *Store) ListBuckets(ctx context.Context, f catalog.BucketFilter) ([]catalog.Bucket, error) {
	query, args := `SELECT name, owner, tenant, region, created, `+settingCols+` FROM buckets WHERE 1 = 1`, []any{}
	if f.Tenant != "" {
		query += ` AND tenant = ?`
		args = append(args, f.Tenant)
	}
	if f.Owner != "" {
		query += ` AND owner = ?`
		args = append(args, f.Owner)
	}
	return queryAll(ctx, s, "list buckets", func(sc interface{ Scan(...any) error }) (catalog.Bucket, error) {
		var b catalog.Bucket
		var name []byte
		var created int64
		err := sc.Scan(append([]any{&name, &b.Owner, &b.Tenant, &b.Region, &created}, settingPointers(&b.Settings)...)...)
		b.Name, b.CreatedAt = string(name), fromNanos(created)
		return b, err
	}, query+` ORDER BY name`, args...)
}

func (s *Store) DeleteBucket(ctx context.Context, name string) error {
	return s.identityWrite(ctx, func(tx *sql.Tx) error {
		if err := s.lockBucket(ctx, tx, name, true); err != nil {
			return err
		}
		var one int
		err := s.row(ctx, tx, s.q(`SELECT 1 FROM buckets WHERE name = ? {{forupdate}}`), []byte(name)).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return catalog.ErrNoSuchBucket
		}
		if err != nil {
			return fmt.Errorf("sqldb: delete bucket: %w", err)
		}
		err = s.row(ctx, tx, s.q(`SELECT 1 FROM objects WHERE bucket = ? LIMIT 1`), []byte(name)).Scan(&one)
		if err == nil {
			return catalog.ErrBucketNotEmpty
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("sqldb: delete bucket: %w", err)
		}
		// Open multipart uploads do not keep a bucket: as S3, deleting it
		// aborts them, their blobs queued in this transaction.
		for {
			n, err := s.abortUploads(ctx, tx, name)
			if err != nil {
				return fmt.Errorf("sqldb: delete bucket: %w", err)
			}
			if n == 0 {
				break
			}
		}
		for _, q := range []string{`DELETE FROM buckets WHERE name = ?`, `DELETE FROM bucket_stats WHERE bucket = ?`, `DELETE FROM class_stats WHERE bucket = ?`} {
			if _, err := s.exec(ctx, tx, s.q(q), []byte(name)); err != nil {
				return fmt.Errorf("sqldb: delete bucket: %w", err)
			}
		}
		return nil
	})
}

// bucketExists checks, inside a write, that the bucket is there and keeps
// it there (a shared lock where the engine has them) until commit. The
// check follows the lock: under READ COMMITTED it then sees a deletion
// that committed while it waited.
func (s *Store) bucketExists(ctx context.Context, tx *sql.Tx, name string) error {
	_, err := s.bucketOwner(ctx, tx, name)
	return err
}

// bucketOwner is bucketExists that also returns the bucket's owner, which
// a write of an object row needs (storedOwner).
func (s *Store) bucketOwner(ctx context.Context, tx *sql.Tx, name string) (string, error) {
	query := `SELECT owner FROM buckets WHERE name = ? {{forshare}}`
	if s.d.LockBucket != nil {
		if err := s.lockBucket(ctx, tx, name, false); err != nil {
			return "", err
		}
		query = `SELECT owner FROM buckets WHERE name = ?`
	}
	var owner string
	err := s.row(ctx, tx, s.q(query), []byte(name)).Scan(&owner)
	if errors.Is(err, sql.ErrNoRows) {
		return "", catalog.ErrNoSuchBucket
	}
	if err != nil {
		return "", fmt.Errorf("sqldb: check bucket: %w", err)
	}
	return owner, nil
}

// purgeBatch bounds the rows one purge transaction deletes.
const purgeBatch = 500

func (s *Store) PurgeBucket(ctx context.Context, name string) error {
	// Refused before a batch commits, so a refused purge deletes nothing;
	// removeVersion still refuses a version locked meanwhile.
	if locked, err := s.HoldsLocked(ctx, name, time.Now()); err != nil || locked {
		if err == nil {
			err = catalog.ErrObjectLocked
		}
		return fmt.Errorf("sqldb: purge bucket %s: %w", name, err)
	}
	for {
		done, err := s.purgeSome(ctx, name)
		if err != nil {
			return fmt.Errorf("sqldb: purge bucket %s: %w", name, err)
		}
		if done {
			return s.DeleteBucket(ctx, name)
		}
	}
}

// purgeSome deletes up to purgeBatch versions and uploads of bucket in one
// transaction and reports whether none were left.
func (s *Store) purgeSome(ctx context.Context, bucket string) (bool, error) {
	done := false
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		type version struct{ key, id string }
		var vs []version
		rows, err := tx.QueryContext(ctx, s.q(`SELECT key, version_id FROM objects WHERE bucket = ? LIMIT `+strconv.Itoa(purgeBatch)), []byte(bucket))
		if err != nil {
			return err
		}
		for rows.Next() {
			var key []byte
			var id string
			if err := rows.Scan(&key, &id); err != nil {
				rows.Close()
				return err
			}
			vs = append(vs, version{string(key), id})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, v := range vs {
			if _, err := s.removeVersion(ctx, tx, bucket, v.key, v.id, catalog.DeleteOptions{}); err != nil {
				return err
			}
		}
		uploads, err := s.abortUploads(ctx, tx, bucket)
		if err != nil {
			return err
		}
		done = len(vs) == 0 && uploads == 0
		return nil
	})
	return done, err
}

// abortUploads aborts up to purgeBatch uploads of bucket, queueing their
// parts' blobs, and returns how many it aborted. The rows are locked
// first, so that a part being added meanwhile is either seen here or
// finds its upload gone.
func (s *Store) abortUploads(ctx context.Context, tx *sql.Tx, bucket string) (int, error) {
	type upload struct{ id, key string }
	var uploads []upload
	rows, err := tx.QueryContext(ctx, s.q(`SELECT upload_id, key FROM uploads WHERE bucket = ? LIMIT `+strconv.Itoa(purgeBatch)+` {{forupdate}}`), []byte(bucket))
	if err != nil {
		return 0, fmt.Errorf("sqldb: read uploads: %w", err)
	}
	for rows.Next() {
		var u upload
		var key []byte
		if err := rows.Scan(&u.id, &key); err != nil {
			rows.Close()
			return 0, fmt.Errorf("sqldb: read uploads: %w", err)
		}
		u.key = string(key)
		uploads = append(uploads, u)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("sqldb: read uploads: %w", err)
	}
	for _, u := range uploads {
		if err := s.dropUpload(ctx, tx, bucket, u.key, u.id, nil); err != nil {
			return 0, err
		}
	}
	return len(uploads), nil
}

// settingColumns are the columns of a bucket's Settings, in the order of
// settingPointers.
var settingColumns = []string{
	catalog.SettingACL: "acl", catalog.SettingPolicy: "policy",
	catalog.SettingOwnership: "ownership", catalog.SettingPublicAccessBlock: "public_access_block",
	catalog.SettingPlatform: "platform", catalog.SettingLogging: "logging",
	catalog.SettingVersioning: "versioning", catalog.SettingObjectLock: "object_lock",
	catalog.SettingTagging: "tagging", catalog.SettingCORS: "cors", catalog.SettingLifecycle: "lifecycle",
	catalog.SettingEncryption: "encryption", catalog.SettingNotification: "notification", catalog.SettingReplication: "replication",
}

var settingCols = strings.Join(settingColumns, ", ")

func settingPointers(st *catalog.Settings) []any {
	return []any{&st.ACL, &st.Policy, &st.Ownership, &st.PublicAccessBlock, &st.Platform, &st.Logging,
		&st.Versioning, &st.ObjectLock, &st.Tagging, &st.CORS, &st.Lifecycle, &st.Encryption,
		&st.Notification, &st.Replication}
}

func settingValues(st *catalog.Settings) []any {
	ps := settingPointers(st)
	for i, p := range ps {
		ps[i] = *p.(*string)
	}
	return ps
}

func (s *Store) SetBucketSetting(ctx context.Context, bucket string, which catalog.Setting, value string) error {
	if which < 0 || int(which) >= len(settingColumns) {
		return fmt.Errorf("sqldb: unknown bucket setting %d", which)
	}
	col := settingColumns[which]
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		res, err := s.exec(ctx, tx, s.q(`UPDATE buckets SET `+col+` = ? WHERE name = ?`), value, []byte(bucket))
		return affected(res, err, catalog.ErrNoSuchBucket)
	})
	return wrap("set bucket "+col, err)
}
