package iam

import (
	"context"
	"strconv"
	"time"

	"github.com/ostiumio/ostium/internal/iam/bucketpolicy"
)

// Origin is where a request came from, for policy conditions. The
// protocol layer puts it in the request's context.
type Origin struct {
	SourceIP string
	Secure   bool // arrived over TLS
	// SSE and SSEKMSKeyID are a write's x-amz-server-side-encryption and
	// -aws-kms-key-id headers as sent ("" = absent; a default applied
	// later does not count, as on AWS), for the condition keys
	// s3:x-amz-server-side-encryption(-aws-kms-key-id) of s3:PutObject.
	SSE, SSEKMSKeyID string
	// RequestID is the S3 request's x-amz-request-id, which event
	// notifications tell.
	RequestID string
}

type originKey struct{}

// WithOrigin returns ctx carrying o.
func WithOrigin(ctx context.Context, o Origin) context.Context {
	return context.WithValue(ctx, originKey{}, o)
}

// OriginOf returns the origin ctx carries, zero if none.
func OriginOf(ctx context.Context) Origin {
	o, _ := ctx.Value(originKey{}).(Origin)
	return o
}

// policyRequest is what policies see of r: the caller's principal names
// (for a bucket policy's Principal), the action, the resource ARN and the
// condition keys, the same for every kind of policy.
func policyRequest(r Request) bucketpolicy.Request {
	ctx := make(map[string][]string, 16)
	now := r.Now
	if now.IsZero() {
		now = time.Now()
	}
	environment(r.Origin, now, ctx)
	for k, v := range r.Conditions {
		ctx[k] = v
	}
	tagConditions(r, ctx)
	if r.Action == "s3:PutObject" {
		if v := r.Origin.SSE; v != "" {
			ctx["s3:x-amz-server-side-encryption"] = []string{v}
		}
		if v := r.Origin.SSEKMSKeyID; v != "" {
			ctx["s3:x-amz-server-side-encryption-aws-kms-key-id"] = []string{v}
		}
	}
	principalContext(r.ID, ctx)
	var resource, account string
	switch {
	case r.Bucket != nil:
		resource, account = "arn:aws:s3:::"+r.Bucket.Name, r.Bucket.Tenant
		if r.Key != "" {
			resource += "/" + r.Key
		}
		ctx[keyBucketOwner] = []string{r.Bucket.Owner}
	case r.BucketName != "":
		resource = "arn:aws:s3:::" + r.BucketName
	default:
		// An action on no bucket (ListAllMyBuckets): "*" and
		// "arn:aws:s3:::*" match it, as on AWS, and a named bucket not.
		resource = "arn:aws:s3:::*"
	}
	if r.Bucket == nil && r.ID != nil {
		account = r.ID.Tenant // a new bucket is the caller's tenant's
	}
	if account != "" {
		ctx[keyResourceAccount] = []string{account}
	}
	pr := bucketpolicy.Request{Action: string(r.Action), Resource: resource, Context: ctx, Anonymous: r.ID == nil}
	if id := r.ID; id != nil {
		// By id only: a bucket policy's principals were bound to ids
		// when it was stored (ParseAccess), never matched by name.
		pr.Principals = []string{id.CanonicalID}
		if id.Tenant != "" && id.TenantID != "" {
			pr.Principals = append(pr.Principals, id.TenantID)
		}
	}
	return pr
}

// environment adds the condition keys of the request's circumstances:
// aws:SecureTransport, aws:CurrentTime, aws:EpochTime, aws:SourceIp.
func environment(o Origin, now time.Time, ctx map[string][]string) {
	ctx["aws:securetransport"] = []string{strconv.FormatBool(o.Secure)}
	ctx["aws:currenttime"] = []string{now.UTC().Format(time.RFC3339)}
	ctx["aws:epochtime"] = []string{strconv.FormatInt(now.Unix(), 10)}
	if o.SourceIP != "" {
		ctx["aws:sourceip"] = []string{o.SourceIP}
	}
}

type identityKey struct{}

// WithIdentity returns ctx carrying the authenticated caller (nil:
// anonymous), for the other services served on the S3 endpoint.
func WithIdentity(ctx context.Context, id *Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// IdentityOf returns the caller ctx carries; nil if anonymous or none.
func IdentityOf(ctx context.Context) *Identity {
	id, _ := ctx.Value(identityKey{}).(*Identity)
	return id
}
