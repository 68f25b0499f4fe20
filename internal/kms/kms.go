// Package kms is Ostium's key service: the provider's master key, a key
// per tenant (and named keys a tenant creates for SSE-KMS), and the data
// keys that encrypt objects, each wrapped by a tenant key. Object bytes
// are encrypted under a data key (package sse); only the wrapped data key
// is stored, with the object's catalog row, so rotating a tenant or master
// key re-wraps data keys and never re-encrypts bytes, and destroying a
// tenant key makes its objects unreadable.
//
// Implementations: the built-in keyring (tenant keys sealed under the
// master key in the catalog) and an external KMS a provider runs. Neither
// ever gives the catalog a key in the clear.
package kms

import (
	"context"
	"errors"
)

// Errors every implementation returns; callers test them with errors.Is.
var (
	// ErrNoSuchKey: the key id names no key of the tenant (S3's
	// KMS.NotFoundException, 400).
	ErrNoSuchKey = errors.New("kms: no such key")
	// ErrKeyDisabled: the key exists and may not be used now.
	ErrKeyDisabled = errors.New("kms: key disabled")
	// ErrDestroyed: the key was destroyed; what it wrapped is gone for
	// good (crypto-shredding).
	ErrDestroyed = errors.New("kms: key destroyed")
	// ErrUnavailable: the KMS cannot answer now; the request gets 503
	// with Retry-After and nothing is written.
	ErrUnavailable = errors.New("kms: unavailable")
	// ErrUnwrap: a wrapped key that does not open under its key and
	// context (altered, or another object's).
	ErrUnwrap = errors.New("kms: wrapped key does not open")
)

// DataKeySize is the size of a data key: AES-256.
const DataKeySize = 32

// DataKey is a fresh data key. Plain encrypts one object (or one
// multipart upload's parts) and is never stored; Wrapped is, with the
// object's catalog row.
type DataKey struct {
	KeyID   string // the tenant key that wraps it, as to be stored
	Plain   []byte
	Wrapped []byte
}

// Keys wraps and unwraps data keys under tenants' keys. context binds a
// wrapped key to what it encrypts (the object's identity, and for SSE-KMS
// the client's encryption context): Unwrap with another context fails
// with ErrUnwrap.
type Keys interface {
	// DefaultKey returns the id of the tenant's own key, which SSE-S3
	// uses, creating it on first use.
	DefaultKey(ctx context.Context, tenant string) (string, error)
	// NewDataKey makes a data key wrapped by the tenant's key keyID.
	NewDataKey(ctx context.Context, tenant, keyID string, context []byte) (DataKey, error)
	// Unwrap opens a data key wrapped by NewDataKey (or re-wrapped since).
	Unwrap(ctx context.Context, tenant, keyID string, wrapped, context []byte) ([]byte, error)
}
