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
}

// payload is an event's Payload: the destinations decided when the
// version was written. At most one per destination, so it is bounded
// by the configuration's rules.
type payload struct {
	Destinations []Destination `json:"d"`
	DeleteMarker bool          `json:"dm,omitempty"`
	Existing     bool          `json:"ex,omitempty"` // queued by the backfill
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
// bucket's rules replicate. Removals of versions are never replicated
// (as AWS), nor delete markers lifecycle writes, nor a replica unless a
// rule asks for replica modifications.
func (o *Observer) Observe(ctx context.Context, c objects.Change) ([]catalog.Event, error) {
	cfg := o.config(c.Bucket.Replication)
	if cfg == nil {
		return nil, nil
	}
	obj := c.Object
	var marker bool
	switch c.Name {
	case objects.EventPut, objects.EventPost, objects.EventCopy, objects.EventCompleteMultipart:
	case objects.EventDeleteMarker:
		marker = true
	default:
		return nil, nil
	}
	p := decide(cfg, obj, marker)
	if p == nil {
		return nil, nil
	}
	return []catalog.Event{event(c.Bucket.Name, obj, c.Name, *p)}, nil
}

// decide is the payload of a version the configuration replicates; nil
// when it replicates it nowhere.
func decide(cfg *replication.Configuration, obj catalog.Object, marker bool) *payload {
	var tags map[string]string
	if !marker {
		tags = obj.Meta.Tags
	}
	p := &payload{DeleteMarker: marker}
	for _, r := range cfg.PerDestination(obj.Key, tags, marker) {
		if obj.Meta.Replication == replication.StatusReplica && !r.ReplicatesReplicas() {
			continue
		}
		d := Destination{ARN: r.Destination.Bucket, StorageClass: r.Destination.StorageClass}
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
