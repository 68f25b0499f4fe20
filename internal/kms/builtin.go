package kms

import (
	"context"
	"crypto/cipher"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

// builtin is the keyring's own backend: each tenant key version's
// material sealed (AES-256-GCM) by a version of the master key, itself
// sealed by the node key, all in the catalog.
type builtin struct {
	k    *Keyring
	node cipher.AEAD // seals master key versions

	mu      sync.Mutex
	masters *masterSet
}

type masterSet struct {
	aead    map[int]cipher.AEAD
	newest  int
	epoch   uint64
	expires time.Time
}

func (b *builtin) format() byte { return formatBuiltin }

func (b *builtin) flush() {
	b.mu.Lock()
	b.masters = nil
	b.mu.Unlock()
}

func (b *builtin) open(ctx context.Context, ck catalog.TenantKey, v catalog.KeyVersion) (wrapper, error) {
	ms, err := b.masterKeys(ctx, v.MasterVersion)
	if err != nil {
		return nil, err
	}
	plain, err := open(ms.aead[v.MasterVersion], v.Sealed, tenantAD(ck.Tenant, ck.ID, v.Version))
	if err != nil {
		return nil, fmt.Errorf("kms: key %s version %d does not open under master version %d", ck.ID, v.Version, v.MasterVersion)
	}
	aead, err := newAEAD(plain)
	clear(plain)
	if err != nil {
		return nil, err
	}
	return aeadWrapper{aead}, nil
}

// destroy has nothing to do: the catalog deletes the sealed material
// with the change of state.
func (b *builtin) destroy(context.Context, catalog.TenantKey) error { return nil }

type aeadWrapper struct{ aead cipher.AEAD }

func (w aeadWrapper) wrap(_ context.Context, header, plain, ad []byte) ([]byte, error) {
	return seal(w.aead, header, plain, ad), nil
}

func (w aeadWrapper) unwrap(_ context.Context, body, ad []byte) ([]byte, error) {
	plain, err := open(w.aead, body, ad)
	if err != nil {
		return nil, ErrUnwrap
	}
	return plain, nil
}

// masterKeys returns the master versions, loading them when none are
// cached, the cache is stale, or version need (> 0) is not among them.
// The first use makes version 1.
func (b *builtin) masterKeys(ctx context.Context, need int) (*masterSet, error) {
	b.mu.Lock()
	ms := b.masters
	b.mu.Unlock()
	if ms != nil && b.k.fresh(ms.epoch, ms.expires) && (need == 0 || ms.aead[need] != nil) {
		return ms, nil
	}
	epoch := b.k.epoch() // before the read: a change after it is seen next time
	for range 3 {
		stored, err := b.k.store.MasterKeys(ctx)
		if err != nil {
			return nil, fmt.Errorf("kms: master keys: %w", err)
		}
		if len(stored) == 0 {
			m := catalog.MasterKey{Version: 1, Sealed: b.sealMaster(1), Created: time.Now().UTC()}
			if err := b.k.store.AddMasterKey(ctx, m); err != nil && !errors.Is(err, catalog.ErrKeyExists) {
				return nil, fmt.Errorf("kms: make the master key: %w", err)
			}
			continue // read what won, this node's or another's
		}
		ms := &masterSet{aead: map[int]cipher.AEAD{}, epoch: epoch, expires: time.Now().Add(b.k.ttl)}
		for _, m := range stored {
			plain, err := open(b.node, m.Sealed, masterAD(m.Version))
			if err != nil {
				return nil, fmt.Errorf("kms: master key version %d does not open under this node key (is node_key the one the other nodes use?)", m.Version)
			}
			aead, err := newAEAD(plain)
			clear(plain)
			if err != nil {
				return nil, err
			}
			ms.aead[m.Version], ms.newest = aead, m.Version
		}
		if need > 0 && ms.aead[need] == nil {
			return nil, fmt.Errorf("kms: master key version %d is gone", need)
		}
		b.mu.Lock()
		b.masters = ms
		b.mu.Unlock()
		return ms, nil
	}
	return nil, errors.New("kms: could not make the master key")
}

// sealMaster makes a fresh master key and seals it by the node key.
func (b *builtin) sealMaster(version int) []byte {
	plain := randomKey()
	defer clear(plain)
	return seal(b.node, nil, plain, masterAD(version))
}

// sealTenant makes fresh material for version of a tenant key, sealed by
// the newest master version.
func (b *builtin) newVersion(ctx context.Context, tenant, id string, version int) (catalog.KeyVersion, error) {
	ms, err := b.masterKeys(ctx, 0)
	if err != nil {
		return catalog.KeyVersion{}, err
	}
	plain := randomKey()
	defer clear(plain)
	return catalog.KeyVersion{Version: version, Sealed: seal(ms.aead[ms.newest], nil, plain, tenantAD(tenant, id, version)),
		MasterVersion: ms.newest, Created: time.Now().UTC()}, nil
}
