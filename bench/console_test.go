package bench

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/chromedp/chromedp"
	_ "modernc.org/sqlite" // the catalog's own driver, for the bulk fill

	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/test/browser/browsertest"
)

// The console's speed figures take minutes and a million
// catalog rows, so they run only when asked: bench/console.sh sets this.
func needConsoleBench(t *testing.T) {
	t.Helper()
	if os.Getenv("OSTIUM_BENCH_CONSOLE") != "1" {
		t.Skip("console benchmark: run bench/console.sh (OSTIUM_BENCH_CONSOLE=1)")
	}
}

// progress prints to stderr as the benchmark goes, so a run of minutes is
// not silent (go test holds t.Log until the test ends).
func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "  "+format+"\n", args...)
}

// consoleClient signs in to srv's console as the provider's root (an
// access-key session) and returns a client carrying the session cookie.
func consoleClient(t testing.TB, srv *nodetest.Server) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Transport: &http.Transport{MaxIdleConnsPerHost: 8, DisableCompression: true}}
	body, _ := json.Marshal(map[string]string{"access_key": nodetest.AccessKey, "secret_key": nodetest.SecretKey})
	resp, err := c.Post(srv.Console.URL+"/console/api/session", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("console sign-in: %d %s", resp.StatusCode, b)
	}
	return c
}

// rootS3 is an SDK client of srv as the provider's root.
func rootS3(srv *nodetest.Server) *s3.Client {
	return s3.New(s3.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(nodetest.AccessKey, nodetest.SecretKey, ""),
	})
}

// fillBucket creates bucket with folders x perFolder objects named
// fNNNN/oNNNNNNN, written straight into the node's SQLite catalog with the
// catalog's own driver: one object is PUT through S3, and its row is
// copied under every other key in one statement. A million PUTs would take
// the better part of an hour; the listing reads the same rows either way.
func fillBucket(t testing.TB, srv *nodetest.Server, bucket string, folders, perFolder int) {
	t.Helper()
	ctx := context.Background()
	cl := rootS3(srv)
	if _, err := cl.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	tmpl := "template"
	if _, err := cl.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(tmpl),
		Body: strings.NewReader("a small object, stored inline")}); err != nil {
		t.Fatal(err)
	}
	if srv.Catalog != "" && !strings.HasPrefix(srv.Catalog, "sqlite") {
		t.Skipf("the bulk fill writes SQLite; catalog is %s", srv.Catalog)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(srv.Dir, "catalog.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(OFF)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	start := time.Now()
	n := folders * perFolder
	progress("filling %s with %d objects (%d folders of %d) through the SQLite driver", bucket, n, folders, perFolder)
	// Every column of the template row but the key, so that the copies
	// are rows the object service wrote, whatever columns later
	// migrations add.
	rows, err := db.Query(`SELECT name FROM pragma_table_info('objects')`)
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	for rows.Next() {
		var c string
		rows.Scan(&c)
		if c != "key" {
			cols = append(cols, c)
		}
	}
	rows.Close()
	list := strings.Join(cols, ", ")
	q := fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < %d)
		INSERT INTO objects (key, %s)
		SELECT CAST(printf('f%%04d/o%%07d', i / %d, i %% %d) AS BLOB), %s
		FROM n, (SELECT * FROM objects WHERE bucket = ? AND key = ?) AS t`, n, list, perFolder, perFolder, list)
	if _, err := db.ExecContext(ctx, q, []byte(bucket), []byte(tmpl)); err != nil {
		t.Fatalf("bulk fill: %v", err)
	}
	if _, err := db.ExecContext(ctx, `DELETE FROM objects WHERE bucket = ? AND key = ?`, []byte(bucket), []byte(tmpl)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `ANALYZE`); err != nil {
		t.Fatal(err)
	}
	progress("filled in %s", time.Since(start).Round(time.Second))
}

// latencies are the durations of n calls of fn, sorted.
func latencies(t testing.TB, n int, fn func() error) []time.Duration {
	t.Helper()
	d := make([]time.Duration, 0, n)
	for range n {
		s := time.Now()
		if err := fn(); err != nil {
			t.Fatal(err)
		}
		d = append(d, time.Since(s))
	}
	slices.Sort(d)
	return d
}

func pct(d []time.Duration, p float64) time.Duration {
	return d[min(len(d)-1, int(float64(len(d))*p))]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

// TestConsoleFolderPage times the console API's list call for one page of
// a 1,000,000-object bucket (the object browser's folder view): the first
// page of a folder, a page in its middle (by the token of the page
// before) and the bucket's top level (its folders, by delimiter). The
// ceiling is the S3 endpoint's ListObjectsV2 of the same page in the same
// run; the target is 300 ms at p99.
func TestConsoleFolderPage(t *testing.T) {
	needConsoleBench(t)
	const folders, perFolder, calls = 100, 10_000, 200
	srv := nodetest.Start(t, nodetest.Options{})
	fillBucket(t, srv, "million", folders, perFolder)
	cc := consoleClient(t, srv)
	cl := rootS3(srv)
	ctx := context.Background()

	list := func(prefix, token string) (next string, count int, err error) {
		v := url.Values{"prefix": {prefix}, "delimiter": {"/"}, "max": {"1000"}}
		if token != "" {
			v.Set("token", token)
		}
		resp, err := cc.Get(srv.Console.URL + "/console/api/buckets/million/objects?" + v.Encode())
		if err != nil {
			return "", 0, err
		}
		defer resp.Body.Close()
		var page struct {
			Objects   []json.RawMessage `json:"objects"`
			Prefixes  []string          `json:"prefixes"`
			NextToken string            `json:"next_token"`
		}
		if resp.StatusCode != 200 {
			b, _ := io.ReadAll(resp.Body)
			return "", 0, fmt.Errorf("list %s: %d %s", prefix, resp.StatusCode, b)
		}
		if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
			return "", 0, err
		}
		return page.NextToken, len(page.Objects) + len(page.Prefixes), nil
	}
	s3list := func(prefix, after string) error {
		in := &s3.ListObjectsV2Input{Bucket: aws.String("million"), Prefix: aws.String(prefix), Delimiter: aws.String("/"), MaxKeys: aws.Int32(1000)}
		if after != "" {
			in.StartAfter = aws.String(after)
		}
		_, err := cl.ListObjectsV2(ctx, in)
		return err
	}
	// The middle of folder f0050: the token of the page before object 5000.
	var mid string
	{
		tok := ""
		for range 5 {
			next, _, err := list("f0050/", tok)
			if err != nil {
				t.Fatal(err)
			}
			tok = next
		}
		mid = tok
	}
	cases := []struct {
		name, prefix, token, after string
		want, calls                int
	}{
		{"folder, first page", "f0050/", "", "", 1000, calls},
		{"folder, page 6 of 10 (token)", "f0050/", mid, "f0050/o0004999", 1000, calls},
		{"top level (100 folders)", "", "", "", folders, calls},
	}
	var report []string
	for _, c := range cases {
		_, got, err := list(c.prefix, c.token)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Fatalf("%s: %d entries, want %d", c.name, got, c.want)
		}
		progress("%s: %d calls to the console API and to S3 ListObjectsV2", c.name, c.calls)
		con := latencies(t, c.calls, func() error { _, _, err := list(c.prefix, c.token); return err })
		progress("  console: p50 %s", ms(pct(con, 0.5)))
		s3l := latencies(t, c.calls, func() error { return s3list(c.prefix, c.after) })
		progress("  S3: p50 %s", ms(pct(s3l, 0.5)))
		line := fmt.Sprintf("| %s | %s | %s | %s | %s | %.2f |", c.name,
			ms(pct(con, 0.5)), ms(pct(con, 0.99)), ms(pct(s3l, 0.5)), ms(pct(s3l, 0.99)),
			float64(pct(con, 0.5))/float64(pct(s3l, 0.5)))
		progress("%s", line)
		report = append(report, line)
		if pct(con, 0.99) > 300*time.Millisecond {
			t.Errorf("%s: p99 %s, over the 300 ms target", c.name, pct(con, 0.99))
		}
	}
	fmt.Printf("\nfolder page of a %d-object bucket (SQLite catalog):\n\n", folders*perFolder)
	fmt.Println("| page | console p50 | console p99 | S3 ListObjectsV2 p50 | S3 p99 | console/S3 (p50) |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: |")
	for _, l := range report {
		fmt.Println(l)
	}
}

// bigFile writes size bytes of incompressible data to dir/name once per
// run (both uploads then read the same file from the page cache).
func bigFile(t testing.TB, dir, name string, size int64) string {
	t.Helper()
	p := filepath.Join(dir, name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 8<<20)
	var seed uint64 = 0x9e3779b97f4a7c15
	for off := int64(0); off < size; off += int64(len(buf)) {
		for i := 0; i+8 <= len(buf); i += 8 {
			seed ^= seed << 13
			seed ^= seed >> 7
			seed ^= seed << 17
			binary.LittleEndian.PutUint64(buf[i:], seed)
		}
		n := min(int64(len(buf)), size-off)
		if _, err := f.Write(buf[:n]); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// awsCp uploads path to s3://bucket/key on srv with the aws cli (its
// default multipart settings: 8 MiB parts, 10 in flight) and returns how
// long it took.
func awsCp(t testing.TB, srv *nodetest.Server, path, bucket, key string) time.Duration {
	t.Helper()
	cmd := exec.Command("aws", "--endpoint-url", srv.URL, "--region", "us-east-1", "--only-show-errors",
		"s3", "cp", path, "s3://"+bucket+"/"+key)
	cmd.Env = append(os.Environ(), "AWS_ACCESS_KEY_ID="+nodetest.AccessKey, "AWS_SECRET_ACCESS_KEY="+nodetest.SecretKey,
		"AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null")
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("aws s3 cp: %v\n%s", err, out)
	}
	return time.Since(start)
}

// TestConsoleUpload compares a 1 GiB upload from the browser (the
// console's multipart upload, from a file input, in Chromium driven by
// chromedp) with the aws cli's `aws s3 cp` of the same file to the same
// node, in alternating rounds so both see the same machine. The target is
// a browser rate of at least 0.8 of the cli's.
func TestConsoleUpload(t *testing.T) {
	needConsoleBench(t)
	browsertest.Need(t)
	if _, err := exec.LookPath("aws"); err != nil {
		t.Skip("the aws cli is missing")
	}
	rounds := 3
	if n, err := strconv.Atoi(os.Getenv("OSTIUM_BENCH_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	const size = 1 << 30
	srv := nodetest.Start(t, nodetest.Options{})
	ctx := context.Background()
	if _, err := rootS3(srv).CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("uploads")}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	progress("writing a 1 GiB file")
	path := bigFile(t, dir, "one-gib.bin", size)

	b, bctx, err := browsertest.Launch(ctx, t.TempDir(), 1280, 900)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	browsertest.Step(t, bctx, "sign in", 30*time.Second,
		browsertest.Open(srv.Console.URL, "/signin"),
		browsertest.SignInKey(nodetest.AccessKey, nodetest.SecretKey),
		chromedp.WaitVisible(browsertest.T("nav-tenants")),
	)
	rate := func(d time.Duration) float64 { return float64(size) / (1 << 20) / d.Seconds() }
	var cli, web []float64
	for r := range rounds {
		d := awsCp(t, srv, path, "uploads", fmt.Sprintf("cli-%d.bin", r))
		cli = append(cli, rate(d))
		progress("round %d: aws s3 cp %s (%.0f MiB/s)", r+1, d.Round(time.Millisecond), rate(d))

		key := "one-gib.bin"
		// A fresh page (the last round's finished upload row must not
		// answer this one) and no object, so the HEAD below sees this
		// round's upload.
		if _, err := rootS3(srv).DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("uploads"), Key: aws.String(key)}); err != nil {
			t.Fatal(err)
		}
		browsertest.Step(t, bctx, "open the bucket", 30*time.Second,
			chromedp.Navigate("about:blank"),
			browsertest.Open(srv.Console.URL, "/buckets/uploads"),
			chromedp.WaitReady(browsertest.T("upload-input")),
		)
		start := time.Now()
		browsertest.Step(t, bctx, "upload 1 GiB", 10*time.Minute,
			chromedp.SetUploadFiles(browsertest.T("upload-input"), []string{path}),
			browsertest.UploadDone(key),
		)
		d = time.Since(start)
		web = append(web, rate(d))
		progress("round %d: console upload %s (%.0f MiB/s)", r+1, d.Round(time.Millisecond), rate(d))
		h, err := rootS3(srv).HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("uploads"), Key: aws.String(key)})
		if err != nil || aws.ToInt64(h.ContentLength) != size {
			t.Fatalf("the console's upload: %v, %v", h, err)
		}
	}
	mean := func(v []float64) float64 {
		var s float64
		for _, x := range v {
			s += x
		}
		return s / float64(len(v))
	}
	ratio := mean(web) / mean(cli)
	fmt.Printf("\n1 GiB upload to one node (SQLite catalog, local disk), %d rounds, means:\n\n", rounds)
	fmt.Println("| client | MiB/s | ratio | target |")
	fmt.Println("| --- | ---: | ---: | ---: |")
	fmt.Printf("| aws s3 cp (8 MiB parts, 10 in flight) | %.0f | 1.00 | |\n", mean(cli))
	fmt.Printf("| console in Chromium (16 MiB parts, 4 in flight) | %.0f | %.2f | 0.80 |\n", mean(web), ratio)
	if ratio < 0.8 {
		t.Errorf("the console's upload reaches %.2f of the aws cli's rate, under 0.8", ratio)
	}
}
