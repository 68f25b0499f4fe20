package objects

import (
	"context"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// GetBucketOwnership returns a bucket's object ownership setting.
func (s *Service) GetBucketOwnership(ctx context.Context, id *iam.Identity, bucket string) (string, error) {
	b, err := s.settings(ctx, id, bucket, "s3:GetBucketOwnershipControls")
	if err != nil {
		return "", err
	}
	if b.Ownership == "" {
		return "", ErrNoOwnershipControls
	}
	return b.Ownership, nil
}

// PutBucketOwnership sets a bucket's object ownership ("" removes the
// setting, as DeleteBucketOwnershipControls). ACLs cannot be disabled
// while the bucket's ACL grants anyone but its owner, as AWS.
func (s *Service) PutBucketOwnership(ctx context.Context, id *iam.Identity, bucket, ownership string) error {
	b, a, err := s.bucketFor(ctx, iam.Request{ID: id, Action: "s3:PutBucketOwnershipControls"}, bucket, "")
	if err != nil {
		return err
	}
	switch ownership {
	case "", iam.ObjectWriter, iam.OwnerPreferred:
	case iam.OwnerEnforced:
		if !a.ACL.OnlyOwner(b.Owner) {
			return ErrInvalidBucketACLWithOwnership
		}
	default:
		return errorf(ErrMalformedXML, "ObjectOwnership must be BucketOwnerEnforced, BucketOwnerPreferred or ObjectWriter")
	}
	return s.setSetting(ctx, bucket, catalog.SettingOwnership, ownership)
}

// GetPublicAccessBlock returns the bucket's own public access block (the
// provider's is not part of it).
func (s *Service) GetPublicAccessBlock(ctx context.Context, id *iam.Identity, bucket string) (iam.PublicAccessBlock, error) {
	b, err := s.settings(ctx, id, bucket, "s3:GetBucketPublicAccessBlock")
	if err != nil {
		return iam.PublicAccessBlock{}, err
	}
	if b.PublicAccessBlock == "" {
		return iam.PublicAccessBlock{}, ErrNoSuchPublicAccessBlock
	}
	return iam.DecodePAB(b.PublicAccessBlock), nil
}

// PutPublicAccessBlock sets (nil: removes) the bucket's public access
// block.
func (s *Service) PutPublicAccessBlock(ctx context.Context, id *iam.Identity, bucket string, p *iam.PublicAccessBlock) error {
	if _, err := s.bucket(ctx, id, bucket, "", "s3:PutBucketPublicAccessBlock"); err != nil {
		return err
	}
	v := ""
	if p != nil {
		v = iam.EncodePAB(*p)
	}
	return s.setSetting(ctx, bucket, catalog.SettingPublicAccessBlock, v)
}
