package objects

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// bucketCache keeps bucket records with their parsed access settings, so
// that a request pays a map lookup, not a catalog read and a JSON parse.
// Entries are valid for the keyring's epoch they were loaded in: every
// change to a bucket (creation, deletion, settings) advances the catalog's
// identity generation, which moves every node's epoch within a second; the
// node making the change also drops the entry at once.
type bucketCache struct {
	mu sync.RWMutex
	m  map[string]cachedBucket
}

type cachedBucket struct {
	b      catalog.Bucket
	access *iam.BucketAccess
	epoch  uint64
}

// maxCachedBuckets bounds the cache; past it the cache starts over.
const maxCachedBuckets = 10_000

// getBucket returns bucket name with its access settings under the
// provider's block.
func (s *Service) getBucket(ctx context.Context, name string) (catalog.Bucket, *iam.BucketAccess, error) {
	return s.loadBucket(ctx, name, true)
}

// loadBucket is getBucket, from the cache when cached is true, else from
// the catalog (and then cached).
func (s *Service) loadBucket(ctx context.Context, name string, cached bool) (catalog.Bucket, *iam.BucketAccess, error) {
	c := &s.buckets
	epoch := s.tenants.Epoch() // before the read: a change after it invalidates what is read
	if cached {
		c.mu.RLock()
		e, ok := c.m[name]
		c.mu.RUnlock()
		s.hits.Lookup(ok && e.epoch == epoch)
		if ok && e.epoch == epoch {
			return e.b, e.access, nil
		}
	}
	b, err := s.cat.GetBucket(ctx, name)
	if errors.Is(err, catalog.ErrNoSuchBucket) {
		return b, nil, ErrNoSuchBucket
	}
	if err != nil {
		return b, nil, fmt.Errorf("objects: get bucket %s: %w", name, err)
	}
	a, err := iam.ParseAccess(b, s.block)
	if err != nil {
		return b, nil, fmt.Errorf("objects: %w", err)
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) > maxCachedBuckets {
		c.m = map[string]cachedBucket{}
	}
	c.m[name] = cachedBucket{b, a, epoch}
	c.mu.Unlock()
	return b, a, nil
}

// forget drops a bucket this node changed.
func (s *Service) forget(name string) {
	s.buckets.mu.Lock()
	delete(s.buckets.m, name)
	s.buckets.mu.Unlock()
}

// setSetting stores one access setting of a bucket.
func (s *Service) setSetting(ctx context.Context, bucket string, which catalog.Setting, value string) error {
	err := s.cat.SetBucketSetting(ctx, bucket, which, value)
	s.forget(bucket)
	if errors.Is(err, catalog.ErrNoSuchBucket) {
		return ErrNoSuchBucket
	}
	if err != nil {
		return fmt.Errorf("objects: set access setting of %s: %w", bucket, err)
	}
	return nil
}

// target is the object version a request acts on, read at most once:
// by the decision when the bucket's policy tests the object's tags or
// only its ACL can still allow the request, else by the operation.
type target struct {
	bucket, key, version string
	read                 bool
	o                    catalog.Object
	err                  error
}

// readTarget reads t's version from the catalog, once.
func (s *Service) readTarget(ctx context.Context, t *target) (catalog.Object, error) {
	if !t.read {
		t.o, t.err = s.cat.GetObject(ctx, t.bucket, t.key, t.version)
		t.read = true
	}
	return t.o, t.err
}

// bucketTarget loads bucket name and decides r on the object r.Key
// (version; "" = current), returning the object's target for the
// operation to read, which costs nothing more when the decision had to.
func (s *Service) bucketTarget(ctx context.Context, r iam.Request, name, version string) (catalog.Bucket, *iam.BucketAccess, *target, error) {
	t := &target{bucket: name, key: r.Key, version: version}
	b, a, err := s.getBucket(ctx, name)
	if err != nil {
		return b, a, t, err
	}
	return b, a, t, s.decideOn(ctx, r, b, a, t)
}
