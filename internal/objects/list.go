package objects

import (
	"context"
	"fmt"
	"strconv"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// MaxKeys is S3's cap on entries per listing page.
const MaxKeys = 1000

// ListInput describes ListObjects (V1 and V2) and ListObjectVersions.
type ListInput struct {
	Bucket, Prefix, Delimiter string
	// Marker: resume after this key (V1 marker, V2 start-after or
	// continuation token, versions key-marker).
	Marker        string
	VersionMarker string // versions only
	MaxKeys       int
}

// ListOutput is one page of a listing.
type ListOutput struct {
	Objects        []catalog.Object
	CommonPrefixes []string
	Truncated      bool
	// NextMarker is the last key or common prefix returned;
	// NextVersionMarker the last version's id when the last entry was one.
	NextMarker, NextVersionMarker string
}

func clampKeys(n int) int {
	if n < 0 || n > MaxKeys {
		return MaxKeys
	}
	return n
}

// request is the access decision a listing asks for, with the condition
// keys a bucket policy may test (s3:prefix is "" when none was given).
func (in ListInput) request(id *iam.Identity, action iam.Action) iam.Request {
	c := map[string][]string{"s3:prefix": {in.Prefix}}
	if in.Delimiter != "" {
		c["s3:delimiter"] = []string{in.Delimiter}
	}
	if in.MaxKeys >= 0 {
		c["s3:max-keys"] = []string{strconv.Itoa(in.MaxKeys)}
	}
	return iam.Request{ID: id, Action: action, Conditions: c}
}

// ListObjects lists the current objects of a bucket.
func (s *Service) ListObjects(ctx context.Context, id *iam.Identity, in ListInput) (ListOutput, error) {
	if _, _, err := s.bucketFor(ctx, in.request(id, "s3:ListBucket"), in.Bucket, ""); err != nil {
		return ListOutput{}, err
	}
	f, err := fold(in.Prefix, in.Delimiter, clampKeys(in.MaxKeys), cursor[catalog.Object]{start: in.Marker},
		func(o catalog.Object) string { return o.Key },
		func(c cursor[catalog.Object], limit int) ([]catalog.Object, error) {
			q := catalog.ListQuery{Prefix: in.Prefix, Start: c.start, Inclusive: c.inclusive, Limit: limit}
			if c.after != nil {
				q.Start, q.Inclusive = c.after.Key, false
			}
			return s.cat.ListObjects(ctx, in.Bucket, q)
		})
	if err != nil {
		return ListOutput{}, fmt.Errorf("objects: list %s: %w", in.Bucket, err)
	}
	return ListOutput{Objects: f.items, CommonPrefixes: f.prefixes, Truncated: f.truncated, NextMarker: f.last}, nil
}

// ListVersions lists every version and delete marker of a bucket.
func (s *Service) ListVersions(ctx context.Context, id *iam.Identity, in ListInput) (ListOutput, error) {
	if _, _, err := s.bucketFor(ctx, in.request(id, "s3:ListBucketVersions"), in.Bucket, ""); err != nil {
		return ListOutput{}, err
	}
	start := cursor[catalog.Object]{start: in.Marker}
	if in.Marker != "" && in.VersionMarker != "" {
		start = cursor[catalog.Object]{after: &catalog.Object{Key: in.Marker, VersionID: in.VersionMarker}}
	}
	f, err := fold(in.Prefix, in.Delimiter, clampKeys(in.MaxKeys), start,
		func(o catalog.Object) string { return o.Key },
		func(c cursor[catalog.Object], limit int) ([]catalog.Object, error) {
			q := catalog.VersionQuery{Prefix: in.Prefix, Start: c.start, Inclusive: c.inclusive, Limit: limit}
			if c.after != nil {
				q.KeyMarker, q.VersionMarker = c.after.Key, c.after.VersionID
			}
			return s.cat.ListVersions(ctx, in.Bucket, q)
		})
	if err != nil {
		return ListOutput{}, fmt.Errorf("objects: list versions %s: %w", in.Bucket, err)
	}
	out := ListOutput{Objects: f.items, CommonPrefixes: f.prefixes, Truncated: f.truncated, NextMarker: f.last}
	if f.lastItem != nil {
		out.NextVersionMarker = f.lastItem.VersionID
	}
	return out, nil
}
