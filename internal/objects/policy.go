package objects

import (
	"context"
	"errors"
	"fmt"

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
	ids, err := s.bindPrincipals(ctx, p)
	if err != nil {
		return err
	}
	return s.setSetting(ctx, bucket, catalog.SettingPolicy, iam.EncodePolicy(doc, ids))
}

// bindPrincipals resolves the tenants and users a policy names to their
// canonical ids now (see iam.EncodePolicy). As AWS, a principal that
// does not exist makes the policy invalid.
func (s *Service) bindPrincipals(ctx context.Context, p *bucketpolicy.Policy) (map[string]string, error) {
	invalid := errorf(ErrMalformedPolicy, "Invalid principal in policy")
	ids := map[string]string{}
	for _, name := range p.AWSPrincipals() {
		tenant, user, ok := iam.PolicyPrincipal(name)
		if !ok {
			return nil, invalid
		}
		var id string
		var err error
		if user == "" {
			var t catalog.Tenant
			t, err = s.cat.GetTenant(ctx, tenant)
			id = t.CanonicalID
		} else {
			var u catalog.User
			u, err = s.cat.GetUser(ctx, tenant, user)
			id = u.CanonicalID
		}
		switch {
		case errors.Is(err, catalog.ErrNoSuchTenant) || errors.Is(err, catalog.ErrNoSuchUser):
			return nil, invalid
		case err != nil:
			return nil, fmt.Errorf("objects: policy principal %s: %w", name, err)
		}
		ids[name] = id
	}
	return ids, nil
}

// GetBucketPolicy returns the policy document as it was given.
func (s *Service) GetBucketPolicy(ctx context.Context, id *iam.Identity, bucket string) ([]byte, error) {
	b, err := s.settings(ctx, id, bucket, "s3:GetBucketPolicy")
	if err != nil {
		return nil, err
	}
	if b.Policy == "" {
		return nil, ErrNoSuchBucketPolicy
	}
	doc, _ := iam.DecodePolicy(b.Policy)
	return doc, nil
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
	_, a, err := s.freshBucketFor(ctx, iam.Request{ID: id, Action: "s3:GetBucketPolicyStatus"}, bucket)
	if err != nil {
		return false, err
	}
	if a.Policy == nil {
		return false, ErrNoSuchBucketPolicy
	}
	return a.Policy.IsPublic(), nil
}
