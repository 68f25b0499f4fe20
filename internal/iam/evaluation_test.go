package iam_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/catalog/sqlite"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/iam/bucketpolicy"
)

func identityPolicy(t *testing.T, doc string) *bucketpolicy.Policy {
	t.Helper()
	p, err := bucketpolicy.ParseIdentity([]byte(doc))
	if err != nil {
		t.Fatalf("ParseIdentity: %v\n%s", err, doc)
	}
	return p
}

// bucketPolicy parses a bucket policy of bucket and binds the tenants it
// names to their canonical ids, as ParseAccess does with a stored one.
func bucketPolicy(t *testing.T, bucket, doc string, ids map[string]string) *bucketpolicy.Policy {
	t.Helper()
	p, err := bucketpolicy.Parse([]byte(doc), bucket)
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, doc)
	}
	p.Bind(ids)
	return p
}

// The decision table of AWS's policy evaluation, for a role session
// (which has no built-in policy, so that its identity-based policies are
// exactly the row's): within one account (tenant) and across two, with
// the identity-based policy allowing, denying or saying nothing, and
// the bucket policy (resource-based) the same. AWS's answers:
//
//   - "An explicit deny in any of the policies overrides the allow"
//     (IAM User Guide, "Policy evaluation for requests within a single
//     account"; "How AWS enforcement code logic evaluates requests").
//   - Within one account: "If either the identity-based policy or the
//     resource-based policy within the same account allows the request
//     and the other doesn't, the request is still allowed" (same page).
//   - Across accounts: "you attach a resource-based policy to the
//     resource that you want to share. You must also attach an
//     identity-based policy to the identity that acts as the principal
//     in the request" ("Cross-account policy evaluation logic"): both
//     must allow.
//   - With no allow at all, the implicit deny stands.
func TestDecisionTable(t *testing.T) {
	const bucket = "acme-data"
	b := &catalog.Bucket{Name: bucket, Owner: "c-ann", Tenant: "acme"}
	session := func(tenant string) *iam.Identity {
		return &iam.Identity{Tenant: tenant, TenantID: "t-" + tenant, CanonicalID: "c-role-" + tenant,
			AssumedRole: "reader", SessionName: "s1"}
	}
	idPolicies := map[string][]*bucketpolicy.Policy{
		"allow": {identityPolicy(t, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::acme-data/*"}]}`)},
		"deny":  {identityPolicy(t, `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Action":"s3:GetObject","Resource":"*"}]}`)},
		"none":  nil,
	}
	resPolicy := func(effect, tenant string) *iam.BucketAccess {
		a := &iam.BucketAccess{Ownership: iam.OwnerEnforced}
		if effect != "none" {
			effect = strings.ToUpper(effect[:1]) + effect[1:]
			a.Policy = bucketPolicy(t, bucket, `{"Version":"2012-10-17","Statement":[{"Effect":"`+effect+`","Principal":{"AWS":"`+tenant+`"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::acme-data/*"}]}`,
				map[string]string{tenant: "t-" + tenant})
		}
		return a
	}
	for _, c := range []struct {
		caller             string // the caller's tenant
		identity, resource string // allow, deny, none
		allow              bool
	}{
		{"acme", "allow", "allow", true},
		{"acme", "allow", "none", true},  // either side suffices within an account
		{"acme", "none", "allow", true},  // either side suffices within an account
		{"acme", "none", "none", false},  // implicit deny
		{"acme", "allow", "deny", false}, // explicit deny wins
		{"acme", "deny", "allow", false}, // explicit deny wins
		{"acme", "deny", "none", false},  // explicit deny
		{"acme", "none", "deny", false},  // explicit deny
		{"acme", "deny", "deny", false},  // explicit deny
		{"beta", "allow", "allow", true}, // across accounts both allow
		{"beta", "allow", "none", false}, // across accounts the resource must allow too
		{"beta", "none", "allow", false}, // across accounts the identity must allow too
		{"beta", "none", "none", false},  // implicit deny
		{"beta", "allow", "deny", false}, // explicit deny wins
		{"beta", "deny", "allow", false}, // explicit deny wins
		{"beta", "deny", "none", false},  // explicit deny
		{"beta", "none", "deny", false},  // explicit deny
		{"beta", "deny", "deny", false},  // explicit deny
	} {
		id := session(c.caller)
		id.Policies = idPolicies[c.identity]
		err := iam.Authorize(iam.Request{ID: id, Action: "s3:GetObject", Bucket: b, Key: "k", Access: resPolicy(c.resource, c.caller)})
		if (err == nil) != c.allow {
			t.Errorf("caller of %s, identity %s, resource %s: %v, want allow %v", c.caller, c.identity, c.resource, err, c.allow)
		}
		if err != nil && !errors.Is(err, iam.ErrAccessDenied) {
			t.Errorf("caller of %s, identity %s, resource %s: %v is not ErrAccessDenied", c.caller, c.identity, c.resource, err)
		}
	}
}

// The catalog's roles are built-in identity policies, and act as such:
// a member owns its buckets, takes what other tenants grant it (their
// bucket policy or ACL deciding), and a policy attached to it adds to
// that or, with Deny, takes from it; a tenant admin's administrator
// policy gives it its tenant, and an attached Deny binds it too.
func TestRolesAreIdentityPolicies(t *testing.T) {
	own := &catalog.Bucket{Name: "acme-cy", Owner: "c-cy", Tenant: "acme"}
	shared := &catalog.Bucket{Name: "acme-shared", Owner: "c-ann", Tenant: "acme"}
	beta := &catalog.Bucket{Name: "beta-data", Owner: "c-bo", Tenant: "beta"}
	cy := func(docs ...string) *iam.Identity {
		id := &iam.Identity{Tenant: "acme", TenantID: "t-acme", User: "cy", Role: catalog.RoleUser, CanonicalID: "c-cy"}
		for _, d := range docs {
			id.Policies = append(id.Policies, identityPolicy(t, d))
		}
		return id
	}
	ann := &iam.Identity{Tenant: "acme", TenantID: "t-acme", User: "ann", Role: catalog.RoleAdmin, CanonicalID: "c-ann"}
	annDenied := *ann
	annDenied.Policies = []*bucketpolicy.Policy{identityPolicy(t, `{"Statement":[{"Effect":"Deny","Action":["s3:DeleteObject","s3:PutBucketPolicy"],"Resource":"*"}]}`)}
	denyDeletes := `{"Statement":[{"Effect":"Deny","Action":"s3:DeleteObject","Resource":"*"}]}`
	readShared := `{"Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::acme-shared/*"}]}`
	readBeta := `{"Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::beta-data/*"}]}`
	grantAcme := &iam.BucketAccess{Ownership: iam.OwnerEnforced, Policy: bucketPolicy(t, "beta-data",
		`{"Statement":[{"Effect":"Allow","Principal":{"AWS":"acme"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::beta-data/*"}]}`,
		map[string]string{"acme": "t-acme"})}
	enforced := &iam.BucketAccess{Ownership: iam.OwnerEnforced}
	for _, c := range []struct {
		name   string
		id     *iam.Identity
		action iam.Action
		bucket *catalog.Bucket
		access *iam.BucketAccess
		allow  bool
	}{
		{"member, own bucket", cy(), "s3:DeleteObject", own, enforced, true},
		{"member, own bucket, deletes denied", cy(denyDeletes), "s3:DeleteObject", own, enforced, false},
		{"member, own bucket, reads still allowed", cy(denyDeletes), "s3:GetObject", own, enforced, true},
		{"member, colleague's bucket", cy(), "s3:GetObject", shared, enforced, false},
		{"member, colleague's bucket, granted by its own policy", cy(readShared), "s3:GetObject", shared, enforced, true},
		{"member, colleague's bucket, policy grants reads only", cy(readShared), "s3:PutObject", shared, enforced, false},
		{"member, other tenant's bucket it grants", cy(), "s3:GetObject", beta, grantAcme, true},
		{"member, other tenant's bucket it grants, member denied", cy(`{"Statement":[{"Effect":"Deny","NotResource":"arn:aws:s3:::acme-*","Action":"s3:*"}]}`), "s3:GetObject", beta, grantAcme, false},
		{"member, other tenant's bucket, own policy alone", cy(readBeta), "s3:GetObject", beta, enforced, false},
		{"admin, colleague's bucket", ann, "s3:DeleteObject", own, enforced, true},
		{"admin, attached deny", &annDenied, "s3:DeleteObject", own, enforced, false},
		{"admin, attached deny of policy management", &annDenied, "s3:PutBucketPolicy", own, enforced, false},
		{"admin, other tenant's bucket it grants", ann, "s3:GetObject", beta, grantAcme, true},
		{"admin, other tenant's bucket", ann, "s3:PutObject", beta, grantAcme, false},
	} {
		err := iam.Authorize(iam.Request{ID: c.id, Action: c.action, Bucket: c.bucket, Key: "k", Access: c.access})
		if (err == nil) != c.allow {
			t.Errorf("%s: %s: %v, want allow %v", c.name, c.action, err, c.allow)
		}
	}
}

// What narrows a principal only narrows: an application credential's
// limits and a session's policies refuse what they do not allow,
// whatever the identity's own policies, the bucket's policy or its
// ownership grant, and grant nothing by themselves.
func TestBoundariesOnlyNarrow(t *testing.T) {
	own := &catalog.Bucket{Name: "acme-cy", Owner: "c-cy", Tenant: "acme"}
	other := &catalog.Bucket{Name: "acme-other", Owner: "c-ann", Tenant: "acme"}
	enforced := &iam.BucketAccess{Ownership: iam.OwnerEnforced}
	openPolicy := &iam.BucketAccess{Ownership: iam.OwnerEnforced, Policy: bucketPolicy(t, "acme-other",
		`{"Statement":[{"Effect":"Allow","Principal":{"AWS":"acme"},"Action":"s3:*","Resource":["arn:aws:s3:::acme-other","arn:aws:s3:::acme-other/*"]}]}`,
		map[string]string{"acme": "t-acme"})}
	everything := identityPolicy(t, `{"Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}`)
	readOnly := identityPolicy(t, `{"Statement":[{"Effect":"Allow","Action":["s3:GetObject","s3:ListBucket"],"Resource":"*"}]}`)
	user := func() *iam.Identity {
		return &iam.Identity{Tenant: "acme", TenantID: "t-acme", User: "cy", Role: catalog.RoleUser, CanonicalID: "c-cy",
			Policies: []*bucketpolicy.Policy{everything}}
	}
	app := user()
	app.App = &iam.AppLimits{Buckets: []string{"acme-cy"}}
	sess := user()
	sess.SessionPolicies = []*bucketpolicy.Policy{readOnly}
	emptySession := user()
	emptySession.SessionPolicies = []*bucketpolicy.Policy{}
	widening := &iam.Identity{Tenant: "acme", TenantID: "t-acme", User: "dee", Role: catalog.RoleUser, CanonicalID: "c-dee",
		SessionPolicies: []*bucketpolicy.Policy{everything}}
	for _, c := range []struct {
		name   string
		id     *iam.Identity
		action iam.Action
		bucket *catalog.Bucket
		access *iam.BucketAccess
		allow  bool
	}{
		{"app, its bucket", app, "s3:PutObject", own, enforced, true},
		{"app, another bucket its policies allow", app, "s3:GetObject", other, enforced, false},
		{"app, another bucket the bucket policy opens", app, "s3:GetObject", other, openPolicy, false},
		{"user, the same bucket", user(), "s3:GetObject", other, enforced, true},
		{"session, reads", sess, "s3:GetObject", own, enforced, true},
		{"session, writes its own bucket", sess, "s3:PutObject", own, enforced, false},
		{"session, writes where the bucket policy allows", sess, "s3:PutObject", other, openPolicy, false},
		{"session with no policy that allows", emptySession, "s3:GetObject", own, enforced, false},
		{"session policy grants nothing by itself", widening, "s3:GetObject", other, enforced, false},
		{"session policy grants nothing by itself, owner", widening, "s3:GetObject", own, enforced, false},
	} {
		err := iam.Authorize(iam.Request{ID: c.id, Action: c.action, Bucket: c.bucket, Key: "k", Access: c.access})
		if (err == nil) != c.allow {
			t.Errorf("%s: %s: %v, want allow %v", c.name, c.action, err, c.allow)
		}
	}
}

// The condition keys AWS defines for these principals, and policy
// variables in Resource and in condition values, with their defaults;
// a variable the request has no value for matches nothing.
func TestConditionKeysAndVariables(t *testing.T) {
	shared := &catalog.Bucket{Name: "shared", Owner: "c-ann", Tenant: "acme"}
	enforced := &iam.BucketAccess{Ownership: iam.OwnerEnforced}
	cy := func(doc string) *iam.Identity {
		return &iam.Identity{Tenant: "acme", TenantID: "t-acme", User: "cy", Role: catalog.RoleUser, CanonicalID: "c-cy",
			Tags: map[string]string{"Team": "red"}, Policies: []*bucketpolicy.Policy{identityPolicy(t, doc)}}
	}
	role := func(doc string) *iam.Identity {
		return &iam.Identity{Tenant: "acme", TenantID: "t-acme", CanonicalID: "c-role", AssumedRole: "builder", SessionName: "ci",
			Policies: []*bucketpolicy.Policy{identityPolicy(t, doc)}}
	}
	allow := func(cond string) string {
		return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::shared/*","Condition":` + cond + `}]}`
	}
	home := `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":"s3:ListBucket","Resource":"arn:aws:s3:::shared","Condition":{"StringLike":{"s3:prefix":["${aws:username}/*"]}}},
		{"Effect":"Allow","Action":["s3:GetObject","s3:PutObject"],"Resource":"arn:aws:s3:::shared/${aws:username}/*"}]}`
	noon := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name   string
		id     *iam.Identity
		action iam.Action
		key    string
		conds  map[string][]string
		origin iam.Origin
		allow  bool
	}{
		{"home: own prefix", cy(home), "s3:GetObject", "cy/notes", nil, iam.Origin{}, true},
		{"home: another's prefix", cy(home), "s3:PutObject", "bo/notes", nil, iam.Origin{}, false},
		{"home: list own prefix", cy(home), "s3:ListBucket", "", map[string][]string{"s3:prefix": {"cy/"}}, iam.Origin{}, true},
		{"home: list another's", cy(home), "s3:ListBucket", "", map[string][]string{"s3:prefix": {"bo/"}}, iam.Origin{}, false},
		{"home: list all", cy(home), "s3:ListBucket", "", nil, iam.Origin{}, false},
		// A role session has no aws:username: ${aws:username} matches
		// nothing, not an empty name (so not the key "/x").
		{"home: role session", role(home), "s3:GetObject", "/x", nil, iam.Origin{}, false},
		{"default value", role(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::shared/${aws:username, 'robots'}/*"}]}`),
			"s3:GetObject", "robots/x", nil, iam.Origin{}, true},
		{"aws:username", cy(allow(`{"StringEquals":{"aws:username":"cy"}}`)), "s3:GetObject", "k", nil, iam.Origin{}, true},
		{"aws:userid", cy(allow(`{"StringEquals":{"aws:userid":"c-cy"}}`)), "s3:GetObject", "k", nil, iam.Origin{}, true},
		{"aws:userid of a role session", role(allow(`{"StringLike":{"aws:userid":"c-role:ci"}}`)), "s3:GetObject", "k", nil, iam.Origin{}, true},
		{"aws:PrincipalArn", cy(allow(`{"ArnEquals":{"aws:PrincipalArn":"arn:aws:iam::acme:user/cy"}}`)), "s3:GetObject", "k", nil, iam.Origin{}, true},
		{"aws:PrincipalArn of a role session", role(allow(`{"ArnLike":{"aws:PrincipalArn":"arn:aws:iam::acme:role/build*"}}`)), "s3:GetObject", "k", nil, iam.Origin{}, true},
		{"aws:PrincipalAccount", cy(allow(`{"StringEquals":{"aws:PrincipalAccount":"acme"}}`)), "s3:GetObject", "k", nil, iam.Origin{}, true},
		{"aws:PrincipalAccount, other", cy(allow(`{"StringEquals":{"aws:PrincipalAccount":"beta"}}`)), "s3:GetObject", "k", nil, iam.Origin{}, false},
		{"aws:PrincipalType", cy(allow(`{"StringEquals":{"aws:PrincipalType":"User"}}`)), "s3:GetObject", "k", nil, iam.Origin{}, true},
		{"aws:PrincipalType of a role session", role(allow(`{"StringEquals":{"aws:PrincipalType":"AssumedRole"}}`)), "s3:GetObject", "k", nil, iam.Origin{}, true},
		{"aws:PrincipalTag", cy(allow(`{"StringEquals":{"aws:PrincipalTag/team":"red"}}`)), "s3:GetObject", "k", nil, iam.Origin{}, true},
		{"aws:PrincipalTag, other value", cy(allow(`{"StringEquals":{"aws:PrincipalTag/team":"blue"}}`)), "s3:GetObject", "k", nil, iam.Origin{}, false},
		{"aws:PrincipalTag as a variable", cy(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::shared/${aws:PrincipalTag/team}/*"}]}`),
			"s3:GetObject", "red/x", nil, iam.Origin{}, true},
		{"aws:PrincipalTag as a variable, other team", cy(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::shared/${aws:PrincipalTag/team}/*"}]}`),
			"s3:GetObject", "blue/x", nil, iam.Origin{}, false},
		{"variable in a condition value", cy(allow(`{"StringLike":{"s3:ExistingObjectTag/owner":"${aws:username}"}}`)), "s3:GetObject", "k", nil, iam.Origin{}, false},
		{"aws:SourceIp in", cy(allow(`{"IpAddress":{"aws:SourceIp":"192.0.2.0/24"}}`)), "s3:GetObject", "k", nil, iam.Origin{SourceIP: "192.0.2.9"}, true},
		{"aws:SourceIp out", cy(allow(`{"IpAddress":{"aws:SourceIp":"192.0.2.0/24"}}`)), "s3:GetObject", "k", nil, iam.Origin{SourceIP: "198.51.100.1"}, false},
		{"aws:SecureTransport", cy(allow(`{"Bool":{"aws:SecureTransport":"true"}}`)), "s3:GetObject", "k", nil, iam.Origin{Secure: true}, true},
		{"aws:SecureTransport, plain", cy(allow(`{"Bool":{"aws:SecureTransport":"true"}}`)), "s3:GetObject", "k", nil, iam.Origin{}, false},
		{"aws:CurrentTime", cy(allow(`{"DateLessThan":{"aws:CurrentTime":"2026-11-28T00:00:00Z"}}`)), "s3:GetObject", "k", nil, iam.Origin{}, true},
		{"aws:CurrentTime, past", cy(allow(`{"DateLessThan":{"aws:CurrentTime":"2026-11-27T11:00:00Z"}}`)), "s3:GetObject", "k", nil, iam.Origin{}, false},
		{"aws:EpochTime", cy(allow(`{"NumericGreaterThanEquals":{"aws:EpochTime":"1795780800"}}`)), "s3:GetObject", "k", nil, iam.Origin{}, true},
		{"aws:EpochTime, future", cy(allow(`{"NumericGreaterThan":{"aws:EpochTime":"1795780800"}}`)), "s3:GetObject", "k", nil, iam.Origin{}, false},
	} {
		err := iam.Authorize(iam.Request{ID: c.id, Action: c.action, Bucket: shared, Key: c.key, Access: enforced,
			Conditions: c.conds, Origin: c.origin, Now: noon})
		if (err == nil) != c.allow {
			t.Errorf("%s: %v, want allow %v", c.name, err, c.allow)
		}
	}
	// The tag condition above holds once the object's tags are known.
	id := cy(allow(`{"StringLike":{"s3:ExistingObjectTag/owner":"${aws:username}"}}`))
	if !id.ReadsObjectTags("s3:GetObject") {
		t.Fatal("an identity policy testing s3:ExistingObjectTag does not ask for the object's tags")
	}
	if err := iam.Authorize(iam.Request{ID: id, Action: "s3:GetObject", Bucket: shared, Key: "k", Access: enforced,
		ObjectTags: map[string]string{"owner": "cy"}}); err != nil {
		t.Fatalf("object tagged with the caller's name: %v", err)
	}
}

// CreateBucket's Resource is the new bucket, in the caller's tenant: a
// policy can hold a member to names of its own.
func TestCreateBucketNamesTheBucket(t *testing.T) {
	id := &iam.Identity{Tenant: "acme", TenantID: "t-acme", User: "cy", Role: catalog.RoleUser, CanonicalID: "c-cy",
		Policies: []*bucketpolicy.Policy{identityPolicy(t, `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Action":"s3:CreateBucket","NotResource":"arn:aws:s3:::${aws:username}-*"}]}`)}}
	if err := iam.Authorize(iam.Request{ID: id, Action: iam.ActionCreateBucket, BucketName: "cy-logs"}); err != nil {
		t.Errorf("cy-logs: %v", err)
	}
	if err := iam.Authorize(iam.Request{ID: id, Action: iam.ActionCreateBucket, BucketName: "payroll"}); err == nil {
		t.Error("payroll: allowed")
	}
	if err := iam.Authorize(iam.Request{ID: id, Action: iam.ActionListAllMyBuckets}); err != nil {
		t.Errorf("ListAllMyBuckets: %v", err)
	}
}

// IAM and STS calls: a tenant admin anything in its tenant, a member
// its own access keys and what its policies allow, nobody another
// tenant's entities, no application credential any call but
// GetCallerIdentity.
func TestAuthorizeService(t *testing.T) {
	ann := &iam.Identity{Tenant: "acme", User: "ann", Role: catalog.RoleAdmin, CanonicalID: "c-ann"}
	cy := &iam.Identity{Tenant: "acme", User: "cy", Role: catalog.RoleUser, CanonicalID: "c-cy"}
	lister := *cy
	lister.Policies = []*bucketpolicy.Policy{identityPolicy(t, `{"Statement":[{"Effect":"Allow","Action":["iam:List*","iam:Get*"],"Resource":"*"}]}`)}
	annDenied := *ann
	annDenied.Policies = []*bucketpolicy.Policy{identityPolicy(t, `{"Statement":[{"Effect":"Deny","Action":"iam:DeleteUser","Resource":"*"}]}`)}
	annApp := *ann
	annApp.App = &iam.AppLimits{Buckets: []string{"acme-data"}}
	suspended := *ann
	suspended.Suspended = true
	root := &iam.Identity{Root: true, CanonicalID: iam.RootCanonicalID}
	for _, c := range []struct {
		name             string
		id               *iam.Identity
		action, resource string
		allow            bool
	}{
		{"admin creates a user", ann, "iam:CreateUser", "arn:aws:iam::acme:user/dee", true},
		{"admin lists users", ann, "iam:ListUsers", "*", true},
		{"admin puts a role policy", ann, "iam:PutRolePolicy", "arn:aws:iam::acme:role/builder", true},
		{"admin, another tenant's user", ann, "iam:CreateUser", "arn:aws:iam::beta:user/dee", false},
		{"admin, another tenant's role", ann, "sts:AssumeRole", "arn:aws:iam::beta:role/builder", false},
		{"admin, attached deny", &annDenied, "iam:DeleteUser", "arn:aws:iam::acme:user/cy", false},
		{"admin, attached deny of another action", &annDenied, "iam:CreateUser", "arn:aws:iam::acme:user/cy", true},
		{"admin's application credential", &annApp, "iam:CreateUser", "arn:aws:iam::acme:user/dee", false},
		{"suspended admin", &suspended, "iam:ListUsers", "*", false},
		{"member creates a user", cy, "iam:CreateUser", "arn:aws:iam::acme:user/dee", false},
		{"member, its own keys", cy, "iam:CreateAccessKey", "arn:aws:iam::acme:user/cy", true},
		{"member, its own user", cy, "iam:GetUser", "arn:aws:iam::acme:user/cy", true},
		{"member, another's keys", cy, "iam:CreateAccessKey", "arn:aws:iam::acme:user/ann", false},
		{"member, same name in another tenant", cy, "iam:CreateAccessKey", "arn:aws:iam::beta:user/cy", false},
		{"member, policy lets it list", &lister, "iam:ListUsers", "arn:aws:iam::acme:user/", true},
		{"member, policy lets it list, other tenant", &lister, "iam:ListUsers", "arn:aws:iam::beta:user/", false},
		{"member, not beyond its policy", &lister, "iam:DeleteUser", "arn:aws:iam::acme:user/ann", false},
		{"caller identity needs no permission", &annApp, "sts:GetCallerIdentity", "*", true},
		{"session token for a user", cy, "sts:GetSessionToken", "*", true},
		{"session token for an application credential", &annApp, "sts:GetSessionToken", "*", false},
		{"anonymous", nil, "sts:GetCallerIdentity", "*", false},
		{"root", root, "iam:CreateUser", "arn:aws:iam::beta:user/dee", true},
		{"not an IAM resource", ann, "iam:CreateUser", "arn:aws:s3:::acme-data", false},
		{"not an ARN", ann, "iam:CreateUser", "acme:user/dee", false},
	} {
		err := iam.AuthorizeService(c.id, c.action, c.resource)
		if (err == nil) != c.allow {
			t.Errorf("%s: %v, want allow %v", c.name, err, c.allow)
		}
		if err != nil && !errors.Is(err, iam.ErrAccessDenied) {
			t.Errorf("%s: %v is not ErrAccessDenied", c.name, err)
		}
	}
}

// A stored policy that no longer parses denies everything to its
// principal rather than being left out (it might have been a Deny).
func TestUnreadablePolicyDenies(t *testing.T) {
	ps, bad := iam.ParsePolicies([]string{
		`{"Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}`,
		`{"Statement":[{"Effect":"Deny","Action":"s3:GetObject","Resource":"*"`, // cut short
	})
	if bad != 1 || len(ps) != 2 {
		t.Fatalf("ParsePolicies: %d policies, %d bad", len(ps), bad)
	}
	b := &catalog.Bucket{Name: "acme-cy", Owner: "c-cy", Tenant: "acme"}
	id := &iam.Identity{Tenant: "acme", User: "cy", Role: catalog.RoleUser, CanonicalID: "c-cy", Policies: ps}
	if err := iam.Authorize(iam.Request{ID: id, Action: "s3:PutObject", Bucket: b, Key: "k", Access: &iam.BucketAccess{}}); err == nil {
		t.Fatal("allowed under a policy that cannot be read")
	}
}

// The keyring loads a user's identity-based policies and tags with its
// key and keeps them while the key is cached; a change made in the
// catalog (as through another node) reaches the next request once the
// identity generation moves. A user without any has none.
func TestKeyringLoadsIdentityPolicies(t *testing.T) {
	ctx := context.Background()
	store, err := sqlite.Open(ctx, t.TempDir()+"/c.db")
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	key, _ := iam.LoadNodeKey(t.TempDir(), "")
	sealer, _ := iam.NewSealer(key)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(store.CreateTenant(ctx, catalog.Tenant{Name: "acme", Status: catalog.TenantActive, CanonicalID: "t-acme"}))
	must(store.CreateUser(ctx, catalog.User{Tenant: "acme", Name: "cy", Role: catalog.RoleUser, CanonicalID: "c-cy"}))
	must(store.PutAccessKey(ctx, catalog.AccessKey{AccessKey: "AKCY", SecretSealed: sealer.Seal("s", "AKCY"), Owner: "c-cy",
		Tenant: "acme", User: "cy", Kind: catalog.KeyUser}))

	kr := iam.NewKeyring(store, sealer, time.Hour, nil)
	if _, id, err := kr.Lookup(ctx, "AKCY"); err != nil || id.Policies != nil || id.Tags != nil {
		t.Fatalf("a user without identity policies: %+v, %v", id, err)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go kr.Watch(wctx, 20*time.Millisecond)

	shared := &catalog.Bucket{Name: "shared", Owner: "c-ann", Tenant: "acme"}
	may := func(id *iam.Identity) bool {
		return iam.Authorize(iam.Request{ID: id, Action: "s3:GetObject", Bucket: shared, Key: "cy/k", Access: &iam.BucketAccess{}}) == nil
	}
	must(store.(catalog.IAM).PutInlinePolicy(ctx, "acme", catalog.PrincipalUser, "cy", "home", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::shared/${aws:username}/*"}]}`))
	must(store.(catalog.IAM).TagPrincipal(ctx, "acme", catalog.PrincipalUser, "cy", []catalog.Tag{{Key: "team", Value: "red"}}))
	eventually(t, func() bool {
		_, id, err := kr.Lookup(ctx, "AKCY")
		return err == nil && may(id) && id.Tags["team"] == "red"
	})
	id, err := kr.UserIdentity(ctx, "acme", "cy", "c-cy")
	if err != nil || !may(id) {
		t.Fatalf("the console's identity of cy: %v, policies %d", err, len(id.Policies))
	}
	must(store.(catalog.IAM).DeleteInlinePolicy(ctx, "acme", catalog.PrincipalUser, "cy", "home"))
	eventually(t, func() bool { _, id, err := kr.Lookup(ctx, "AKCY"); return err == nil && !may(id) })
}
