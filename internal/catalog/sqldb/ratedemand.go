package sqldb

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"time"
)

// demandRetention is how long a node's demand rows stay after it last
// wrote them: long past any reader's window, so the table holds only the
// live nodes' rows and a few of the dead.
const demandRetention = time.Minute

func (s *Store) ShareDemand(ctx context.Context, node string, demand map[string]int64, since time.Time) (map[string]int64, error) {
	if len(demand) == 0 {
		return map[string]int64{}, nil
	}
	scopes := make([]string, 0, len(demand))
	for scope := range demand {
		scopes = append(scopes, scope)
	}
	sort.Strings(scopes) // one order for every node: no deadlock between their upserts
	now := time.Now()
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		for _, scope := range scopes {
			if _, err := s.exec(ctx, tx, s.q(`INSERT INTO rate_demand (node, scope, demand, at) VALUES (?, ?, ?, ?)
				ON CONFLICT (scope, node) DO UPDATE SET demand = excluded.demand, at = excluded.at`),
				node, scope, demand[scope], nanos(now)); err != nil {
				return err
			}
		}
		_, err := s.exec(ctx, tx, s.q(`DELETE FROM rate_demand WHERE at < ?`), nanos(now.Add(-demandRetention)))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("sqldb: share demand: %w", err)
	}
	args := make([]any, 0, len(scopes)+1)
	args = append(args, nanos(since))
	for _, scope := range scopes {
		args = append(args, scope)
	}
	rows, err := s.read.QueryContext(ctx, s.q(`SELECT scope, SUM(demand) FROM rate_demand WHERE at >= ? AND scope IN (`+placeholders(len(scopes))+`) GROUP BY scope`), args...)
	if err != nil {
		return nil, fmt.Errorf("sqldb: share demand: %w", err)
	}
	defer rows.Close()
	out := make(map[string]int64, len(scopes))
	for rows.Next() {
		var scope string
		var n int64
		if err := rows.Scan(&scope, &n); err != nil {
			return nil, fmt.Errorf("sqldb: share demand: %w", err)
		}
		out[scope] = n
	}
	return out, wrap("share demand", rows.Err())
}
