package objects

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// A bucket's versioning states, as S3 names them. A bucket never
// versioned has none (""), and can never go back to it: versioning once
// enabled can only be suspended.
const (
	VersioningEnabled   = "Enabled"
	VersioningSuspended = "Suspended"
)

// Errors of versioning, as AWS names them.
var (
	// ErrMethodNotAllowed answers a read of a delete marker named by its
	// version id.
	ErrMethodNotAllowed = errors.New("method not allowed against a delete marker")
	// ErrVersioningLocked refuses to suspend versioning where object
	// lock is on (AWS's InvalidBucketState).
	ErrVersioningLocked = errors.New("versioning of an object lock bucket cannot change")
)

// newVersionID returns a fresh version id: random, so ids made on
// different nodes never collide, and URL-safe (the alphabet of AWS's own
// ids). Order comes from the catalog's commit order, not from the id.
func newVersionID() string {
	var raw [24]byte
	if _, err := rand.Read(raw[:]); err != nil {
		// crypto/rand does not fail on the platforms Go supports.
		panic(fmt.Sprintf("objects: version id: %v", err))
	}
	return base64.RawURLEncoding.EncodeToString(raw[:])
}

// versionFor is the version id a write into bucket b gets: a fresh one
// where versioning is enabled, else the null version, which the write
// replaces (in a suspended bucket, leaving the other versions, as S3).
func versionFor(b catalog.Bucket) string {
	if b.Versioning == VersioningEnabled {
		return newVersionID()
	}
	return catalog.NullVersion
}

// reported is o as a response describes it: S3 reports no version id for
// an object of a bucket that was never versioned, and "null" for the null
// version of one that was.
func reported(b catalog.Bucket, o catalog.Object) catalog.Object {
	if b.Versioning == "" {
		o.VersionID = ""
	}
	return o
}

// versionActions are the actions AWS asks for instead when a request
// names a version: a policy that allows s3:GetObject does not reach old
// versions, and one that denies s3:DeleteObjectVersion keeps them from
// being removed while deletes still write markers.
var versionActions = map[iam.Action]iam.Action{
	"s3:GetObject":    "s3:GetObjectVersion",
	"s3:DeleteObject": "s3:DeleteObjectVersion",
	"s3:GetObjectAcl": "s3:GetObjectVersionAcl",
	"s3:PutObjectAcl": "s3:PutObjectVersionAcl",

	"s3:GetObjectAttributes": "s3:GetObjectVersionAttributes",
}

// versionAction is the action a request on an object with versionID
// ("" = none named) is decided as.
func versionAction(a iam.Action, versionID string) iam.Action {
	if v, ok := versionActions[a]; ok && versionID != "" {
		return v
	}
	return a
}

// GetBucketVersioning returns a bucket's versioning state; "" for a
// bucket never versioned. MFA delete is never on.
func (s *Service) GetBucketVersioning(ctx context.Context, id *iam.Identity, bucket string) (string, error) {
	b, err := s.settings(ctx, id, bucket, "s3:GetBucketVersioning")
	if err != nil {
		return "", err
	}
	return b.Versioning, nil
}

// PutBucketVersioning enables or suspends versioning ("" leaves the
// state as it is). A bucket with object lock keeps versioning enabled,
// as on AWS.
func (s *Service) PutBucketVersioning(ctx context.Context, id *iam.Identity, bucket, status string) error {
	b, err := s.bucket(ctx, id, bucket, "", "s3:PutBucketVersioning")
	if err != nil {
		return err
	}
	switch status {
	case "":
		return nil
	case VersioningEnabled, VersioningSuspended:
	default:
		return errorf(ErrMalformedXML, "The XML you provided was not well-formed or did not validate against our published schema")
	}
	if status == VersioningSuspended && b.ObjectLock != "" {
		return errorf(ErrVersioningLocked, "An Object Lock configuration is present on this bucket, so the versioning state cannot be changed.")
	}
	if status == b.Versioning {
		return nil
	}
	return s.setSetting(ctx, bucket, catalog.SettingVersioning, status)
}

// removeObject is the one way a key's version leaves a bucket, for
// DeleteObject, DeleteObjects and the lifecycle job alike. With a
// version id it removes that version or delete marker for good. Without,
// it does what S3 does to the key as bucket b's versioning says: in an
// unversioned bucket it removes the null version; where versioning is
// enabled it writes a delete marker with a fresh id; where it is
// suspended, a delete marker that is the null version (replacing the
// null version, leaving the others). It returns what it removed or the
// marker it wrote; deleting what is not there succeeds and returns the
// target named, as S3. A version its object lock protects (opt may lift
// governance) is refused with AccessDenied, by the catalog.
func (s *Service) removeObject(ctx context.Context, c Change, b catalog.Bucket, key, versionID string, opt catalog.DeleteOptions) (catalog.Object, error) {
	c.Bucket = b
	if versionID == "" {
		if b.Versioning == "" {
			versionID = catalog.NullVersion
		} else {
			m := catalog.Object{Bucket: b.Name, Key: key, VersionID: versionFor(b), DeleteMarker: true,
				LastModified: time.Now().UTC(), Owner: b.Owner}
			c.Name, c.Object = markerEvent(c.Name), m
			events, err := s.observe(ctx, c)
			if err != nil {
				return m, err
			}
			if err := s.cat.PutObject(ctx, m, catalog.PutOptions{IfLatest: opt.IfLatest, Events: events}); err != nil {
				return m, commitErr(err, "write delete marker", m)
			}
			m.IsLatest = true
			return m, nil
		}
	}
	c.Object = catalog.Object{Bucket: b.Name, Key: key, VersionID: versionID}
	var err error
	if opt.Events, err = s.observe(ctx, c); err != nil {
		return c.Object, err
	}
	obj, err := s.cat.DeleteObject(ctx, b.Name, key, versionID, opt)
	if errors.Is(err, catalog.ErrNoSuchObject) {
		return catalog.Object{Bucket: b.Name, Key: key, VersionID: versionID}, nil
	}
	if errors.Is(err, catalog.ErrObjectLocked) {
		return obj, errLocked
	}
	if errors.Is(err, catalog.ErrPreconditionFailed) {
		return obj, ErrPreconditionFailed
	}
	if err != nil {
		return obj, fmt.Errorf("objects: delete %s/%s: %w", b.Name, key, err)
	}
	return obj, nil
}
