package security_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// auditOf reads the audit log as c over the admin API (query: from,
// tenant, ...); an API error is returned.
func auditOf(srv *nodetest.Server, c creds, query string) ([]catalog.AuditEntry, error) {
	var page admin.AuditPage
	err := admin.NewClient(srv.URL, c.AccessKey, c.SecretKey, srv.Client()).Do(context.Background(), "GET", "/audit?"+query, nil, &page)
	return page.Entries, err
}

func findEntry(es []catalog.AuditEntry, action, target string) (catalog.AuditEntry, bool) {
	for i := len(es) - 1; i >= 0; i-- {
		if es[i].Action == action && (target == "" || es[i].Target == target) {
			return es[i], true
		}
	}
	return catalog.AuditEntry{}, false
}

func wantAPIError(t *testing.T, err error, status int, code string) {
	t.Helper()
	var e *admin.Error
	if !errors.As(err, &e) || e.Status != status || e.Code != code {
		t.Fatalf("error = %v, want %d %s", err, status, code)
	}
}

// A tenant admin reads its own tenant's callers' entries and nothing
// else: not another tenant's (asked for by name or not), not the root's,
// not anonymous callers'. A tenant's plain user reads none.
func TestAuditIsolatedByTenant(t *testing.T) {
	srv := start(t, nodetest.Options{})
	acme := newUser(t, srv, "acme", "boss", "admin")
	beta := newUser(t, srv, "beta", "boss", "admin")
	plain := newUser(t, srv, "acme", "worker", "user")
	ctx := context.Background()
	for _, c := range []creds{acme, beta} {
		if err := admin.NewClient(srv.URL, c.AccessKey, c.SecretKey, srv.Client()).Do(ctx, "GET", "/tenants/"+map[creds]string{acme: "acme", beta: "beta"}[c]+"/users", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	es, err := auditOf(srv, acme, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(es) == 0 {
		t.Fatal("acme's admin sees no entry of its own")
	}
	for _, e := range es {
		if e.Tenant != "acme" || e.Root {
			t.Fatalf("acme's admin sees an entry not of acme: %+v", e)
		}
	}
	if _, ok := findEntry(es, "admin:ListUsers", "tenants/acme/users"); !ok {
		t.Fatalf("acme's admin's own call is not in its log: %+v", es)
	}
	_, err = auditOf(srv, acme, "tenant=beta")
	wantAPIError(t, err, http.StatusForbidden, "AccessDenied")
	_, err = auditOf(srv, plain, "")
	wantAPIError(t, err, http.StatusForbidden, "AccessDenied")
	// The export applies the same scope.
	req := signed(t, srv, acme, "GET", admin.Prefix+"/audit?format=jsonl", nil, nil)
	status, body := do(t, srv, req)
	if status != 200 {
		t.Fatalf("export: %d %s", status, body)
	}
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	for sc.Scan() {
		var e catalog.AuditEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Tenant != "acme" {
			t.Fatalf("export line %q (%v): not acme's", sc.Text(), err)
		}
	}
	// The root reads every entry, and one tenant's on asking.
	all, err := auditOf(srv, rootCreds, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := findEntry(all, "admin:CreateTenant", "tenants"); !ok {
		t.Fatalf("root's own calls are not in its log: %+v", all)
	}
	bs, err := auditOf(srv, rootCreds, "tenant=beta")
	if err != nil || len(bs) == 0 {
		t.Fatalf("root asking for beta: %v, %d entries", err, len(bs))
	}
	for _, e := range bs {
		if e.Tenant != "beta" {
			t.Fatalf("root asked for beta and got %+v", e)
		}
	}
}

// A refused admin call is recorded with its outcome: a tenant admin
// asking for the tenant list (the root's), and a call signed with a key
// that does not exist (recorded under the key it claimed, for the root).
func TestRefusedAdminCallAudited(t *testing.T) {
	srv := start(t, nodetest.Options{})
	acme := newUser(t, srv, "acme", "boss", "admin")
	ctx := context.Background()
	err := admin.NewClient(srv.URL, acme.AccessKey, acme.SecretKey, srv.Client()).Do(ctx, "POST", "/tenants", map[string]string{"name": "evil"}, nil)
	wantAPIError(t, err, http.StatusForbidden, "AccessDenied")
	es, err := auditOf(srv, acme, "")
	if err != nil {
		t.Fatal(err)
	}
	e, ok := findEntry(es, "admin:CreateTenant", "tenants")
	if !ok || e.Outcome != "AccessDenied" || e.Status != 403 || e.AccessKey != acme.AccessKey || e.User != "boss" || e.Source != "127.0.0.1" {
		t.Fatalf("refused CreateTenant entry = %+v (found %v)", e, ok)
	}
	ghost := creds{"AKIDOESNOTEXIST00000", "whatever-secret"}
	err = admin.NewClient(srv.URL, ghost.AccessKey, ghost.SecretKey, srv.Client()).Do(ctx, "DELETE", "/tenants/acme", nil, nil)
	if err == nil {
		t.Fatal("an unknown key deleted a tenant")
	}
	all, err := auditOf(srv, rootCreds, "")
	if err != nil {
		t.Fatal(err)
	}
	e, ok = findEntry(all, "admin:DeleteTenant", "tenants/acme")
	if !ok || e.Outcome != "InvalidAccessKeyId" || e.Status != 403 || e.AccessKey != ghost.AccessKey || e.Tenant != "" || e.Root {
		t.Fatalf("unknown key's DeleteTenant entry = %+v (found %v)", e, ok)
	}
}

// A change to a bucket's policy made over S3 is recorded with who made
// it and from where: behind a trusted balancer, the address it forwarded,
// as policies see it; the admin API records the same address. A refused
// change is recorded too, with S3's error code.
func TestBucketPolicyChangeAudited(t *testing.T) {
	srv := start(t, nodetest.Options{Config: func(c *node.Config) { c.TrustedProxies = []string{"127.0.0.1"} }})
	acme := newUser(t, srv, "acme", "boss", "admin")
	worker := newUser(t, srv, "acme", "worker", "user")
	if status, body := do(t, srv, signed(t, srv, acme, "PUT", "/acme-audit", nil, nil)); status != 200 {
		t.Fatalf("create bucket: %d %s", status, body)
	}
	doc := `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:DeleteObject","Resource":"arn:aws:s3:::acme-audit/keep/*"}]}`
	fwd := http.Header{"X-Forwarded-For": {"203.0.113.9"}}
	if status, body := do(t, srv, signed(t, srv, acme, "PUT", "/acme-audit?policy", []byte(doc), fwd)); status != 204 {
		t.Fatalf("put policy: %d %s", status, body)
	}
	status, body := do(t, srv, signed(t, srv, worker, "DELETE", "/acme-audit?policy", nil, nil))
	wantError(t, status, body, 403, "AccessDenied")
	// Reads of settings are not changes: not recorded.
	do(t, srv, signed(t, srv, acme, "GET", "/acme-audit?policy", nil, nil))

	es, err := auditOf(srv, acme, "")
	if err != nil {
		t.Fatal(err)
	}
	put, ok := findEntry(es, "s3:PutBucketPolicy", "bucket/acme-audit")
	if !ok || put.Outcome != "ok" || put.Status != 204 || put.AccessKey != acme.AccessKey || put.Tenant != "acme" ||
		put.User != "boss" || put.Source != "203.0.113.9" || put.RequestID == "" {
		t.Fatalf("PutBucketPolicy entry = %+v (found %v)", put, ok)
	}
	del, ok := findEntry(es, "s3:DeleteBucketPolicy", "bucket/acme-audit")
	if !ok || del.Outcome != "AccessDenied" || del.Status != 403 || del.User != "worker" || del.Source != "127.0.0.1" {
		t.Fatalf("refused DeleteBucketPolicy entry = %+v (found %v)", del, ok)
	}
	if _, ok := findEntry(es, "s3:GetBucketPolicy", ""); ok {
		t.Fatal("a GetBucketPolicy was recorded as a change")
	}
	// The admin API sees the forwarded address as S3 does.
	req := signed(t, srv, acme, "GET", admin.Prefix+"/tenants/acme", nil, fwd)
	if status, body := do(t, srv, req); status != 200 {
		t.Fatalf("get tenant: %d %s", status, body)
	}
	es, _ = auditOf(srv, acme, "")
	if e, ok := findEntry(es, "admin:GetTenant", "tenants/acme"); !ok || e.Source != "203.0.113.9" {
		t.Fatalf("admin entry behind the balancer = %+v (found %v)", e, ok)
	}
}
