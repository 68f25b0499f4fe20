package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ostiumio/ostium/internal/catalog/sqlite"
)

// The objects table keeps only the indexes a query needs (each costs
// disk and write work per object: see bench/results/2026-11-27-10m-objects.md),
// and each hot query still searches one of them rather than scanning
// the table: a GET's read of the current version, a list page, a PUT's
// next seq and demotion of the current version, a page of versions (its
// keys in the index's order, each key's versions sorted), a promotion
// after a delete.
func TestObjectsIndexes(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "catalog.db")
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'objects' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	if want := []string{"objects_latest", "objects_locked", "sqlite_autoindex_objects_1"}; !slices.Equal(names, want) {
		t.Fatalf("indexes on objects = %v, want %v", names, want)
	}

	for _, q := range []string{
		`SELECT size, parts, inline FROM objects WHERE bucket = ? AND key = ? AND latest = 1`,
		`SELECT key, size FROM objects WHERE bucket = ? AND latest = 1 AND delete_marker = 0 AND key > ? ORDER BY key LIMIT 1001`,
		`SELECT COALESCE(MAX(seq), 0) + 1 FROM objects WHERE bucket = ? AND key = ? AND latest = 1`,
		`UPDATE objects SET latest = 0 WHERE bucket = ? AND key = ? AND latest = 1`,
		`SELECT key, version_id FROM objects WHERE bucket = ? AND key > ? ORDER BY key, seq DESC, version_id DESC LIMIT 1001`,
		`SELECT version_id FROM objects WHERE bucket = ? AND key = ? ORDER BY seq DESC LIMIT 1`,
	} {
		rows, err := db.QueryContext(ctx, `EXPLAIN QUERY PLAN `+q, []byte("b"), []byte("k"))
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		p := strings.Join(plan, "; ")
		// Only one key's versions may be sorted whole (the promotion of
		// the newest after a removal of the latest).
		oneKey := strings.Contains(q, "key = ?")
		if !strings.Contains(p, "SEARCH objects USING") || strings.Contains(p, "SCAN objects") || !oneKey && strings.Contains(p, "TEMP B-TREE FOR ORDER BY") {
			t.Errorf("%s\n  runs as %s", q, p)
		}
	}
}
