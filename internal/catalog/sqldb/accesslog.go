package sqldb

import (
	"context"
	"database/sql"

	"github.com/ostiumio/ostium/internal/catalog"
)

func (s *Store) QueueAccessLogs(ctx context.Context, recs []catalog.AccessLogRecord, max int) (int, error) {
	if len(recs) == 0 {
		return 0, nil
	}
	dropped := 0
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		dropped = 0
		// Counting at most max rows keeps the check's cost bounded however
		// far delivery lags.
		var n int
		if err := s.row(ctx, tx, s.q(`SELECT COUNT(*) FROM (SELECT 1 FROM access_log_queue LIMIT ?) q`), max).Scan(&n); err != nil {
			return err
		}
		room := max - n
		for i, r := range recs {
			if i >= room {
				dropped = len(recs) - i
				break
			}
			_, err := s.exec(ctx, tx, s.q(`INSERT INTO access_log_queue (id, source, target, key_prefix, partition_by, logged, line)
				VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`),
				r.ID, []byte(r.Source), []byte(r.Target), r.KeyPrefix, r.Partition, nanos(r.Time), r.Line)
			if err != nil {
				return err
			}
		}
		return nil
	})
	return dropped, wrap("queue access logs", err)
}

func (s *Store) PendingAccessLogs(ctx context.Context, n int) ([]catalog.AccessLogRecord, error) {
	return queryAll(ctx, s, "pending access logs", func(sc interface{ Scan(...any) error }) (catalog.AccessLogRecord, error) {
		var r catalog.AccessLogRecord
		var source, target []byte
		var logged int64
		err := sc.Scan(&r.ID, &source, &target, &r.KeyPrefix, &r.Partition, &logged, &r.Line)
		r.Source, r.Target, r.Time = string(source), string(target), fromNanos(logged)
		return r, err
	}, `SELECT id, source, target, key_prefix, partition_by, logged, line FROM access_log_queue ORDER BY id LIMIT ?`, limit(n))
}

func (s *Store) AccessLogsDone(ctx context.Context, ids []string) error {
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		// One statement, prepared once, for any number of ids.
		for _, id := range ids {
			if _, err := s.exec(ctx, tx, s.q(`DELETE FROM access_log_queue WHERE id = ?`), id); err != nil {
				return err
			}
		}
		return nil
	})
	return wrap("access logs done", err)
}
