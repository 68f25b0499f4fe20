package objects

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// Headroom is what a bucket stores and may still store: the quotas its
// writes are held to and the running totals the quota check reads in
// each write's transaction (not the hourly storage sample), so a reader
// sees what the next write will be judged on.
type Headroom struct {
	Bucket catalog.Bucket
	Limits catalog.Limits
	// BucketUsage is the bucket's; TenantUsage its tenant's, read only
	// when a tenant quota bounds the bucket.
	BucketUsage, TenantUsage catalog.Usage
}

// Computed is an object the endpoint computes on each read instead of
// storing it (Veeam's SOSAPI documents).
type Computed struct {
	Body        []byte
	ContentType string
	// Missing: there is no such object for this bucket now (NoSuchKey).
	Missing bool
}

// ReadComputed reads a computed object as GetObject reads a stored one:
// decided as s3:GetObject of in.Key (so policies, ACLs, presigned URLs
// and public access apply alike), with GetObject's conditions, ranges
// and part numbers. compute makes the object from the bucket's
// headroom. The object is dated now and tagged with its MD5: it is the
// bucket's state at the moment of the read, and a conditional read on
// its ETag is exact. It has only the null version.
func (s *Service) ReadComputed(ctx context.Context, id *iam.Identity, in GetInput, head bool, compute func(Headroom) Computed) (*Reader, error) {
	req := iam.Request{ID: id, Action: versionAction("s3:GetObject", in.VersionID), Key: in.Key}
	b, _, _, err := s.bucketTarget(ctx, req, in.Bucket, in.VersionID)
	if err != nil {
		return nil, err
	}
	if in.VersionID != "" && in.VersionID != catalog.NullVersion {
		return nil, errorf(ErrNoSuchVersion, "The specified version does not exist.")
	}
	h, err := s.headroom(ctx, b)
	if err != nil {
		return nil, err
	}
	c := compute(h)
	if c.Missing {
		return nil, errorf(ErrNoSuchKey, "The specified key does not exist.")
	}
	sum := md5.Sum(c.Body)
	obj := catalog.Object{Bucket: b.Name, Key: in.Key, VersionID: catalog.NullVersion, IsLatest: true,
		Size: int64(len(c.Body)), ETag: `"` + hex.EncodeToString(sum[:]) + `"`,
		LastModified: time.Now().UTC().Truncate(time.Second), StorageClass: "STANDARD", Owner: b.Owner}
	obj.Meta.ContentType = c.ContentType
	if err := in.Cond.check(obj, true); err != nil {
		return &Reader{Object: obj}, err
	}
	r := &Reader{Object: obj}
	if err := r.selectBytes(in); err != nil {
		return r, err
	}
	if !head {
		r.Body = io.NopCloser(bytes.NewReader(c.Body[r.Start : r.Start+r.Length]))
	}
	return r, nil
}

// headroom reads bucket b's quotas and current usage.
func (s *Service) headroom(ctx context.Context, b catalog.Bucket) (Headroom, error) {
	h := Headroom{Bucket: b}
	var err error
	if h.Limits, err = s.limits(ctx, b); err != nil {
		return h, err
	}
	if h.BucketUsage, err = s.cat.BucketUsage(ctx, b.Name); err != nil {
		return h, fmt.Errorf("objects: usage of %s: %w", b.Name, err)
	}
	if h.Limits.TenantBytes > 0 {
		if h.TenantUsage, err = s.cat.TenantUsage(ctx, b.Tenant); err != nil {
			return h, fmt.Errorf("objects: usage of %s: %w", b.Tenant, err)
		}
	}
	return h, nil
}
