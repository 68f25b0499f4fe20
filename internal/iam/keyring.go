package iam

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam/bucketpolicy"
	"github.com/ostiumio/ostium/internal/metrics"
)

// ErrUnknownKey is returned for an access key the catalog does not hold.
var ErrUnknownKey = errors.New("iam: unknown access key")

// Keyring resolves access keys to secrets and identities, and tenants to
// their status. Every signed request needs a lookup, so results (misses
// too, briefly) are cached. A change made through this node drops the
// cache at once (Flush); a change made through another node sharing the
// catalog advances the catalog's identity generation, which Watch polls.
type Keyring struct {
	store  catalog.Store
	sealer *Sealer
	ttl    time.Duration
	hits   *metrics.Cache // of credential lookups

	mu       sync.RWMutex
	keys     ttlMap[cachedKey]
	tenants  ttlMap[tenantState]
	quotas   ttlMap[[]catalog.Quota]
	settings ttlMap[string] // the provider's, by name
	// principals are users' and roles' identity-based policies and
	// tags, from policySrc and tagSrc (the store's, if it has them; set
	// once, read without the mutex).
	principals ttlMap[principal]
	policySrc  catalog.IdentityPolicies
	tagSrc     catalog.PrincipalTags
	gen        int64
	// epoch counts flushes, so that caches kept elsewhere (the object
	// service's buckets) can tell an entry from before a change.
	epoch atomic.Uint64
}

// ttlMap is a cache whose entries expire; the Keyring's mutex guards it.
type ttlMap[V any] map[string]ttlEntry[V]

type ttlEntry[V any] struct {
	v       V
	expires time.Time
}

// maxCached bounds each cache under a flood of bogus keys.
const maxCached = 100_000

func cached[V any](k *Keyring, m *ttlMap[V], key string, now time.Time) (V, bool) {
	k.mu.RLock()
	e, ok := (*m)[key]
	k.mu.RUnlock()
	return e.v, ok && now.Before(e.expires)
}

func remember[V any](k *Keyring, m *ttlMap[V], key string, v V, expires time.Time) {
	k.mu.Lock()
	if len(*m) > maxCached {
		*m = ttlMap[V]{}
	}
	(*m)[key] = ttlEntry[V]{v, expires}
	k.mu.Unlock()
}

type cachedKey struct {
	secret string
	id     *Identity // nil: no such key (or unusable)
}

// NewKeyring returns a Keyring over store; ttl bounds how long a cached
// entry outlives a change to it when Watch is not running. m counts the
// credential cache's hits (nil: none).
func NewKeyring(store catalog.Store, sealer *Sealer, ttl time.Duration, m *metrics.Cache) *Keyring {
	k := &Keyring{store: store, sealer: sealer, ttl: ttl, hits: m}
	k.policySrc, _ = store.(catalog.IdentityPolicies)
	k.tagSrc, _ = store.(catalog.PrincipalTags)
	k.Flush()
	return k
}

// Flush drops every cached entry.
func (k *Keyring) Flush() {
	k.mu.Lock()
	k.flush()
	k.mu.Unlock()
}

func (k *Keyring) flush() {
	k.keys, k.tenants, k.quotas, k.settings = ttlMap[cachedKey]{}, ttlMap[tenantState]{}, ttlMap[[]catalog.Quota]{}, ttlMap[string]{}
	k.principals = ttlMap[principal]{}
	k.epoch.Add(1)
}

// Epoch advances with every flush: an entry cached under an older epoch
// may predate a change to identities or access settings.
func (k *Keyring) Epoch() uint64 { return k.epoch.Load() }

// Watch polls the catalog's identity generation every interval until ctx
// ends, and flushes the cache when it moved; a catalog that notifies of
// changes (PostgreSQL) flushes it as each change commits.
func (k *Keyring) Watch(ctx context.Context, interval time.Duration) {
	if n, ok := k.store.(catalog.Notifier); ok {
		go n.WatchChanges(ctx, k.Flush)
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		gen, err := k.store.IdentityGeneration(ctx)
		if err == nil {
			k.mu.Lock()
			if gen != k.gen {
				k.gen = gen
				k.flush()
			}
			k.mu.Unlock()
		} else if ctx.Err() == nil {
			slog.Warn("identity generation poll failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Lookup returns the secret and identity of an active, unexpired
// accessKey. Temporary credentials are not found by it: they are good
// only with their session token (LookupToken), which the front ends that
// take no token (the admin API, the console's sign-in, OSIS) never see.
func (k *Keyring) Lookup(ctx context.Context, accessKey string) (string, *Identity, error) {
	secret, id, err := k.lookup(ctx, accessKey)
	if err == nil && id.Session != nil {
		return "", nil, ErrUnknownKey
	}
	return secret, id, err
}

// LookupToken is Lookup for a request that carried a session token
// (token "" = none): temporary credentials are found with their own
// token while it has not expired, permanent keys only without one. It
// fails with ErrNoToken, ErrInvalidToken or ErrExpiredToken (CheckToken).
func (k *Keyring) LookupToken(ctx context.Context, accessKey, token string) (string, *Identity, error) {
	secret, id, err := k.lookup(ctx, accessKey)
	if err != nil {
		return "", nil, err
	}
	if err := CheckToken(id, token, time.Now()); err != nil {
		return "", nil, err
	}
	return secret, id, nil
}

// SigningSecret returns the secret that verifies a signature made with
// accessKey, temporary credentials' too: the signature is checked before
// the session token, so that a request altered in transit (a token added
// to it) fails as altered, and only the holder of the secret learns what
// is wrong with its token. The caller then checks the token with
// LookupToken before it trusts the request.
func (k *Keyring) SigningSecret(ctx context.Context, accessKey string) (string, error) {
	secret, _, err := k.lookup(ctx, accessKey)
	return secret, err
}

func (k *Keyring) lookup(ctx context.Context, accessKey string) (string, *Identity, error) {
	now := time.Now()
	c, ok := cached(k, &k.keys, accessKey, now)
	k.hits.Lookup(ok)
	if !ok {
		var err error
		if c, err = k.load(ctx, accessKey, now); err != nil {
			return "", nil, err
		}
	}
	if c.id == nil {
		return "", nil, ErrUnknownKey
	}
	id := *c.id
	if id.Tenant != "" {
		suspended, err := k.TenantSuspended(ctx, id.Tenant)
		if err != nil {
			return "", nil, err
		}
		id.Suspended = suspended
	}
	return c.secret, &id, nil
}

// Cached tells whether Lookup can answer for accessKey (known or known
// to be unknown) without reading the catalog.
func (k *Keyring) Cached(accessKey string) bool {
	_, ok := cached(k, &k.keys, accessKey, time.Now())
	return ok
}

// load reads a key from the catalog and caches what it found; misses
// only briefly.
func (k *Keyring) load(ctx context.Context, accessKey string, now time.Time) (cachedKey, error) {
	miss := func() (cachedKey, error) {
		remember(k, &k.keys, accessKey, cachedKey{}, now.Add(time.Second))
		return cachedKey{}, nil
	}
	if tc, ok := k.store.(catalog.TempCreds); ok && strings.HasPrefix(accessKey, TempKeyPrefix) {
		rec, err := tc.GetTempCred(ctx, accessKey)
		switch {
		case err == nil:
			return k.loadTemp(ctx, rec, now)
		case !errors.Is(err, catalog.ErrNoSuchTempCred):
			return cachedKey{}, fmt.Errorf("iam: look up temporary credentials: %w", err)
		}
	}
	rec, err := k.store.GetAccessKey(ctx, accessKey)
	if errors.Is(err, catalog.ErrNoSuchAccessKey) {
		return miss()
	}
	if err != nil {
		return cachedKey{}, fmt.Errorf("iam: look up access key: %w", err)
	}
	// A disabled or expired key does not exist as far as S3 is concerned
	// (AWS answers InvalidAccessKeyId for an inactive key).
	if rec.Status != catalog.KeyActive || (!rec.Expires.IsZero() && !now.Before(rec.Expires)) {
		return miss()
	}
	secret, err := k.sealer.Open(rec.SecretSealed, rec.AccessKey)
	if err != nil {
		return cachedKey{}, err
	}
	id := &Identity{
		CanonicalID: rec.Owner,
		DisplayName: rec.DisplayName,
		AccessKey:   rec.AccessKey,
		Root:        rec.Owner == RootCanonicalID,
		Tenant:      rec.Tenant,
		User:        rec.User,
	}
	if rec.Tenant != "" {
		u, err := k.store.GetUser(ctx, rec.Tenant, rec.User)
		if errors.Is(err, catalog.ErrNoSuchUser) {
			return miss()
		}
		if err != nil {
			return cachedKey{}, fmt.Errorf("iam: look up user of %s: %w", accessKey, err)
		}
		if u.CanonicalID != rec.Owner || u.Disabled {
			// A key is its user's only: never one left over from an
			// earlier user of the same name, nor a disabled user's.
			return miss()
		}
		id.Role = u.Role
		p, err := k.principal(ctx, principalUser, rec.Tenant, rec.User)
		if err != nil {
			return cachedKey{}, err
		}
		id.Policies, id.Tags = p.policies, p.tags
		st, err := k.tenant(ctx, rec.Tenant)
		if err != nil {
			return cachedKey{}, err
		}
		id.TenantID = st.id
	}
	if rec.Kind == catalog.KeyAppCred {
		id.App = &AppLimits{Buckets: rec.Buckets, ReadOnly: rec.ReadOnly}
	}
	c := cachedKey{secret: secret, id: id}
	expires := now.Add(k.ttl)
	if !rec.Expires.IsZero() && rec.Expires.Before(expires) {
		expires = rec.Expires // a rotated key must stop on time
	}
	remember(k, &k.keys, accessKey, c, expires)
	return c, nil
}

// loadTemp resolves temporary credentials to the user they act for,
// while that user exists as the principal it was when they were issued
// and is not disabled (deleting or disabling the user ends its sessions:
// either moves the identity generation, so every node reads them again).
// Expired credentials still resolve, so that CheckToken can say they
// expired; the pruner drops them later.
func (k *Keyring) loadTemp(ctx context.Context, rec catalog.TempCred, now time.Time) (cachedKey, error) {
	miss := func() (cachedKey, error) {
		remember(k, &k.keys, rec.AccessKey, cachedKey{}, now.Add(time.Second))
		return cachedKey{}, nil
	}
	if rec.Tenant == "" || len(rec.TokenHash) != 32 {
		return miss()
	}
	if rec.RoleName != "" {
		return k.loadRoleSession(ctx, rec, now, miss)
	}
	u, err := k.store.GetUser(ctx, rec.Tenant, rec.User)
	if errors.Is(err, catalog.ErrNoSuchUser) || (err == nil && (u.CanonicalID != rec.Owner || u.Disabled)) {
		return miss()
	}
	if err != nil {
		return cachedKey{}, fmt.Errorf("iam: look up user of %s: %w", rec.AccessKey, err)
	}
	id := &Identity{CanonicalID: u.CanonicalID, DisplayName: u.Name, Tenant: rec.Tenant, User: u.Name, Role: u.Role}
	return k.session(ctx, rec, id, principalUser, u.Name, now)
}

// session completes the identity of temporary credentials acting as id,
// a user or a role (kind, name), and caches it: the user's or role's
// policies and tags, the session's tags over them (as on AWS), and its
// session policy, which only narrows.
func (k *Keyring) session(ctx context.Context, rec catalog.TempCred, id *Identity, kind, name string, now time.Time) (cachedKey, error) {
	secret, err := k.sealer.Open(rec.SecretSealed, rec.AccessKey)
	if err != nil {
		return cachedKey{}, err
	}
	st, err := k.tenant(ctx, rec.Tenant)
	if err != nil {
		return cachedKey{}, err
	}
	id.AccessKey, id.TenantID, id.SessionName = rec.AccessKey, st.id, rec.SessionName
	id.Session = &Session{Expires: rec.Expires}
	copy(id.Session.tokenHash[:], rec.TokenHash)
	p, err := k.principal(ctx, kind, rec.Tenant, name)
	if err != nil {
		return cachedKey{}, err
	}
	id.Policies, id.Tags = p.policies, maps.Clone(p.tags)
	if len(rec.Tags) > 0 && id.Tags == nil {
		id.Tags = map[string]string{}
	}
	maps.Copy(id.Tags, rec.Tags)
	if rec.Policy != "" {
		id.SessionPolicies, _ = ParsePolicies([]string{rec.Policy})
	}
	c := cachedKey{secret: secret, id: id}
	remember(k, &k.keys, rec.AccessKey, c, now.Add(k.ttl))
	return c, nil
}

// principal is what the catalog holds of a user's or role's rights
// beyond its role: its identity-based policies (parsed) and its tags.
type principal struct {
	policies []*bucketpolicy.Policy
	tags     map[string]string
}

// Kinds of principal with identity-based policies.
const (
	principalUser = "user"
	principalRole = "role"
)

// UserPolicies returns a user's identity-based policies and tags, as
// requests signed with its keys carry them (Identity.Policies, .Tags).
func (k *Keyring) UserPolicies(ctx context.Context, tenant, user string) ([]*bucketpolicy.Policy, map[string]string, error) {
	p, err := k.principal(ctx, principalUser, tenant, user)
	return p.policies, p.tags, err
}

// RolePolicies returns a role's identity-based policies and tags, for
// the identities of its sessions.
func (k *Keyring) RolePolicies(ctx context.Context, tenant, role string) ([]*bucketpolicy.Policy, map[string]string, error) {
	p, err := k.principal(ctx, principalRole, tenant, role)
	return p.policies, p.tags, err
}

func (k *Keyring) principal(ctx context.Context, kind, tenant, name string) (principal, error) {
	now := time.Now()
	key := kind + "/" + tenant + "/" + name
	if p, ok := cached(k, &k.principals, key, now); ok {
		return p, nil
	}
	src, tagSrc := k.policySrc, k.tagSrc
	var (
		p    principal
		docs []string
		err  error
	)
	switch {
	case src == nil:
	case kind == principalRole:
		docs, err = src.RolePolicies(ctx, tenant, name)
	default:
		docs, err = src.UserPolicies(ctx, tenant, name)
	}
	if err != nil {
		return p, fmt.Errorf("iam: policies of %s %s/%s: %w", kind, tenant, name, err)
	}
	var bad int
	if p.policies, bad = ParsePolicies(docs); bad > 0 {
		slog.Warn("identity-based policies that do not parse deny everything to their principal", "kind", kind, "tenant", tenant, "name", name, "unreadable", bad)
	}
	switch {
	case tagSrc == nil:
	case kind == principalRole:
		p.tags, err = tagSrc.RoleTags(ctx, tenant, name)
	default:
		p.tags, err = tagSrc.UserTags(ctx, tenant, name)
	}
	if err != nil {
		return principal{}, fmt.Errorf("iam: tags of %s %s/%s: %w", kind, tenant, name, err)
	}
	remember(k, &k.principals, key, p, now.Add(k.ttl))
	return p, nil
}

// tenantState is what requests need of a tenant.
type tenantState struct {
	suspended bool
	platform  string
	id        string // canonical id
	sse       string // default encryption of new objects, encoded
	classes   string // storage classes' platforms, encoded
}

// TenantSuspended reports whether tenant is suspended; a tenant that no
// longer exists counts as suspended.
func (k *Keyring) TenantSuspended(ctx context.Context, tenant string) (bool, error) {
	if tenant == "" {
		return false, nil
	}
	st, err := k.tenant(ctx, tenant)
	return st.suspended, err
}

// TenantEncryption returns the default encryption of the tenant's new
// objects that the provider set, as package objects encodes it ("" =
// none).
func (k *Keyring) TenantEncryption(ctx context.Context, tenant string) (string, error) {
	st, err := k.tenant(ctx, tenant)
	return st.sse, err
}

// ProviderEncryption returns the provider-wide default encryption of new
// objects set through the admin API, encoded as package objects encodes
// it ("" = none set).
func (k *Keyring) ProviderEncryption(ctx context.Context) (string, error) {
	now := time.Now()
	if v, ok := cached(k, &k.settings, catalog.ProviderEncryption, now); ok {
		return v, nil
	}
	v, err := k.store.ProviderSetting(ctx, catalog.ProviderEncryption)
	if err != nil {
		return "", fmt.Errorf("iam: provider encryption: %w", err)
	}
	remember(k, &k.settings, catalog.ProviderEncryption, v, now.Add(k.ttl))
	return v, nil
}

// TenantStorageClasses returns the tenant's own map of storage classes
// to platforms, as package storageclass encodes it ("" = none).
func (k *Keyring) TenantStorageClasses(ctx context.Context, tenant string) (string, error) {
	st, err := k.tenant(ctx, tenant)
	return st.classes, err
}

// ProviderStorageClasses returns the provider-wide map of storage
// classes to platforms set through the admin API ("" = none set).
func (k *Keyring) ProviderStorageClasses(ctx context.Context) (string, error) {
	now := time.Now()
	if v, ok := cached(k, &k.settings, catalog.ProviderStorageClasses, now); ok {
		return v, nil
	}
	v, err := k.store.ProviderSetting(ctx, catalog.ProviderStorageClasses)
	if err != nil {
		return "", fmt.Errorf("iam: provider storage classes: %w", err)
	}
	remember(k, &k.settings, catalog.ProviderStorageClasses, v, now.Add(k.ttl))
	return v, nil
}

// TenantPlatform returns the platform the tenant's new blobs go to (""
// = the node's default).
func (k *Keyring) TenantPlatform(ctx context.Context, tenant string) (string, error) {
	st, err := k.tenant(ctx, tenant)
	return st.platform, err
}

func (k *Keyring) tenant(ctx context.Context, tenant string) (tenantState, error) {
	now := time.Now()
	if st, ok := cached(k, &k.tenants, tenant, now); ok {
		return st, nil
	}
	t, err := k.store.GetTenant(ctx, tenant)
	if err != nil && !errors.Is(err, catalog.ErrNoSuchTenant) {
		return tenantState{}, fmt.Errorf("iam: look up tenant %s: %w", tenant, err)
	}
	st := tenantState{suspended: err != nil || t.Status != catalog.TenantActive, platform: t.Platform, id: t.CanonicalID, sse: t.Encryption, classes: t.StorageClasses}
	remember(k, &k.tenants, tenant, st, now.Add(k.ttl))
	return st, nil
}

// Quotas returns a tenant's quotas (tenant-wide and per bucket).
func (k *Keyring) Quotas(ctx context.Context, tenant string) ([]catalog.Quota, error) {
	now := time.Now()
	if qs, ok := cached(k, &k.quotas, tenant, now); ok {
		return qs, nil
	}
	qs, err := k.store.ListQuotas(ctx, tenant)
	if err != nil {
		return nil, fmt.Errorf("iam: quotas of %s: %w", tenant, err)
	}
	remember(k, &k.quotas, tenant, qs, now.Add(k.ttl))
	return qs, nil
}

// EnsureRoot makes sure the provider's root credentials exist. A pair
// given at start (from the environment or the configuration) replaces
// the pair given at an earlier start, in one transaction, and lives only
// while it is given: a start given none removes it, so that a provider
// who rotates or withdraws the key by changing the environment is never
// left with a forgotten key that still opens everything. Keys created
// through the admin API, and the one generated at the first start, stay.
// With no pair given and no usable root key left, a root key is
// generated. It reports the credentials it generated, empty if none.
func EnsureRoot(ctx context.Context, store catalog.Store, sealer *Sealer, accessKey, secret string) (createdKey, createdSecret string, err error) {
	if (accessKey == "") != (secret == "") {
		return "", "", errors.New("iam: set both OSTIUM_ROOT_ACCESS_KEY and OSTIUM_ROOT_SECRET_KEY, or neither")
	}
	if accessKey != "" {
		rk, ok := store.(catalog.RootKeys)
		if !ok {
			return "", "", fmt.Errorf("iam: catalog %T cannot replace root keys", store)
		}
		rec, err := store.GetAccessKey(ctx, accessKey)
		switch {
		case err == nil:
			if rec.Owner != RootCanonicalID {
				return "", "", fmt.Errorf("iam: access key %s belongs to another identity", accessKey)
			}
			if have, err := sealer.Open(rec.SecretSealed, accessKey); err != nil || have != secret {
				return "", "", fmt.Errorf("iam: root access key %s exists with another secret", accessKey)
			}
			if rec.Status != catalog.KeyActive || !rec.Expires.IsZero() {
				// Revoked or rotated through the admin API: a restart
				// must not bring a key back that was taken away.
				slog.Warn("the root access key given at start was revoked or rotated; it stays so", "access_key", accessKey, "status", rec.Status, "expires", rec.Expires)
			}
		case !errors.Is(err, catalog.ErrNoSuchAccessKey):
			return "", "", fmt.Errorf("iam: look up root key: %w", err)
		}
		if err := rk.ReplaceStartKey(ctx, rootKey(sealer, accessKey, secret, catalog.SourceEnv)); err != nil {
			return "", "", fmt.Errorf("iam: store root key: %w", err)
		}
		return "", "", nil
	}
	keys, err := store.ListAccessKeys(ctx, "", "root")
	if err != nil {
		return "", "", fmt.Errorf("iam: list root keys: %w", err)
	}
	// Keys that still sign: without one (the environment's removed, the
	// others revoked or past a rotation's grace), a key is generated, so
	// that the provider is never locked out.
	usable := 0
	for _, k := range keys {
		if k.Source != catalog.SourceEnv {
			if k.Status == catalog.KeyActive && (k.Expires.IsZero() || time.Now().Before(k.Expires)) {
				usable++
			}
			continue
		}
		if err := store.DeleteAccessKey(ctx, k.AccessKey); err != nil && !errors.Is(err, catalog.ErrNoSuchAccessKey) {
			return "", "", fmt.Errorf("iam: remove the root key of an earlier start: %w", err)
		}
		slog.Warn("the root access key given at an earlier start was removed: no OSTIUM_ROOT_ACCESS_KEY/OSTIUM_ROOT_SECRET_KEY (or root_access_key) was given at this one, and a root key given at start lives only while it is given",
			"access_key", k.AccessKey)
	}
	if usable > 0 {
		return "", "", nil
	}
	accessKey, secret = NewAccessKey()
	if err := store.PutAccessKey(ctx, rootKey(sealer, accessKey, secret, catalog.SourceGenerated)); err != nil {
		return "", "", fmt.Errorf("iam: store root key: %w", err)
	}
	return accessKey, secret, nil
}

func rootKey(sealer *Sealer, accessKey, secret, source string) catalog.AccessKey {
	return catalog.AccessKey{
		AccessKey:    accessKey,
		SecretSealed: sealer.Seal(secret, accessKey),
		Owner:        RootCanonicalID,
		DisplayName:  "root",
		CreatedAt:    time.Now().UTC(),
		Source:       source,
	}
}
