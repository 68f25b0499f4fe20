package objects

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/iam/bucketpolicy"
)

// policyCache keeps parsed policies by their text and bucket, so that a
// request pays a map lookup, not a JSON parse.
type policyCache struct {
	mu sync.RWMutex
	m  map[[2]string]*bucketpolicy.Policy
}

// maxPolicies bounds the cache; past it the cache starts over.
const maxPolicies = 10_000

func (c *policyCache) parse(b catalog.Bucket) (*bucketpolicy.Policy, error) {
	if b.Policy == "" {
		return nil, nil
	}
	k := [2]string{b.Name, b.Policy}
	c.mu.RLock()
	p, ok := c.m[k]
	c.mu.RUnlock()
	if ok {
		return p, nil
	}
	p, err := bucketpolicy.Parse([]byte(b.Policy), b.Name)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) > maxPolicies {
		c.m = map[[2]string]*bucketpolicy.Policy{}
	}
	c.m[k] = p
	c.mu.Unlock()
	return p, nil
}

// PutBucketPolicy validates and stores a bucket's policy; a malformed one
// is refused with the reason.
func (s *Service) PutBucketPolicy(ctx context.Context, id *iam.Identity, bucket string, doc []byte) error {
	if _, err := s.bucket(ctx, id, bucket, "", "s3:PutBucketPolicy"); err != nil {
		return err
	}
	if _, err := bucketpolicy.Parse(doc, bucket); err != nil {
		var pe *bucketpolicy.Error
		if errors.As(err, &pe) {
			return errorf(ErrMalformedPolicy, pe.Reason)
		}
		return err
	}
	return s.setPolicy(ctx, bucket, string(doc))
}

// GetBucketPolicy returns the policy as it was stored.
func (s *Service) GetBucketPolicy(ctx context.Context, id *iam.Identity, bucket string) ([]byte, error) {
	b, err := s.bucket(ctx, id, bucket, "", "s3:GetBucketPolicy")
	if err != nil {
		return nil, err
	}
	if b.Policy == "" {
		return nil, ErrNoSuchBucketPolicy
	}
	return []byte(b.Policy), nil
}

// DeleteBucketPolicy removes the policy; removing none is no error, as S3.
func (s *Service) DeleteBucketPolicy(ctx context.Context, id *iam.Identity, bucket string) error {
	if _, err := s.bucket(ctx, id, bucket, "", "s3:DeleteBucketPolicy"); err != nil {
		return err
	}
	return s.setPolicy(ctx, bucket, "")
}

// BucketPolicyPublic reports whether the policy makes the bucket public.
func (s *Service) BucketPolicyPublic(ctx context.Context, id *iam.Identity, bucket string) (bool, error) {
	b, err := s.bucket(ctx, id, bucket, "", "s3:GetBucketPolicyStatus")
	if err != nil {
		return false, err
	}
	if b.Policy == "" {
		return false, ErrNoSuchBucketPolicy
	}
	p, err := s.policies.parse(b)
	if err != nil {
		return false, fmt.Errorf("objects: policy of %s: %w", bucket, err)
	}
	return p.IsPublic(), nil
}

func (s *Service) setPolicy(ctx context.Context, bucket, doc string) error {
	err := s.cat.SetBucketSetting(ctx, bucket, catalog.SettingPolicy, doc)
	if errors.Is(err, catalog.ErrNoSuchBucket) {
		return ErrNoSuchBucket
	}
	if err != nil {
		return fmt.Errorf("objects: set policy of %s: %w", bucket, err)
	}
	return nil
}
