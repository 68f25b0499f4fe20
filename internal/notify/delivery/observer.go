// Package delivery turns a bucket's changes into event notifications and
// delivers them: the Observer writes one outbox event per matching
// configuration with the change, and the Worker, a leased job, sends
// them to the provider's targets (HTTPS webhooks, NATS, Kafka), at least once
// and in order per key, retrying with back-off and counting what it had
// to give up.
package delivery

import (
	"context"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/notify"
	"github.com/ostiumio/ostium/internal/objects"
)

// Observer makes the events of a change from its bucket's notification
// configuration, which the change carries: no I/O on the write path.
type Observer struct {
	// Region names the endpoint's region where a bucket has none.
	Region string
}

var _ objects.Observer = (*Observer)(nil)

// lifecyclePrincipal is the userIdentity AWS gives its lifecycle's own
// changes.
const lifecyclePrincipal = "s3.amazonaws.com"

func (o *Observer) Observe(ctx context.Context, c objects.Change) ([]catalog.Event, error) {
	cfg, err := notify.Decode(c.Bucket.Notification)
	if err != nil || cfg == nil {
		return nil, err
	}
	var events []catalog.Event
	var doc notify.Change
	for _, d := range cfg.Destinations() {
		if !d.Match(c.Name, c.Object.Key) {
			continue
		}
		if doc.Name == "" {
			doc = o.change(c)
		}
		events = append(events, catalog.Event{Sink: notify.Sink(d.ARN), Bucket: c.Bucket.Name, Key: c.Object.Key,
			VersionID: c.Object.VersionID, Name: c.Name, Payload: notify.Document(notify.NewRecord(doc, d.ID))})
	}
	return events, nil
}

func (o *Observer) change(c objects.Change) notify.Change {
	now := time.Now()
	region := c.Bucket.Region
	if region == "" {
		region = o.Region
	}
	principal := lifecyclePrincipal
	switch {
	case c.Identity != nil && c.Identity.CanonicalID != "":
		principal = c.Identity.CanonicalID
	case c.Identity != nil:
		principal = "Anonymous"
	}
	ch := notify.Change{
		Name: c.Name, Region: region, Time: now,
		Principal: principal, SourceIP: c.Origin.SourceIP, RequestID: c.Origin.RequestID,
		Bucket: c.Bucket.Name, BucketOwner: c.Bucket.Owner, Key: c.Object.Key, VersionID: c.Object.VersionID,
		// A key's changes are committed one at a time, under its lock: the
		// time of the change orders them on one node, and the outbox
		// delivers them in commit order whatever their sequencers say.
		Sequence: uint64(now.UnixNano()),
	}
	// The record tells of them what AWS's tells for the event.
	ch.Size, ch.ETag = c.Object.Size, c.Object.ETag
	if c.Name == objects.EventTransition {
		ch.StorageClass = c.Object.StorageClass
	}
	if f := c.Replication; f != nil {
		ch.Replication = &notify.ReplicationEventData{ReplicationRuleID: f.RuleID, DestinationBucket: f.DestinationBucket,
			S3Operation: f.Operation, RequestTime: f.RequestTime.UTC().Format("2006-01-02T15:04:05.000Z"), FailureReason: f.Reason}
	}
	if c.Bucket.Versioning == "" {
		ch.VersionID = "" // AWS tells no version id where versioning was never on
	}
	return ch
}
