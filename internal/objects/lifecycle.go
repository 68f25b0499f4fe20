package objects

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/lifecycle"
)

// ErrNoSuchLifecycleConfiguration: the bucket has no lifecycle rules.
var ErrNoSuchLifecycleConfiguration = errors.New("no such lifecycle configuration")

// lifecycleState is the service's part of lifecycle: the length of a day
// and the configurations parsed from buckets' settings, by their
// encoding, so that x-amz-expiration costs a map lookup per request.
type lifecycleState struct {
	day    time.Duration
	mu     sync.Mutex
	parsed map[string]*lifecycle.Configuration
}

// maxParsedLifecycles bounds the cache of parsed configurations; past
// it, the cache starts again.
const maxParsedLifecycles = 1024

func (l *lifecycleState) config(encoded string) *lifecycle.Configuration {
	if encoded == "" {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if c, ok := l.parsed[encoded]; ok {
		return c
	}
	c, err := lifecycle.Decode(encoded)
	if err != nil {
		return nil // the stored setting is Encode's; the worker logs a bad one
	}
	if l.parsed == nil || len(l.parsed) >= maxParsedLifecycles {
		l.parsed = map[string]*lifecycle.Configuration{}
	}
	l.parsed[encoded] = c
	return c
}

// LifecycleDay is how long a lifecycle day lasts on this node.
func (s *Service) LifecycleDay() time.Duration {
	if s.lc.day > 0 {
		return s.lc.day
	}
	return lifecycle.Day
}

// GetBucketLifecycle returns a bucket's lifecycle configuration;
// ErrNoSuchLifecycleConfiguration when it has none.
func (s *Service) GetBucketLifecycle(ctx context.Context, id *iam.Identity, bucket string) (*lifecycle.Configuration, error) {
	b, err := s.settings(ctx, id, bucket, "s3:GetLifecycleConfiguration")
	if err != nil {
		return nil, err
	}
	c, err := lifecycle.Decode(b.Lifecycle)
	if err != nil {
		return nil, fmt.Errorf("objects: lifecycle of %s: %w", bucket, err)
	}
	if c == nil {
		return nil, ErrNoSuchLifecycleConfiguration
	}
	return c, nil
}

// PutBucketLifecycle replaces a bucket's lifecycle configuration, which
// the caller has parsed (lifecycle.Parse validates it as AWS does).
func (s *Service) PutBucketLifecycle(ctx context.Context, id *iam.Identity, bucket string, c *lifecycle.Configuration) error {
	b, err := s.bucket(ctx, id, bucket, "", "s3:PutLifecycleConfiguration")
	if err != nil {
		return err
	}
	if err := c.Validate(); err != nil {
		return err
	}
	if err := s.transitionsPlaced(ctx, b, c); err != nil {
		return err
	}
	return s.setSetting(ctx, bucket, catalog.SettingLifecycle, c.Encode())
}

// DeleteBucketLifecycle removes a bucket's lifecycle rules; AWS
// authorizes it as s3:PutLifecycleConfiguration.
func (s *Service) DeleteBucketLifecycle(ctx context.Context, id *iam.Identity, bucket string) error {
	if _, err := s.bucket(ctx, id, bucket, "", "s3:PutLifecycleConfiguration"); err != nil {
		return err
	}
	return s.setSetting(ctx, bucket, catalog.SettingLifecycle, "")
}

// Expiration is the x-amz-expiration value of a current version: when
// the bucket's rules will expire it, and by which rule; "" when none
// will. It reads the cached bucket, so a request pays a lookup.
func (s *Service) Expiration(ctx context.Context, o catalog.Object) string {
	if o.DeleteMarker {
		return ""
	}
	// The request has just looked the bucket up: peek at the cache, so
	// that the cache's hit count stays one per request.
	c := &s.buckets
	epoch := s.tenants.Epoch()
	c.mu.RLock()
	e, ok := c.m[o.Bucket]
	c.mu.RUnlock()
	b := e.b
	if !ok || e.epoch != epoch {
		var err error
		if b, _, err = s.getBucket(ctx, o.Bucket); err != nil {
			return ""
		}
	}
	if b.Lifecycle == "" {
		return ""
	}
	at, id, ok := s.lc.config(b.Lifecycle).Expiry(o.Key, o.Size, o.Meta.Tags, o.LastModified, s.LifecycleDay())
	if !ok {
		return ""
	}
	return lifecycle.ExpirationHeader(at, id)
}

// LifecycleRemove removes what a lifecycle rule has made due: with
// current, version o as DeleteObject without a version id does (a delete
// marker in a versioned bucket), only while o is still current; else
// version o for good. The catalog refuses a locked version.
func (s *Service) LifecycleRemove(ctx context.Context, b catalog.Bucket, o catalog.Object, current bool) (catalog.Object, error) {
	// No governance bypass: lifecycle never removes a locked version.
	opt, version := catalog.DeleteOptions{}, o.VersionID
	if current {
		// The rule judged o from a listing; a version written since is
		// not the one that expired.
		opt.IfLatest, version = &o, ""
	}
	obj, err := s.removeObject(ctx, Change{Name: EventExpirationDelete}, b, o.Key, version, opt)
	switch {
	case err == errLocked || errors.Is(err, catalog.ErrObjectLocked):
		return obj, fmt.Errorf("%w: %w", lifecycle.ErrLocked, err)
	case errors.Is(err, ErrPreconditionFailed):
		return obj, fmt.Errorf("%w: %w", lifecycle.ErrChanged, err)
	}
	return obj, err
}
