package s3

import (
	"encoding/xml"
	"errors"
	"net/http"

	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/s3/sigv4"
)

// S3's answers to a request's session token (X-Amz-Security-Token).
var (
	errInvalidToken = &apiError{http.StatusBadRequest, "InvalidToken", "The provided token is malformed or otherwise invalid."}
	errExpiredToken = &apiError{http.StatusBadRequest, "ExpiredToken", "The provided token has expired."}
	// Temporary credentials without their token are, to AWS, a key it
	// does not know.
	errNoToken = &apiError{http.StatusForbidden, "InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records."}
)

// requestToken is the session token a signed request carries: the
// X-Amz-Security-Token header (header-signed and aws-chunked requests)
// or query parameter (presigned URLs). Both signatures cover it. Two
// that differ are no token at all.
func requestToken(r *http.Request) (string, error) {
	h := r.Header.Get("X-Amz-Security-Token")
	q := r.URL.Query().Get("X-Amz-Security-Token")
	if h != "" && q != "" && h != q {
		return "", errInvalidToken
	}
	if h != "" {
		return h, nil
	}
	return q, nil
}

// tokenError turns the keyring's refusals of a session token into S3's
// answers; other errors pass as they are.
func tokenError(err error) error {
	switch {
	case errors.Is(err, iam.ErrNoToken):
		return errNoToken
	case errors.Is(err, iam.ErrExpiredToken):
		return errExpiredToken
	case errors.Is(err, iam.ErrInvalidToken):
		return errInvalidToken
	}
	return err
}

// Query-protocol (IAM, STS) answers to what the endpoint refuses before
// the service's handler: the codes those services use for the same
// failures, where they differ from S3's.
var queryCodes = map[string]apiError{
	"InvalidAccessKeyId": {http.StatusForbidden, "InvalidClientTokenId", "The security token included in the request is invalid."},
	"InvalidToken":       {http.StatusForbidden, "InvalidClientTokenId", "The security token included in the request is invalid."},
	"ExpiredToken":       {http.StatusForbidden, "ExpiredToken", "The security token included in the request is expired"},
	"RequestTimeTooSkewed": {http.StatusForbidden, "SignatureDoesNotMatch",
		"Signature expired: the request time is more than 15 minutes from the server's time."},
}

// queryNamespaces are the XML namespaces of the query services' answers.
var queryNamespaces = map[string]string{
	"sts": "https://sts.amazonaws.com/doc/2011-06-15/",
	"iam": "https://iam.amazonaws.com/doc/2010-05-08/",
}

// queryErrorBody is the query protocol's error document.
type queryErrorBody struct {
	XMLName   xml.Name `xml:"ErrorResponse"`
	Xmlns     string   `xml:"xmlns,attr,omitempty"`
	Error     queryError
	RequestID string `xml:"RequestId"`
}

type queryError struct {
	Type    string
	Code    string
	Message string
}

// writeQueryError answers a call of IAM or STS refused before its
// service saw it in that service's error format, so that their SDKs
// read the code.
func writeQueryError(w http.ResponseWriter, r *http.Request, reqID string, e apiError) {
	if q, ok := queryCodes[e.Code]; ok {
		if q.Message == "" {
			q.Message = e.Message
		}
		e = q
	}
	typ := "Sender"
	if e.Status >= 500 {
		typ = "Receiver"
	}
	ns := queryNamespaces[sigv4.ServiceOf(r)]
	if ns == "" {
		ns = queryNamespaces["sts"]
	}
	writeXML(w, e.Status, queryErrorBody{Xmlns: ns, Error: queryError{typ, e.Code, e.Message}, RequestID: reqID})
}
