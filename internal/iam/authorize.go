package iam

import (
	"errors"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam/bucketpolicy"
)

// ErrAccessDenied is the decision to refuse a request.
var ErrAccessDenied = errors.New("access denied")

// Action names an S3 operation for authorization (s3:GetObject, ...).
type Action string

// Actions the rules below single out.
const (
	ActionCreateBucket     Action = "s3:CreateBucket"
	ActionDeleteBucket     Action = "s3:DeleteBucket"
	ActionListAllMyBuckets Action = "s3:ListAllMyBuckets"
	// ActionBypassGovernanceRetention lets a caller who asks for it
	// (x-amz-bypass-governance-retention) remove or shorten a version's
	// GOVERNANCE retention. A policy grants it like any action; a tenant
	// admin and a bucket's owner have it, as an AWS account's root user.
	ActionBypassGovernanceRetention Action = "s3:BypassGovernanceRetention"
)

// readOnly reports whether an action only reads: what a read-only
// application credential may do.
func (a Action) readOnly() bool {
	return strings.HasPrefix(string(a), "s3:Get") || strings.HasPrefix(string(a), "s3:List")
}

// managesBucketAccess reports whether an action changes who may reach a
// bucket (AWS's "permissions management" access level at bucket scope).
// An application credential is handed to software to work inside its
// buckets; letting it open them to others would escape that limit.
// Object ACLs stay within its rights: they reach only objects it may
// write.
func (a Action) managesBucketAccess() bool {
	switch a {
	case "s3:PutBucketPolicy", "s3:DeleteBucketPolicy", "s3:PutBucketAcl",
		"s3:PutBucketOwnershipControls", "s3:PutBucketPublicAccessBlock":
		return true
	}
	return false
}

// managesPolicy reports whether an action reads, replaces or deletes a
// bucket's policy: what an AWS account's root user may always do to its
// own buckets, whatever the policy says.
func (a Action) managesPolicy() bool {
	switch a {
	case "s3:GetBucketPolicy", "s3:PutBucketPolicy", "s3:DeleteBucketPolicy":
		return true
	}
	return false
}

// Request is everything one access decision looks at. Authorize is a pure
// function of it: callers load the bucket and the tenants' status first.
type Request struct {
	ID     *Identity // nil: anonymous
	Action Action
	// Bucket is the bucket acted on; nil for actions on no bucket
	// (ListAllMyBuckets, CreateBucket).
	Bucket *catalog.Bucket
	// BucketName names the bucket an action on no loaded bucket is
	// about (CreateBucket's), so that a policy's Resource can name it.
	BucketName string
	// BucketSuspended is set when the bucket's tenant is suspended.
	BucketSuspended bool
	Key             string
	// Access is the bucket's policy, ACL, ownership and public access
	// block (nil: none of them); Origin and Conditions feed the policy's
	// conditions (Conditions holds the s3: keys the operation defines,
	// s3:prefix, s3:x-amz-acl, ..., lower-cased).
	Access     *BucketAccess
	Origin     Origin
	Conditions map[string][]string
	// ObjectACL is the ACL of the object acted on, when the caller has
	// loaded it: Authorize asks for it with ErrNeedObjectACL.
	ObjectACL *ACL
	// ObjectTags are the tags of the object acted on, for the policy's
	// s3:ExistingObjectTag/<key>: read by the caller when
	// BucketAccess.ReadsObjectTags says the decision may need them.
	ObjectTags map[string]string
	// RequestTags are the tags the request sets (x-amz-tagging, or
	// PutObjectTagging's document), for s3:RequestObjectTag/<key> and
	// s3:RequestObjectTagKeys.
	RequestTags map[string]string
	// Now is the time of the request for aws:CurrentTime and
	// aws:EpochTime; zero: the clock's.
	Now time.Time
	// Trace, when set, records what applied to the decision (see
	// Explain); each decision starts it afresh.
	Trace *bucketpolicy.Trace
}

// ErrNeedObjectACL is Authorize's answer when only the object's ACL can
// still allow the request: the caller loads it and asks again.
var ErrNeedObjectACL = errors.New("decision needs the object's ACL")

// Authorize decides a request, as AWS decides within and across
// accounts (a tenant is an account). The provider's root may do
// anything; a suspended tenant may do nothing, nor may anyone to its
// buckets. Then every policy that applies is evaluated: the caller's
// identity-based policies (its role's built-in one, TenantAdministrator
// or Member, and those the tenant attached to it or its groups), what
// narrows it (an application credential's limits, a session's
// policies), the bucket's policy and ACLs. An explicit deny in any of
// them refuses the request; so does anything that narrows the caller
// and does not allow it. A tenant admin may always read, replace and
// delete its tenant's buckets' policies (with its own keys: an
// application credential never manages access), as an AWS account's
// root user may, whatever the bucket policy says. Within the bucket's
// tenant an allow from either side suffices: the caller's policies, or
// the bucket's policy or ACL. Across tenants both must allow: the
// caller's policies, and the bucket's policy or ACL. An anonymous
// caller has only what the bucket's policy or ACL grants everyone, as
// the public access block lets them.
func Authorize(r Request) error {
	t := r.Trace
	if t != nil {
		t.Matches = t.Matches[:0]
	}
	id := r.ID
	if id != nil && id.Root {
		if t != nil {
			t.Note(SourceRoot, true)
		}
		return nil
	}
	if id != nil && id.Suspended || r.BucketSuspended {
		if t != nil {
			t.Note(SourceSuspended, false)
		}
		return ErrAccessDenied
	}
	pr := policyRequest(r)
	pr.Trace = t
	ident := identityDecision(id, pr)
	if ident == bucketpolicy.Deny || !withinBounds(id, pr) {
		return ErrAccessDenied
	}
	b, a := r.Bucket, r.Access
	if b != nil && r.Action.managesPolicy() && tenantAdmin(id, b) && id.App == nil {
		// Before the bucket's policy: no policy can lock its owner out.
		if t != nil {
			t.Note(SourceOwnerManagesPolicy, true)
		}
		return nil
	}
	if a == nil {
		a = &BucketAccess{}
	}
	var policy bucketpolicy.Decision
	if a.Policy != nil && b != nil {
		pr.Principals = principals(id)
		if t != nil {
			t.From(SourceBucketPolicy, 0)
		}
		if policy = a.Policy.Evaluate(pr); policy == bucketpolicy.Deny {
			return ErrAccessDenied
		}
		// A public policy grants only within the bucket's tenant while
		// RestrictPublicBuckets is on.
		if policy == bucketpolicy.Allow && a.Block.RestrictPublicBuckets && a.Policy.IsPublic() &&
			(id == nil || id.Tenant != b.Tenant) {
			if t != nil {
				t.Note(SourceRestrictPublic, false)
			}
			policy = bucketpolicy.NoMatch
		}
	}
	switch {
	case id == nil:
		// Anonymous: what the bucket grants everyone, below.
	case b == nil:
		if ident == bucketpolicy.Allow {
			return nil
		}
		return ErrAccessDenied
	case id.Tenant != "" && id.Tenant == b.Tenant:
		// Within a tenant, the caller's own policies suffice.
		if ident == bucketpolicy.Allow {
			return nil
		}
	case ident != bucketpolicy.Allow:
		// Across tenants, the caller's own policies must allow too.
		return ErrAccessDenied
	}
	switch {
	case b == nil:
	case policy == bucketpolicy.Allow:
		return nil
	case a.ACLsEnabled():
		err := a.aclDecision(r)
		if t != nil && err == nil {
			t.Note(SourceACL, true)
		}
		return err
	}
	return ErrAccessDenied
}

// tenantAdmin reports whether id is an admin of the tenant owning b.
func tenantAdmin(id *Identity, b *catalog.Bucket) bool {
	return id != nil && id.Role == catalog.RoleAdmin && id.Tenant != "" && id.Tenant == b.Tenant
}

// VisibleBuckets returns which buckets ListBuckets shows id: all for the
// root, the tenant's for a tenant admin, its own for a user, narrowed to
// an application credential's buckets.
func VisibleBuckets(id *Identity) (f catalog.BucketFilter, only []string) {
	switch {
	case id.Root:
	case id.Role == catalog.RoleAdmin && id.Tenant != "":
		f.Tenant = id.Tenant
	default:
		f.Owner = id.CanonicalID
	}
	if id.App != nil {
		only = id.App.Buckets
	}
	return f, only
}

// AuthorizeAdmin decides a call of the admin API about tenant ("" for the
// provider-wide calls): the root may make any, a tenant admin those about
// its own tenant.
func AuthorizeAdmin(id *Identity, tenant string) error {
	switch {
	case id == nil:
		return ErrAccessDenied
	case id.Root:
		return nil
	case id.Suspended || id.App != nil || id.Role != catalog.RoleAdmin:
		return ErrAccessDenied
	case tenant != "" && tenant == id.Tenant:
		return nil
	}
	return ErrAccessDenied
}
