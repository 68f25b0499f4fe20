package sqldb

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

// maxEventPayload bounds what one event may carry: consumers encode a
// version's description, never its data.
const maxEventPayload = 64 << 10

// addEvents queues events within tx, naming the object they are about
// where o is given (a write or removal fills in what it wrote).
func (s *Store) addEvents(ctx context.Context, tx *sql.Tx, events []catalog.Event, o *catalog.Object) error {
	now := time.Now()
	for _, e := range events {
		if o != nil {
			e.Bucket, e.Key, e.VersionID = o.Bucket, o.Key, o.VersionID
		}
		if e.Sink == "" || len(e.Payload) > maxEventPayload {
			return fmt.Errorf("sqldb: event %q for sink %q: no sink or a payload of %d bytes", e.Name, e.Sink, len(e.Payload))
		}
		due := e.NotBefore
		if due.IsZero() {
			due = now
		}
		payload := e.Payload
		if payload == nil {
			payload = []byte{}
		}
		_, err := s.exec(ctx, tx, s.q(`INSERT INTO object_events (sink, bucket, key, version_id, name, payload, created, attempts, not_before, last_error)
			VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, '')`),
			e.Sink, []byte(e.Bucket), []byte(e.Key), e.VersionID, e.Name, payload, nanos(now), nanos(due))
		if err != nil {
			return fmt.Errorf("sqldb: queue event %s: %w", e.Name, err)
		}
	}
	return nil
}

func (s *Store) AddEvents(ctx context.Context, events []catalog.Event) error {
	if len(events) == 0 {
		return nil
	}
	return wrap("add events", s.w.Write(ctx, func(tx *sql.Tx) error { return s.addEvents(ctx, tx, events, nil) }))
}

func (s *Store) DueEvents(ctx context.Context, sink string, max int) ([]catalog.Event, error) {
	rows, err := s.read.QueryContext(ctx, s.q(`SELECT id, bucket, key, version_id, name, payload, created, attempts, not_before, last_error
		FROM object_events e WHERE sink = ? AND not_before <= ?
		AND NOT EXISTS (SELECT 1 FROM object_events p WHERE p.sink = e.sink AND p.bucket = e.bucket AND p.key = e.key AND p.id < e.id)
		ORDER BY id LIMIT ?`), sink, nanos(time.Now()), limit(max))
	if err != nil {
		return nil, fmt.Errorf("sqldb: due events: %w", err)
	}
	defer rows.Close()
	var out []catalog.Event
	for rows.Next() {
		e := catalog.Event{Sink: sink}
		var bucket, key []byte
		var created, due int64
		if err := rows.Scan(&e.ID, &bucket, &key, &e.VersionID, &e.Name, &e.Payload, &created, &e.Attempts, &due, &e.LastError); err != nil {
			return nil, fmt.Errorf("sqldb: due events: %w", err)
		}
		e.Bucket, e.Key, e.CreatedAt, e.NotBefore = string(bucket), string(key), fromNanos(created), fromNanos(due)
		out = append(out, e)
	}
	return out, wrap("due events", rows.Err())
}

func (s *Store) AckEvents(ctx context.Context, ids ...int64) error {
	for len(ids) > 0 {
		batch := ids[:min(len(ids), 500)]
		ids = ids[len(batch):]
		args := make([]any, len(batch))
		for i, id := range batch {
			args[i] = id
		}
		err := s.w.Write(ctx, func(tx *sql.Tx) error {
			_, err := s.exec(ctx, tx, s.q(`DELETE FROM object_events WHERE id IN (`+placeholders(len(batch))+`)`), args...)
			return err
		})
		if err != nil {
			return fmt.Errorf("sqldb: ack events: %w", err)
		}
	}
	return nil
}

func (s *Store) RetryEvent(ctx context.Context, id int64, notBefore time.Time, lastErr string) error {
	return wrap("retry event", s.w.Write(ctx, func(tx *sql.Tx) error {
		_, err := s.exec(ctx, tx, s.q(`UPDATE object_events SET attempts = attempts + 1, not_before = ?, last_error = ? WHERE id = ?`),
			nanos(notBefore), clip(lastErr), id)
		return err
	}))
}

func (s *Store) Backlog(ctx context.Context, sink, bucket string) (int64, time.Time, error) {
	q, args := `SELECT COUNT(*), COALESCE(MIN(created), 0) FROM object_events WHERE sink = ?`, []any{sink}
	if bucket != "" {
		q, args = q+` AND bucket = ?`, append(args, []byte(bucket))
	}
	var n, oldest int64
	if err := s.row(ctx, nil, s.q(q), args...).Scan(&n, &oldest); err != nil {
		return 0, time.Time{}, fmt.Errorf("sqldb: event backlog: %w", err)
	}
	if n == 0 {
		return 0, time.Time{}, nil
	}
	return n, fromNanos(oldest), nil
}
