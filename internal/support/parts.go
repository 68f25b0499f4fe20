package support

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/blob/s3blob"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/catalog/postgres"
	"github.com/ostiumio/ostium/internal/catalog/sqlite"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/platform"
)

// partTimeout bounds each part that asks a catalog, a platform or a node.
const partTimeout = 30 * time.Second

// signRequest signs a bodiless request as `ostium admin` does.
func signRequest(ctx context.Context, req *http.Request, ak, sk string) error {
	if ak == "" || sk == "" {
		return errors.New("no root credentials (OSTIUM_ROOT_ACCESS_KEY and OSTIUM_ROOT_SECRET_KEY, or --access-key and --secret-key)")
	}
	sum := sha256.Sum256(nil)
	hash := hex.EncodeToString(sum[:])
	req.Header.Set("X-Amz-Content-Sha256", hash)
	return v4.NewSigner().SignHTTP(ctx, aws.Credentials{AccessKeyID: ak, SecretAccessKey: sk}, req, hash, "s3", "us-east-1", time.Now())
}

// health asks the running node's readiness check, which reports its
// catalog, platforms and job leases; without an endpoint, on the node,
// it opens the catalog and the platforms itself and asks them.
func (c *collector) health(ctx context.Context) (result, error) {
	ctx, cancel := context.WithTimeout(ctx, partTimeout)
	defer cancel()
	if c.o.Endpoint != "" {
		b, status, err := c.get(ctx, "/health/ready", false)
		if err != nil {
			return result{data: b}, err
		}
		r := result{data: b, note: fmt.Sprintf("GET /health/ready: %d", status)}
		if status != http.StatusOK && status != http.StatusServiceUnavailable {
			return r, fmt.Errorf("GET /health/ready: status %d", status)
		}
		return r, nil
	}
	cfg, err := c.nodeConfig()
	if err != nil {
		return result{}, fmt.Errorf("neither --endpoint nor a usable --config: %w", err)
	}
	out := struct {
		Catalog   string            `json:"catalog"`
		Platforms map[string]string `json:"platforms"`
		From      string            `json:"from"`
	}{Catalog: "ok", Platforms: map[string]string{}, From: "this host, with the configuration (no --endpoint)"}
	var errs []error
	if st, err := openCatalog(ctx, *cfg); err != nil {
		out.Catalog, errs = err.Error(), append(errs, err)
	} else {
		if _, err := st.IdentityGeneration(ctx); err != nil {
			out.Catalog, errs = err.Error(), append(errs, fmt.Errorf("catalog: %w", err))
		}
		st.Close()
	}
	specs := cfg.Platforms
	if len(specs) == 0 {
		specs = map[string]platform.Spec{platform.Legacy: {Type: platform.TypeFS, Path: filepath.Join(cfg.DataDir, "blobs")}}
	}
	// A directory platform is looked at, not opened (which would make
	// it); the others are asked once each, without retries, as the
	// node's health check asks them.
	for name, spec := range specs {
		out.Platforms[name] = "ok"
		var err error
		if spec.Type == platform.TypeFS {
			var fi os.FileInfo
			if fi, err = os.Stat(spec.Path); err == nil && !fi.IsDir() {
				err = fmt.Errorf("%s is not a directory", spec.Path)
			}
		} else {
			err = checkS3(ctx, spec.S3)
		}
		if err != nil {
			out.Platforms[name], errs = err.Error(), append(errs, fmt.Errorf("platform %s: %w", name, err))
		}
	}
	b, _ := json.MarshalIndent(out, "", "  ")
	return result{data: b}, errors.Join(errs...)
}

func checkS3(ctx context.Context, cfg s3blob.Config) error {
	cfg.Retries = -1
	st, err := s3blob.Open(cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return st.Check(ctx)
}

// nodeConfig is the decoded configuration, or why there is none.
func (c *collector) nodeConfig() (*node.Config, error) {
	switch {
	case c.cfg != nil:
		return c.cfg, nil
	case c.cfgErr != nil:
		return nil, c.cfgErr
	}
	return nil, errors.New("no configuration file given (--config)")
}

// openCatalog opens the node's catalog for reading statistics. A SQLite
// catalog that is not there is refused rather than made: a bundle taken
// with the wrong data directory must not leave an empty catalog behind.
func openCatalog(ctx context.Context, cfg node.Config) (catalog.Store, error) {
	var path string
	switch {
	case cfg.Catalog == "":
		path = filepath.Join(cfg.DataDir, "catalog.db")
	case strings.HasPrefix(cfg.Catalog, "sqlite://"):
		u, err := url.Parse(cfg.Catalog)
		if err != nil || u.Path == "" {
			return nil, errors.New("catalog: not a sqlite:///path URL")
		}
		path = u.Host + u.Path
	default:
		// Two connections: the bundle reads, one query at a time.
		return postgres.Open(ctx, cfg.Catalog, 2)
	}
	if err := checkOwner(path); err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	return sqlite.Open(ctx, path)
}

// Stats are the catalog's statistics in a bundle.
type Stats struct {
	Tenants  int   `json:"tenants"`
	Buckets  int   `json:"buckets"`
	Objects  int64 `json:"objects"`
	Bytes    int64 `json:"bytes"`
	Uploads  int   `json:"multipart_uploads"`
	GCQueued int   `json:"gc_backlog"`
	// GCOldest is the age of the oldest blob waiting for the collector.
	GCOldest string            `json:"gc_oldest,omitempty"`
	Leases   map[string]string `json:"job_leases"`
	Capped   []string          `json:"capped,omitempty"` // counts that stopped at their bound
}

// Bounds of the statistics' scans: a bundle must finish on a catalog of
// any size; a count that reaches its bound says so.
const (
	maxGCScan     = 100000
	maxUploadScan = 100000
)

// CatalogStats counts what a catalog holds by its read calls.
func CatalogStats(ctx context.Context, st catalog.Store) (Stats, error) {
	var s Stats
	tenants, err := st.ListTenants(ctx)
	if err != nil {
		return s, fmt.Errorf("tenants: %w", err)
	}
	s.Tenants = len(tenants)
	buckets, err := st.ListBuckets(ctx, catalog.BucketFilter{})
	if err != nil {
		return s, fmt.Errorf("buckets: %w", err)
	}
	s.Buckets = len(buckets)
	for _, b := range buckets {
		u, err := st.BucketUsage(ctx, b.Name)
		if err != nil {
			return s, fmt.Errorf("usage of %s: %w", b.Name, err)
		}
		s.Objects += u.Objects
		s.Bytes += u.Bytes
		if s.Uploads < maxUploadScan {
			ups, err := st.ListUploads(ctx, b.Name, catalog.UploadQuery{Limit: maxUploadScan - s.Uploads})
			if err != nil {
				return s, fmt.Errorf("uploads of %s: %w", b.Name, err)
			}
			if s.Uploads += len(ups); s.Uploads >= maxUploadScan {
				s.Capped = append(s.Capped, "multipart_uploads")
			}
		}
	}
	gc, err := st.GCPending(ctx, time.Now().Add(time.Hour), maxGCScan)
	if err != nil {
		return s, fmt.Errorf("gc backlog: %w", err)
	}
	if s.GCQueued = len(gc); s.GCQueued >= maxGCScan {
		s.Capped = append(s.Capped, "gc_backlog")
	}
	if len(gc) > 0 {
		s.GCOldest = time.Since(gc[0].Enqueued).Round(time.Second).String()
	}
	leases, err := st.ListLeases(ctx)
	if err != nil {
		return s, fmt.Errorf("leases: %w", err)
	}
	s.Leases = map[string]string{}
	for _, l := range leases {
		s.Leases[l.Name] = fmt.Sprintf("%s until %s", l.Holder, l.Expires.UTC().Format(time.RFC3339))
	}
	return s, nil
}

// catalogStats reads the catalog the configuration names; without one,
// what the admin API tells of tenants' usage.
func (c *collector) catalogStats(ctx context.Context) (result, error) {
	ctx, cancel := context.WithTimeout(ctx, partTimeout)
	defer cancel()
	cfg, cfgErr := c.nodeConfig()
	if cfgErr != nil {
		if c.o.Endpoint == "" {
			return result{}, fmt.Errorf("needs --config (on the node) or --endpoint: %w", cfgErr)
		}
		return c.statsFromAPI(ctx)
	}
	st, err := openCatalog(ctx, *cfg)
	if err != nil {
		return result{}, err
	}
	defer st.Close()
	s, err := CatalogStats(ctx, st)
	b, _ := json.MarshalIndent(s, "", "  ")
	return result{data: b}, err
}

// statsFromAPI counts tenants and their stored objects and bytes through
// the admin API, for a bundle taken away from the node.
func (c *collector) statsFromAPI(ctx context.Context) (result, error) {
	cl := admin.NewClient(c.o.Endpoint, c.o.AccessKey, c.o.SecretKey, c.o.HTTPClient)
	var tenants []admin.Tenant
	if err := cl.Do(ctx, "GET", "/tenants", nil, &tenants); err != nil {
		return result{}, fmt.Errorf("admin API: %w", err)
	}
	s := struct {
		Tenants int    `json:"tenants"`
		Objects int64  `json:"objects"`
		Bytes   int64  `json:"bytes"`
		Note    string `json:"note"`
	}{Tenants: len(tenants), Note: "from the admin API; buckets, uploads and the gc backlog need the bundle taken on the node with --config"}
	for _, t := range tenants {
		var u admin.Usage
		if err := cl.Do(ctx, "GET", "/tenants/"+url.PathEscape(t.Name)+"/usage", nil, &u); err != nil {
			return result{}, fmt.Errorf("admin API: usage of %s: %w", t.Name, err)
		}
		s.Objects += u.Now.Objects
		s.Bytes += u.Now.Bytes
	}
	b, _ := json.MarshalIndent(s, "", "  ")
	return result{data: b, note: "partial: from the admin API"}, nil
}

// logsHowTo is what the manifest says when no log could be read.
const logsHowTo = "run the node under systemd (deploy/ostium.service; its output goes to the journal, read with journalctl -u UNIT), " +
	"or send its standard error to a file and give that file to --log-file"

// logs reads the node's journal for the period, and the log file given.
func (c *collector) logs(ctx context.Context) (result, error) {
	ctx, cancel := context.WithTimeout(ctx, partTimeout)
	defer cancel()
	since := c.man.LogsSince
	var out bytes.Buffer
	var notes []string
	var errs []error
	if c.o.LogFile != "" {
		b, note, err := readLogFile(c.o.LogFile, since)
		if err != nil {
			errs = append(errs, fmt.Errorf("--log-file: %w", err))
		} else {
			fmt.Fprintf(&out, "==> %s (lines since %s) <==\n", c.o.LogFile, since.Format(time.RFC3339))
			out.Write(b)
			notes = append(notes, note)
		}
	}
	if b, note, err := journal(ctx, c.o.Unit, since); err != nil {
		notes = append(notes, "journal: "+err.Error())
	} else {
		fmt.Fprintf(&out, "==> journalctl -u %s --since %s <==\n", c.o.Unit, since.Local().Format("2006-01-02 15:04:05"))
		out.Write(b)
		notes = append(notes, note)
	}
	if out.Len() == 0 {
		errs = append(errs, fmt.Errorf("no logs were available (%s); to have them, %s", strings.Join(notes, "; "), logsHowTo))
		return result{}, errors.Join(errs...)
	}
	return result{data: out.Bytes(), log: true, note: strings.Join(notes, "; ")}, errors.Join(errs...)
}

// journal returns the unit's journal since the time, the newest maxPart
// bytes of it.
func journal(ctx context.Context, unit string, since time.Time) ([]byte, string, error) {
	path, err := exec.LookPath("journalctl")
	if err != nil {
		return nil, "", errors.New("journalctl is not on this host")
	}
	cmd := exec.CommandContext(ctx, path, "--no-pager", "--quiet", "-o", "short-iso-precise", "-u", unit,
		"--since", since.Local().Format("2006-01-02 15:04:05"))
	var stderr bytes.Buffer
	cmd.Stderr = &limited{w: &stderr, n: 4096}
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	b, truncated, rerr := tail(pipe, maxPart)
	werr := cmd.Wait()
	switch {
	case rerr != nil:
		return nil, "", rerr
	case werr != nil:
		return nil, "", fmt.Errorf("journalctl: %v: %s", werr, strings.TrimSpace(stderr.String()))
	case len(bytes.TrimSpace(b)) == 0:
		return nil, "", fmt.Errorf("no entries of unit %s since then (another unit name? give --unit; not allowed to read the journal? run as root or in group systemd-journal)", unit)
	}
	note := fmt.Sprintf("journal of %s", unit)
	if truncated {
		note += fmt.Sprintf(", its newest %d MiB", maxPart>>20)
	}
	return b, note, nil
}

// slogTime is the time of a line of slog's text or JSON handler.
var slogTime = regexp.MustCompile(`^(?:time=|\{"time":")([0-9T:.+\-Z]+)`)

// readLogFile returns the lines of path logged since the time (lines
// whose time it cannot tell are kept with their neighbours), at most
// the newest maxPart bytes.
func readLogFile(path string, since time.Time) ([]byte, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > 4*maxPart {
		// Skip what cannot be recent enough to fit anyway.
		if _, err := f.Seek(fi.Size()-4*maxPart, io.SeekStart); err != nil {
			return nil, "", err
		}
	}
	var kept [][]byte
	size, keep := 0, false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxPart)
	for sc.Scan() {
		line := sc.Bytes()
		if m := slogTime.FindSubmatch(line); m != nil {
			if t, err := time.Parse(time.RFC3339Nano, string(m[1])); err == nil {
				keep = !t.Before(since)
			}
		}
		if !keep {
			continue
		}
		kept = append(kept, append(append([]byte(nil), line...), '\n'))
		for size += len(line) + 1; size > maxPart; size -= len(kept[0]) {
			kept = kept[1:]
		}
	}
	if err := sc.Err(); err != nil {
		return nil, "", err
	}
	return bytes.Join(kept, nil), fmt.Sprintf("%d lines of %s", len(kept), path), nil
}

// tail reads r to its end, keeping the last max bytes.
func tail(r io.Reader, max int) ([]byte, bool, error) {
	buf := make([]byte, 0, 64<<10)
	truncated := false
	chunk := make([]byte, 64<<10)
	for {
		n, err := r.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if len(buf) > 2*max {
			buf, truncated = append(buf[:0:0], buf[len(buf)-max:]...), true
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false, err
		}
	}
	if len(buf) > max {
		buf, truncated = buf[len(buf)-max:], true
	}
	return buf, truncated, nil
}

// limited is a writer that keeps the first n bytes.
type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if k := min(len(p), l.n); k > 0 {
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}

// metrics is the node's /metrics as Prometheus would scrape it.
func (c *collector) metrics(ctx context.Context) (result, error) {
	ctx, cancel := context.WithTimeout(ctx, partTimeout)
	defer cancel()
	b, status, err := c.get(ctx, "/metrics", false)
	switch {
	case err != nil:
		return result{data: b}, err
	case status == http.StatusNotFound:
		return result{}, errors.New("GET /metrics: 404: this node serves no metrics")
	case status != http.StatusOK:
		return result{}, fmt.Errorf("GET /metrics: status %d (scraping limited to some addresses or a token?)", status)
	}
	return result{data: b}, nil
}

// profile fetches one runtime profile from the node's debug endpoint,
// which answers the provider's root only.
func (c *collector) profile(what string) func(context.Context) (result, error) {
	return func(ctx context.Context) (result, error) {
		ctx, cancel := context.WithTimeout(ctx, partTimeout+time.Duration(c.o.CPUSeconds)*time.Second)
		defer cancel()
		b, status, err := c.get(ctx, admin.Prefix+"/debug/pprof/"+what, true)
		if err != nil {
			return result{}, err
		}
		if status != http.StatusOK {
			return result{}, fmt.Errorf("GET %s/debug/pprof/%s: status %d: %s", admin.Prefix, what, status, strings.TrimSpace(string(b[:min(len(b), 512)])))
		}
		return result{data: b, binary: !strings.Contains(what, "debug=")}, nil
	}
}
