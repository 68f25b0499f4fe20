package support_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/blob/s3blob"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/platform"
	"github.com/ostiumio/ostium/internal/support"
)

var ctx = context.Background()

// Secrets of the test node's configuration, each distinctive enough that
// finding it anywhere in the archive means it leaked.
const (
	platformAccess = "PLATFORMACCESSKEY7Q"
	platformSecret = "platform-secret-value-9f8e7d"
	proxyPassword  = "proxy-password-4c4c4c"
)

var nodeKey = base64.StdEncoding.EncodeToString([]byte("support-bundle-test-node-key-01!"))

// A bundle of a running node holds every part, and no secret of its
// configuration, of the environment or of its logs is anywhere in it,
// compressed parts (the profiles) included.
func TestBundleHasEveryPartAndNoSecret(t *testing.T) {
	var cfg node.Config
	srv := nodetest.Start(t, nodetest.Options{Config: func(c *node.Config) {
		c.NodeKey = nodeKey
		c.Platforms = map[string]platform.Spec{
			"local": {Type: platform.TypeFS, Path: filepath.Join(c.DataDir, "blobs")},
			// Never written to: its keys are only there to be redacted.
			"remote": {Type: platform.TypeS3, S3: s3blob.Config{Endpoint: "http://127.0.0.1:1", Bucket: "remote-blobs",
				AccessKey: platformAccess, SecretKey: platformSecret, Proxy: "http://proxy:" + proxyPassword + "@127.0.0.1:1"}},
		}
		c.DefaultPlatform = "local"
		cfg = *c
	}})
	secrets := []string{nodetest.SecretKey, nodetest.AccessKey, platformAccess, platformSecret, proxyPassword, nodeKey}

	// Something to count: a tenant with a bucket of two objects.
	root := admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, srv.Client())
	must(t, root.Do(ctx, "POST", "/tenants", map[string]string{"name": "acme"}, nil))
	must(t, root.Do(ctx, "POST", "/tenants/acme/users", map[string]string{"name": "ann", "role": "admin"}, nil))
	var k admin.Key
	must(t, root.Do(ctx, "POST", "/tenants/acme/users/ann/keys", nil, &k))
	secrets = append(secrets, k.SecretKey)
	s3c := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(k.AccessKey, k.SecretKey, ""), HTTPClient: srv.Client()})
	_, err := s3c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("stats")})
	must(t, err)
	for _, key := range []string{"a", "b"} {
		_, err := s3c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("stats"), Key: aws.String(key), Body: strings.NewReader("12345")})
		must(t, err)
	}

	dir := t.TempDir()
	data, err := node.MarshalConfig(cfg)
	must(t, err)
	// A comment may quote a secret too; and a key the node does not know
	// is redacted by its name.
	data = append([]byte("# old root secret: "+nodetest.SecretKey+"\n"), data...)
	configFile := filepath.Join(dir, "ostium.yaml")
	must(t, os.WriteFile(configFile, data, 0o600))
	// A log the node wrote, with what a first start prints.
	now := time.Now().UTC()
	logFile := filepath.Join(dir, "ostium.log")
	must(t, os.WriteFile(logFile, []byte(fmt.Sprintf(
		"time=%s level=INFO msg=\"too old for the period\"\n"+
			"time=%s level=INFO msg=\"ostium serving S3\"\n  OSTIUM_ROOT_SECRET_KEY=%s\n"+
			"time=%s level=WARN msg=\"platform unavailable\" platform=remote err=\"signed with %s\"\n",
		now.Add(-48*time.Hour).Format(time.RFC3339Nano), now.Format(time.RFC3339Nano), "generated-root-secret-55aa",
		now.Format(time.RFC3339Nano), platformSecret)), 0o600))
	secrets = append(secrets, "generated-root-secret-55aa")

	var progress bytes.Buffer
	var archive bytes.Buffer
	man, err := support.Write(ctx, &archive, support.Options{
		ConfigFile: configFile, Endpoint: srv.URL, AccessKey: nodetest.AccessKey, SecretKey: nodetest.SecretKey,
		HTTPClient: srv.Client(), Since: time.Hour, LogFile: logFile, Unit: "ostium-test-no-such-unit",
		CPUSeconds: 1, Version: "test", Progress: &progress,
	})
	must(t, err)
	files := unpack(t, archive.Bytes())

	for _, name := range []string{"MANIFEST.json", "config.yaml", "version.json", "health.json", "catalog-stats.json",
		"logs.txt", "profiles/goroutine.txt", "profiles/heap.pb.gz", "profiles/cpu.pb.gz"} {
		if len(files[name]) == 0 {
			t.Errorf("%s: missing or empty", name)
		}
	}
	// Every part is in the manifest, and all but metrics worked: a node
	// may serve none (404) or limit scraping (another status), and the
	// manifest then says which.
	var m support.Manifest
	must(t, json.Unmarshal(files["MANIFEST.json"], &m))
	if len(m.Parts) != len(man.Parts) || len(m.Parts) != 9 {
		t.Errorf("manifest has %d parts, want 9: %+v", len(m.Parts), m.Parts)
	}
	for _, p := range m.Parts {
		switch {
		case p.Name == "metrics" && !p.OK && !strings.Contains(p.Error, "GET /metrics: "):
			t.Errorf("metrics: %s; want the snapshot or the status recorded", p.Error)
		case p.Name != "metrics" && !p.OK:
			t.Errorf("part %s failed: %s", p.Name, p.Error)
		}
	}
	if lines := strings.Count(progress.String(), "\n"); lines != 9 {
		t.Errorf("progress has %d lines, want one per part:\n%s", lines, progress.String())
	}

	// No secret anywhere, whether by name, by structure or in a log.
	for name, b := range files {
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds the secret %q", name, s)
			}
		}
	}
	for _, s := range secrets {
		if bytes.Contains(archive.Bytes(), []byte(s)) {
			t.Errorf("the archive itself holds %q", s)
		}
	}

	// What is left is still useful.
	conf := string(files["config.yaml"])
	for _, want := range []string{"remote-blobs", "http://127.0.0.1:1", "default_platform: local", support.Redacted} {
		if !strings.Contains(conf, want) {
			t.Errorf("config.yaml lacks %q:\n%s", want, conf)
		}
	}
	var stats support.Stats
	must(t, json.Unmarshal(files["catalog-stats.json"], &stats))
	if stats.Tenants != 1 || stats.Buckets != 1 || stats.Objects != 2 || stats.Bytes != 10 {
		t.Errorf("catalog statistics %+v, want 1 tenant, 1 bucket, 2 objects of 10 bytes", stats)
	}
	logs := string(files["logs.txt"])
	// (On PostgreSQL the test catalog's password is "ostium", scrubbed
	// wherever the word stands: hence "serving S3" alone.)
	if !strings.Contains(logs, "serving S3") || strings.Contains(logs, "too old for the period") {
		t.Errorf("logs.txt does not hold the period's lines only:\n%s", logs)
	}
	if !strings.Contains(logs, "OSTIUM_ROOT_SECRET_KEY="+support.Redacted) {
		t.Errorf("logs.txt: the printed root secret is not shown redacted:\n%s", logs)
	}
	var health map[string]any
	if err := json.Unmarshal(files["health.json"], &health); err != nil || health["catalog"] != "ok" {
		t.Errorf("health.json: %v %s", err, files["health.json"])
	}
	if !strings.Contains(string(files["profiles/goroutine.txt"]), "goroutine ") {
		t.Errorf("goroutine dump: %.200s", files["profiles/goroutine.txt"])
	}
}

// Without a node to ask or a file to read, each part says why it is
// missing, the logs how to have them, and the archive is still written.
func TestBundleRecordsFailedParts(t *testing.T) {
	var archive bytes.Buffer
	m, err := support.Write(ctx, &archive, support.Options{Endpoint: "http://127.0.0.1:1", AccessKey: "AK", SecretKey: "secret-of-nowhere",
		HTTPClient: &http.Client{Timeout: 2 * time.Second}, Unit: "ostium-test-no-such-unit"})
	must(t, err)
	files := unpack(t, archive.Bytes())
	if len(files["MANIFEST.json"]) == 0 || len(files["version.json"]) == 0 {
		t.Fatalf("archive holds %v", keys(files))
	}
	for _, p := range m.Parts {
		// No configuration file is a node on its defaults, not a failure.
		if p.Name == "config" {
			if !p.OK || !strings.Contains(p.Note, "no configuration file") {
				t.Errorf("config without a file: ok=%v note=%q error=%q", p.OK, p.Note, p.Error)
			}
			continue
		}
		if p.Name != "version" && (p.OK || p.Error == "") {
			t.Errorf("part %s: ok=%v error=%q, want a recorded failure", p.Name, p.OK, p.Error)
		}
		if p.Name == "logs" && !strings.Contains(p.Error, "--log-file") {
			t.Errorf("logs: %q does not say how to have logs", p.Error)
		}
	}
}

// The configuration is redacted by key name (any key that names a
// secret, known to the node or not) and by structure (a secret repeated
// under another key, a URL's password).
func TestRedactConfig(t *testing.T) {
	doc := `# catalog password: CatalogPassw0rd!
data: /var/lib/ostium
catalog: postgres://ostium:CatalogPassw0rd!@db:5432/ostium?sslmode=require
root_access_key: ROOTACCESS1234
root_secret_key: RootSecret-xyz-987
node_key_file: /etc/ostium/node.key
tls_key: /etc/ostium/tls/key.pem
region: RootSecret-xyz-987
platforms:
  ceph: {type: s3, bucket: b-1, access_key: CEPHAK0001, secret_key: "ceph/secret+value", endpoint: "https://u:EndpointPw99@ceph:443"}
my_api_token: tok-123456
`
	var s support.Secrets
	out, err := support.RedactConfig([]byte(doc), &s)
	must(t, err)
	for _, secret := range []string{"CatalogPassw0rd!", "ROOTACCESS1234", "RootSecret-xyz-987", "CEPHAK0001", "ceph/secret+value", "EndpointPw99", "tok-123456"} {
		if strings.Contains(string(out), secret) {
			t.Errorf("redacted configuration holds %q:\n%s", secret, out)
		}
	}
	for _, kept := range []string{"/etc/ostium/node.key", "/etc/ostium/tls/key.pem", "db:5432", "b-1", "ceph:443"} {
		if !strings.Contains(string(out), kept) {
			t.Errorf("redacted configuration lost %q:\n%s", kept, out)
		}
	}
	if got := string(s.Scrub([]byte("dsn=postgres://ostium:CatalogPassw0rd!@db"))); strings.Contains(got, "CatalogPassw0rd!") {
		t.Errorf("Scrub left the catalog password: %s", got)
	}
}

// unpack returns the archive's files by their name under its directory,
// each gzip'd one (the profiles) decompressed as well.
func unpack(t *testing.T, archive []byte) map[string][]byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	must(t, err)
	tr := tar.NewReader(zr)
	files := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		must(t, err)
		if h.Mode&0o077 != 0 {
			t.Errorf("%s: mode %o, want owner only", h.Name, h.Mode)
		}
		b, err := io.ReadAll(tr)
		must(t, err)
		_, name, _ := strings.Cut(h.Name, "/")
		files[name] = b
		if path.Ext(name) == ".gz" {
			gz, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			inner, err := io.ReadAll(gz)
			must(t, err)
			files[name+" (decompressed)"] = inner
		}
	}
	return files
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// On the node without --endpoint, health comes from the catalog and the
// platforms themselves (an unreachable one named as such) and the
// statistics from the catalog; a SQLite catalog of another user is not
// opened, lest its -wal and -shm files be made as this one.
func TestBundleOnTheNodeWithoutEndpoint(t *testing.T) {
	var cfg node.Config
	nodetest.Start(t, nodetest.Options{Config: func(c *node.Config) {
		c.Platforms = map[string]platform.Spec{
			"local":  {Type: platform.TypeFS, Path: filepath.Join(c.DataDir, "blobs")},
			"remote": {Type: platform.TypeS3, S3: s3blob.Config{Endpoint: "http://127.0.0.1:1", Bucket: "remote-blobs"}},
		}
		c.DefaultPlatform = "local"
		cfg = *c
	}})
	data, err := node.MarshalConfig(cfg)
	must(t, err)
	configFile := filepath.Join(t.TempDir(), "ostium.yaml")
	must(t, os.WriteFile(configFile, data, 0o600))

	var archive bytes.Buffer
	m, err := support.Write(ctx, &archive, support.Options{ConfigFile: configFile, Unit: "ostium-test-no-such-unit"})
	must(t, err)
	files := unpack(t, archive.Bytes())
	var health struct {
		Catalog   string
		Platforms map[string]string
	}
	must(t, json.Unmarshal(files["health.json"], &health))
	if health.Catalog != "ok" || health.Platforms["local"] != "ok" || health.Platforms["remote"] == "ok" || health.Platforms["remote"] == "" {
		t.Errorf("health.json: %s", files["health.json"])
	}
	var stats support.Stats
	must(t, json.Unmarshal(files["catalog-stats.json"], &stats))
	if stats.Leases == nil {
		t.Errorf("catalog-stats.json: %s", files["catalog-stats.json"])
	}
	for _, p := range m.Parts {
		if p.Name == "health" && (p.OK || !strings.Contains(p.Error, "platform remote")) {
			t.Errorf("health part: ok=%v error=%q, want the remote platform's failure", p.OK, p.Error)
		}
	}

	if cfg.Catalog != "" || os.Geteuid() != 0 {
		return // the rest needs a SQLite catalog and the right to chown it
	}
	db := filepath.Join(cfg.DataDir, "catalog.db")
	must(t, os.Chown(db, 4242, 4242))
	defer os.Chown(db, 0, 0)
	archive.Reset()
	m, err = support.Write(ctx, &archive, support.Options{ConfigFile: configFile, Unit: "ostium-test-no-such-unit"})
	must(t, err)
	for _, p := range m.Parts {
		if p.Name == "catalog statistics" && (p.OK || !strings.Contains(p.Error, "sudo -u")) {
			t.Errorf("a catalog of uid 4242 opened as root: ok=%v error=%q", p.OK, p.Error)
		}
	}
}
