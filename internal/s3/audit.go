package s3

import (
	"net/http"

	"github.com/ostiumio/ostium/internal/audit"

	"github.com/ostiumio/ostium/internal/catalog"
)

// audited are the operations the audit log records, whatever their
// outcome: changes to a bucket's access settings, and to its versioning
// (suspending it is how old versions start to be lost). A later setting
// is one more line here.
var audited = [opCount]bool{
	OpPutBucketPolicy:               true,
	OpDeleteBucketPolicy:            true,
	OpPutBucketAcl:                  true,
	OpPutBucketOwnershipControls:    true,
	OpDeleteBucketOwnershipControls: true,
	OpPutPublicAccessBlock:          true,
	OpDeletePublicAccessBlock:       true,
	OpPutBucketVersioning:           true,
	// Lifecycle rules delete data.
	OpPutBucketLifecycleConfiguration: true,
	OpDeleteBucketLifecycle:           true,
	// Removing a default encryption leaves new objects in the clear.
	OpPutBucketEncryption:    true,
	OpDeleteBucketEncryption: true,
}

// audit records c in the audit log if its operation is audited, after
// the response was written (status), with the error it ended with.
func (s *Server) audit(r *http.Request, c *call, status int, err error) {
	if s.auditLog == nil || c.Op < 0 || c.Op >= opCount || !audited[c.Op] {
		return
	}
	if status == 0 {
		status = http.StatusOK
	}
	e := catalog.AuditEntry{Action: "s3:" + c.Op.String(), Target: "bucket/" + c.Bucket, Status: status, RequestID: c.reqID}
	if err != nil {
		e.Outcome = toAPIError(err).Code
	}
	if c.id == nil {
		e.AccessKey = audit.ClaimedKey(r) // refused before it was known whose
	}
	s.auditLog.Record(r.Context(), c.id, e)
}
