// Package objects is the object service: S3 semantics (buckets, objects,
// multipart uploads, copies, listings) over a catalog and a blob store. It
// owns the write protocol: bytes go to a fresh blob and are made durable
// first, then one catalog transaction makes them visible. Nothing here knows
// about HTTP.
package objects

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/blob"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/kms"
	"github.com/ostiumio/ostium/internal/metrics"
	"github.com/ostiumio/ostium/internal/objectlock"
	"github.com/ostiumio/ostium/internal/storageclass"
)

// Service implements S3 semantics. Its methods authorize the caller
// themselves, so every front end (S3, admin, console) decides alike.
type Service struct {
	cat     catalog.Store
	blobs   blob.Store
	region  string
	tenants Tenants
	// block is the provider's public access block, over every bucket's.
	block   iam.PublicAccessBlock
	buckets bucketCache
	hits    *metrics.Cache // of bucket lookups
	lc      lifecycleState
	// sseDefault is the provider's default encryption of new objects.
	sseDefault EncryptionRule
	// legacyDefaults: new buckets are ObjectWriter and unblocked.
	legacyDefaults bool
	keys           kms.Keys // data keys of encryption at rest; nil: SSE-C only
	observers      []Observer
	// classes maps storage classes to platforms on this node, under the
	// provider's and tenants' maps (classes.go).
	classes storageclass.Map
}

// Tenants tells whether a tenant is suspended, where its blobs go and
// what its quotas are (*iam.Keyring, cached); its epoch dates the
// service's cached buckets.
type Tenants interface {
	TenantSuspended(ctx context.Context, tenant string) (bool, error)
	TenantPlatform(ctx context.Context, tenant string) (string, error)
	Quotas(ctx context.Context, tenant string) ([]catalog.Quota, error)
	Epoch() uint64
}

// placer is a blob store of several platforms (*platform.Set): it makes
// ids that name the platform and namespace a blob goes to, and says how
// large an object each platform leaves in the catalog row.
type placer interface {
	NewID(platform, ns string) string
	InlineMax(platform string) int64
}

// placement says where bucket b's new blobs of a storage class go: on
// the class's platform when it has one (classes.go), else on the
// bucket's platform, else its tenant's, else the node's default; and the
// largest object kept in its catalog row instead.
type placement struct {
	platform  string
	inlineMax int64
}

func (s *Service) placement(ctx context.Context, b catalog.Bucket, class string) (placement, error) {
	p, ok := s.blobs.(placer)
	if !ok {
		return placement{inlineMax: InlineMax}, nil
	}
	if platform, ok, err := s.classPlatform(ctx, b.Tenant, class); err != nil || ok {
		return placement{platform, min(p.InlineMax(platform), InlineMax)}, err
	}
	platform := b.Platform
	if platform == "" && b.Tenant != "" {
		var err error
		if platform, err = s.tenants.TenantPlatform(ctx, b.Tenant); err != nil {
			return placement{}, fmt.Errorf("objects: platform of %s: %w", b.Tenant, err)
		}
	}
	return placement{platform, min(p.InlineMax(platform), InlineMax)}, nil
}

// newBlobID names a fresh blob of bucket b where pl says, in the
// tenant's namespace.
func (s *Service) newBlobID(pl placement, b catalog.Bucket) string {
	if p, ok := s.blobs.(placer); ok {
		return p.NewID(pl.platform, b.Tenant)
	}
	return blob.NewID()
}

// limits returns the quotas a write to bucket b must stay within.
func (s *Service) limits(ctx context.Context, b catalog.Bucket) (catalog.Limits, error) {
	l := catalog.Limits{Tenant: b.Tenant}
	if b.Tenant == "" {
		return l, nil
	}
	qs, err := s.tenants.Quotas(ctx, b.Tenant)
	if err != nil {
		return l, fmt.Errorf("objects: quotas: %w", err)
	}
	for _, q := range qs {
		switch q.Bucket {
		case "":
			l.TenantBytes, l.TenantObjects = q.MaxBytes, q.MaxObjects
		case b.Name:
			l.BucketBytes, l.BucketObjects = q.MaxBytes, q.MaxObjects
		}
	}
	return l, nil
}

// Options are a Service's provider-wide settings.
type Options struct {
	Region string // "" = us-east-1
	// BlockPublicAccess puts every bucket under a block of all public
	// access, whatever its own settings.
	BlockPublicAccess bool
	// BucketCache counts the bucket cache's hits (nil: none).
	BucketCache *metrics.Cache
	// LifecycleDay is how long a lifecycle day lasts (0 = 24 h; shorter
	// only in tests).
	LifecycleDay time.Duration
	// DefaultEncryption is the provider's default encryption of new
	// objects, under tenants' and buckets' defaults (zero: none).
	DefaultEncryption EncryptionRule
	// LegacyBucketDefaults gives new buckets the defaults AWS had before
	// 2023 and Ceph RGW keeps (ObjectWriter, no public access block)
	// instead of BucketOwnerEnforced and a block of all public access.
	LegacyBucketDefaults bool
	// Keys wraps the data keys of SSE-S3 and SSE-KMS (nil: only SSE-C,
	// whose key the client brings, is possible).
	Keys kms.Keys
	// Observers see every change to objects (observe.go).
	Observers []Observer
	// StorageClasses maps storage classes to platforms, under the maps
	// the provider and tenants set through the admin API.
	StorageClasses storageclass.Map
}

// New returns a Service storing metadata in cat and bytes in blobs.
func New(cat catalog.Store, blobs blob.Store, tenants Tenants, o Options) *Service {
	s := &Service{cat: cat, blobs: blobs, tenants: tenants, region: o.Region, hits: o.BucketCache, legacyDefaults: o.LegacyBucketDefaults, keys: o.Keys, observers: o.Observers}
	s.lc.day = o.LifecycleDay
	s.sseDefault = o.DefaultEncryption
	s.classes = o.StorageClasses
	if s.region == "" {
		s.region = "us-east-1"
	}
	if o.BlockPublicAccess {
		s.block = iam.BlockAll
	}
	return s
}

// Region is the region the service reports for its buckets.
func (s *Service) Region() string { return s.region }

// bucket loads a bucket and checks that id may perform action on it (on
// key in it, when not "").
func (s *Service) bucket(ctx context.Context, id *iam.Identity, name, key string, action iam.Action) (catalog.Bucket, error) {
	b, _, err := s.bucketFor(ctx, iam.Request{ID: id, Action: action, Key: key}, name, "")
	return b, err
}

// settings is bucket for a read of a bucket's configuration: it reads the
// bucket from the catalog, not the node's cache, so that a client that
// changed a setting through one node and reads it back through another
// gets what it stored. (Other nodes' caches drop within moments of the
// change; AWS documents bucket configuration as eventually consistent,
// but a read-back is what tools and tests do right after a write.)
func (s *Service) settings(ctx context.Context, id *iam.Identity, name string, action iam.Action) (catalog.Bucket, error) {
	b, _, err := s.freshBucketFor(ctx, iam.Request{ID: id, Action: action}, name)
	return b, err
}

// freshBucketFor is bucketFor with the bucket read from the catalog.
func (s *Service) freshBucketFor(ctx context.Context, r iam.Request, name string) (catalog.Bucket, *iam.BucketAccess, error) {
	b, a, err := s.loadBucket(ctx, name, false)
	if err != nil {
		return b, a, err
	}
	return b, a, s.decide(ctx, r, b, a, "")
}

// bucketFor loads bucket name and decides r on it; when only the ACL of
// the object (version; "" = current) can still allow r, it reads that too.
func (s *Service) bucketFor(ctx context.Context, r iam.Request, name, version string) (catalog.Bucket, *iam.BucketAccess, error) {
	b, a, err := s.getBucket(ctx, name)
	if err != nil {
		return b, a, err
	}
	return b, a, s.decide(ctx, r, b, a, version)
}

// decide decides r on bucket b (with its access settings a), reading the
// object (version; "" = current) when only its ACL can still allow r, or
// when the policy tests its tags. Every object action passes its key in
// r, so that statements on bucket/prefix/* and the object's ACL count: a
// batch (DeleteObjects) calls it once per object.
func (s *Service) decide(ctx context.Context, r iam.Request, b catalog.Bucket, a *iam.BucketAccess, version string) error {
	return s.decideOn(ctx, r, b, a, &target{bucket: b.Name, key: r.Key, version: version})
}

// decideOn is decide on a target that the caller may read in turn (or
// has read), so that the object is read at most once.
func (s *Service) decideOn(ctx context.Context, r iam.Request, b catalog.Bucket, a *iam.BucketAccess, t *target) error {
	r.Bucket, r.Access, r.Origin = &b, a, iam.OriginOf(ctx)
	if r.Key != "" && r.ObjectTags == nil && (a.ReadsObjectTags(r.Action) || r.ID.ReadsObjectTags(r.Action)) {
		o, err := s.readTarget(ctx, t)
		if err != nil && !errors.Is(err, catalog.ErrNoSuchObject) {
			return fmt.Errorf("objects: tags of %s/%s: %w", b.Name, r.Key, err)
		}
		if err == nil && !o.DeleteMarker {
			r.ObjectTags = o.Meta.Tags
		}
	}
	err := s.authorize(ctx, r)
	if errors.Is(err, iam.ErrNeedObjectACL) {
		o, oerr := s.readTarget(ctx, t)
		switch {
		case errors.Is(oerr, catalog.ErrNoSuchObject) || oerr == nil && o.DeleteMarker:
			return ErrAccessDenied // no more is told to who may not read
		case oerr != nil:
			return fmt.Errorf("objects: ACL of %s/%s: %w", b.Name, r.Key, oerr)
		}
		acl, aerr := objectACL(a, b, o)
		if aerr != nil {
			return aerr
		}
		r.ObjectACL = &acl
		err = s.authorize(ctx, r)
	}
	return err
}

// authorize fills in the bucket's tenant status (and the request's
// origin, for an action on no bucket) and decides r.
func (s *Service) authorize(ctx context.Context, r iam.Request) error {
	if r.Origin == (iam.Origin{}) {
		r.Origin = iam.OriginOf(ctx)
	}
	if r.Bucket != nil && r.Bucket.Tenant != "" {
		suspended, err := s.tenants.TenantSuspended(ctx, r.Bucket.Tenant)
		if err != nil {
			return fmt.Errorf("objects: authorize: %w", err)
		}
		r.BucketSuspended = suspended
	}
	switch err := iam.Authorize(r); {
	case errors.Is(err, iam.ErrNeedObjectACL):
		return err
	case err != nil:
		return ErrAccessDenied
	}
	return nil
}

// ReservedBuckets are taken by the node's own paths: the admin API
// (/admin/v1), the health checks (/health/ready), the metrics
// ReservedBuckets are taken by the node's own paths: the admin API
// (/admin/v1), the health checks (/health/ready), the metrics
// (/metrics), published content libraries (/catalogs/), the OSIS API
// (/osis/, when the node serves it), and the web console's /console/:
// the console has a listener of its own, but the name stays taken, so
// that no bucket of that name can be confused with it where a balancer
// maps both on one host name.
var ReservedBuckets = []string{"admin", "health", "metrics", "console", "catalogs", "osis"}

// BucketInput describes CreateBucket.
type BucketInput struct {
	Name, Region string
	ACL          iam.ACLSpec
	// Ownership is the object ownership asked for; "" = BucketOwnerEnforced.
	Ownership string
	// ObjectLock creates the bucket with object lock, and so with
	// versioning Enabled for good (x-amz-bucket-object-lock-enabled).
	ObjectLock bool
}

// CreateBucket creates a bucket owned by id. As on AWS, a new bucket has
// ACLs disabled (BucketOwnerEnforced) unless asked otherwise, and blocks
// all public access until its owner lifts the block; under the
// provider's legacy defaults it is ObjectWriter and unblocked instead.
func (s *Service) CreateBucket(ctx context.Context, id *iam.Identity, in BucketInput) error {
	if err := s.authorize(ctx, iam.Request{ID: id, Action: iam.ActionCreateBucket, BucketName: in.Name}); err != nil {
		return err
	}
	if err := ValidBucketName(in.Name); err != nil {
		return err
	}
	if slices.Contains(ReservedBuckets, in.Name) {
		return ErrBucketAlreadyExists
	}
	var err error
	if in.ACL, err = s.resolve(ctx, in.ACL); err != nil {
		return err
	}
	b := catalog.Bucket{Name: in.Name, Owner: id.CanonicalID, Tenant: id.Tenant, Region: in.Region, CreatedAt: time.Now().UTC()}
	if b.Region == "" {
		b.Region = s.region
	}
	if err := newBucketSettings(&b, in, s.legacyDefaults, s.block); err != nil {
		return err
	}
	err = s.cat.CreateBucket(ctx, b)
	s.forget(in.Name)
	if errors.Is(err, catalog.ErrBucketExists) {
		if b, gerr := s.cat.GetBucket(ctx, in.Name); gerr == nil && b.Owner == id.CanonicalID {
			return ErrBucketAlreadyOwned
		}
		return ErrBucketAlreadyExists
	}
	if err != nil {
		return fmt.Errorf("objects: create bucket %s: %w", in.Name, err)
	}
	return nil
}

// newBucketSettings fills in a new bucket's ownership, public access
// block and ACL, refusing the ACLs those forbid as AWS does. legacy
// chooses the defaults from before 2023: ObjectWriter and no block, so a
// canned public-read ACL or a public policy is taken as Ceph RGW takes
// it; the provider's own block (provider) still refuses one.
func newBucketSettings(b *catalog.Bucket, in BucketInput, legacy bool, provider iam.PublicAccessBlock) error {
	b.Ownership, b.PublicAccessBlock = in.Ownership, iam.EncodePAB(iam.BlockAll)
	if legacy {
		b.PublicAccessBlock = ""
	}
	if in.ObjectLock {
		b.Versioning, b.ObjectLock = VersioningEnabled, objectlock.Config{Enabled: true}.Encode()
	}
	switch in.Ownership {
	case "":
		b.Ownership = iam.OwnerEnforced
		if legacy {
			b.Ownership = iam.ObjectWriter
		}
	case iam.OwnerEnforced, iam.OwnerPreferred, iam.ObjectWriter:
	default:
		return errorf(ErrInvalidArgument, "Invalid x-amz-object-ownership header: "+in.Ownership)
	}
	if !in.ACL.Stated() {
		return nil
	}
	acl, err := in.ACL.Resolve(b.Owner, "")
	switch {
	case err != nil:
		return errorf(ErrInvalidArgument, err.Error())
	case acl.OnlyOwner(b.Owner):
	case b.Ownership == iam.OwnerEnforced:
		return ErrInvalidBucketACLWithOwnership
	case acl.Public() && iam.DecodePAB(b.PublicAccessBlock).Or(provider).BlockPublicACLs:
		return ErrInvalidBucketACLWithBlock
	}
	b.ACL = iam.EncodeACL(acl)
	return nil
}

// HeadBucket returns the bucket if id may see it.
//
// Whether the bucket exists is read from the catalog, as its settings are
// (see settings): a client that deleted or made it through another node
// a moment ago gets what it did.
func (s *Service) HeadBucket(ctx context.Context, id *iam.Identity, name string) (catalog.Bucket, error) {
	return s.settings(ctx, id, name, "s3:ListBucket")
}

// DeleteBucket deletes an empty bucket.
func (s *Service) DeleteBucket(ctx context.Context, id *iam.Identity, name string) error {
	if _, err := s.bucket(ctx, id, name, "", "s3:DeleteBucket"); err != nil {
		return err
	}
	err := s.cat.DeleteBucket(ctx, name)
	s.forget(name)
	switch {
	case errors.Is(err, catalog.ErrBucketNotEmpty):
		return ErrBucketNotEmpty
	case errors.Is(err, catalog.ErrNoSuchBucket):
		return ErrNoSuchBucket
	case err != nil:
		return fmt.Errorf("objects: delete bucket %s: %w", name, err)
	}
	return nil
}

// ListBuckets lists the buckets id may see (iam.VisibleBuckets).
func (s *Service) ListBuckets(ctx context.Context, id *iam.Identity) ([]catalog.Bucket, error) {
	if err := s.authorize(ctx, iam.Request{ID: id, Action: iam.ActionListAllMyBuckets}); err != nil {
		return nil, err
	}
	f, only := iam.VisibleBuckets(id)
	bs, err := s.cat.ListBuckets(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("objects: list buckets: %w", err)
	}
	if only != nil {
		bs = slices.DeleteFunc(bs, func(b catalog.Bucket) bool { return !slices.Contains(only, b.Name) })
	}
	return bs, nil
}

// ValidBucketName applies AWS's naming rules for general purpose buckets.
func ValidBucketName(name string) error {
	bad := func(why string) error {
		return errorf(ErrInvalidBucketName, "The specified bucket is not valid: "+why)
	}
	if len(name) < 3 || len(name) > 63 {
		return bad("length must be between 3 and 63")
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			return bad("only lower-case letters, digits, '.' and '-' are allowed")
		}
	}
	first, last := name[0], name[len(name)-1]
	if first == '.' || first == '-' || last == '.' || last == '-' {
		return bad("must begin and end with a letter or digit")
	}
	if strings.Contains(name, "..") || strings.Contains(name, ".-") || strings.Contains(name, "-.") {
		return bad("no adjacent periods, or period next to a hyphen")
	}
	if net.ParseIP(name) != nil {
		return bad("must not be formatted as an IP address")
	}
	for _, p := range []string{"xn--", "sthree-", "amzn-s3-demo-"} {
		if strings.HasPrefix(name, p) {
			return bad("must not start with " + p)
		}
	}
	for _, sfx := range []string{"-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3"} {
		if strings.HasSuffix(name, sfx) {
			return bad("must not end with " + sfx)
		}
	}
	return nil
}

// deleteBlobs removes blobs that were written but will never be committed.
// Failure is only logged: the sweeper removes what is left.
func (s *Service) deleteBlobs(ctx context.Context, ids ...string) {
	ctx = context.WithoutCancel(ctx)
	for _, id := range ids {
		if id == "" { // an inline payload has no blob
			continue
		}
		if err := s.blobs.Delete(ctx, id); err != nil {
			slog.Warn("delete uncommitted blob", "blob", id, "err", err)
		}
	}
}
