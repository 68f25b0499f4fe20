package postgres_test

import (
	"context"
	"database/sql"
	"slices"
	"testing"

	"github.com/ostiumio/ostium/internal/catalog/postgres"
	"github.com/ostiumio/ostium/internal/testenv"
)

// The objects table keeps only the indexes a query needs: each costs
// disk and write work per object (bench/results/2026-11-27-10m-objects.md
// has what each costs at 10 million objects and the plans of the hot
// queries).
func TestObjectsIndexes(t *testing.T) {
	ctx := context.Background()
	url := testenv.FreshPostgres(t)
	s, err := postgres.Open(ctx, url, 0)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT indexname FROM pg_indexes WHERE tablename = 'objects' ORDER BY indexname`)
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
	if want := []string{"objects_current", "objects_locked", "objects_pkey", "objects_seq"}; !slices.Equal(names, want) {
		t.Fatalf("indexes on objects = %v, want %v", names, want)
	}
}
