package s3

import (
	"net/http"
	"net/url"

	"github.com/ostiumio/ostium/internal/audit"

	"github.com/ostiumio/ostium/internal/catalog"
)

// auditWhen says when the audit log records an operation.
type auditWhen uint8

const (
	notAudited auditWhen = iota
	// always: every call, whatever its outcome.
	always
	// onBypass: a call that asks for a governance bypass
	// (x-amz-bypass-governance-retention), granted or refused: it is a
	// caller reaching past an object's protection.
	onBypass
)

// audited are the operations the audit log records: every change to a
// bucket's existence or configuration and to an object's protection
// (object lock, ACL), refused ones too. A later setting is one more line
// here.
var audited = [opCount]auditWhen{
	OpCreateBucket: always,
	OpDeleteBucket: always,
	// Access settings.
	OpPutBucketPolicy:               always,
	OpDeleteBucketPolicy:            always,
	OpPutBucketAcl:                  always,
	OpPutObjectAcl:                  always,
	OpPutBucketOwnershipControls:    always,
	OpDeleteBucketOwnershipControls: always,
	OpPutPublicAccessBlock:          always,
	OpDeletePublicAccessBlock:       always,
	// A browser's access from other sites.
	OpPutBucketCors:    always,
	OpDeleteBucketCors: always,
	// Suspending versioning is how old versions start to be lost.
	OpPutBucketVersioning: always,
	// Lifecycle rules delete data.
	OpPutBucketLifecycleConfiguration: always,
	OpDeleteBucketLifecycle:           always,
	// Replication sends copies of the data elsewhere.
	OpPutBucketReplication:    always,
	OpDeleteBucketReplication: always,
	// Removing a default encryption leaves new objects in the clear.
	OpPutBucketEncryption:    always,
	OpDeleteBucketEncryption: always,
	// Where access records go (and whether they are kept at all).
	OpPutBucketLogging: always,
	// Tags feed policies' conditions and billing.
	OpPutBucketTagging:    always,
	OpDeleteBucketTagging: always,
	// Object lock: the bucket's default, a version's hold and retention.
	OpPutObjectLockConfiguration: always,
	OpPutObjectLegalHold:         always,
	OpPutObjectRetention:         always,
	OpDeleteObject:               onBypass,
	OpDeleteObjects:              onBypass,
}

// AuditTarget names what an audited call changed: "bucket/NAME", or
// "bucket/NAME/KEY" for an object, with "?versionId=ID" when the call
// named a version. The console's entries name theirs the same way.
func AuditTarget(bucket, key, versionID string) string {
	t := "bucket/" + bucket
	if key != "" {
		t += "/" + key
	}
	if versionID != "" {
		t += "?versionId=" + url.QueryEscape(versionID)
	}
	return t
}

// audit records c in the audit log if its operation is audited, after
// the response was written (status), with the error it ended with.
func (s *Server) audit(r *http.Request, c *call, status int, err error) {
	if s.auditLog == nil || c.Op < 0 || c.Op >= opCount {
		return
	}
	switch audited[c.Op] {
	case notAudited:
		return
	case onBypass:
		if !bypassGovernance(r) {
			return
		}
	}
	if status == 0 {
		status = http.StatusOK
	}
	e := catalog.AuditEntry{Action: "s3:" + c.Op.String(), Target: AuditTarget(c.Bucket, c.Key, c.Query.Get("versionId")),
		Status: status, RequestID: c.reqID}
	switch {
	case err != nil:
		e.Outcome = toAPIError(err).Code
	case c.refused != "":
		e.Outcome = c.refused
	}
	if c.id == nil {
		e.AccessKey = audit.ClaimedKey(r) // refused before it was known whose
	}
	s.auditLog.Record(r.Context(), c.id, e)
}
