package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/ostiumio/ostium/internal/catalog"
)

// fillRows is how many objects one INSERT of FillObjects carries: 17
// arguments each keeps a statement under SQLite's 32,766 and
// PostgreSQL's 65,535 bound parameters.
const fillRows = 500

// ErrFillExists is FillObjects' answer when a key it was given already
// has a version: a fill only adds keys.
var ErrFillExists = errors.New("sqldb: fill: a key already has a version")

// FillObjects writes objs, each the first version of a key that has
// none, in one transaction: the rows PutObject writes for a new key (the
// object row as current with seq 1, its blobs' references, its bucket's
// and class's totals), but many rows to a statement. It is how a
// benchmark fills a catalog to millions of objects in minutes rather than
// the hours the same objects take one PUT at a time; it skips what only a
// key with versions needs (the key lock, the replaced version, the
// conditions, quotas and events), so a key given twice or already present
// fails the whole batch (ErrFillExists) rather than making two current
// versions.
func (s *Store) FillObjects(ctx context.Context, objs []catalog.Object) error {
	if len(objs) == 0 {
		return nil
	}
	return s.w.Write(ctx, func(tx *sql.Tx) error {
		type total struct {
			key            string
			bytes, objects int64
		}
		totals := map[[2]string]*total{} // bucket, class
		owners := map[string]string{}    // bucket: its owner
		for _, o := range objs {
			if _, ok := owners[o.Bucket]; !ok {
				owner, err := s.bucketOwner(ctx, tx, o.Bucket)
				if err != nil {
					return err
				}
				owners[o.Bucket] = owner
			}
			if o.DeleteMarker {
				continue
			}
			k := [2]string{o.Bucket, o.StorageClass}
			t := totals[k]
			if t == nil {
				t = &total{key: o.Key}
				totals[k] = t
			}
			t.bytes += o.Size
			t.objects++
		}
		for start := 0; start < len(objs); start += fillRows {
			if err := s.fillRows(ctx, tx, objs[start:min(start+fillRows, len(objs))], owners); err != nil {
				return err
			}
		}
		for k, t := range totals {
			if err := s.addUsage(ctx, tx, k[0], t.key, t.bytes, t.objects); err != nil {
				return err
			}
			if err := s.addClassUsage(ctx, tx, k[0], t.key, k[1], t.bytes, t.objects); err != nil {
				return err
			}
		}
		return nil
	})
}

// fillRows inserts one statement's worth of FillObjects' rows; owners
// holds each bucket's owner.
func (s *Store) fillRows(ctx context.Context, tx *sql.Tx, objs []catalog.Object, owners map[string]string) error {
	var q strings.Builder
	q.WriteString(`INSERT INTO objects (bucket, ` + objectCols + `, parts, inline, seq) VALUES `)
	args := make([]any, 0, len(objs)*17)
	var blobs []any
	for i, o := range objs {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString(`(?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)`)
		meta, err := encodeMeta(o.Meta)
		if err != nil {
			return err
		}
		parts, err := encodeParts(o.Parts)
		if err != nil {
			return fmt.Errorf("sqldb: encode parts: %w", err)
		}
		dm := 0
		if o.DeleteMarker {
			dm = 1
		}
		lock := toLockColumns(o.Lock)
		args = append(args, []byte(o.Bucket), []byte(o.Key), o.VersionID, dm, o.Size, storedETag(o.ETag), nanos(o.LastModified),
			storedOwner(o.Owner, owners[o.Bucket]), storedClass(o.StorageClass), meta,
			lock.mode, lock.until, lock.hold, parts, o.Inline)
		for _, p := range o.Parts {
			blobs = append(blobs, p.BlobID, []byte(o.Bucket), []byte(o.Key), o.VersionID)
		}
	}
	if _, err := tx.ExecContext(ctx, s.q(q.String()), args...); err != nil {
		if isConflict(err) {
			return fmt.Errorf("%w: %v", ErrFillExists, err)
		}
		return fmt.Errorf("sqldb: fill objects: %w", err)
	}
	for start := 0; start < len(blobs); start += 4 * fillRows {
		chunk := blobs[start:min(start+4*fillRows, len(blobs))]
		q := `INSERT INTO object_blobs (blob_id, bucket, key, version_id) VALUES ` +
			strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?), ", len(chunk)/4), ", ")
		if _, err := tx.ExecContext(ctx, s.q(q), chunk...); err != nil {
			return fmt.Errorf("sqldb: fill blob references: %w", err)
		}
	}
	return nil
}

// isConflict tells a unique-key violation, in either engine's words.
func isConflict(err error) bool {
	m := strings.ToLower(err.Error())
	return strings.Contains(m, "unique constraint") || strings.Contains(m, "duplicate key")
}
