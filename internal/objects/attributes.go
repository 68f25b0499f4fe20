package objects

import (
	"context"
	"fmt"
	"strings"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// AttributesInput describes GetObjectAttributes: the version, and the page
// of parts (those numbered above PartNumberMarker, at most MaxParts).
type AttributesInput struct {
	Bucket, Key, VersionID string
	MaxParts               int
	PartNumberMarker       int
	// CustomerKey is the SSE-C key, which an SSE-C version's attributes
	// need, as its bytes do (AWS's errors for none, another, or one a
	// version that is not SSE-C does not take); it opens its checksums.
	CustomerKey []byte
}

// Attributes is what GetObjectAttributes tells of a version.
type Attributes struct {
	Object catalog.Object
	// PartsCount is the number of parts of a multipart object, 0 for one
	// written whole (which has no ObjectParts on AWS).
	PartsCount int
	// Parts is the page asked for. AWS lists parts only for objects
	// with additional checksums, since their part checksums are what a
	// client wants them for; otherwise it is empty.
	Parts                []catalog.Part
	Truncated            bool
	NextPartNumberMarker int
}

// GetObjectAttributes reads a version's metadata for GetObjectAttributes.
// As on AWS it needs both s3:GetObject and s3:GetObjectAttributes (with a
// version id, s3:GetObjectVersion and s3:GetObjectVersionAttributes).
func (s *Service) GetObjectAttributes(ctx context.Context, id *iam.Identity, in AttributesInput) (Attributes, error) {
	req := iam.Request{ID: id, Action: versionAction("s3:GetObject", in.VersionID), Key: in.Key}
	b, access, t, err := s.bucketTarget(ctx, req, in.Bucket, in.VersionID)
	if err != nil {
		return Attributes{}, err
	}
	req.Action = versionAction("s3:GetObjectAttributes", in.VersionID)
	if err := s.decideOn(ctx, req, b, access, t); err != nil {
		return Attributes{}, err
	}
	// A delete marker fails as GetObject fails on it, and is returned
	// for the headers S3 sends with the error.
	obj, err := s.lookup(ctx, t)
	obj = reported(b, obj)
	if err != nil {
		return Attributes{Object: obj}, err
	}
	dk, err := s.dataKey(ctx, b, obj.Key, obj.Meta.Encryption, in.CustomerKey, false)
	if err != nil {
		return Attributes{Object: obj}, err
	}
	if obj, err = openChecksums(obj, dk); err != nil {
		return Attributes{Object: obj}, err
	}
	a := Attributes{Object: obj}
	_, suffix, multipart := strings.Cut(strings.Trim(obj.ETag, `"`), "-")
	if !multipart {
		return a, nil
	}
	if _, err := fmt.Sscanf(suffix, "%d", &a.PartsCount); err != nil {
		return a, fmt.Errorf("objects: parts count of %s/%s from ETag %s: %w", in.Bucket, in.Key, obj.ETag, err)
	}
	if len(obj.Meta.Checksums) == 0 {
		return a, nil
	}
	for _, p := range obj.Parts {
		if p.Number <= in.PartNumberMarker {
			continue
		}
		if len(a.Parts) == in.MaxParts {
			a.Truncated = true
			break
		}
		a.Parts = append(a.Parts, p)
		a.NextPartNumberMarker = p.Number
	}
	return a, nil
}
