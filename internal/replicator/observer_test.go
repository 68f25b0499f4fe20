package replicator

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/objects"
	"github.com/ostiumio/ostium/internal/replication"
)

// The observer queues a new version or a delete marker its rules send
// somewhere, never the removal of a version nor a lifecycle delete
// marker nor a replica (as AWS, even with ReplicaModifications); a
// change of a replicated version's metadata, and of a replica's only
// with ReplicaModifications; never what arrived by replication.
func TestObserverDecides(t *testing.T) {
	const doc = `<ReplicationConfiguration><Role>r</Role><Rule><ID>a</ID><Priority>1</Priority><Status>Enabled</Status>
<Filter><Prefix>logs/</Prefix></Filter><DeleteMarkerReplication><Status>Enabled</Status></DeleteMarkerReplication>
<Destination><Bucket>arn:aws:s3:::dst</Bucket><StorageClass>STANDARD_IA</StorageClass></Destination></Rule></ReplicationConfiguration>`
	cfg, err := replication.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	withReplicas, _ := replication.Parse([]byte(doc))
	withReplicas.Rules[0].SourceSelectionCriteria = &replication.SourceSelectionCriteria{
		ReplicaModifications: &replication.StatusElem{Status: replication.Enabled}}
	var o Observer
	b := catalog.Bucket{Name: "src"}
	obj := catalog.Object{Key: "logs/1", VersionID: "v1"}
	replica := catalog.Object{Key: "logs/2", VersionID: "v2", Meta: catalog.Meta{Replication: replication.StatusReplica}}
	// A version another Ostium site's replication wrote through S3.
	remoteReplica := catalog.Object{Key: "logs/3", VersionID: "v3", Meta: catalog.Meta{User: map[string]string{MetaSourceVersion: "x"}}}
	sent := catalog.Object{Key: "logs/4", VersionID: "v4", Meta: catalog.Meta{Replication: replication.StatusCompleted}}
	pending := catalog.Object{Key: "logs/5", VersionID: "v5", Meta: catalog.Meta{Replication: replication.StatusPending}}
	failed := catalog.Object{Key: "logs/6", VersionID: "v6", Meta: catalog.Meta{Replication: replication.StatusFailed}}
	for _, tc := range []struct {
		name   string
		cfg    *replication.Configuration
		change string
		obj    catalog.Object
		want   bool
		byRepl bool // the change arrived by replication
	}{
		{"put", cfg, objects.EventPut, obj, true, false},
		{"multipart", cfg, objects.EventCompleteMultipart, obj, true, false},
		{"outside the prefix", cfg, objects.EventPut, catalog.Object{Key: "other", VersionID: "v"}, false, false},
		{"delete marker", cfg, objects.EventDeleteMarker, obj, true, false},
		{"version removed", cfg, objects.EventDelete, obj, false, false},
		{"lifecycle marker", cfg, objects.EventExpirationDeleteMarker, obj, false, false},
		{"replica", cfg, objects.EventPut, replica, false, false},
		{"replica with ReplicaModifications", withReplicas, objects.EventPut, replica, false, false},
		{"another site's replica", withReplicas, objects.EventPut, remoteReplica, false, false},
		{"put by replication", cfg, objects.EventPut, obj, false, true},
		{"no configuration", nil, objects.EventPut, obj, false, false},
		{"tags of a replicated version", cfg, objects.EventTaggingPut, sent, true, false},
		{"tags removed", cfg, objects.EventTaggingDelete, sent, true, false},
		{"ACL of a pending version", cfg, objects.EventACLPut, pending, true, false},
		{"retention", cfg, objects.EventRetentionPut, sent, true, false},
		{"legal hold", cfg, objects.EventLegalHoldPut, sent, true, false},
		{"tags of a version never queued", cfg, objects.EventTaggingPut, obj, false, false},
		{"tags of a FAILED version", cfg, objects.EventTaggingPut, failed, false, false},
		{"tags outside the prefix", cfg, objects.EventTaggingPut, catalog.Object{Key: "other", VersionID: "v", Meta: sent.Meta}, false, false},
		{"tags of a replica", cfg, objects.EventTaggingPut, replica, false, false},
		{"tags of a replica, ReplicaModifications", withReplicas, objects.EventTaggingPut, replica, true, false},
		{"hold of another site's replica, ReplicaModifications", withReplicas, objects.EventLegalHoldPut, remoteReplica, true, false},
		{"tags set by replication", withReplicas, objects.EventTaggingPut, replica, false, true},
		{"tags set by replication on a source", cfg, objects.EventTaggingPut, sent, false, true},
	} {
		bb := b
		if tc.cfg != nil {
			bb.Replication = tc.cfg.Encode()
		}
		es, err := o.Observe(context.Background(), objects.Change{Name: tc.change, Bucket: bb, Object: tc.obj, Origin: iam.Origin{Replication: tc.byRepl}})
		if err != nil {
			t.Fatal(err)
		}
		if (len(es) == 1) != tc.want || len(es) > 1 {
			t.Errorf("%s: %d events", tc.name, len(es))
			continue
		}
		if tc.want {
			e := es[0]
			if e.Sink != replication.Sink || e.Bucket != "src" || e.Key != tc.obj.Key || e.VersionID != tc.obj.VersionID {
				t.Errorf("%s: event %+v", tc.name, e)
			}
			if tc.change == objects.EventPut && string(e.Payload) != `{"d":[{"arn":"arn:aws:s3:::dst","sc":"STANDARD_IA","rule":"a"}]}` {
				t.Errorf("%s: payload %s", tc.name, e.Payload)
			}
			var p payload
			meta := strings.HasPrefix(tc.change, "s3:ObjectTagging:") || tc.change == objects.EventACLPut ||
				tc.change == objects.EventRetentionPut || tc.change == objects.EventLegalHoldPut
			if err := json.Unmarshal(e.Payload, &p); err != nil || p.Meta != meta || p.Replica != (meta && isReplica(tc.obj)) || e.Name != tc.change {
				t.Errorf("%s: event %s payload %s", tc.name, e.Name, e.Payload)
			}
		}
	}
}
