package s3

import (
	"crypto/tls"
	"encoding/xml"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/accesslog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/objects"
	"github.com/ostiumio/ostium/internal/redact"
)

func init() {
	domainErrors[objects.ErrInvalidTargetBucketForLogging] = apiError{400, "InvalidTargetBucketForLogging", "The target bucket for logging does not exist"}
	// AWS's code, misspelt as AWS spells it.
	domainErrors[objects.ErrCrossLocationLogging] = apiError{403, "CrossLocationLoggingProhibitted", "Cross S3 location logging not allowed."}
}

// bucketLoggingStatus is the document of Get/PutBucketLogging; an empty
// one turns logging off.
type bucketLoggingStatus struct {
	XMLName        xml.Name        `xml:"BucketLoggingStatus"`
	NS             string          `xml:"xmlns,attr,omitempty"`
	LoggingEnabled *loggingEnabled `xml:",omitempty"`
}

type loggingEnabled struct {
	TargetBucket          string
	TargetGrants          []targetGrant `xml:"TargetGrants>Grant,omitempty"`
	TargetPrefix          string
	TargetObjectKeyFormat *keyFormat `xml:",omitempty"`
}

type targetGrant struct {
	Grantee    aclGrantee
	Permission string
}

type keyFormat struct {
	SimplePrefix      *struct{}          `xml:",omitempty"`
	PartitionedPrefix *partitionedPrefix `xml:",omitempty"`
}

type partitionedPrefix struct {
	PartitionDateSource string `xml:",omitempty"`
}

// loggingIn is what PutBucketLogging reads: grantees by their xsi:type
// whatever prefix the client bound.
type loggingIn struct {
	LoggingEnabled *struct {
		TargetBucket string
		TargetGrants []struct {
			Grantee    aclGranteeIn
			Permission string
		} `xml:"TargetGrants>Grant"`
		TargetPrefix          string
		TargetObjectKeyFormat *keyFormat
	}
}

func getBucketLogging(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	l, err := s.svc.GetBucketLogging(r.Context(), c.id, c.Bucket)
	if err != nil {
		return err
	}
	out := bucketLoggingStatus{NS: s3NS}
	if l != nil {
		le := &loggingEnabled{TargetBucket: l.TargetBucket, TargetPrefix: l.TargetPrefix}
		for _, g := range l.Grants {
			le.TargetGrants = append(le.TargetGrants, targetGrant{aclGrantee{XSI: xsiNS, Type: g.Type, ID: g.ID, URI: g.URI}, g.Permission})
		}
		if l.Partitioned {
			le.TargetObjectKeyFormat = &keyFormat{PartitionedPrefix: &partitionedPrefix{l.DateSource}}
		}
		out.LoggingEnabled = le
	}
	writeXML(w, http.StatusOK, out)
	return nil
}

func putBucketLogging(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	var doc loggingIn
	if err := readXML(r, c, &doc); err != nil {
		return err
	}
	var l *objects.Logging
	if in := doc.LoggingEnabled; in != nil {
		l = &objects.Logging{TargetBucket: in.TargetBucket, TargetPrefix: in.TargetPrefix}
		for _, g := range in.TargetGrants {
			switch g.Grantee.Type {
			case iam.GranteeUser, iam.GranteeGroup, iam.GranteeEmail:
			default:
				return errMalformedACL
			}
			l.Grants = append(l.Grants, iam.Grant{Type: g.Grantee.Type, ID: g.Grantee.ID, URI: g.Grantee.URI, Email: g.Grantee.EmailAddress, Permission: g.Permission})
		}
		if err := validGrants(l.Grants); err != nil {
			return err
		}
		if f := in.TargetObjectKeyFormat; f != nil && f.PartitionedPrefix != nil {
			if f.SimplePrefix != nil {
				return &apiError{400, "MalformedXML", "TargetObjectKeyFormat takes SimplePrefix or PartitionedPrefix, not both"}
			}
			l.Partitioned, l.DateSource = true, f.PartitionedPrefix.PartitionDateSource
		}
	}
	return s.svc.PutBucketLogging(r.Context(), c.id, c.Bucket, l)
}

// logOperations names operations as AWS's access log records do; an
// operation not listed is named after its method and whether it has a
// key.
var logOperations = map[Op]string{
	OpCreateBucket: "REST.PUT.BUCKET", OpDeleteBucket: "REST.DELETE.BUCKET", OpHeadBucket: "REST.HEAD.BUCKET",
	OpGetBucketLocation: "REST.GET.LOCATION", OpGetBucketVersioning: "REST.GET.VERSIONING", OpPutBucketVersioning: "REST.PUT.VERSIONING",
	OpListObjects: "REST.GET.BUCKET", OpListObjectsV2: "REST.GET.BUCKET", OpListObjectVersions: "REST.GET.BUCKETVERSIONS",
	OpListMultipartUploads: "REST.GET.UPLOADS", OpDeleteObjects: "REST.POST.MULTI_OBJECT_DELETE",
	OpPutObject: "REST.PUT.OBJECT", OpCopyObject: "REST.COPY.OBJECT", OpGetObject: "REST.GET.OBJECT",
	OpHeadObject: "REST.HEAD.OBJECT", OpDeleteObject: "REST.DELETE.OBJECT",
	OpCreateMultipartUpload: "REST.POST.UPLOADS", OpUploadPart: "REST.PUT.PART", OpUploadPartCopy: "REST.COPY.PART",
	OpCompleteMultipartUpload: "REST.POST.UPLOAD", OpAbortMultipartUpload: "REST.DELETE.UPLOAD", OpListParts: "REST.GET.UPLOAD",
	OpGetBucketPolicy: "REST.GET.BUCKETPOLICY", OpPutBucketPolicy: "REST.PUT.BUCKETPOLICY", OpDeleteBucketPolicy: "REST.DELETE.BUCKETPOLICY",
	OpGetBucketPolicyStatus: "REST.GET.POLICY_STATUS",
	OpGetBucketAcl:          "REST.GET.ACL", OpPutBucketAcl: "REST.PUT.ACL", OpGetObjectAcl: "REST.GET.ACL", OpPutObjectAcl: "REST.PUT.ACL",
	OpGetBucketOwnershipControls: "REST.GET.OWNERSHIP_CONTROLS", OpPutBucketOwnershipControls: "REST.PUT.OWNERSHIP_CONTROLS",
	OpDeleteBucketOwnershipControls: "REST.DELETE.OWNERSHIP_CONTROLS",
	OpGetPublicAccessBlock:          "REST.GET.PUBLIC_ACCESS_BLOCK", OpPutPublicAccessBlock: "REST.PUT.PUBLIC_ACCESS_BLOCK",
	OpDeletePublicAccessBlock: "REST.DELETE.PUBLIC_ACCESS_BLOCK",
	OpGetBucketLogging:        "REST.GET.LOGGING_STATUS", OpPutBucketLogging: "REST.PUT.LOGGING_STATUS",
}

func logOperation(op Op, method, key string) string {
	if name, ok := logOperations[op]; ok {
		return name
	}
	if key != "" {
		return "REST." + method + ".OBJECT"
	}
	return "REST." + method + ".BUCKET"
}

// logAccess records a request on a bucket with logging on, after its
// response. Buckets without logging cost a cached lookup.
func (s *Server) logAccess(r *http.Request, c *call, w *meteredWriter, start time.Time, err error) {
	if s.accessLog == nil || c.Bucket == "" {
		return
	}
	t, ok := s.svc.AccessLogTarget(r.Context(), c.Bucket)
	if !ok {
		return
	}
	e := accesslog.Entry{
		Source: c.Bucket, Owner: t.Owner, Target: t.Target, KeyPrefix: t.KeyPrefix, Partition: t.Partition,
		Time: start, RemoteIP: iam.OriginOf(r.Context()).SourceIP, RequestID: c.reqID,
		Operation: logOperation(c.Op, r.Method, c.Key), Key: c.Key,
		// AWS leaves the signature out of its access logs' Request-URI,
		// the field kept as it is otherwise.
		Method: r.Method, RequestURI: redact.String(r.RequestURI), Proto: r.Proto,
		Status: w.status, BytesSent: w.n, ObjectSize: -1, TotalTime: time.Since(start), Turnaround: -1,
		Referer: r.Header.Get("Referer"), UserAgent: r.Header.Get("User-Agent"), VersionID: c.Query.Get("versionId"),
		HostID: c.reqID, Host: r.Host,
	}
	if e.Status == 0 {
		e.Status = http.StatusOK
	}
	if err != nil {
		e.ErrorCode = toAPIError(err).Code
	}
	if id := c.id; id != nil {
		e.Requester = id.CanonicalID
		if id.Tenant != "" && id.User != "" {
			e.Requester = "arn:aws:iam::" + id.Tenant + ":user/" + id.User
		}
		e.SigVersion, e.AuthType = signature(r)
	}
	switch {
	case (c.Op == OpPutObject || c.Op == OpUploadPart) && c.body != nil:
		e.ObjectSize = c.body.n
	case (c.Op == OpGetObject || c.Op == OpHeadObject) && err == nil:
		h := w.Header()
		if cr := h.Get("Content-Range"); cr != "" {
			if i := strings.LastIndexByte(cr, '/'); i >= 0 {
				e.ObjectSize, _ = strconv.ParseInt(cr[i+1:], 10, 64)
			}
		} else {
			e.ObjectSize, _ = strconv.ParseInt(h.Get("Content-Length"), 10, 64)
		}
	}
	if r.TLS != nil {
		e.Cipher = tls.CipherSuiteName(r.TLS.CipherSuite)
		e.TLSVersion = strings.Replace(tls.VersionName(r.TLS.Version), "TLS 1.", "TLSv1.", 1)
	}
	s.accessLog.Record(e)
}

// signature tells how an authenticated request was signed, as access
// log records do: SigV2 or SigV4, in a header or the query string.
func signature(r *http.Request) (version, authType string) {
	q := r.URL.Query()
	switch auth := r.Header.Get("Authorization"); {
	case strings.HasPrefix(auth, "AWS4-"):
		return "SigV4", "AuthHeader"
	case strings.HasPrefix(auth, "AWS "):
		return "SigV2", "AuthHeader"
	case q.Has("X-Amz-Algorithm"):
		return "SigV4", "QueryString"
	case q.Has("Signature"):
		return "SigV2", "QueryString"
	}
	return "", ""
}
