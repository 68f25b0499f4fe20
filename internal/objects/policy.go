package objects

import (
	"context"
	"errors"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/iam/bucketpolicy"
)

// PutBucketPolicy validates and stores a bucket's policy; a malformed one
// is refused with the reason.
func (s *Service) PutBucketPolicy(ctx context.Context, id *iam.Identity, bucket string, doc []byte) error {
	_, a, err := s.bucketFor(ctx, iam.Request{ID: id, Action: "s3:PutBucketPolicy"}, bucket, "")
	if err != nil {
		return err
	}
	p, err := bucketpolicy.Parse(doc, bucket)
	var pe *bucketpolicy.Error
	switch {
	case errors.As(err, &pe):
		return errorf(ErrMalformedPolicy, pe.Reason)
	case err != nil:
		return err
	case p.IsPublic() && a.Block.BlockPublicPolicy:
		// AWS refuses a public policy under BlockPublicPolicy with 403.
		return ErrAccessDenied
	}
	return s.setSetting(ctx, bucket, catalog.SettingPolicy, string(doc))
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
	return s.setSetting(ctx, bucket, catalog.SettingPolicy, "")
}

// BucketPolicyPublic reports whether the policy makes the bucket public.
func (s *Service) BucketPolicyPublic(ctx context.Context, id *iam.Identity, bucket string) (bool, error) {
	_, a, err := s.bucketFor(ctx, iam.Request{ID: id, Action: "s3:GetBucketPolicyStatus"}, bucket, "")
	if err != nil {
		return false, err
	}
	if a.Policy == nil {
		return false, ErrNoSuchBucketPolicy
	}
	return a.Policy.IsPublic(), nil
}
