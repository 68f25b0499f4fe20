package bench

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite" // the database/sql driver the sqlite catalog uses

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/catalog/postgres"
	"github.com/ostiumio/ostium/internal/catalog/sqlite"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/testenv"
)

// listKeys is how many keys each bucket of BenchmarkListVersioned holds.
const listKeys = 100_000

// BenchmarkListVersioned lists pages of 1,000 current objects with
// ListObjectsV2 (aws-sdk-go-v2, from random start-after keys) in a bucket
// of 100,000 keys with one version each and in one of 100,000 keys with
// ten versions each, on the same node in the same run: the second should
// cost what the first does, since a listing of current objects reads only
// latest rows (the catalog's partial index objects_latest). The ratio
// of the two is the figure (ratio: ten versions over one); bench/README.md
// records it.
//
//	go test -run '^$' -bench ListVersioned -benchtime 200x ./bench
//	OSTIUM_TEST_CATALOG=postgres OSTIUM_TEST_POSTGRES=postgres://... go test ...  # on PostgreSQL
//
// The 1.1 million rows are written by SQL in the catalog's own schema (one
// statement, rows as PutObject leaves them: seq 1 to n, latest on the
// last), since a million PUTs would take most of an hour here; the node
// then serves them as it would any other.
func BenchmarkListVersioned(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	url := testenv.CatalogURL(b)
	start := time.Now()
	fillVersioned(b, dir, url, map[string]int{"one": 1, "ten": 10})
	b.Logf("filled 100,000 keys x 1 and x 10 versions in %v", time.Since(start).Round(time.Second))

	srv := nodetest.Start(b, nodetest.Options{Config: func(c *node.Config) { c.DataDir, c.Catalog = dir, url }})
	addr := srv.Listener.Addr().String()
	tr := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}
	c := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(nodetest.AccessKey, nodetest.SecretKey, ""),
		HTTPClient:  &http.Client{Transport: tr}})
	page := func(bucket string, r *rand.Rand) error {
		from := r.IntN(listKeys - 1000)
		out, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(bucket),
			StartAfter: aws.String(fmt.Sprintf("key-%06d", from)), MaxKeys: aws.Int32(1000)})
		switch {
		case err != nil:
			return err
		case len(out.Contents) != 1000 || *out.Contents[0].Key != fmt.Sprintf("key-%06d", from+1):
			return fmt.Errorf("%s: page from %d holds %d keys", bucket, from, len(out.Contents))
		}
		return nil
	}
	// Warm both (the first reads fill the page cache), then measure them
	// alternately, so that the machine's drift weighs on both alike.
	r := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		for _, bucket := range []string{"one", "ten"} {
			if err := page(bucket, r); err != nil {
				b.Fatal(err)
			}
		}
	}
	// A sub-benchmark, so that the parent fills the catalog once however
	// many times the framework runs the loop to find b.N.
	b.Run("page=1000", func(b *testing.B) {
		var spent [2]time.Duration
		for i := range b.N {
			for k := range 2 {
				which := (i + k) % 2 // which bucket goes first alternates too
				t0 := time.Now()
				if err := page([]string{"one", "ten"}[which], r); err != nil {
					b.Fatal(err)
				}
				spent[which] += time.Since(t0)
			}
		}
		one, ten := spent[0].Seconds()*1000/float64(b.N), spent[1].Seconds()*1000/float64(b.N)
		b.ReportMetric(one, "ms/page-1v")
		b.ReportMetric(ten, "ms/page-10v")
		b.ReportMetric(ten/one, "ratio")
		b.ReportMetric(0, "ns/op") // two pages an op: the figures above say it
	})
	explain(b, dir, url)
}

// listQuery is the catalog's listing of current objects (sqldb's
// ListObjects from a start key), whose plans explain logs.
const listQuery = `SELECT key, version_id, size FROM objects WHERE bucket = ? AND latest = 1 AND delete_marker = 0 AND key > ? ORDER BY key LIMIT 1001`

// versionsQuery is the catalog's listing of versions (sqldb's
// ListVersions from a key marker): keys in the primary key's order, each
// key's versions sorted newest first.
const versionsQuery = `SELECT key, version_id, size FROM objects WHERE bucket = ? AND key > ? ORDER BY key, seq DESC, version_id DESC LIMIT 1001`

// explain logs how the database runs the listings in each bucket.
func explain(b *testing.B, dir, url string) {
	explainQuery(b, dir, url, listQuery, "one", "ten")
	explainQuery(b, dir, url, versionsQuery, "ten")
}

func explainQuery(b *testing.B, dir, url, listQuery string, buckets ...string) {
	ctx := context.Background()
	for _, bucket := range buckets {
		var plan []string
		if url == "" {
			db, err := sql.Open("sqlite", filepath.Join(dir, "catalog.db")+"?mode=ro")
			if err != nil {
				b.Fatal(err)
			}
			rows, err := db.QueryContext(ctx, `EXPLAIN QUERY PLAN `+listQuery, []byte(bucket), []byte("key-050000"))
			if err != nil {
				b.Fatal(err)
			}
			for rows.Next() {
				var id, parent, unused int
				var detail string
				rows.Scan(&id, &parent, &unused, &detail)
				plan = append(plan, detail)
			}
			rows.Close()
			// The query alone, without the node and the protocol around it.
			t0 := time.Now()
			for i := range 200 {
				rows, err := db.QueryContext(ctx, listQuery, []byte(bucket), []byte(fmt.Sprintf("key-%06d", i*397%(listKeys-1001))))
				if err != nil {
					b.Fatal(err)
				}
				for rows.Next() {
				}
				rows.Close()
			}
			plan = append(plan, fmt.Sprintf("query alone: %.2f ms", time.Since(t0).Seconds()*1000/200))
			db.Close()
		} else {
			conn, err := pgx.Connect(ctx, url)
			if err != nil {
				b.Fatal(err)
			}
			rows, err := conn.Query(ctx, `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) `+strings.ReplaceAll(strings.Replace(listQuery, "?", "$1", 1), "?", "$2"),
				[]byte(bucket), []byte("key-050000"))
			if err != nil {
				b.Fatal(err)
			}
			for rows.Next() {
				var line string
				rows.Scan(&line)
				plan = append(plan, line)
			}
			rows.Close()
			conn.Close(ctx)
		}
		b.Logf("plan in %s of %s:\n\t%s", bucket, listQuery, strings.Join(plan, "\n\t"))
	}
}

// fillVersioned creates each bucket of versions (name -> versions per
// key) with listKeys keys, in the catalog a node at dir with catalog url
// will open.
func fillVersioned(b *testing.B, dir, url string, versions map[string]int) {
	ctx := context.Background()
	var cat catalog.Store
	var err error
	if url == "" {
		cat, err = sqlite.Open(ctx, filepath.Join(dir, "catalog.db"))
	} else {
		cat, err = postgres.Open(ctx, url, 0)
	}
	if err != nil {
		b.Fatal(err)
	}
	for name := range versions {
		if err := cat.CreateBucket(ctx, catalog.Bucket{Name: name, Owner: "bench", Region: "us-east-1", CreatedAt: time.Now()}); err != nil {
			b.Fatal(err)
		}
	}
	if err := cat.Close(); err != nil {
		b.Fatal(err)
	}
	const cols = `bucket, key, version_id, latest, delete_marker, size, etag, modified, owner, storage_class, meta, parts, inline, seq`
	const etag = `"d41d8cd98f00b204e9800998ecf8427e"` // of no bytes
	now := time.Now().UnixNano()
	if url == "" {
		db, err := sql.Open("sqlite", filepath.Join(dir, "catalog.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		for name, n := range versions {
			_, err := db.ExecContext(ctx, `WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < ?),
				v(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM v WHERE j < ?)
				INSERT INTO objects (`+cols+`)
				SELECT CAST(? AS BLOB), CAST(printf('key-%06d', i) AS BLOB), printf('v%02d', j), j = ?, 0, 0, ?, ?, 'bench', 'STANDARD', '{}', '[]', NULL, j
				FROM k, v`, listKeys-1, n, name, n, etag, now)
			if err != nil {
				b.Fatal(err)
			}
		}
		return
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	for name, n := range versions {
		_, err := conn.Exec(ctx, `INSERT INTO objects (`+cols+`)
			SELECT $1::bytea, convert_to('key-' || lpad(i::text, 6, '0'), 'UTF8'), 'v' || lpad(j::text, 2, '0'),
				CASE WHEN j = $2 THEN 1 ELSE 0 END, 0, 0, $3, $4, 'bench', 'STANDARD', '{}', '[]', NULL, j
			FROM generate_series(0, $5::int - 1) i, generate_series(1, $2::int) j`, []byte(name), n, etag, now, listKeys)
		if err != nil {
			b.Fatal(err)
		}
	}
	// What autovacuum does to a table this size soon after such a load.
	if _, err := conn.Exec(ctx, `ANALYZE objects`); err != nil {
		b.Fatal(err)
	}
}
