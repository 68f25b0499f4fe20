// Package sigv4 verifies AWS request signatures over net/http types:
// Signature V4 (header, presigned query, aws-chunked streaming with
// trailers) and Signature V2 (header, query). It is pure: the caller gives
// a function that finds an access key's secret, and gets back who signed
// and a body reader that verifies the payload as it streams (the body is
// never buffered to be checked). Failures are *Error values carrying the
// S3 status and code.
package sigv4

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// ErrNoAuth means the request carries no signature at all: it is anonymous.
var ErrNoAuth = errors.New("sigv4: request is not signed")

// ErrUnknownKey is what a LookupFunc wraps when the access key does not
// exist; Verify turns it into InvalidAccessKeyId.
var ErrUnknownKey = errors.New("sigv4: unknown access key")

// Error is a verification failure as S3 reports it.
type Error struct {
	Status  int
	Code    string
	Message string
}

func (e *Error) Error() string { return "sigv4: " + e.Code + ": " + e.Message }

// MaxSkew is how far a request's time may be from the server's, as AWS.
const MaxSkew = 15 * time.Minute

var (
	errSignature = &Error{http.StatusForbidden, "SignatureDoesNotMatch",
		"The request signature we calculated does not match the signature you provided. Check your key and signing method."}
	errUnknownKey = &Error{http.StatusForbidden, "InvalidAccessKeyId",
		"The AWS Access Key Id you provided does not exist in our records."}
	errSkew = &Error{http.StatusForbidden, "RequestTimeTooSkewed",
		"The difference between the request time and the current time is too large."}
	errExpired  = &Error{http.StatusForbidden, "AccessDenied", "Request has expired"}
	errNotYet   = &Error{http.StatusForbidden, "AccessDenied", "Request is not valid yet"}
	errNoSHA256 = &Error{http.StatusBadRequest, "InvalidRequest",
		"Missing required header for this request: x-amz-content-sha256"}
	errSHA256Mismatch = &Error{http.StatusBadRequest, "XAmzContentSHA256Mismatch",
		"The provided 'x-amz-content-sha256' header does not match what was computed."}
	errNoDecodedLength = &Error{http.StatusLengthRequired, "MissingContentLength",
		"You must provide the Content-Length HTTP header."}
	errIncompleteBody = &Error{http.StatusBadRequest, "IncompleteBody",
		"The request body terminated unexpectedly"}
	errMalformedTrailer = &Error{http.StatusBadRequest, "MalformedTrailerError",
		"The request contained trailing data that was not well-formed or did not conform to our published schema."}
)

// unsignedHeaders is the refusal of a request carrying x-amz-* headers
// its signature does not cover; it unwraps to the S3 error, and keeps the
// names for the HeadersNotSigned element S3 adds to the error document.
type unsignedHeaders struct{ names []string }

var errUnsignedHeaders = &Error{http.StatusForbidden, "AccessDenied",
	"There were headers present in the request which were not signed"}

func (e *unsignedHeaders) Error() string {
	return errUnsignedHeaders.Error() + ": " + strings.Join(e.names, ", ")
}

func (e *unsignedHeaders) Unwrap() error { return errUnsignedHeaders }

// HeadersNotSigned is, for a request refused because x-amz-* headers
// were not signed, their names as S3 lists them in its error document
// (comma separated); else "".
func HeadersNotSigned(err error) string {
	var u *unsignedHeaders
	if errors.As(err, &u) {
		return strings.Join(u.names, ", ")
	}
	return ""
}

func malformed(msg string) *Error {
	return &Error{http.StatusBadRequest, "AuthorizationHeaderMalformed", msg}
}

func badQuery(msg string) *Error {
	return &Error{http.StatusBadRequest, "AuthorizationQueryParametersError", msg}
}

func invalidArgument(msg string) *Error {
	return &Error{http.StatusBadRequest, "InvalidArgument", msg}
}

// LookupFunc returns the secret of an access key, or an error wrapping
// ErrUnknownKey.
type LookupFunc func(ctx context.Context, accessKey string) (secret string, err error)

// Options adjust verification.
type Options struct {
	// V2Resource is Signature V2's canonical resource without its
	// sub-resources: the escaped path, prefixed with "/bucket" when the
	// bucket came from the Host header.
	V2Resource string
	// Now is the server's clock; nil means time.Now.
	Now func() time.Time
	// PresignV2MaxAge bounds how far ahead a presigned Signature V2 URL
	// may expire (0 = DefaultPresignV2MaxAge).
	PresignV2MaxAge time.Duration
	// Services are the AWS services besides S3 a V4 signature may be
	// made for (iam, sts): the endpoint serves them too.
	Services []string
}

// DefaultPresignV2MaxAge is the longest a presigned V2 URL may live: a
// week, the bound S3 sets on V4 URLs.
const DefaultPresignV2MaxAge = 7 * 24 * time.Hour

func (o Options) presignV2MaxAge() time.Duration {
	if o.PresignV2MaxAge > 0 {
		return o.PresignV2MaxAge
	}
	return DefaultPresignV2MaxAge
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// Auth is a verified request.
type Auth struct {
	AccessKey string
	// Service is the AWS service a V4 signature was made for ("s3", or
	// one of Options.Services); Signature V2 is always "s3".
	Service string
	// Body replaces the request's body: it yields the payload (decoded, for
	// aws-chunked) and fails with an *Error if the payload does not match
	// its signature or declared hash.
	Body io.ReadCloser
	// DecodedLength is the payload length of an aws-chunked body, else -1.
	DecodedLength int64
	// Trailer, for payloads with trailers, returns the trailing headers
	// (x-amz-checksum-*) once Body has returned io.EOF.
	Trailer func() http.Header
}

// Verify checks the request's signature. It returns ErrNoAuth for an
// anonymous request.
func Verify(ctx context.Context, r *http.Request, lookup LookupFunc, opt Options) (*Auth, error) {
	authz := r.Header.Get("Authorization")
	q := r.URL.Query()
	switch {
	case strings.HasPrefix(authz, algorithm+" "):
		return verifyV4Header(ctx, r, authz, lookup, opt)
	case strings.HasPrefix(authz, "AWS "):
		return verifyV2Header(ctx, r, authz, lookup, opt)
	case authz != "":
		return nil, invalidArgument("Unsupported Authorization Type")
	case q.Has("X-Amz-Algorithm") || q.Has("X-Amz-Credential") || q.Has("X-Amz-Signature"):
		return verifyV4Query(ctx, r, q, lookup, opt)
	case q.Has("AWSAccessKeyId") || q.Has("Signature"):
		return verifyV2Query(ctx, r, q, lookup, opt)
	}
	return nil, ErrNoAuth
}

// secret looks an access key up, mapping an unknown key to its S3 error.
func secret(ctx context.Context, lookup LookupFunc, accessKey string) (string, error) {
	s, err := lookup(ctx, accessKey)
	if errors.Is(err, ErrUnknownKey) {
		return "", errUnknownKey
	}
	if err != nil {
		return "", fmt.Errorf("sigv4: look up access key: %w", err)
	}
	return s, nil
}

// plain passes the request body through unverified.
func plain(r *http.Request, accessKey string) *Auth {
	return &Auth{AccessKey: accessKey, Service: "s3", Body: r.Body, DecodedLength: -1}
}
