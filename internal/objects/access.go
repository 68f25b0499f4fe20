package objects

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// accessCache keeps each bucket's parsed access settings, so that a
// request pays a map lookup and a comparison with the stored text, not a
// JSON parse. The catalog's record stays the truth: an entry is used only
// while its text equals what the request read.
type accessCache struct {
	mu sync.RWMutex
	m  map[string]accessEntry
}

type accessEntry struct {
	settings catalog.Settings
	access   *iam.BucketAccess
}

// maxCachedBuckets bounds the cache; past it the cache starts over.
const maxCachedBuckets = 10_000

// access returns b's parsed settings under the provider's block.
func (s *Service) access(b catalog.Bucket) (*iam.BucketAccess, error) {
	c := &s.accessCache
	c.mu.RLock()
	e, ok := c.m[b.Name]
	c.mu.RUnlock()
	if ok && e.settings == b.Settings {
		return e.access, nil
	}
	a, err := iam.ParseAccess(b, s.block)
	if err != nil {
		return nil, fmt.Errorf("objects: %w", err)
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) > maxCachedBuckets {
		c.m = map[string]accessEntry{}
	}
	c.m[b.Name] = accessEntry{b.Settings, a}
	c.mu.Unlock()
	return a, nil
}

// setSetting stores one access setting of a bucket.
func (s *Service) setSetting(ctx context.Context, bucket string, which catalog.Setting, value string) error {
	err := s.cat.SetBucketSetting(ctx, bucket, which, value)
	if errors.Is(err, catalog.ErrNoSuchBucket) {
		return ErrNoSuchBucket
	}
	if err != nil {
		return fmt.Errorf("objects: set access setting of %s: %w", bucket, err)
	}
	return nil
}
