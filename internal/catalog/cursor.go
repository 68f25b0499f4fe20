package catalog

import "context"

// Cursors keep where a resumable background job stopped (the lifecycle
// worker's bucket and key), so that a node taking over its lease resumes
// there rather than from the start. A job encodes its position itself.
// The SQL catalog implements it; callers detect it by type assertion.
type Cursors interface {
	// Cursor returns the job's saved position; "" if none was saved.
	Cursor(ctx context.Context, job string) (string, error)
	// SetCursor saves the job's position, replacing the last one.
	SetCursor(ctx context.Context, job, position string) error
}
