package catalog

import (
	"context"
	"errors"
	"time"
)

// Errors of the IAM records, as AWS's IAM names them.
var (
	ErrNoSuchEntity   = errors.New("catalog: no such IAM entity")
	ErrEntityExists   = errors.New("catalog: IAM entity already exists")
	ErrDeleteConflict = errors.New("catalog: IAM entity still in use")
	ErrLimitExceeded  = errors.New("catalog: IAM limit exceeded")
)

// AWS's limits that the catalog holds, since only a transaction can
// count against them (the IAM API checks names and sizes).
const (
	MaxPolicyVersions   = 5  // versions of a managed policy
	MaxAttachedPolicies = 10 // managed policies attached to a user, group or role
	MaxGroupsPerUser    = 10
	MaxTags             = 50 // tags of a user or role
	MaxAccessKeys       = 2  // a user's access keys through the IAM API
)

// Kinds of principals that hold inline policies, attached managed
// policies and tags.
const (
	PrincipalUser  = "user"
	PrincipalGroup = "group"
	PrincipalRole  = "role"
)

// The names of groups, managed policies and roles are unique in a tenant
// without regard to case, as AWS's: the catalog keys them by their lower
// case, and a lookup by any case finds the entity.

// Group is an IAM group of a tenant's users.
type Group struct {
	Tenant, Name string
	Path         string // "/" or "/a/b/"
	ID           string // AGPA...
	Created      time.Time
}

// ManagedPolicy is a tenant's customer managed policy; its documents
// are its versions.
type ManagedPolicy struct {
	Tenant, Name string
	Path         string
	ID           string // ANPA...
	Description  string
	// DefaultVersion is the version in force ("v1", ...).
	DefaultVersion  string
	AttachmentCount int
	Created         time.Time
	Updated         time.Time // the newest version's creation
}

// PolicyVersion is one version of a managed policy.
type PolicyVersion struct {
	ID       string // "v1", "v2", ...; never reused within a policy
	Document string
	Default  bool
	Created  time.Time
}

// Role is an IAM role: a trust policy says who may assume it.
type Role struct {
	Tenant, Name string
	Path         string
	ID           string // AROA...
	Description  string
	TrustPolicy  string // the assume-role policy document
	// MaxSessionDuration bounds its sessions, in seconds (3600-43200).
	MaxSessionDuration int
	Created            time.Time
}

// OIDCProvider is an OpenID Connect identity provider a tenant trusts
// for web identity federation.
type OIDCProvider struct {
	Tenant string
	// URL is the issuer as AWS keeps it: host and path without the
	// https:// scheme (the provider's ARN names it so).
	URL         string
	ClientIDs   []string
	Thumbprints []string // SHA-1 of the issuer's certificate, 40 hex digits
	Created     time.Time
}

// Tag is a tag of a user or role (aws:PrincipalTag in policies).
type Tag struct {
	Key, Value string
}

// IAM holds a tenant's IAM entities beside its users and access keys,
// which are the catalog's own (Identities): an IAM user is a catalog
// user, an IAM access key a catalog access key. Every change advances
// the identity generation, as identity policies and tags are what nodes
// cache with identities. Entities of a tenant are gone with it, and a
// user's groups, policies and tags with the user (DeleteUser), so that
// one created again under a name inherits nothing.
type IAM interface {
	// SetUserPath sets a user's IAM path; UserPath reads it ("/" for a
	// user made outside the IAM API). ErrNoSuchUser.
	SetUserPath(ctx context.Context, tenant, user, path string) error
	UserPath(ctx context.Context, tenant, user string) (string, error)
	// UserPaths returns the path of each of a tenant's users, by name.
	UserPaths(ctx context.Context, tenant string) (map[string]string, error)
	// RenameUser renames a user with its keys, groups, policies and
	// tags: ErrNoSuchUser, ErrUserExists when the new name is taken.
	RenameUser(ctx context.Context, tenant, user, newName string) error
	// DeleteIAMUser deletes a user as AWS's DeleteUser does: refused
	// with ErrDeleteConflict while it has access keys, inline or
	// attached policies, or groups. Its tags go with it.
	DeleteIAMUser(ctx context.Context, tenant, user string) error

	// Groups. CreateGroup: ErrEntityExists, ErrNoSuchTenant.
	CreateGroup(ctx context.Context, g Group) error
	GetGroup(ctx context.Context, tenant, name string) (Group, error) // ErrNoSuchEntity
	ListGroups(ctx context.Context, tenant string) ([]Group, error)   // by name
	// DeleteGroup: ErrDeleteConflict while it has members, inline or
	// attached policies.
	DeleteGroup(ctx context.Context, tenant, name string) error
	// AddUserToGroup: ErrNoSuchEntity (group), ErrNoSuchUser,
	// ErrLimitExceeded past MaxGroupsPerUser; adding a member again
	// changes nothing.
	AddUserToGroup(ctx context.Context, tenant, group, user string) error
	// RemoveUserFromGroup: ErrNoSuchEntity if the group is gone or the
	// user is not in it.
	RemoveUserFromGroup(ctx context.Context, tenant, group, user string) error
	GroupMembers(ctx context.Context, tenant, group string) ([]string, error) // sorted; ErrNoSuchEntity
	UserGroups(ctx context.Context, tenant, user string) ([]Group, error)     // by name; ErrNoSuchUser

	// Inline policies of a principal (kind PrincipalUser, PrincipalGroup
	// or PrincipalRole, named by its name): put replaces one of that
	// name. ErrNoSuchUser or ErrNoSuchEntity for a missing principal or
	// policy.
	PutInlinePolicy(ctx context.Context, tenant, kind, principal, name, document string) error
	GetInlinePolicy(ctx context.Context, tenant, kind, principal, name string) (string, error)
	DeleteInlinePolicy(ctx context.Context, tenant, kind, principal, name string) error
	ListInlinePolicies(ctx context.Context, tenant, kind, principal string) ([]string, error) // names, sorted

	// Managed policies. CreatePolicy stores p with document as its
	// default version v1: ErrEntityExists, ErrNoSuchTenant.
	CreatePolicy(ctx context.Context, p ManagedPolicy, document string) (ManagedPolicy, error)
	GetPolicy(ctx context.Context, tenant, name string) (ManagedPolicy, error) // ErrNoSuchEntity
	ListPolicies(ctx context.Context, tenant string) ([]ManagedPolicy, error)  // by name
	// DeletePolicy: ErrDeleteConflict while attached or while it has
	// versions besides the default, as AWS.
	DeletePolicy(ctx context.Context, tenant, name string) error
	// CreatePolicyVersion adds a version (the default if setDefault):
	// ErrLimitExceeded at MaxPolicyVersions.
	CreatePolicyVersion(ctx context.Context, tenant, policy, document string, setDefault bool) (PolicyVersion, error)
	GetPolicyVersion(ctx context.Context, tenant, policy, version string) (PolicyVersion, error)
	ListPolicyVersions(ctx context.Context, tenant, policy string) ([]PolicyVersion, error) // newest first
	// DeletePolicyVersion: ErrDeleteConflict for the default version.
	DeletePolicyVersion(ctx context.Context, tenant, policy, version string) error
	SetDefaultPolicyVersion(ctx context.Context, tenant, policy, version string) error

	// Attachments of managed policies. AttachPolicy: ErrNoSuchEntity
	// (policy, group, role), ErrNoSuchUser, ErrLimitExceeded past
	// MaxAttachedPolicies; attaching again changes nothing.
	AttachPolicy(ctx context.Context, tenant, kind, principal, policy string) error
	// DetachPolicy: ErrNoSuchEntity if it is not attached.
	DetachPolicy(ctx context.Context, tenant, kind, principal, policy string) error
	// AttachedPolicies lists the managed policies attached, by name.
	AttachedPolicies(ctx context.Context, tenant, kind, principal string) ([]ManagedPolicy, error)

	// Roles. CreateRole: ErrEntityExists, ErrNoSuchTenant.
	CreateRole(ctx context.Context, r Role) error
	GetRole(ctx context.Context, tenant, name string) (Role, error) // ErrNoSuchEntity
	ListRoles(ctx context.Context, tenant string) ([]Role, error)   // by name
	// SetRoleTrustPolicy replaces the trust policy.
	SetRoleTrustPolicy(ctx context.Context, tenant, name, document string) error
	// DeleteRole: ErrDeleteConflict while it has inline or attached
	// policies. Its tags go with it.
	DeleteRole(ctx context.Context, tenant, name string) error

	// OpenID Connect providers, by URL: ErrEntityExists,
	// ErrNoSuchEntity, ErrNoSuchTenant.
	CreateOIDCProvider(ctx context.Context, p OIDCProvider) error
	GetOIDCProvider(ctx context.Context, tenant, url string) (OIDCProvider, error)
	ListOIDCProviders(ctx context.Context, tenant string) ([]OIDCProvider, error)
	DeleteOIDCProvider(ctx context.Context, tenant, url string) error

	// Tags of users and roles (kind PrincipalUser or PrincipalRole).
	// TagPrincipal adds or replaces tags by key (keys compare without
	// case, as AWS's): ErrLimitExceeded past MaxTags.
	TagPrincipal(ctx context.Context, tenant, kind, principal string, tags []Tag) error
	UntagPrincipal(ctx context.Context, tenant, kind, principal string, keys []string) error
	PrincipalTags(ctx context.Context, tenant, kind, principal string) ([]Tag, error) // by key

	// UserPolicies: the user's inline policies, the default versions of
	// the managed policies attached to it, and the same of each group
	// it belongs to, as JSON documents.
	UserPolicies(ctx context.Context, tenant, user string) ([]string, error)
	// RolePolicies: the role's inline and attached managed policies.
	RolePolicies(ctx context.Context, tenant, role string) ([]string, error)
}
