package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/ostiumio/ostium/internal/catalog"
)

// Where writers run side by side (PostgreSQL), a small PUT's time in its
// transaction is mostly round trips: each statement is a write and a read
// on the node's socket and a wake-up of the server's backend, and a 2-core
// machine spent more CPU on those than on the SQL. A PUT of a new key took
// nine statements (eleven under a quota); it now takes six, so that a
// transaction holds its connection, and its key, for fewer trips. See
// bench/README.md, "PostgreSQL writes against concurrency".

// lockForWrite takes what a write of key into bucket holds until commit
// (the bucket's shared lock, the key's lock) and then checks that the
// bucket is there, returning its owner: in one statement for the two
// locks where the dialect has LockWrite. The check comes after the locks,
// in a statement of its own: under READ COMMITTED its snapshot then sees
// a deletion of the bucket that committed while the locks were awaited,
// which a check in the locking statement (whose snapshot predates the
// wait) would not.
func (s *Store) lockForWrite(ctx context.Context, tx *sql.Tx, bucket, key string) (string, error) {
	if s.d.LockWrite == nil {
		owner, err := s.bucketOwner(ctx, tx, bucket)
		if err != nil {
			return "", err
		}
		if err := s.lockKey(ctx, tx, bucket, key); err != nil {
			return "", fmt.Errorf("sqldb: lock key: %w", err)
		}
		return owner, nil
	}
	b := fnv.New64a()
	b.Write([]byte(bucket))
	k := fnv.New64a()
	k.Write([]byte(bucket))
	k.Write([]byte{0})
	k.Write([]byte(key))
	if err := s.d.LockWrite(ctx, tx, int64(b.Sum64()), int64(k.Sum64())); err != nil {
		return "", fmt.Errorf("sqldb: lock bucket and key: %w", err)
	}
	var owner string
	err := s.row(ctx, tx, s.q(`SELECT owner FROM buckets WHERE name = ?`), []byte(bucket)).Scan(&owner)
	if errors.Is(err, sql.ErrNoRows) {
		return "", catalog.ErrNoSuchBucket
	}
	if err != nil {
		return "", fmt.Errorf("sqldb: check bucket: %w", err)
	}
	return owner, nil
}

// putVersionShort is the end of putObject in one statement, where the
// engine runs data-modifying statements in WITH (WritableCTE): the key's
// latest version demoted, the bucket's totals counted (and its storage
// class's), the quotas checked and the row inserted. row holds the values
// of the object's columns in putObject's order.
//
// All parts of one statement see the same snapshot, taken after the
// statements before it in the transaction: the demotion does not see the
// new row, and seq is taken from the versions as they were. The quota
// check therefore reads the totals without this write's own addition and
// adds it itself, which is what withinLimits reads after its upsert: the
// same totals, the same rule (writers committing together can overshoot
// by what they write together, never more). A check that fails inserts
// nothing, and ErrQuotaExceeded rolls the whole transaction back.
func (s *Store) putVersionShort(ctx context.Context, tx *sql.Tx, o catalog.Object, row []any, check bool, l catalog.Limits) error {
	bucket, key := []byte(o.Bucket), []byte(o.Key)
	var q strings.Builder
	q.WriteString(`WITH demoted AS (UPDATE objects SET latest = 0 WHERE bucket = ? AND key = ? AND latest = 1 RETURNING 1)`)
	args := []any{bucket, key}
	if !o.DeleteMarker { // delete markers store nothing (count)
		shard := s.shard(tx, o.Key)
		q.WriteString(`, counted AS (INSERT INTO bucket_stats (bucket, shard, bytes, objects) VALUES (?, ?, ?, 1)
		ON CONFLICT (bucket, shard) DO UPDATE SET bytes = bucket_stats.bytes + excluded.bytes, objects = bucket_stats.objects + excluded.objects)`)
		args = append(args, bucket, shard, o.Size)
		if counted(o.StorageClass) {
			q.WriteString(`, class_counted AS (INSERT INTO class_stats (bucket, class, shard, bytes, objects) VALUES (?, ?, ?, ?, 1)
		ON CONFLICT (bucket, class, shard) DO UPDATE SET bytes = class_stats.bytes + excluded.bytes, objects = class_stats.objects + excluded.objects)`)
			args = append(args, bucket, o.StorageClass, shard, o.Size)
		}
	}
	// INSERT ... SELECT rather than VALUES, so that a quota can hold the
	// row back; the casts give the parameters the types that VALUES would
	// have taken from the columns.
	q.WriteString(` INSERT INTO objects (bucket, ` + objectCols + `, parts, inline, seq)
		SELECT ?::bytea, ?::bytea, ?::text, 1, ?::smallint, ?::bigint, ?::bytea, ?::bigint, ?::text, ?::text, ?::text, ?::text, ?::bigint, ?::smallint, ?::text, ?::bytea,
		(` + nextSeq + `)`)
	args = append(append(args, row...), bucket, key)
	// PostgreSQL runs a WITH statement that nothing reads after the main
	// one, which would insert the new latest version before the old is
	// demoted, against objects_latest's uniqueness. Reading demoted here
	// (once, before the row is made) runs the demotion first.
	conds := []string{`(SELECT COUNT(*) FROM demoted) >= 0`}
	limit := func(col string, add, max int64) {
		if !check || max <= 0 {
			return
		}
		conds = append(conds, `(SELECT COALESCE(SUM(s.`+col+`), 0) FROM bucket_stats s WHERE s.bucket = ?) + ? <= ?`)
		args = append(args, bucket, add, max)
	}
	limit("bytes", o.Size, l.BucketBytes)
	limit("objects", 1, l.BucketObjects)
	// This write adds to the tenant's totals only if its bucket is the
	// tenant's, as the upsert would have (a bucket of another tenant
	// passes).
	tenantLimit := func(col string, add, max int64) {
		if !check || max <= 0 {
			return
		}
		conds = append(conds, `(SELECT COALESCE(SUM(s.`+col+`), 0) FROM bucket_stats s JOIN buckets b ON b.name = s.bucket WHERE b.tenant = ?)
		+ (SELECT COUNT(*) FROM buckets WHERE name = ? AND tenant = ?) * ? <= ?`)
		args = append(args, l.Tenant, bucket, l.Tenant, add, max)
	}
	tenantLimit("bytes", o.Size, l.TenantBytes)
	tenantLimit("objects", 1, l.TenantObjects)
	q.WriteString(` WHERE ` + strings.Join(conds, ` AND `))
	res, err := s.exec(ctx, tx, s.q(q.String()), args...)
	if err != nil {
		return fmt.Errorf("sqldb: put object: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("sqldb: put object: %w", err)
	} else if n == 0 {
		return catalog.ErrQuotaExceeded
	}
	return nil
}
