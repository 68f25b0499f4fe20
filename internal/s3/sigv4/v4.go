package sigv4

import (
	"bytes"
	"context"
	"crypto/hmac"
	"encoding/hex"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

const (
	algorithm   = "AWS4-HMAC-SHA256"
	amzDateForm = "20060102T150405Z"
	maxExpires  = 7 * 24 * 3600

	unsignedPayload       = "UNSIGNED-PAYLOAD"
	streamingSigned       = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"
	streamingSignedTrail  = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER"
	streamingUnsignedTail = "STREAMING-UNSIGNED-PAYLOAD-TRAILER"
)

// scope is a parsed credential: AK/date/region/service/aws4_request.
type scope struct {
	accessKey, date, region, service string
}

func (s scope) String() string { return s.date + "/" + s.region + "/" + s.service + "/aws4_request" }

// parseCredential parses a credential scope signed for S3 or one of
// services, the other AWS services the endpoint serves (IAM, STS).
func parseCredential(c string, fail func(string) *Error, services []string) (scope, error) {
	parts := strings.Split(c, "/")
	if len(parts) != 5 || parts[0] == "" {
		return scope{}, fail("The authorization header is malformed; the Credential is mal-formed; expecting \"<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request\".")
	}
	s := scope{parts[0], parts[1], parts[2], parts[3]}
	if len(s.date) != 8 || s.region == "" {
		return s, fail("The authorization header is malformed; the Credential is mal-formed; expecting \"<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request\".")
	}
	if s.service != "s3" && !contains(services, s.service) {
		return s, fail("The authorization header is malformed; incorrect service \"" + s.service + "\". This endpoint belongs to \"s3\".")
	}
	if parts[4] != "aws4_request" {
		return s, fail("The authorization header is malformed; incorrect terminal \"" + parts[4] + "\". This endpoint uses \"aws4_request\".")
	}
	return s, nil
}

// signed is what both forms of V4 yield once parsed.
type signed struct {
	scope
	amzDate   string
	headers   []string
	signature string
}

func verifyV4Header(ctx context.Context, r *http.Request, authz string, lookup LookupFunc, opt Options) (*Auth, error) {
	var s signed
	var cred string
	for _, f := range strings.Split(strings.TrimPrefix(authz, algorithm+" "), ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(f), "=")
		if !ok {
			return nil, malformed("The authorization header is malformed; the authorization component \"" + f + "\" is malformed.")
		}
		switch k {
		case "Credential":
			cred = v
		case "SignedHeaders":
			s.headers = strings.Split(v, ";")
		case "Signature":
			s.signature = v
		}
	}
	if cred == "" || s.headers == nil || s.signature == "" {
		return nil, malformed("The authorization header is malformed; it must contain Credential, SignedHeaders and Signature.")
	}
	var err error
	if s.scope, err = parseCredential(cred, malformed, opt.Services); err != nil {
		return nil, err
	}
	t, err := requestTime(r)
	if err != nil {
		return nil, err
	}
	s.amzDate = t.Format(amzDateForm)
	if s.date != s.amzDate[:8] {
		return nil, malformed("The authorization header is malformed; Invalid credential date. Date is not the same as X-Amz-Date.")
	}
	if d := opt.now().Sub(t); d > MaxSkew || d < -MaxSkew {
		return nil, errSkew
	}
	payload := r.Header.Get("X-Amz-Content-Sha256")
	if payload == "" && s.service != "s3" {
		// Only S3 sends the payload's hash; the other services' clients
		// sign it without saying it, so the (small, bounded) body is
		// read and hashed here.
		if payload, err = hashBody(r); err != nil {
			return nil, err
		}
	}
	if payload == "" {
		return nil, errNoSHA256
	}
	if err := checkPayloadHash(payload); err != nil {
		return nil, err
	}
	key, err := s.verify(ctx, r, lookup, canonicalQuery(r.URL.Query(), ""), payload)
	if err != nil {
		return nil, err
	}
	return payloadReader(r, s, key, payload)
}

// errNoDate is AWS's answer to a request without a valid date: checked
// before the clock's skew and the signature, so a date that is present
// but empty, unreadable or before the Unix epoch is 403 AccessDenied
// (not SignatureDoesNotMatch nor RequestTimeTooSkewed), as AWS answers
// each of them.
var errNoDate = &Error{http.StatusForbidden, "AccessDenied", "AWS authentication requires a valid Date or x-amz-date header"}

// requestTime reads X-Amz-Date, or Date when it is absent. An
// X-Amz-Date that is present stands in for Date even when empty, as it
// does in Signature V2's string to sign.
func requestTime(r *http.Request) (time.Time, error) {
	var t time.Time
	var err error
	if vs, ok := r.Header["X-Amz-Date"]; ok {
		var v string
		if len(vs) > 0 {
			v = vs[0]
		}
		if t, err = time.Parse(amzDateForm, v); err != nil {
			// Signature V2 clients send X-Amz-Date as an HTTP date.
			t, err = httpDate(v)
		}
	} else {
		t, err = httpDate(r.Header.Get("Date"))
	}
	if err == nil && t.Before(time.Unix(0, 0)) {
		return time.Time{}, errNoDate
	}
	return t, err
}

// httpDate parses an HTTP date, also in the numeric-zone form that AWS's
// own examples use.
func httpDate(v string) (time.Time, error) {
	if t, err := http.ParseTime(v); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.RFC1123Z, v); err == nil {
		return t.UTC(), nil
	}
	return time.Time{}, errNoDate
}

func checkPayloadHash(p string) error {
	switch p {
	case unsignedPayload, streamingSigned, streamingSignedTrail, streamingUnsignedTail:
		return nil
	}
	if len(p) == 64 {
		if _, err := hex.DecodeString(p); err == nil {
			return nil
		}
	}
	if strings.HasPrefix(p, "STREAMING-") {
		return &Error{http.StatusNotImplemented, "NotImplemented", "The payload signing method " + p + " is not implemented"}
	}
	return invalidArgument("x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-UNSIGNED-PAYLOAD-TRAILER, STREAMING-AWS4-HMAC-SHA256-PAYLOAD, STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER or a valid sha256 value.")
}

// verify computes the signature and compares it; it returns the signing
// key, which streaming payloads keep using.
func (s signed) verify(ctx context.Context, r *http.Request, lookup LookupFunc, query, payload string) ([]byte, error) {
	for _, h := range s.headers {
		if h != strings.ToLower(h) {
			return nil, malformed("The authorization header is malformed; SignedHeaders must be lower case.")
		}
	}
	if !contains(s.headers, "host") {
		return nil, malformed("The authorization header is malformed; SignedHeaders must include host.")
	}
	sec, err := secret(ctx, lookup, s.accessKey)
	if err != nil {
		return nil, err
	}
	if names := unsignedAmzHeaders(r.Header, s.headers); len(names) > 0 {
		return nil, &unsignedHeaders{names}
	}
	key := signingKey(sec, s.date, s.region, s.service)
	if s.matches(r, key, query, payload, false) {
		return key, nil
	}
	// Clients squeeze a header value's white space two ways (collapse):
	// when the signed values hold blanks other than spaces, try the other.
	for _, h := range s.headers {
		for _, v := range r.Header.Values(h) {
			if blanksOtherThanSpace(v) {
				if s.matches(r, key, query, payload, true) {
					return key, nil
				}
				return nil, errSignature
			}
		}
	}
	return nil, errSignature
}

// matches tells whether the request's signature is key's over its
// canonical request.
func (s signed) matches(r *http.Request, key []byte, query, payload string, spacesOnly bool) bool {
	creq := r.Method + "\n" + canonicalURI(r) + "\n" + query + "\n" +
		canonicalHeaders(r, s.headers, spacesOnly) + "\n" + strings.Join(s.headers, ";") + "\n" + payload
	sts := algorithm + "\n" + s.amzDate + "\n" + s.scope.String() + "\n" + sha256Hex([]byte(creq))
	want := hex.EncodeToString(hmacSHA256(key, sts))
	return hmac.Equal([]byte(want), []byte(s.signature))
}

// unsignedAmzHeaders lists, sorted, the x-amz-* headers of h that signed
// does not cover. An x-amz-* header changes what a request does
// (x-amz-copy-source turns a PUT into a copy, x-amz-metadata-directive
// replaces metadata, x-amz-acl grants access), so one the signer did not
// sign must not be honoured: S3 refuses the request (403 AccessDenied,
// "There were headers present in the request which were not signed").
// x-amz-content-sha256 is the one exception, as on S3: presigned URLs are
// used with it unsigned, and its value is bound to the body anyway (it is
// the last line of the canonical request, and the body is checked
// against it).
func unsignedAmzHeaders(h http.Header, signed []string) []string {
	var names []string
	for k := range h {
		lk := strings.ToLower(k)
		if !strings.HasPrefix(lk, "x-amz-") || lk == "x-amz-content-sha256" || contains(signed, lk) {
			continue
		}
		names = append(names, lk)
	}
	sort.Strings(names)
	return names
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func verifyV4Query(ctx context.Context, r *http.Request, q url.Values, lookup LookupFunc, opt Options) (*Auth, error) {
	if a := q.Get("X-Amz-Algorithm"); a != algorithm {
		return nil, badQuery("X-Amz-Algorithm only supports \"AWS4-HMAC-SHA256\"")
	}
	var s signed
	var err error
	if s.scope, err = parseCredential(q.Get("X-Amz-Credential"), badQuery, opt.Services); err != nil {
		return nil, err
	}
	s.amzDate = q.Get("X-Amz-Date")
	t, err := time.Parse(amzDateForm, s.amzDate)
	if err != nil {
		return nil, badQuery("X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"")
	}
	if s.date != s.amzDate[:8] {
		return nil, badQuery("Invalid credential date. Date is not the same as X-Amz-Date.")
	}
	expires, err := strconv.ParseInt(q.Get("X-Amz-Expires"), 10, 64)
	switch {
	case err != nil:
		return nil, badQuery("X-Amz-Expires should be a number")
	case expires < 0:
		return nil, badQuery("X-Amz-Expires must be non-negative")
	case expires > maxExpires:
		return nil, badQuery("X-Amz-Expires must be less than a week (in seconds) that is; 604800")
	}
	now := opt.now()
	if t.Sub(now) > MaxSkew {
		return nil, errNotYet
	}
	if now.After(t.Add(time.Duration(expires) * time.Second)) {
		return nil, errExpired
	}
	s.headers = strings.Split(q.Get("X-Amz-SignedHeaders"), ";")
	s.signature = q.Get("X-Amz-Signature")
	if s.signature == "" {
		return nil, badQuery("Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.")
	}
	payload := r.Header.Get("X-Amz-Content-Sha256")
	if payload == "" {
		payload = unsignedPayload
	}
	if err := checkPayloadHash(payload); err != nil {
		return nil, err
	}
	key, err := s.verify(ctx, r, lookup, canonicalQuery(q, "X-Amz-Signature"), payload)
	if err != nil {
		return nil, err
	}
	return payloadReader(r, s, key, payload)
}

// payloadReader wraps the body in what verifies the declared payload.
func payloadReader(r *http.Request, s signed, key []byte, payload string) (*Auth, error) {
	a := plain(r, s.accessKey)
	a.Service = s.service
	switch payload {
	case unsignedPayload:
		return a, nil
	case streamingSigned, streamingSignedTrail, streamingUnsignedTail:
		n, err := strconv.ParseInt(r.Header.Get("X-Amz-Decoded-Content-Length"), 10, 64)
		if err != nil || n < 0 {
			return nil, errNoDecodedLength
		}
		c := newChunked(r.Body, n, payload != streamingUnsignedTail, payload != streamingSigned)
		c.declared = declaredTrailers(r.Header.Get("X-Amz-Trailer"))
		if c.signed {
			c.key, c.amzDate, c.scope, c.prevSig = key, s.amzDate, s.scope.String(), s.signature
		}
		a.Body, a.DecodedLength = c, n
		if c.trailers {
			a.Trailer = c.trailer
		}
		return a, nil
	}
	want, _ := hex.DecodeString(payload)
	a.Body = newHashing(r.Body, want)
	return a, nil
}

// MaxFormBody bounds the body of a call to a service other than S3 (a
// form of AWS's query protocol), which is read whole to be verified.
const MaxFormBody = 1 << 20

var errFormTooLarge = &Error{http.StatusRequestEntityTooLarge, "RequestEntityTooLarge",
	"The request body is larger than the service accepts."}

// hashBody reads r's body (at most MaxFormBody), puts it back to be read
// again and returns its SHA-256 in hex.
func hashBody(r *http.Request) (string, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return sha256Hex(nil), nil
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, MaxFormBody+1))
	if err != nil {
		return "", errIncompleteBody
	}
	if len(b) > MaxFormBody {
		return "", errFormTooLarge
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	return sha256Hex(b), nil
}
