package catalog

import (
	"context"
	"errors"
	"time"
)

// States of a tenant key (package kms). Only an enabled key wraps or
// unwraps; a destroyed one has no material left and never comes back.
const (
	KeyEnabled   = "enabled"
	KeyDisabled  = "disabled"
	KeyDestroyed = "destroyed"
)

var (
	ErrNoSuchKey = errors.New("catalog: no such key")
	// ErrKeyExists: the id, or the tenant's name (alias) of a live key,
	// is taken; or a key or master version of that number exists.
	ErrKeyExists = errors.New("catalog: key exists")
	// ErrKeyDestroyed: a destroyed key's state cannot change.
	ErrKeyDestroyed = errors.New("catalog: key destroyed")
)

// TenantKey is a tenant key's record. Its material is held only sealed (by the
// master key of MasterVersion, package kms), one sealed secret per
// version; a key an external KMS holds has no versions here.
type TenantKey struct {
	ID     string // random, AWS's key id form; unique across tenants
	Tenant string // "" for the provider
	// Name is the key's alias without "alias/" ("" = none), unique among
	// the tenant's keys that are not destroyed.
	Name    string
	State   string // KeyEnabled, KeyDisabled or KeyDestroyed
	Created time.Time
	// Versions, oldest first; the last is the one that wraps new data
	// keys. GetKey and KeyByName fill them, ListKeys does not (Version
	// says how many there are); a destroyed key has none.
	Versions []KeyVersion
	Version  int // the newest version's number (0: none)
}

// KeyVersion is one version of a tenant key's material, sealed.
type KeyVersion struct {
	Version       int // 1, 2, ...
	Sealed        []byte
	MasterVersion int // the master key version Sealed is sealed by
	Created       time.Time
}

// MasterKey is one version of the provider's master key, sealed by the
// node key.
type MasterKey struct {
	Version int
	Sealed  []byte
	Created time.Time
}

// KeyStore holds tenant keys (sealed) and master key versions. Every
// change advances the identity generation, so that nodes drop the keys
// they cache (as they drop credentials).
type KeyStore interface {
	// CreateKey stores a key with its versions (k.Version is taken from
	// them). ErrKeyExists if its id is taken, or its name by another of
	// the tenant's keys that is not destroyed.
	CreateKey(ctx context.Context, k TenantKey) error
	// GetKey returns the key of that id, versions included; ErrNoSuchKey.
	GetKey(ctx context.Context, id string) (TenantKey, error)
	// KeyByName returns the tenant's live (not destroyed) key of that
	// name, versions included; ErrNoSuchKey.
	KeyByName(ctx context.Context, tenant, name string) (TenantKey, error)
	// ListKeys returns the tenant's keys, destroyed ones too, by
	// creation, without versions.
	ListKeys(ctx context.Context, tenant string) ([]TenantKey, error)
	// SetKeyState enables or disables a key; KeyDestroyed deletes every
	// version's material in the same transaction, for good.
	// ErrNoSuchKey; ErrKeyDestroyed for a key already destroyed (except
	// destroying it again, which is a no-op).
	SetKeyState(ctx context.Context, id, state string) error
	// AddKeyVersion appends v to a live key (rotation): v.Version must be
	// the key's Version+1, else ErrKeyExists (another rotation won).
	AddKeyVersion(ctx context.Context, id string, v KeyVersion) error
	// ResealKeyVersion replaces a version's sealed material with sealed
	// (sealed by master version masterVersion), if it is still sealed by
	// fromMaster: a master key rotation. It reports whether it did.
	ResealKeyVersion(ctx context.Context, id string, version int, sealed []byte, masterVersion, fromMaster int) (bool, error)
	// KeysSealedBefore returns up to limit versions of live keys sealed
	// by a master version older than master, for a re-seal.
	KeysSealedBefore(ctx context.Context, master, limit int) ([]KeyRef, error)

	// MasterKeys returns every master key version, oldest first.
	MasterKeys(ctx context.Context) ([]MasterKey, error)
	// AddMasterKey stores a new master version; ErrKeyExists if that
	// version exists (another node made it first).
	AddMasterKey(ctx context.Context, m MasterKey) error
	// DeleteMasterKey removes a master version no key version is sealed
	// by any longer; ErrKeyExists if one still is.
	DeleteMasterKey(ctx context.Context, version int) error
}

// KeyRef names one version of a tenant key.
type KeyRef struct {
	ID      string
	Version int
}
