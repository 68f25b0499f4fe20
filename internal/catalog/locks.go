package catalog

import (
	"context"
	"errors"
	"time"

	"github.com/ostiumio/ostium/internal/objectlock"
)

// Lock is a version's object lock: retention mode and date, and legal
// hold (package objectlock holds the rules).
type Lock = objectlock.Lock

// ErrObjectLocked is every driver's refusal to remove a version that a
// legal hold or a retention in force protects, or to weaken its
// retention: whoever asks, through whichever call.
var ErrObjectLocked = errors.New("catalog: object version is locked")

// DeleteOptions are what a removal of a version carries besides its
// name.
type DeleteOptions struct {
	// BypassGovernance lifts a GOVERNANCE retention (never COMPLIANCE nor
	// a legal hold): the caller asked to bypass it and is permitted to
	// (s3:BypassGovernanceRetention).
	BypassGovernance bool
	// IfLatest removes the version only while it is still its key's
	// current one as it was read (same id and modification time), else
	// ErrPreconditionFailed: a removal decided on a listing must not take
	// a version written since (lifecycle).
	IfLatest *Object
	// Events are queued in the outbox with the removal (their Bucket,
	// Key and VersionID are the removed version's).
	Events []Event
}

// SameVersion tells whether cur is still the version v was read as.
func SameVersion(cur *Object, v *Object) bool {
	return cur != nil && cur.IsLatest && cur.VersionID == v.VersionID && cur.LastModified.Equal(v.LastModified)
}

// Locks is the catalog's part for object lock. The driver enforces
// objectlock.MayRemove in the transaction of every removal of a version
// (DeleteObject, a replacing PutObject or CompleteUpload, PurgeBucket),
// so no path removes a locked version.
type Locks interface {
	// SetRetention replaces a version's retention (versionID "" = the
	// current one) if objectlock.MayChange allows it now (with
	// opt.BypassGovernance), else ErrObjectLocked; it returns the version
	// as changed, and queues opt's events with the change.
	// ErrNoSuchObject if absent or a delete marker.
	SetRetention(ctx context.Context, bucket, key, versionID string, r objectlock.Retention, opt ChangeOptions) (Object, error)
	// SetLegalHold puts a version's legal hold on or off, with opt's
	// events and status.
	SetLegalHold(ctx context.Context, bucket, key, versionID string, on bool, opt ChangeOptions) (Object, error)
	// HoldsLocked reports whether any version in bucket is protected at
	// now (legal hold, or retention until after now): such a bucket
	// cannot be purged.
	HoldsLocked(ctx context.Context, bucket string, now time.Time) (bool, error)
}
