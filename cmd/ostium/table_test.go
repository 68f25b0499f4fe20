package main

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/kms"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// Sizes read as the console shows them (internal/console/web/js/ui.js,
// bytes(): the same cases give the same text there).
func TestHumanBytes(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 B", 512: "512 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB", 10188: "9.9 KiB", 10239: "10 KiB",
		1 << 30: "1.0 GiB", 1e12: "931 GiB", 1649267441664: "1.5 TiB", 1 << 62: "4096 PiB",
	} {
		if got := humanBytes(n); got != want {
			t.Errorf("humanBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

var (
	nanoTime = regexp.MustCompile(`\d\d:\d\d:\d\d\.\d`)
	goMap    = regexp.MustCompile(`map\[`)
)

// table prints v and returns its lines split in columns.
func table(t *testing.T, v any) (string, [][]string) {
	t.Helper()
	var b bytes.Buffer
	if err := printTable(&b, v); err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		rows = append(rows, regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(l), -1))
	}
	return b.String(), rows
}

// Every table: its columns in their declared order whatever the
// records hold (a tenant with a platform of its own and one without
// have the same columns), times to the second in UTC, maps as k=v,
// sizes in binary units.
func TestTablesAreForPeople(t *testing.T) {
	at := time.Date(2026, 11, 26, 11, 11, 12, 123456789, time.FixedZone("CET", 3600))
	exp := at.Add(time.Hour)
	for _, tc := range []struct {
		name   string
		v      any
		header []string
		cells  []string // of the first row
	}{
		{"tenants", []admin.Tenant{
			{Name: "acme", DisplayName: "Acme Corp", Status: "active", CanonicalID: "c1", Encryption: &admin.TenantEncryption{Default: "sse-kms", KMSKey: "k1"}, Created: at},
			{Name: "beta", Status: "active", CanonicalID: "c2", Platform: "ceph", Created: at}},
			[]string{"NAME", "DISPLAY_NAME", "STATUS", "PLATFORM", "ENCRYPTION", "CREATED", "CANONICAL_ID"},
			[]string{"acme", "Acme Corp", "active", "(default)", "default=sse-kms,kms_key=k1", "2026-11-26T10:11:12Z", "c1"}},
		{"a tenant", admin.Tenant{Name: "beta", Status: "active", CanonicalID: "c2", Created: at},
			[]string{"NAME", "DISPLAY_NAME", "STATUS", "PLATFORM", "ENCRYPTION", "CREATED", "CANONICAL_ID"},
			[]string{"beta", "-", "active", "(default)", "(default)", "2026-11-26T10:11:12Z", "c2"}},
		{"users", []admin.User{{Tenant: "acme", Name: "alice", Role: "admin", CanonicalID: "c", Created: at}},
			[]string{"NAME", "TENANT", "ROLE", "EMAIL", "CREATED", "CANONICAL_ID"},
			[]string{"alice", "acme", "admin", "-", "2026-11-26T10:11:12Z", "c"}},
		{"a new key", admin.Key{AccessKey: "AK", SecretKey: "SK", Tenant: "acme", User: "alice", Kind: "key", Status: "active", Created: at},
			[]string{"ACCESS_KEY", "SECRET_KEY", "TENANT", "USER", "KIND", "STATUS", "BUCKETS", "READ_ONLY", "EXPIRES", "CREATED"},
			[]string{"AK", "SK", "acme", "alice", "key", "active", "-", "false", "never", "2026-11-26T10:11:12Z"}},
		{"keys", []admin.Key{{AccessKey: "AK2", Tenant: "acme", User: "alice", Kind: "appcred", Status: "active", Buckets: []string{"a", "b"}, ReadOnly: true, Expires: &exp, Created: at},
			{AccessKey: "AK", Tenant: "acme", User: "alice", Kind: "key", Status: "active", Created: at}},
			[]string{"ACCESS_KEY", "TENANT", "USER", "KIND", "STATUS", "BUCKETS", "READ_ONLY", "EXPIRES", "CREATED"},
			[]string{"AK2", "acme", "alice", "appcred", "active", "a,b", "true", "2026-11-26T11:11:12Z", "2026-11-26T10:11:12Z"}},
		{"root keys", []admin.RootKey{{AccessKey: "RK", Source: "env", Status: "active", Created: at}},
			[]string{"ACCESS_KEY", "SOURCE", "STATUS", "EXPIRES", "CREATED"},
			[]string{"RK", "env", "active", "never", "2026-11-26T10:11:12Z"}},
		{"quotas", []admin.Quota{{Tenant: "acme", MaxBytes: 1e12}, {Tenant: "acme", Bucket: "photos", MaxBytes: 1649267441664, MaxObjects: 10}},
			[]string{"TENANT", "BUCKET", "MAX_BYTES", "MAX_OBJECTS"},
			[]string{"acme", "(all)", "931 GiB", "none"}},
		{"quotas with rates", []admin.Quota{{Tenant: "acme", MaxBytes: 1e12, RequestsPerSec: 500, BytesOutPerSec: 200 << 20}, {Tenant: "acme", Bucket: "photos", MaxObjects: 10}},
			[]string{"TENANT", "BUCKET", "MAX_BYTES", "MAX_OBJECTS", "BYTES_OUT_PER_SEC", "REQUESTS_PER_SEC"},
			[]string{"acme", "(all)", "931 GiB", "none", "200 MiB", "500"}},
		{"kms keys", []kms.KeyInfo{{ID: "k1", Tenant: "acme", Alias: "aws/s3", State: "enabled", Created: at, Versions: 2, Default: true}, {ID: "k2", Tenant: "acme", State: "enabled", Created: at, Versions: 1}},
			[]string{"ID", "ALIAS", "TENANT", "STATE", "DEFAULT", "VERSIONS", "CREATED"},
			[]string{"k1", "aws/s3", "acme", "enabled", "true", "2", "2026-11-26T10:11:12Z"}},
		{"encryption", admin.TenantEncryption{}, []string{"DEFAULT", "KMS_KEY"}, []string{"(default)", "-"}},
		{"audit", []map[string]any{{"id": 7, "time": at, "root": true, "action": "admin:CreateTenant", "target": "tenants", "outcome": "ok", "status": 201}},
			[]string{"TIME", "ID", "ACTION", "OUTCOME", "STATUS", "TENANT", "USER", "ACCESS_KEY", "ROOT", "SOURCE", "TARGET", "REQUEST_ID"},
			[]string{"2026-11-26T10:11:12Z", "7", "admin:CreateTenant", "ok", "201", "-", "-", "-", "true", "-", "tenants", "-"}},
		{"usage", []catalog.UsageRow{{Bucket: "photos", Hour: at.Truncate(time.Hour), ByteHours: 1536, Objects: 2, Traffic: catalog.Traffic{Get: 3, BytesIn: 2048, BytesOut: 10 << 20}}},
			[]string{"HOUR", "BUCKET", "STORED", "OBJECTS", "GET", "PUT", "LIST", "DELETE", "BYTES_IN", "BYTES_OUT"},
			[]string{"2026-11-26T10:00:00Z", "photos", "1.5 KiB", "2", "3", "0", "0", "0", "2.0 KiB", "10 MiB"}},
		{"a bucket placed", map[string]string{"platform": "", "bucket": "photos"}, []string{"BUCKET", "PLATFORM"}, []string{"photos", "(default)"}},
	} {
		out, rows := table(t, tc.v)
		if strings.Join(rows[0], "|") != strings.Join(tc.header, "|") {
			t.Errorf("%s: header %q, want %q", tc.name, rows[0], tc.header)
		}
		if strings.Join(rows[1], "|") != strings.Join(tc.cells, "|") {
			t.Errorf("%s: first row %q, want %q", tc.name, rows[1], tc.cells)
		}
		for _, r := range rows[1:] {
			if len(r) != len(rows[0]) {
				t.Errorf("%s: a row of %d cells under %d columns:\n%s", tc.name, len(r), len(rows[0]), out)
			}
		}
		if nanoTime.MatchString(out) || goMap.MatchString(out) {
			t.Errorf("%s: fractions of seconds or a Go map:\n%s", tc.name, out)
		}
	}
}

// The usage report: what is stored now in units, the provider's own
// usage named as such, rows in time order.
func TestPrintUsage(t *testing.T) {
	h := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	u := admin.Usage{Tenant: admin.ProviderUsage, From: h, To: h.Add(2 * time.Hour), Now: catalog.Usage{Bytes: 3 << 30, Objects: 1},
		Rows: []catalog.UsageRow{{Bucket: "a", Hour: h.Add(time.Hour)}, {Bucket: "b", Hour: h}, {Bucket: "a", Hour: h}}}
	var b bytes.Buffer
	if err := printUsage(&b, u); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if lines[0] != "the provider's own buckets (_provider): 3.0 GiB in 1 object now; 2026-11-26T10:00:00Z to 2026-11-26T12:00:00Z:" {
		t.Errorf("first line %q", lines[0])
	}
	var order []string
	for _, l := range lines[2:] {
		if f := strings.Fields(l); len(f) > 1 {
			order = append(order, f[0][11:13]+f[1])
		}
	}
	if strings.Join(order, " ") != "10a 10b 11a" {
		t.Errorf("rows in order %v, want by hour, then bucket:\n%s", order, b.String())
	}
}

// Against a node: --json prints the API's answer as it always has (a
// sample pinned byte for byte), the table the same record for people,
// and the provider's own buckets have a usage report.
func TestAdminJSONAndTablesAgainstANode(t *testing.T) {
	clearCredentials(t)
	srv := nodetest.Start(t, nodetest.Options{})
	t.Setenv("OSTIUM_ENDPOINT", srv.URL)
	t.Setenv("OSTIUM_ROOT_ACCESS_KEY", nodetest.AccessKey)
	t.Setenv("OSTIUM_ROOT_SECRET_KEY", nodetest.SecretKey)
	cli := func(args ...string) string {
		t.Helper()
		out, err := runCLI(t, args...)
		if err != nil {
			t.Fatalf("%q: %v\n%s", args, err, out)
		}
		return out
	}
	cli("admin", "tenant", "create", "acme")
	if got, want := cli("admin", "--json", "quota", "set", "acme", "--max-bytes", "1.5TiB", "--max-objects", "10"),
		"{\n  \"tenant\": \"acme\",\n  \"max_bytes\": 1649267441664,\n  \"max_objects\": 10\n}\n"; got != want {
		t.Errorf("--json output changed:\n%q\nwant\n%q", got, want)
	}
	if got, want := cli("admin", "quota", "list", "acme"), "TENANT  BUCKET  MAX_BYTES  MAX_OBJECTS\nacme    (all)   1.5 TiB    10\n"; got != want {
		t.Errorf("quota table:\n%s\nwant\n%s", got, want)
	}
	for size, want := range map[string]int64{"10GB": 10e9, "10GiB": 10 << 30, "1.5TiB": 1649267441664, "512": 512, "2 KiB": 2048} {
		out := cli("admin", "--json", "quota", "set", "acme", "--max-bytes", size)
		if !strings.Contains(out, fmt.Sprintf(`"max_bytes": %d,`, want)) {
			t.Errorf("--max-bytes %s: %s", size, out)
		}
	}
	for _, bad := range []string{"-1GB", "GB", "10XB", "1e400", "NaN", "1.5.5GB", "Inf"} {
		if _, err := runCLI(t, "admin", "quota", "set", "acme", "--max-bytes", bad); err == nil || !strings.Contains(err.Error(), "--max-bytes") {
			t.Errorf("--max-bytes %q: %v", bad, err)
		}
	}
	out := cli("admin", "tenant", "list")
	if !strings.HasPrefix(out, "NAME  DISPLAY_NAME  STATUS  PLATFORM   ENCRYPTION  CREATED ") || nanoTime.MatchString(out) {
		t.Errorf("tenant table:\n%s", out)
	}
	out = cli("admin", "usage", admin.ProviderUsage)
	if !strings.HasPrefix(out, "the provider's own buckets (_provider): 0 B in 0 objects now;") {
		t.Errorf("provider usage:\n%s", out)
	}
}
