// Package s3 is the S3 wire protocol: routing, authentication, XML and
// error codes. It decodes requests, calls the object service and encodes
// what it returns; S3 semantics live in package objects.
package s3

import (
	"net/http"
	"net/url"
	"strings"
)

// Op is an S3 operation. Each request is parsed once into an Op, which
// names the handler, the authorization action and the metrics label.
type Op int

const (
	OpUnknown Op = iota
	OpListBuckets
	OpCreateBucket
	OpDeleteBucket
	OpHeadBucket
	OpGetBucketLocation
	OpGetBucketVersioning
	OpListObjects
	OpListObjectsV2
	OpListObjectVersions
	OpListMultipartUploads
	OpDeleteObjects
	OpPutObject
	OpCopyObject
	OpGetObject
	OpHeadObject
	OpDeleteObject
	OpCreateMultipartUpload
	OpUploadPart
	OpUploadPartCopy
	OpCompleteMultipartUpload
	OpAbortMultipartUpload
	OpListParts
	OpGetBucketPolicy
	OpPutBucketPolicy
	OpDeleteBucketPolicy
	OpGetBucketPolicyStatus
	OpGetBucketAcl
	OpPutBucketAcl
	OpGetObjectAcl
	OpPutObjectAcl
	OpGetBucketOwnershipControls
	OpPutBucketOwnershipControls
	OpDeleteBucketOwnershipControls
	OpGetPublicAccessBlock
	OpPutPublicAccessBlock
	OpDeletePublicAccessBlock
	OpGetBucketLogging
	OpPutBucketLogging
	OpPutBucketVersioning
	OpGetObjectLockConfiguration
	OpPutObjectLockConfiguration
	OpGetObjectRetention
	OpPutObjectRetention
	OpGetObjectLegalHold
	OpPutObjectLegalHold
	OpGetObjectTagging
	OpPutObjectTagging
	OpDeleteObjectTagging
	OpGetBucketTagging
	OpPutBucketTagging
	OpDeleteBucketTagging
	OpGetBucketLifecycleConfiguration
	OpPutBucketLifecycleConfiguration
	OpDeleteBucketLifecycle
	OpGetBucketCors
	OpPutBucketCors
	OpDeleteBucketCors
	OpOptionsPreflight
	OpPostObject
	OpGetObjectAttributes
	OpGetBucketEncryption
	OpPutBucketEncryption
	OpDeleteBucketEncryption
	OpGetBucketNotificationConfiguration
	OpPutBucketNotificationConfiguration
	OpGetBucketReplication
	OpPutBucketReplication
	OpDeleteBucketReplication
	// OpQueryAPI is a call of another AWS service served on the endpoint
	// (IAM, STS): a form POSTed to "/", in AWS's query protocol.
	OpQueryAPI
	opCount
)

var opNames = [opCount]string{
	"Unknown", "ListBuckets", "CreateBucket", "DeleteBucket", "HeadBucket",
	"GetBucketLocation", "GetBucketVersioning", "ListObjects", "ListObjectsV2",
	"ListObjectVersions", "ListMultipartUploads", "DeleteObjects", "PutObject",
	"CopyObject", "GetObject", "HeadObject", "DeleteObject",
	"CreateMultipartUpload", "UploadPart", "UploadPartCopy",
	"CompleteMultipartUpload", "AbortMultipartUpload", "ListParts",
	"GetBucketPolicy", "PutBucketPolicy", "DeleteBucketPolicy", "GetBucketPolicyStatus",
	"GetBucketAcl", "PutBucketAcl", "GetObjectAcl", "PutObjectAcl",
	"GetBucketOwnershipControls", "PutBucketOwnershipControls", "DeleteBucketOwnershipControls",
	"GetPublicAccessBlock", "PutPublicAccessBlock", "DeletePublicAccessBlock",
	"GetBucketLogging", "PutBucketLogging", "PutBucketVersioning",
	"GetObjectLockConfiguration", "PutObjectLockConfiguration",
	"GetObjectRetention", "PutObjectRetention", "GetObjectLegalHold", "PutObjectLegalHold",
	"GetObjectTagging", "PutObjectTagging", "DeleteObjectTagging",
	"GetBucketTagging", "PutBucketTagging", "DeleteBucketTagging",
	"GetBucketLifecycleConfiguration", "PutBucketLifecycleConfiguration", "DeleteBucketLifecycle",
	"GetBucketCors", "PutBucketCors", "DeleteBucketCors", "OptionsPreflight", "PostObject",
	"GetObjectAttributes",
	"GetBucketEncryption", "PutBucketEncryption", "DeleteBucketEncryption",
	"GetBucketNotificationConfiguration", "PutBucketNotificationConfiguration",
	"GetBucketReplication", "PutBucketReplication", "DeleteBucketReplication",
	"QueryAPI",
}

func (o Op) String() string {
	if o < 0 || o >= opCount {
		return opNames[OpUnknown]
	}
	return opNames[o]
}

// APIRoot is the path under which the endpoint also answers, besides "/".
const APIRoot = "/api/v1/s3"

// Route is a parsed request.
type Route struct {
	Op     Op
	Bucket string
	Key    string
	Query  url.Values
	// VirtualHost tells that the bucket came from the Host header.
	VirtualHost bool
	// Root is APIRoot when the request came under it, else "".
	Root string
}

// Resource is the path S3 names in error responses.
func (r Route) Resource() string {
	switch {
	case r.Bucket == "":
		return "/"
	case r.Key == "":
		return "/" + r.Bucket
	}
	return "/" + r.Bucket + "/" + r.Key
}

// unimplemented lists sub-resources of S3 features not implemented yet; asking
// for one gets NotImplemented rather than being mistaken for a plain
// object or bucket request.
var unimplemented = []string{
	"website",
	"requestPayment", "accelerate", "analytics",
	"inventory", "metrics", "intelligent-tiering", "torrent", "restore", "select",
	"renameObject",
}

// errNotImplemented and errMethodNotAllowed are routing failures.
var (
	errNotImplemented   = &apiError{Status: http.StatusNotImplemented, Code: "NotImplemented", Message: "A header you provided implies functionality that is not implemented"}
	errMethodNotAllowed = &apiError{Status: http.StatusMethodNotAllowed, Code: "MethodNotAllowed", Message: "The specified method is not allowed against this resource."}
)

// parseRoute finds the bucket and key (virtual-hosted or path style, at /
// or under APIRoot) and the operation.
func parseRoute(r *http.Request, domains []string) (Route, error) {
	rt := Route{Query: r.URL.Query()}
	path := r.URL.Path
	if path == APIRoot || strings.HasPrefix(path, APIRoot+"/") {
		rt.Root, path = APIRoot, path[len(APIRoot):]
	}
	path = strings.TrimPrefix(path, "/")
	if b := hostBucket(r.Host, domains); b != "" {
		rt.Bucket, rt.Key, rt.VirtualHost = b, path, true
	} else if i := strings.IndexByte(path, '/'); i >= 0 {
		rt.Bucket, rt.Key = path[:i], path[i+1:]
	} else {
		rt.Bucket = path
	}
	for _, sub := range unimplemented {
		if _, ok := rt.Query[sub]; ok {
			return rt, errNotImplemented
		}
	}
	rt.Op = operation(r, rt)
	switch {
	case rt.Op == OpUnknown:
		return rt, errMethodNotAllowed
	case handlers[rt.Op] == nil:
		// Routed, not yet built.
		return rt, errNotImplemented
	}
	return rt, nil
}

// hostBucket returns the bucket named by a virtual-hosted Host header.
func hostBucket(host string, domains []string) string {
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.Contains(host[i:], "]") {
		host = host[:i]
	}
	host = strings.ToLower(host)
	for _, d := range domains {
		if strings.HasSuffix(host, "."+d) {
			return host[:len(host)-len(d)-1]
		}
	}
	return ""
}

// subresources routes the configuration sub-resources of a bucket and of
// an object by method; a method not listed is not allowed.
type subresources map[string]map[string]Op

var (
	bucketSubresources = subresources{
		"policy":            {http.MethodGet: OpGetBucketPolicy, http.MethodPut: OpPutBucketPolicy, http.MethodDelete: OpDeleteBucketPolicy},
		"policyStatus":      {http.MethodGet: OpGetBucketPolicyStatus},
		"acl":               {http.MethodGet: OpGetBucketAcl, http.MethodPut: OpPutBucketAcl},
		"ownershipControls": {http.MethodGet: OpGetBucketOwnershipControls, http.MethodPut: OpPutBucketOwnershipControls, http.MethodDelete: OpDeleteBucketOwnershipControls},
		"publicAccessBlock": {http.MethodGet: OpGetPublicAccessBlock, http.MethodPut: OpPutPublicAccessBlock, http.MethodDelete: OpDeletePublicAccessBlock},
		"logging":           {http.MethodGet: OpGetBucketLogging, http.MethodPut: OpPutBucketLogging},
		"versioning":        {http.MethodGet: OpGetBucketVersioning, http.MethodPut: OpPutBucketVersioning},
		"object-lock":       {http.MethodGet: OpGetObjectLockConfiguration, http.MethodPut: OpPutObjectLockConfiguration},
		"tagging":           {http.MethodGet: OpGetBucketTagging, http.MethodPut: OpPutBucketTagging, http.MethodDelete: OpDeleteBucketTagging},
		"lifecycle":         {http.MethodGet: OpGetBucketLifecycleConfiguration, http.MethodPut: OpPutBucketLifecycleConfiguration, http.MethodDelete: OpDeleteBucketLifecycle},
		"cors":              {http.MethodGet: OpGetBucketCors, http.MethodPut: OpPutBucketCors, http.MethodDelete: OpDeleteBucketCors},
		"encryption":        {http.MethodGet: OpGetBucketEncryption, http.MethodPut: OpPutBucketEncryption, http.MethodDelete: OpDeleteBucketEncryption},
		"notification":      {http.MethodGet: OpGetBucketNotificationConfiguration, http.MethodPut: OpPutBucketNotificationConfiguration},
		"replication":       {http.MethodGet: OpGetBucketReplication, http.MethodPut: OpPutBucketReplication, http.MethodDelete: OpDeleteBucketReplication},
	}
	objectSubresources = subresources{
		"acl":        {http.MethodGet: OpGetObjectAcl, http.MethodPut: OpPutObjectAcl},
		"tagging":    {http.MethodGet: OpGetObjectTagging, http.MethodPut: OpPutObjectTagging, http.MethodDelete: OpDeleteObjectTagging},
		"retention":  {http.MethodGet: OpGetObjectRetention, http.MethodPut: OpPutObjectRetention},
		"legal-hold": {http.MethodGet: OpGetObjectLegalHold, http.MethodPut: OpPutObjectLegalHold},
		"attributes": {http.MethodGet: OpGetObjectAttributes},
	}
)

// find returns the operation of the sub-resource q asks for, if it asks
// for one.
func (t subresources) find(q url.Values, method string) (op Op, asked bool) {
	for sub, ops := range t {
		if _, ok := q[sub]; ok {
			return ops[method], true
		}
	}
	return OpUnknown, false
}

func operation(r *http.Request, rt Route) Op {
	q := rt.Query
	has := func(k string) bool { _, ok := q[k]; return ok }
	switch {
	case rt.Bucket == "":
		switch r.Method {
		case http.MethodGet:
			return OpListBuckets
		case http.MethodPost:
			return OpQueryAPI
		}
	case r.Method == http.MethodOptions:
		return OpOptionsPreflight
	case rt.Key == "":
		if op, ok := bucketSubresources.find(q, r.Method); ok {
			return op
		}
		switch r.Method {
		case http.MethodPut:
			return OpCreateBucket
		case http.MethodDelete:
			return OpDeleteBucket
		case http.MethodHead:
			return OpHeadBucket
		case http.MethodPost:
			if has("delete") {
				return OpDeleteObjects
			}
			if strings.HasPrefix(strings.ToLower(r.Header.Get("Content-Type")), "multipart/form-data") {
				return OpPostObject
			}
		case http.MethodGet:
			switch {
			case has("location"):
				return OpGetBucketLocation
			case has("versions"):
				return OpListObjectVersions
			case has("uploads"):
				return OpListMultipartUploads
			case q.Get("list-type") == "2":
				return OpListObjectsV2
			}
			return OpListObjects
		}
	default:
		if op, ok := objectSubresources.find(q, r.Method); ok {
			return op
		}
		switch r.Method {
		case http.MethodPut:
			copySrc := r.Header.Get("x-amz-copy-source") != ""
			switch {
			case has("uploadId") && copySrc:
				return OpUploadPartCopy
			case has("uploadId"):
				return OpUploadPart
			case copySrc:
				return OpCopyObject
			}
			return OpPutObject
		case http.MethodGet:
			if has("uploadId") {
				return OpListParts
			}
			return OpGetObject
		case http.MethodHead:
			return OpHeadObject
		case http.MethodDelete:
			if has("uploadId") {
				return OpAbortMultipartUpload
			}
			return OpDeleteObject
		case http.MethodPost:
			switch {
			case has("uploads"):
				return OpCreateMultipartUpload
			case has("uploadId"):
				return OpCompleteMultipartUpload
			}
		}
	}
	return OpUnknown
}
