package iam

import (
	"fmt"
	"strings"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam/bucketpolicy"
)

// Identity-based policies: what a principal may do, whatever it acts
// on. The catalog's roles are such policies too, built in, so that one
// evaluation decides for every principal: a tenant admin is a user
// whose policies include TenantAdministratorPolicy, any other user one
// whose policies include MemberPolicy; policies the tenant attaches add
// to (or, with Deny, take from) these.

// Condition keys the built-in policies test, beside AWS's global ones.
const (
	// keyResourceAccount is AWS's aws:ResourceAccount: the tenant owning
	// the resource (a bucket's tenant; for an action on no bucket, as
	// CreateBucket, the caller's own; an IAM resource's account).
	keyResourceAccount = "aws:resourceaccount"
	// keyBucketOwner is ostium:BucketOwner: the canonical id of the user
	// who owns the bucket acted on (its creator), which AWS has no key
	// for, since there buckets belong to accounts, not to users.
	keyBucketOwner = "ostium:bucketowner"
)

// TenantAdministratorPolicy is the built-in policy of a tenant admin:
// every S3, IAM and STS action on the tenant's own resources (a
// bucket's tenant, an IAM ARN's account), and any S3 action on another
// tenant's buckets, which that tenant's bucket policy or ACL must then
// grant as well (across tenants both sides must allow).
const TenantAdministratorPolicy = `{
  "Version": "2012-10-17",
  "Statement": [
    {"Sid": "TenantAdministrator", "Effect": "Allow", "Action": ["s3:*", "iam:*", "sts:*"], "Resource": "*",
     "Condition": {"StringEquals": {"aws:ResourceAccount": "${aws:PrincipalAccount}"}}},
    {"Sid": "OtherTenantsGrants", "Effect": "Allow", "Action": "s3:*", "Resource": "*",
     "Condition": {"StringNotEquals": {"aws:ResourceAccount": "${aws:PrincipalAccount}"}}}
  ]
}`

// MemberPolicy is the built-in policy of every other user of a tenant:
// every S3 action on the buckets it owns (ownership is the condition
// key ostium:BucketOwner, the bucket creator's canonical id, which
// aws:userid is for a user), creating buckets and listing its own,
// managing its own access keys, and any S3 action on another tenant's
// buckets, which that tenant must grant as well. Within its tenant it
// gets nothing else but what a bucket policy, an ACL or a policy the
// tenant attaches to it grants.
const MemberPolicy = `{
  "Version": "2012-10-17",
  "Statement": [
    {"Sid": "OwnBuckets", "Effect": "Allow", "Action": "s3:*", "Resource": "*",
     "Condition": {"StringEquals": {"ostium:BucketOwner": "${aws:userid}"}}},
    {"Sid": "NewBuckets", "Effect": "Allow", "Action": ["s3:CreateBucket", "s3:ListAllMyBuckets"], "Resource": "*"},
    {"Sid": "OwnAccessKeys", "Effect": "Allow",
     "Action": ["iam:GetUser", "iam:ListAccessKeys", "iam:CreateAccessKey", "iam:UpdateAccessKey",
                "iam:DeleteAccessKey", "iam:GetAccessKeyLastUsed"],
     "Resource": ["arn:aws:iam::${aws:PrincipalAccount}:user/${aws:username}",
                  "arn:aws:iam::${aws:PrincipalAccount}:user/*/${aws:username}"]},
    {"Sid": "OtherTenantsGrants", "Effect": "Allow", "Action": "s3:*", "Resource": "*",
     "Condition": {"StringNotEquals": {"aws:ResourceAccount": "${aws:PrincipalAccount}"}}}
  ]
}`

// The built-in policies, parsed once: constants, never changed.
var (
	adminPolicy  = mustParseIdentity(TenantAdministratorPolicy)
	memberPolicy = mustParseIdentity(MemberPolicy)
)

func mustParseIdentity(doc string) *bucketpolicy.Policy {
	p, err := bucketpolicy.ParseIdentity([]byte(doc))
	if err != nil {
		panic("iam: built-in policy: " + err.Error())
	}
	return p
}

// denyAll stands in for a stored policy that no longer parses: a
// principal is never given more than its policies say because one of
// them cannot be read.
var denyAll = mustParseIdentity(`{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Action":"*","Resource":"*"}]}`)

// ParsePolicies parses a principal's stored identity-based policies. A
// document that does not parse (stored by an older or newer node, or
// damaged) denies everything to the principal rather than being left
// out, since leaving out a Deny would widen its rights; bad counts them.
func ParsePolicies(docs []string) (ps []*bucketpolicy.Policy, bad int) {
	for _, d := range docs {
		p, err := bucketpolicy.ParseIdentity([]byte(d))
		if err != nil {
			p, bad = denyAll, bad+1
		}
		ps = append(ps, p)
	}
	return ps, bad
}

// rolePolicy is id's built-in policy: by its role for a tenant's user,
// none for a role session (its role's policies alone grant it).
func rolePolicy(id *Identity) *bucketpolicy.Policy {
	switch {
	case id.AssumedRole != "" || id.Tenant == "":
		return nil
	case id.Role == catalog.RoleAdmin:
		return adminPolicy
	}
	return memberPolicy
}

// identityDecision evaluates id's identity-based policies, its role's
// and its own, as one set: Deny if one denies, else Allow if one
// allows.
func identityDecision(id *Identity, r bucketpolicy.Request) bucketpolicy.Decision {
	if id == nil {
		return bucketpolicy.NoMatch
	}
	d := bucketpolicy.NoMatch
	if p := rolePolicy(id); p != nil {
		if r.Trace != nil {
			r.Trace.From(SourceRole, 0)
		}
		d = p.Evaluate(r)
	}
	if d == bucketpolicy.Deny {
		return d
	}
	if o := anyOf(id.Policies, SourceIdentity, r); o != bucketpolicy.NoMatch {
		d = o
	}
	return d
}

// anyOf evaluates a set of policies as one; source names them in a
// trace.
func anyOf(ps []*bucketpolicy.Policy, source string, r bucketpolicy.Request) bucketpolicy.Decision {
	d := bucketpolicy.NoMatch
	for i, p := range ps {
		if r.Trace != nil {
			r.Trace.From(source, i)
		}
		switch p.Evaluate(r) {
		case bucketpolicy.Deny:
			if r.Trace == nil {
				return bucketpolicy.Deny
			}
			d = bucketpolicy.Deny // traced: the other policies are told too
		case bucketpolicy.Allow:
			if d != bucketpolicy.Deny {
				d = bucketpolicy.Allow
			}
		}
	}
	return d
}

// withinBounds reports whether what narrows id lets r through: an
// application credential's limits and a session's policies only narrow,
// so each must allow r (an explicit or an implicit deny in either
// refuses it, whatever any other policy grants).
func withinBounds(id *Identity, r bucketpolicy.Request) bool {
	if id == nil {
		return true
	}
	if id.App != nil {
		if r.Trace != nil {
			r.Trace.From(SourceAppCredential, 0)
		}
		if id.App.boundary().Evaluate(r) != bucketpolicy.Allow {
			return false
		}
	}
	return id.SessionPolicies == nil || anyOf(id.SessionPolicies, SourceSession, r) == bucketpolicy.Allow
}

// boundary is an application credential's limits as a policy: any S3
// action (or, read-only, s3:Get* and s3:List*) on its buckets and their
// objects, and listing buckets; never creating or deleting a bucket nor
// changing who else may reach one (an application credential is handed
// to software to work inside its buckets; letting it open them to
// others would escape that limit). Object ACLs stay within it: they
// reach only objects it may write.
func (app *AppLimits) boundary() *bucketpolicy.Policy {
	actions := []string{"s3:*"}
	if app.ReadOnly {
		actions = []string{"s3:Get*", "s3:List*"}
	}
	p := &bucketpolicy.Policy{Version: "2012-10-17", Statements: []bucketpolicy.Statement{
		{Allow: true, Action: []string{string(ActionListAllMyBuckets)}, Resource: []string{"*"}},
		{Allow: false, Action: appNever, Resource: []string{"*"}},
	}}
	if len(app.Buckets) > 0 {
		// An empty Resource would match everything: a credential of no
		// buckets gets no statement.
		res := make([]string, 0, 2*len(app.Buckets))
		for _, b := range app.Buckets {
			res = append(res, "arn:aws:s3:::"+b, "arn:aws:s3:::"+b+"/*")
		}
		p.Statements = append(p.Statements, bucketpolicy.Statement{Allow: true, Action: actions, Resource: res})
	}
	return p
}

// appNever are the actions no application credential may take.
var appNever = []string{string(ActionCreateBucket), string(ActionDeleteBucket),
	"s3:PutBucketPolicy", "s3:DeleteBucketPolicy", "s3:PutBucketAcl",
	"s3:PutBucketOwnershipControls", "s3:PutBucketPublicAccessBlock"}

// MayAllow reports whether id's own identity-based policies have an
// Allow statement that could grant action on bucket ("" for an action
// on no bucket yet) or on some object in it, under conditions or keys
// not known yet (a batch's keys, a document's contents): so that a
// decision taken before a request's body is read does not refuse what
// the decision after it would allow. It errs towards true.
func (id *Identity) MayAllow(action Action, bucket string) bool {
	if id == nil {
		return false
	}
	for _, p := range id.Policies {
		if p.MayAllow(string(action), bucket) {
			return true
		}
	}
	return false
}

// AuthorizeService decides a call of the IAM or STS API: action names
// it ("iam:CreateUser"), resource is the ARN it acts on (or "*"). The
// provider's root may make any call; a suspended tenant's principals
// none. Nobody reaches another tenant's entities: no IAM resource has a
// policy that could grant them across tenants. Within its tenant a
// principal may do what its identity-based policies allow (a tenant
// admin, by TenantAdministratorPolicy, anything; a member, by
// MemberPolicy, manage its own access keys), within its application
// credential's limits (which allow no IAM or STS call) and session
// policies. As on AWS, sts:GetCallerIdentity needs no permission, and
// sts:GetSessionToken none that a policy can take away (it only
// authenticates) but is not for application credentials.
func AuthorizeService(id *Identity, action, resource string) error {
	return AuthorizeServiceWith(id, action, resource, nil)
}

// AuthorizeServiceWith is AuthorizeService for a call that brings
// condition keys of its own (names in lower case), as iam:PolicyARN,
// the managed policy an Attach or Detach call names.
func AuthorizeServiceWith(id *Identity, action, resource string, keys map[string][]string) error {
	switch {
	case id == nil || id.Suspended:
		return ErrAccessDenied
	case id.Root:
		return nil
	case id.Tenant == "":
		return ErrAccessDenied
	case strings.EqualFold(action, "sts:GetCallerIdentity"):
		return nil
	case strings.EqualFold(action, "sts:GetSessionToken"):
		if id.App != nil || id.AssumedRole != "" {
			return ErrAccessDenied
		}
		return nil
	}
	account, ok := arnAccount(resource)
	if !ok {
		return fmt.Errorf("%w: %q is not an IAM or STS resource", ErrAccessDenied, resource)
	}
	if account == "" {
		account = id.Tenant
	}
	if account != id.Tenant {
		return ErrAccessDenied
	}
	r := bucketpolicy.Request{Action: action, Resource: resource, Context: keys, Keys: &requestKeys{id: id, account: account}}
	if identityDecision(id, r) != bucketpolicy.Allow || !withinBounds(id, r) {
		return ErrAccessDenied
	}
	return nil
}

// arnAccount returns the account of an IAM or STS ARN ("" for "*").
func arnAccount(resource string) (string, bool) {
	if resource == "*" {
		return "", true
	}
	parts := strings.SplitN(resource, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "iam" && parts[2] != "sts" || parts[4] == "" {
		return "", false
	}
	return parts[4], true
}
