package objects

import (
	"context"
)

// ReadPublished opens the current version of a key for a subscriber of a
// content library tenant published (package vcsp), which decided already
// that the key is in the library: there is no caller identity to
// authorize, and the bucket's policy and ACLs, which speak of S3
// principals, do not apply. The bucket must still be tenant's (else
// ErrNoSuchBucket: a bucket deleted and made again by another tenant is
// not the one published). As GetObject otherwise: a range, conditions,
// head skips the bytes; an SSE-C object, whose key only its writer has,
// fails with ErrCustomerKeyRequired.
func (s *Service) ReadPublished(ctx context.Context, tenant, bucket, key string, rng *ByteRange, cond Conditions, head bool) (*Reader, error) {
	b, _, err := s.getBucket(ctx, bucket)
	if err != nil {
		return nil, err
	}
	if b.Tenant != tenant {
		return nil, ErrNoSuchBucket
	}
	obj, err := s.lookup(ctx, &target{bucket: bucket, key: key})
	obj = reported(b, obj)
	if err != nil {
		return nil, err
	}
	if err := cond.check(obj, true); err != nil {
		return &Reader{Object: obj}, err
	}
	dk, err := s.dataKey(ctx, b, obj.Key, obj.Meta.Encryption, nil, !head)
	if err != nil {
		return nil, err
	}
	if obj, err = openChecksums(obj, dk); err != nil {
		return nil, err
	}
	r := &Reader{Object: obj, Ranged: rng != nil}
	if r.Start, r.Length, err = resolveRange(rng, obj.Size); err != nil {
		return r, err
	}
	if !head {
		if r.Body, err = s.open(ctx, obj, dk, r.Start, r.Length); err != nil {
			return nil, err
		}
	}
	return r, nil
}
