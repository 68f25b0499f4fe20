package objects

import (
	"context"
	"errors"

	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/iam/bucketpolicy"
)

// Explain decides r (its caller, action, key and condition keys) on
// bucket ("" for an action on no bucket) exactly as a request is
// decided: the bucket is read with its policy, ACL, ownership and
// public access block under the provider's, and the object's tags and
// ACL when the decision needs them, by the path every operation takes.
// It answers the decision with every statement and grant that applied
// (iam.Explain); an error only when the decision could not be made.
func (s *Service) Explain(ctx context.Context, r iam.Request, bucket string) (iam.Explanation, error) {
	var t bucketpolicy.Trace
	r.Trace = &t
	var err error
	if bucket == "" {
		err = s.authorize(ctx, r)
	} else {
		b, a, lerr := s.loadBucket(ctx, bucket, false)
		if lerr != nil {
			return iam.Explanation{}, lerr
		}
		err = s.decide(ctx, r, b, a, "")
	}
	if err != nil && !errors.Is(err, ErrAccessDenied) && !errors.Is(err, iam.ErrNeedObjectACL) {
		return iam.Explanation{}, err
	}
	return iam.Explained(err, &t), nil
}
