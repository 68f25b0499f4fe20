package catalog

import (
	"context"
	"errors"
	"time"
)

// ErrNoSuchPublication is returned for a published catalog the catalog
// does not hold.
var ErrNoSuchPublication = errors.New("catalog: no such publication")

// Publication is a bucket, or a prefix of it, that a tenant publishes as
// a content library (VMware's VCSP format: package vcsp), with the index
// documents the leased indexer last generated for it.
type Publication struct {
	Tenant, Name string // the library's name in its tenant, and in its URL
	Bucket       string
	Prefix       string // "" or ending in "/": the library's root in the bucket
	Description  string
	// User and PasswordHash protect the library with basic auth (the
	// hash as iam.HashPassword makes it); both "" = anyone may read it.
	User, PasswordHash string
	// LibraryID is the library's urn:uuid, fixed when it is first
	// published, so that subscribers keep recognising it.
	LibraryID string
	Created   time.Time
	// Version counts the index's changes (lib.json's version), Digest
	// is that of the objects it was generated from, and Indexed the time
	// it was; 0, "" and zero until the indexer first runs, and Digest ""
	// again whenever the settings change, so that it runs again.
	Version int64
	Digest  string
	Indexed time.Time
}

// PublicationDoc is one generated index document of a publication, by
// its path under the library's root ("lib.json", "items.json",
// "<item>/item.json").
type PublicationDoc struct {
	Path string
	Body []byte
}

// Publications keeps published content libraries and their generated
// index documents (apart from the bucket, so that no tenant write can
// replace them and they count against no quota).
type Publications interface {
	// PutPublication creates a publication, or changes an existing one's
	// bucket, prefix, description and protection; an existing one keeps
	// its LibraryID, Created, Version and documents, and its Digest is
	// cleared.
	PutPublication(ctx context.Context, p Publication) error
	// GetPublication returns one (ErrNoSuchPublication).
	GetPublication(ctx context.Context, tenant, name string) (Publication, error)
	// ListPublications returns a tenant's publications by name ("" =
	// every tenant's, by tenant and name).
	ListPublications(ctx context.Context, tenant string) ([]Publication, error)
	// DeletePublication removes one and its documents (ErrNoSuchPublication).
	DeletePublication(ctx context.Context, tenant, name string) error
	// SetPublicationIndex replaces a publication's documents, Version,
	// Digest and Indexed in one transaction, provided its Digest is
	// still prevDigest (else ErrPreconditionFailed: its settings changed
	// meanwhile). ErrNoSuchPublication once it is gone.
	SetPublicationIndex(ctx context.Context, tenant, name, prevDigest string, version int64, digest string, indexed time.Time, docs []PublicationDoc) error
	// PublicationDoc returns one document (ErrNoSuchObject if absent).
	PublicationDoc(ctx context.Context, tenant, name, path string) ([]byte, error)
}
