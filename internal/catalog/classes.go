package catalog

import "context"

// StandardClass is the storage class of a version written without one.
const StandardClass = "STANDARD"

// Classes is the catalog's part for storage classes: a tenant's own map
// of classes to platforms, a version's move to another class (and
// platform), and what each class stores.
type Classes interface {
	// SetTenantStorageClasses changes the tenant's map of storage classes
	// to platforms (as package storageclass encodes it; "" = the
	// provider's applies). ErrNoSuchTenant if absent.
	SetTenantStorageClasses(ctx context.Context, name, classes string) error
	// MoveVersion switches version from (as it was read, with its Parts
	// and Inline) to class, its bytes now in parts (nil: kept where they
	// are: in its row, or in blobs already on the class's platform), in one
	// transaction: only while the version is still as it was read (same
	// modification time and blobs), else ErrPreconditionFailed;
	// ErrNoSuchObject once it is gone. The blobs it replaces are queued
	// for collection in the same transaction; its lock, metadata and
	// place among its key's versions are kept. Events are queued with the
	// switch, in its transaction (a lifecycle transition's notification).
	MoveVersion(ctx context.Context, from Object, parts []Part, class string, events ...Event) error
	// ClassUsage is what bucket stores per storage class (STANDARD's
	// being the bucket's total less the others); TenantClassUsage the
	// same over a tenant's buckets ("" = the provider's).
	ClassUsage(ctx context.Context, bucket string) (map[string]Usage, error)
	TenantClassUsage(ctx context.Context, tenant string) (map[string]Usage, error)
}

// ProviderStorageClasses names the provider-wide map of storage classes
// to platforms set through the admin API (a ProviderSettings value, as
// package storageclass encodes it), over the nodes' storage_classes.
const ProviderStorageClasses = "storage_classes"
