package directory_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/go-ldap/ldap/v3"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/console/consoletest"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/testenv"
)

// Through a real node: the provider connects a tenant's directory with
// the admin API, syncs it now, a directory user signs in to the console
// with its directory password, and S3 takes the key made for it;
// once the user is gone from the directory, the next sync ends its
// console session and the node refuses its key.
func TestNodeDirectoryUserLosesSessionAndKeyAtNextSync(t *testing.T) {
	sl := testenv.StartSlapd(t)
	srv := nodetest.Start(t, nodetest.Options{})
	ctx := context.Background()
	c := admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, srv.Client())
	must(t, c.Do(ctx, "POST", "/tenants", map[string]string{"name": tenant}, nil))
	cfg := map[string]any{"url": sl.LDAPS, "ca": sl.CA, "bind_dn": testenv.SlapdReaderDN, "bind_password": testenv.SlapdReaderPass,
		"user_base": testenv.SlapdPeople, "group_base": testenv.SlapdGroups, "disabled_attribute": "employeeType", "disabled_value": "disabled",
		"admin_groups": []string{testenv.SlapdAdminsGroup}, "user_groups": []string{testenv.SlapdUsersGroup}}
	var d admin.Directory
	must(t, c.Do(ctx, "PUT", "/tenants/"+tenant+"/directory", cfg, &d))
	if d.Config.LoginAttribute != "uid" || d.Config.IDAttribute != "entryUUID" {
		t.Fatalf("defaults not filled: %+v", d.Config)
	}
	var raw map[string]any
	must(t, c.Do(ctx, "GET", "/tenants/"+tenant+"/directory", nil, &raw))
	if strings.Contains(strings.ToLower(jsonText(t, raw)), testenv.SlapdReaderPass) {
		t.Fatal("the bind password is shown")
	}
	// Plain LDAP needs the provider's word; a bad filter is refused.
	bad := map[string]any{}
	for k, v := range cfg {
		bad[k] = v
	}
	bad["user_filter"] = "(uid=*"
	var e *admin.Error
	if err := c.Do(ctx, "PUT", "/tenants/"+tenant+"/directory", bad, nil); !errors.As(err, &e) || e.Code != "InvalidDirectory" {
		t.Fatalf("bad filter: %v", err)
	}

	// The node's sync job may be syncing the new directory already: the
	// call then answers 409 SyncRunning, and is tried again.
	syncNow := func() {
		t.Helper()
		for i := 0; ; i++ {
			err := c.Do(ctx, "POST", "/tenants/"+tenant+"/directory/sync", nil, nil)
			if !errors.As(err, &e) || e.Code != "SyncRunning" || i == 100 {
				must(t, err)
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	syncNow()
	var users []admin.DirectoryUser
	must(t, c.Do(ctx, "GET", "/tenants/"+tenant+"/directory/users", nil, &users))
	if len(users) != 3 || users[0].User != "alice" || users[0].Role != "admin" || users[1].Role != "user" {
		t.Fatalf("users %+v", users)
	}

	// bob signs in with his directory password; a wrong one is refused.
	browser := consoletest.New(t, srv.Console.URL, srv.Console.Client())
	if r := browser.SignIn(map[string]string{"method": "directory", "tenant": tenant, "user": "bob", "password": "wrong"}); r.Status != http.StatusUnauthorized {
		t.Fatalf("wrong password: %d %s", r.Status, r.Body)
	}
	if r := browser.SignIn(map[string]string{"method": "directory", "tenant": tenant, "user": "bob*", "password": testenv.SlapdUserPass}); r.Status != http.StatusUnauthorized {
		t.Fatalf("a wildcard login: %d %s", r.Status, r.Body)
	}
	browser.MustSignIn(map[string]string{"method": "directory", "tenant": tenant, "user": "bob", "password": testenv.SlapdUserPass})
	var key admin.Key
	must(t, c.Do(ctx, "POST", "/tenants/"+tenant+"/users/bob/keys", nil, &key))
	s3c := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(key.AccessKey, key.SecretKey, ""), HTTPClient: srv.Client()})
	if _, err := s3c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("bob-bucket")}); err != nil {
		t.Fatalf("bob's key: %v", err)
	}
	browser.Must(http.StatusOK, "GET", "/session", nil)

	sl.Admin(func(c *ldap.Conn) error { return c.Del(ldap.NewDelRequest("uid=bob,"+testenv.SlapdPeople, nil)) })
	// Until the sync, the node knows nothing of it.
	if _, err := s3c.ListBuckets(ctx, &s3.ListBucketsInput{}); err != nil {
		t.Fatalf("before the sync: %v", err)
	}
	syncNow()
	var ae smithy.APIError
	if _, err := s3c.ListBuckets(ctx, &s3.ListBucketsInput{}); !errors.As(err, &ae) || ae.ErrorCode() != "InvalidAccessKeyId" {
		t.Fatalf("bob's key after the sync: %v", err)
	}
	if r := browser.Do("GET", "/session", nil); r.Status != http.StatusUnauthorized {
		t.Fatalf("bob's session after the sync: %d %s", r.Status, r.Body)
	}
	var u admin.User
	must(t, c.Do(ctx, "GET", "/tenants/"+tenant+"/users/bob", nil, &u))
	if !u.Disabled {
		t.Fatalf("bob %+v", u)
	}
	// The sync's changes and the sign-ins are in the audit log.
	var page admin.AuditPage
	must(t, c.Do(ctx, "GET", "/audit?limit=1000", nil, &page))
	seen := map[string]bool{}
	for _, e := range page.Entries {
		seen[e.Action+" "+e.Target+" "+e.Outcome] = true
	}
	for _, want := range []string{"directory:CreateUser tenants/acme/users/bob ok", "directory:DisableUser tenants/acme/users/bob ok",
		"console:SignIn directory ok", "console:SignIn directory InvalidCredentials"} {
		if !seen[want] {
			t.Errorf("audit log lacks %q: %v", want, seen)
		}
	}
	// Failed directory sign-ins are limited as password ones: past the
	// user's free attempts, even the right password waits (429).
	limited := consoletest.New(t, srv.Console.URL, srv.Console.Client())
	status := 0
	for i := 0; i < 6 && status != http.StatusTooManyRequests; i++ {
		status = limited.SignIn(map[string]string{"method": "directory", "tenant": tenant, "user": "carol", "password": "guess"}).Status
	}
	if status != http.StatusTooManyRequests {
		t.Fatalf("after failed sign-ins: %d, want 429", status)
	}
	if r := limited.SignIn(map[string]string{"method": "directory", "tenant": tenant, "user": "carol", "password": testenv.SlapdUserPass}); r.Status != http.StatusTooManyRequests {
		t.Fatalf("the right password while limited: %d %s", r.Status, r.Body)
	}
	// A tenant's admin may not allow plain LDAP; the provider may.
	plain := map[string]any{}
	for k, v := range cfg {
		plain[k] = v
	}
	plain["url"], plain["allow_plain"] = sl.LDAP, true
	var ak admin.Key
	must(t, c.Do(ctx, "POST", "/tenants/"+tenant+"/users/alice/keys", nil, &ak))
	ac := admin.NewClient(srv.URL, ak.AccessKey, ak.SecretKey, srv.Client())
	if err := ac.Do(ctx, "PUT", "/tenants/"+tenant+"/directory", plain, nil); !errors.As(err, &e) || e.Status != http.StatusForbidden {
		t.Fatalf("a tenant admin allowed plain LDAP: %v", err)
	}
	must(t, ac.Do(ctx, "GET", "/tenants/"+tenant+"/directory/groups", nil, nil))
	must(t, c.Do(ctx, "PUT", "/tenants/"+tenant+"/directory", plain, nil))
	must(t, c.Do(ctx, "DELETE", "/tenants/"+tenant+"/directory", nil, nil))
	if err := c.Do(ctx, "GET", "/tenants/"+tenant+"/directory", nil, nil); !errors.As(err, &e) || e.Code != "NoSuchDirectory" {
		t.Fatalf("after delete: %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
