package sqldb

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/ostiumio/ostium/internal/catalog"
)

// statShards is how many rows a bucket's totals are spread over by key
// hash (see shards.go for concurrent writers).
const statShards = 16

// count adds a version's size and count to its bucket's totals (sign -1
// to take it away). Delete markers store nothing.
func (s *Store) count(ctx context.Context, tx *sql.Tx, o catalog.Object, sign int64) error {
	if o.DeleteMarker {
		return nil
	}
	if err := s.addUsage(ctx, tx, o.Bucket, o.Key, sign*o.Size, sign); err != nil {
		return err
	}
	return s.addClassUsage(ctx, tx, o.Bucket, o.Key, o.StorageClass, sign*o.Size, sign)
}

// addUsage adds to a bucket's totals: a version's bytes and count, or
// the bytes of an open upload's parts (which count as stored, and are
// billed, from their upload to their upload's end).
func (s *Store) addUsage(ctx context.Context, tx *sql.Tx, bucket, key string, bytes, objects int64) error {
	if bytes == 0 && objects == 0 {
		return nil
	}
	_, err := s.exec(ctx, tx, s.q(`INSERT INTO bucket_stats (bucket, shard, bytes, objects) VALUES (?, ?, ?, ?)
		ON CONFLICT (bucket, shard) DO UPDATE SET bytes = bucket_stats.bytes + excluded.bytes, objects = bucket_stats.objects + excluded.objects`),
		[]byte(bucket), s.shard(tx, key), bytes, objects)
	if err != nil {
		return fmt.Errorf("sqldb: count usage: %w", err)
	}
	return nil
}

// withinLimits checks, after a write's changes, that the totals it grew
// stay within l. Totals are read without locking others out, so writers
// committing at once can overshoot by what they write together.
func (s *Store) withinLimits(ctx context.Context, tx *sql.Tx, bucket string, l catalog.Limits) error {
	over := func(u catalog.Usage, maxBytes, maxObjects int64) bool {
		return maxBytes > 0 && u.Bytes > maxBytes || maxObjects > 0 && u.Objects > maxObjects
	}
	if l.BucketBytes > 0 || l.BucketObjects > 0 {
		u, err := s.usage(ctx, tx, `SELECT COALESCE(SUM(bytes), 0), COALESCE(SUM(objects), 0) FROM bucket_stats WHERE bucket = ?`, []byte(bucket))
		if err != nil {
			return err
		}
		if over(u, l.BucketBytes, l.BucketObjects) {
			return catalog.ErrQuotaExceeded
		}
	}
	if l.TenantBytes > 0 || l.TenantObjects > 0 {
		u, err := s.usage(ctx, tx, tenantUsage, l.Tenant)
		if err != nil {
			return err
		}
		if over(u, l.TenantBytes, l.TenantObjects) {
			return catalog.ErrQuotaExceeded
		}
	}
	return nil
}

const tenantUsage = `SELECT COALESCE(SUM(s.bytes), 0), COALESCE(SUM(s.objects), 0)
	FROM bucket_stats s JOIN buckets b ON b.name = s.bucket WHERE b.tenant = ?`

func (s *Store) usage(ctx context.Context, tx *sql.Tx, query string, arg any) (catalog.Usage, error) {
	var u catalog.Usage
	if err := s.row(ctx, tx, s.q(query), arg).Scan(&u.Bytes, &u.Objects); err != nil {
		return u, fmt.Errorf("sqldb: read usage: %w", err)
	}
	return u, nil
}

func (s *Store) BucketUsage(ctx context.Context, bucket string) (catalog.Usage, error) {
	return s.usage(ctx, nil, `SELECT COALESCE(SUM(bytes), 0), COALESCE(SUM(objects), 0) FROM bucket_stats WHERE bucket = ?`, []byte(bucket))
}

func (s *Store) TenantUsage(ctx context.Context, tenant string) (catalog.Usage, error) {
	return s.usage(ctx, nil, tenantUsage, tenant)
}
