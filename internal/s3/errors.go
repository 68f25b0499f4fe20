package s3

import (
	"context"
	"encoding/xml"
	"errors"
	"log/slog"
	"net"
	"net/http"

	"github.com/ostiumio/ostium/internal/blob"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/objects"
	"github.com/ostiumio/ostium/internal/ratelimit"
	"github.com/ostiumio/ostium/internal/s3/sigv4"
)

// apiError is an S3 error response: status, code and message as AWS sends
// them.
type apiError struct {
	Status  int
	Code    string
	Message string
}

func (e *apiError) Error() string { return e.Code + ": " + e.Message }

// domainErrors maps each object-service error to its S3 response. A
// message carried by an *objects.Error replaces the default one here.
var domainErrors = map[error]apiError{
	objects.ErrAccessDenied:        {403, "AccessDenied", "Access Denied"},
	objects.ErrInvalidBucketName:   {400, "InvalidBucketName", "The specified bucket is not valid."},
	objects.ErrBucketAlreadyOwned:  {409, "BucketAlreadyOwnedByYou", "Your previous request to create the named bucket succeeded and you already own it."},
	objects.ErrBucketAlreadyExists: {409, "BucketAlreadyExists", "The requested bucket name is not available. The bucket namespace is shared by all users of the system. Please select a different name and try again."},
	objects.ErrNoSuchBucket:        {404, "NoSuchBucket", "The specified bucket does not exist"},
	objects.ErrBucketNotEmpty:      {409, "BucketNotEmpty", "The bucket you tried to delete is not empty"},
	objects.ErrNoSuchKey:           {404, "NoSuchKey", "The specified key does not exist."},
	objects.ErrNoSuchVersion:       {404, "NoSuchVersion", "The specified version does not exist."},
	objects.ErrNoSuchUpload:        {404, "NoSuchUpload", "The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed."},
	objects.ErrInvalidPart:         {400, "InvalidPart", "One or more of the specified parts could not be found."},
	objects.ErrInvalidPartOrder:    {400, "InvalidPartOrder", "The list of parts was not in ascending order. Parts must be ordered by part number."},
	objects.ErrEntityTooSmall:      {400, "EntityTooSmall", "Your proposed upload is smaller than the minimum allowed object size."},
	objects.ErrEntityTooLarge:      {400, "EntityTooLarge", "Your proposed upload exceeds the maximum allowed size"},
	objects.ErrPreconditionFailed:  {412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold"},
	objects.ErrNotModified:         {304, "NotModified", "Not Modified"},
	objects.ErrInvalidRange:        {416, "InvalidRange", "The requested range is not satisfiable"},
	objects.ErrInvalidPartNumber:   {416, "InvalidPartNumber", "The requested partnumber is not satisfiable"},
	objects.ErrBadDigest:           {400, "BadDigest", "The Content-MD5 you specified did not match what we received."},
	objects.ErrInvalidDigest:       {400, "InvalidDigest", "The Content-MD5 you specified was invalid."},
	objects.ErrIncompleteBody:      {400, "IncompleteBody", "You did not provide the number of bytes specified by the Content-Length HTTP header."},
	objects.ErrKeyTooLong:          {400, "KeyTooLongError", "Your key is too long"},
	objects.ErrInvalidArgument:     {400, "InvalidArgument", "Invalid Argument"},
	objects.ErrInvalidRequest:      {400, "InvalidRequest", "Invalid Request"},
	objects.ErrMetadataTooLarge:    {400, "MetadataTooLarge", "Your metadata headers exceed the maximum allowed metadata size."},
	objects.ErrInvalidStorageClass: {400, "InvalidStorageClass", "The storage class you specified is not valid"},
	objects.ErrMalformedXML:        {400, "MalformedXML", "The XML you provided was not well-formed or did not validate against our published schema"},
	objects.ErrMalformedPolicy:     {400, "MalformedPolicy", "Policies must be valid JSON and the first byte must be '{'"},
	objects.ErrNoSuchBucketPolicy:  {404, "NoSuchBucketPolicy", "The bucket policy does not exist"},

	objects.ErrACLNotSupported:                 {400, "AccessControlListNotSupported", "The bucket does not allow ACLs"},
	objects.ErrInvalidBucketACLWithOwnership:   {400, "InvalidBucketAclWithObjectOwnership", "Bucket cannot have ACLs set with ObjectOwnership's BucketOwnerEnforced setting"},
	objects.ErrInvalidBucketACLWithBlock:       {400, "InvalidBucketAclWithBlockPublicAccessError", "Bucket cannot have public ACLs set with BlockPublicAccess enabled"},
	objects.ErrNoOwnershipControls:             {404, "OwnershipControlsNotFoundError", "The bucket ownership controls were not found"},
	objects.ErrNoSuchPublicAccessBlock:         {404, "NoSuchPublicAccessBlockConfiguration", "The public access block configuration was not found"},
	objects.ErrUnresolvableGrantByEmailAddress: {400, "UnresolvableGrantByEmailAddress", "The e-mail address you provided does not match any account on record."},
	// No AWS code exists for a quota; this is what Ceph RGW answers.
	objects.ErrQuotaExceeded: {403, "QuotaExceeded", "The quota of this bucket or its tenant would be exceeded."},
}

var (
	errInternal = apiError{500, "InternalError", "We encountered an internal error. Please try again."}
	// errUnavailable answers while a storage platform cannot be reached:
	// nothing was stored or changed, and the client should retry.
	errUnavailable = apiError{503, "ServiceUnavailable", "Service is unable to handle request."}
	// errSlowDown answers requests beyond the node's limit.
	errSlowDown = apiError{503, "SlowDown", "Please reduce your request rate."}
	// errRequestTimeout answers a body that stopped arriving, as AWS.
	errRequestTimeout = apiError{400, "RequestTimeout", "Your socket connection to the server was not read from or written to within the timeout period. Idle connections will be closed."}
)

// retryAfter is the Retry-After (seconds) of a 503: about the period of
// the platforms' health checks.
const retryAfter = "2"

// toAPIError finds the S3 response for any error a handler returns.
func toAPIError(err error) apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return *ae
	}
	var rf *ratelimit.Refusal
	if errors.As(err, &rf) {
		return errSlowDown
	}
	var se *sigv4.Error
	if errors.As(err, &se) {
		return apiError{se.Status, se.Code, se.Message}
	}
	var oe *objects.Error
	if errors.As(err, &oe) {
		if e, ok := domainErrors[oe.Kind]; ok {
			e.Message = oe.Message
			return e
		}
	}
	for kind, e := range domainErrors {
		if errors.Is(err, kind) {
			return e
		}
	}
	// A body that stopped arriving is the client's doing, wherever it
	// was noticed: a 400, not a 500 logged as the node's fault.
	var be *bodyError
	if errors.As(err, &be) {
		var ne net.Error
		if errors.As(be.err, &ne) && ne.Timeout() {
			return *errBodyTimeout
		}
		return *errIncomplete
	}
	// Then a deadline that passed below (a catalog or a platform that
	// did not answer in time), or a platform or a catalog out of reach
	// (restarting, failing over) is the node's failure, not the
	// client's: retry.
	if errors.Is(err, blob.ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) || catalog.Unavailable(err) {
		return errUnavailable
	}
	return errInternal
}

// errorBody is S3's XML error document.
type errorBody struct {
	XMLName xml.Name `xml:"Error"`
	Code    string
	Message string
	// Method and ResourceType tell of a refused CORS preflight.
	Method       string `xml:",omitempty"`
	ResourceType string `xml:",omitempty"`
	BucketName   string `xml:",omitempty"`
	Key          string `xml:",omitempty"`
	Resource     string
	RequestID    string `xml:"RequestId"`
	HostID       string `xml:"HostId"`

	// HeadersNotSigned names the x-amz-* headers a signature left out.
	HeadersNotSigned string `xml:",omitempty"`
}

// writeError sends err as S3 does; HEAD responses and 304 carry no body.
func writeError(w http.ResponseWriter, r *http.Request, rt Route, reqID string, err error) {
	e := toAPIError(err)
	switch {
	case e.Status == 500 && !errors.Is(err, context.Canceled):
		slog.Error("internal error", "op", rt.Op.String(), "bucket", rt.Bucket, "key", rt.Key, "request_id", reqID, "err", err)
	case e.Status == http.StatusServiceUnavailable:
		after, ok := refusalRetry(err)
		if !ok {
			after = retryAfter
		}
		w.Header().Set("Retry-After", after)
	}
	if rt.Op == OpQueryAPI {
		writeQueryError(w, r, reqID, e)
		return
	}
	if e.Status == http.StatusNotModified || r.Method == http.MethodHead {
		w.WriteHeader(e.Status)
		return
	}
	body := errorBody{Code: e.Code, Message: e.Message, BucketName: rt.Bucket, Key: rt.Key,
		Resource: rt.Resource(), RequestID: reqID, HostID: reqID, HeadersNotSigned: sigv4.HeadersNotSigned(err)}
	body.Method, body.ResourceType = corsDetails(err)
	writeXML(w, e.Status, body)
}
