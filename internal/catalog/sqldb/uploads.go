package sqldb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ostiumio/ostium/internal/catalog"
)

func (s *Store) CreateUpload(ctx context.Context, u catalog.Upload) error {
	meta, err := json.Marshal(u.Meta)
	if err != nil {
		return fmt.Errorf("sqldb: encode meta: %w", err)
	}
	return s.w.Write(ctx, func(tx *sql.Tx) error {
		if err := s.bucketExists(ctx, tx, u.Bucket); err != nil {
			return err
		}
		lock := toLockColumns(u.Lock)
		_, err := s.exec(ctx, tx, s.q(`INSERT INTO uploads (`+uploadCols+`, bucket)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
			u.UploadID, []byte(u.Key), nanos(u.Initiated), u.Owner, u.StorageClass, string(meta), u.ChecksumAlgorithm, u.ChecksumType,
			lock.mode, lock.until, lock.hold, []byte(u.Bucket))
		if err != nil {
			return fmt.Errorf("sqldb: create upload: %w", err)
		}
		return nil
	})
}

const uploadCols = `upload_id, key, initiated, owner, storage_class, meta, checksum_algorithm, checksum_type, lock_mode, retain_until, legal_hold`

func scanUpload(sc interface{ Scan(...any) error }, bucket string) (catalog.Upload, error) {
	u := catalog.Upload{Bucket: bucket}
	var key []byte
	var initiated int64
	var meta string
	var lock lockColumns
	if err := sc.Scan(&u.UploadID, &key, &initiated, &u.Owner, &u.StorageClass, &meta, &u.ChecksumAlgorithm, &u.ChecksumType,
		&lock.mode, &lock.until, &lock.hold); err != nil {
		return u, err
	}
	u.Key, u.Initiated, u.Lock = string(key), fromNanos(initiated), lock.lock()
	if err := json.Unmarshal([]byte(meta), &u.Meta); err != nil {
		return u, fmt.Errorf("sqldb: decode meta: %w", err)
	}
	return u, nil
}

func (s *Store) GetUpload(ctx context.Context, bucket, key, uploadID string) (catalog.Upload, error) {
	return s.getUpload(ctx, nil, bucket, key, uploadID, "")
}

// getUpload reads an upload through query (a DB's or a transaction's),
// with an optional locking suffix.
func (s *Store) getUpload(ctx context.Context, tx *sql.Tx, bucket, key, uploadID, lock string) (catalog.Upload, error) {
	u, err := scanUpload(s.row(ctx, tx, s.q(`SELECT `+uploadCols+` FROM uploads WHERE upload_id = ? AND bucket = ? AND key = ? `+lock),
		uploadID, []byte(bucket), []byte(key)), bucket)
	if errors.Is(err, sql.ErrNoRows) {
		return u, catalog.ErrNoSuchUpload
	}
	if err != nil {
		return u, fmt.Errorf("sqldb: get upload: %w", err)
	}
	return u, nil
}

func (s *Store) PutPart(ctx context.Context, bucket, key, uploadID string, p catalog.Part, l catalog.Limits) error {
	checksums, err := json.Marshal(p.Checksums)
	if err != nil {
		return fmt.Errorf("sqldb: encode checksums: %w", err)
	}
	return s.w.Write(ctx, func(tx *sql.Tx) error {
		// The upload row's lock orders this part against a concurrent
		// replacement of the same number and against complete and abort.
		if _, err := s.getUpload(ctx, tx, bucket, key, uploadID, "{{forupdate}}"); err != nil {
			return err
		}
		var old string
		var oldSize int64
		err := s.row(ctx, tx, s.q(`SELECT blob_id, size FROM upload_parts WHERE upload_id = ? AND number = ?`), uploadID, p.Number).Scan(&old, &oldSize)
		switch {
		case err == nil:
			if err := s.enqueue(ctx, tx, []string{old}); err != nil {
				return err
			}
		case !errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("sqldb: read part: %w", err)
		}
		_, err = s.exec(ctx, tx, s.q(`INSERT INTO upload_parts (upload_id, number, blob_id, size, etag, modified, checksums) VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (upload_id, number) DO UPDATE SET blob_id = excluded.blob_id, size = excluded.size, etag = excluded.etag,
			modified = excluded.modified, checksums = excluded.checksums`),
			uploadID, p.Number, p.BlobID, p.Size, p.ETag, nanos(p.LastModified), string(checksums))
		if err != nil {
			return fmt.Errorf("sqldb: put part: %w", err)
		}
		if err := s.addUsage(ctx, tx, bucket, key, p.Size-oldSize, 0); err != nil {
			return err
		}
		if p.Size <= oldSize {
			return nil
		}
		// A part grows bytes, never the object count.
		l.BucketObjects, l.TenantObjects = 0, 0
		return s.withinLimits(ctx, tx, bucket, l)
	})
}

func (s *Store) ListParts(ctx context.Context, bucket, key, uploadID string, after, max int) ([]catalog.Part, error) {
	if _, err := s.GetUpload(ctx, bucket, key, uploadID); err != nil {
		return nil, err
	}
	rows, err := s.read.QueryContext(ctx, s.q(`SELECT number, blob_id, size, etag, modified, checksums FROM upload_parts
		WHERE upload_id = ? AND number > ? ORDER BY number LIMIT ?`), uploadID, after, limit(max))
	if err != nil {
		return nil, fmt.Errorf("sqldb: list parts: %w", err)
	}
	defer rows.Close()
	var out []catalog.Part
	for rows.Next() {
		var p catalog.Part
		var modified int64
		var checksums string
		if err := rows.Scan(&p.Number, &p.BlobID, &p.Size, &p.ETag, &modified, &checksums); err != nil {
			return nil, fmt.Errorf("sqldb: list parts: %w", err)
		}
		p.LastModified = fromNanos(modified)
		if err := json.Unmarshal([]byte(checksums), &p.Checksums); err != nil {
			return nil, fmt.Errorf("sqldb: decode checksums: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

func (s *Store) ListUploads(ctx context.Context, bucket string, q catalog.UploadQuery) ([]catalog.Upload, error) {
	cond, args, err := s.resume(ctx, resumeFrom{
		table: "uploads", timeCol: "initiated", idCol: "upload_id",
		bucket: bucket, prefix: q.Prefix, key: q.KeyMarker, id: q.UploadIDMarker, start: q.Start, inclusive: q.Inclusive,
	})
	if err != nil {
		return nil, fmt.Errorf("sqldb: list uploads: %w", err)
	}
	rows, err := s.read.QueryContext(ctx, s.q(`SELECT `+uploadCols+` FROM uploads WHERE bucket = ?`+cond+` ORDER BY key, initiated, upload_id LIMIT ?`),
		append(args, limit(q.Limit))...)
	if err != nil {
		return nil, fmt.Errorf("sqldb: list uploads: %w", err)
	}
	defer rows.Close()
	var out []catalog.Upload
	for rows.Next() {
		u, err := scanUpload(rows, bucket)
		if err != nil {
			return nil, fmt.Errorf("sqldb: list uploads: %w", err)
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

func (s *Store) CompleteUpload(ctx context.Context, uploadID string, o catalog.Object, opt catalog.PutOptions) error {
	return s.w.Write(ctx, func(tx *sql.Tx) error {
		if _, err := s.getUpload(ctx, tx, o.Bucket, o.Key, uploadID, "{{forupdate}}"); err != nil {
			return err
		}
		used := map[string]bool{}
		for _, p := range o.Parts {
			used[p.BlobID] = true
		}
		// The parts' bytes leave the upload's count here and come back as
		// the object's in putObject: counted once.
		if err := s.dropUpload(ctx, tx, o.Bucket, o.Key, uploadID, used); err != nil {
			return err
		}
		return s.putObject(ctx, tx, o, opt)
	})
}

func (s *Store) AbortUpload(ctx context.Context, bucket, key, uploadID string) error {
	return s.w.Write(ctx, func(tx *sql.Tx) error {
		if _, err := s.getUpload(ctx, tx, bucket, key, uploadID, "{{forupdate}}"); err != nil {
			return err
		}
		return s.dropUpload(ctx, tx, bucket, key, uploadID, nil)
	})
}

// dropUpload deletes an upload and its parts, takes their bytes off the
// bucket's totals and queues the blobs of the parts not kept.
func (s *Store) dropUpload(ctx context.Context, tx *sql.Tx, bucket, key, uploadID string, keep map[string]bool) error {
	rows, err := tx.QueryContext(ctx, s.q(`SELECT blob_id, size FROM upload_parts WHERE upload_id = ?`), uploadID)
	if err != nil {
		return fmt.Errorf("sqldb: read parts: %w", err)
	}
	var drop []string
	var bytes int64
	for rows.Next() {
		var id string
		var size int64
		if err := rows.Scan(&id, &size); err != nil {
			rows.Close()
			return fmt.Errorf("sqldb: read parts: %w", err)
		}
		bytes += size
		if !keep[id] {
			drop = append(drop, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("sqldb: read parts: %w", err)
	}
	if err := s.enqueue(ctx, tx, drop); err != nil {
		return err
	}
	if err := s.addUsage(ctx, tx, bucket, key, -bytes, 0); err != nil {
		return err
	}
	for _, q := range []string{`DELETE FROM upload_parts WHERE upload_id = ?`, `DELETE FROM uploads WHERE upload_id = ?`} {
		if _, err := s.exec(ctx, tx, s.q(q), uploadID); err != nil {
			return fmt.Errorf("sqldb: drop upload: %w", err)
		}
	}
	return nil
}
