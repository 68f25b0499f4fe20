package replicator

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/objects"
)

// A failure names the destination it happened at and its rule, the
// operation the change needed there, and AWS's reason for the refusal.
func TestFailure(t *testing.T) {
	d1 := Destination{ARN: "arn:aws:s3:::one", Rule: "r1"}
	d2 := Destination{ARN: "arn:aws:s3:::two", Rule: "r2"}
	p := payload{Destinations: []Destination{d1, d2}}
	at := func(d Destination, err error) error {
		return permanent{destError{d, fmt.Errorf("to %s: %w", d.ARN, err)}}
	}
	invalid := func(msg string) error { return fmt.Errorf("%w: %s", objects.ErrInvalidRequest, msg) }
	for name, c := range map[string]struct {
		event                   string
		p                       payload
		err                     error
		rule, dest, op, because string
	}{
		"denied at the second": {objects.EventPut, p, at(d2, objects.ErrAccessDenied), "r2", d2.ARN, "PutObject", "DstPutObjectNotPermitted"},
		"no bucket":            {objects.EventPut, p, at(d1, invalid("Destination bucket must exist.")), "r1", d1.ARN, "PutObject", "DstBucketNotFound"},
		"unversioned":          {objects.EventCopy, p, at(d1, invalid("Destination bucket must have versioning enabled.")), "r1", d1.ARN, "PutObject", "DstBucketUnversioned"},
		"no object lock": {objects.EventPut, p, at(d1, invalid("Destination bucket must have object lock enabled to replicate a locked version.")),
			"r1", d1.ARN, "PutObject", "DstBucketObjectLockConfigMissing"},
		"writer gone":         {objects.EventPut, p, at(d1, iam.ErrUnknownUser), "r1", d1.ARN, "PutObject", "AssumeRoleNotPermitted"},
		"configuration gone":  {objects.EventPut, p, permanentf("the bucket's replication configuration was removed"), "r1", d1.ARN, "PutObject", "SrcBucketReplicationConfigMissing"},
		"tags denied":         {objects.EventTaggingPut, payload{Destinations: p.Destinations, Meta: true}, at(d1, objects.ErrAccessDenied), "r1", d1.ARN, "PutObjectTagging", "DstPutTaggingNotPermitted"},
		"acl denied":          {objects.EventACLPut, payload{Destinations: p.Destinations, Meta: true}, at(d2, objects.ErrAccessDenied), "r2", d2.ARN, "PutObjectAcl", "DstPutAclNotPermitted"},
		"delete marker":       {objects.EventDeleteMarker, payload{Destinations: p.Destinations, DeleteMarker: true}, at(d1, objects.ErrAccessDenied), "r1", d1.ARN, "DeleteObject", "DstDelObjNotPermitted"},
		"no reason that fits": {objects.EventPut, p, at(d1, errors.New("quota")), "r1", d1.ARN, "PutObject", ""},
	} {
		f := failure(catalog.Event{Name: c.event}, c.p, c.err)
		if f.RuleID != c.rule || f.DestinationBucket != c.dest || f.Operation != c.op || f.Reason != c.because {
			t.Errorf("%s: %+v, want %s %s %s %s", name, f, c.rule, c.dest, c.op, c.because)
		}
	}
}
