package iam_test

import (
	"fmt"
	"strings"
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

// BenchmarkAuthorizeIdentitySet is one decision for a member whose
// identity set is 7 policies of 6 statements (home folders by
// aws:username, listing by s3:prefix, team buckets by
// aws:PrincipalTag, a network fence by aws:SourceIp), of which only the
// last statement grants the bucket acted on, and for a role session
// carrying the same set and a session policy: the identity-policy cost
// of every GET and PUT (bench/policy_test.go measures it over HTTP).
func BenchmarkAuthorizeIdentitySet(b *testing.B) {
	bucket := &catalog.Bucket{Name: "bench", Owner: "c-alice", Tenant: "acme"}
	var set []*bucketpolicy.Policy
	for n := range 7 {
		p, err := bucketpolicy.ParseIdentity([]byte(identitySetPolicy(n)))
		if err != nil {
			b.Fatal(err)
		}
		set = append(set, p)
	}
	session, err := bucketpolicy.ParseIdentity([]byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject","s3:PutObject"],"Resource":"arn:aws:s3:::bench/*"}]}`))
	if err != nil {
		b.Fatal(err)
	}
	tags := map[string]string{"team": "storage", "site": "fra"}
	bob := &iam.Identity{Tenant: "acme", TenantID: "t-acme", User: "bob", Role: catalog.RoleUser, CanonicalID: "c-bob", Policies: set, Tags: tags}
	role := &iam.Identity{Tenant: "acme", TenantID: "t-acme", Role: catalog.RoleUser, CanonicalID: "c-role", AssumedRole: "bench",
		RoleID: "AROAEXAMPLE", SessionName: "s", Policies: set, Tags: tags, SessionPolicies: []*bucketpolicy.Policy{session}}
	alice := &iam.Identity{Tenant: "acme", TenantID: "t-acme", User: "alice", Role: catalog.RoleUser, CanonicalID: "c-alice"}
	enforced := &iam.BucketAccess{Ownership: iam.OwnerEnforced}
	origin := iam.Origin{SourceIP: "127.0.0.1"}
	for _, c := range []struct {
		name string
		id   *iam.Identity
	}{{"role-only", alice}, {"identity-set", bob}, {"role-session", role}} {
		for _, action := range []iam.Action{"s3:GetObject", "s3:PutObject"} {
			r := iam.Request{ID: c.id, Action: action, Bucket: bucket, Key: "obj-000001", Access: enforced, Origin: origin}
			b.Run(c.name+"/"+string(action), func(b *testing.B) {
				b.ReportAllocs()
				for range b.N {
					if err := iam.Authorize(r); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// identitySetPolicy is the n-th of BenchmarkAuthorizeIdentitySet's 7
// policies, as bench/policy_test.go's identityPolicy.
func identitySetPolicy(n int) string {
	var st []string
	for s := range 6 {
		sid := fmt.Sprintf("p%ds%d", n, s)
		switch s {
		case 0:
			st = append(st, `{"Sid":"`+sid+`Home","Effect":"Allow","Action":["s3:GetObject","s3:PutObject","s3:DeleteObject"],"Resource":"arn:aws:s3:::bench/home/${aws:username}/*"}`)
		case 1:
			st = append(st, `{"Sid":"`+sid+`List","Effect":"Allow","Action":"s3:ListBucket","Resource":"arn:aws:s3:::bench","Condition":{"StringLike":{"s3:prefix":["home/${aws:username}/*","`+sid+`/*"]}}}`)
		case 2:
			st = append(st, `{"Sid":"`+sid+`Team","Effect":"Allow","Action":["s3:Get*","s3:Put*"],"Resource":"arn:aws:s3:::team-${aws:PrincipalTag/team}-`+sid+`/*"}`)
		case 3:
			st = append(st, `{"Sid":"`+sid+`Project","Effect":"Allow","Action":"s3:*","Resource":"arn:aws:s3:::bench/*","Condition":{"StringEquals":{"aws:PrincipalTag/project":"`+sid+`"}}}`)
		case 4:
			st = append(st, `{"Sid":"`+sid+`Fence","Effect":"Deny","Action":"s3:*","Resource":"*","Condition":{"NotIpAddress":{"aws:SourceIp":["127.0.0.0/8","10.0.0.0/8","::1/128"]}}}`)
		case 5:
			if n == 6 {
				st = append(st, `{"Sid":"Grant","Effect":"Allow","Action":["s3:GetObject","s3:PutObject"],"Resource":"arn:aws:s3:::bench/*","Condition":{"StringEquals":{"aws:PrincipalTag/team":"storage"}}}`)
				break
			}
			st = append(st, fmt.Sprintf(`{"Sid":"%sOffice","Effect":"Allow","Action":"s3:GetObject","Resource":"*","Condition":{"IpAddress":{"aws:SourceIp":"10.%d.0.0/16"}}}`, sid, n))
		}
	}
	return `{"Version":"2012-10-17","Statement":[` + strings.Join(st, ",") + `]}`
}
