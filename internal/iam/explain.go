package iam

import (
	"errors"

	"github.com/ostiumio/ostium/internal/iam/bucketpolicy"
)

// Where a traced statement or grant came from (bucketpolicy.Match's
// Source).
const (
	// SourceRole is the caller's built-in role policy
	// (TenantAdministratorPolicy or MemberPolicy).
	SourceRole = "role"
	// SourceIdentity is one of Identity.Policies (its Index): the
	// user's or role's inline and attached policies and its groups'.
	SourceIdentity = "identity"
	// SourceSession is one of a temporary session's policies.
	SourceSession = "session"
	// SourceAppCredential is an application credential's limits.
	SourceAppCredential = "app-credential"
	// SourceBucketPolicy is the bucket's policy.
	SourceBucketPolicy = "bucket-policy"
	// SourceACL is a grant of the bucket's or the object's ACL.
	SourceACL = "acl"
	// SourceRoot is the provider's root, which may do anything.
	SourceRoot = "root"
	// SourceSuspended refuses everything to and in a suspended tenant.
	SourceSuspended = "suspended"
	// SourceOwnerManagesPolicy lets a tenant admin manage its buckets'
	// policies whatever they say.
	SourceOwnerManagesPolicy = "owner-manages-policy"
	// SourceRestrictPublic is RestrictPublicBuckets setting aside a
	// public bucket policy's allow for a caller from outside.
	SourceRestrictPublic = "restrict-public-buckets"
	// SourceOtherTenant refuses an IAM or STS call on another tenant's
	// entity: no policy can grant one.
	SourceOtherTenant = "other-tenant"
)

// Decisions an explanation gives, in AWS's words (IAM's policy
// simulator's EvalDecision).
const (
	DecisionAllowed      = "allowed"
	DecisionExplicitDeny = "explicitDeny"
	DecisionImplicitDeny = "implicitDeny"
)

// Explanation is a decision with every statement and grant that
// applied to reach it.
type Explanation struct {
	Decision string
	Matches  []bucketpolicy.Match
	// Err is Authorize's answer: nil, ErrAccessDenied or
	// ErrNeedObjectACL (the caller loads the object's ACL and asks again).
	Err error
}

// Explain decides r as Authorize does, with the same evaluation, and
// tells what applied: the evaluation records each statement as it
// matches, so the explanation is the decision's own account. Evaluation
// stops where Authorize stops (an explicit deny in the caller's
// policies ends it before the bucket's policy is read).
func Explain(r Request) Explanation {
	var t bucketpolicy.Trace
	r.Trace = &t
	return Explained(Authorize(r), &t)
}

// ExplainIdentity decides action on resource by id's identity-based
// policies alone and what narrows them (an application credential's
// limits, a session's policies), as IAM's policy simulator does without
// a resource policy; context holds further condition keys (lower case).
// The resource's account is taken to be the caller's tenant.
func ExplainIdentity(id *Identity, action, resource string, context map[string][]string) Explanation {
	var t bucketpolicy.Trace
	err := ErrAccessDenied
	switch {
	case id == nil:
	case id.Root:
		t.Note(SourceRoot, true)
		err = nil
	case id.Suspended:
		t.Note(SourceSuspended, false)
	default:
		// An IAM or STS resource names its account, which no principal
		// of another reaches (AuthorizeService); anything else is taken
		// to be the caller's tenant's.
		account := id.Tenant
		if a, ok := arnAccount(resource); ok && a != "" {
			account = a
		}
		if account != id.Tenant {
			t.Note(SourceOtherTenant, false)
			break
		}
		r := bucketpolicy.Request{Action: action, Resource: resource, Context: context,
			Keys: &requestKeys{id: id, account: account}, Trace: &t}
		if identityDecision(id, r) == bucketpolicy.Allow && withinBounds(id, r) {
			err = nil
		}
	}
	return Explained(err, &t)
}

// Explained is the explanation of a decision (err: Authorize's answer,
// or the service's after it) that t traced.
func Explained(err error, t *bucketpolicy.Trace) Explanation {
	e := Explanation{Decision: DecisionAllowed, Matches: t.Matches, Err: err}
	switch {
	case err == nil:
	case t.Denied():
		e.Decision = DecisionExplicitDeny
	case len(t.Matches) > 0 && t.Matches[0].Source == SourceSuspended:
		e.Decision = DecisionExplicitDeny
	case errors.Is(err, ErrNeedObjectACL), err != nil:
		e.Decision = DecisionImplicitDeny
	}
	return e
}
