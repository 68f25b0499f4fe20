package postgres_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
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
	if want := []string{"objects_latest", "objects_locked", "objects_pkey"}; !slices.Equal(names, want) {
		t.Fatalf("indexes on objects = %v, want %v", names, want)
	}

	// Each hot query searches an index, and a page of versions sorts one
	// key's versions at a time (Incremental Sort), never the bucket's:
	// planned over 20,000 keys of three versions, ANALYZEd.
	if _, err := db.ExecContext(ctx, `INSERT INTO objects (size, modified, seq, latest, delete_marker, bucket, key, version_id, etag, owner, storage_class, meta, parts)
		SELECT 1, 1, v, CASE WHEN v = 3 THEN 1 ELSE 0 END, 0, 'b'::bytea, convert_to('k' || lpad(k::text, 6, '0'), 'UTF8'), 'v' || v, '', '', '', '', '[]'
		FROM generate_series(1, 20000) k, generate_series(1, 3) v`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `ANALYZE objects`); err != nil {
		t.Fatal(err)
	}

	// A GET's query, prepared as the catalog's connections prepare it,
	// runs by its generic plan after its first executions, in a bucket
	// the table holds none of: planned anew each time, it cost a sixth
	// of the server's CPU at 10 million objects. What keeps it generic
	// there, where ANALYZE's sample undercounts the keys, is that
	// objects_latest is unique and the keys are declared distinct.
	var unique bool
	var keyOptions string
	if err := db.QueryRowContext(ctx, `SELECT i.indisunique, array_to_string(a.attoptions, ',') FROM pg_index i, pg_attribute a
		WHERE i.indexrelid = 'objects_latest'::regclass AND a.attrelid = 'objects'::regclass AND a.attname = 'key'`).Scan(&unique, &keyOptions); err != nil {
		t.Fatal(err)
	}
	if !unique || keyOptions != "n_distinct=-1" {
		t.Errorf("objects_latest unique: %v, options of objects.key: %q; want true, n_distinct=-1", unique, keyOptions)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PREPARE get(bytea, bytea, bytea) AS SELECT `+sqldbObjectSelect+` FROM objects WHERE bucket = $2 AND key = $3 AND latest = 1`); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if _, err := conn.ExecContext(ctx, fmt.Sprintf(`EXECUTE get('small', 'small', 'k%06d')`, i)); err != nil {
			t.Fatal(err)
		}
	}
	var generic, custom int
	if err := conn.QueryRowContext(ctx, `SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = 'get'`).Scan(&generic, &custom); err != nil {
		t.Fatal(err)
	}
	if generic < 5 {
		t.Errorf("GET's query ran %d times by its generic plan and planned %d times, want the generic plan after 5", generic, custom)
	}
	for q, index := range map[string]string{
		`SELECT size, parts, inline FROM objects WHERE bucket = $1 AND key = $2 AND latest = 1`:                                     "objects_latest",
		`SELECT key, size FROM objects WHERE bucket = $1 AND latest = 1 AND delete_marker = 0 AND key > $2 ORDER BY key LIMIT 1001`: "objects_latest",
		`SELECT COALESCE(MAX(seq), 0) + 1 FROM objects WHERE bucket = $1 AND key = $2 AND latest = 1`:                               "objects_latest",
		`UPDATE objects SET latest = 0 WHERE bucket = $1 AND key = $2 AND latest = 1`:                                               "objects_latest",
		`SELECT key, version_id FROM objects WHERE bucket = $1 AND key > $2 ORDER BY key, seq DESC, version_id DESC LIMIT 1001`:     "objects_pkey",
		`SELECT version_id FROM objects WHERE bucket = $1 AND key = $2 ORDER BY seq DESC LIMIT 1`:                                   "objects_pkey",
		`SELECT size FROM objects WHERE bucket = $1 AND key = $2 AND version_id = $3`:                                               "objects_pkey",
	} {
		args := []any{[]byte("b"), []byte("k"), "v"}[:strings.Count(q, "$")]
		rows, err := db.QueryContext(ctx, `EXPLAIN `+q, args...)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var plan []string
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, strings.TrimSpace(line))
		}
		p := strings.Join(plan, "; ")
		if !strings.Contains(p, "using "+index+" on objects") || strings.Contains(p, "Seq Scan") || strings.Contains(p, "Sort Key: key,") && !strings.Contains(p, "Presorted Key: key") {
			t.Errorf("%s\n  runs as %s", q, p)
		}
	}
}

// sqldbObjectSelect is sqldb's objectSelect with PostgreSQL's parameter.
const sqldbObjectSelect = `key, version_id, latest, delete_marker, size, etag, modified,
	CASE owner WHEN '' THEN (SELECT b.owner FROM buckets b WHERE b.name = $1) WHEN '-' THEN '' ELSE owner END,
	storage_class, meta, lock_mode, retain_until, legal_hold, parts, inline`
