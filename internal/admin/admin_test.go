package admin_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"gopkg.in/yaml.v3"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

var ctx = context.Background()

func root(srv *nodetest.Server) *admin.Client {
	return admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, srv.Client())
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// wantCode checks that err is an admin API error with code and status.
func wantCode(t *testing.T, err error, status int, code string) {
	t.Helper()
	var e *admin.Error
	if !errors.As(err, &e) || e.Code != code || e.Status != status {
		t.Fatalf("error = %v, want %d %s", err, status, code)
	}
}

// The document served at /admin/v1/openapi.yaml names exactly the calls
// the server answers, and each of them is routed.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	resp, err := srv.Client().Get(srv.URL + admin.Prefix + "/openapi.yaml")
	must(t, err)
	defer resp.Body.Close()
	var doc struct {
		Paths map[string]map[string]any `yaml:"paths"`
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/yaml" {
		t.Fatalf("GET openapi.yaml: %s %s", resp.Status, resp.Header.Get("Content-Type"))
	}
	must(t, yaml.NewDecoder(resp.Body).Decode(&doc))
	var documented []string
	for path, ops := range doc.Paths {
		for method := range ops {
			documented = append(documented, strings.ToUpper(method)+" "+path)
		}
	}
	served := admin.Routes()
	slices.Sort(documented)
	slices.Sort(served)
	if !slices.Equal(documented, served) {
		t.Fatalf("OpenAPI document and routes differ:\ndocumented %v\nserved     %v", documented, served)
	}
	// Each documented call reaches a handler: an unknown tenant is a
	// NoSuchTenant (or a validation error), never a missing route.
	c := root(srv)
	for _, call := range documented {
		method, path, _ := strings.Cut(call, " ")
		path = strings.NewReplacer("{tenant}", "nope", "{user}", "u", "{key}", "AK").Replace(path)
		err := c.Do(ctx, method, path, map[string]any{}, nil)
		var e *admin.Error
		if errors.As(err, &e) && (e.Code == "NoSuchRoute" || e.Status == http.StatusMethodNotAllowed) {
			t.Errorf("%s: not routed (%v)", call, err)
		}
	}
	err = c.Do(ctx, "GET", "/nothing-here", nil, nil)
	wantCode(t, err, 404, "NoSuchRoute")
}

func TestAdminCallsNeedTheRightIdentity(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	c := root(srv)
	// Unsigned and wrongly signed calls are refused.
	resp, err := srv.Client().Get(srv.URL + admin.Prefix + "/tenants")
	must(t, err)
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Fatalf("anonymous GET /tenants: %s", resp.Status)
	}
	bad := admin.NewClient(srv.URL, nodetest.AccessKey, "wrong", srv.Client())
	wantCode(t, bad.Do(ctx, "GET", "/tenants", nil, nil), 403, "SignatureDoesNotMatch")

	for _, name := range []string{"acme", "beta"} {
		must(t, c.Do(ctx, "POST", "/tenants", map[string]string{"name": name}, nil))
	}
	wantCode(t, c.Do(ctx, "POST", "/tenants", map[string]string{"name": "acme"}, nil), 409, "TenantAlreadyExists")
	wantCode(t, c.Do(ctx, "POST", "/tenants", map[string]string{"name": "Bad_Name"}, nil), 400, "InvalidArgument")
	must(t, c.Do(ctx, "POST", "/tenants/acme/users", map[string]string{"name": "ann", "role": "admin"}, nil))
	must(t, c.Do(ctx, "POST", "/tenants/acme/users", map[string]string{"name": "bob"}, nil))
	var annKey, bobKey admin.Key
	must(t, c.Do(ctx, "POST", "/tenants/acme/users/ann/keys", nil, &annKey))
	must(t, c.Do(ctx, "POST", "/tenants/acme/users/bob/keys", nil, &bobKey))
	if annKey.SecretKey == "" || annKey.Tenant != "acme" || annKey.Kind != "key" {
		t.Fatalf("created key = %+v", annKey)
	}

	ann := admin.NewClient(srv.URL, annKey.AccessKey, annKey.SecretKey, srv.Client())
	bob := admin.NewClient(srv.URL, bobKey.AccessKey, bobKey.SecretKey, srv.Client())
	// A tenant admin manages its own tenant's users and keys, nothing else.
	must(t, ann.Do(ctx, "POST", "/tenants/acme/users", map[string]string{"name": "cy"}, nil))
	var users []admin.User
	must(t, ann.Do(ctx, "GET", "/tenants/acme/users", nil, &users))
	if len(users) != 3 {
		t.Fatalf("users of acme = %+v", users)
	}
	wantCode(t, ann.Do(ctx, "GET", "/tenants/beta/users", nil, nil), 403, "AccessDenied")
	wantCode(t, ann.Do(ctx, "GET", "/tenants", nil, nil), 403, "AccessDenied")
	wantCode(t, ann.Do(ctx, "POST", "/tenants/acme/suspend", nil, nil), 403, "AccessDenied")
	wantCode(t, ann.Do(ctx, "PUT", "/tenants/acme/quotas", map[string]int{"max_bytes": 1 << 40}, nil), 403, "AccessDenied")
	// A tenant user manages nothing.
	wantCode(t, bob.Do(ctx, "GET", "/tenants/acme/users", nil, nil), 403, "AccessDenied")
	wantCode(t, bob.Do(ctx, "POST", "/tenants/acme/users/bob/keys", nil, nil), 403, "AccessDenied")

	// Keys are found only under their own user.
	wantCode(t, c.Do(ctx, "POST", "/tenants/acme/users/ann/keys/"+bobKey.AccessKey+"/disable", nil, nil), 404, "NoSuchAccessKey")
	var app admin.Key
	wantCode(t, c.Do(ctx, "POST", "/tenants/acme/users/bob/appcreds", map[string]any{}, nil), 400, "InvalidArgument")
	for _, b := range []string{"bk1", "bk2"} {
		if _, err := s3As(srv, annKey).CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(b)}); err != nil {
			t.Fatal(err)
		}
	}
	must(t, c.Do(ctx, "POST", "/tenants/acme/users/bob/appcreds", map[string]any{"buckets": []string{"bk2", "bk1", "bk1"}, "read_only": true}, &app))
	if app.Kind != "appcred" || !app.ReadOnly || strings.Join(app.Buckets, ",") != "bk1,bk2" {
		t.Fatalf("app credential = %+v", app)
	}
	var keys []admin.Key
	must(t, c.Do(ctx, "GET", "/tenants/acme/users/bob/keys", nil, &keys))
	if len(keys) != 2 || keys[0].SecretKey != "" || keys[1].SecretKey != "" {
		t.Fatalf("listed keys (secrets must not be listed) = %+v", keys)
	}
	wantCode(t, c.Do(ctx, "POST", "/tenants/acme/users", "not an object", nil), 400, "MalformedJSON")
	wantCode(t, c.Do(ctx, "POST", "/tenants/acme/users", map[string]string{"name": "x", "role": "god"}, nil), 400, "InvalidArgument")
	wantCode(t, c.Do(ctx, "GET", "/tenants/nope/users", nil, nil), 404, "NoSuchTenant")
	wantCode(t, c.Do(ctx, "DELETE", "/tenants/acme/users/nobody", nil, nil), 404, "NoSuchUser")
}

// Identities cannot be borrowed: canonical ids are random, so a user or
// tenant deleted and created again under its old name is a new
// principal; and only the provider's root gives e-mail addresses, so a
// tenant admin can neither claim another tenant's address nor learn
// whether one is in use (it gets the same 403 either way).
func TestIdentitiesCannotBeBorrowed(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	c := root(srv)
	for _, name := range []string{"acme", "beta"} {
		must(t, c.Do(ctx, "POST", "/tenants", map[string]string{"name": name}, nil))
	}
	var cy1, cy2 admin.User
	must(t, c.Do(ctx, "POST", "/tenants/acme/users", map[string]string{"name": "cy", "email": "cy@acme.test"}, &cy1))
	must(t, c.Do(ctx, "DELETE", "/tenants/acme/users/cy", nil, nil))
	must(t, c.Do(ctx, "POST", "/tenants/acme/users", map[string]string{"name": "cy"}, &cy2))
	hex64 := func(s string) bool {
		return len(s) == 64 && strings.Trim(s, "0123456789abcdef") == ""
	}
	if !hex64(cy1.CanonicalID) || !hex64(cy2.CanonicalID) || cy1.CanonicalID == cy2.CanonicalID {
		t.Fatalf("canonical ids of cy before and after re-creation: %q, %q: want two different 64-hex ids", cy1.CanonicalID, cy2.CanonicalID)
	}
	var t1, t2 admin.Tenant
	must(t, c.Do(ctx, "GET", "/tenants/beta", nil, &t1))
	must(t, c.Do(ctx, "DELETE", "/tenants/beta", nil, nil))
	must(t, c.Do(ctx, "POST", "/tenants", map[string]string{"name": "beta"}, &t2))
	if !hex64(t2.CanonicalID) || t1.CanonicalID == t2.CanonicalID {
		t.Fatalf("canonical ids of beta before and after re-creation: %q, %q", t1.CanonicalID, t2.CanonicalID)
	}
	// A gamma of five hours ago, with usage three hours ago.
	earlier := time.Now().UTC().Truncate(time.Hour).Add(-3 * time.Hour)
	must(t, srv.Node.Catalog.CreateTenant(ctx, catalog.Tenant{Name: "gamma", Status: catalog.TenantActive, CanonicalID: "c-gamma", CreatedAt: earlier.Add(-2 * time.Hour)}))
	must(t, srv.Node.Catalog.AddTraffic(ctx, "n", map[catalog.MeterKey]catalog.Traffic{{Tenant: "gamma", Bucket: "old-gamma", Hour: earlier}: {Get: 7}}))
	var u1 admin.Usage
	must(t, c.Do(ctx, "GET", "/tenants/gamma/usage?from="+earlier.Format(time.RFC3339), nil, &u1))
	must(t, c.Do(ctx, "DELETE", "/tenants/gamma", nil, nil))
	must(t, c.Do(ctx, "POST", "/tenants", map[string]string{"name": "gamma"}, nil))
	// Usage is kept by name; the second gamma's report starts with it.
	var u2 admin.Usage
	must(t, c.Do(ctx, "GET", "/tenants/gamma/usage?from="+earlier.Format(time.RFC3339), nil, &u2))
	if len(u1.Rows) != 1 || len(u2.Rows) != 0 {
		t.Fatalf("usage of the first gamma %+v, of the second %+v: want the old row in the first only", u1.Rows, u2.Rows)
	}

	must(t, c.Do(ctx, "POST", "/tenants/acme/users", map[string]string{"name": "amy", "email": "amy@acme.test"}, nil))
	must(t, c.Do(ctx, "POST", "/tenants/beta/users", map[string]string{"name": "bo", "role": "admin"}, nil))
	var boKey admin.Key
	must(t, c.Do(ctx, "POST", "/tenants/beta/users/bo/keys", nil, &boKey))
	bo := admin.NewClient(srv.URL, boKey.AccessKey, boKey.SecretKey, srv.Client())
	// Taken elsewhere or free, the answer is the same, and nothing is made.
	for _, email := range []string{"amy@acme.test", "AMY@acme.test", "free@beta.test"} {
		wantCode(t, bo.Do(ctx, "POST", "/tenants/beta/users", map[string]string{"name": "x", "email": email}, nil), 403, "AccessDenied")
	}
	wantCode(t, c.Do(ctx, "GET", "/tenants/beta/users/x", nil, nil), 404, "NoSuchUser")
	// Without an address a tenant admin creates users as before; the
	// root's own attempt at a taken address is told so.
	must(t, bo.Do(ctx, "POST", "/tenants/beta/users", map[string]string{"name": "x"}, nil))
	wantCode(t, c.Do(ctx, "POST", "/tenants/beta/users", map[string]string{"name": "y", "email": "amy@acme.test"}, nil), 409, "EmailAlreadyExists")
	// Changing an address is the root's too: a tenant admin cannot, even
	// for its own user, nor clear one.
	for _, email := range []string{"amy@acme.test", "x@beta.test", ""} {
		wantCode(t, bo.Do(ctx, "PUT", "/tenants/beta/users/x/email", map[string]string{"email": email}, nil), 403, "AccessDenied")
	}
	wantCode(t, c.Do(ctx, "PUT", "/tenants/beta/users/x/email", map[string]string{"email": "amy@acme.test"}, nil), 409, "EmailAlreadyExists")
	wantCode(t, c.Do(ctx, "PUT", "/tenants/beta/users/x/email", map[string]string{"email": "not-an-address"}, nil), 400, "InvalidArgument")
	var x admin.User
	must(t, c.Do(ctx, "PUT", "/tenants/beta/users/x/email", map[string]string{"email": "X@Beta.test"}, &x))
	if x.Email != "x@beta.test" {
		t.Fatalf("after SetUserEmail: %+v", x)
	}
	wantCode(t, c.Do(ctx, "PUT", "/tenants/beta/users/nobody/email", map[string]string{"email": "n@beta.test"}, nil), 404, "NoSuchUser")
}
