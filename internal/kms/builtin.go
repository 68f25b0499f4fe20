package kms

import (
	"context"
	"crypto/cipher"
	"errors"
	"fmt"
	"slices"
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

// rotateMaster adds a master version, seals every tenant key version
// again under it, and deletes the older master versions once nothing is
// sealed by them. A node that still seals by an older version (its cache
// not yet dropped) only delays the deletion: the next round re-seals
// what it wrote. Cut short, it is finished by running it again.
func (b *builtin) rotateMaster(ctx context.Context) (MasterRotation, error) {
	ms, err := b.masterKeys(ctx, 0)
	if err != nil {
		return MasterRotation{}, err
	}
	r := MasterRotation{Version: ms.newest + 1}
	err = b.k.store.AddMasterKey(ctx, catalog.MasterKey{Version: r.Version, Sealed: b.sealMaster(r.Version), Created: time.Now().UTC()})
	if err != nil {
		return r, fmt.Errorf("kms: add master version %d (is another rotation running?): %w", r.Version, err)
	}
	b.flush()
	for round := 0; round < 10; round++ {
		if ms, err = b.masterKeys(ctx, r.Version); err != nil {
			return r, err
		}
		for {
			refs, err := b.k.store.KeysSealedBefore(ctx, r.Version, 100)
			if err != nil {
				return r, fmt.Errorf("kms: re-seal: %w", err)
			}
			if len(refs) == 0 {
				break
			}
			for _, ref := range refs {
				done, err := b.reseal(ctx, ms, ref, r.Version)
				if err != nil {
					return r, err
				}
				if done {
					r.Resealed++
				}
			}
		}
		left := false
		for v := range ms.aead {
			if v >= r.Version || slices.Contains(r.Retired, v) {
				continue
			}
			switch err := b.k.store.DeleteMasterKey(ctx, v); {
			case err == nil, errors.Is(err, catalog.ErrNoSuchKey):
				r.Retired = append(r.Retired, v)
			case errors.Is(err, catalog.ErrKeyExists):
				left = true // sealed by it since the listing: another round
			default:
				return r, fmt.Errorf("kms: retire master version %d: %w", v, err)
			}
		}
		if !left {
			slices.Sort(r.Retired)
			return r, nil
		}
		b.flush()
	}
	return r, fmt.Errorf("kms: master versions older than %d are still in use after 10 rounds; run the rotation again", r.Version)
}

// reseal seals one tenant key version again under master version to.
func (b *builtin) reseal(ctx context.Context, ms *masterSet, ref catalog.KeyRef, to int) (bool, error) {
	ck, err := b.k.store.GetKey(ctx, ref.ID)
	if errors.Is(err, catalog.ErrNoSuchKey) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("kms: re-seal %s: %w", ref.ID, err)
	}
	for _, v := range ck.Versions {
		if v.Version != ref.Version || v.MasterVersion >= to {
			continue
		}
		old, err := b.masterKeys(ctx, v.MasterVersion)
		if err != nil {
			return false, err
		}
		ad := tenantAD(ck.Tenant, ck.ID, v.Version)
		plain, err := open(old.aead[v.MasterVersion], v.Sealed, ad)
		if err != nil {
			return false, fmt.Errorf("kms: key %s version %d does not open under master version %d", ck.ID, v.Version, v.MasterVersion)
		}
		sealed := seal(ms.aead[to], nil, plain, ad)
		clear(plain)
		return b.k.store.ResealKeyVersion(ctx, ck.ID, v.Version, sealed, to, v.MasterVersion)
	}
	return false, nil // destroyed, or re-sealed meanwhile
}
