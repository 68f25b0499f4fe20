package replicator

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/objects"
)

// destError is a delivery's failure at one of its destinations: the
// failure's notification names the destination and its rule.
type destError struct {
	d   Destination
	err error
}

func (e destError) Error() string { return e.err.Error() }
func (e destError) Unwrap() error { return e.err }

// failure describes, as AWS's s3:Replication:OperationFailedReplication
// does, the delivery of event e (payload p) that failed with err.
func failure(e catalog.Event, p payload, err error) objects.ReplicationFailure {
	var f objects.ReplicationFailure
	var de destError
	switch {
	case errors.As(err, &de):
		f.RuleID, f.DestinationBucket = de.d.Rule, de.d.ARN
	case len(p.Destinations) > 0:
		// Failed before any destination was tried (the source's
		// configuration went): the first one names where it was going.
		f.RuleID, f.DestinationBucket = p.Destinations[0].Rule, p.Destinations[0].ARN
	}
	var refused string
	f.Operation, refused = operation(e.Name, p)
	f.Reason = reason(err, refused)
	return f
}

// operation is the S3 operation a delivery makes at its destination,
// and the failure reason AWS gives when the destination refuses it.
func operation(name string, p payload) (op, refused string) {
	switch {
	case p.DeleteMarker:
		return "DeleteObject", "DstDelObjNotPermitted"
	case !p.Meta:
		return "PutObject", "DstPutObjectNotPermitted"
	}
	switch name {
	case objects.EventTaggingPut:
		return "PutObjectTagging", "DstPutTaggingNotPermitted"
	case objects.EventTaggingDelete:
		return "DeleteObjectTagging", "DstPutTaggingNotPermitted"
	case objects.EventACLPut:
		return "PutObjectAcl", "DstPutAclNotPermitted"
	case objects.EventRetentionPut:
		return "PutObjectRetention", "DstPutRetentionNotPermitted"
	case objects.EventLegalHoldPut:
		return "PutObjectLegalHold", "DstPutLegalHoldNotPermitted"
	}
	return "PutObject", "DstPutObjectNotPermitted"
}

// reason is the one of AWS's replication failure reasons that fits err,
// or "" when none does. A destination of this Ostium refuses with the
// same code and message as a remote one (another Ostium, or AWS), so the
// message tells which check failed at either.
func reason(err error, refused string) string {
	msg := err.Error()
	var ae smithy.APIError
	var re *smithyhttp.ResponseError
	switch {
	case strings.Contains(msg, "Destination bucket must exist"), errors.As(err, &ae) && ae.ErrorCode() == "NoSuchBucket":
		return "DstBucketNotFound"
	case strings.Contains(msg, "Destination bucket must have versioning enabled"):
		return "DstBucketUnversioned"
	case strings.Contains(msg, "Destination bucket must have object lock enabled"):
		return "DstBucketObjectLockConfigMissing"
	case strings.Contains(msg, "replication configuration was removed"):
		return "SrcBucketReplicationConfigMissing"
	case errors.Is(err, iam.ErrUnknownUser):
		// The configuration's writer is gone, as AWS's role that can no
		// longer be assumed.
		return "AssumeRoleNotPermitted"
	case errors.Is(err, objects.ErrAccessDenied), errors.As(err, &re) && re.HTTPStatusCode() == http.StatusForbidden:
		return refused
	}
	return ""
}

// failedEvents are the notifications of a version's failed replication,
// queued with its FAILED status. A notification that cannot be made is
// logged: the status is recorded either way.
func (w *Worker) failedEvents(ctx context.Context, e catalog.Event, p payload, err error) []catalog.Event {
	events, ferr := w.svc.ReplicationFailed(ctx, e.Bucket, e.Key, e.VersionID, failure(e, p, err))
	if ferr != nil {
		slog.Warn("replication: failure notification", "bucket", e.Bucket, "key", e.Key, "err", ferr)
	}
	return events
}
