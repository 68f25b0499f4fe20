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

// policyRequest is what a bucket policy sees of r: the caller's principal
// names, the action, the resource ARN and the condition keys.
func policyRequest(r Request) bucketpolicy.Request {
	resource := "arn:aws:s3:::" + r.Bucket.Name
	if r.Key != "" {
		resource += "/" + r.Key
	}
	ctx := map[string][]string{
		"aws:securetransport": {strconv.FormatBool(r.Origin.Secure)},
		"aws:currenttime":     {time.Now().UTC().Format(time.RFC3339)},
	}
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
	if r.Origin.SourceIP != "" {
		ctx["aws:sourceip"] = []string{r.Origin.SourceIP}
	}
	pr := bucketpolicy.Request{Action: string(r.Action), Resource: resource, Context: ctx, Anonymous: r.ID == nil}
	if id := r.ID; id != nil {
		// By id only: the policy's principals were bound to ids when it
		// was stored (ParseAccess), never matched by name.
		pr.Principals = []string{id.CanonicalID}
		if id.Tenant != "" {
			if id.TenantID != "" {
				pr.Principals = append(pr.Principals, id.TenantID)
			}
			ctx["aws:username"] = []string{id.User}
			ctx["aws:userid"] = []string{id.CanonicalID}
		}
	}
	return pr
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
