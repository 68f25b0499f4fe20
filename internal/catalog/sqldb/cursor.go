package sqldb

import (
	"context"
	"database/sql"
	"errors"

	"github.com/ostiumio/ostium/internal/catalog"
)

var _ catalog.Cursors = (*Store)(nil)

func (s *Store) Cursor(ctx context.Context, job string) (string, error) {
	var pos string
	err := s.row(ctx, nil, s.q(`SELECT position FROM job_cursors WHERE job = ?`), job).Scan(&pos)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return pos, wrap("read cursor "+job, err)
}

func (s *Store) SetCursor(ctx context.Context, job, position string) error {
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		_, err := s.exec(ctx, tx, s.q(`INSERT INTO job_cursors (job, position) VALUES (?, ?)
			ON CONFLICT (job) DO UPDATE SET position = excluded.position`), job, position)
		return err
	})
	return wrap("save cursor "+job, err)
}
