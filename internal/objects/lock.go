package objects

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/objectlock"
)

// Errors of object lock, as AWS names them.
var (
	ErrNoObjectLockConfiguration = errors.New("no object lock configuration")
	ErrNoSuchObjectLock          = errors.New("object has no object lock configuration")
	ErrInvalidBucketState        = errors.New("invalid bucket state")
	// ErrInvalidRetentionPeriod: a default retention of zero or fewer
	// days or years.
	ErrInvalidRetentionPeriod = errors.New("invalid retention period")
)

// ActionBypassGovernance is the permission a governance bypass needs
// besides the header that asks for it.
const ActionBypassGovernance = iam.ActionBypassGovernanceRetention

// errLocked is AWS's answer to a removal a lock refuses: to everyone,
// the bucket's owner and the provider included.
var errLocked = errorf(ErrAccessDenied, "Access Denied because object protected by object lock.")

// errNoLockConfig is AWS's answer to lock settings in a bucket without
// object lock.
var errNoLockConfig = errorf(ErrInvalidRequest, "Bucket is missing Object Lock Configuration")

// lockErr maps the rules' and the catalog's refusals to AWS's answers.
func lockErr(err error) error {
	var inv *objectlock.Invalid
	switch {
	case err == nil:
		return nil
	case errors.Is(err, catalog.ErrObjectLocked), errors.Is(err, objectlock.ErrLocked):
		return errLocked
	case errors.As(err, &inv) && inv.Period:
		return errorf(ErrInvalidRetentionPeriod, inv.Message)
	case errors.As(err, &inv):
		return errorf(ErrInvalidArgument, inv.Message)
	}
	return err
}

// lockConfig is bucket b's object lock configuration (Enabled false for
// a bucket without lock).
func lockConfig(b catalog.Bucket) (objectlock.Config, error) {
	c, err := objectlock.Decode(b.ObjectLock)
	if err != nil {
		return c, fmt.Errorf("objects: bucket %s: %w", b.Name, err)
	}
	return c, nil
}

// LockRequest is the object lock a write asks for (x-amz-object-lock-*
// headers); zero Mode and Until: no retention given, nil LegalHold: no
// legal hold given.
type LockRequest struct {
	Mode      objectlock.Mode
	Until     time.Time
	LegalHold *bool
}

// Given reports whether the write named any lock setting.
func (r *LockRequest) Given() bool {
	return r != nil && (r.Mode != "" || !r.Until.IsZero() || r.LegalHold != nil)
}

// newLock is the lock a new version in bucket b gets, made at now: what
// the write asks for, else the bucket's default retention. A request in
// a bucket without object lock is refused, as AWS.
func newLock(b catalog.Bucket, r *LockRequest, now time.Time) (catalog.Lock, error) {
	c, err := lockConfig(b)
	if err != nil {
		return catalog.Lock{}, err
	}
	if !c.Enabled {
		if r.Given() {
			return catalog.Lock{}, errNoLockConfig
		}
		return catalog.Lock{}, nil
	}
	var l catalog.Lock
	if r != nil && (r.Mode != "" || !r.Until.IsZero()) {
		if err := objectlock.ValidRetention(objectlock.Retention{Mode: r.Mode, Until: r.Until}, now); err != nil {
			return l, lockErr(err)
		}
		l.Mode, l.RetainUntil = r.Mode, r.Until.UTC()
	} else if c.HasDefault() {
		l.Mode, l.RetainUntil = c.DefaultMode, c.DefaultUntil(now)
	}
	if r != nil && r.LegalHold != nil {
		l.LegalHold = *r.LegalHold
	}
	return l, nil
}

// mayBypass reports whether id may bypass governance retention on
// bucket/key: asked for, it also needs s3:BypassGovernanceRetention,
// which a tenant admin and the bucket's owner have as an AWS account's
// root user has it, and a policy may grant.
func (s *Service) mayBypass(ctx context.Context, id *iam.Identity, b catalog.Bucket, a *iam.BucketAccess, key string, asked bool) (catalog.DeleteOptions, error) {
	if !asked {
		return catalog.DeleteOptions{}, nil
	}
	err := s.decide(ctx, iam.Request{ID: id, Action: ActionBypassGovernance, Key: key}, b, a, "")
	switch {
	case err == nil:
		return catalog.DeleteOptions{BypassGovernance: true}, nil
	case errors.Is(err, ErrAccessDenied):
		return catalog.DeleteOptions{}, nil
	}
	return catalog.DeleteOptions{}, err
}

// GetObjectLockConfiguration returns a bucket's object lock
// configuration; ErrNoObjectLockConfiguration for a bucket without lock.
func (s *Service) GetObjectLockConfiguration(ctx context.Context, id *iam.Identity, bucket string) (objectlock.Config, error) {
	b, err := s.settings(ctx, id, bucket, "s3:GetBucketObjectLockConfiguration")
	if err != nil {
		return objectlock.Config{}, err
	}
	c, err := lockConfig(b)
	if err == nil && !c.Enabled {
		err = errorf(ErrNoObjectLockConfiguration, "Object Lock configuration does not exist for this bucket")
	}
	return c, err
}

// PutObjectLockConfiguration sets a bucket's default retention, or turns
// object lock on for a bucket whose versioning is Enabled (as AWS
// allows); lock, once on, never goes off.
func (s *Service) PutObjectLockConfiguration(ctx context.Context, id *iam.Identity, bucket string, c objectlock.Config) error {
	b, err := s.bucket(ctx, id, bucket, "", "s3:PutBucketObjectLockConfiguration")
	if err != nil {
		return err
	}
	if err := c.Validate(); err != nil {
		var inv *objectlock.Invalid
		if errors.As(err, &inv) && !c.Enabled {
			return errorf(ErrMalformedXML, "The XML you provided was not well-formed or did not validate against our published schema")
		}
		return lockErr(err)
	}
	cur, err := lockConfig(b)
	if err != nil {
		return err
	}
	if !cur.Enabled && b.Versioning != VersioningEnabled {
		return errorf(ErrInvalidBucketState, "Versioning must be 'Enabled' on the bucket to apply a Object Lock configuration")
	}
	return s.setSetting(ctx, bucket, catalog.SettingObjectLock, c.Encode())
}

// ObjectLockEnabled reports whether bucket b has object lock, for
// callers (PutBucketVersioning) that must keep its versioning Enabled.
func ObjectLockEnabled(b catalog.Bucket) bool {
	c, err := lockConfig(b)
	return err == nil && c.Enabled
}

// lockedVersion authorizes action on a version of bucket/key in a bucket
// with object lock and returns the version.
func (s *Service) lockedVersion(ctx context.Context, id *iam.Identity, bucket, key, versionID string, action iam.Action) (catalog.Bucket, *iam.BucketAccess, catalog.Object, error) {
	b, a, t, err := s.bucketTarget(ctx, iam.Request{ID: id, Action: action, Key: key}, bucket, versionID)
	if err != nil {
		return b, a, catalog.Object{}, err
	}
	if !ObjectLockEnabled(b) {
		return b, a, catalog.Object{}, errNoLockConfig
	}
	o, err := s.lookup(ctx, t)
	return b, a, o, err
}

// GetObjectRetention returns a version's retention;
// ErrNoSuchObjectLock when it has none.
func (s *Service) GetObjectRetention(ctx context.Context, id *iam.Identity, bucket, key, versionID string) (objectlock.Retention, error) {
	_, _, o, err := s.lockedVersion(ctx, id, bucket, key, versionID, "s3:GetObjectRetention")
	if err != nil {
		return objectlock.Retention{}, err
	}
	if o.Lock.Mode == "" {
		return objectlock.Retention{}, errorf(ErrNoSuchObjectLock, "The specified object does not have a ObjectLock configuration")
	}
	return objectlock.Retention{Mode: o.Lock.Mode, Until: o.Lock.RetainUntil}, nil
}

// PutObjectRetention changes a version's retention as objectlock's
// rules allow: extending always; shortening, removing or lowering a
// GOVERNANCE retention only with a bypass (asked, and permitted); a
// COMPLIANCE one never.
func (s *Service) PutObjectRetention(ctx context.Context, id *iam.Identity, bucket, key, versionID string, r objectlock.Retention, bypass bool) error {
	b, a, o, err := s.lockedVersion(ctx, id, bucket, key, versionID, "s3:PutObjectRetention")
	if err != nil {
		return err
	}
	if err := objectlock.ValidRetention(r, time.Now()); err != nil {
		return lockErr(err)
	}
	del, err := s.mayBypass(ctx, id, b, a, key, bypass)
	if err != nil {
		return err
	}
	o.Lock.Mode, o.Lock.RetainUntil = r.Mode, r.Until
	opt, err := s.observeChange(ctx, EventRetentionPut, id, b, o)
	if err != nil {
		return err
	}
	opt.BypassGovernance = del.BypassGovernance
	// The version read, as for tags: a write since must not take it.
	_, err = s.cat.SetRetention(ctx, bucket, key, o.VersionID, r, opt)
	return s.lockChangeErr(err, bucket, key, versionID)
}

// GetObjectLegalHold returns whether a version is under legal hold.
func (s *Service) GetObjectLegalHold(ctx context.Context, id *iam.Identity, bucket, key, versionID string) (bool, error) {
	_, _, o, err := s.lockedVersion(ctx, id, bucket, key, versionID, "s3:GetObjectLegalHold")
	return o.Lock.LegalHold, err
}

// PutObjectLegalHold puts a version's legal hold on or off.
func (s *Service) PutObjectLegalHold(ctx context.Context, id *iam.Identity, bucket, key, versionID string, on bool) error {
	b, _, o, err := s.lockedVersion(ctx, id, bucket, key, versionID, "s3:PutObjectLegalHold")
	if err != nil {
		return err
	}
	o.Lock.LegalHold = on
	opt, err := s.observeChange(ctx, EventLegalHoldPut, id, b, o)
	if err != nil {
		return err
	}
	_, err = s.cat.SetLegalHold(ctx, bucket, key, o.VersionID, on, opt)
	return s.lockChangeErr(err, bucket, key, versionID)
}

func (s *Service) lockChangeErr(err error, bucket, key, versionID string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, catalog.ErrNoSuchObject):
		if versionID != "" && versionID != catalog.NullVersion {
			return ErrNoSuchVersion
		}
		return ErrNoSuchKey
	case errors.Is(err, catalog.ErrObjectLocked):
		return errLocked
	}
	return fmt.Errorf("objects: object lock of %s/%s: %w", bucket, key, err)
}

// VisibleLock is the part of a version's lock that GET and HEAD may
// report to id: as AWS, its retention only to a caller allowed
// s3:GetObjectRetention, its legal hold only to one allowed
// s3:GetObjectLegalHold. An unlocked version costs no decision.
func (s *Service) VisibleLock(ctx context.Context, id *iam.Identity, bucket, key string, l catalog.Lock) catalog.Lock {
	if l == (catalog.Lock{}) {
		return l
	}
	b, a, err := s.getBucket(ctx, bucket)
	if err != nil {
		return catalog.Lock{}
	}
	may := func(action iam.Action) bool {
		return s.decide(ctx, iam.Request{ID: id, Action: action, Key: key}, b, a, "") == nil
	}
	if l.Mode != "" && !may("s3:GetObjectRetention") {
		l.Mode, l.RetainUntil = "", time.Time{}
	}
	if l.LegalHold && !may("s3:GetObjectLegalHold") {
		l.LegalHold = false
	}
	return l
}
