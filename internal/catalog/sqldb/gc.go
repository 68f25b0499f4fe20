package sqldb

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

func (s *Store) GCPending(ctx context.Context, before time.Time, max int) ([]catalog.GCEntry, error) {
	rows, err := s.read.QueryContext(ctx, s.q(`SELECT blob_id, enqueued FROM gc_queue WHERE enqueued < ? ORDER BY enqueued LIMIT ?`), nanos(before), limit(max))
	if err != nil {
		return nil, fmt.Errorf("sqldb: gc pending: %w", err)
	}
	defer rows.Close()
	var out []catalog.GCEntry
	for rows.Next() {
		var e catalog.GCEntry
		var enq int64
		if err := rows.Scan(&e.BlobID, &enq); err != nil {
			return nil, fmt.Errorf("sqldb: gc pending: %w", err)
		}
		e.Enqueued = fromNanos(enq)
		out = append(out, e)
	}
	return out, rows.Err()
}

func (s *Store) GCDone(ctx context.Context, ids []string) error {
	for len(ids) > 0 {
		n := min(len(ids), 500)
		batch := ids[:n]
		ids = ids[n:]
		err := s.w.Write(ctx, func(tx *sql.Tx) error {
			_, err := s.exec(ctx, tx, s.q(`DELETE FROM gc_queue WHERE blob_id IN (`+placeholders(len(batch))+`)`), strArgs(batch)...)
			return err
		})
		if err != nil {
			return fmt.Errorf("sqldb: gc done: %w", err)
		}
	}
	return nil
}

// Referenced looks the ids up in every table that can hold a blob.
func (s *Store) Referenced(ctx context.Context, ids []string) (map[string]bool, error) {
	out := map[string]bool{}
	for len(ids) > 0 {
		n := min(len(ids), 500)
		batch := ids[:n]
		ids = ids[n:]
		in := `(` + placeholders(len(batch)) + `)`
		for _, table := range []string{"object_blobs", "upload_parts", "gc_queue"} {
			rows, err := s.read.QueryContext(ctx, s.q(`SELECT blob_id FROM `+table+` WHERE blob_id IN `+in), strArgs(batch)...)
			if err != nil {
				return nil, fmt.Errorf("sqldb: referenced: %w", err)
			}
			for rows.Next() {
				var id string
				if err := rows.Scan(&id); err != nil {
					rows.Close()
					return nil, fmt.Errorf("sqldb: referenced: %w", err)
				}
				out[id] = true
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return nil, fmt.Errorf("sqldb: referenced: %w", err)
			}
		}
	}
	return out, nil
}

func strArgs(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
