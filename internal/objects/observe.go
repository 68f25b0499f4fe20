package objects

import (
	"context"
	"fmt"

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
)

// A Change is a write or removal of an object version about to be
// committed.
type Change struct {
	Name   string
	Bucket catalog.Bucket // with its settings
	// Object is the version written (a delete marker included); for a
	// removal of a version, only its bucket, key and version id, and the
	// catalog names the version it removed in the events.
	Object catalog.Object
	// Identity made the change; nil for the node's own (lifecycle).
	Identity *iam.Identity
	Origin   iam.Origin
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
