package iam

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

// ErrUnknownKey is returned for an access key the catalog does not hold.
var ErrUnknownKey = errors.New("iam: unknown access key")

// Keyring resolves access keys to secrets and identities. Every signed
// request needs one lookup, so results (including misses, briefly) are
// cached; a later issue adds cross-node invalidation.
type Keyring struct {
	store  catalog.Store
	sealer *Sealer
	ttl    time.Duration

	mu    sync.RWMutex
	cache map[string]cachedKey
}

type cachedKey struct {
	secret  string
	id      *Identity
	expires time.Time
}

// NewKeyring returns a Keyring over store; ttl bounds how long a cached
// key outlives a change to it.
func NewKeyring(store catalog.Store, sealer *Sealer, ttl time.Duration) *Keyring {
	return &Keyring{store: store, sealer: sealer, ttl: ttl, cache: map[string]cachedKey{}}
}

// Lookup returns the secret and identity of accessKey.
func (k *Keyring) Lookup(ctx context.Context, accessKey string) (string, *Identity, error) {
	now := time.Now()
	k.mu.RLock()
	c, ok := k.cache[accessKey]
	k.mu.RUnlock()
	if ok && now.Before(c.expires) {
		if c.id == nil {
			return "", nil, ErrUnknownKey
		}
		return c.secret, c.id, nil
	}
	rec, err := k.store.GetAccessKey(ctx, accessKey)
	if errors.Is(err, catalog.ErrNoSuchAccessKey) {
		k.put(accessKey, cachedKey{expires: now.Add(time.Second)})
		return "", nil, ErrUnknownKey
	}
	if err != nil {
		return "", nil, fmt.Errorf("iam: look up access key: %w", err)
	}
	secret, err := k.sealer.Open(rec.SecretSealed, rec.AccessKey)
	if err != nil {
		return "", nil, err
	}
	id := &Identity{
		CanonicalID: rec.Owner,
		DisplayName: rec.DisplayName,
		AccessKey:   rec.AccessKey,
		Root:        rec.Owner == RootCanonicalID,
	}
	k.put(accessKey, cachedKey{secret: secret, id: id, expires: now.Add(k.ttl)})
	return secret, id, nil
}

func (k *Keyring) put(accessKey string, c cachedKey) {
	k.mu.Lock()
	if len(k.cache) > 100_000 { // bound memory under a flood of bogus keys
		k.cache = map[string]cachedKey{}
	}
	k.cache[accessKey] = c
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
	keys, err := store.ListAccessKeys(ctx, RootCanonicalID)
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
