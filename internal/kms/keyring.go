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

// KeyringOptions tune a Keyring.
type KeyringOptions struct {
	// Region is the node's region, which a key ARN must name ("" =
	// us-east-1, as the object service).
	Region string
	// Epoch advances whenever identities or keys may have changed
	// through another node (the node passes iam.Keyring.Epoch, which
	// follows the catalog's identity generation, which every KeyStore
	// change advances); an entry cached under an older epoch is read
	// again. nil: entries last TTL.
	Epoch func() uint64
	// TTL bounds how long an entry is kept (0 = a minute); MaxCached how
	// many tenant keys are (0 = 10,000).
	TTL       time.Duration
	MaxCached int
}

// Keyring is the built-in key service: tenant keys, 256-bit and random,
// kept in the catalog sealed (AES-256-GCM) by a version of the master
// key, itself sealed by the node key; data keys wrapped (AES-256-GCM) by
// a tenant key's newest version, the context as associated data.
//
// Opened keys are cached (bounded, and dropped when the epoch moves): a
// PUT or GET needs no catalog read for its key. Key material is held only
// inside cipher.AEAD values, which nothing logs.
type Keyring struct {
	store  catalog.KeyStore
	node   cipher.AEAD // seals master key versions
	region string
	epoch  func() uint64
	ttl    time.Duration
	max    int

	mu      sync.Mutex
	masters *masterSet
	keys    map[string]*tenantKey // by id
	aliases map[[2]string]aliasEntry
}

var (
	_ Keys    = (*Keyring)(nil)
	_ Manager = (*Keyring)(nil)
)

type masterSet struct {
	aead    map[int]cipher.AEAD
	newest  int
	epoch   uint64
	expires time.Time
}

type tenantKey struct {
	id, tenant, alias, state string
	created                  time.Time
	current                  int
	versions                 map[int]cipher.AEAD
	epoch                    uint64
	expires                  time.Time
}

type aliasEntry struct {
	id      string
	epoch   uint64
	expires time.Time
}

// NewKeyring returns the keyring over store, its master key versions
// sealed by nodeKey (32 bytes).
func NewKeyring(store catalog.KeyStore, nodeKey []byte, o KeyringOptions) (*Keyring, error) {
	node, err := newAEAD(nodeKey)
	if err != nil {
		return nil, fmt.Errorf("kms: node key: %w", err)
	}
	k := &Keyring{store: store, node: node, region: o.Region, epoch: o.Epoch, ttl: o.TTL, max: o.MaxCached}
	if k.region == "" {
		k.region = "us-east-1"
	}
	if k.epoch == nil {
		k.epoch = func() uint64 { return 0 }
	}
	if k.ttl <= 0 {
		k.ttl = time.Minute
	}
	if k.max <= 0 {
		k.max = 10_000
	}
	k.Flush()
	return k, nil
}

// Flush drops every cached key.
func (k *Keyring) Flush() {
	k.mu.Lock()
	k.masters, k.keys, k.aliases = nil, map[string]*tenantKey{}, map[[2]string]aliasEntry{}
	k.mu.Unlock()
}

func (k *Keyring) fresh(epoch uint64, expires time.Time) bool {
	return epoch == k.epoch() && time.Now().Before(expires)
}

// masterKeys returns the master versions, loading them when none are
// cached, the cache is stale, or version need (> 0) is not among them.
// The first use makes version 1.
func (k *Keyring) masterKeys(ctx context.Context, need int) (*masterSet, error) {
	k.mu.Lock()
	ms := k.masters
	k.mu.Unlock()
	if ms != nil && k.fresh(ms.epoch, ms.expires) && (need == 0 || ms.aead[need] != nil) {
		return ms, nil
	}
	epoch := k.epoch() // before the read: a change after it is seen next time
	for range 3 {
		stored, err := k.store.MasterKeys(ctx)
		if err != nil {
			return nil, fmt.Errorf("kms: master keys: %w", err)
		}
		if len(stored) == 0 {
			m := catalog.MasterKey{Version: 1, Sealed: k.sealMaster(1), Created: time.Now().UTC()}
			if err := k.store.AddMasterKey(ctx, m); err != nil && !errors.Is(err, catalog.ErrKeyExists) {
				return nil, fmt.Errorf("kms: make the master key: %w", err)
			}
			continue // read what won, this node's or another's
		}
		ms := &masterSet{aead: map[int]cipher.AEAD{}, epoch: epoch, expires: time.Now().Add(k.ttl)}
		for _, m := range stored {
			plain, err := open(k.node, m.Sealed, masterAD(m.Version))
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
		k.mu.Lock()
		k.masters = ms
		k.mu.Unlock()
		return ms, nil
	}
	return nil, errors.New("kms: could not make the master key")
}

// sealMaster makes a fresh master key and seals it by the node key.
func (k *Keyring) sealMaster(version int) []byte {
	plain := randomKey()
	defer clear(plain)
	return seal(k.node, nil, plain, masterAD(version))
}

// sealTenant makes fresh material for version of a tenant key, sealed by
// the newest master version.
func (k *Keyring) sealTenant(ctx context.Context, tenant, id string, version int) (catalog.KeyVersion, error) {
	ms, err := k.masterKeys(ctx, 0)
	if err != nil {
		return catalog.KeyVersion{}, err
	}
	plain := randomKey()
	defer clear(plain)
	return catalog.KeyVersion{Version: version, Sealed: seal(ms.aead[ms.newest], nil, plain, tenantAD(tenant, id, version)),
		MasterVersion: ms.newest, Created: time.Now().UTC()}, nil
}

// openKey opens every version of a stored key.
func (k *Keyring) openKey(ctx context.Context, ck catalog.TenantKey, epoch uint64) (*tenantKey, error) {
	tk := &tenantKey{id: ck.ID, tenant: ck.Tenant, alias: ck.Name, state: ck.State, created: ck.Created, current: ck.Version,
		versions: make(map[int]cipher.AEAD, len(ck.Versions)), epoch: epoch, expires: time.Now().Add(k.ttl)}
	for _, v := range ck.Versions {
		ms, err := k.masterKeys(ctx, v.MasterVersion)
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
		tk.versions[v.Version] = aead
	}
	return tk, nil
}

// resolve finds the tenant's key that ref names. Another tenant's key is
// no key at all, as in AWS, whose key ids are per account.
func (k *Keyring) resolve(ctx context.Context, tenant, ref string, cached bool) (*tenantKey, error) {
	r, err := ParseKeyRef(ref)
	if err != nil {
		return nil, err
	}
	if r.ARN && (r.Account != tenant || r.Region != k.region) {
		return nil, fmt.Errorf("%w: %s is not a key of this account and region", ErrNoSuchKey, ref)
	}
	epoch := k.epoch() // before any read: a change after it is seen next time
	id := r.ID
	if r.Alias != "" {
		k.mu.Lock()
		a, ok := k.aliases[[2]string{tenant, r.Alias}]
		k.mu.Unlock()
		if cached && ok && k.fresh(a.epoch, a.expires) {
			id = a.id
		} else {
			ck, err := k.store.KeyByName(ctx, tenant, r.Alias)
			if err != nil {
				return nil, fromCatalog(err, ref)
			}
			return k.remember(ctx, ck, epoch, r.Alias)
		}
	}
	if cached {
		k.mu.Lock()
		tk, ok := k.keys[id]
		k.mu.Unlock()
		if ok && k.fresh(tk.epoch, tk.expires) {
			if tk.tenant != tenant {
				return nil, fmt.Errorf("%w: %s", ErrNoSuchKey, ref)
			}
			return tk, nil
		}
	}
	ck, err := k.store.GetKey(ctx, id)
	if err != nil {
		return nil, fromCatalog(err, ref)
	}
	if ck.Tenant != tenant {
		return nil, fmt.Errorf("%w: %s", ErrNoSuchKey, ref)
	}
	return k.remember(ctx, ck, epoch, "")
}

func (k *Keyring) remember(ctx context.Context, ck catalog.TenantKey, epoch uint64, alias string) (*tenantKey, error) {
	tk, err := k.openKey(ctx, ck, epoch)
	if err != nil {
		return nil, err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.keys) >= k.max {
		k.keys = map[string]*tenantKey{}
	}
	if len(k.aliases) >= k.max {
		k.aliases = map[[2]string]aliasEntry{}
	}
	k.keys[tk.id] = tk
	if alias != "" {
		k.aliases[[2]string{tk.tenant, alias}] = aliasEntry{id: tk.id, epoch: epoch, expires: tk.expires}
	}
	return tk, nil
}

func fromCatalog(err error, ref string) error {
	switch {
	case errors.Is(err, catalog.ErrNoSuchKey):
		return fmt.Errorf("%w: %s", ErrNoSuchKey, ref)
	case errors.Is(err, catalog.ErrKeyDestroyed):
		return fmt.Errorf("%w: %s", ErrDestroyed, ref)
	case errors.Is(err, catalog.ErrKeyExists):
		return fmt.Errorf("%w: %s", ErrAliasExists, ref)
	}
	return fmt.Errorf("kms: %s: %w", ref, err)
}

// usable says whether tk may wrap and unwrap now.
func (tk *tenantKey) usable() error {
	switch tk.state {
	case catalog.KeyEnabled:
		return nil
	case catalog.KeyDestroyed:
		return fmt.Errorf("%w: %s", ErrDestroyed, tk.id)
	default:
		return fmt.Errorf("%w: %s", ErrKeyDisabled, tk.id)
	}
}

func (k *Keyring) DefaultKey(ctx context.Context, tenant string) (string, error) {
	const ref = "alias/" + DefaultKeyAlias
	for range 3 {
		tk, err := k.resolve(ctx, tenant, ref, true)
		if err == nil {
			return tk.id, nil
		}
		if !errors.Is(err, ErrNoSuchKey) {
			return "", err
		}
		// First use: make it; a race with another node is lost by one,
		// which then reads the winner's.
		if _, err := k.create(ctx, tenant, DefaultKeyAlias); err != nil && !errors.Is(err, ErrAliasExists) {
			return "", err
		}
	}
	return "", fmt.Errorf("kms: the default key of tenant %q could not be made", tenant)
}

func (k *Keyring) create(ctx context.Context, tenant, alias string) (catalog.TenantKey, error) {
	for attempt := 0; ; attempt++ {
		id := NewKeyID()
		v, err := k.sealTenant(ctx, tenant, id, 1)
		if err != nil {
			return catalog.TenantKey{}, err
		}
		ck := catalog.TenantKey{ID: id, Tenant: tenant, Name: alias, State: catalog.KeyEnabled, Created: v.Created,
			Versions: []catalog.KeyVersion{v}, Version: 1}
		err = k.store.CreateKey(ctx, ck)
		if errors.Is(err, catalog.ErrNoSuchKey) && attempt == 0 {
			k.Flush() // the master version was retired meanwhile: seal by the newest
			continue
		}
		if err != nil {
			return catalog.TenantKey{}, fromCatalog(err, "alias/"+alias)
		}
		k.Flush()
		return ck, nil
	}
}

func (k *Keyring) NewDataKey(ctx context.Context, tenant, keyID string, context []byte) (DataKey, error) {
	tk, err := k.resolve(ctx, tenant, keyID, true)
	if err != nil {
		return DataKey{}, err
	}
	if err := tk.usable(); err != nil {
		return DataKey{}, err
	}
	aead := tk.versions[tk.current]
	if aead == nil {
		return DataKey{}, fmt.Errorf("kms: key %s has no version %d", tk.id, tk.current)
	}
	plain := randomKey()
	wrapped := seal(aead, wrapHeader(tk.current), plain, dataAD(tenant, tk.id, tk.current, context))
	return DataKey{KeyID: tk.id, Plain: plain, Wrapped: wrapped}, nil
}

func (k *Keyring) Unwrap(ctx context.Context, tenant, keyID string, wrapped, context []byte) ([]byte, error) {
	version, body, err := parseWrapped(wrapped)
	if err != nil {
		return nil, err
	}
	tk, err := k.resolve(ctx, tenant, keyID, true)
	if err != nil {
		return nil, err
	}
	if tk.versions[version] == nil && tk.state == catalog.KeyEnabled {
		// Rotated through another node since this one cached the key.
		if tk, err = k.resolve(ctx, tenant, keyID, false); err != nil {
			return nil, err
		}
	}
	if err := tk.usable(); err != nil {
		return nil, err
	}
	aead := tk.versions[version]
	if aead == nil {
		return nil, fmt.Errorf("%w: key %s has no version %d", ErrUnwrap, tk.id, version)
	}
	plain, err := open(aead, body, dataAD(tenant, tk.id, version, context))
	if err != nil {
		return nil, fmt.Errorf("%w: under key %s version %d", ErrUnwrap, tk.id, version)
	}
	return plain, nil
}

func info(ck catalog.TenantKey) KeyInfo {
	if ck.State == catalog.KeyDestroyed {
		ck.Version = 0
	}
	return KeyInfo{ID: ck.ID, Tenant: ck.Tenant, Alias: ck.Name, State: ck.State, Created: ck.Created, Versions: ck.Version,
		Default: ck.Name == DefaultKeyAlias}
}

func (k *Keyring) ListKeys(ctx context.Context, tenant string) ([]KeyInfo, error) {
	cks, err := k.store.ListKeys(ctx, tenant)
	if err != nil {
		return nil, fmt.Errorf("kms: list keys: %w", err)
	}
	out := make([]KeyInfo, len(cks))
	for i, ck := range cks {
		out[i] = info(ck)
	}
	return out, nil
}

func (k *Keyring) CreateKey(ctx context.Context, tenant, alias string) (KeyInfo, error) {
	if alias != "" {
		if err := ValidAlias(alias); err != nil {
			return KeyInfo{}, err
		}
	}
	ck, err := k.create(ctx, tenant, alias)
	if err != nil {
		return KeyInfo{}, err
	}
	return info(ck), nil
}

// lookup reads the tenant's key ref names from the catalog, a destroyed
// one too (by id), for the administration.
func (k *Keyring) lookup(ctx context.Context, tenant, ref string) (catalog.TenantKey, error) {
	r, err := ParseKeyRef(ref)
	if err != nil {
		return catalog.TenantKey{}, err
	}
	if r.ARN && (r.Account != tenant || r.Region != k.region) {
		return catalog.TenantKey{}, fmt.Errorf("%w: %s is not a key of this account and region", ErrNoSuchKey, ref)
	}
	var ck catalog.TenantKey
	if r.Alias != "" {
		ck, err = k.store.KeyByName(ctx, tenant, r.Alias)
	} else {
		ck, err = k.store.GetKey(ctx, r.ID)
	}
	if err != nil {
		return ck, fromCatalog(err, ref)
	}
	if ck.Tenant != tenant {
		return ck, fmt.Errorf("%w: %s", ErrNoSuchKey, ref)
	}
	return ck, nil
}

func (k *Keyring) RotateKey(ctx context.Context, tenant, keyRef string) (KeyInfo, error) {
	for range 3 {
		ck, err := k.lookup(ctx, tenant, keyRef)
		if err != nil {
			return KeyInfo{}, err
		}
		if ck.State == catalog.KeyDestroyed {
			return KeyInfo{}, fmt.Errorf("%w: %s", ErrDestroyed, keyRef)
		}
		v, err := k.sealTenant(ctx, tenant, ck.ID, ck.Version+1)
		if err != nil {
			return KeyInfo{}, err
		}
		err = k.store.AddKeyVersion(ctx, ck.ID, v)
		if errors.Is(err, catalog.ErrKeyExists) || errors.Is(err, catalog.ErrNoSuchKey) {
			// A rotation raced this one, the master version was retired,
			// or the key is gone: again, from what is stored now.
			k.Flush()
			continue
		}
		if err != nil {
			return KeyInfo{}, fromCatalog(err, keyRef)
		}
		k.Flush()
		ck.Version = v.Version
		return info(ck), nil
	}
	return KeyInfo{}, fmt.Errorf("kms: rotate %s: too many concurrent changes, try again", keyRef)
}

// ErrAliasExists: a tenant's live key already has that alias.
var ErrAliasExists = errors.New("kms: alias exists")

func (k *Keyring) SetKeyState(ctx context.Context, tenant, keyRef, state string) (KeyInfo, error) {
	switch state {
	case StateEnabled, StateDisabled, StateDestroyed:
	default:
		return KeyInfo{}, fmt.Errorf("kms: unknown key state %q (enabled, disabled or destroyed)", state)
	}
	ck, err := k.lookup(ctx, tenant, keyRef)
	if err != nil {
		return KeyInfo{}, err
	}
	if err := k.store.SetKeyState(ctx, ck.ID, state); err != nil {
		return KeyInfo{}, fromCatalog(err, keyRef)
	}
	k.Flush()
	ck.State = state
	return info(ck), nil
}

func (k *Keyring) DestroyTenantKeys(ctx context.Context, tenant string) error {
	cks, err := k.store.ListKeys(ctx, tenant)
	if err != nil {
		return fmt.Errorf("kms: destroy keys of %q: %w", tenant, err)
	}
	defer k.Flush()
	for _, ck := range cks {
		if err := k.store.SetKeyState(ctx, ck.ID, catalog.KeyDestroyed); err != nil {
			return fmt.Errorf("kms: destroy key %s of %q: %w", ck.ID, tenant, err)
		}
	}
	return nil
}
