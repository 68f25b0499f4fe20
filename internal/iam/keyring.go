package iam

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
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

	mu      sync.RWMutex
	keys    map[string]cachedKey
	tenants map[string]cachedTenant
	quotas  map[string]cachedQuotas
	gen     int64
}

type cachedQuotas struct {
	qs      []catalog.Quota
	expires time.Time
}

type cachedKey struct {
	secret  string
	id      *Identity // nil: no such key (or unusable)
	expires time.Time // of the cache entry, or of the key itself if sooner
}

type cachedTenant struct {
	suspended bool
	expires   time.Time
}

// NewKeyring returns a Keyring over store; ttl bounds how long a cached
// entry outlives a change to it when Watch is not running.
func NewKeyring(store catalog.Store, sealer *Sealer, ttl time.Duration) *Keyring {
	k := &Keyring{store: store, sealer: sealer, ttl: ttl}
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
	k.keys, k.tenants, k.quotas = map[string]cachedKey{}, map[string]cachedTenant{}, map[string]cachedQuotas{}
}

// Watch polls the catalog's identity generation every interval until ctx
// ends, and flushes the cache when it moved.
func (k *Keyring) Watch(ctx context.Context, interval time.Duration) {
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

// Lookup returns the secret and identity of an active, unexpired accessKey.
func (k *Keyring) Lookup(ctx context.Context, accessKey string) (string, *Identity, error) {
	now := time.Now()
	k.mu.RLock()
	c, ok := k.keys[accessKey]
	k.mu.RUnlock()
	if !ok || !now.Before(c.expires) {
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

// load reads a key from the catalog and caches what it found.
func (k *Keyring) load(ctx context.Context, accessKey string, now time.Time) (cachedKey, error) {
	miss := cachedKey{expires: now.Add(time.Second)}
	rec, err := k.store.GetAccessKey(ctx, accessKey)
	if errors.Is(err, catalog.ErrNoSuchAccessKey) {
		k.putKey(accessKey, miss)
		return miss, nil
	}
	if err != nil {
		return miss, fmt.Errorf("iam: look up access key: %w", err)
	}
	// A disabled or expired key does not exist as far as S3 is concerned
	// (AWS answers InvalidAccessKeyId for an inactive key).
	if rec.Status != catalog.KeyActive || (!rec.Expires.IsZero() && !now.Before(rec.Expires)) {
		k.putKey(accessKey, miss)
		return miss, nil
	}
	secret, err := k.sealer.Open(rec.SecretSealed, rec.AccessKey)
	if err != nil {
		return miss, err
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
			k.putKey(accessKey, miss)
			return miss, nil
		}
		if err != nil {
			return miss, fmt.Errorf("iam: look up user of %s: %w", accessKey, err)
		}
		id.Role = u.Role
	}
	if rec.Kind == catalog.KeyAppCred {
		id.App = &AppLimits{Buckets: rec.Buckets, ReadOnly: rec.ReadOnly}
	}
	c := cachedKey{secret: secret, id: id, expires: now.Add(k.ttl)}
	if !rec.Expires.IsZero() && rec.Expires.Before(c.expires) {
		c.expires = rec.Expires
	}
	k.putKey(accessKey, c)
	return c, nil
}

// TenantSuspended reports whether tenant is suspended; a tenant that no
// longer exists counts as suspended.
func (k *Keyring) TenantSuspended(ctx context.Context, tenant string) (bool, error) {
	if tenant == "" {
		return false, nil
	}
	now := time.Now()
	k.mu.RLock()
	c, ok := k.tenants[tenant]
	k.mu.RUnlock()
	if ok && now.Before(c.expires) {
		return c.suspended, nil
	}
	t, err := k.store.GetTenant(ctx, tenant)
	if err != nil && !errors.Is(err, catalog.ErrNoSuchTenant) {
		return false, fmt.Errorf("iam: look up tenant %s: %w", tenant, err)
	}
	c = cachedTenant{suspended: err != nil || t.Status != catalog.TenantActive, expires: now.Add(k.ttl)}
	k.mu.Lock()
	if len(k.tenants) > 100_000 {
		k.tenants = map[string]cachedTenant{}
	}
	k.tenants[tenant] = c
	k.mu.Unlock()
	return c.suspended, nil
}

// Quotas returns a tenant's quotas (tenant-wide and per bucket).
func (k *Keyring) Quotas(ctx context.Context, tenant string) ([]catalog.Quota, error) {
	now := time.Now()
	k.mu.RLock()
	c, ok := k.quotas[tenant]
	k.mu.RUnlock()
	if ok && now.Before(c.expires) {
		return c.qs, nil
	}
	qs, err := k.store.ListQuotas(ctx, tenant)
	if err != nil {
		return nil, fmt.Errorf("iam: quotas of %s: %w", tenant, err)
	}
	k.mu.Lock()
	if len(k.quotas) > 100_000 {
		k.quotas = map[string]cachedQuotas{}
	}
	k.quotas[tenant] = cachedQuotas{qs: qs, expires: now.Add(k.ttl)}
	k.mu.Unlock()
	return qs, nil
}

func (k *Keyring) putKey(accessKey string, c cachedKey) {
	k.mu.Lock()
	if len(k.keys) > 100_000 { // bound memory under a flood of bogus keys
		k.keys = map[string]cachedKey{}
	}
	k.keys[accessKey] = c
	k.mu.Unlock()
}

// EnsureRoot makes sure the provider's root credentials exist. With
// accessKey and secret given (from the environment) they are stored if
// new; with neither, a root key is generated on the first start only.
// It reports the credentials it created, empty if none.
func EnsureRoot(ctx context.Context, store catalog.Store, sealer *Sealer, accessKey, secret string) (createdKey, createdSecret string, err error) {
	if (accessKey == "") != (secret == "") {
		return "", "", errors.New("iam: set both OSTIUM_ROOT_ACCESS_KEY and OSTIUM_ROOT_SECRET_KEY, or neither")
	}
	if accessKey != "" {
		rec, err := store.GetAccessKey(ctx, accessKey)
		if err == nil {
			if rec.Owner != RootCanonicalID {
				return "", "", fmt.Errorf("iam: access key %s belongs to another identity", accessKey)
			}
			if have, err := sealer.Open(rec.SecretSealed, accessKey); err != nil || have != secret {
				return "", "", fmt.Errorf("iam: root access key %s exists with another secret", accessKey)
			}
			return "", "", nil
		}
		if !errors.Is(err, catalog.ErrNoSuchAccessKey) {
			return "", "", fmt.Errorf("iam: look up root key: %w", err)
		}
		return "", "", putRoot(ctx, store, sealer, accessKey, secret)
	}
	keys, err := store.ListAccessKeys(ctx, "", "root")
	if err != nil {
		return "", "", fmt.Errorf("iam: list root keys: %w", err)
	}
	if len(keys) > 0 {
		return "", "", nil
	}
	accessKey, secret = NewAccessKey()
	if err := putRoot(ctx, store, sealer, accessKey, secret); err != nil {
		return "", "", err
	}
	return accessKey, secret, nil
}

func putRoot(ctx context.Context, store catalog.Store, sealer *Sealer, accessKey, secret string) error {
	err := store.PutAccessKey(ctx, catalog.AccessKey{
		AccessKey:    accessKey,
		SecretSealed: sealer.Seal(secret, accessKey),
		Owner:        RootCanonicalID,
		DisplayName:  "root",
		CreatedAt:    time.Now().UTC(),
	})
	if err != nil {
		return fmt.Errorf("iam: store root key: %w", err)
	}
	return nil
}
