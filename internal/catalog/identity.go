package catalog

import (
	"context"
	"errors"
	"time"
)

// Errors of the identity records.
var (
	ErrTenantExists    = errors.New("catalog: tenant already exists")
	ErrNoSuchTenant    = errors.New("catalog: no such tenant")
	ErrTenantNotEmpty  = errors.New("catalog: tenant still has buckets")
	ErrUserExists      = errors.New("catalog: user already exists")
	ErrNoSuchUser      = errors.New("catalog: no such user")
	ErrEmailExists     = errors.New("catalog: e-mail address taken")
	ErrNoSuchQuota     = errors.New("catalog: no such quota")
	ErrQuotaExceeded   = errors.New("catalog: quota exceeded")
	ErrTenantSuspended = errors.New("catalog: tenant suspended")
)

// Tenant statuses.
const (
	TenantActive    = "active"
	TenantSuspended = "suspended"
)

// Tenant is an organisation the provider serves: the owner of users,
// keys and buckets, the unit of billing.
type Tenant struct {
	Name        string // [a-z0-9-], unique; the account id in policy ARNs
	DisplayName string
	Status      string // TenantActive or TenantSuspended
	// CanonicalID is random (iam.NewCanonicalID), never derived from the
	// name: a tenant created again under an old name is a new principal.
	CanonicalID string
	// Platform is where the tenant's new blobs go ("" = the node's
	// default); a bucket may be placed elsewhere.
	Platform string
	// Encryption is the default encryption of the tenant's new objects
	// that the provider set, as package objects encodes it ("" = none:
	// the node's default applies).
	Encryption string
	// StorageClasses is the tenant's own map of storage classes to
	// platforms, as package storageclass encodes it ("" = the
	// provider's applies).
	StorageClasses string
	CreatedAt      time.Time
}

// User roles.
const (
	RoleAdmin = "admin" // all of the tenant's buckets, its users and keys
	RoleUser  = "user"  // own buckets and what is granted
)

// User is a person or service of a tenant.
type User struct {
	Tenant      string
	Name        string
	Role        string
	CanonicalID string // random, as a tenant's
	Email       string // lower-case; "" = none; unique over the catalog
	CreatedAt   time.Time
	// Disabled users (a directory's, removed or disabled there) sign
	// nothing: no key, session or sign-in of theirs is honoured.
	Disabled bool
}

// Access key kinds and statuses.
const (
	KeyUser    = "key"     // acts with all of its user's rights
	KeyAppCred = "appcred" // limited to Buckets, perhaps ReadOnly
	KeyActive  = "active"
	KeyDisable = "disabled"
)

// Quota limits a tenant (Bucket "") or one bucket. Zero means no limit.
type Quota struct {
	Tenant     string
	Bucket     string
	MaxBytes   int64
	MaxObjects int64
	// Rates, across every node: requests a second, and bytes a second
	// received and sent (0 = no limit).
	RequestsPerSec, BytesInPerSec, BytesOutPerSec int64
}

// RateDemand is the part of the catalog that lets nodes split rate limits
// between them.
type RateDemand interface {
	// ShareDemand records what node saw asked of each scope in its last
	// interval and returns every node's demand for those scopes recorded
	// since the given time, summed by scope.
	ShareDemand(ctx context.Context, node string, demand map[string]int64, since time.Time) (map[string]int64, error)
}

// Identities is the catalog's part for tenants, users and keys. Every
// change to them also advances IdentityGeneration in the same
// transaction, so that nodes sharing the catalog notice and drop what
// they cached.
type Identities interface {
	CreateTenant(ctx context.Context, t Tenant) error // ErrTenantExists
	GetTenant(ctx context.Context, name string) (Tenant, error)
	ListTenants(ctx context.Context) ([]Tenant, error)
	SetTenantStatus(ctx context.Context, name, status string) error
	// SetTenantPlatform changes where the tenant's new blobs go.
	SetTenantPlatform(ctx context.Context, name, platform string) error
	// SetTenantEncryption changes the default encryption of the
	// tenant's new objects.
	SetTenantEncryption(ctx context.Context, name, encryption string) error
	// DeleteTenant removes the tenant, its users, keys and quotas;
	// ErrTenantNotEmpty while it owns a bucket.
	DeleteTenant(ctx context.Context, name string) error

	CreateUser(ctx context.Context, u User) error // ErrUserExists, ErrEmailExists, ErrNoSuchTenant
	GetUser(ctx context.Context, tenant, name string) (User, error)
	// SetUserEmail gives a user an e-mail address ("" = none):
	// ErrNoSuchUser, ErrEmailExists when another user has it.
	SetUserEmail(ctx context.Context, tenant, name, email string) error
	// UserByEmail finds the user with an e-mail address (ErrNoSuchUser).
	UserByEmail(ctx context.Context, email string) (User, error)
	ListUsers(ctx context.Context, tenant string) ([]User, error)
	// DeleteUser removes the user and its keys.
	DeleteUser(ctx context.Context, tenant, name string) error

	// Access keys.
	PutAccessKey(ctx context.Context, k AccessKey) error // ErrAccessKeyExists
	GetAccessKey(ctx context.Context, accessKey string) (AccessKey, error)
	// ListAccessKeys returns the keys of one user (tenant "" and user
	// "root" for the provider), by access key.
	ListAccessKeys(ctx context.Context, tenant, user string) ([]AccessKey, error)
	// UpdateAccessKey sets a key's status and expiry (zero: never).
	UpdateAccessKey(ctx context.Context, accessKey, status string, expires time.Time) error
	DeleteAccessKey(ctx context.Context, accessKey string) error
	// DeleteExpiredAccessKeys removes the keys whose expiry is before
	// before (keys that never expire stay) and reports how many.
	DeleteExpiredAccessKeys(ctx context.Context, before time.Time) (int, error)

	// Quotas.
	SetQuota(ctx context.Context, q Quota) error
	ListQuotas(ctx context.Context, tenant string) ([]Quota, error)

	ProviderSettings

	// IdentityGeneration counts changes to tenants, users, keys and quotas,
	// and to buckets' existence and access settings: what nodes cache.
	IdentityGeneration(ctx context.Context) (int64, error)
}

// ProviderSettings are the provider's own settings shared by every node
// (ProviderEncryption: the default encryption of new objects). A change
// advances IdentityGeneration, as nodes cache them with identities.
type ProviderSettings interface {
	// ProviderSetting returns a setting's value, "" when unset.
	ProviderSetting(ctx context.Context, name string) (string, error)
	// SetProviderSetting sets it ("" unsets it).
	SetProviderSetting(ctx context.Context, name, value string) error
	// InitProviderSetting sets a setting to value (not "") unless it has
	// one, in one step, and returns the value it holds after: value, or
	// the one another node set first.
	InitProviderSetting(ctx context.Context, name, value string) (string, error)
}

// ProviderEncryption names the provider-wide default encryption of new
// objects, encoded as package objects encodes a bucket's rule.
const ProviderEncryption = "encryption"

// ProviderNodeKeyCheck holds a check of the node key the catalog's
// secrets are sealed under (never the key), so that a node given
// another key refuses to start rather than fail on every secret.
const ProviderNodeKeyCheck = "node_key_check"
