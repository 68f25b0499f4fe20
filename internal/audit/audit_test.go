package audit_test

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/audit"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/catalog/sqlite"
	"github.com/ostiumio/ostium/internal/iam"
)

// Entries past the retention are pruned, in batches; newer ones stay.
func TestPruneKeepsTheRetention(t *testing.T) {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "catalog.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	l := audit.New(s, 24*time.Hour)
	old := time.Now().Add(-25 * time.Hour)
	for range 3 {
		l.Record(ctx, nil, catalog.AuditEntry{Time: old, Action: "admin:Old"})
	}
	id := &iam.Identity{AccessKey: "AK", Tenant: "acme", User: "boss"}
	l.Record(iam.WithOrigin(ctx, iam.Origin{SourceIP: "198.51.100.7"}), id, catalog.AuditEntry{Action: "admin:New", Target: "tenants/acme"})
	n, err := l.Prune(ctx)
	if err != nil || n != 3 {
		t.Fatalf("Prune = %d, %v; want 3", n, err)
	}
	es, err := l.Store().ListAudit(ctx, catalog.AuditQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 || es[0].Action != "admin:New" || es[0].Tenant != "acme" || es[0].User != "boss" || es[0].AccessKey != "AK" ||
		es[0].Source != "198.51.100.7" || es[0].Outcome != "ok" {
		t.Fatalf("left = %+v", es)
	}
}

// A refused call is recorded under the key it claimed, however it was
// signed.
func TestClaimedKey(t *testing.T) {
	for _, c := range []struct{ header, query, want string }{
		{"AWS4-HMAC-SHA256 Credential=AKV4/20250101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=x", "", "AKV4"},
		{"AWS AKV2:c2lnbmF0dXJl", "", "AKV2"},
		{"", "X-Amz-Credential=AKPRE%2F20250101%2Fus-east-1%2Fs3%2Faws4_request", "AKPRE"},
		{"", "AWSAccessKeyId=AKPREV2&Signature=x", "AKPREV2"},
		{"", "", ""},
	} {
		r, _ := http.NewRequest("GET", "http://x/admin/v1/tenants?"+c.query, nil)
		if c.header != "" {
			r.Header.Set("Authorization", c.header)
		}
		if got := audit.ClaimedKey(r); got != c.want {
			t.Errorf("%q %q: %q, want %q", c.header, c.query, got, c.want)
		}
	}
}
