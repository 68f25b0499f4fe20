package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/ostiumio/ostium/internal/catalog"
)

var _ catalog.Classes = (*Store)(nil)

func (s *Store) SetTenantStorageClasses(ctx context.Context, name, classes string) error {
	return s.setTenant(ctx, name, "storage_classes", classes)
}

// counted tells whether a class has rows of its own in class_stats:
// STANDARD's totals are the bucket's less the others', so that the
// writes of the common case cost nothing more.
func counted(class string) bool { return class != "" && class != catalog.StandardClass }

// addClassUsage adds to a bucket's totals of class, on the shard the
// transaction adds its bucket_stats to.
func (s *Store) addClassUsage(ctx context.Context, tx *sql.Tx, bucket, key, class string, bytes, objects int64) error {
	if !counted(class) || bytes == 0 && objects == 0 {
		return nil
	}
	_, err := s.exec(ctx, tx, s.q(`INSERT INTO class_stats (bucket, class, shard, bytes, objects) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (bucket, class, shard) DO UPDATE SET bytes = class_stats.bytes + excluded.bytes, objects = class_stats.objects + excluded.objects`),
		[]byte(bucket), class, s.shard(tx, key), bytes, objects)
	if err != nil {
		return fmt.Errorf("sqldb: count class usage: %w", err)
	}
	return nil
}

// sameBlobs tells whether two layouts hold their bytes in the same blobs.
func sameBlobs(a, b []catalog.Part) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].BlobID != b[i].BlobID {
			return false
		}
	}
	return true
}

func (s *Store) MoveVersion(ctx context.Context, from catalog.Object, parts []catalog.Part, class string, events ...catalog.Event) error {
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		if err := s.lockKey(ctx, tx, from.Bucket, from.Key); err != nil {
			return fmt.Errorf("lock key: %w", err)
		}
		q, args := versionQuery(from.Bucket, from.Key, from.VersionID)
		cur, err := scanObject(s.row(ctx, tx, s.q(q), args...), from.Bucket, true)
		if errors.Is(err, sql.ErrNoRows) {
			return catalog.ErrNoSuchObject
		}
		if err != nil {
			return fmt.Errorf("read version: %w", err)
		}
		// The one switch point of a move: the version must still be the
		// one whose bytes were copied.
		if cur.DeleteMarker || !cur.LastModified.Equal(from.LastModified) || !sameBlobs(cur.Parts, from.Parts) {
			return catalog.ErrPreconditionFailed
		}
		if parts == nil {
			_, err = s.exec(ctx, tx, s.q(`UPDATE objects SET storage_class = ? WHERE bucket = ? AND key = ? AND version_id = ?`),
				storedClass(class), []byte(from.Bucket), []byte(from.Key), cur.VersionID)
		} else {
			var enc string
			if enc, err = encodeParts(parts); err != nil {
				return fmt.Errorf("encode parts: %w", err)
			}
			_, err = s.exec(ctx, tx, s.q(`UPDATE objects SET storage_class = ?, parts = ?, inline = NULL WHERE bucket = ? AND key = ? AND version_id = ?`),
				storedClass(class), enc, []byte(from.Bucket), []byte(from.Key), cur.VersionID)
		}
		if err != nil {
			return fmt.Errorf("switch version: %w", err)
		}
		if parts != nil {
			old := make([]string, len(cur.Parts))
			for i, p := range cur.Parts {
				old[i] = p.BlobID
				if _, err := s.exec(ctx, tx, s.q(`DELETE FROM object_blobs WHERE blob_id = ?`), p.BlobID); err != nil {
					return fmt.Errorf("forget blob: %w", err)
				}
			}
			for _, p := range parts {
				if _, err := s.exec(ctx, tx, s.q(`INSERT INTO object_blobs (blob_id, bucket, key, version_id) VALUES (?, ?, ?, ?)`),
					p.BlobID, []byte(from.Bucket), []byte(from.Key), cur.VersionID); err != nil {
					return fmt.Errorf("record blob %s: %w", p.BlobID, err)
				}
			}
			if err := s.enqueue(ctx, tx, old); err != nil {
				return err
			}
		}
		if err := s.addClassUsage(ctx, tx, from.Bucket, from.Key, cur.StorageClass, -cur.Size, -1); err != nil {
			return err
		}
		if err := s.addClassUsage(ctx, tx, from.Bucket, from.Key, class, cur.Size, 1); err != nil {
			return err
		}
		return s.addEvents(ctx, tx, events, &cur)
	})
	if errors.Is(err, catalog.ErrPreconditionFailed) || errors.Is(err, catalog.ErrNoSuchObject) {
		return err
	}
	return wrap("move version", err)
}

func (s *Store) ClassUsage(ctx context.Context, bucket string) (map[string]catalog.Usage, error) {
	total, err := s.BucketUsage(ctx, bucket)
	if err != nil {
		return nil, err
	}
	return s.classUsage(ctx, total, `SELECT class, COALESCE(SUM(bytes), 0), COALESCE(SUM(objects), 0) FROM class_stats WHERE bucket = ? GROUP BY class`, []byte(bucket))
}

func (s *Store) TenantClassUsage(ctx context.Context, tenant string) (map[string]catalog.Usage, error) {
	total, err := s.TenantUsage(ctx, tenant)
	if err != nil {
		return nil, err
	}
	return s.classUsage(ctx, total, `SELECT c.class, COALESCE(SUM(c.bytes), 0), COALESCE(SUM(c.objects), 0)
		FROM class_stats c JOIN buckets b ON b.name = c.bucket WHERE b.tenant = ? GROUP BY c.class`, tenant)
}

type classRow struct {
	class string
	catalog.Usage
}

// classUsage reads the totals of the classes counted apart and gives
// STANDARD what is left of total.
func (s *Store) classUsage(ctx context.Context, total catalog.Usage, query string, arg any) (map[string]catalog.Usage, error) {
	rows, err := queryAll(ctx, s, "class usage", func(sc interface{ Scan(...any) error }) (classRow, error) {
		var r classRow
		err := sc.Scan(&r.class, &r.Bytes, &r.Objects)
		return r, err
	}, query, arg)
	if err != nil {
		return nil, err
	}
	out := map[string]catalog.Usage{}
	for _, r := range rows {
		if r.Bytes == 0 && r.Objects == 0 {
			continue
		}
		out[r.class] = r.Usage
		total.Bytes -= r.Bytes
		total.Objects -= r.Objects
	}
	if total.Bytes != 0 || total.Objects != 0 {
		out[catalog.StandardClass] = total
	}
	return out, nil
}
