package objects

import (
	"context"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// DeleteObject removes a key (or one version of it) as removeObject
// does, and returns what it removed or the delete marker it wrote, as a
// response reports it (reported). As in S3, deleting a key that does not
// exist succeeds. A version its object lock protects is refused with
// AccessDenied, to everyone; bypass (the caller's
// x-amz-bypass-governance-retention) lifts a GOVERNANCE retention if the
// caller also has s3:BypassGovernanceRetention.
func (s *Service) DeleteObject(ctx context.Context, id *iam.Identity, bucket, key, versionID string, bypass bool) (catalog.Object, error) {
	b, a, err := s.bucketFor(ctx, iam.Request{ID: id, Action: versionAction("s3:DeleteObject", versionID), Key: key}, bucket, "")
	if err != nil {
		return catalog.Object{}, err
	}
	opt, err := s.mayBypass(ctx, id, b, a, key, bypass)
	if err != nil {
		return catalog.Object{}, err
	}
	obj, err := s.removeObject(ctx, Change{Name: EventDelete, Identity: id}, b, key, versionID, opt)
	if err != nil {
		return obj, err
	}
	return reported(b, obj), nil
}

// DeleteTarget names one object of a DeleteObjects request.
type DeleteTarget struct{ Key, VersionID string }

// DeleteResult is the outcome for one target; Err is nil on success.
// DeleteMarker is set when the target removed a delete marker or wrote
// one, whose id is then DeleteMarkerVersionID, as S3 reports them.
type DeleteResult struct {
	DeleteTarget
	DeleteMarker          bool
	DeleteMarkerVersionID string
	Err                   error
}

// MaxDeleteKeys is S3's limit on keys per DeleteObjects request.
const MaxDeleteKeys = 1000

// DeleteObjects removes up to MaxDeleteKeys objects, reporting each. As
// on AWS, each key is authorized on its own (s3:DeleteObject on
// bucket/key, s3:DeleteObjectVersion for a version), exactly as
// DeleteObject would be: a key the caller may not delete gets
// AccessDenied in its result and the others are still deleted. The
// bucket is read once, so every key is judged under the same settings. A
// locked version gets AccessDenied in its result, as DeleteObject would
// answer; bypass is asked for the whole request.
func (s *Service) DeleteObjects(ctx context.Context, id *iam.Identity, bucket string, targets []DeleteTarget, bypass bool) ([]DeleteResult, error) {
	b, a, err := s.getBucket(ctx, bucket)
	if err != nil {
		return nil, err
	}
	if len(targets) == 0 || len(targets) > MaxDeleteKeys {
		return nil, errorf(ErrMalformedXML, "The XML you provided was not well-formed or did not validate against our published schema")
	}
	out := make([]DeleteResult, len(targets))
	for i, t := range targets {
		out[i].DeleteTarget = t
		err := s.decide(ctx, iam.Request{ID: id, Action: versionAction("s3:DeleteObject", t.VersionID), Key: t.Key}, b, a, t.VersionID)
		var opt catalog.DeleteOptions
		if err == nil {
			opt, err = s.mayBypass(ctx, id, b, a, t.Key, bypass)
		}
		if err != nil {
			out[i].Err = err
			continue
		}
		obj, err := s.removeObject(ctx, Change{Name: EventDelete, Identity: id}, b, t.Key, t.VersionID, opt)
		if err != nil {
			out[i].Err = err
			continue
		}
		if obj.DeleteMarker {
			out[i].DeleteMarker, out[i].DeleteMarkerVersionID = true, reported(b, obj).VersionID
		}
	}
	return out, nil
}
