package kms

import (
	"context"
	"time"
)

// Key states, as the admin API shows them.
const (
	StateEnabled   = "enabled"
	StateDisabled  = "disabled"
	StateDestroyed = "destroyed"
)

// KeyInfo is what an administrator sees of a tenant key; never its
// material.
type KeyInfo struct {
	ID      string    `json:"id"`
	Tenant  string    `json:"tenant"`
	Alias   string    `json:"alias,omitempty"` // without "alias/"
	State   string    `json:"state"`
	Created time.Time `json:"created"`
	// Versions is how many versions of the material there are (rotations
	// + 1); the newest wraps new data keys.
	Versions int  `json:"versions"`
	Default  bool `json:"default,omitempty"` // the tenant's own key (alias aws/s3)
}

// Manager is the administration of tenant keys, which both
// implementations offer. keyRef is anything ParseKeyRef reads, and names
// only the tenant's own keys.
type Manager interface {
	Keys
	ListKeys(ctx context.Context, tenant string) ([]KeyInfo, error)
	// CreateKey makes a named key (alias "" = none; else ValidAlias).
	CreateKey(ctx context.Context, tenant, alias string) (KeyInfo, error)
	// RotateKey makes a new version of the key's material, which wraps
	// data keys from then on; older versions still unwrap what they
	// wrapped.
	RotateKey(ctx context.Context, tenant, keyRef string) (KeyInfo, error)
	// SetKeyState enables, disables or destroys a key. Destroying is
	// for good: what the key wrapped can never be read again.
	SetKeyState(ctx context.Context, tenant, keyRef, state string) (KeyInfo, error)
	// DestroyTenantKeys destroys every key of the tenant
	// (crypto-shredding, before the tenant is deleted).
	DestroyTenantKeys(ctx context.Context, tenant string) error
}
