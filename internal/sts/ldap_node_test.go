package sts_test

import (
	"context"
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"net/url"
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

const tenant = "acme"

// ldapAnswer is AssumeRoleWithLDAPIdentity's answer as MinIO's clients
// read it, or STS's error.
type ldapAnswer struct {
	Status int
	Creds  struct {
		AccessKeyID     string `xml:"AccessKeyId"`
		SecretAccessKey string
		SessionToken    string
		Expiration      string
	} `xml:"AssumeRoleWithLDAPIdentityResult>Credentials"`
	Code string `xml:"Error>Code"`
	Body string `xml:"-"`
}

// assumeLDAP posts the unsigned form MinIO's SDKs and mc send.
func assumeLDAP(t *testing.T, srv *nodetest.Server, form url.Values) ldapAnswer {
	t.Helper()
	form.Set("Action", "AssumeRoleWithLDAPIdentity")
	form.Set("Version", "2011-06-15")
	resp, err := srv.Client().Post(srv.URL+"/", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var a ldapAnswer
	if err := xml.Unmarshal(b, &a); err != nil {
		t.Fatalf("answer %d %s: %v", resp.StatusCode, b, err)
	}
	a.Status, a.Body = resp.StatusCode, string(b)
	if a.Status == http.StatusOK && !strings.HasPrefix(strings.TrimPrefix(b2s(b), `<?xml version="1.0" encoding="UTF-8"?>`+"\n"), `<AssumeRoleWithLDAPIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">`) {
		t.Fatalf("answer shape: %s", b)
	}
	return a
}

func b2s(b []byte) string { return string(b) }

func ldapForm(user, password string) url.Values {
	return url.Values{"LDAPUsername": {user}, "LDAPPassword": {password}}
}

func startDirectoryNode(t *testing.T, extra map[string]any) (*testenv.Slapd, *nodetest.Server, *admin.Client) {
	sl := testenv.StartSlapd(t)
	srv := nodetest.Start(t, nodetest.Options{})
	ctx := context.Background()
	c := admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, srv.Client())
	must(t, c.Do(ctx, "POST", "/tenants", map[string]string{"name": tenant}, nil))
	cfg := map[string]any{"url": sl.LDAPS, "ca": sl.CA, "bind_dn": testenv.SlapdReaderDN, "bind_password": testenv.SlapdReaderPass,
		"user_base": testenv.SlapdPeople, "group_base": testenv.SlapdGroups, "disabled_attribute": "employeeType", "disabled_value": "disabled",
		"admin_groups": []string{testenv.SlapdAdminsGroup}, "user_groups": []string{testenv.SlapdUsersGroup}}
	for k, v := range extra {
		cfg[k] = v
	}
	must(t, c.Do(ctx, "PUT", "/tenants/"+tenant+"/directory", cfg, nil))
	return sl, srv, c
}

// syncNow syncs the tenant's directory, again while the node's own job
// holds the sync.
func syncNow(t *testing.T, c *admin.Client) {
	t.Helper()
	var e *admin.Error
	for i := 0; ; i++ {
		err := c.Do(context.Background(), "POST", "/tenants/"+tenant+"/directory/sync", nil, nil)
		if !errors.As(err, &e) || e.Code != "SyncRunning" || i == 100 {
			must(t, err)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func s3As(srv *nodetest.Server, a ldapAnswer) *s3.Client {
	return s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true, HTTPClient: srv.Client(),
		Credentials: credentials.NewStaticCredentialsProvider(a.Creds.AccessKeyID, a.Creds.SecretAccessKey, a.Creds.SessionToken)})
}

func code(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// Through a real node and a real directory: a directory user of a
// tenant gets temporary credentials with its directory password, named
// as "TENANT\login" or "tenant/login"; they act as its catalog user over
// S3, a session policy narrows them, and they stop when the directory
// disables the user. Wrong passwords, unknown tenants and users the
// directory disables get nothing, and failures count against the
// console's sign-in limits.
func TestAssumeRoleWithLDAPIdentity(t *testing.T) {
	sl, srv, c := startDirectoryNode(t, nil)
	ctx := context.Background()

	// The tenant as Windows writes domains: upper case.
	a := assumeLDAP(t, srv, ldapForm(strings.ToUpper(tenant)+`\bob`, testenv.SlapdUserPass))
	if a.Status != http.StatusOK || a.Creds.AccessKeyID == "" || a.Creds.SessionToken == "" {
		t.Fatalf("bob: %d %s", a.Status, a.Body)
	}
	exp, err := time.Parse(time.RFC3339, a.Creds.Expiration)
	if err != nil || exp.Before(time.Now().Add(50*time.Minute)) || exp.After(time.Now().Add(70*time.Minute)) {
		t.Fatalf("expiration %q: want about an hour (the default)", a.Creds.Expiration)
	}
	bob := s3As(srv, a)
	if _, err := bob.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("bob-bucket")}); err != nil {
		t.Fatalf("bob's temporary credentials: %v", err)
	}
	if _, err := bob.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("bob-bucket"), Key: aws.String("a.txt"), Body: strings.NewReader("a")}); err != nil {
		t.Fatal(err)
	}
	// The bucket is bob's: the catalog user the directory user is.
	var u admin.User
	must(t, c.Do(ctx, "GET", "/tenants/"+tenant+"/users/bob", nil, &u))
	out, err := bob.ListBuckets(ctx, &s3.ListBucketsInput{})
	if err != nil || len(out.Buckets) != 1 || out.Owner == nil || aws.ToString(out.Owner.ID) != u.CanonicalID {
		t.Fatalf("bob's buckets: %+v %v (bob is %s)", out, err, u.CanonicalID)
	}

	// A session policy narrows: reads of bob-bucket only.
	f := ldapForm(tenant+"/bob", testenv.SlapdUserPass)
	f.Set("DurationSeconds", "900")
	f.Set("Policy", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::bob-bucket/*"}]}`)
	ro := assumeLDAP(t, srv, f)
	if ro.Status != http.StatusOK {
		t.Fatalf("with a session policy: %d %s", ro.Status, ro.Body)
	}
	narrow := s3As(srv, ro)
	if _, err := narrow.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("bob-bucket"), Key: aws.String("a.txt")}); err != nil {
		t.Fatalf("a read the session policy allows: %v", err)
	}
	if _, err := narrow.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("bob-bucket"), Key: aws.String("b.txt"), Body: strings.NewReader("b")}); code(err) != "AccessDenied" {
		t.Fatalf("a write the session policy does not allow: %v", err)
	}

	// As MinIO's clients send it (minio-py, minio-go): the parameters in
	// the query string of a POST without a body.
	q := url.Values{"Action": {"AssumeRoleWithLDAPIdentity"}, "Version": {"2011-06-15"},
		"LDAPUsername": {tenant + `\bob`}, "LDAPPassword": {testenv.SlapdUserPass}, "DurationSeconds": {"900"}}
	resp, err := srv.Client().Post(srv.URL+"/?"+q.Encode(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var qa ldapAnswer
	if err := xml.Unmarshal(b, &qa); err != nil || resp.StatusCode != http.StatusOK || qa.Creds.SessionToken == "" {
		t.Fatalf("in the query string: %d %s", resp.StatusCode, b)
	}
	if _, err := s3As(srv, qa).ListBuckets(ctx, &s3.ListBucketsInput{}); err != nil {
		t.Fatalf("credentials from the query-string form: %v", err)
	}

	// Refusals: the caller's mistakes are told; what is wrong with the
	// credentials is not.
	for _, tc := range []struct {
		form   url.Values
		status int
		code   string
	}{
		{ldapForm(tenant+`\bob`, "wrong"), http.StatusForbidden, "AccessDenied"},
		{ldapForm(`nosuch\bob`, testenv.SlapdUserPass), http.StatusForbidden, "AccessDenied"},
		{ldapForm(tenant+`\dave`, testenv.SlapdUserPass), http.StatusForbidden, "AccessDenied"},  // disabled in the directory
		{ldapForm(tenant+`\erin`, testenv.SlapdUserPass), http.StatusForbidden, "AccessDenied"},  // in no mapped group
		{ldapForm(tenant+`\bob*`, testenv.SlapdUserPass), http.StatusForbidden, "AccessDenied"},  // no filter injection
		{ldapForm("bob", testenv.SlapdUserPass), http.StatusBadRequest, "InvalidParameterValue"}, // no tenant
		{ldapForm(tenant+`\bob`, ""), http.StatusBadRequest, "MissingParameter"},
		{url.Values{"LDAPUsername": {tenant + `\bob`}, "LDAPPassword": {testenv.SlapdUserPass}, "DurationSeconds": {"60"}}, http.StatusBadRequest, "ValidationError"},
		{url.Values{"LDAPUsername": {tenant + `\bob`}, "LDAPPassword": {testenv.SlapdUserPass}, "Policy": {"{"}}, http.StatusBadRequest, "MalformedPolicyDocument"},
	} {
		if a := assumeLDAP(t, srv, tc.form); a.Status != tc.status || a.Code != tc.code {
			t.Errorf("%v: %d %s, want %d %s", tc.form, a.Status, a.Body, tc.status, tc.code)
		}
	}

	// The directory disables bob: at the next sync his credentials stop.
	sl.Admin(func(c *ldap.Conn) error {
		m := ldap.NewModifyRequest("uid=bob,"+testenv.SlapdPeople, nil)
		m.Add("employeeType", []string{"disabled"})
		return c.Modify(m)
	})
	syncNow(t, c)
	if _, err := bob.ListBuckets(ctx, &s3.ListBucketsInput{}); err == nil {
		t.Fatal("bob's temporary credentials work after the directory disabled him")
	}
	if a := assumeLDAP(t, srv, ldapForm(tenant+`\bob`, testenv.SlapdUserPass)); a.Status != http.StatusForbidden {
		t.Fatalf("disabled bob: %d %s", a.Status, a.Body)
	}

	// Failed binds through STS count as the console's: past carol's free
	// attempts, STS throttles her and so does the console, even with the
	// right password.
	status := ""
	for i := 0; i < 6 && status != "Throttling"; i++ {
		status = assumeLDAP(t, srv, ldapForm(tenant+`\carol`, "guess")).Code
	}
	if status != "Throttling" {
		t.Fatalf("after failed binds: %s, want Throttling", status)
	}
	if a := assumeLDAP(t, srv, ldapForm(tenant+`\carol`, testenv.SlapdUserPass)); a.Code != "Throttling" {
		t.Fatalf("the right password while limited: %d %s", a.Status, a.Body)
	}
	browser := consoletest.New(t, srv.Console.URL, srv.Console.Client())
	if r := browser.SignIn(map[string]string{"method": "directory", "tenant": tenant, "user": "carol", "password": testenv.SlapdUserPass}); r.Status != http.StatusTooManyRequests {
		t.Fatalf("the console after failed binds through STS: %d %s", r.Status, r.Body)
	}
	// Refused binds are in the audit log, as STS's.
	var page admin.AuditPage
	must(t, c.Do(ctx, "GET", "/audit?limit=1000", nil, &page))
	seen := map[string]bool{}
	for _, e := range page.Entries {
		seen[e.Action+" "+e.Tenant+" "+e.User+" "+e.Outcome] = true
	}
	for _, want := range []string{"sts:AssumeRoleWithLDAPIdentity acme bob ok", "sts:AssumeRoleWithLDAPIdentity acme carol InvalidCredentials"} {
		if !seen[want] {
			t.Errorf("audit log lacks %q: %v", want, seen)
		}
	}
}
