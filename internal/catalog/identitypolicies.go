package catalog

import "context"

// IdentityPolicies gives the identity-based policies that apply to
// a principal, as JSON documents.
//
// It is an optional part of a store, found by type assertion: a store
// without it gives every principal none, and access is then decided by
// roles, bucket policies and ACLs alone. A change to what either method
// returns advances IdentityGeneration in the same transaction, so that
// every node drops the policies it cached with the principal's keys.
type IdentityPolicies interface {
	// UserPolicies: the user's inline policies, the default
	// versions of the managed policies attached to it, and the same
	// of each group it belongs to.
	UserPolicies(ctx context.Context, tenant, user string) ([]string, error)
	// RolePolicies: the role's inline and attached managed policies.
	RolePolicies(ctx context.Context, tenant, role string) ([]string, error)
}

// PrincipalTags gives the tags of users and roles, for the policy
// condition key aws:PrincipalTag/<key>. Optional as IdentityPolicies
// is (a store without it gives no tags), and under the same rule: a
// change advances IdentityGeneration.
type PrincipalTags interface {
	UserTags(ctx context.Context, tenant, user string) (map[string]string, error)
	RoleTags(ctx context.Context, tenant, role string) (map[string]string, error)
}
