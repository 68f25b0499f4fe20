package node_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ostiumio/ostium/internal/node"
)

// The example in deploy/ is a valid configuration (once its CA file
// exists), and MarshalConfig writes what ParseConfig reads back.
func TestDeployExampleIsValid(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "deploy", "ostium.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ca := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(ca, []byte("placeholder"), 0o600)
	c, err := node.ParseConfig([]byte(strings.ReplaceAll(string(data), "/etc/ostium/ca.pem", ca)))
	if err != nil {
		t.Fatalf("deploy/ostium.yaml: %v", err)
	}
	if len(c.Platforms) != 2 || c.DefaultPlatform != "ceph" || c.Platforms["ceph"].S3.Layout != "bucket-per-tenant" || c.CatalogConns != 40 {
		t.Fatalf("parsed %+v", c)
	}
	out, err := node.MarshalConfig(c)
	if err != nil {
		t.Fatal(err)
	}
	back, err := node.ParseConfig(out)
	if err != nil {
		t.Fatalf("re-read: %v\n%s", err, out)
	}
	if in := c.Platforms["ceph"].InlineMax; in == nil || *in != 32768 {
		t.Fatalf("inline_max of ceph: %v, want 32768", in)
	}
	if !reflect.DeepEqual(back.Platforms, c.Platforms) || back.JobLease != c.JobLease || back.Catalog != c.Catalog {
		t.Fatalf("round trip differs:\n%+v\n%+v", back, c)
	}
}

// Each error names the key that is wrong.
func TestConfigErrorsNameTheKey(t *testing.T) {
	for doc, key := range map[string]string{
		"data: d\nplatforms: {a: {type: s3}}\ndefault_platform: a":                                 "platforms.a.bucket",
		"data: d\nplatforms: {a: {type: tape, path: x}}\ndefault_platform: a":                      "platforms.a.type",
		"data: d\nplatforms: {a: {type: fs, path: x}}\ndefault_platform: b":                        "default_platform",
		"data: d\nmax_requests: -1":                                                                "max_requests",
		"data: d\ntrusted_proxies: [nonsense]":                                                     "trusted_proxies",
		"data: d\nplatforms: {a: {type: s3, bucket: bbb, endpoint: ftp://x}}\ndefault_platform: a": "platforms.a.endpoint",
		"data: d\nplatforms: {a: {type: fs, path: x, inline_max: 40000}}\ndefault_platform: a":     "platforms.a.inline_max",
		"data: d\nlisten_here: x":                                                                  "listen_here",
		"catalog: postgres://x":                                                                    "data",
		"data: d\nmetrics: {allow: [nonsense]}":                                                    "metrics.allow",
		"data: d\nmetrics: {tenant_labels: -1}":                                                    "metrics.tenant_labels",
		"data: d\nmetrics: {tokn: x}":                                                              "tokn",
		"data: d\nlog: {format: xml}":                                                              "log.format",
		"data: d\nlog: {requests: loud}":                                                           "log.requests",
	} {
		_, err := node.ParseConfig([]byte(doc))
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%q: error %v does not name %s", doc, err, key)
		}
	}
}

// Validate reports every invalid value at once, one a line, each naming
// its key, in the same order each time; a catalog URL it refuses is
// named by its scheme alone, as it may hold a password.
func TestValidateReportsEveryError(t *testing.T) {
	doc := "catalog: mysql://u:hunter22@db/x\nmax_requests: -1\nanonymous_share: 101\njob_lease: -1s\n" +
		"root_secret_key: S\ntrusted_proxies: [nonsense]\nplatforms: {a: {type: tape}, b: {type: s3}}\ndefault_platform: c\n"
	_, err := node.ParseConfig([]byte(doc))
	if err == nil {
		t.Fatal("no error")
	}
	keys := []string{"data:", "catalog:", "trusted_proxies:", "max_requests:", "anonymous_share:", "job_lease:",
		"root_secret_key:", "default_platform:", "platforms.a.type:", "platforms.b.bucket:"}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != len(keys) {
		t.Fatalf("%d errors, want %d:\n%v", len(lines), len(keys), err)
	}
	for i, k := range keys {
		if !strings.HasPrefix(lines[i], k) {
			t.Errorf("error %d is %q, want one of key %s", i, lines[i], k)
		}
	}
	if strings.Contains(err.Error(), "hunter22") {
		t.Errorf("the catalog URL's password is in the error: %v", err)
	}
	_, again := node.ParseConfig([]byte(doc))
	if again.Error() != err.Error() {
		t.Errorf("a second run reports otherwise:\n%v\n%v", again, err)
	}
}
