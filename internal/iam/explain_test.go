package iam_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/iam/bucketpolicy"
)

// An explanation names each statement that applied by its source, its
// policy's place there and its own place in the policy, and gives the
// decision in the policy simulator's words.
func TestExplainNamesTheStatements(t *testing.T) {
	shared := &catalog.Bucket{Name: "shared", Owner: "c-ann", Tenant: "acme"}
	enforced := &iam.BucketAccess{Ownership: iam.OwnerEnforced}
	home := identityPolicy(t, `{"Version":"2012-10-17","Statement":[
	  {"Sid":"Other","Effect":"Allow","Action":"s3:PutObject","Resource":"arn:aws:s3:::other/*"},
	  {"Sid":"Home","Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::shared/${aws:username}/*"},
	  {"Sid":"NoSecrets","Effect":"Deny","Action":"s3:*","Resource":"arn:aws:s3:::shared/*/secret/*"},
	  {"Sid":"AlsoHome","Effect":"Allow","Action":"s3:Get*","Resource":"arn:aws:s3:::shared/*"}]}`)
	cy := &iam.Identity{Tenant: "acme", TenantID: "t-acme", User: "cy", Role: catalog.RoleUser, CanonicalID: "c-cy",
		Policies: []*bucketpolicy.Policy{identityPolicy(t, `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:ListBucket","Resource":"*"}}`), home}}

	e := iam.Explain(iam.Request{ID: cy, Action: "s3:GetObject", Bucket: shared, Key: "cy/notes", Access: enforced})
	want := []bucketpolicy.Match{
		{Source: iam.SourceIdentity, Index: 1, Statement: 1, Sid: "Home", Allow: true},
		{Source: iam.SourceIdentity, Index: 1, Statement: 3, Sid: "AlsoHome", Allow: true},
	}
	if e.Err != nil || e.Decision != iam.DecisionAllowed || fmt.Sprint(e.Matches) != fmt.Sprint(want) {
		t.Fatalf("allowed read: %+v, want matches %+v", e, want)
	}

	// The deny is told with the allows beside it: every statement that
	// applied, though the first deny decides.
	e = iam.Explain(iam.Request{ID: cy, Action: "s3:GetObject", Bucket: shared, Key: "cy/secret/k", Access: enforced})
	want = []bucketpolicy.Match{
		{Source: iam.SourceIdentity, Index: 1, Statement: 1, Sid: "Home", Allow: true},
		{Source: iam.SourceIdentity, Index: 1, Statement: 2, Sid: "NoSecrets", Allow: false},
		{Source: iam.SourceIdentity, Index: 1, Statement: 3, Sid: "AlsoHome", Allow: true},
	}
	if !errors.Is(e.Err, iam.ErrAccessDenied) || e.Decision != iam.DecisionExplicitDeny || fmt.Sprint(e.Matches) != fmt.Sprint(want) {
		t.Fatalf("denied read: %+v, want matches %+v", e, want)
	}

	// Nothing applies: an implicit deny with nothing to show.
	e = iam.Explain(iam.Request{ID: cy, Action: "s3:DeleteObject", Bucket: shared, Key: "cy/notes", Access: enforced})
	if !errors.Is(e.Err, iam.ErrAccessDenied) || e.Decision != iam.DecisionImplicitDeny || len(e.Matches) != 0 {
		t.Fatalf("delete: %+v, want an implicit deny with no match", e)
	}

	// The built-in role policy is a source too: a member in its own bucket.
	own := &catalog.Bucket{Name: "cy-data", Owner: "c-cy", Tenant: "acme"}
	e = iam.Explain(iam.Request{ID: cy, Action: "s3:PutObject", Bucket: own, Key: "k", Access: enforced})
	if e.Decision != iam.DecisionAllowed || len(e.Matches) != 1 || e.Matches[0].Source != iam.SourceRole || e.Matches[0].Sid != "OwnBuckets" {
		t.Fatalf("own bucket: %+v, want the role policy's OwnBuckets", e)
	}
}

// Grants from the bucket's side: a bucket policy's statement, an ACL's
// grant, and the refusal of a suspended tenant.
func TestExplainBucketSide(t *testing.T) {
	b := &catalog.Bucket{Name: "shared", Owner: "c-ann", Tenant: "acme"}
	cy := &iam.Identity{Tenant: "acme", TenantID: "t-acme", User: "cy", Role: catalog.RoleUser, CanonicalID: "c-cy"}
	bp := bucketPolicy(t, "shared", `{"Version":"2012-10-17","Statement":[{"Sid":"Team","Effect":"Allow","Principal":{"AWS":"acme"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::shared/*"}]}`,
		map[string]string{"acme": "t-acme"})
	e := iam.Explain(iam.Request{ID: cy, Action: "s3:GetObject", Bucket: b, Key: "k", Access: &iam.BucketAccess{Ownership: iam.OwnerEnforced, Policy: bp}})
	if e.Decision != iam.DecisionAllowed || len(e.Matches) != 1 || e.Matches[0].Source != iam.SourceBucketPolicy || e.Matches[0].Sid != "Team" {
		t.Fatalf("bucket policy: %+v", e)
	}

	acl, err := iam.CannedACL("public-read", "c-ann", "")
	if err != nil {
		t.Fatal(err)
	}
	e = iam.Explain(iam.Request{ID: cy, Action: "s3:ListBucket", Bucket: b, Access: &iam.BucketAccess{Ownership: iam.OwnerPreferred, ACL: acl}})
	if e.Decision != iam.DecisionAllowed || len(e.Matches) != 1 || e.Matches[0].Source != iam.SourceACL || e.Matches[0].Statement != -1 {
		t.Fatalf("ACL: %+v", e)
	}

	e = iam.Explain(iam.Request{ID: cy, Action: "s3:GetObject", Bucket: b, Key: "k", BucketSuspended: true})
	if e.Decision != iam.DecisionExplicitDeny || len(e.Matches) != 1 || e.Matches[0].Source != iam.SourceSuspended {
		t.Fatalf("suspended: %+v", e)
	}
}

// The explanation is the decision: over a grid of callers, actions and
// buckets, Explain answers exactly what Authorize answers.
func TestExplainAgreesWithAuthorize(t *testing.T) {
	home := identityPolicy(t, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"arn:aws:s3:::shared/${aws:username}/*"},
	  {"Effect":"Deny","Action":"s3:DeleteObject","Resource":"*"}]}`)
	bp := bucketPolicy(t, "shared", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"globex"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::shared/pub/*"},
	  {"Effect":"Deny","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::shared/ro/*"}]}`, map[string]string{"globex": "t-globex"})
	acl, _ := iam.CannedACL("public-read", "c-ann", "")
	ids := []*iam.Identity{
		nil,
		{Root: true},
		{Tenant: "acme", TenantID: "t-acme", User: "ann", Role: catalog.RoleAdmin, CanonicalID: "c-ann"},
		{Tenant: "acme", TenantID: "t-acme", User: "cy", Role: catalog.RoleUser, CanonicalID: "c-cy", Policies: []*bucketpolicy.Policy{home}},
		{Tenant: "acme", TenantID: "t-acme", User: "cy", Role: catalog.RoleUser, CanonicalID: "c-cy", App: &iam.AppLimits{Buckets: []string{"shared"}, ReadOnly: true}},
		{Tenant: "globex", TenantID: "t-globex", User: "gus", Role: catalog.RoleUser, CanonicalID: "c-gus"},
		{Tenant: "acme", TenantID: "t-acme", AssumedRole: "r", CanonicalID: "c-r", Policies: []*bucketpolicy.Policy{home}, SessionPolicies: []*bucketpolicy.Policy{home}},
	}
	buckets := []*catalog.Bucket{nil, {Name: "shared", Owner: "c-ann", Tenant: "acme"}}
	accesses := []*iam.BucketAccess{nil, {Ownership: iam.OwnerEnforced, Policy: bp}, {Ownership: iam.OwnerPreferred, ACL: acl}}
	n := 0
	for _, id := range ids {
		for _, action := range []iam.Action{"s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:ListBucket", "s3:PutBucketPolicy", iam.ActionCreateBucket} {
			for _, b := range buckets {
				for _, a := range accesses {
					for _, key := range []string{"", "cy/k", "pub/k", "ro/k"} {
						r := iam.Request{ID: id, Action: action, Bucket: b, Access: a, Key: key, ObjectACL: &acl}
						want := iam.Authorize(r)
						e := iam.Explain(r)
						if !errors.Is(e.Err, want) && e.Err != want {
							t.Fatalf("%+v %s %v %q: Explain %v, Authorize %v", id, action, b, key, e.Err, want)
						}
						if (want == nil) != (e.Decision == iam.DecisionAllowed) {
							t.Fatalf("%+v %s %q: decision %s for %v", id, action, key, e.Decision, want)
						}
						n++
					}
				}
			}
		}
	}
	t.Logf("%d requests agree", n)
}

// ExplainIdentity is the policy simulator's question: the identity's
// policies alone, with the condition keys the caller gives.
func TestExplainIdentity(t *testing.T) {
	p := identityPolicy(t, `{"Version":"2012-10-17","Statement":[{"Sid":"FromOffice","Effect":"Allow","Action":"s3:GetObject","Resource":"*",
	  "Condition":{"IpAddress":{"aws:SourceIp":"10.1.0.0/16"}}}]}`)
	r := &iam.Identity{Tenant: "acme", TenantID: "t-acme", AssumedRole: "reader", CanonicalID: "c-r", Policies: []*bucketpolicy.Policy{p}}
	e := iam.ExplainIdentity(r, "s3:GetObject", "arn:aws:s3:::b/k", map[string][]string{"aws:sourceip": {"10.1.2.3"}})
	if e.Decision != iam.DecisionAllowed || len(e.Matches) != 1 || e.Matches[0].Sid != "FromOffice" {
		t.Fatalf("from the office: %+v", e)
	}
	e = iam.ExplainIdentity(r, "s3:GetObject", "arn:aws:s3:::b/k", map[string][]string{"aws:sourceip": {"192.0.2.1"}})
	if e.Decision != iam.DecisionImplicitDeny || len(e.Matches) != 0 {
		t.Fatalf("from elsewhere: %+v", e)
	}
}

// An IAM call on another tenant's entity is refused whatever the
// caller's policies say, as AuthorizeService refuses it.
func TestExplainIdentityAgreesOnIAMCalls(t *testing.T) {
	ann := &iam.Identity{Tenant: "acme", TenantID: "t-acme", User: "ann", Role: catalog.RoleAdmin, CanonicalID: "c-ann"}
	for _, res := range []string{"arn:aws:iam::acme:user/bob", "arn:aws:iam::globex:user/bob", "*"} {
		want := iam.AuthorizeService(ann, "iam:GetUser", res)
		e := iam.ExplainIdentity(ann, "iam:GetUser", res, nil)
		if (want == nil) != (e.Decision == iam.DecisionAllowed) {
			t.Errorf("%s: AuthorizeService %v, ExplainIdentity %+v", res, want, e)
		}
	}
}
