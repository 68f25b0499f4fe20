package objects

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// The names of changes, as S3's event notifications name them.
const (
	EventPut                    = "s3:ObjectCreated:Put"
	EventPost                   = "s3:ObjectCreated:Post"
	EventCopy                   = "s3:ObjectCreated:Copy"
	EventCompleteMultipart      = "s3:ObjectCreated:CompleteMultipartUpload"
	EventDelete                 = "s3:ObjectRemoved:Delete"
	EventDeleteMarker           = "s3:ObjectRemoved:DeleteMarkerCreated"
	EventExpirationDelete       = "s3:LifecycleExpiration:Delete"
	EventExpirationDeleteMarker = "s3:LifecycleExpiration:DeleteMarkerCreated"
	// Changes of a version's metadata after it was written. AWS notifies
	// the first three; it has no notification for the lock's changes,
	// which replication carries all the same.
	EventTaggingPut    = "s3:ObjectTagging:Put"
	EventTaggingDelete = "s3:ObjectTagging:Delete"
	EventACLPut        = "s3:ObjectAcl:Put"
	EventRetentionPut  = "s3:ObjectRetention:Put"
	EventLegalHoldPut  = "s3:ObjectLegalHold:Put"
	// A lifecycle transition's switch to another storage class, and a
	// replication the replicator gave up on (the version is FAILED).
	EventTransition        = "s3:LifecycleTransition"
	EventReplicationFailed = "s3:Replication:OperationFailedReplication"
)

// ReplicationFailure is what a failed replication's change tells: the
// rule, its destination bucket, the operation that failed, when the
// version was written, and the reason in AWS's words.
type ReplicationFailure struct {
	RuleID, DestinationBucket, Operation, Reason string
	RequestTime                                  time.Time
}

// A Change is a write or removal of an object version, or a change of
// its tags, ACL or lock, about to be committed.
type Change struct {
	Name   string
	Bucket catalog.Bucket // with its settings
	// Object is the version written (a delete marker included), or
	// changed (as it is after the change); for a removal of a version,
	// only its bucket, key and version id, and the catalog names the
	// version it removed in the events.
	Object catalog.Object
	// Identity made the change; nil for the node's own (lifecycle).
	Identity *iam.Identity
	Origin   iam.Origin
	// Replication is set for EventReplicationFailed.
	Replication *ReplicationFailure
}

// An Observer turns changes into events for the outbox, which the
// catalog writes in the change's own transaction: replication and
// notifications learn of every change a client was told of, and of no
// other. Observe runs on the write path: it must not block on I/O.
type Observer interface {
	Observe(ctx context.Context, c Change) ([]catalog.Event, error)
}

// markerEvent names the delete marker a removal named name writes.
func markerEvent(name string) string {
	if name == EventExpirationDelete {
		return EventExpirationDeleteMarker
	}
	return EventDeleteMarker
}

// observe asks every observer for the events of the change.
func (s *Service) observe(ctx context.Context, c Change) ([]catalog.Event, error) {
	var events []catalog.Event
	c.Origin = iam.OriginOf(ctx)
	for _, o := range s.observers {
		es, err := o.Observe(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("objects: observe %s of %s/%s: %w", c.Name, c.Bucket.Name, c.Object.Key, err)
		}
		events = append(events, es...)
	}
	return events, nil
}

// observeChange asks every observer for the events of a change of
// version o's tags, ACL or lock (o as it is after the change) and
// returns the options that queue them with the change: a version a
// change is to be replicated for goes back to PENDING until it is, as
// after a write.
func (s *Service) observeChange(ctx context.Context, name string, id *iam.Identity, b catalog.Bucket, o catalog.Object) (catalog.ChangeOptions, error) {
	events, err := s.observe(ctx, Change{Name: name, Bucket: b, Object: o, Identity: id})
	if err != nil {
		return catalog.ChangeOptions{}, err
	}
	m := o.Meta
	markPending(events, &m)
	opt := catalog.ChangeOptions{Events: events}
	if m.Replication != o.Meta.Replication {
		opt.Replication = m.Replication
	}
	return opt, nil
}

// ReplicationFailed returns the events of the failed replication f of a
// version (its notifications), for the replicator to queue with the
// version's FAILED status. None once the bucket or version is gone.
func (s *Service) ReplicationFailed(ctx context.Context, bucket, key, versionID string, f ReplicationFailure) ([]catalog.Event, error) {
	b, err := s.cat.GetBucket(ctx, bucket)
	if errors.Is(err, catalog.ErrNoSuchBucket) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("objects: replication failure of %s/%s: %w", bucket, key, err)
	}
	o, err := s.cat.GetObject(ctx, bucket, key, versionID)
	if errors.Is(err, catalog.ErrNoSuchObject) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("objects: replication failure of %s/%s: %w", bucket, key, err)
	}
	if f.RequestTime.IsZero() {
		f.RequestTime = o.LastModified
	}
	o.Inline = nil // an event describes the version, never carries it
	return s.observe(ctx, Change{Name: EventReplicationFailed, Bucket: b, Object: o, Replication: &f})
}
