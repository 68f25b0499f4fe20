package replicator

import (
	"context"
	"testing"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/objects"
	"github.com/ostiumio/ostium/internal/replication"
)

// The observer queues a new version or a delete marker its rules send
// somewhere, never the removal of a version nor a lifecycle delete
// marker, and a replica only with ReplicaModifications.
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
	for _, tc := range []struct {
		name   string
		cfg    *replication.Configuration
		change string
		obj    catalog.Object
		want   bool
	}{
		{"put", cfg, objects.EventPut, obj, true},
		{"multipart", cfg, objects.EventCompleteMultipart, obj, true},
		{"outside the prefix", cfg, objects.EventPut, catalog.Object{Key: "other", VersionID: "v"}, false},
		{"delete marker", cfg, objects.EventDeleteMarker, obj, true},
		{"version removed", cfg, objects.EventDelete, obj, false},
		{"lifecycle marker", cfg, objects.EventExpirationDeleteMarker, obj, false},
		{"replica", cfg, objects.EventPut, replica, false},
		{"replica with ReplicaModifications", withReplicas, objects.EventPut, replica, true},
		{"no configuration", nil, objects.EventPut, obj, false},
	} {
		bb := b
		if tc.cfg != nil {
			bb.Replication = tc.cfg.Encode()
		}
		es, err := o.Observe(context.Background(), objects.Change{Name: tc.change, Bucket: bb, Object: tc.obj})
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
			if tc.change == objects.EventPut && string(e.Payload) != `{"d":[{"arn":"arn:aws:s3:::dst","sc":"STANDARD_IA"}]}` {
				t.Errorf("%s: payload %s", tc.name, e.Payload)
			}
		}
	}
}
