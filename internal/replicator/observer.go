// Package replicator carries out bucket replication: an objects.Observer
// that queues an event in the catalog's outbox, in the write's own
// transaction, for each version a bucket's rules send somewhere; and the
// leased, paced worker that delivers them, at least once and
// idempotently, to a bucket of this Ostium or to a registered remote S3
// endpoint, and records each version's x-amz-replication-status.
package replicator

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/objects"
	"github.com/ostiumio/ostium/internal/replication"
)

// JobName is the worker's lease.
const JobName = "replication"

// Destination is one place an event's version goes, with what its rule
// asks of the replica.
type Destination struct {
	ARN          string `json:"arn"`
	StorageClass string `json:"sc,omitempty"`
	KMSKeyID     string `json:"kms,omitempty"`
	OwnerIsDest  bool   `json:"own,omitempty"`
	Rule         string `json:"rule,omitempty"` // its rule's ID, for a failure's notification
}

// payload is an event's Payload: the destinations decided when the
// version was written. At most one per destination, so it is bounded
// by the configuration's rules.
type payload struct {
	Destinations []Destination `json:"d"`
	DeleteMarker bool          `json:"dm,omitempty"`
	Existing     bool          `json:"ex,omitempty"` // queued by the backfill
	// Meta: a change of the version's tags, ACL, retention or legal
	// hold, which the replica is brought to (it is written whole if it
	// is not there yet).
	Meta bool `json:"md,omitempty"`
	// Replica: Meta of a replica, by replica modification sync: only a
	// version already at the destination (the one it was made from) is
	// changed, and the replica's status stays REPLICA.
	Replica bool `json:"rp,omitempty"`
}

// Observer queues replication's events. It reads only the bucket the
// change carries, so it never blocks on I/O.
type Observer struct {
	mu     sync.Mutex
	parsed map[string]*replication.Configuration
}

var _ objects.Observer = (*Observer)(nil)

// maxParsed bounds the cache of parsed configurations.
const maxParsed = 1024

func (o *Observer) config(encoded string) *replication.Configuration {
	if encoded == "" {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if c, ok := o.parsed[encoded]; ok {
		return c
	}
	c, err := replication.Decode(encoded)
	if err != nil {
		return nil // the stored setting is Encode's
	}
	if o.parsed == nil || len(o.parsed) >= maxParsed {
		o.parsed = map[string]*replication.Configuration{}
	}
	o.parsed[encoded] = c
	return c
}

// Observe returns the event of a new version or delete marker that the
// bucket's rules replicate, or of a later change of a replicated
// version's tags, ACL, retention or legal hold. Removals of versions are
// never replicated (as AWS), nor delete markers lifecycle writes, nor a
// replica; a change of a replica's metadata only by a rule with replica
// modification sync; and never a change that arrived by replication
// itself, so that two buckets replicating to each other do not send a
// change back and forth.
func (o *Observer) Observe(ctx context.Context, c objects.Change) ([]catalog.Event, error) {
	cfg := o.config(c.Bucket.Replication)
	if cfg == nil || c.Origin.Replication {
		return nil, nil
	}
	obj := c.Object
	var p *payload
	switch c.Name {
	case objects.EventPut, objects.EventPost, objects.EventCopy, objects.EventCompleteMultipart:
		if isReplica(obj) {
			return nil, nil
		}
		p = decide(cfg, obj, false, false)
	case objects.EventDeleteMarker:
		p = decide(cfg, obj, true, false)
	case objects.EventTaggingPut, objects.EventTaggingDelete, objects.EventACLPut, objects.EventRetentionPut, objects.EventLegalHoldPut:
		p = decideChange(cfg, obj)
	}
	if p == nil {
		return nil, nil
	}
	return []catalog.Event{event(c.Bucket.Name, obj, c.Name, *p)}, nil
}

// isReplica tells a replica (replication.IsReplica): never replicated
// again, its metadata's changes only by replica modification sync.
func isReplica(obj catalog.Object) bool {
	return replication.IsReplica(obj.Meta.Replication, obj.Meta.User)
}

// decideChange is the payload of a change of obj's metadata: for a
// version that was sent (or is on its way) to its destinations, by the
// rules that match it as changed; for a replica, by those with replica
// modification sync. A version never queued (no status: from before the
// configuration, which the backfill may still send whole) or FAILED
// queues nothing.
func decideChange(cfg *replication.Configuration, obj catalog.Object) *payload {
	replica := isReplica(obj)
	if !replica && obj.Meta.Replication != replication.StatusPending && obj.Meta.Replication != replication.StatusCompleted {
		return nil
	}
	p := decide(cfg, obj, false, replica)
	if p != nil {
		p.Meta, p.Replica = true, replica
	}
	return p
}

// decide is the payload of a version the configuration replicates; nil
// when it replicates it nowhere. replicaMods keeps only the rules with
// replica modification sync.
func decide(cfg *replication.Configuration, obj catalog.Object, marker, replicaMods bool) *payload {
	var tags map[string]string
	if !marker {
		tags = obj.Meta.Tags
	}
	p := &payload{DeleteMarker: marker}
	for _, r := range cfg.PerDestination(obj.Key, tags, marker) {
		if replicaMods && !r.ReplicatesReplicas() {
			continue
		}
		d := Destination{ARN: r.Destination.Bucket, StorageClass: r.Destination.StorageClass, Rule: r.ID}
		if ec := r.Destination.EncryptionConfiguration; ec != nil {
			d.KMSKeyID = ec.ReplicaKmsKeyID
		}
		if act := r.Destination.AccessControlTranslation; act != nil && act.Owner == "Destination" {
			d.OwnerIsDest = true
		}
		p.Destinations = append(p.Destinations, d)
	}
	if len(p.Destinations) == 0 {
		return nil
	}
	return p
}

func event(bucket string, obj catalog.Object, name string, p payload) catalog.Event {
	b, _ := json.Marshal(p)
	return catalog.Event{Sink: replication.Sink, Bucket: bucket, Key: obj.Key, VersionID: obj.VersionID, Name: name, Payload: b}
}
