package sqldb_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/catalog/postgres"
	"github.com/ostiumio/ostium/internal/catalog/sqldb"
	"github.com/ostiumio/ostium/internal/catalog/sqlite"
	"github.com/ostiumio/ostium/internal/testenv"
)

// The migrations' view of each driver's dialect: their names and types.
var (
	sqliteDialect   = sqldb.Dialect{Name: "sqlite", Bytes: "BLOB", Serial: "INTEGER PRIMARY KEY AUTOINCREMENT"}
	postgresDialect = sqldb.Dialect{Name: "postgres", Bytes: "BYTEA", Serial: "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY", Numbered: true}
)

// Migrations 0046 to 0048 narrow the objects row: a catalog filled
// before them reads back the same after them, every column of every
// version; its rows keep the bucket owner's id and STANDARD in one byte
// each, and PostgreSQL's its MD5 ETags as bytes.
func TestObjectsRowMigration(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "catalog.db")
		db, err := sql.Open("sqlite", "file:"+path)
		if err != nil {
			t.Fatal(err)
		}
		testObjectsRowMigration(t, db, sqliteDialect, func(ctx context.Context) (catalog.Store, error) { return sqlite.Open(ctx, path) })
	})
	t.Run("postgres", func(t *testing.T) {
		url := testenv.FreshPostgres(t)
		db, err := sql.Open("pgx", url)
		if err != nil {
			t.Fatal(err)
		}
		testObjectsRowMigration(t, db, postgresDialect, func(ctx context.Context) (catalog.Store, error) { return postgres.Open(ctx, url, 0) })
	})
}

func testObjectsRowMigration(t *testing.T, db *sql.DB, d sqldb.Dialect, open func(context.Context) (catalog.Store, error)) {
	ctx := context.Background()
	defer db.Close()
	q := func(s string) string { // ? as $n where the dialect numbers
		if !d.Numbered {
			return s
		}
		out, n := []byte{}, 0
		for i := 0; i < len(s); i++ {
			if s[i] == '?' {
				n++
				out = append(out, '$')
				out = append(out, strconv.Itoa(n)...)
				continue
			}
			out = append(out, s[i])
		}
		return string(out)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := sqldb.MigrateTo(ctx, tx, d, "0042_objects_index_diet"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}

	const alice = "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1"
	const bob = "b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2"
	if _, err := db.ExecContext(ctx, q(`INSERT INTO buckets (name, owner, region, created) VALUES (?, ?, 'us-east-1', 1)`), []byte("photos"), alice); err != nil {
		t.Fatal(err)
	}
	// The rows a catalog before 0046 held: the owner's id and the class
	// written out, versions of one key, a delete marker, a locked
	// version, an object of another owner and one of none, a blob-backed
	// version next to inline ones.
	type row struct {
		key, version                  string
		latest, marker                int
		size                          int64
		etag                          string
		modified                      int64
		owner, class, meta, lock      string
		until                         int64
		hold                          int
		parts                         string
		inline                        []byte
		seq                           int64
		wantOwner, wantClass, storeAs string
	}
	rows := []row{
		{"a.txt", "v1", 0, 0, 5, `"5d41402abc4b2a76b9719d911017c592"`, 100, alice, "STANDARD", `{"ct":"text/plain"}`, "", 0, 0, `[]`, []byte("hello"), 1, alice, "STANDARD", ""},
		{"a.txt", "v2", 0, 1, 0, "", 200, alice, "STANDARD", `{}`, "", 0, 0, `[]`, nil, 2, alice, "STANDARD", ""},
		{"a.txt", "v3", 1, 0, 3, `"0123456789abcdef0123456789abcdef-3"`, 300, bob, "GLACIER", `{"ct":"x/y"}`, "COMPLIANCE", 9e18, 1, `[{"n":1,"b":"blob-1","s":3}]`, nil, 3, bob, "GLACIER", bob},
		{"b.txt", "null", 1, 0, 2, `"e4"`, 400, "", "", `{}`, "", 0, 0, `[]`, []byte("hi"), 1, "", "", "-"},
		{"c.txt", "null", 1, 0, 1, `"e5"`, 500, alice, "STANDARD_IA", `{}`, "", 0, 0, `[]`, []byte("c"), 1, alice, "STANDARD_IA", ""},
		// Content types that must stay JSON: one with an escape, one that
		// starts as JSON does.
		{"e.txt", "null", 1, 0, 1, `"e6"`, 600, alice, "STANDARD", `{"ct":"a\u003cb"}`, "", 0, 0, `[]`, []byte("e"), 1, alice, "STANDARD", ""},
		{"f.txt", "null", 1, 0, 1, `"e7"`, 700, alice, "STANDARD", `{"ct":"{x"}`, "", 0, 0, `[]`, []byte("f"), 1, alice, "STANDARD", ""},
	}
	for _, r := range rows {
		_, err := db.ExecContext(ctx, q(`INSERT INTO objects (bucket, key, version_id, latest, delete_marker, size, etag, modified, owner, storage_class, meta,
			lock_mode, retain_until, legal_hold, parts, inline, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
			[]byte("photos"), []byte(r.key), r.version, r.latest, r.marker, r.size, r.etag, r.modified, r.owner, r.class, r.meta,
			r.lock, r.until, r.hold, r.parts, r.inline, r.seq)
		if err != nil {
			t.Fatal(err)
		}
	}

	s, err := open(ctx) // migrates
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	versions, err := s.ListVersions(ctx, "photos", catalog.VersionQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	// Newest first within a key.
	want := []row{rows[2], rows[1], rows[0], rows[3], rows[4], rows[5], rows[6]}
	if len(versions) != len(want) {
		t.Fatalf("%d versions after the migration, want %d: %+v", len(versions), len(want), versions)
	}
	for i, v := range versions {
		w := want[i]
		if v.Key != w.key || v.VersionID != w.version || v.IsLatest != (w.latest == 1) || v.DeleteMarker != (w.marker == 1) ||
			v.Size != w.size || v.ETag != w.etag || v.LastModified.UnixNano() != w.modified || v.Owner != w.wantOwner || v.StorageClass != w.wantClass {
			t.Errorf("version %d after the migration = %+v, want %+v", i, v, w)
		}
	}
	got, err := s.GetObject(ctx, "photos", "a.txt", "")
	if err != nil {
		t.Fatal(err)
	}
	if got.VersionID != "v3" || got.Owner != bob || got.StorageClass != "GLACIER" || got.Lock.Mode != "COMPLIANCE" || !got.Lock.LegalHold ||
		len(got.Parts) != 1 || got.Parts[0].BlobID != "blob-1" || got.Meta.ContentType != "x/y" {
		t.Errorf("current a.txt after the migration = %+v", got)
	}
	got, err = s.GetObject(ctx, "photos", "a.txt", "v1")
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Inline) != "hello" || got.Owner != alice || got.StorageClass != "STANDARD" || got.Meta.ContentType != "text/plain" {
		t.Errorf("a.txt v1 after the migration = %+v", got)
	}
	list, err := s.ListObjects(ctx, "photos", catalog.ListQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 5 || list[3].Meta.ContentType != "a<b" || list[4].Meta.ContentType != "{x" || list[0].Key != "a.txt" || list[0].Owner != bob || list[1].Owner != "" || list[2].Owner != alice || list[2].StorageClass != "STANDARD_IA" {
		t.Errorf("list after the migration = %+v", list)
	}

	// What the rows hold: the bucket owner's id and STANDARD as nothing.
	for _, r := range rows {
		var owner, class string
		err := db.QueryRowContext(ctx, q(`SELECT owner, storage_class FROM objects WHERE bucket = ? AND key = ? AND version_id = ?`),
			[]byte("photos"), []byte(r.key), r.version).Scan(&owner, &class)
		if err != nil {
			t.Fatal(err)
		}
		wantClass := map[string]string{"STANDARD": "", "": "-"}[r.class]
		if _, ok := map[string]bool{"STANDARD": true, "": true}[r.class]; !ok {
			wantClass = r.class
		}
		if owner != r.storeAs || class != wantClass {
			t.Errorf("%s %s stored as owner %q class %q, want %q %q", r.key, r.version, owner, class, r.storeAs, wantClass)
		}
	}

	// PostgreSQL's rewrite of the table by 0048 packed the ETags that
	// are MD5s, the metadata that is only a content type and the empty
	// parts; SQLite's rows written before stay as they were.
	pg := d.Name == "postgres"
	for _, c := range []struct {
		key, version            string
		etagLen                 int
		meta, parts             string
		sqliteMeta, sqliteParts string
	}{
		{"a.txt", "v1", 17, "text/plain", "", `{"ct":"text/plain"}`, "[]"},
		{"a.txt", "v3", 18, "x/y", `[{"n":1,"b":"blob-1","s":3}]`, `{"ct":"x/y"}`, `[{"n":1,"b":"blob-1","s":3}]`},
		{"b.txt", "null", 4, "{}", "", "{}", "[]"},
	} {
		var n int
		var meta, parts string
		if err := db.QueryRowContext(ctx, q(`SELECT length(etag), meta, parts FROM objects WHERE bucket = ? AND key = ? AND version_id = ?`),
			[]byte("photos"), []byte(c.key), c.version).Scan(&n, &meta, &parts); err != nil {
			t.Fatal(err)
		}
		want := rows[0].etag
		for _, r := range rows {
			if r.key == c.key && r.version == c.version {
				want = r.etag
			}
		}
		wantLen, wantMeta, wantParts := len(want), c.sqliteMeta, c.sqliteParts
		if pg {
			wantLen, wantMeta, wantParts = c.etagLen, c.meta, c.parts
		}
		if n != wantLen || meta != wantMeta || parts != wantParts {
			t.Errorf("%s %s stored with an ETag of %d bytes, meta %q, parts %q; want %d, %q, %q", c.key, c.version, n, meta, parts, wantLen, wantMeta, wantParts)
		}
	}

	// A PUT after the migration stores the bucket owner's id, the ETag
	// and a lone content type packed, and reads them back.
	const md5 = `"8277e0910d750195b448797616e091ad"`
	o := catalog.Object{Bucket: "photos", Key: "d.txt", VersionID: "null", Size: 1, ETag: md5, Owner: alice, StorageClass: "STANDARD",
		Meta: catalog.Meta{ContentType: "application/octet-stream"}, Inline: []byte("d")}
	if err := s.PutObject(ctx, o, catalog.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	var owner, class, meta string
	var etagLen int
	if err := db.QueryRowContext(ctx, q(`SELECT owner, storage_class, meta, length(etag) FROM objects WHERE bucket = ? AND key = ?`),
		[]byte("photos"), []byte("d.txt")).Scan(&owner, &class, &meta, &etagLen); err != nil {
		t.Fatal(err)
	}
	if owner != "" || class != "" || meta != "" || etagLen != 17 {
		t.Errorf("a new PUT stored owner %q class %q meta %q and an ETag of %d bytes, want all empty and 17", owner, class, meta, etagLen)
	}
	if got, err := s.GetObject(ctx, "photos", "d.txt", ""); err != nil || got.Owner != alice || got.StorageClass != "STANDARD" ||
		got.ETag != md5 || got.Meta.ContentType != "application/octet-stream" {
		t.Errorf("d.txt = %+v, %v; want owner %s, STANDARD, ETag %s, application/octet-stream", got, err, alice, md5)
	}
}
