package iam_test

import (
	"testing"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/iam/bucketpolicy"
)

// BenchmarkAuthorize is the cost of one decision on the hot path (a
// GET or PUT of an object): a member in its own bucket, an admin in a
// colleague's, a member reaching a bucket through its bucket policy,
// and a member with an attached home-folder policy.
func BenchmarkAuthorize(b *testing.B) {
	bucket := &catalog.Bucket{Name: "acme-data", Owner: "c-cy", Tenant: "acme"}
	shared := &catalog.Bucket{Name: "shared", Owner: "c-ann", Tenant: "acme"}
	cy := &iam.Identity{Tenant: "acme", TenantID: "t-acme", User: "cy", Role: catalog.RoleUser, CanonicalID: "c-cy"}
	ann := &iam.Identity{Tenant: "acme", TenantID: "t-acme", User: "ann", Role: catalog.RoleAdmin, CanonicalID: "c-ann"}
	p, err := bucketpolicy.Parse([]byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"acme"},"Action":["s3:GetObject","s3:PutObject"],"Resource":"arn:aws:s3:::shared/${aws:username}/*"}]}`), "shared")
	if err != nil {
		b.Fatal(err)
	}
	p.Bind(map[string]string{"acme": "t-acme"})
	withPolicy := &iam.BucketAccess{Ownership: iam.OwnerEnforced, Policy: p}
	enforced := &iam.BucketAccess{Ownership: iam.OwnerEnforced}
	for _, c := range []struct {
		name string
		r    iam.Request
	}{
		{"member-own-bucket", iam.Request{ID: cy, Action: "s3:GetObject", Bucket: bucket, Key: "some/key", Access: enforced}},
		{"admin-tenant-bucket", iam.Request{ID: ann, Action: "s3:PutObject", Bucket: bucket, Key: "some/key", Access: enforced}},
		{"member-by-bucket-policy", iam.Request{ID: cy, Action: "s3:GetObject", Bucket: shared, Key: "cy/key", Access: withPolicy}},
		{"member-by-identity-policy", iam.Request{ID: homeFolder(b, cy), Action: "s3:GetObject", Bucket: shared, Key: "cy/key", Access: enforced}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if err := iam.Authorize(c.r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// homeFolder is id with a home-folder policy attached.
func homeFolder(b *testing.B, id *iam.Identity) *iam.Identity {
	p, err := bucketpolicy.ParseIdentity([]byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject","s3:PutObject"],"Resource":"arn:aws:s3:::shared/${aws:username}/*"}]}`))
	if err != nil {
		b.Fatal(err)
	}
	c := *id
	c.Policies = []*bucketpolicy.Policy{p}
	return &c
}
