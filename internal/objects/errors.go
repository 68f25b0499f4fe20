package objects

import "errors"

// Domain errors of the object service. Each names the S3 condition it
// stands for; the protocol layer's errors.go maps them to status and code.
var (
	ErrAccessDenied        = errors.New("access denied")
	ErrInvalidBucketName   = errors.New("invalid bucket name")
	ErrBucketAlreadyOwned  = errors.New("bucket already owned by you")
	ErrBucketAlreadyExists = errors.New("bucket already exists")
	ErrNoSuchBucket        = errors.New("no such bucket")
	ErrBucketNotEmpty      = errors.New("bucket not empty")
	ErrNoSuchKey           = errors.New("no such key")
	ErrNoSuchVersion       = errors.New("no such version")
	ErrNoSuchUpload        = errors.New("no such upload")
	ErrInvalidPart         = errors.New("invalid part")
	ErrInvalidPartOrder    = errors.New("invalid part order")
	ErrEntityTooSmall      = errors.New("entity too small")
	ErrEntityTooLarge      = errors.New("entity too large")
	ErrPreconditionFailed  = errors.New("precondition failed")
	ErrNotModified         = errors.New("not modified")
	ErrInvalidRange        = errors.New("invalid range")
	ErrInvalidPartNumber   = errors.New("invalid part number")
	ErrBadDigest           = errors.New("bad digest")
	ErrInvalidDigest       = errors.New("invalid digest")
	ErrIncompleteBody      = errors.New("incomplete body")
	ErrKeyTooLong          = errors.New("key too long")
	ErrInvalidArgument     = errors.New("invalid argument")
	ErrInvalidRequest      = errors.New("invalid request")
	ErrMetadataTooLarge    = errors.New("metadata too large")
	ErrInvalidStorageClass = errors.New("invalid storage class")
	ErrMalformedXML        = errors.New("malformed XML")
	ErrQuotaExceeded       = errors.New("quota exceeded")
	ErrMalformedPolicy     = errors.New("malformed policy")
	ErrNoSuchBucketPolicy  = errors.New("no such bucket policy")

	ErrACLNotSupported                 = errors.New("the bucket does not allow ACLs")
	ErrInvalidBucketACLWithOwnership   = errors.New("bucket ACL grants others under BucketOwnerEnforced")
	ErrInvalidBucketACLWithBlock       = errors.New("public bucket ACL under a public access block")
	ErrNoOwnershipControls             = errors.New("no ownership controls")
	ErrNoSuchPublicAccessBlock         = errors.New("no public access block")
	ErrUnresolvableGrantByEmailAddress = errors.New("grant by e-mail cannot be resolved")
)

// Error carries a domain error with the message a client should see.
type Error struct {
	Kind    error
	Message string
}

func (e *Error) Error() string { return e.Kind.Error() + ": " + e.Message }
func (e *Error) Unwrap() error { return e.Kind }

func errorf(kind error, msg string) error { return &Error{Kind: kind, Message: msg} }
