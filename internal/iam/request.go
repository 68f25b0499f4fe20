package iam

import (
	"context"

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
	// Replication: the change is replication's own, carrying a change
	// made elsewhere; it is not replicated again (no ping-pong between
	// buckets that replicate to each other).
	Replication bool
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
// condition keys, the same for every kind of policy (Principals, which
// only a bucket policy reads, are added before it is). The keys the
// operation defines (s3:prefix, the tags, ...) are in Context; the
// global ones are computed when a policy asks (requestKeys).
func policyRequest(r Request) bucketpolicy.Request {
	ctx := r.Conditions
	sse := r.Action == "s3:PutObject" && (r.Origin.SSE != "" || r.Origin.SSEKMSKeyID != "")
	if sse || existingTagActions[r.Action] && len(r.ObjectTags) > 0 || requestTagActions[r.Action] && len(r.RequestTags) > 0 {
		ctx = make(map[string][]string, len(r.Conditions)+len(r.ObjectTags)+len(r.RequestTags)+2)
		for k, v := range r.Conditions {
			ctx[k] = v
		}
		tagConditions(r, ctx)
		if v := r.Origin.SSE; sse && v != "" {
			ctx["s3:x-amz-server-side-encryption"] = []string{v}
		}
		if v := r.Origin.SSEKMSKeyID; sse && v != "" {
			ctx["s3:x-amz-server-side-encryption-aws-kms-key-id"] = []string{v}
		}
	}
	keys := &requestKeys{id: r.ID, origin: r.Origin, now: r.Now}
	var resource string
	switch {
	case r.Bucket != nil:
		resource, keys.account = "arn:aws:s3:::"+r.Bucket.Name, r.Bucket.Tenant
		if r.Key != "" {
			resource += "/" + r.Key
		}
		keys.owner, keys.hasOwner = r.Bucket.Owner, true
	case r.BucketName != "":
		resource = "arn:aws:s3:::" + r.BucketName
	default:
		// An action on no bucket (ListAllMyBuckets): "*" and
		// "arn:aws:s3:::*" match it, as on AWS, and a named bucket not.
		resource = "arn:aws:s3:::*"
	}
	if r.Bucket == nil && r.ID != nil {
		keys.account = r.ID.Tenant // a new bucket is the caller's tenant's
	}
	return bucketpolicy.Request{Action: string(r.Action), Resource: resource, Context: ctx, Keys: keys, Anonymous: r.ID == nil}
}

// principals are the names a bucket policy's Principal may match id by:
// by id only, since a bucket policy's principals were bound to ids when
// it was stored (ParseAccess), never matched by name.
func principals(id *Identity) []string {
	if id == nil {
		return nil
	}
	if id.Tenant != "" && id.TenantID != "" {
		return []string{id.CanonicalID, id.TenantID}
	}
	return []string{id.CanonicalID}
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
