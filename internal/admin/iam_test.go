package admin_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

const readReports = `{
  "Version": "2012-10-17",
  "Statement": [
    {"Sid": "ReadReports", "Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::reports/*"}
  ]
}`

// A tenant admin writes a policy that does not parse (and is told where),
// fixes it, attaches it to a user, and asks why the user may read an
// object: the answer is the managed policy's statement, and S3 answers
// the same. With a deny added, the explanation and S3 both refuse.
func TestExplainWhyAUserMayRead(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	c := root(srv)
	must(t, c.Do(ctx, "POST", "/tenants", map[string]string{"name": "acme"}, nil))
	must(t, c.Do(ctx, "POST", "/tenants/acme/users", map[string]string{"name": "ann", "role": "admin"}, nil))
	must(t, c.Do(ctx, "POST", "/tenants/acme/users", map[string]string{"name": "alice"}, nil))
	var annKey, aliceKey admin.Key
	must(t, c.Do(ctx, "POST", "/tenants/acme/users/ann/keys", nil, &annKey))
	must(t, c.Do(ctx, "POST", "/tenants/acme/users/alice/keys", nil, &aliceKey))
	ann := admin.NewClient(srv.URL, annKey.AccessKey, annKey.SecretKey, srv.Client())
	s3ann := s3As(srv, annKey)
	if _, err := s3ann.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("reports")}); err != nil {
		t.Fatal(err)
	}
	if _, err := s3ann.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("reports"), Key: aws.String("q1.csv"), Body: strings.NewReader("a,b")}); err != nil {
		t.Fatal(err)
	}

	bad := strings.Replace(readReports, `"Effect": "Allow",`, `"Effect": "Allow"`, 1)
	var v admin.Validation
	must(t, ann.Do(ctx, "POST", "/tenants/acme/iam/validate", map[string]string{"kind": "identity", "document": bad}, &v))
	if v.Valid || len(v.Problems) != 1 || v.Problems[0].Line != 4 || v.Problems[0].Severity != "error" {
		t.Fatalf("bad JSON: %+v, want one error on line 4", v)
	}
	err := ann.Do(ctx, "POST", "/tenants/acme/iam/policies", map[string]string{"name": "read-reports", "document": bad}, nil)
	wantCode(t, err, http.StatusBadRequest, "MalformedPolicyDocument")
	must(t, ann.Do(ctx, "POST", "/tenants/acme/iam/validate", map[string]string{"kind": "identity", "document": readReports}, &v))
	if !v.Valid || len(v.Problems) != 0 {
		t.Fatalf("good policy: %+v", v)
	}
	var p admin.IAMPolicy
	must(t, ann.Do(ctx, "POST", "/tenants/acme/iam/policies", map[string]string{"name": "read-reports", "document": readReports}, &p))
	if p.ARN != "arn:aws:iam::acme:policy/read-reports" || p.DefaultVersion != "v1" {
		t.Fatalf("created %+v", p)
	}
	s3alice := s3As(srv, aliceKey)
	get := func() error {
		_, err := s3alice.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("reports"), Key: aws.String("q1.csv")})
		return err
	}
	if err := get(); !isCode(err, "AccessDenied") {
		t.Fatalf("before the attachment: %v, want AccessDenied", err)
	}
	var x admin.Explanation
	in := map[string]any{"user": "alice", "action": "s3:GetObject", "resource": "reports/q1.csv"}
	must(t, ann.Do(ctx, "POST", "/tenants/acme/iam/explain", in, &x))
	if x.Decision != "implicitDeny" || len(x.Statements) != 0 {
		t.Fatalf("before the attachment: %+v", x)
	}

	must(t, ann.Do(ctx, "PUT", "/tenants/acme/iam/users/alice/attached/read-reports", nil, nil))
	if err := get(); err != nil {
		t.Fatalf("after the attachment: %v", err)
	}
	x = admin.Explanation{}
	must(t, ann.Do(ctx, "POST", "/tenants/acme/iam/explain", in, &x))
	if x.Decision != "allowed" || !x.Allowed || len(x.Statements) != 1 {
		t.Fatalf("after the attachment: %+v", x)
	}
	st := x.Statements[0]
	if st.Effect != "Allow" || st.Sid != "ReadReports" || st.From.Type != "user-managed" || st.From.ID != p.ARN || st.From.Version != "v1" ||
		!strings.Contains(st.Text, `"Resource": "arn:aws:s3:::reports/*"`) || st.Start.Line != 4 {
		t.Fatalf("matched statement: %+v", st)
	}

	// An inline deny of the user: both statements told, and S3 refuses.
	must(t, ann.Do(ctx, "PUT", "/tenants/acme/iam/users/alice/policies/no-csv", map[string]string{"document": `{"Version":"2012-10-17","Statement":[{"Sid":"NoCSV","Effect":"Deny","Action":"s3:*","Resource":"arn:aws:s3:::*/*.csv"}]}`}, nil))
	if err := get(); !isCode(err, "AccessDenied") {
		t.Fatalf("after the deny: %v, want AccessDenied", err)
	}
	x = admin.Explanation{}
	must(t, ann.Do(ctx, "POST", "/tenants/acme/iam/explain", in, &x))
	if x.Decision != "explicitDeny" || len(x.Statements) != 2 {
		t.Fatalf("after the deny: %+v", x)
	}
	found := false
	for _, s := range x.Statements {
		if s.Sid == "NoCSV" && s.Effect == "Deny" && s.From.Type == "user" && s.From.ID == "no-csv" {
			found = true
		}
	}
	if !found {
		t.Fatalf("the deny is not named: %+v", x.Statements)
	}
	// The user's own bucket: the built-in role policy's statement.
	x = admin.Explanation{}
	must(t, ann.Do(ctx, "POST", "/tenants/acme/iam/explain", map[string]any{"user": "alice", "action": "s3:CreateBucket", "resource": "alices"}, &x))
	if x.Decision != "allowed" || len(x.Statements) != 1 || x.Statements[0].Sid != "NewBuckets" || !strings.Contains(x.Statements[0].From.Label, "Member") {
		t.Fatalf("create bucket: %+v", x)
	}
}

// The entities the admin API manages are the IAM API's: groups with
// members and policies, versions of managed policies, roles with trust
// policies, OpenID Connect providers; the checks are IAM's.
func TestIAMEntitiesThroughTheAdminAPI(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	c := root(srv)
	must(t, c.Do(ctx, "POST", "/tenants", map[string]string{"name": "acme"}, nil))
	must(t, c.Do(ctx, "POST", "/tenants/acme/users", map[string]string{"name": "alice"}, nil))
	must(t, c.Do(ctx, "POST", "/tenants/acme/iam/groups", map[string]string{"name": "analysts"}, nil))
	wantCode(t, c.Do(ctx, "POST", "/tenants/acme/iam/groups", map[string]string{"name": "bad name"}, nil), http.StatusBadRequest, "ValidationError")
	wantCode(t, c.Do(ctx, "POST", "/tenants/acme/iam/groups", map[string]string{"name": "Analysts"}, nil), http.StatusConflict, "EntityAlreadyExists")
	must(t, c.Do(ctx, "PUT", "/tenants/acme/iam/groups/analysts/members/alice", nil, nil))
	wantCode(t, c.Do(ctx, "PUT", "/tenants/acme/iam/groups/analysts/members/nobody", nil, nil), http.StatusNotFound, "NoSuchUser")
	must(t, c.Do(ctx, "POST", "/tenants/acme/iam/policies", map[string]string{"name": "read-reports", "document": readReports}, nil))
	must(t, c.Do(ctx, "PUT", "/tenants/acme/iam/groups/analysts/attached/read-reports", nil, nil))
	must(t, c.Do(ctx, "PUT", "/tenants/acme/iam/groups/analysts/policies/list", map[string]string{"document": `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:ListBucket","Resource":"*"}}`}, nil))
	var g admin.IAMGroup
	must(t, c.Do(ctx, "GET", "/tenants/acme/iam/groups/analysts", nil, &g))
	if len(g.Members) != 1 || g.Members[0] != "alice" || g.Policies == nil || len(g.Policies.Inline) != 1 || len(g.Policies.Attached) != 1 {
		t.Fatalf("group: %+v", g)
	}
	wantCode(t, c.Do(ctx, "DELETE", "/tenants/acme/iam/groups/analysts", nil, nil), http.StatusConflict, "DeleteConflict")

	// Versions: a second one made the default.
	var ver admin.PolicyVersion
	must(t, c.Do(ctx, "POST", "/tenants/acme/iam/policies/read-reports/versions", map[string]any{"document": readReports, "set_default": true}, &ver))
	var p admin.IAMPolicy
	must(t, c.Do(ctx, "GET", "/tenants/acme/iam/policies/read-reports", nil, &p))
	if ver.ID != "v2" || p.DefaultVersion != "v2" || len(p.Versions) != 2 || p.AttachmentCount != 1 {
		t.Fatalf("versions: %+v %+v", ver, p)
	}
	wantCode(t, c.Do(ctx, "DELETE", "/tenants/acme/iam/policies/read-reports/versions/v2", nil, nil), http.StatusConflict, "DeleteConflict")
	must(t, c.Do(ctx, "PUT", "/tenants/acme/iam/policies/read-reports/default", map[string]string{"version": "v1"}, nil))
	must(t, c.Do(ctx, "DELETE", "/tenants/acme/iam/policies/read-reports/versions/v2", nil, nil))

	// Explaining through the group names the group.
	var x admin.Explanation
	must(t, c.Do(ctx, "POST", "/tenants/acme/iam/explain", map[string]any{"user": "alice", "action": "s3:ListBucket", "resource": "*"}, &x))
	if x.Decision != "allowed" || len(x.Statements) != 1 || x.Statements[0].From.Type != "group" || x.Statements[0].From.Group != "analysts" {
		t.Fatalf("through the group: %+v", x)
	}

	// Roles: a trust policy that is no trust policy is refused.
	trust := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::acme:user/alice"},"Action":"sts:AssumeRole"}]}`
	wantCode(t, c.Do(ctx, "POST", "/tenants/acme/iam/roles", map[string]any{"name": "auditor", "trust_policy": readReports}, nil), http.StatusBadRequest, "MalformedPolicyDocument")
	wantCode(t, c.Do(ctx, "POST", "/tenants/acme/iam/roles", map[string]any{"name": "auditor", "trust_policy": trust, "max_session_duration": 60}, nil), http.StatusBadRequest, "ValidationError")
	var r admin.IAMRole
	must(t, c.Do(ctx, "POST", "/tenants/acme/iam/roles", map[string]any{"name": "auditor", "trust_policy": trust}, &r))
	if r.ARN != "arn:aws:iam::acme:role/auditor" || r.MaxSessionDuration != 3600 || !strings.HasPrefix(r.ID, "AROA") {
		t.Fatalf("role: %+v", r)
	}
	must(t, c.Do(ctx, "PUT", "/tenants/acme/iam/roles/auditor/attached/read-reports", nil, nil))
	var rx admin.Explanation
	must(t, c.Do(ctx, "POST", "/tenants/acme/iam/explain", map[string]any{"role": "auditor", "action": "iam:GetUser", "resource": "arn:aws:iam::acme:user/alice"}, &rx))
	if rx.Decision != "implicitDeny" || rx.Principal != "arn:aws:iam::acme:role/auditor" {
		t.Fatalf("role's IAM call: %+v", rx)
	}
	// No such bucket yet: the object service says so.
	var e *admin.Error
	if err := c.Do(ctx, "POST", "/tenants/acme/iam/explain", map[string]any{"role": "auditor", "action": "s3:PutObject", "resource": "nobucket/x"}, nil); !errors.As(err, &e) || e.Code != "NoSuchBucket" {
		t.Fatalf("no bucket: %v", err)
	}

	// OpenID Connect providers, checked as IAM checks them.
	wantCode(t, c.Do(ctx, "POST", "/tenants/acme/iam/oidc-providers", map[string]any{"url": "http://idp.example"}, nil), http.StatusBadRequest, "ValidationError")
	var o admin.OIDCProvider
	must(t, c.Do(ctx, "POST", "/tenants/acme/iam/oidc-providers", map[string]any{"url": "https://idp.example/realms/acme", "client_ids": []string{"sts"},
		"thumbprints": []string{strings.Repeat("AB", 20)}}, &o))
	if o.ARN != "arn:aws:iam::acme:oidc-provider/idp.example/realms/acme" || o.Thumbprints[0] != strings.Repeat("ab", 20) {
		t.Fatalf("provider: %+v", o)
	}
	must(t, c.Do(ctx, "DELETE", "/tenants/acme/iam/oidc-providers?url=https://idp.example/realms/acme", nil, nil))
	var os []admin.OIDCProvider
	must(t, c.Do(ctx, "GET", "/tenants/acme/iam/oidc-providers", nil, &os))
	if len(os) != 0 {
		t.Fatalf("after delete: %+v", os)
	}
}

// A tenant admin reaches its own tenant's IAM only, within its own
// identity-based policies; refusals are audited.
func TestIAMAdminBoundaries(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	c := root(srv)
	for _, tn := range []string{"acme", "globex"} {
		must(t, c.Do(ctx, "POST", "/tenants", map[string]string{"name": tn}, nil))
		must(t, c.Do(ctx, "POST", "/tenants/"+tn+"/users", map[string]string{"name": "ann", "role": "admin"}, nil))
	}
	var k admin.Key
	must(t, c.Do(ctx, "POST", "/tenants/acme/users/ann/keys", nil, &k))
	ann := admin.NewClient(srv.URL, k.AccessKey, k.SecretKey, srv.Client())
	wantCode(t, ann.Do(ctx, "GET", "/tenants/globex/iam/policies", nil, nil), http.StatusForbidden, "AccessDenied")
	wantCode(t, ann.Do(ctx, "POST", "/tenants/globex/iam/explain", map[string]any{"user": "ann", "action": "s3:ListAllMyBuckets"}, nil), http.StatusForbidden, "AccessDenied")
	must(t, ann.Do(ctx, "POST", "/tenants/acme/iam/policies", map[string]string{"name": "p1", "document": readReports}, nil))

	// Her own deny holds here as on the IAM API.
	must(t, c.Do(ctx, "PUT", "/tenants/acme/iam/users/ann/policies/no-new-policies", map[string]string{"document": `{"Version":"2012-10-17","Statement":{"Effect":"Deny","Action":"iam:CreatePolicy","Resource":"*"}}`}, nil))
	wantCode(t, ann.Do(ctx, "POST", "/tenants/acme/iam/policies", map[string]string{"name": "p2", "document": readReports}, nil), http.StatusForbidden, "AccessDenied")

	var page admin.AuditPage
	must(t, c.Do(ctx, "GET", "/audit?limit=1000", nil, &page))
	want := map[string]bool{"admin:ListIAMPolicies AccessDenied": false, "admin:ExplainRequest AccessDenied": false,
		"admin:CreateIAMPolicy ok": false, "admin:CreateIAMPolicy AccessDenied": false, "admin:PutUserPolicy ok": false}
	for _, e := range page.Entries {
		key := e.Action + " " + e.Outcome
		if e.Outcome == "" {
			key = e.Action + " ok"
		}
		if _, ok := want[key]; ok {
			want[key] = true
		}
	}
	for k, seen := range want {
		if !seen {
			t.Errorf("no audit entry %q", k)
		}
	}
}

func isCode(err error, code string) bool {
	var ae smithy.APIError
	return errors.As(err, &ae) && ae.ErrorCode() == code
}
