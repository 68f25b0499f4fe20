package s3

import (
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/kms"
	"github.com/ostiumio/ostium/internal/objects"
)

func init() {
	domainErrors[kms.ErrUnavailable] = errUnavailable
	domainErrors[kms.ErrNoSuchKey] = apiError{400, "KMS.NotFoundException", "Invalid keyId"}
	domainErrors[kms.ErrKeyDisabled] = apiError{400, "KMS.DisabledException", "The KMS key is disabled."}
	// A destroyed key leaves what it wrapped unreadable for good; AWS
	// answers a key pending deletion or deleted so.
	domainErrors[kms.ErrDestroyed] = apiError{400, "KMS.KMSInvalidStateException", "The KMS key is in an invalid state."}
}

// AWS's answers to encryption headers it refuses (status, code and
// message as S3 sends them).
var (
	errSSEMethod         = &apiError{400, "InvalidArgument", "The encryption method specified is not supported"}
	errSSEKMSHeader      = &apiError{400, "InvalidArgument", "Server Side Encryption with AWS KMS managed key requires HTTP header x-amz-server-side-encryption : aws:kms"}
	errSSEContext        = &apiError{400, "InvalidArgument", "The header 'x-amz-server-side-encryption-context' shall be Base64-encoded UTF-8 string holding JSON which represents a string-string map"}
	errSSEBucketKey      = &apiError{400, "InvalidArgument", "Invalid value for header x-amz-server-side-encryption-bucket-key-enabled"}
	errSSECInsecure      = &apiError{400, "InvalidRequest", "Requests specifying Server Side Encryption with Customer provided keys must be made over a secure connection."}
	errSSECAlgorithm     = &apiError{400, "InvalidArgument", "Requests specifying Server Side Encryption with Customer provided keys must provide a valid encryption algorithm."}
	errSSECBadAlgo       = &apiError{400, "InvalidEncryptionAlgorithmError", "The Encryption request you specified is not valid. Supported value: AES256."}
	errSSECMissingKey    = &apiError{400, "InvalidArgument", "Requests specifying Server Side Encryption with Customer provided keys must provide an appropriate secret key."}
	errSSECBadKey        = &apiError{400, "InvalidArgument", "The secret key was invalid for the specified algorithm."}
	errSSECMissingMD5    = &apiError{400, "InvalidArgument", "Requests specifying Server Side Encryption with Customer provided keys must provide the client calculated MD5 of the secret key."}
	errSSECMD5Mismatch   = &apiError{400, "InvalidArgument", "The calculated MD5 hash of the key did not match the hash that was provided."}
	errSSECWithSSE       = &apiError{400, "InvalidArgument", "Server Side Encryption with Customer provided key is incompatible with the encryption method specified"}
	errSSECRequired      = &apiError{400, "InvalidRequest", "The object was stored using a form of Server Side Encryption. The correct parameters must be provided to retrieve the object."}
	errSSECWrongKey      = &apiError{403, "AccessDenied", "Access Denied"}
	errSSECNotApplicable = &apiError{400, "InvalidRequest", "The encryption parameters are not applicable to this object."}
)

// sseRequest is what a request's encryption headers ask for, checked as
// AWS checks them; Kind "" asks for nothing (a default may apply).
type sseRequest struct {
	Kind      string // objects.KindS3, KindKMS or KindSSEC
	KMSKeyID  string // as sent: an id, alias/NAME or an ARN (kms.ParseKeyRef)
	Context   string // SSE-KMS's encryption context, base64 JSON as sent
	BucketKey bool
	// CustomerKey and CustomerKeyMD5 are SSE-C's key and its digest
	// (base64), checked against each other.
	CustomerKey    []byte
	CustomerKeyMD5 string
}

// sseHeader names the encryption headers.
const (
	hSSE          = "X-Amz-Server-Side-Encryption"
	hSSEKMSKeyID  = "X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id"
	hSSEContext   = "X-Amz-Server-Side-Encryption-Context"
	hSSEBucketKey = "X-Amz-Server-Side-Encryption-Bucket-Key-Enabled"
	hSSECAlgo     = "X-Amz-Server-Side-Encryption-Customer-Algorithm"
	hSSECKey      = "X-Amz-Server-Side-Encryption-Customer-Key"
	hSSECKeyMD5   = "X-Amz-Server-Side-Encryption-Customer-Key-Md5"
	copySourcePfx = "Copy-Source-" // x-amz-copy-source-server-side-encryption-customer-*
)

// writeSSE reads a write's encryption headers (PutObject,
// CreateMultipartUpload, CopyObject's destination).
func (s *Server) writeSSE(r *http.Request) (sseRequest, error) {
	h := r.Header
	var q sseRequest
	c, err := s.customerKey(r, "")
	if err != nil {
		return q, err
	}
	kind := h.Get(hSSE)
	if c.Kind != "" {
		if kind != "" || h.Get(hSSEKMSKeyID) != "" || h.Get(hSSEContext) != "" {
			return q, errSSECWithSSE
		}
		return c, nil
	}
	switch kind {
	case "":
	case objects.KindS3, objects.KindKMS:
		q.Kind = kind
	case objects.SSEAlgorithmDSSE:
		return q, errNotImplemented
	default:
		return q, errSSEMethod
	}
	if id := h.Get(hSSEKMSKeyID); id != "" {
		if q.Kind != objects.KindKMS {
			return q, errSSEKMSHeader
		}
		q.KMSKeyID = id
	}
	if cx := h.Get(hSSEContext); cx != "" {
		if q.Kind != objects.KindKMS {
			return q, errSSEKMSHeader
		}
		if !validSSEContext(cx) {
			return q, errSSEContext
		}
		q.Context = cx
	}
	if v := h.Get(hSSEBucketKey); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return q, errSSEBucketKey
		}
		// AWS accepts the header with SSE-S3 too and reports it; bucket
		// keys only spare KMS calls there, and here a data key is made
		// per object either way.
		q.BucketKey = b
	}
	return q, nil
}

// validSSEContext tells whether v is what AWS takes as an encryption
// context: base64 of UTF-8 JSON, an object of string values.
func validSSEContext(v string) bool {
	raw, err := base64.StdEncoding.DecodeString(v)
	if err != nil || !utf8.Valid(raw) {
		return false
	}
	var m map[string]string
	return json.Unmarshal(raw, &m) == nil && m != nil
}

// customerKey reads SSE-C's headers (prefix "" for the object written or
// read, copySourcePfx for a copy's source): a zero sseRequest when none
// is sent.
func (s *Server) customerKey(r *http.Request, prefix string) (sseRequest, error) {
	h := r.Header
	name := func(n string) string { return "X-Amz-" + prefix + strings.TrimPrefix(n, "X-Amz-") }
	algo, key, sum := h.Get(name(hSSECAlgo)), h.Get(name(hSSECKey)), h.Get(name(hSSECKeyMD5))
	if algo == "" && key == "" && sum == "" {
		return sseRequest{}, nil
	}
	// The key would have crossed the network in the clear: refused
	// whatever else is wrong, as AWS, unless a test setting allows it.
	if !iam.OriginOf(r.Context()).Secure && !s.sseCOverHTTP {
		return sseRequest{}, errSSECInsecure
	}
	switch {
	case algo == "":
		return sseRequest{}, errSSECAlgorithm
	case algo != "AES256":
		return sseRequest{}, errSSECBadAlgo
	case key == "":
		return sseRequest{}, errSSECMissingKey
	}
	k, err := base64.StdEncoding.DecodeString(key)
	if err != nil || len(k) != 32 {
		return sseRequest{}, errSSECBadKey
	}
	if sum == "" {
		return sseRequest{}, errSSECMissingMD5
	}
	d := md5.Sum(k)
	if base64.StdEncoding.EncodeToString(d[:]) != sum {
		return sseRequest{}, errSSECMD5Mismatch
	}
	return sseRequest{Kind: objects.KindSSEC, CustomerKey: k, CustomerKeyMD5: sum}, nil
}

// request is q as the object service takes it (nil: none asked).
func (q sseRequest) request() *objects.EncryptRequest {
	if q.Kind == "" {
		return nil
	}
	return &objects.EncryptRequest{Kind: q.Kind, KeyID: q.KMSKeyID, Context: q.Context, BucketKey: q.BucketKey, CustomerKey: q.CustomerKey}
}

// formSSERequest is a form upload's encryption fields as the headers of
// a request in r's context (whose origin tells whether it was secure).
func formSSERequest(r *http.Request, fields map[string]string) *http.Request {
	h := http.Header{}
	for k, v := range fields {
		if strings.HasPrefix(k, "x-amz-server-side-encryption") {
			h.Set(k, v)
		}
	}
	return (&http.Request{Method: http.MethodPost, Header: h, URL: &url.URL{}}).WithContext(r.Context())
}

// withSSEConditions puts a write's encryption headers, as sent, where
// the bucket policy's condition keys read them.
func withSSEConditions(r *http.Request) *http.Request {
	sse, id := r.Header.Get(hSSE), r.Header.Get(hSSEKMSKeyID)
	if sse == "" && id == "" {
		return r
	}
	o := iam.OriginOf(r.Context())
	o.SSE, o.SSEKMSKeyID = sse, id
	return r.WithContext(iam.WithOrigin(r.Context(), o))
}

// setSSEHeaders writes the encryption response headers AWS sends for an
// object (or upload) encrypted as enc. withContext: PutObject, CopyObject
// and CreateMultipartUpload also echo SSE-KMS's context; withCustomer:
// every operation but CompleteMultipartUpload echoes SSE-C's algorithm
// and key digest: the digest of the key the request brings (checked
// against it by customerKey), as the catalog keeps none.
func (s *Server) setSSEHeaders(ctx context.Context, h http.Header, c *call, enc *catalog.Encryption, withContext, withCustomer bool, keyMD5 string) {
	if enc == nil {
		return
	}
	switch enc.Kind {
	case objects.KindSSEC:
		if withCustomer {
			h.Set(hSSECAlgo, "AES256")
			h.Set(hSSECKeyMD5, keyMD5)
		}
		return
	case objects.KindKMS:
		h.Set(hSSE, enc.Kind)
		h.Set(hSSEKMSKeyID, s.kmsKeyARN(ctx, c.Bucket, enc.KeyID))
		if withContext && enc.Context != "" {
			h.Set(hSSEContext, enc.Context)
		}
	default:
		h.Set(hSSE, enc.Kind)
	}
	if enc.BucketKey {
		h.Set(hSSEBucketKey, "true")
	}
}
