package osis_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/osis"
)

const consoleURL = "https://console.example.test"

// api is a test's OSIS client: every answer it gets is validated
// against openapi.yaml, error answers included.
type api struct {
	t          *testing.T
	srv        *nodetest.Server
	router     routers.Router
	user, pass string
}

func start(t *testing.T) *api {
	t.Helper()
	srv := nodetest.Start(t, nodetest.Options{Config: func(c *node.Config) {
		c.OSIS, c.OSISConsoleURL = true, consoleURL
	}})
	return &api{t: t, srv: srv, router: specRouter(t, srv.URL), user: nodetest.AccessKey, pass: nodetest.SecretKey}
}

func specRouter(t *testing.T, base string) routers.Router {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(osis.OpenAPI())
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("openapi.yaml is not valid: %v", err)
	}
	doc.Servers = openapi3.Servers{{URL: base + osis.Prefix}}
	r, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (a *api) as(user, pass string) *api {
	b := *a
	b.user, b.pass = user, pass
	return &b
}

// do sends a call and returns its status and body, having checked the
// answer against the spec.
func (a *api) do(method, path string, body any) (int, []byte) {
	a.t.Helper()
	var rd io.Reader
	if s, ok := body.(string); ok {
		rd = strings.NewReader(s)
	} else if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, a.srv.URL+osis.Prefix+path, rd)
	if err != nil {
		a.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if a.user != "" {
		req.SetBasicAuth(a.user, a.pass)
	}
	resp, err := a.srv.Client().Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	a.validate(req, resp, got)
	return resp.StatusCode, got
}

func (a *api) validate(req *http.Request, resp *http.Response, body []byte) {
	a.t.Helper()
	route, params, err := a.router.FindRoute(req)
	if err != nil {
		if resp.StatusCode == http.StatusNotFound {
			return // no such operation: nothing in the spec to hold it to
		}
		a.t.Fatalf("%s %s: not in the spec: %v", req.Method, req.URL.Path, err)
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	if err := openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: resp.StatusCode, Header: resp.Header, Body: io.NopCloser(bytes.NewReader(body)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true},
	}); err != nil {
		a.t.Errorf("%s %s answered %d, not as the spec says: %v\n%s", req.Method, req.URL, resp.StatusCode, err, body)
	}
}

// want calls and decodes a JSON answer of the status wanted.
func (a *api) want(status int, method, path string, body, out any) {
	a.t.Helper()
	got, b := a.do(method, path, body)
	if got != status {
		a.t.Fatalf("%s %s: %d %s, want %d", method, path, got, b, status)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			a.t.Fatalf("%s %s: %v: %s", method, path, err, b)
		}
	}
}

// wantErr calls and checks the spec's Error object and its code.
func (a *api) wantErr(status int, code, method, path string, body any) {
	a.t.Helper()
	got, b := a.do(method, path, body)
	var e osis.Error
	if err := json.Unmarshal(b, &e); err != nil || got != status || e.Code != code || e.Message == "" {
		a.t.Fatalf("%s %s: %d %s, want %d %s", method, path, got, b, status, code)
	}
}

const cdTenant = "8DACA9A9-5B11-4F63-9C52-953A2EF77739"
const cdUser = "5e6c3f0a-2d1b-4c8e-9f7a-1b2c3d4e5f60"

// TestOnboarding walks what OSE does to bring a Cloud Director
// organization onto the platform, then uses what it made with an S3 SDK.
func TestOnboarding(t *testing.T) {
	a := start(t)
	ctx := context.Background()

	var info osis.Information
	a.as("", "").want(200, "GET", "/api/info", nil, &info) // anonymous, as the spec has it
	if info.PlatformName != "Ostium" || info.APIVersion != osis.APIVersion || len(info.AuthModes) != 1 || info.AuthModes[0] != "Basic" ||
		info.Services.S3 != a.srv.URL {
		t.Fatalf("info = %+v", info)
	}
	var caps osis.S3Capabilities
	a.want(200, "GET", "/api/v1/s3capabilities", nil, &caps)
	if _, ok := caps.Exclusions["PutBucketWebsite"]; !ok {
		t.Fatalf("capabilities %+v do not exclude website hosting, which the endpoint refuses", caps)
	}
	if _, ok := caps.Exclusions["PutObject"]; ok {
		t.Fatal("PutObject excluded")
	}

	var ten osis.Tenant
	a.want(201, "POST", "/api/v1/tenants", osis.Tenant{Name: "ACME Corp", Active: true, CDTenantIDs: []string{cdTenant}}, &ten)
	tid := strings.ToLower(cdTenant)
	if ten.TenantID != tid || ten.Name != "ACME Corp" || !ten.Active || len(ten.CDTenantIDs) != 1 || ten.CDTenantIDs[0] != cdTenant {
		t.Fatalf("created tenant = %+v", ten)
	}
	a.want(200, "HEAD", "/api/v1/tenants/"+tid, nil, nil)
	var tp osis.Page[osis.Tenant]
	a.want(200, "GET", "/api/v1/tenants/query?filter="+url.QueryEscape("cd_tenant_id=="+cdTenant), nil, &tp)
	if tp.PageInfo.Total != 1 || tp.Items[0].TenantID != tid {
		t.Fatalf("query by cd_tenant_id = %+v", tp)
	}
	a.want(200, "GET", "/api/v1/tenants/query?filter="+url.QueryEscape("cd_tenant_id==00000000-0000-0000-0000-000000000000"), nil, &tp)
	if tp.PageInfo.Total != 0 || len(tp.Items) != 0 {
		t.Fatalf("query by another cd_tenant_id = %+v", tp)
	}

	var u osis.User
	a.want(201, "POST", "/api/v1/tenants/"+tid+"/users", osis.User{CDUserID: cdUser, CDTenantID: cdTenant, Username: "ann",
		Email: "ann@acme.test", Role: "TENANT_ADMIN", Active: true}, &u)
	if u.UserID != cdUser || u.CDUserID != cdUser || u.TenantID != tid || u.CDTenantID != cdTenant || u.Role != "TENANT_ADMIN" ||
		len(u.CanonicalUserID) != 64 || !u.Active {
		t.Fatalf("created user = %+v", u)
	}
	var up osis.Page[osis.User]
	a.want(200, "GET", "/api/v1/users/query?filter="+url.QueryEscape("cd_user_id=="+cdUser+";cd_tenant_id=="+cdTenant), nil, &up)
	if up.PageInfo.Total != 1 || up.Items[0].CanonicalUserID != u.CanonicalUserID {
		t.Fatalf("query users = %+v", up)
	}
	var byCanon osis.User
	a.want(200, "GET", "/api/v1/users/"+u.CanonicalUserID, nil, &byCanon)
	if byCanon.UserID != cdUser {
		t.Fatalf("by canonical id = %+v", byCanon)
	}

	var cred osis.S3Credential
	a.want(201, "POST", "/api/v1/tenants/"+tid+"/users/"+cdUser+"/s3credentials", nil, &cred)
	if cred.SecretKey == "" || !cred.Active || cred.UserID != cdUser || cred.CDTenantID != cdTenant || cred.CDUserID != cdUser {
		t.Fatalf("created credential = %+v", cred)
	}
	var got osis.S3Credential
	a.want(200, "GET", "/api/v1/s3credentials/"+cred.AccessKey, nil, &got)
	if got.SecretKey != "" || got.AccessKey != cred.AccessKey {
		t.Fatalf("getCredential = %+v: the secret is given once, when created", got)
	}
	var cp osis.Page[osis.S3Credential]
	a.want(200, "GET", "/api/v1/s3credentials/query?filter="+url.QueryEscape("cd_tenant_id=="+cdTenant+";cd_user_id=="+cdUser), nil, &cp)
	if cp.PageInfo.Total != 1 || cp.Items[0].AccessKey != cred.AccessKey {
		t.Fatalf("query credentials = %+v", cp)
	}

	c := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(a.srv.URL), UsePathStyle: true, HTTPClient: a.srv.Client(),
		Credentials: credentials.NewStaticCredentialsProvider(cred.AccessKey, cred.SecretKey, "")})
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("vcd-bucket")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("vcd-bucket"), Key: aws.String("k"), Body: strings.NewReader("hello osis")}); err != nil {
		t.Fatal(err)
	}
	out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("vcd-bucket"), Key: aws.String("k")})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(out.Body)
	out.Body.Close()
	if string(b) != "hello osis" {
		t.Fatalf("got %q", b)
	}

	var use osis.Usage
	a.want(200, "GET", "/api/v1/usage?tenant_id="+tid, nil, &use)
	if use.BucketCount != 1 || use.ObjectCount != 1 || use.UsedBytes != int64(len("hello osis")) {
		t.Fatalf("usage = %+v", use)
	}
	var bl osis.Page[osis.BucketMeta]
	a.want(200, "GET", "/api/v1/bucket-list?tenant_id="+tid, nil, &bl)
	if bl.PageInfo.Total != 1 || bl.Items[0].Name != "vcd-bucket" || bl.Items[0].UserID != cdUser {
		t.Fatalf("bucket list = %+v", bl)
	}
	var console string
	a.want(200, "GET", "/api/v1/console?tenant_id="+tid, nil, &console)
	if console != consoleURL {
		t.Fatalf("console = %q", console)
	}

	// Disabled, the credential signs nothing.
	a.want(200, "PATCH", "/api/v1/s3credentials/"+cred.AccessKey+"?tenant_id="+tid+"&user_id="+cdUser, map[string]bool{"active": false}, &got)
	if got.Active {
		t.Fatalf("after disabling: %+v", got)
	}
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("vcd-bucket"), Key: aws.String("k")})
	var re interface{ HTTPStatusCode() int }
	if !errors.As(err, &re) || re.HTTPStatusCode() != 403 {
		t.Fatalf("GetObject with a disabled credential: %v, want 403", err)
	}

	// The capabilities' exclusions are what the endpoint refuses.
	_, err = c.PutBucketWebsite(ctx, &s3.PutBucketWebsiteInput{Bucket: aws.String("vcd-bucket"),
		WebsiteConfiguration: &types.WebsiteConfiguration{IndexDocument: &types.IndexDocument{Suffix: aws.String("index.html")}}})
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "NotImplemented" {
		t.Fatalf("PutBucketWebsite, excluded: %v", err)
	}

	// A user made inactive has its keys disabled, and active again
	// enabled; a second credential goes with deleteCredential.
	var cred2 osis.S3Credential
	a.want(201, "POST", "/api/v1/tenants/"+tid+"/users/"+cdUser+"/s3credentials", nil, &cred2)
	a.want(201, "PATCH", "/api/v1/tenants/"+tid+"/users/"+cdUser, map[string]bool{"active": true}, &u)
	a.want(201, "PATCH", "/api/v1/tenants/"+tid+"/users/"+cdUser, map[string]bool{"active": false}, &u)
	if u.Active {
		t.Fatalf("after updateUserStatus inactive: %+v", u)
	}
	a.want(200, "GET", "/api/v1/tenants/"+tid+"/users/"+cdUser+"/s3credentials", nil, &cp)
	if cp.PageInfo.Total != 2 || cp.Items[0].Active || cp.Items[1].Active || cp.Items[0].SecretKey != "" {
		t.Fatalf("credentials of an inactive user: %+v", cp)
	}
	a.want(201, "PATCH", "/api/v1/tenants/"+tid+"/users/"+cdUser, map[string]bool{"active": true}, &u)
	if !u.Active {
		t.Fatalf("after updateUserStatus active: %+v", u)
	}
	a.wantErr(400, "E_BAD_REQUEST", "DELETE", "/api/v1/s3credentials/"+cred2.AccessKey+"?tenant_id="+tid, nil)
	a.wantErr(404, "E_NOT_FOUND", "DELETE", "/api/v1/s3credentials/"+cred2.AccessKey+"?tenant_id="+tid+"&user_id=someone", nil)
	a.want(204, "DELETE", "/api/v1/s3credentials/"+cred2.AccessKey+"?tenant_id="+tid+"&user_id="+cdUser, nil, nil)
	a.wantErr(404, "E_NOT_FOUND", "GET", "/api/v1/s3credentials/"+cred2.AccessKey, nil)

	// Suspending the tenant shows in its status.
	a.want(200, "PATCH", "/api/v1/tenants/"+tid, map[string]bool{"active": false}, &ten)
	if ten.Active {
		t.Fatalf("after suspending: %+v", ten)
	}

	a.want(204, "DELETE", "/api/v1/tenants/"+tid+"/users/"+cdUser, nil, nil)
	a.wantErr(404, "E_NOT_FOUND", "GET", "/api/v1/tenants/"+tid+"/users/"+cdUser, nil)
	a.want(204, "DELETE", "/api/v1/tenants/"+tid+"?purge_data=true", nil, nil)
	a.want(404, "HEAD", "/api/v1/tenants/"+tid, nil, nil)
	a.wantErr(404, "E_NOT_FOUND", "GET", "/api/v1/tenants/"+tid, nil)

	// Each call is in the audit log, by the root key that made it.
	root := admin.NewClient(a.srv.URL, nodetest.AccessKey, nodetest.SecretKey, a.srv.Client())
	var audit admin.AuditPage
	must(t, root.Do(ctx, "GET", "/audit?action=osis:createTenant", nil, &audit))
	found := false
	for _, e := range audit.Entries {
		found = found || e.Action == "osis:createTenant" && e.Root && e.AccessKey == nodetest.AccessKey && e.Status == 201
	}
	if !found {
		t.Fatalf("no osis:createTenant in the audit log: %+v", audit.Entries)
	}
}

// TestAuth: only the provider's root credentials, in basic auth, get in;
// every refusal is the spec's Error object, sent before any body is read.
func TestAuth(t *testing.T) {
	a := start(t)
	root := admin.NewClient(a.srv.URL, nodetest.AccessKey, nodetest.SecretKey, a.srv.Client())
	ctx := context.Background()
	must(t, root.Do(ctx, "POST", "/tenants", map[string]string{"name": "acme"}, nil))
	must(t, root.Do(ctx, "POST", "/tenants/acme/users", map[string]string{"name": "boss", "role": "admin"}, nil))
	var k admin.Key
	must(t, root.Do(ctx, "POST", "/tenants/acme/users/boss/keys", nil, &k))

	a.as("", "").wantErr(401, "E_UNAUTHORIZED", "GET", "/api/v1/tenants", nil)
	a.as(nodetest.AccessKey, "wrong").wantErr(401, "E_UNAUTHORIZED", "GET", "/api/v1/tenants", nil)
	a.as("NOSUCHKEY0000000000", "x").wantErr(401, "E_UNAUTHORIZED", "POST", "/api/v1/tenants", map[string]string{"name": "x"})
	// A tenant's admin administers its own tenant, never the platform.
	a.as(k.AccessKey, k.SecretKey).wantErr(403, "E_FORBIDDEN", "GET", "/api/v1/tenants", nil)
	a.as(k.AccessKey, k.SecretKey).wantErr(403, "E_FORBIDDEN", "GET", "/api/v1/tenants/acme/users", nil)

	// Guessing is bounded by address: past the failures allowed, even the
	// right secret is refused until the window ends.
	for i := 0; i < 12; i++ {
		a.do("GET", "/api/v1/tenants", nil) // warm: the right secret does not count
		a.as(nodetest.AccessKey, "guess").do("GET", "/api/v1/tenants", nil)
	}
	a.wantErr(429, "E_TOO_MANY_REQUESTS", "GET", "/api/v1/tenants", nil)
	a.as("", "").want(200, "GET", "/api/info", nil, nil) // getInfo stays open
}

// A refused call is answered before its body is read, and the
// connection closed: a client declaring a body it never sends holds
// nothing.
func TestRefusedBeforeBody(t *testing.T) {
	a := start(t)
	conn, err := net.Dial("tcp", strings.TrimPrefix(a.srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /osis/api/v1/tenants HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n")
	conn.SetReadDeadline(time.Now().Add(30 * time.Second)) // generous: only a wait for the body would reach it
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer before the body: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	var e osis.Error
	if resp.StatusCode != 401 || json.Unmarshal(b, &e) != nil || e.Code != "E_UNAUTHORIZED" || !resp.Close ||
		!strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Basic") {
		t.Fatalf("%d %v %s", resp.StatusCode, resp.Header, b)
	}
}

// Without osis_console_url, getConsole is not served, and getInfo says so.
func TestNoConsoleURL(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{Config: func(c *node.Config) { c.OSIS = true }})
	a := &api{t: t, srv: srv, router: specRouter(t, srv.URL), user: nodetest.AccessKey, pass: nodetest.SecretKey}
	a.wantErr(501, "E_NOT_IMPLEMENTED", "GET", "/api/v1/console", nil)
	var info osis.Information
	a.want(200, "GET", "/api/info", nil, &info)
	if !slices.Contains(info.NotImplemented, "getConsole") {
		t.Fatalf("not_implemented = %v", info.NotImplemented)
	}
}

// TestBadInput: the spec's 400, 404 and 409 with its Error object.
func TestBadInput(t *testing.T) {
	a := start(t)
	a.want(201, "POST", "/api/v1/tenants", osis.Tenant{Name: "Dup", Active: true, CDTenantIDs: []string{cdTenant}}, nil)
	var other osis.Tenant
	a.want(201, "POST", "/api/v1/tenants", `{"name": "Other"}`, &other)
	if !other.Active || other.TenantID != "other" || len(other.CDTenantIDs) != 0 {
		t.Fatalf("a tenant created without active nor ids: %+v", other)
	}
	tid := strings.ToLower(cdTenant)
	for _, c := range []struct {
		status       int
		code, method string
		path         string
		body         any
	}{
		{409, "E_CONFLICT", "POST", "/api/v1/tenants", osis.Tenant{Name: "Dup again", Active: true, CDTenantIDs: []string{cdTenant}}},
		{400, "E_BAD_REQUEST", "POST", "/api/v1/tenants", `{"name": "x",`},
		{400, "E_BAD_REQUEST", "POST", "/api/v1/tenants", `{}`},
		{400, "E_BAD_REQUEST", "GET", "/api/v1/tenants?offset=-1", nil},
		{400, "E_BAD_REQUEST", "GET", "/api/v1/tenants?limit=1001", nil},
		{400, "E_BAD_REQUEST", "GET", "/api/v1/tenants?limit=0", nil},
		{400, "E_BAD_REQUEST", "GET", "/api/v1/tenants/query?filter=" + url.QueryEscape("colour==blue"), nil},
		{400, "E_BAD_REQUEST", "GET", "/api/v1/tenants/query?filter=" + url.QueryEscape("tenant_id=x;broken"), nil},
		{400, "E_BAD_REQUEST", "GET", "/api/v1/users/query?filter=" + url.QueryEscape("secret_key==x"), nil},
		{400, "E_BAD_REQUEST", "POST", "/api/v1/tenants/" + tid + "/users", osis.User{Username: "x", Role: "PROVIDER_ADMIN"}},
		{400, "E_BAD_REQUEST", "DELETE", "/api/v1/tenants/" + tid + "?purge_data=maybe", nil},
		{409, "E_CONFLICT", "PATCH", "/api/v1/tenants/other", map[string]any{"cd_tenant_ids": []string{cdTenant}}},
		{400, "E_BAD_REQUEST", "PATCH", "/api/v1/tenants/" + tid, map[string]any{"cd_tenant_ids": []string{""}}},
		{400, "E_BAD_REQUEST", "GET", "/api/v1/usage?user_id=x", nil},
		{400, "E_BAD_REQUEST", "DELETE", "/api/v1/s3credentials/AKIAEXAMPLE", nil},
		{404, "E_NOT_FOUND", "GET", "/api/v1/tenants/no-such-tenant", nil},
		{404, "E_NOT_FOUND", "GET", "/api/v1/tenants/" + tid + "/users/nobody", nil},
		{404, "E_NOT_FOUND", "GET", "/api/v1/users/" + strings.Repeat("0", 64), nil},
		{404, "E_NOT_FOUND", "GET", "/api/v1/s3credentials/NOSUCHKEY", nil},
		{404, "E_NOT_FOUND", "POST", "/api/v1/tenants/no-such-tenant/users", osis.User{Username: "x"}},
		{413, "E_BAD_REQUEST", "POST", "/api/v1/tenants", `{"name": "` + strings.Repeat("x", 65<<10) + `"}`},
		{501, "E_NOT_IMPLEMENTED", "GET", "/api/v1/anonymous-user", nil},
		{501, "E_NOT_IMPLEMENTED", "GET", "/api/v1/bucket-logging-id", nil},
	} {
		a.wantErr(c.status, c.code, c.method, c.path, c.body)
	}
	var info osis.Information
	a.want(200, "GET", "/api/info", nil, &info)
	if strings.Join(info.NotImplemented, ",") != "getBucketLoggingId,getAnonymousUser" {
		t.Fatalf("not_implemented = %v", info.NotImplemented)
	}
}

// TestMapping: a tenant made before Cloud Director came (through the
// admin API) is mapped onto an organization by updateTenant, and found by
// its ids from then on; the ids go with the tenant.
func TestMapping(t *testing.T) {
	a := start(t)
	root := admin.NewClient(a.srv.URL, nodetest.AccessKey, nodetest.SecretKey, a.srv.Client())
	ctx := context.Background()
	must(t, root.Do(ctx, "POST", "/tenants", map[string]string{"name": "legacy", "display_name": "Legacy Ltd"}, nil))
	must(t, root.Do(ctx, "POST", "/tenants/legacy/users", map[string]string{"name": "lee"}, nil))

	query := func(filter string) []osis.Tenant {
		t.Helper()
		var p osis.Page[osis.Tenant]
		a.want(200, "GET", "/api/v1/tenants/query?filter="+url.QueryEscape(filter), nil, &p)
		return p.Items
	}
	if got := query("cd_tenant_id==org-a"); len(got) != 0 {
		t.Fatalf("unmapped: %+v", got)
	}
	var ten osis.Tenant
	a.want(200, "PATCH", "/api/v1/tenants/legacy", map[string]any{"cd_tenant_ids": []string{"org-b", "org-a"}}, &ten)
	if strings.Join(ten.CDTenantIDs, ",") != "org-a,org-b" || ten.Name != "Legacy Ltd" || !ten.Active {
		t.Fatalf("after mapping: %+v", ten)
	}
	for _, f := range []string{"cd_tenant_id==org-a", "cd_tenant_id==org-b;tenant_id==legacy", "name==Legacy Ltd"} {
		if got := query(f); len(got) != 1 || got[0].TenantID != "legacy" {
			t.Fatalf("%s: %+v", f, got)
		}
	}
	if got := query("cd_tenant_id==org-a;tenant_id==another"); len(got) != 0 {
		t.Fatalf("contradicting filter: %+v", got)
	}
	var up osis.Page[osis.User]
	a.want(200, "GET", "/api/v1/users/query?filter="+url.QueryEscape("cd_tenant_id==org-b;user_id==lee"), nil, &up)
	if up.PageInfo.Total != 1 || up.Items[0].CDTenantID != "org-a" || up.Items[0].CDUserID != "lee" {
		t.Fatalf("users of org-b: %+v", up)
	}
	// Paging: one tenant a page.
	a.want(201, "POST", "/api/v1/tenants", osis.Tenant{Name: "Zeta", Active: false, CDTenantIDs: []string{"org-z"}}, &ten)
	if ten.Active || ten.TenantID != "zeta" {
		t.Fatalf("created inactive: %+v", ten)
	}
	var tp osis.Page[osis.Tenant]
	a.want(200, "GET", "/api/v1/tenants?offset=1&limit=1", nil, &tp)
	if tp.PageInfo != (osis.PageInfo{Total: 2, Offset: 1, Limit: 1}) || len(tp.Items) != 1 || tp.Items[0].TenantID != "zeta" {
		t.Fatalf("page 2 = %+v", tp)
	}
	a.want(200, "GET", "/api/v1/tenants?offset=5", nil, &tp)
	if tp.PageInfo.Total != 2 || len(tp.Items) != 0 {
		t.Fatalf("past the end = %+v", tp)
	}

	a.want(204, "DELETE", "/api/v1/tenants/legacy", nil, nil)
	must(t, root.Do(ctx, "POST", "/tenants", map[string]string{"name": "legacy"}, nil))
	if got := query("cd_tenant_id==org-a"); len(got) != 0 {
		t.Fatalf("a tenant made again under the name inherited the ids: %+v", got)
	}
}

// TestOff: without osis: true, /osis is S3's path, and the name stays
// reserved: no bucket can be made there.
func TestOff(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	resp, err := srv.Client().Get(srv.URL + "/osis/api/info")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == 200 {
		t.Fatal("OSIS answered while off")
	}
	c := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true, HTTPClient: srv.Client(),
		Credentials: credentials.NewStaticCredentialsProvider(nodetest.AccessKey, nodetest.SecretKey, "")})
	_, err = c.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String("osis")})
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "BucketAlreadyExists" {
		t.Fatalf("CreateBucket osis: %v, want BucketAlreadyExists", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
