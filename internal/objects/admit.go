package objects

import (
	"context"
	"errors"
	"hash"
	"path"
	"strings"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// Admission is what a front end knows of a request before reading its
// body: who asks, for what action, on which bucket and key.
type Admission struct {
	ID     *iam.Identity // nil: anonymous
	Action iam.Action
	Bucket string // "" for CreateBucket
	// NewBucket is the bucket CreateBucket would create, which a policy's
	// Resource may name.
	NewBucket string
	// Key is the object acted on; "" for bucket actions and for batches
	// whose keys are in the body (DeleteObjects).
	Key string
	// Version is the object version acted on ("" = current).
	Version string
	// ExpectedOwner is x-amz-expected-bucket-owner, if sent.
	ExpectedOwner string
}

// Admit decides, before a request's body is read, whether the request
// could be allowed, so that a caller who may not write a bucket cannot
// make the node read (and hold) what it sends. The service decides
// again, per object, once the body is read: Admit never allows what the
// service would refuse, it only refuses early what the service would
// refuse anyway. It also holds the request to its expected bucket
// owner, as AWS does (403 when the owner differs).
func (s *Service) Admit(ctx context.Context, a Admission) error {
	if a.Bucket == "" {
		err := s.authorize(ctx, iam.Request{ID: a.ID, Action: a.Action, BucketName: a.NewBucket})
		if errors.Is(err, ErrAccessDenied) && a.ID.MayAllow(a.Action, "") {
			err = nil // a policy naming the new bucket may allow it
		}
		return err
	}
	tagging := a.Action == "s3:PutObjectTagging"
	if tagging {
		a.Action = TaggingAction(a.Action, a.Version)
	}
	b, acc, err := s.bucketFor(ctx, iam.Request{ID: a.ID, Action: a.Action, Key: a.Key}, a.Bucket, a.Version)
	if errors.Is(err, ErrAccessDenied) && acc != nil && (policyMayAllow(a.ID, acc, a.Action) ||
		a.ID.MayAllow(a.Action, a.Bucket) || tagging && acc.TestsRequestTags()) {
		// A statement (of the bucket's policy or the caller's) on
		// bucket/prefix/* (for the keys of a batch), or one whose
		// conditions only the body's handling states (the tags of
		// PutObjectTagging's document), may still allow it or no
		// longer deny it: read the body and let the service decide.
		err = nil
	}
	if err != nil {
		return err
	}
	return ExpectOwner(b, a.ExpectedOwner)
}

// ExpectOwner refuses a request whose x-amz-expected-bucket-owner names
// another account than bucket b's: its tenant (AWS's account), or for
// the provider's own buckets, the owner's canonical id.
func ExpectOwner(b catalog.Bucket, expected string) error {
	if expected == "" {
		return nil
	}
	owner := b.Tenant
	if owner == "" {
		owner = b.Owner
	}
	if expected != owner {
		return ErrAccessDenied
	}
	return nil
}

// BucketOwner checks x-amz-expected-bucket-owner (or the copy source's)
// against bucket name for a request that has no body to admit. A caller
// who may not see the bucket learns nothing: both answers are 403.
func (s *Service) BucketOwner(ctx context.Context, name, expected string) error {
	if expected == "" {
		return nil
	}
	b, _, err := s.getBucket(ctx, name)
	if errors.Is(err, ErrNoSuchBucket) {
		return nil // the request itself will say so
	}
	if err != nil {
		return err
	}
	return ExpectOwner(b, expected)
}

// policyMayAllow reports whether a bucket policy could allow the caller
// action on some object or under some condition although it does not
// on what Admit knows: an Allow statement whose actions may cover it
// and whose principal may be the caller (everyone, for an anonymous
// one). It errs towards reading the body.
func policyMayAllow(id *iam.Identity, a *iam.BucketAccess, action iam.Action) bool {
	if a.Policy == nil {
		return false
	}
	for _, st := range a.Policy.Statements {
		if !st.Allow || !actionMayMatch(st.Action, st.NotAction, string(action)) {
			continue
		}
		if id != nil || st.NotPrincipal != nil || st.Principal != nil && st.Principal.Everyone {
			return true
		}
	}
	return false
}

// actionMayMatch reports whether a statement's Action (or NotAction)
// may cover action; a pattern it cannot read counts as covering it.
func actionMayMatch(actions, notActions []string, action string) bool {
	if actions == nil {
		return true // NotAction: leave it to the service
	}
	action = strings.ToLower(action)
	for _, p := range actions {
		if ok, err := path.Match(strings.ToLower(p), action); ok || err != nil {
			return true
		}
	}
	return false
}

// UploadChecksumType returns the checksum type (COMPOSITE, FULL_OBJECT
// or "") of an open upload, for a CompleteMultipartUpload that states
// the type it expects.
func (s *Service) UploadChecksumType(ctx context.Context, id *iam.Identity, bucket, key, uploadID string) (string, error) {
	u, _, err := s.upload(ctx, id, bucket, key, uploadID, "s3:PutObject")
	return u.ChecksumType, err
}

// NewChecksum returns a hash of a checksum algorithm S3 knows (CRC32,
// CRC32C, CRC64NVME, SHA1, SHA256), or nil.
func NewChecksum(algo string) hash.Hash {
	if f, ok := checksumAlgorithms[algo]; ok {
		return f()
	}
	return nil
}
